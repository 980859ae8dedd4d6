import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { App } from "../App";
import { useApp } from "../store";
import { useSession } from "../session";
import { emptyTranscript } from "../transcript";
import { entry, installFakeBackend, text, type FakeProject, type FakeTurn } from "./fakeBackend";
import { insertMention, matchFiles, mentionAt } from "../mentions";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("src", "dir"), entry("README.md", "file")], src: [entry("src/lib.rs", "file")] },
  files: {
    "README.md": text("README.md", ["# Demo"]),
    "src/lib.rs": text("src/lib.rs", ["pub fn add() {}"]),
    "src/library/mod_list.rs": text("src/library/mod_list.rs", ["// list"]),
  },
};

beforeEach(() => {
  useApp.setState({ screen: { kind: "loading" }, folders: {}, expanded: {}, selected: null, openFile: null, recent: [] });
  useSession.setState({ sessions: [], current: null, transcript: emptyTranscript(), runningSession: null, error: null, loading: false, warnings: [], sandbox: null });
});
afterEach(() => {
  cleanup();
  clearMocks();
});

describe("the @ of the message box", () => {
  it("finds the @word at the caret, and only at a word's start", () => {
    expect(mentionAt("fix @src/li", 11)).toEqual({ start: 4, query: "src/li" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail me@example.com", 19)).toBeNull();
    expect(mentionAt("fix @a then b", 13)).toBeNull();
  });

  it("ranks a name that starts with the query first, then a name, then a path that contains it", () => {
    const files = ["src/library/mod_list.rs", "src/lib.rs", "docs/glib.md", "README.md"];
    expect(matchFiles(files, "lib")).toEqual(["src/lib.rs", "docs/glib.md", "src/library/mod_list.rs"]);
    expect(matchFiles(files, "")).toEqual(["README.md", "src/lib.rs", "docs/glib.md", "src/library/mod_list.rs"]);
    expect(matchFiles(files, "zzz")).toEqual([]);
  });

  it("replaces what was typed after the @ with the chosen path and a space", () => {
    const typed = "fix @li now";
    expect(insertMention(typed, 7, { start: 4, query: "li" }, "src/lib.rs")).toEqual({ text: "fix @src/lib.rs now", caret: 15 });
    expect(insertMention("fix @li", 7, { start: 4, query: "li" }, "src/lib.rs")).toEqual({ text: "fix @src/lib.rs ", caret: 16 });
  });

  it("offers the project's files as one types, and the chosen one goes with the message", async () => {
    let turn: FakeTurn | null = null;
    const calls = installFakeBackend(project, { onTurn: (t) => (turn = t) });
    const user = userEvent.setup();
    render(<App />);
    const input = await screen.findByTestId("composer-input");
    await user.type(input, "Fix @lib");
    const list = await screen.findByTestId("mention-list");
    expect(calls.some((c) => c.cmd === "project_files")).toBe(true);
    const options = within(list).getAllByTestId("mention-option");
    expect(options.map((o) => o.textContent)).toEqual(["src/lib.rs", "src/library/mod_list.rs"]);
    expect(options[0]).toHaveAttribute("aria-selected", "true");
    expect(input).toHaveAttribute("aria-activedescendant", "mention-0");
    // Arrow down picks the next; Enter attaches it instead of sending.
    await user.keyboard("{ArrowDown}{Enter}");
    expect(input).toHaveValue("Fix @src/library/mod_list.rs ");
    expect(screen.queryByTestId("mention-list")).toBeNull();
    expect(turn).toBeNull();
    await user.type(input, "and @READ");
    await user.click(within(await screen.findByTestId("mention-list")).getByText("README.md"));
    expect(input).toHaveValue("Fix @src/library/mod_list.rs and @README.md ");
    await user.keyboard("{Enter}");
    await waitFor(() => expect(turn).not.toBeNull());
    expect((turn as unknown as FakeTurn).args).toMatchObject({ text: "Fix @src/library/mod_list.rs and @README.md " });
  });

  it("says when nothing matches, and Escape closes the list without losing the text", async () => {
    installFakeBackend(project, {});
    const user = userEvent.setup();
    render(<App />);
    const input = await screen.findByTestId("composer-input");
    await user.type(input, "see @nothing");
    expect(await screen.findByTestId("mention-list")).toHaveTextContent('No file matches "nothing"');
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("mention-list")).toBeNull();
    expect(input).toHaveValue("see @nothing");
  });
});
