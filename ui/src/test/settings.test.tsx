// Settings, the first-run screen, the model picker, the rules and the mode switch, as a person
// meets them (issue 16: items 1, 5, 6 and parts of 8), against the fake backend.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { App } from "../App";
import { useApp } from "../store";
import { useSession } from "../session";
import { DEFAULT_LOCAL_URL, PROVIDER_KINDS } from "../bindings";
import type { EngineError, RulesView } from "../bindings";
import { builtinStatus, engineError, entry, installFakeBackend, rulesView, settingsView, text, type Call, type FakeAgent, type FakeProject, type FakeTurn } from "./fakeBackend";
import { resetStores } from "./resetStores";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("README.md", "file")] },
  files: { "README.md": text("README.md", ["# Demo"]) },
};

const unconfigured = settingsView({ providers: [], roles: [], configured: false, in_use: null });

beforeEach(resetStores);
afterEach(() => {
  cleanup();
  clearMocks();
});

function args<T = unknown>(calls: Call[], cmd: string, nth = 0): T {
  return (calls.filter((c) => c.cmd === cmd)[nth]?.payload as { args: T }).args;
}

/** The app on the project, with Settings open. */
async function openSettings(agent: FakeAgent = {}) {
  const calls = installFakeBackend(project, agent);
  const user = userEvent.setup();
  render(<App />);
  if (agent.settings && !agent.settings.configured) await user.click(await screen.findByTestId("first-run-skip"));
  await user.click(await screen.findByTestId("settings-button"));
  const view = await screen.findByTestId("settings-view");
  return { calls, user, view };
}

