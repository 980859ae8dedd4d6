// What the person was writing in each session's message box, kept while they look at another
// one: a draft typed in one session must not follow them into the next (easy to send to the
// wrong one). Kept for the window's life; "new" is the box of a session not started yet.
const drafts = new Map<string, string>();

export function keepDraft(key: string, text: string): void {
  if (text.trim() === "") drafts.delete(key);
  else drafts.set(key, text);
}

export function draftFor(key: string): string {
  return drafts.get(key) ?? "";
}

/** For tests: every draft forgotten. */
export function forgetDrafts(): void {
  drafts.clear();
}
