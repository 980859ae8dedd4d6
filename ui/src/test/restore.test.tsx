import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { App } from "../App";
import { useApp } from "../store";
import { useSession } from "../session";
import { emptyTranscript } from "../transcript";
import type { AgentEvent, RestoreArgs, RestorePreview, RestoreRecord } from "../bindings";
import { entry, installFakeBackend, sessionInfo, text, type Call, type FakeAgent, type FakeProject, type FakeTurn } from "./fakeBackend";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("README.md", "file")] },
  files: { "README.md": text("README.md", ["# Demo"]) },
};

beforeEach(() => {
  useApp.setState({ screen: { kind: "loading" }, folders: {}, expanded: {}, selected: null, openFile: null, panel: "tasks" });
  useSession.setState({
    root: null,
    sessions: [],
    current: null,
    transcript: emptyTranscript(),
    runningSession: null,
    answered: {},
    tasks: [],
    error: null,
    loading: false,
    warnings: [],
    restoreAsk: null,
    restoring: false,
    draft: null,
  });
});
afterEach(() => {
  cleanup();
  clearMocks();
});

const record = (over: Partial<RestoreRecord> = {}): RestoreRecord => ({
  checkpoint: 1,
  turn: 2,
  turn_words: "Now break it",
  scope: "both",
  files: ["src/a.rs"],
  not_restorable: [],
  turns_removed: 1,
  undo_checkpoint: 7,
  ...over,
});

const preview = (args: RestoreArgs): RestorePreview => ({
  checkpoint: args.target.kind === "checkpoint" ? args.target.id : 0,
  turn: 1,
  scope: args.scope,
  files:
    args.scope === "conversation_only"
      ? []
      : [
          {
            path: "src/a.rs",
            action: "modify",
            current: "fn a() { broken }\n",
            restored: "fn a() {}\n",
            binary: false,
            added_lines: 1,
            removed_lines: 1,
            generated: false,
            not_by_agent: false,
            changed_after_agent: false,
          },
          {
            path: "src/new.rs",
            action: "delete",
            current: "new\n",
            restored: null,
            binary: false,
            added_lines: 0,
            removed_lines: 1,
            generated: false,
            not_by_agent: false,
            changed_after_agent: false,
          },
        ],
  not_restorable: args.scope === "conversation_only" ? [] : [{ path: "target/", reason: "git_ignored" }],
  git: true,
  turns_removed: args.scope === "files_only" ? 0 : 2,
  stops_tasks: [],
});

function restores(calls: Call[], cmd = "restore"): RestoreArgs[] {
  return calls.filter((c) => c.cmd === cmd).map((c) => (c.payload as { args: RestoreArgs }).args);
}

/** Two finished turns, each begun at a checkpoint. */
async function twoTurns(agent: FakeAgent) {
  let turn: FakeTurn | null = null;
  const calls = installFakeBackend(project, { ...agent, onTurn: (t) => (turn = t) });
  const user = userEvent.setup();
  render(<App />);
  const input = await screen.findByTestId("composer-input");
  const events = (n: number, text: string): AgentEvent[] => [
    { type: "user_message", text, checkpoint: n },
    { type: "tool_finished", id: `w${n}`, name: "write_file", output: "ok", is_error: false },
    { type: "turn_ended", outcome: { kind: "ended" } },
  ];
  for (const [n, words] of [
    [0, "Write a"],
    [1, "Now break it"],
  ] as const) {
    turn = null;
    await user.type(input, `${words}{Enter}`);
    await waitFor(() => expect(turn).not.toBeNull());
    const t = turn as unknown as FakeTurn;
    act(() => t.push(events(n, words)));
    act(() => t.end());
    await waitFor(() => expect(useSession.getState().runningSession).toBeNull());
  }
  return { calls, user };
}

