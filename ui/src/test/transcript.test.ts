import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../bindings";
import { PLAIN, lookOf, proposed, request, title } from "./fixtures";
import { applyEvents, emptyTranscript, foldEvents } from "../transcript";
import { titleText } from "../describeCall";
import { parseAnsi, stripAnsi } from "../ansi";
import { answerForHunks, approveLabel, hunkRange, hunkSides, previewMerge } from "../approval";
import type { Hunk } from "../bindings";

const opts = { now: 1000, live: true };

describe("transcript reducer", () => {
  it("accumulates text deltas, then the final message replaces them without duplicating", () => {
    let t = applyEvents(emptyTranscript(), [{ type: "user_message", text: "hi" }, { type: "step_started", step: 1 }], opts);
    t = applyEvents(t, [{ type: "text_delta", text: "Hel" }, { type: "text_delta", text: "lo" }], opts);
    expect(t.items.map((i) => i.kind)).toEqual(["user", "assistant"]);
    expect(t.items[1]).toMatchObject({ text: "Hello", streaming: true });
    t = applyEvents(
      t,
      [
        {
          type: "assistant_message",
          message: {
            role: "assistant",
            content: [
              { type: "text", text: "Hello there" },
              { type: "tool_use", id: "t1", name: "read_file", input: { path: "a.rs" } },
            ],
          },
        },
        proposed("t1", "read_file", { path: "a.rs" }, "Read a.rs"),
      ],
      opts,
    );
    expect(t.items.map((i) => i.kind)).toEqual(["user", "assistant", "tool"]);
    expect(t.items[1]).toMatchObject({ text: "Hello there", streaming: false });
  });

  it("rebuilds a logged session (no deltas) from assistant messages", () => {
    const events: AgentEvent[] = [
      { type: "user_message", text: "go" },
      { type: "step_started", step: 1 },
      { type: "usage", usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0 }, cost_usd: 0.01 },
      {
        type: "assistant_message",
        message: { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: null }, { type: "text", text: "Done." }] },
      },
      { type: "turn_ended", outcome: { kind: "ended" } },
    ];
    const t = foldEvents(events, { now: 0, live: false });
    expect(t.items.map((i) => i.kind)).toEqual(["user", "thinking", "assistant"]);
    expect(t.turn).toMatchObject({ input_tokens: 100, output_tokens: 20, cost_usd: 0.01 });
    expect(t.turnOpen).toBe(false);
  });

  it("tracks tool states: waiting, approved → running → done, denied, policy refusal, failure", () => {
    let t = applyEvents(
      emptyTranscript(),
      [
        proposed("a", "run_command", { command: "ls" }, title("Run ", { code: "ls" })),
        { type: "approval_needed", request: request("a") },
      ],
      opts,
    );
    expect(t.items[0]).toMatchObject({ status: "waiting" });
    expect(t.pending.map((r) => r.id)).toEqual(["a"]);
    t = applyEvents(t, [{ type: "approval_answered", id: "a", answer: { answer: "approve" } }], opts);
    expect(t.items[0]).toMatchObject({ status: "running" });
    expect(t.pending).toEqual([]);
    t = applyEvents(t, [{ type: "tool_finished", id: "a", name: "run_command", output: "ok", is_error: false }], opts);
    expect(t.items[0]).toMatchObject({ status: "done", output: "ok" });

    t = applyEvents(
      t,
      [
        proposed("b", "run_command", { command: "rm -rf /" }, title("Run ", { code: "rm -rf /" })),
        { type: "approval_needed", request: request("b") },
        { type: "approval_answered", id: "b", answer: { answer: "deny", message: null } },
        { type: "tool_finished", id: "b", name: "run_command", output: "The user denied this call.", is_error: true, outcome: "denied" },
        proposed("c", "run_command", { command: "sudo x" }, title("Run ", { code: "sudo x" })),
        { type: "tool_finished", id: "c", name: "run_command", output: "The policy refused this call: no [r]", is_error: true, outcome: "refused" },
        proposed("d", "read_file", { path: "x" }, "Read x"),
        { type: "tool_finished", id: "d", name: "read_file", output: "x not found", is_error: true },
      ],
      opts,
    );
    expect(t.items.map((i) => (i.kind === "tool" ? i.status : i.kind))).toEqual(["done", "denied", "denied", "failed"]);
  });

  it("ends a turn: unfinished tools, outcome lines, no duplicate done", () => {
    const t = foldEvents(
      [
        { type: "user_message", text: "x" },
        proposed("a", "run_command", { command: "sleep 9" }, title("Run ", { code: "sleep 9" })),
        { type: "turn_ended", outcome: { kind: "cancelled" } },
        { type: "user_message", text: "y" },
        { type: "done", summary: "All good" },
        { type: "turn_ended", outcome: { kind: "done", summary: "All good" } },
      ],
      opts,
    );
    expect(t.items.map((i) => i.kind)).toEqual(["user", "tool", "outcome", "user", "done"]);
    expect(t.items[1]).toMatchObject({ status: "unfinished" });
  });

  it("keeps the latest plan and sums usage with unknown prices as unknown", () => {
    const u = { input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 };
    const t = foldEvents(
      [
        { type: "plan_updated", items: [{ text: "a", status: "pending" }] },
        { type: "plan_updated", items: [{ text: "a", status: "done" }, { text: "b", status: "in_progress" }] },
        { type: "usage", usage: u, cost_usd: 0.5 },
        { type: "usage", usage: u, cost_usd: null },
      ],
      opts,
    );
    expect(t.plan).toHaveLength(2);
    expect(t.session).toMatchObject({ input_tokens: 20, output_tokens: 10, cost_usd: null });
  });
});

