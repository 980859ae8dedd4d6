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

/** A text's lines, each with its line break (the last may have none), as Rust splits them. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The file as it will be written: the proposed text with the original's lines put back for
 * every rejected hunk. Rust says which lines each hunk removes and adds (`removed`, `added`);
 * this only splices them, so what is shown is what the engine will write.
 */
export function previewMerge(original: string, proposed: string, hunks: Hunk[], accepted: boolean[]): string {
  const before = linesOf(original);
  const after = linesOf(proposed);
  const out: string[] = [];
  let at = 0;
  hunks.forEach((h, i) => {
    out.push(...after.slice(at, h.added.start));
    out.push(...(accepted[i] !== false ? after.slice(h.added.start, h.added.end) : before.slice(h.removed.start, h.removed.end)));
    at = h.added.end;
  });
  out.push(...after.slice(at));
  return out.join("");
}

/** What the approve button does, in words: it follows the hunks the user kept. */
export function approveLabel(hunkCount: number, acceptedCount: number): string {
  if (hunkCount > 0 && acceptedCount === 0) return "Reject the edit";
  if (hunkCount <= 1 || acceptedCount === hunkCount) return "Approve";
  return `Apply ${acceptedCount} of ${hunkCount} changes`;
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

/** "lines 10–14": the lines it changes (in the proposed file; a removal, in the original). */
export function hunkRange(hunk: Hunk): string {
  const r = hunk.added.end > hunk.added.start ? hunk.added : hunk.removed;
  const first = r.start + 1;
  return r.end <= first ? `line ${first}` : `lines ${first}–${r.end}`;
}
