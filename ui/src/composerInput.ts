// The message box, for the parts of the window that must know whether the person is writing in
// it (a question never takes the cursor from someone typing) or hand the cursor back to it.
let input: HTMLTextAreaElement | null = null;
let lastTyped = Number.NEGATIVE_INFINITY;

/** The composer registers its textarea here (null when it goes away). */
export function setComposerInput(el: HTMLTextAreaElement | null) {
  input = el;
}

/** The person pressed a key or changed the text in the message box. */
export function noteComposerTyping() {
  lastTyped = Date.now();
}

export type ComposerState = {
  /** The message box has the cursor. */
  focused: boolean;
  /** Nothing is written in it. */
  empty: boolean;
  /** Milliseconds since the person last typed in it. */
  idleMs: number;
};

export function composerState(): ComposerState {
  return {
    focused: input !== null && document.activeElement === input,
    empty: input === null || input.value === "",
    idleMs: Date.now() - lastTyped,
  };
}

/** Puts the cursor at the end of the message box, so what is typed next lands there. */
export function focusComposer(): boolean {
  if (!input || !input.isConnected) return false;
  input.focus({ preventScroll: true });
  const end = input.value.length;
  input.setSelectionRange(end, end);
  return true;
}
