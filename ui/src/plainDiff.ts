// The lines two texts differ in, found by trimming what they share at both ends: enough to show
// a change faithfully (removed lines, then added ones) while the full diff viewer loads.

export type PlainLine = { kind: "same" | "del" | "add"; text: string };

/** At most this many shared lines are shown on each side of the change. */
const CONTEXT = 3;

export function plainDiff(original: string, modified: string): PlainLine[] {
  const a = splitLines(original);
  const b = splitLines(modified);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: PlainLine[] = [];
  for (const text of a.slice(Math.max(0, start - CONTEXT), start)) out.push({ kind: "same", text });
  for (const text of a.slice(start, endA)) out.push({ kind: "del", text });
  for (const text of b.slice(start, endB)) out.push({ kind: "add", text });
  for (const text of a.slice(endA, endA + CONTEXT)) out.push({ kind: "same", text });
  return out;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