describe("settings: connect, pick a model, use it — in one place", () => {
  it("adding a local server, connecting and saving leaves a model in use, so tasks can run", async () => {
    const { calls, user, view } = await openSettings({ settings: unconfigured, models: ["mock-model", "qwen2.5-coder:7b"] });
    expect(within(view).getByTestId("settings-in-use")).toHaveTextContent("No model is chosen yet");
    await user.click(within(view).getByTestId("add-local"));
    const card = within(view).getByTestId("provider-card");
    // One address for local servers, everywhere.
    expect(within(card).getByTestId("provider-base-url")).toHaveValue(DEFAULT_LOCAL_URL);
    await user.click(within(card).getByTestId("test-connection"));
    expect(await within(card).findByTestId("test-result")).toHaveTextContent("Connected — 2 models");
    expect(within(card).getByTestId("provider-model")).toHaveValue("mock-model");
    expect(within(view).getByTestId("settings-in-use")).toHaveTextContent("New tasks will use mock-model (local) once you save.");
    await user.click(within(view).getByTestId("settings-save"));
    await waitFor(() => expect(screen.getByTestId("saved-note")).toHaveTextContent("Saved."));
    expect(args(calls, "save_settings")).toEqual({
      providers: [{ name: "local", kind: "openai", base_url: DEFAULT_LOCAL_URL, num_ctx: null, lenient_tool_calls: null, small_model: null }],
      roles: [{ role: "default", provider: "local", model: "mock-model" }],
    });
    expect(within(view).getByTestId("settings-in-use")).toHaveTextContent("New tasks use mock-model (local).");
    expect(screen.queryByTestId("save-error")).toBeNull();
  });

  it("uses another model of a server at once with “Use this model”", async () => {
    const settings = settingsView({
      providers: [
        { name: "anthropic", kind: "anthropic", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: "keychain" },
        { name: "local", kind: "openai", base_url: DEFAULT_LOCAL_URL, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null },
      ],
    });
    const { calls, user, view } = await openSettings({
      settings,
      providerModels: [
        { provider: "anthropic", models: ["claude-sonnet-4-5"], error: null },
        { provider: "local", models: ["llama3.2:3b", "qwen2.5-coder:7b"], error: null },
      ],
    });
    // The saved servers' models are there without testing again.
    const local = (await within(view).findAllByTestId("provider-card")).find((c) => c.getAttribute("data-name") === "local")!;
    const pick = await within(local).findByTestId("provider-model");
    await user.selectOptions(pick, "qwen2.5-coder:7b");
    await user.click(within(local).getByTestId("use-model"));
    await waitFor(() => expect(args(calls, "save_settings")).toBeDefined());
    expect(args<{ roles: unknown }>(calls, "save_settings").roles).toEqual([
      { role: "default", provider: "local", model: "qwen2.5-coder:7b" },
    ]);
    await waitFor(() => expect(within(local).getByTestId("model-in-use")).toHaveTextContent("In use"));
    expect(screen.getByTestId("saved-note")).toHaveTextContent("New tasks use qwen2.5-coder:7b.");
    // The other roles choose from the listed models too, not a free-text box.
    await user.click(within(view).getByText("A different model for some jobs (optional)"));
    const fast = within(view).getAllByTestId("role-row").find((r) => r.getAttribute("data-role") === "fast")!;
    await user.selectOptions(within(fast).getByTestId("role-provider"), "local");
    const model = within(fast).getByTestId("role-model");
    expect(model.tagName).toBe("SELECT");
    expect(within(model).getAllByRole("option").map((o) => o.textContent)).toEqual(["llama3.2:3b", "qwen2.5-coder:7b"]);
  });

  it("shows and saves whether a server's calls written as text are run", async () => {
    const settings = settingsView({
      providers: [
        { name: "local", kind: "openai", base_url: DEFAULT_LOCAL_URL, num_ctx: null, lenient_tool_calls: true, small_model: null, key_source: null },
        { name: "llama", kind: "openai", base_url: "http://127.0.0.1:8080/v1", num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null },
      ],
      roles: [{ role: "default", provider: "local", model: "qwen2.5-coder:7b" }],
    });
    const { calls, user, view } = await openSettings({ settings });
    const cards = within(view).getAllByTestId("provider-card");
    const local = cards.find((c) => c.getAttribute("data-name") === "local")!;
    const llama = cards.find((c) => c.getAttribute("data-name") === "llama")!;
    // A setting few people need: folded under Advanced, which says what differs from the default.
    const advanced = within(local).getByTestId("provider-advanced");
    expect(advanced.tagName).toBe("DETAILS");
    expect(advanced).not.toHaveAttribute("open");
    expect(advanced.querySelector("summary")).toHaveTextContent("Advanced · calls written as text run");
    expect(within(llama).getByTestId("provider-advanced").querySelector("summary")).toHaveTextContent(/^Advanced$/);
    expect(within(advanced).getByTestId("provider-lenient")).toBeInTheDocument();
    expect(within(advanced).getByText("(num_ctx)")).toBeInTheDocument();
    await user.click(within(advanced).getByText("Advanced"));
    expect(advanced).toHaveAttribute("open");
    expect(within(local).getByTestId("provider-lenient")).toHaveValue("on");
    expect(within(llama).getByTestId("provider-lenient")).toHaveValue("auto");
    await user.selectOptions(within(local).getByTestId("provider-lenient"), "off");
    await user.click(within(view).getByTestId("settings-save"));
    await waitFor(() => expect(args(calls, "save_settings")).toBeDefined());
    expect(args<{ providers: Array<{ name: string; lenient_tool_calls: boolean | null }> }>(calls, "save_settings").providers.map((p) => [p.name, p.lenient_tool_calls])).toEqual([
      ["local", false],
      ["llama", null],
    ]);
  });

  it("shows and saves whether a server's models get the small-model help", async () => {
    const settings = settingsView({
      providers: [
        { name: "local", kind: "openai", base_url: DEFAULT_LOCAL_URL, num_ctx: null, lenient_tool_calls: null, small_model: false, key_source: null },
        { name: "llama", kind: "openai", base_url: "http://127.0.0.1:8080/v1", num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null },
      ],
      roles: [{ role: "default", provider: "local", model: "qwen2.5-coder:1.5b" }],
    });
    const { calls, user, view } = await openSettings({ settings });
    const cards = within(view).getAllByTestId("provider-card");
    const local = cards.find((c) => c.getAttribute("data-name") === "local")!;
    const llama = cards.find((c) => c.getAttribute("data-name") === "llama")!;
    // Folded, it still says the help is off for this server.
    expect(within(local).getByTestId("provider-advanced").querySelector("summary")).toHaveTextContent("Advanced · no small-model help");
    expect(within(local).getByTestId("provider-small-model")).toHaveValue("off");
    expect(within(llama).getByTestId("provider-small-model")).toHaveValue("auto");
    await user.click(within(llama).getByText("Advanced"));
    await user.selectOptions(within(llama).getByTestId("provider-small-model"), "on");
    await user.click(within(view).getByTestId("settings-save"));
    await waitFor(() => expect(args(calls, "save_settings")).toBeDefined());
    expect(args<{ providers: Array<{ name: string; small_model: boolean | null }> }>(calls, "save_settings").providers.map((p) => [p.name, p.small_model])).toEqual([
      ["local", false],
      ["llama", true],
    ]);
  });

  it("asks before closing with unsaved changes, and closes at once without", async () => {
    const { calls, user, view } = await openSettings();
    await user.click(within(view).getByTestId("settings-close"));
    expect(screen.queryByTestId("settings-view")).toBeNull();

    await user.click(screen.getByTestId("settings-button"));
    const again = await screen.findByTestId("settings-view");
    await user.click(within(again).getByTestId("add-local"));
    await user.keyboard("{Escape}");
    expect(screen.getByTestId("unsaved-changes")).toHaveTextContent("Some changes are not saved yet.");
    await user.click(screen.getByTestId("unsaved-cancel"));
    expect(screen.queryByTestId("unsaved-changes")).toBeNull();
    expect(screen.getByTestId("settings-view")).toBeInTheDocument();
    await user.click(within(again).getByTestId("settings-close"));
    await user.click(screen.getByTestId("unsaved-save"));
    await waitFor(() => expect(screen.queryByTestId("settings-view")).toBeNull());
    expect(args<{ providers: Array<{ name: string }> }>(calls, "save_settings").providers.map((p) => p.name)).toEqual([
      "anthropic",
      "local",
    ]);

    await user.click(screen.getByTestId("settings-button"));
    const third = await screen.findByTestId("settings-view");
    await user.type(within(third).getAllByTestId("provider-key")[0]!, "sk-new");
    await user.click(within(third).getByTestId("settings-close"));
    await user.click(screen.getByTestId("unsaved-discard"));
    expect(screen.queryByTestId("settings-view")).toBeNull();
    expect(calls.some((c) => c.cmd === "set_api_key")).toBe(false);
    void view;
  });

  it("never says the settings were not saved when they were: a key that could not be stored says so alone", async () => {
    const { calls, user, view } = await openSettings({
      keyError: "No keychain service is running on this computer. Tick “Keep keys in a file only I can read” to store it in a file instead.",
    });
    await user.click(within(view).getByTestId("add-local"));
    const card = within(view).getAllByTestId("provider-card")[1]!;
    await user.type(within(card).getByTestId("provider-key"), "secret");
    await user.click(within(view).getByTestId("settings-save"));
    const problem = await screen.findByTestId("save-error");
    expect(problem).toHaveTextContent("The settings were saved, but the API key for “local” was not: No keychain service");
    expect(problem).not.toHaveTextContent("were not saved");
    expect(calls.filter((c) => c.cmd === "save_settings")).toHaveLength(1);
    // The key is still typed and unsaved: closing asks.
    expect(within(card).getByTestId("provider-key")).toHaveValue("secret");
    await user.click(within(view).getByTestId("settings-close"));
    expect(screen.getByTestId("unsaved-changes")).toBeInTheDocument();
  });

  it("shows a failed connection in Rust's words, the cause folded under Details", async () => {
    const error: EngineError = {
      ...engineError("not_a_model_server", ""),
      message:
        "The address http://127.0.0.1:8080 answered with a web page (HTTP 404), not as a model server, so it is probably wrong. Check it in Settings: OpenAI-compatible servers usually end in /v1, like http://127.0.0.1:11434/v1.",
    };
    const { user, view } = await openSettings({ models: error });
    await user.click(within(view).getByTestId("add-local"));
    const card = within(view).getAllByTestId("provider-card")[1]!;
    await user.clear(within(card).getByTestId("provider-base-url"));
    await user.type(within(card).getByTestId("provider-base-url"), "http://127.0.0.1:8080");
    await user.click(within(card).getByTestId("test-connection"));
    const result = await within(card).findByTestId("test-result");
    expect(result).toHaveAttribute("data-code", "not_a_model_server");
    expect(result).toHaveTextContent("answered with a web page (HTTP 404)");
    expect(result).not.toHaveTextContent("<");
    expect(result).not.toHaveTextContent("try again in a moment");
  });

  it("offers every kind of provider of the rows, in their order and words, and treats each by its row", async () => {
    const { user, view } = await openSettings({
      settings: settingsView({
        providers: [{ name: "anthropic", kind: "anthropic", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null }],
      }),
    });
    const card = within(view).getByTestId("provider-card");
    const select = within(card).getByTestId("provider-kind");
    expect(select).toHaveValue("anthropic");
    expect(Array.from(select.querySelectorAll("option")).map((o) => [o.value, o.textContent])).toEqual(
      PROVIDER_KINDS.map((k) => [k.name, k.words]),
    );
    // Anthropic's API: no address, a key it needs.
    expect(within(card).queryByTestId("provider-base-url")).toBeNull();
    expect(within(card).queryByTestId("provider-advanced")).toBeNull();
    expect(within(card).getByTestId("key-source")).toHaveTextContent("(none stored — Anthropic needs one)");
    await user.selectOptions(select, "openai");
    // OpenAI or compatible: an address, empty for OpenAI's own, which the field shows.
    const address = within(card).getByTestId("provider-base-url");
    expect(address).toHaveAttribute("placeholder", "https://api.openai.com/v1");
    expect(card).toHaveTextContent("(empty for OpenAI itself)");
    expect(within(card).getByTestId("provider-advanced")).toBeInTheDocument();
    expect(within(card).getByTestId("key-source")).toHaveTextContent("(none stored — OpenAI needs one)");
    await user.type(address, DEFAULT_LOCAL_URL);
    expect(within(card).getByTestId("key-source")).toHaveTextContent("(none stored — most servers on this computer need none)");
    await user.selectOptions(select, "builtin");
    // The model built in: neither address nor key.
    expect(within(card).queryByTestId("provider-base-url")).toBeNull();
    expect(within(card).queryByTestId("provider-key")).toBeNull();
    expect(card).toHaveTextContent("Runs inside Tandem: no key, no address");
    // What can be added: a server on this computer, then each hosted API in its own words.
    expect(Array.from(view.querySelectorAll(".add-provider button")).map((b) => [b.getAttribute("data-testid"), b.textContent])).toEqual([
      ["add-local", "+ A server on this computer (Ollama, llama.cpp, LM Studio…)"],
      ["add-anthropic", "+ Anthropic"],
      ["add-openai", "+ OpenAI"],
    ]);
  });

  it("words the key field by kind and the key storage by what the user chose", async () => {
    const { user, view } = await openSettings({
      settings: settingsView({
        providers: [{ name: "anthropic", kind: "anthropic", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null }],
        keychain: { available: false, message: "No keychain service is running on this computer.", file_fallback: false },
      }),
    });
    const key = within(view).getByTestId("key-source");
    expect(key).toHaveTextContent("Anthropic needs one");
    expect(key).not.toHaveTextContent("local servers");
    const intro = within(view).getByTestId("settings-intro");
    expect(intro).not.toHaveTextContent("kept in your system's keychain");
    await user.click(within(view).getByTestId("allow-file"));
    expect(intro).toHaveTextContent("API keys are kept in a file only you can read");
    expect(intro).not.toHaveTextContent("keychain and never shown");
  });
});

