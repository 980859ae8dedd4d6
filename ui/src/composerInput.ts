// The message box, for the parts of the window that hand the cursor back to it (a question
// answered, letters typed at a card).
let input: HTMLTextAreaElement | null = null;

/** The composer registers its textarea here (null when it goes away). */
export function setComposerInput(el: HTMLTextAreaElement | null) {
  input = el;
}

/** Puts the cursor at the end of the message box, so what is typed next lands there. */
export function focusComposer(): boolean {
  if (!input || !input.isConnected) return false;
  input.focus({ preventScroll: true });
  const end = input.value.length;
  input.setSelectionRange(end, end);
  return true;
}
