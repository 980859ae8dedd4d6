// Attaching a project file to a message with `@`: where the `@word` being typed is, which
// files it matches, and the text once one is chosen. The engine reads each `@path` before the
// model's first step (crates/agent/src/named_files.rs).

/** The `@word` the caret is in: where its `@` is and what follows it up to the caret. */
export type Mention = { start: number; query: string };

/** The mention being typed at `caret`, when the word there starts with `@` (at the start of the text or after a space). */
export function mentionAt(text: string, caret: number): Mention | null {
  let start = caret;
  while (start > 0 && !/\s/.test(text.charAt(start - 1))) start--;
  if (text[start] !== "@") return null;
  const query = text.slice(start + 1, caret);
  return { start, query };
}

/** The files `query` matches, best first: the name starting with it, then containing it, then the path containing it; shorter paths first within each. */
export function matchFiles(files: readonly string[], query: string, limit = 8): string[] {
  const q = query.toLowerCase();
  const rank = (path: string): number => {
    const p = path.toLowerCase();
    const name = p.slice(p.lastIndexOf("/") + 1);
    if (name.startsWith(q)) return 0;
    if (name.includes(q)) return 1;
    if (p.includes(q)) return 2;
    return -1;
  };
  return files
    .map((path) => ({ path, rank: rank(path) }))
    .filter((m) => m.rank >= 0)
    .sort((a, b) => a.rank - b.rank || a.path.length - b.path.length || a.path.localeCompare(b.path))
    .slice(0, limit)
    .map((m) => m.path);
}

/** The text with the mention replaced by `@path ` and where the caret goes after it. */
export function insertMention(text: string, caret: number, mention: Mention, path: string): { text: string; caret: number } {
  const before = text.slice(0, mention.start);
  const after = text.slice(caret).replace(/^\S*/, "");
  const inserted = `@${path}${after.startsWith(" ") ? "" : " "}`;
  return { text: before + inserted + after, caret: before.length + inserted.length };
}
