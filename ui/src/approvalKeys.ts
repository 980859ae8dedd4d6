// When an approval card's keys (a approves, d denies, j/k/y/n go through a diff's hunks) may
// answer, and when the card may take the cursor. One key must never approve something the
// person did not see: keys act only on the card itself, never behind a dialog, never in the
// first moments after the card appears, and the cursor is never taken from someone writing.

/** How long a new card (or a card that just took the cursor) ignores its keys: a key already on
 *  its way — the person was typing — must not answer a question they have not read. */
export const APPROVAL_KEY_DELAY_MS = 600;

/** How often a card that could not take the cursor yet looks again. */
export const FOCUS_RETRY_MS = 250;

/** The keys a card answers to: a and d always, j/k/y/n with hunks to go through. */
export function isApprovalKey(key: string, hasHunks: boolean): boolean {
  if (key === "a" || key === "d") return true;
  return hasHunks && (key === "j" || key === "k" || key === "y" || key === "n");
}

/** A key that writes a character (not Space, which presses the focused button). */
export function writesText(key: string): boolean {
  return key.length === 1 && key !== " ";
}

export type KeyPress = {
  key: string;
  /** Ctrl, Alt or Meta held: a shortcut of something else. */
  modified: boolean;
  /** Held down and repeating. */
  repeat: boolean;
  /** It went to a text field (the deny message, say): it is text, not an answer. */
  inTextField: boolean;
};

export type CardState = {
  /** A dialog (Settings, the Full auto question) covers the card. */
  covered: boolean;
  /** The card has been there (or had the cursor) for APPROVAL_KEY_DELAY_MS. */
  armed: boolean;
  /** The card reviews hunks (j/k/y/n mean something). */
  hasHunks: boolean;
};

/**
 * What a key pressed on a card does: "answer" (its shortcut acts), "to-composer" (the person is
 * typing: the cursor goes back to the message box and the character lands there), or "ignore".
 */
export function keyVerdict(press: KeyPress, card: CardState): "answer" | "to-composer" | "ignore" {
  if (press.modified || press.inTextField || card.covered) return "ignore";
  const shortcut = isApprovalKey(press.key, card.hasHunks);
  if (press.repeat) return "ignore";
  if (shortcut && card.armed) return "answer";
  return writesText(press.key) ? "to-composer" : "ignore";
}

/** Where the cursor is when a card would take it. */
export type FocusSituation = {
  /** Nothing has the cursor (the page itself). */
  nothingFocused: boolean;
  covered: boolean;
};

/**
 * Whether a new card takes the cursor now: only when nothing has it (the answer to the card
 * before it, say) and no dialog covers it. Never from the message box, however long it was
 * left alone: a person who sent a task, read for a while and starts a follow-up ("also add a
 * test") would otherwise answer the card with its first letter.
 */
export function mayTakeFocus(s: FocusSituation): boolean {
  return !s.covered && s.nothingFocused;
}

/** A dialog that covers `el`: a modal one, or an alert dialog (the Full auto question). */
export function coveringDialog(el: Element | null): boolean {
  for (const d of Array.from(document.querySelectorAll('[aria-modal="true"], [role="alertdialog"]'))) {
    if (!el || !d.contains(el)) return true;
  }
  return false;
}

/** Whether `target` takes typed text. */
export function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.tagName === "INPUT" ||
    target.tagName === "TEXTAREA" ||
    target.tagName === "SELECT"
  );
}