describe("the model picker in the project window", () => {
  it("shows the model in use and switches it", async () => {
    const calls = installFakeBackend(project, {
      settings: settingsView({
        providers: [
          { name: "anthropic", kind: "anthropic", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: "keychain" },
          { name: "local", kind: "openai", base_url: DEFAULT_LOCAL_URL, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null },
        ],
      }),
      providerModels: [
        { provider: "anthropic", models: ["claude-haiku-4-5", "claude-sonnet-4-5"], error: null },
        {
          provider: "local",
          models: [],
          error: engineError("unreachable", `Nothing answered at ${DEFAULT_LOCAL_URL}: …`),
        },
      ],
    });
    const user = userEvent.setup();
    render(<App />);
    const picker = await screen.findByTestId("model-picker");
    expect(picker).toHaveAttribute("data-model", "claude-sonnet-4-5");
    await waitFor(() => expect(within(picker).getByRole("option", { name: "claude-haiku-4-5" })).toBeInTheDocument());
    expect(picker.querySelector('optgroup[label="local — not reachable"]')).not.toBeNull();
    await user.selectOptions(picker, within(picker).getByRole("option", { name: "claude-haiku-4-5" }));
    await waitFor(() => expect(args(calls, "use_model")).toEqual({ provider: "anthropic", model: "claude-haiku-4-5" }));
    await waitFor(() => expect(screen.getByTestId("model-picker")).toHaveAttribute("data-model", "claude-haiku-4-5"));
    // Setting up more is one step away.
    await user.selectOptions(screen.getByTestId("model-picker"), "Set up models in Settings…");
    expect(await screen.findByTestId("settings-view")).toBeInTheDocument();
  });

  it("names the built-in model for what it is", async () => {
    installFakeBackend(project, {
      settings: settingsView({
        providers: [
          { name: "anthropic", kind: "anthropic", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: "keychain" },
          { name: "builtin", kind: "builtin", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null },
        ],
        roles: [{ role: "default", provider: "builtin", model: "builtin" }],
        in_use: { provider: "builtin", model: "builtin", preset: false },
      }),
      providerModels: [
        { provider: "anthropic", models: ["claude-sonnet-4-5"], error: null },
        { provider: "builtin", models: ["builtin"], error: null },
      ],
    });
    render(<App />);
    const picker = await screen.findByTestId("model-picker");
    await waitFor(() => expect(picker.querySelector('optgroup[label="On this computer"]')).not.toBeNull());
    expect(within(picker).getByRole("option", { name: "Built-in model" })).toBeInTheDocument();
    expect(picker).toHaveAttribute("data-model", "builtin");
  });

  it("says when no model is chosen yet", async () => {
    installFakeBackend(project, { settings: settingsView({ roles: [], in_use: null, configured: false }) });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByTestId("first-run-skip"));
    const picker = await screen.findByTestId("model-picker");
    expect(picker).toHaveValue("");
    expect(within(picker).getByRole("option", { name: "Choose a model…" })).toBeInTheDocument();
  });
});