describe("a call's title and look", () => {
  it("keeps the title and look Rust sent with each call", () => {
    const t = foldEvents(
      [
        proposed("r", "read_file", { path: "src/lib.rs" }, "Read src/lib.rs"),
        proposed("s", "search_codebase", { pattern: "fn main", path: "src" }, title("Search for ", { code: "fn main" }, " in src")),
        proposed("x", "files__read_file", { path: "a" }, "Read file (files)", PLAIN),
      ],
      opts,
    );
    expect(t.items).toMatchObject([
      { kind: "tool", name: "read_file", title: [{ text: "Read src/lib.rs", code: false }], look: { quiet: true, output: "plain", ends_task: false } },
      {
        kind: "tool",
        title: [
          { text: "Search for ", code: false },
          { text: "fn main", code: true },
          { text: " in src", code: false },
        ],
        look: lookOf("search_codebase"),
      },
      // A server's own read_file is not Tandem's: a plain card, as Rust says.
      { kind: "tool", name: "files__read_file", title: [{ text: "Read file (files)", code: false }], look: PLAIN },
    ]);
  });

  it("takes a question's title from the request when no proposal came before it", () => {
    const t = foldEvents([{ type: "approval_needed", request: request("q", { command: "make", input: { command: "make" } }) }], opts);
    expect(t.items[0]).toMatchObject({ kind: "tool", status: "waiting", title: title("Run ", { code: "make" }), look: PLAIN });
  });

  it("ends the task with the call whose look says it does, whatever its name", () => {
    const t = foldEvents(
      [
        { type: "user_message", text: "go" },
        proposed("p", "update_plan", { items: [] }, "Update the plan"),
        { type: "tool_finished", id: "p", name: "update_plan", output: "ok", is_error: false, outcome: "ok" },
        proposed("w", "wrap_up", { summary: "Done it" }, "Finish: Done it", { ...PLAIN, ends_task: true }),
        { type: "tool_finished", id: "w", name: "wrap_up", output: "Task complete: Done it", is_error: false, outcome: "ok" },
        { type: "done", summary: "Done it" },
        { type: "turn_ended", outcome: { kind: "done", summary: "Done it" } },
      ],
      opts,
    );
    // The finishing call and the end are one block, in the call's place; the plan stays a call.
    expect(t.items.map((i) => i.kind)).toEqual(["user", "tool", "done"]);
    expect(t.items[2]).toMatchObject({ kind: "done", summary: "Done it" });
    expect(t.tools).toEqual({ p: 1 });
  });

  it("says a title in one line of text for a screen reader", () => {
    expect(titleText(title("Run ", { code: "cargo test" }, " in the background"))).toBe("Run cargo test in the background");
    expect(titleText(title("Read file (files)"))).toBe("Read file (files)");
  });
});

