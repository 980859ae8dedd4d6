// Where the user writes to the agent: Enter sends, Shift+Enter starts a new line.
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { pendingApprovals, useSession } from "../session";
import { setComposerInput } from "../composerInput";
import { CostMeter } from "./CostMeter";
import { ModeSelect } from "./ModeSelect";

export function Composer() {
  const [text, setText] = useState("");
  const current = useSession((s) => s.current);
  const runningSession = useSession((s) => s.runningSession);
  const send = useSession((s) => s.send);
  const stop = useSession((s) => s.stop);
  const error = useSession((s) => s.error);
  const clearError = useSession((s) => s.clearError);
  const [sending, setSending] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  // Others ask whether the person is writing here (a question never takes the cursor then).
  // Registered as the box appears, before anything that may hand the cursor to it runs.
  useLayoutEffect(() => {
    setComposerInput(input.current);
    return () => setComposerInput(null);
  }, []);
  // A message a restore took out of the conversation comes back here, unless something is
  // being written already.
  const draft = useSession((s) => s.draft);
  const lastDraft = useRef<string | null>(null);
  useEffect(() => {
    if (!draft) return;
    const previous = lastDraft.current;
    lastDraft.current = draft.text;
    const text = draft.text;
    if (draft.chosen && text !== null) {
      // An example task the person clicked: theirs to send or to change.
      setText(text);
      input.current?.focus();
      return;
    }
    // null: the restore was undone and the message is back in the conversation.
    setText((t) => (text === null ? (t === previous ? "" : t) : t.trim() === "" ? text : t));
  }, [draft]);
  // While a question waits, the composer gives its room to the approval card.
  const waiting = useSession((s) => s.current !== null && s.runningSession === s.current.id && pendingApprovals(s).length > 0);
  const running = runningSession !== null;
  const runningHere = running && runningSession === current?.id;

  const submit = async () => {
    if (running || sending || text.trim() === "") return;
    setSending(true);
    const started = await send(text);
    setSending(false);
    if (started) setText("");
    input.current?.focus();
  };

  return (
    <div className={waiting ? "composer waiting" : "composer"}>
      {error && (
        <div className="composer-error">
          <div className="banner error" role="alert" data-testid="composer-error">
            {error}
          </div>
          <button className="link-button" onClick={clearError} aria-label="Dismiss">
            Dismiss
          </button>
        </div>
      )}
      <textarea
        ref={input}
        className="composer-input"
        data-testid="composer-input"
        rows={waiting ? 1 : 3}
        placeholder={
          waiting
            ? "Answer the question above first (click it: then a approves, d denies)…"
            : current
            ? "Reply, or give the next task…  (Enter sends, Shift+Enter for a new line)"
            : "Describe a task to start a new session…  (Enter sends, Shift+Enter for a new line)"
        }
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void submit();
          }
        }}
      />
      <div className="composer-bar">
        <ModeSelect />
        <CostMeter />
        <button
          data-testid="stop-button"
          className="danger"
          disabled={!runningHere}
          onClick={() => void stop()}
          title="Stop the agent after the current step"
        >
          Stop
        </button>
        <button
          className="primary"
          data-testid="send-button"
          disabled={running || sending || text.trim() === ""}
          onClick={() => void submit()}
          title={running ? "Wait for the current turn to end, or stop it" : "Send (Enter)"}
        >
          Send
        </button>
      </div>
    </div>
  );
}