describe("first run", () => {
  it("offers a detected local server and saves it as the default", async () => {
    const calls = installFakeBackend(project, {
      settings: unconfigured,
      localServers: [{ name: "Ollama", base_url: DEFAULT_LOCAL_URL, models: ["llama3.2:3b", "qwen2.5-coder:7b", "phi4"] }],
    });
    const user = userEvent.setup();
    render(<App />);
    const server = await screen.findByTestId("local-server");
    expect(server).toHaveTextContent(`Ollama is running at ${DEFAULT_LOCAL_URL} with 3 models`);
    await user.selectOptions(within(server).getByTestId("local-model"), "qwen2.5-coder:7b");
    await user.click(within(server).getByTestId("use-local"));
    await screen.findByTestId("project-view");
    expect(args(calls, "save_settings")).toEqual({
      providers: [{ name: "ollama", kind: "openai", base_url: DEFAULT_LOCAL_URL, num_ctx: null, lenient_tool_calls: null, small_model: null }],
      roles: [{ role: "default", provider: "ollama", model: "qwen2.5-coder:7b" }],
    });
    expect(calls.some((c) => c.cmd === "set_api_key")).toBe(false);
  });

  it("connects to another address (the shared default) and no longer says no server answered", async () => {
    const calls = installFakeBackend(project, { settings: unconfigured, models: ["mock-model"] });
    const user = userEvent.setup();
    render(<App />);
    expect(await screen.findByTestId("no-local")).toHaveTextContent("No local server answered");
    expect(screen.getByTestId("manual-url")).toHaveValue(DEFAULT_LOCAL_URL);
    await user.click(screen.getByTestId("manual-connect"));
    expect(await screen.findByRole("option", { name: "mock-model" })).toBeInTheDocument();
    expect(screen.queryByTestId("no-local")).toBeNull();
    await user.click(screen.getByTestId("manual-use"));
    await screen.findByTestId("project-view");
    expect(args<{ roles: unknown }>(calls, "save_settings").roles).toEqual([{ role: "default", provider: "local", model: "mock-model" }]);
  });

  it("shows why a connection failed in words", async () => {
    installFakeBackend(project, {
      settings: unconfigured,
      models: {
        ...engineError("bad_address", ""),
        message: "The address “127.0.0.1:8080/v1” is missing http:// at the start. Change it in Settings to http://127.0.0.1:8080/v1.",
      },
    });
    const user = userEvent.setup();
    render(<App />);
    const url = await screen.findByTestId("manual-url");
    await user.clear(url);
    await user.type(url, "127.0.0.1:8080/v1");
    await user.click(screen.getByTestId("manual-connect"));
    const error = await screen.findByTestId("manual-error");
    expect(error).toHaveTextContent("is missing http:// at the start");
    expect(error).not.toHaveTextContent("builder error");
  });

  it("saves an Anthropic key, and says where keys go once the file is chosen", async () => {
    const calls = installFakeBackend(project, {
      settings: settingsView({ ...unconfigured, keychain: { available: false, message: "No keychain here.", file_fallback: false } }),
    });
    const user = userEvent.setup();
    render(<App />);
    const intro = await screen.findByTestId("first-run-intro");
    expect(intro).not.toHaveTextContent("kept in your system's keychain");
    await user.click(screen.getByRole("checkbox", { name: "Keep keys in a file only I can read" }));
    expect(intro).toHaveTextContent("API keys are kept in a file only you can read");
    const card = screen.getByTestId("first-run-anthropic");
    await user.type(within(card).getByTestId("first-run-key"), "sk-ant-123");
    await user.click(within(card).getByTestId("first-run-use"));
    await screen.findByTestId("project-view");
    expect(args(calls, "set_api_key")).toEqual({ provider: "anthropic", key: "sk-ant-123", allow_file: true });
  });

  it("a key that cannot be stored saves nothing and says so", async () => {
    const calls = installFakeBackend(project, { settings: unconfigured, keyError: "The keychain refused." });
    const user = userEvent.setup();
    render(<App />);
    const card = await screen.findByTestId("first-run-anthropic");
    await user.type(within(card).getByTestId("first-run-key"), "sk-ant-123");
    await user.click(within(card).getByTestId("first-run-use"));
    expect(await screen.findByTestId("first-run-error")).toHaveTextContent(
      "The API key was not saved, so nothing was: The keychain refused.",
    );
    expect(calls.some((c) => c.cmd === "save_settings")).toBe(false);
  });

  it("can be skipped", async () => {
    installFakeBackend(project, { settings: unconfigured });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByTestId("first-run-skip"));
    expect(await screen.findByTestId("project-view")).toBeInTheDocument();
  });
});

describe("errors in words", () => {
  async function failTurn(error: EngineError) {
    let turn: FakeTurn | null = null;
    installFakeBackend(project, { onTurn: (t) => (turn = t) });
    const user = userEvent.setup();
    render(<App />);
    await user.type(await screen.findByTestId("composer-input"), "Fix the bug{Enter}");
    await waitFor(() => expect(turn).not.toBeNull());
    const t = turn as unknown as FakeTurn;
    act(() => {
      t.push([{ type: "user_message", text: "Fix the bug" }, { type: "error", error }]);
      t.end({ kind: "failed", error });
    });
    return screen.findByTestId("transcript-error");
  }

  it("a wrong address offers Settings, not Retry, and folds the cause", async () => {
    const shown = await failTurn({
      ...engineError("not_a_model_server", ""),
      message: "The address http://127.0.0.1:8080 answered with a web page (HTTP 404), not as a model server, so it is probably wrong. Check it in Settings.",
      detail: "HTTP 404",
    });
    expect(shown).toHaveTextContent("answered with a web page");
    expect(within(shown).getByTestId("open-settings-button")).toBeInTheDocument();
    expect(within(shown).queryByTestId("retry-button")).toBeNull();
    expect(within(shown).getByTestId("error-detail").tagName).toBe("DETAILS");
  });

  it("a stopped server offers Retry and Settings", async () => {
    const shown = await failTurn({
      ...engineError("unreachable", ""),
      message: "Nothing answered at http://127.0.0.1:8080/v1: the model server is not running there, or the address is wrong.",
      detail: "error sending request for url (http://127.0.0.1:8080/v1/chat/completions): Connection refused",
    });
    expect(within(shown).getByTestId("retry-button")).toBeInTheDocument();
    expect(within(shown).getByTestId("open-settings-button")).toBeInTheDocument();
    expect(shown.querySelector(".error-words")).toHaveTextContent(/^Nothing answered at/);
  });
});