describe("parseAnsi", () => {
  it("splits SGR colours into styled spans and drops other escapes", () => {
    const spans = parseAnsi("plain \x1b[1;31merror\x1b[0m: \x1b[38;5;82mok\x1b[39m\x1b[2K done");
    expect(spans.map((s) => s.text)).toEqual(["plain ", "error", ": ", "ok", " done"]);
    expect(spans[1]?.style).toMatchObject({ bold: true, fg: "var(--ansi-red)" });
    expect(spans[2]?.style).toEqual({});
    expect(spans[3]?.style.fg).toMatch(/^rgb\(/);
    expect(stripAnsi("\x1b[32mgreen\x1b[m")).toBe("green");
  });
});

describe("answerForHunks", () => {
  const hunks: Hunk[] = [0, 1, 2].map((index) => ({
    index,
    old_start: 1 + index * 10,
    old_lines: 1,
    new_start: 1 + index * 10,
    new_lines: 1,
    text: `@@ -${1 + index * 10} +${1 + index * 10} @@\n-old${index}\n+new${index}\n`,
    removed: { start: index * 10, end: index * 10 + 1 },
    added: { start: index * 10, end: index * 10 + 1 },
  }));
  it("approves all, approves part, or denies", () => {
    expect(answerForHunks(hunks, [true, true, true])).toEqual({ answer: "approve" });
    expect(answerForHunks(hunks, [true, false, true])).toEqual({ answer: "approve_partial", accepted_hunks: [0, 2] });
    expect(answerForHunks(hunks, [false, false, false])).toEqual({ answer: "deny", message: "The user rejected every hunk." });
  });
  it("splits a hunk into its two sides", () => {
    expect(hunkSides({ ...hunks[0]!, text: "@@ -1,2 +1,2 @@\n ctx\n-a\n+b\n" })).toEqual({ before: "ctx\na", after: "ctx\nb" });
  });
});

describe("previewMerge", () => {
  // What the engine sends for "a\nb\nc\nd\ne" with b and d changed: two hunks.
  const original = "a\r\nb\r\nc\r\nd\r\ne";
  const proposed = "a\r\nB\r\nB2\r\nc\r\ne";
  const hunks: Hunk[] = [
    { index: 0, old_start: 1, old_lines: 3, new_start: 1, new_lines: 4, text: "", removed: { start: 1, end: 2 }, added: { start: 1, end: 3 } },
    { index: 1, old_start: 3, old_lines: 3, new_start: 4, new_lines: 2, text: "", removed: { start: 3, end: 4 }, added: { start: 4, end: 4 } },
  ];
  it("gives the proposed text with everything kept and the original with nothing", () => {
    expect(previewMerge(original, proposed, hunks, [true, true])).toBe(proposed);
    expect(previewMerge(original, proposed, hunks, [false, false])).toBe(original);
  });
  it("puts back only the rejected hunks' lines, line endings and all", () => {
    expect(previewMerge(original, proposed, hunks, [true, false])).toBe("a\r\nB\r\nB2\r\nc\r\nd\r\ne");
    expect(previewMerge(original, proposed, hunks, [false, true])).toBe("a\r\nb\r\nc\r\ne");
  });
});

describe("approveLabel", () => {
  it("says what the answer does", () => {
    expect(approveLabel(1, 1)).toBe("Approve");
    expect(approveLabel(1, 0)).toBe("Reject the edit");
    expect(approveLabel(3, 0)).toBe("Reject the edit");
    expect(approveLabel(3, 2)).toBe("Apply 2 of 3 changes");
    expect(approveLabel(3, 3)).toBe("Approve");
    expect(approveLabel(0, 0)).toBe("Approve");
  });
});

describe("hunkRange", () => {
  const base: Hunk = { index: 0, old_start: 2, old_lines: 7, new_start: 2, new_lines: 7, text: "", removed: { start: 4, end: 5 }, added: { start: 4, end: 5 } };
  it("names the lines the hunk changes, not its context", () => {
    expect(hunkRange(base)).toBe("line 5");
    expect(hunkRange({ ...base, added: { start: 4, end: 7 } })).toBe("lines 5–7");
    // A removal names where it was in the original.
    expect(hunkRange({ ...base, added: { start: 4, end: 4 }, removed: { start: 9, end: 11 } })).toBe("lines 10–11");
  });
});
