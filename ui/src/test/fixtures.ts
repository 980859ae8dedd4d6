// Agent events and requests the tests share.
import type { ApprovalRequest, Hunk } from "../bindings";

export function request(id: string, over: Partial<ApprovalRequest> = {}): ApprovalRequest {
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