describe("rules in words", () => {
  const rules: RulesView = rulesView({
    yours: [
      {
        words: "Run “cargo run” without asking",
        rule: 'projects."/work/demo".commands.allow "cargo run"',
        key: { file: "user", project: "/work/demo", list: "commands_allow", value: "cargo run" },
      },
      {
        words: "Never fetch from example.com",
        rule: 'network.denied_domains "example.com"',
        key: { file: "user", project: null, list: "network_denied_domains", value: "example.com" },
      },
    ],
  });

  it("lists the user's rules first with where they apply, removes one, then the groups in words", async () => {
    const { calls, user, view } = await openSettings({ rules });
    await user.click(within(view).getByTestId("settings-tab-rules"));
    const own = await within(view).findAllByTestId("own-rule");
    expect(own.map((r) => r.textContent)).toEqual([
      "Run “cargo run” without askingThis projectChangeRemove",
      "Never fetch from example.comAll projectsChangeRemove",
    ]);
    expect(own[0]).toHaveAttribute("title", 'projects."/work/demo".commands.allow "cargo run"');
    const groups = within(view).getAllByTestId("rule-group");
    expect(groups[0]).toHaveTextContent("Files Tandem never reads or changes.env files, SSH keys");
    expect(view).not.toHaveTextContent("paths.protected");
    await user.click(within(own[0]!).getByTestId("rule-remove"));
    await waitFor(() => expect(within(view).getAllByTestId("own-rule")).toHaveLength(1));
    expect(args(calls, "remove_rule")).toEqual({ root: "/work/demo", rule: rules.yours[0]!.key });
  });
});

// Issue 46, item 8: the default mode and the diff limits were settable only in TOML.
describe("settings: rule defaults", () => {
  it("sets the mode new sessions start in and the diff limits, refusing limits that cannot work", async () => {
    const { calls, user, view } = await openSettings({ rules: rulesView() });
    await user.click(within(view).getByTestId("settings-tab-rules"));
    const defaults = await within(view).findByTestId("rule-defaults");
    const mode = within(defaults).getByTestId("default-mode");
    expect(mode).toHaveValue("ask");
    const askAbove = within(defaults).getByTestId("ask-above-lines");
    const maxLines = within(defaults).getByTestId("max-diff-lines");
    expect(askAbove).toHaveValue("200");
    expect(maxLines).toHaveValue("2000");
    expect(within(defaults).getByTestId("save-defaults")).toBeDisabled();
    await user.clear(askAbove);
    await user.type(askAbove, "3000");
    expect(within(defaults).getByTestId("defaults-problem")).toHaveTextContent("Asking must start before changes are refused");
    expect(within(defaults).getByTestId("save-defaults")).toBeDisabled();
    await user.clear(askAbove);
    await user.type(askAbove, "x");
    expect(within(defaults).getByTestId("defaults-problem")).toHaveTextContent("type a whole number of lines above 0");
    await user.clear(askAbove);
    await user.type(askAbove, "150");
    await user.selectOptions(mode, "auto_edit");
    await user.click(within(defaults).getByTestId("save-defaults"));
    await within(defaults).findByTestId("defaults-note");
    expect(calls.filter((c) => c.cmd === "set_policy_default").map((c) => (c.payload as { args: unknown }).args)).toEqual([
      { root: "/work/demo", setting: { kind: "mode", value: "auto_edit" } },
      { root: "/work/demo", setting: { kind: "require_approval_above", value: 150 } },
    ]);
    expect(within(defaults).getByTestId("defaults-note")).toHaveTextContent("Saved. New sessions use these");
    expect(mode).toHaveValue("auto_edit");
    expect(within(defaults).getByTestId("save-defaults")).toBeDisabled();
  });
});

describe("settings: the default mode", () => {
  it("is the mode the window starts in for the project", async () => {
    installFakeBackend(project, { rules: rulesView({ defaults: { mode: "auto_edit", max_diff_lines: 2000, require_approval_above: 200 } }) });
    render(<App />);
    const select = await screen.findByTestId("mode-select");
    await waitFor(() => expect(select).toHaveValue("auto_edit"));
  });

  it("never replaces a mode the person picked before the default arrived", async () => {
    const calls = installFakeBackend(project, {
      rules: rulesView({ defaults: { mode: "auto_edit", max_diff_lines: 2000, require_approval_above: 200 } }),
    });
    render(<App />);
    const select = await screen.findByTestId("mode-select");
    await waitFor(() => expect(select).toHaveValue("auto_edit"));
    const asked = calls.filter((c) => c.cmd === "policy_rules").length;
    // Another project opens and the person picks a mode before its rules are read.
    act(() => {
      void useSession.getState().setProject("/work/other");
      useSession.getState().setMode("read_only");
    });
    await waitFor(() => expect(calls.filter((c) => c.cmd === "policy_rules").length).toBeGreaterThan(asked));
    await act(() => new Promise<void>((resolve) => setTimeout(resolve, 50)));
    expect(select).toHaveValue("read_only");
  });
});

