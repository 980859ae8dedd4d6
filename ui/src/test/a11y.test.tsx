// Issue 27: every control has an accessible name and role. axe-core checks the window's own
// DOM on the first run, in a session with an approval card (an edit's diff), and in each tab
// of Settings: no serious or critical violation. jsdom computes no colours, so contrast is
// left to the real window.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import axe from "axe-core";
import { App } from "../App";
import { entry, installFakeBackend, settingsView, text, type FakeProject, type FakeTurn } from "./fakeBackend";
import { editRequest, request } from "./fixtures";
import { resetStores } from "./resetStores";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("src", "dir"), entry("README.md", "file")], src: [entry("src/lib.rs", "file")] },
  files: { "README.md": text("README.md", ["# Demo"]) },
};

beforeEach(resetStores);
afterEach(() => {
  cleanup();
  clearMocks();
});

/** The serious and critical violations axe finds in the page, in words. */
async function violations(): Promise<string[]> {
  const result = await axe.run(document.body, {
    rules: { "color-contrast": { enabled: false } },
    resultTypes: ["violations"],
  });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.html.slice(0, 160)).join(" | ")}`);
}

describe("accessibility (axe-core)", () => {
  // The check itself works here: a button without a name is caught.
  it("finds a control without a name", async () => {
    render(
      <main>
        <button type="button" data-testid="unnamed" />
      </main>,
    );
    expect((await violations()).join("\n")).toContain("button-name (critical)");
  });

  it("the first run has no serious or critical violation", async () => {
    installFakeBackend(project, { settings: settingsView({ providers: [], roles: [], configured: false, in_use: null }) });
    render(<App />);
    await screen.findByTestId("first-run");
    expect(await violations()).toEqual([]);
  });

  it("a session with an approval card has none", async () => {
    let turn: FakeTurn | null = null;
    installFakeBackend(project, { onTurn: (t) => (turn = t) });
    const user = userEvent.setup();
    render(<App />);
    await user.type(await screen.findByTestId("composer-input"), "Fix the bug");
    await user.keyboard("{Enter}");
    await waitFor(() => expect(turn).not.toBeNull());
    const t = turn as unknown as FakeTurn;
    act(() =>
      t.push([
        { type: "user_message", text: "Fix the bug" },
        { type: "approval_needed", request: editRequest("e1") },
        { type: "approval_needed", request: request("r2", { command: "make test", input: { command: "make test" } }) },
      ]),
    );
    await screen.findByTestId("approval-card");
    await screen.findAllByTestId("hunk");
    // A live region says the question as it arrives.
    const said = screen.getByTestId("approval-announce");
    expect(said).toHaveAttribute("role", "alert");
    expect(said).toHaveTextContent("Tandem needs your approval: Edit src/lib.rs. 2 questions wait.");
    expect(await violations()).toEqual([]);
  });

  it("each tab of Settings has none", async () => {
    installFakeBackend(project);
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByTestId("settings-button"));
    await screen.findByTestId("settings-view");
    for (const tab of ["models", "rules", "web", "skills", "mcp", "limits", "notifications"]) {
      await user.click(screen.getByTestId(`settings-tab-${tab}`));
      await new Promise((r) => setTimeout(r, 50));
      expect(await violations(), `Settings → ${tab}`).toEqual([]);
    }
    // Seven axe runs: on a loaded 2-core machine they took longer than vitest's 5 s default.
  }, 30_000);
});