describe("undo and restore", () => {
  it("has Undo on the last message only, previews what it changes back, restores on confirm, and undoes the restore", async () => {
    const after = (r: RestoreRecord, events: AgentEvent[]) => ({
      record: r,
      transcript: { info: sessionInfo("new-1"), events, warnings: [] },
    });
    const first: AgentEvent = { type: "user_message", text: "Write a", checkpoint: 0 };
    const { calls, user } = await twoTurns({
      restorePreview: preview,
      restore: (a) =>
        a.target.kind === "checkpoint" && a.target.id === 1
          ? after(record(), [first, { type: "restored", record: record() }])
          : after(record({ checkpoint: 7, turn: null }), [first, { type: "user_message", text: "Now break it", checkpoint: 1 }]),
    });
    const messages = screen.getAllByTestId("message-user");
    expect(messages).toHaveLength(2);
    expect(within(messages[0]!).queryByTestId("undo-button")).toBeNull();
    expect(within(messages[0]!).getByTestId("restore-button")).toBeEnabled();
    await user.click(within(messages[1]!).getByTestId("undo-button"));
    // Issue 46: Undo previews with the same care as Restore, even when only the agent's
    // changes go back. The files it changes back are named, each with what happens to it.
    const card = await screen.findByTestId("restore-card");
    await waitFor(() => expect(within(card).getByTestId("restore-preview")).toHaveAttribute("data-ready", "true"));
    expect(within(card).getByTestId("restore-title")).toHaveTextContent(/^Undo “Now break it”$/);
    // The preview Undo read to find the person's own files is the one shown: one read, not two.
    expect(restores(calls, "restore_preview")).toEqual([{ session: "new-1", target: { kind: "checkpoint", id: 1 }, scope: "both", paths: null }]);
    const files = within(card).getAllByTestId("restore-file");
    expect(files.map((f) => f.getAttribute("data-action"))).toEqual(["modify", "delete"]);
    expect(files[0]).toHaveTextContent("src/a.rs");
    expect(files[1]).toHaveTextContent("src/new.rs");
    expect(files[1]).toHaveTextContent("removed");
    expect(within(card).queryByTestId("restore-keeps")).toBeNull();
    // Nothing is restored until the person confirms.
    expect(restores(calls)).toHaveLength(0);
    expect(within(card).queryByTestId("restore-confirm")).toBeNull();
    expect(within(card).getByTestId("undo-confirm")).toHaveTextContent("Undo these changes");
    await user.click(within(card).getByTestId("undo-confirm"));
    await waitFor(() => expect(restores(calls)).toHaveLength(1));
    expect(restores(calls)[0]).toEqual({ session: "new-1", target: { kind: "checkpoint", id: 1 }, scope: "both", paths: null });
    await waitFor(() => expect(screen.queryByTestId("restore-card")).toBeNull());
    const note = await screen.findByTestId("restored");
    // Issue 46, item 8: "to when turn 2 began", where no turn is numbered on screen. The turn
    // is named by the words that began it.
    expect(note).toHaveTextContent("Restored the files and the conversation to before “Now break it”: 1 file changed back, 1 turn left the conversation.");
    // The note names the files.
    expect(within(note).getByTestId("restored-files")).toHaveTextContent("Changed back: src/a.rs.");
    expect(screen.getAllByTestId("message-user")).toHaveLength(1);
    // The undone message is back in the composer, to send again or change.
    expect(screen.getByTestId("composer-input")).toHaveValue("Now break it");
    await user.click(within(note).getByTestId("undo-restore"));
    await waitFor(() => expect(restores(calls)).toHaveLength(2));
    expect(restores(calls)[1]).toEqual({ session: "new-1", target: { kind: "checkpoint", id: 7 }, scope: "both", paths: null });
    await waitFor(() => expect(screen.getAllByTestId("message-user")).toHaveLength(2));
    // The message is in the conversation again: the composer lets go of it.
    expect(screen.getByTestId("composer-input")).toHaveValue("");
  });

  // Issue 46: one click on Undo silently threw away the person's own later edit.
  const withMine = () => {
    const mine = {
      path: "notes.md",
      action: "modify" as const,
      current: "my line\n",
      restored: "",
      binary: false,
      added_lines: 0,
      removed_lines: 1,
      generated: false,
      not_by_agent: true,
      changed_after_agent: false,
    };
    return twoTurns({
      restorePreview: (a) => {
        const base = preview(a);
        return { ...base, files: a.paths === null ? [...base.files, mine] : base.files.filter((f) => a.paths!.includes(f.path)) };
      },
      restore: () => ({ record: record(), transcript: { info: sessionInfo("new-1"), events: [], warnings: [] } }),
    });
  };

  it("on Undo, previews when the person's own changes would go, names them and keeps them", async () => {
    const { calls, user } = await withMine();
    await user.click(within(screen.getAllByTestId("message-user")[1]!).getByTestId("undo-button"));
    const card = await screen.findByTestId("restore-card");
    // Nothing happened yet; the person's file is named, and left out.
    expect(restores(calls)).toHaveLength(0);
    expect(within(card).getByTestId("restore-keeps")).toHaveTextContent(
      "Your own change stays as it is: notes.md. Going back would take it away too.",
    );
    await waitFor(() => expect(within(card).getByTestId("restore-preview")).toHaveAttribute("data-ready", "true"));
    expect(within(card).getAllByTestId("restore-file").map((f) => f.textContent)).not.toContainEqual(expect.stringContaining("notes.md"));
    await user.click(within(card).getByTestId("undo-confirm"));
    await waitFor(() => expect(restores(calls)).toHaveLength(1));
    expect(restores(calls)[0]!.paths).toEqual(["src/a.rs", "src/new.rs"]);
  });

  it("on Undo, counts a line the person added on top of the agent's edit as theirs", async () => {
    const { calls, user } = await twoTurns({
      restorePreview: (a) => {
        const base = preview(a);
        const files = base.files.map((f) => (f.path === "src/a.rs" ? { ...f, changed_after_agent: true } : f));
        return { ...base, files: a.paths === null ? files : files.filter((f) => a.paths!.includes(f.path)) };
      },
      restore: () => ({ record: record(), transcript: { info: sessionInfo("new-1"), events: [], warnings: [] } }),
    });
    await user.click(within(screen.getAllByTestId("message-user")[1]!).getByTestId("undo-button"));
    const card = await screen.findByTestId("restore-card");
    // Kept whole: the agent's edit in it stays with the person's, and the card says so.
    expect(within(card).getByTestId("restore-keeps")).toHaveTextContent(
      "src/a.rs changed again after the agent's edit, so it stays whole as it is now, the agent's change included.",
    );
    expect(within(card).getByTestId("restore-keeps")).not.toHaveTextContent("Your own change stays as it is");
    await waitFor(() => expect(within(card).getByTestId("restore-preview")).toHaveAttribute("data-ready", "true"));
    expect(within(card).getAllByTestId("restore-file").map((f) => f.textContent)).toEqual([expect.stringContaining("src/new.rs")]);
    expect(restores(calls)).toHaveLength(0);
  });

  it("on Undo, names the person's own files and those changed after the agent apart", async () => {
    const { user } = await twoTurns({
      restorePreview: (a) => {
        const base = preview(a);
        const files = base.files.map((f) =>
          f.path === "src/a.rs" ? { ...f, changed_after_agent: true } : { ...f, not_by_agent: true },
        );
        return { ...base, files: a.paths === null ? files : files.filter((f) => a.paths!.includes(f.path)) };
      },
      restore: () => ({ record: record(), transcript: { info: sessionInfo("new-1"), events: [], warnings: [] } }),
    });
    await user.click(within(screen.getAllByTestId("message-user")[1]!).getByTestId("undo-button"));
    const keeps = within(await screen.findByTestId("restore-card")).getByTestId("restore-keeps");
    expect(keeps).toHaveTextContent("Your own change stays as it is: src/new.rs. Going back would take it away too.");
    expect(keeps).toHaveTextContent(
      "src/a.rs changed again after the agent's edit, so it stays whole as it is now, the agent's change included. Going back would take the later change away with the agent's.",
    );
    expect(within(keeps).getByTestId("restore-keeps-undo-too")).toHaveTextContent("Undo them too");
  });

  it("on Undo, Cancel leaves everything as it is", async () => {
    const { calls, user } = await twoTurns({
      restorePreview: preview,
      restore: () => ({ record: record(), transcript: { info: sessionInfo("new-1"), events: [], warnings: [] } }),
    });
    await user.click(within(screen.getAllByTestId("message-user")[1]!).getByTestId("undo-button"));
    const card = await screen.findByTestId("restore-card");
    await waitFor(() => expect(within(card).getByTestId("restore-preview")).toHaveAttribute("data-ready", "true"));
    await user.click(within(card).getByTestId("undo-cancel"));
    expect(screen.queryByTestId("restore-card")).toBeNull();
    expect(restores(calls)).toHaveLength(0);
    expect(screen.getAllByTestId("message-user")).toHaveLength(2);
  });

  it("on Undo, takes back the person's own change too when they choose so", async () => {
    const { calls, user } = await withMine();
    await user.click(within(screen.getAllByTestId("message-user")[1]!).getByTestId("undo-button"));
    const card = await screen.findByTestId("restore-card");
    await user.click(within(card).getByTestId("restore-keeps-undo-too"));
    await waitFor(() => expect(within(screen.getByTestId("restore-card")).queryByTestId("restore-keeps")).toBeNull());
    const now = screen.getByTestId("restore-card");
    await waitFor(() => expect(within(now).getByTestId("restore-preview")).toHaveAttribute("data-ready", "true"));
    expect(within(now).getByTestId("restore-not-by-agent-note")).toHaveTextContent("1 of these changes was not made by the agent");
    await user.click(within(now).getByTestId("undo-confirm"));
    await waitFor(() => expect(restores(calls)).toHaveLength(1));
    expect(restores(calls)[0]!.paths).toBeNull();
  });

  it("previews a restore to any message with the three choices, the files in a diff and what stays, then restores", async () => {
    const { calls, user } = await twoTurns({
      restorePreview: preview,
      restore: () => ({ record: record({ scope: "files_only" }), transcript: { info: sessionInfo("new-1"), events: [], warnings: [] } }),
    });
    await user.click(within(screen.getAllByTestId("message-user")[0]!).getByTestId("restore-button"));
    const card = await screen.findByTestId("restore-card");
    await waitFor(() => expect(within(card).getByTestId("restore-preview")).toHaveAttribute("data-ready", "true"));
    expect(restores(calls, "restore_preview")[0]).toEqual({ session: "new-1", target: { kind: "checkpoint", id: 0 }, scope: "both", paths: null });
    expect(within(card).getAllByTestId("restore-file").map((f) => f.getAttribute("data-action"))).toEqual(["modify", "delete"]);
    await waitFor(() => expect(within(card).getByTestId("restore-diff").querySelector(".cm-editor")).toHaveTextContent("fn a() {}"));
    expect(within(card).getByTestId("restore-not-restorable")).toHaveTextContent("target/ — git ignores it");
    expect(within(card).getByTestId("restore-turns")).toHaveTextContent("2 turns leave it");
    expect(restores(calls)).toHaveLength(0);

    await user.click(within(card).getByTestId("restore-scope-conversation_only"));
    await waitFor(() => expect(within(card).queryAllByTestId("restore-file")).toHaveLength(0));
    await user.click(within(card).getByTestId("restore-scope-files_only"));
    await waitFor(() => expect(within(card).getAllByTestId("restore-file")).toHaveLength(2));
    expect(within(card).queryByTestId("restore-turns")).toBeNull();
    await user.click(within(card).getByTestId("restore-confirm"));
    await waitFor(() => expect(restores(calls)).toHaveLength(1));
    expect(restores(calls)[0]?.scope).toBe("files_only");
    await waitFor(() => expect(screen.queryByTestId("restore-card")).toBeNull());
  });

  it("lists the person's own files first and folds the generated ones a program made", async () => {
    const pyc = {
      path: "__pycache__/calc.cpython-312.pyc",
      action: "delete" as const,
      current: null,
      restored: null,
      binary: true,
      added_lines: 0,
      removed_lines: 0,
      generated: true,
      not_by_agent: false,
      changed_after_agent: false,
    };
    const calc = {
      path: "calc.py",
      action: "modify" as const,
      current: "x = 2\n",
      restored: "x = 1\n",
      binary: false,
      added_lines: 1,
      removed_lines: 1,
      generated: false,
      not_by_agent: false,
      changed_after_agent: false,
    };
    // In the order a name sort gives: the cache first.
    const { user } = await twoTurns({ restorePreview: (a) => ({ ...preview(a), files: [pyc, calc] }) });
    await user.click(within(screen.getAllByTestId("message-user")[0]!).getByTestId("restore-button"));
    const card = await screen.findByTestId("restore-card");
    await waitFor(() => expect(within(card).getByTestId("restore-preview")).toHaveAttribute("data-ready", "true"));
    const listed = within(card).getAllByTestId("restore-file");
    expect(listed.map((f) => f.textContent)).toEqual([expect.stringContaining("calc.py"), expect.stringContaining("calc.cpython-312.pyc")]);
    // The person's file is the one shown; the cache is folded away, named as generated.
    expect(listed[0]).toHaveClass("active");
    await waitFor(() => expect(within(card).getByTestId("restore-diff").querySelector(".cm-editor")).toHaveTextContent("x = 1"));
    const folded = within(card).getByTestId("restore-generated");
    expect(folded).not.toHaveAttribute("open");
    expect(folded.querySelector("summary")).toHaveTextContent("1 generated file also goes back");
    expect(within(folded).getByTestId("restore-file")).toHaveAttribute("data-generated", "true");
  });

  // Issue 47: the preview did not say which changes were the person's own.
  it("marks the changes the agent did not make, and says restoring takes them away too", async () => {
    const mine = {
      path: "notes.md",
      action: "modify" as const,
      current: "my line\n",
      restored: "",
      binary: false,
      added_lines: 0,
      removed_lines: 1,
      generated: false,
      not_by_agent: true,
      changed_after_agent: false,
    };
    const { user } = await twoTurns({ restorePreview: (a) => ({ ...preview(a), files: [...preview(a).files, mine] }) });
    await user.click(within(screen.getAllByTestId("message-user")[0]!).getByTestId("restore-button"));
    const card = await screen.findByTestId("restore-card");
    await waitFor(() => expect(within(card).getByTestId("restore-preview")).toHaveAttribute("data-ready", "true"));
    expect(within(card).getByTestId("restore-not-by-agent-note")).toHaveTextContent(
      "1 of these changes was not made by the agent — your own edit, or another program's. Restoring takes it away too.",
    );
    const marked = within(card).getAllByTestId("restore-not-by-agent");
    expect(marked).toHaveLength(1);
    expect(marked[0]!.closest("[data-testid=restore-file]")).toHaveTextContent("notes.md");
  });

  it("reverts one file or all of them from the Changes panel, previewed as a restore to the session's start", async () => {
    const { calls, user } = await twoTurns({
      changes: [{ path: "src/a.rs", before: "fn a() {}\n", after: "fn a() { broken }\n", added_lines: 1, removed_lines: 1 }],
      restorePreview: preview,
      restore: () => ({ record: record({ scope: "files_only" }), transcript: { info: sessionInfo("new-1"), events: [], warnings: [] } }),
    });
    await user.click(screen.getByTestId("changes-tab"));
    await user.click(await screen.findByTestId("revert-file"));
    const card = await screen.findByTestId("restore-card");
    expect(within(card).queryByTestId("restore-scope-both")).toBeNull();
    await waitFor(() =>
      expect(restores(calls, "restore_preview")[0]).toEqual({
        session: "new-1",
        target: { kind: "session_start" },
        scope: "files_only",
        paths: ["src/a.rs"],
      }),
    );
    await user.click(within(card).getByTestId("restore-cancel"));
    expect(screen.queryByTestId("restore-card")).toBeNull();
    await user.click(screen.getByTestId("revert-all"));
    await user.click(within(await screen.findByTestId("restore-card")).getByTestId("restore-confirm"));
    await waitFor(() => expect(restores(calls)).toHaveLength(1));
    expect(restores(calls)[0]).toEqual({ session: "new-1", target: { kind: "session_start" }, scope: "files_only", paths: null });
  });
});