describe("rules added, changed and the project trusted", () => {
  const rules: RulesView = rulesView({
    yours: [
      {
        words: "Run “cargo run” without asking",
        rule: 'projects."/work/demo".commands.allow "cargo run"',
        key: { file: "user", project: "/work/demo", list: "commands_allow", value: "cargo run" },
      },
    ],
  });

  it("adds a rule for this project or every project, turns a tool off, changes one in one write", async () => {
    const { calls, user, view } = await openSettings({ rules });
    await user.click(within(view).getByTestId("settings-tab-rules"));
    await within(view).findAllByTestId("own-rule");

    await user.click(within(view).getByTestId("rule-add"));
    const form = within(view).getByTestId("rule-form");
    await user.selectOptions(within(form).getByTestId("rule-kind"), "commands_deny");
    await user.type(within(form).getByTestId("rule-value"), "make deploy");
    await user.selectOptions(within(form).getByTestId("rule-where"), "everywhere");
    await user.click(within(form).getByTestId("rule-save"));
    await waitFor(() => expect(within(view).getAllByTestId("own-rule")).toHaveLength(2));
    expect(args(calls, "add_rule")).toEqual({
      root: "/work/demo",
      rule: { file: "user", project: null, list: "commands_deny", value: "make deploy" },
    });

    await user.click(within(view).getByTestId("rule-add"));
    const tools = within(view).getByTestId("rule-form");
    await user.selectOptions(within(tools).getByTestId("rule-kind"), "tools_off");
    await user.selectOptions(within(tools).getByTestId("rule-tool"), "web_search");
    await user.click(within(tools).getByTestId("rule-save"));
    await waitFor(() => expect(within(view).getAllByTestId("own-rule")).toHaveLength(3));
    expect(args(calls, "add_rule", 1)).toEqual({
      root: "/work/demo",
      rule: { file: "user", project: "/work/demo", list: "tools_off", value: "web_search" },
    });

    // Changing a rule sends the old one with the new: Rust swaps them in one write.
    await user.click(within(within(view).getAllByTestId("own-rule")[0]!).getByTestId("rule-edit"));
    const edit = within(view).getByTestId("rule-form");
    expect(within(edit).getByTestId("rule-value")).toHaveValue("cargo run");
    await user.clear(within(edit).getByTestId("rule-value"));
    await user.type(within(edit).getByTestId("rule-value"), "cargo test");
    await user.click(within(edit).getByTestId("rule-save"));
    await waitFor(() => expect(within(view).queryByTestId("rule-form")).toBeNull());
    expect(args(calls, "add_rule", 2)).toEqual({
      root: "/work/demo",
      rule: { file: "user", project: "/work/demo", list: "commands_allow", value: "cargo test" },
      replacing: rules.yours[0]!.key,
    });
  });

  it("trusts the project's own rules file and stops trusting it", async () => {
    const { calls, user, view } = await openSettings({ rules });
    await user.click(within(view).getByTestId("settings-tab-rules"));
    const box = await within(view).findByTestId("trust-project");
    expect(box).not.toBeChecked();
    await user.click(box);
    await waitFor(() => expect(within(view).getByTestId("trust-project")).toBeChecked());
    expect(args(calls, "trust_project")).toEqual({ root: "/work/demo", trusted: true });
    await user.click(within(view).getByTestId("trust-project"));
    await waitFor(() => expect(within(view).getByTestId("trust-project")).not.toBeChecked());
    expect(args(calls, "trust_project", 1)).toEqual({ root: "/work/demo", trusted: false });
  });
});

describe("the mode switch", () => {
  it("asks before Full auto, saying what it still never does", async () => {
    const calls = installFakeBackend(project);
    const user = userEvent.setup();
    render(<App />);
    const select = await screen.findByTestId("mode-select");
    await user.selectOptions(select, "full_auto");
    const confirm = await screen.findByTestId("full-auto-confirm");
    expect(await within(confirm).findByTestId("full-auto-limits")).toHaveTextContent(
      "It never runs commands as the administrator (sudo, su, doas).",
    );
    expect(select).toHaveValue("ask");
    await user.click(within(confirm).getByTestId("full-auto-no"));
    expect(screen.queryByTestId("full-auto-confirm")).toBeNull();
    expect(select).toHaveValue("ask");
    await user.selectOptions(select, "full_auto");
    await user.click(await screen.findByTestId("full-auto-yes"));
    expect(select).toHaveValue("full_auto");
    expect(calls.filter((c) => c.cmd === "policy_rules").length).toBeGreaterThanOrEqual(1);
    // Other modes need no question.
    await user.selectOptions(select, "auto_edit");
    expect(select).toHaveValue("auto_edit");
    expect(screen.queryByTestId("full-auto-confirm")).toBeNull();
  });
});

describe("web search", () => {
  it("is set up in Settings: a service, its key and a test search, saved together", async () => {
    const { user, calls } = await openSettings();
    await user.click(screen.getByTestId("settings-tab-web"));
    const provider = await screen.findByTestId("web-search-provider");
    expect(provider).toHaveValue("off");
    await user.selectOptions(provider, "brave");
    await user.type(screen.getByTestId("web-search-key"), "brave-key");
    await user.click(screen.getByTestId("web-search-test"));
    const result = await screen.findByTestId("web-search-result");
    expect(result).toHaveAttribute("data-ok", "true");
    expect(result).toHaveTextContent("Tandem, the agent");
    expect(args<{ provider: string; api_key: string }>(calls, "test_web_search")).toMatchObject({
      provider: "brave",
      api_key: "brave-key",
    });
    await user.click(screen.getByTestId("web-search-save"));
    await screen.findByTestId("web-search-saved");
    // The key is stored first, under its own name, then the service.
    const order = calls.map((c) => c.cmd).filter((c) => c === "set_api_key" || c === "save_web_search");
    expect(order).toEqual(["set_api_key", "save_web_search"]);
    expect(args<{ provider: string; key: string }>(calls, "set_api_key")).toMatchObject({
      provider: "web_search",
      key: "brave-key",
    });
    expect(useApp.getState().settings?.web_search).toMatchObject({ provider: "brave", key_source: "keychain" });
  });

  it("asks SearXNG's address and never a key", async () => {
    const { user } = await openSettings();
    await user.click(screen.getByTestId("settings-tab-web"));
    await user.selectOptions(await screen.findByTestId("web-search-provider"), "searxng");
    expect(screen.queryByTestId("web-search-key")).toBeNull();
    await user.click(screen.getByTestId("web-search-test"));
    expect(await screen.findByTestId("web-search-result")).toHaveAttribute("data-ok", "false");
    await user.type(screen.getByTestId("web-search-url"), "http://127.0.0.1:8888");
    await user.click(screen.getByTestId("web-search-save"));
    await screen.findByTestId("web-search-saved");
    expect(useApp.getState().settings?.web_search).toMatchObject({ provider: "searxng", base_url: "http://127.0.0.1:8888" });
  });
});

