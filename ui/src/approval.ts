// Turning the user's choices in an approval card into the answer Rust expects.
import type { ApprovalAnswer, Hunk } from "./bindings";

export const ALL_REJECTED_MESSAGE = "The user rejected every hunk.";

/**
 * The answer for a write or edit reviewed hunk by hunk: every hunk accepted → approve; some →
 * approve_partial with the accepted hunks' indices; none → deny.
 */
export function answerForHunks(hunks: Hunk[], accepted: boolean[]): ApprovalAnswer {
  if (hunks.length === 0) return { answer: "approve" };
  const chosen = hunks.filter((_, i) => accepted[i] !== false).map((h) => h.index);
  if (chosen.length === hunks.length) return { answer: "approve" };
  if (chosen.length === 0) return { answer: "deny", message: ALL_REJECTED_MESSAGE };
  return { answer: "approve_partial", accepted_hunks: chosen };
}

/** A hunk's two sides, from its unified text, for showing it as a small diff. */
export function hunkSides(hunk: Hunk): { before: string; after: string } {
  const before: string[] = [];
  const after: string[] = [];
  for (const line of hunk.text.split("\n")) {
    if (line.startsWith("@@") || line.startsWith("\\")) continue;
    const mark = line.charAt(0);
    const body = line.slice(1);
    if (mark === "-") before.push(body);
    else if (mark === "+") after.push(body);
    else if (mark === " ") {
      before.push(body);
      after.push(body);
    }
  }
  return { before: before.join("\n"), after: after.join("\n") };
}

/** "lines 10–14" in the proposed file, for a hunk's heading. */
export function hunkRange(hunk: Hunk): string {
  const start = hunk.new_lines === 0 ? hunk.old_start : hunk.new_start;
  const count = Math.max(hunk.new_lines, hunk.old_lines);
  return count <= 1 ? `line ${start}` : `lines ${start}–${start + count - 1}`;
}
