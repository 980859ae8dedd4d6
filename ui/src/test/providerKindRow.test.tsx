// A kind of provider is one row of data (crates/protocol/src/providers.rs): with one more
// OpenAI-compatible row in the bindings, and nothing else changed, the window offers it and
// treats it as it treats OpenAI's — an address, its own default address, a key it needs.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import type { ProviderKindView } from "../bindings";
import { PROVIDER_KINDS } from "../bindings";
import { App } from "../App";
import { hostedKinds, isBuiltin, kindInfo, needsKey, serviceWords, takesAddress } from "../providerKinds";
import { entry, installFakeBackend, settingsView, text, type Call, type FakeProject } from "./fakeBackend";
import { resetStores } from "./resetStores";

const groq = vi.hoisted(
  (): ProviderKindView => ({
    name: "groq",
    words: "Groq",
    wire: "openai",
    default_url: "https://api.groq.com/openai/v1",
    key_env: "GROQ_API_KEY",
  }),
);

vi.mock("../bindings", async (original) => {
  const real = await original<typeof import("../bindings")>();
  return { ...real, PROVIDER_KINDS: [...real.PROVIDER_KINDS, groq] };
});

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("README.md", "file")] },
  files: { "README.md": text("README.md", ["# Demo"]) },
};

beforeEach(resetStores);
afterEach(() => {
  cleanup();
  clearMocks();
});

function args<T = unknown>(calls: Call[], cmd: string, nth = 0): T {
  return (calls.filter((c) => c.cmd === cmd)[nth]?.payload as { args: T }).args;
}

describe("a kind of provider added as one row", () => {
  it("is in the rows the window reads, and its facts come from its row", () => {
    expect(PROVIDER_KINDS.map((k) => k.name)).toEqual(["anthropic", "openai", "builtin", "groq"]);
    expect(kindInfo("groq")).toEqual(groq);
    expect(takesAddress("groq")).toBe(true);
    expect(isBuiltin("groq")).toBe(false);
    expect(needsKey("groq", "")).toBe(true);
    expect(serviceWords(groq)).toBe("Groq");
    expect(hostedKinds().map((k) => k.name)).toEqual(["anthropic", "openai", "groq"]);
  });

  it("is offered in Settings and treated like OpenAI's: an address, its default, a key", async () => {
    const calls = installFakeBackend(project, {
      settings: settingsView({
        providers: [{ name: "anthropic", kind: "anthropic", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null }],
      }),
      models: ["llama-3.3-70b-versatile"],
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByTestId("settings-button"));
    const view = await screen.findByTestId("settings-view");

    // The kind select offers the new row, in its words, after the others.
    const card = within(view).getByTestId("provider-card");
    const select = within(card).getByTestId("provider-kind");
    expect(Array.from(select.querySelectorAll("option")).map((o) => [o.value, o.textContent])).toEqual([
      ["anthropic", "Anthropic"],
      ["openai", "OpenAI or compatible"],
      ["builtin", "Built in (this computer)"],
      ["groq", "Groq"],
    ]);
    expect(within(card).queryByTestId("provider-base-url")).toBeNull();

    // Chosen, it takes an address as an OpenAI-compatible kind does, with its own default.
    await user.selectOptions(select, "groq");
    expect(select).toHaveValue("groq");
    const address = within(card).getByTestId("provider-base-url");
    expect(address).toHaveAttribute("placeholder", "https://api.groq.com/openai/v1");
    expect(card).toHaveTextContent("(empty for Groq itself)");
    expect(within(card).getByTestId("key-source")).toHaveTextContent("(none stored — Groq needs one)");
    expect(within(card).getByTestId("provider-key")).toBeInTheDocument();
    expect(within(card).getByTestId("provider-advanced")).toBeInTheDocument();

    // It can be added as its own provider, and is connected to and saved by its name.
    const add = within(view).getByTestId("add-groq");
    expect(add).toHaveTextContent("+ Groq");
    await user.click(add);
    const added = within(view).getAllByTestId("provider-card").find((c) => c.getAttribute("data-name") === "groq")!;
    expect(within(added).getByTestId("provider-kind")).toHaveValue("groq");
    expect(within(added).getByTestId("provider-base-url")).toHaveValue("");
    await user.type(within(added).getByTestId("provider-key"), "gsk-123");
    await user.click(within(added).getByTestId("test-connection"));
    expect(await within(added).findByTestId("test-result")).toHaveTextContent("Connected — 1 model");
    expect(args(calls, "test_connection")).toEqual({ kind: "groq", base_url: null, api_key: "gsk-123", provider: null });
    await user.click(within(view).getByTestId("settings-save"));
    await waitFor(() => expect(calls.some((c) => c.cmd === "save_settings")).toBe(true));
    expect(args<{ providers: Array<{ name: string; kind: string }> }>(calls, "save_settings").providers.map((p) => [p.name, p.kind])).toEqual([
      ["anthropic", "groq"],
      ["groq", "groq"],
    ]);
  });
});