describe("first run: the model built in", () => {
  it("says what it is good for and its size, downloads with progress and cancel, and resumes", async () => {
    const calls = installFakeBackend(project, { settings: unconfigured });
    const user = userEvent.setup();
    render(<App />);
    const card = await screen.findByTestId("builtin-card");
    expect(card).toHaveTextContent("On this computer, built in");
    expect(card).toHaveTextContent("explicit, step-by-step tasks");
    expect(card).toHaveTextContent("not good at open-ended work");
    await user.click(await within(card).findByTestId("builtin-download"));
    const progress = await within(card).findByTestId("builtin-progress");
    expect(progress).toHaveTextContent("300 MB of 1.1 GB (26%)");
    await user.click(within(card).getByTestId("builtin-cancel"));
    expect(await within(card).findByTestId("builtin-download")).toHaveTextContent("Resume download (300 MB of 1.1 GB)");
    expect(calls.map((c) => c.cmd)).toEqual(expect.arrayContaining(["start_builtin_download", "cancel_builtin_download"]));
  });

  it("once downloaded, one click makes it the model in use and the app goes on", async () => {
    const calls = installFakeBackend(project, { settings: unconfigured, builtin: builtinStatus({ downloaded: true }) });
    const user = userEvent.setup();
    render(<App />);
    const card = await screen.findByTestId("builtin-card");
    await user.click(await within(card).findByTestId("builtin-use"));
    await waitFor(() => expect(screen.queryByTestId("first-run")).toBeNull());
    expect(args<{ model_path: string | null }>(calls, "use_builtin")).toEqual({ model_path: null });
  });

  it("says in words why a download failed, with the cause under Details, Resume, and a file of one's own", async () => {
    const message =
      "Tandem could not reach huggingface.co to download the model. Check that this computer is online, then Resume: it carries on where it stopped.";
    const calls = installFakeBackend(project, {
      settings: unconfigured,
      pickedFile: "/home/me/models/mine.gguf",
      builtin: builtinStatus({
        download: {
          running: false,
          done: 300_000_000,
          total: 1_117_320_768,
          error: {
            code: "unreachable",
            message,
            detail: "error sending request for url (https://huggingface.co/…): dns error: failed to lookup address information",
          },
        },
      }),
    });
    const user = userEvent.setup();
    render(<App />);
    const card = await screen.findByTestId("builtin-card");
    const shown = await within(card).findByTestId("builtin-error");
    expect(shown).toHaveAttribute("data-code", "unreachable");
    expect(within(shown).getByText(message)).toBeInTheDocument();
    // The raw cause is there for the curious, folded; never the words themselves.
    const detail = within(shown).getByTestId("error-detail");
    expect(detail).not.toHaveAttribute("open");
    expect(detail).toHaveTextContent("dns error");
    expect(shown.querySelector(".error-words")).not.toHaveTextContent("https://");
    expect(within(card).getByTestId("builtin-download")).toHaveTextContent("Resume download (300 MB of 1.1 GB)");
    // One way to a file of one's own, in the banner: not twice.
    expect(within(card).getAllByText("Use a model file I already have…")).toHaveLength(1);
    await user.click(within(shown).getByTestId("builtin-error-own-file"));
    await waitFor(() => expect(args<{ model_path: string | null }>(calls, "use_builtin")).toEqual({ model_path: "/home/me/models/mine.gguf" }));
  });

  // Issue 46: a download that failed before any byte came offered the same "Download" again.
  it("offers to try a download again that failed before anything came", async () => {
    installFakeBackend(project, {
      settings: unconfigured,
      builtin: builtinStatus({
        download: { running: false, done: 0, total: 1_117_320_768, error: { code: "unreachable", message: "Tandem could not reach huggingface.co." } },
      }),
    });
    render(<App />);
    const card = await screen.findByTestId("builtin-card");
    expect(await within(card).findByTestId("builtin-download")).toHaveTextContent("Try the download again (1.1 GB)");
    expect(within(card).getByTestId("builtin-not-downloaded")).toHaveTextContent("not downloaded yet");
  });

  it("on a computer that cannot run it, says why and offers no download", async () => {
    installFakeBackend(project, {
      settings: unconfigured,
      builtin: builtinStatus({ unavailable: "this computer's processor lacks AVX2, which the built-in model needs" }),
    });
    render(<App />);
    const card = await screen.findByTestId("builtin-card");
    expect(await within(card).findByTestId("builtin-unavailable")).toHaveTextContent("lacks AVX2");
    expect(within(card).queryByTestId("builtin-download")).toBeNull();
    expect(within(card).queryByTestId("builtin-own-file")).toBeNull();
  });
});

// Issue 22, item 4: the built-in model is the only way in that needs no account, yet it came last
// and in words like "Q4_K_M" and "GGUF"; in Settings its big Download sat above the provider in use.
describe("the way in for people with no account", () => {
  /** The first-run screen's cards, by test id, in order. */
  const firstRunOrder = () =>
    Array.from(screen.getByTestId("first-run").querySelector(".first-run-cards")!.children).map((c) => c.getAttribute("data-testid"));

  it("puts the built-in model first, recommended, its file's particulars folded under Details", async () => {
    installFakeBackend(project, { settings: unconfigured });
    render(<App />);
    const card = await screen.findByTestId("builtin-card");
    await within(card).findByTestId("builtin-download");
    expect(firstRunOrder()).toEqual(["builtin-card", "first-run-anthropic", "first-run-openai", "first-run-local"]);
    expect(within(card).getByTestId("builtin-recommended")).toHaveTextContent("Recommended if you have no account");
    const details = within(card).getByTestId("builtin-details");
    expect(details.tagName).toBe("DETAILS");
    expect(details).not.toHaveAttribute("open");
    expect(details.querySelector("summary")).toHaveTextContent("Details");
    expect(details).toHaveTextContent("Q4_K_M");
    expect(details).toHaveTextContent("1.1 GB");
    expect(details).toHaveTextContent("GGUF");
    // Outside the fold, plain words.
    const outside = (card.textContent ?? "").replace(details.textContent ?? "", "");
    expect(outside).not.toMatch(/Q4_K_M|GGUF|quanti/i);
    expect(outside).toContain("not downloaded yet — a 1.1 GB download, once.");
    expect(within(card).getByTestId("builtin-download")).toHaveTextContent("Download (1.1 GB)");
  });

  it("puts the providers first for someone who has a key", async () => {
    installFakeBackend(project, {
      settings: settingsView({ roles: [], in_use: null, configured: false }),
    });
    render(<App />);
    const card = await screen.findByTestId("builtin-card");
    expect(firstRunOrder()).toEqual(["first-run-anthropic", "first-run-openai", "first-run-local", "builtin-card"]);
    expect(within(card).queryByTestId("builtin-recommended")).toBeNull();
  });

  /** The Models tab's cards in order: provider names, and "built-in" for the built-in card. */
  const settingsOrder = (view: HTMLElement) =>
    Array.from(view.querySelectorAll("[data-testid=provider-card], [data-testid=builtin-card]")).map((c) =>
      c.getAttribute("data-testid") === "builtin-card" ? "built-in" : c.getAttribute("data-name"),
    );
  const twoProviders = [
    { name: "anthropic", kind: "anthropic" as const, base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: "keychain" },
    { name: "local", kind: "openai" as const, base_url: DEFAULT_LOCAL_URL, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null },
  ];

  it("in Settings, shows the provider in use first and the built-in model's Download after the providers", async () => {
    const { user, view } = await openSettings({
      settings: settingsView({
        providers: twoProviders,
        roles: [{ role: "default", provider: "local", model: "llama3.2:3b" }],
        in_use: { provider: "local", model: "llama3.2:3b", preset: false },
      }),
      providerModels: [
        { provider: "anthropic", models: ["claude-sonnet-4-5"], error: null },
        { provider: "local", models: ["llama3.2:3b"], error: null },
      ],
    });
    expect(settingsOrder(view)).toEqual(["local", "anthropic", "built-in"]);
    // Choosing another model moves nothing under the pointer.
    const anthropic = within(view).getAllByTestId("provider-card").find((c) => c.getAttribute("data-name") === "anthropic")!;
    await user.click(await within(anthropic).findByTestId("use-model"));
    await waitFor(() => expect(within(anthropic).getByTestId("model-in-use")).toHaveTextContent("In use"));
    expect(settingsOrder(view)).toEqual(["local", "anthropic", "built-in"]);
  });

  it("in Settings, shows the built-in card first when it is the model in use, or when nothing is", async () => {
    const { view } = await openSettings({
      settings: settingsView({
        providers: [...twoProviders, { name: "builtin", kind: "builtin", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null }],
        roles: [{ role: "default", provider: "builtin", model: "builtin" }],
        in_use: { provider: "builtin", model: "builtin", preset: false },
      }),
    });
    expect(settingsOrder(view)).toEqual(["built-in", "builtin", "anthropic", "local"]);
    cleanup();
    const none = await openSettings({ settings: unconfigured });
    expect(settingsOrder(none.view)).toEqual(["built-in"]);
  });
});

// Issue 27: spending limits are set in Settings → Limits, checked before they are kept.
describe("settings: spending limits", () => {
  it("keeps dollars and tokens, refuses what is not an amount, and clears a limit left empty", async () => {
    const { calls, user } = await openSettings({ limits: { day_usd: 20 } });
    await user.click(screen.getByTestId("settings-tab-limits"));
    const day = await screen.findByTestId("limit-day-usd");
    await waitFor(() => expect(day).toHaveValue("20"));
    const session = screen.getByTestId("limit-session-usd");
    await user.type(session, "-3");
    expect(screen.getByTestId("limits-problem")).toHaveTextContent("Each session, in dollars: type an amount above 0");
    expect(screen.getByTestId("save-limits")).toBeDisabled();
    await user.clear(session);
    await user.type(session, "$5");
    await user.type(screen.getByTestId("limit-session-tokens"), "1.5");
    expect(screen.getByTestId("limits-problem")).toHaveTextContent("tokens are whole numbers");
    await user.clear(screen.getByTestId("limit-session-tokens"));
    await user.type(screen.getByTestId("limit-session-tokens"), "200000");
    await user.clear(day);
    await user.click(screen.getByTestId("save-limits"));
    await screen.findByTestId("limits-note");
    expect(args(calls, "save_limits")).toEqual({ session_usd: 5, session_tokens: 200000 });
  });

  // Issue 46, item 8: the tab asked for "tokens" with no hint of what one is.
  it("says what a token is, beside the token limits and the money ones", async () => {
    const { user } = await openSettings({ limits: {} });
    await user.click(screen.getByTestId("settings-tab-limits"));
    const hint = await screen.findByTestId("limit-tokens-hint");
    expect(hint).toHaveTextContent("A token is a piece of a word");
    expect(screen.getByTestId("limit-session-usd")).toBeInTheDocument();
  });
});

// Issue 27: which desktop notifications are shown is chosen in Settings, saved at once.
describe("settings: notifications", () => {
  it("turns a kind off and keeps the choice", async () => {
    const { calls, user } = await openSettings();
    await user.click(screen.getByTestId("settings-tab-notifications"));
    const questions = await screen.findByTestId("notify-questions");
    expect(questions).toBeChecked();
    expect(screen.getByTestId("notify-turns")).toBeChecked();
    await user.click(screen.getByTestId("notify-turns"));
    await waitFor(() => expect(screen.getByTestId("notify-turns")).not.toBeChecked());
    expect(args(calls, "save_notifications")).toEqual({ questions: true, turns: false });
  });
});

// Issue 44: in Ask mode a command runs on a copy and what it changed is asked about; a setting
// keeps the old way (ask before every command), and says when this computer has no copies.
describe("settings: commands in Ask mode", () => {
  it("chooses to be asked before every command, saved at once", async () => {
    const { calls, user } = await openSettings();
    await user.click(screen.getByTestId("settings-tab-rules"));
    const review = await screen.findByTestId("commands-review");
    expect(review).toBeChecked();
    expect(screen.queryByTestId("commands-no-copies")).toBeNull();
    expect(screen.queryByTestId("commands-project-no-copies")).toBeNull();
    await user.click(screen.getByTestId("commands-ask-first"));
    await waitFor(() => expect(screen.getByTestId("commands-ask-first")).toBeChecked());
    expect(args(calls, "save_command_prefs")).toEqual({ ask_first: true, copies: true });
  });

  it("says so where the open project's disk cannot hold a copy (its commands change it directly)", async () => {
    const { calls, user } = await openSettings({ projectCopies: false });
    await user.click(screen.getByTestId("settings-tab-rules"));
    expect(await screen.findByTestId("commands-project-no-copies")).toHaveTextContent("This project is on a kind of disk that cannot hold a copy");
    expect(args(calls, "project_copies")).toEqual({ root: "/work/demo" });
    expect(screen.queryByTestId("commands-no-copies")).toBeNull();
    // The choice still holds for projects that do take a copy.
    expect(screen.getByTestId("commands-review")).toBeEnabled();
  });

  it("says so where this computer cannot run commands on a copy, and every command is asked first", async () => {
    const { user } = await openSettings({ commandPrefs: { ask_first: false, copies: false } });
    await user.click(screen.getByTestId("settings-tab-rules"));
    expect(await screen.findByTestId("commands-no-copies")).toHaveTextContent("cannot run commands on a copy");
    expect(screen.getByTestId("commands-ask-first")).toBeChecked();
    expect(screen.getByTestId("commands-review")).toBeDisabled();
  });
});
