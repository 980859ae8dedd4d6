// Where the user writes to the agent: Enter sends, Shift+Enter starts a new line, `@` attaches
// a project file (the engine reads it before the model's first step).
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { pendingApprovals, useSession } from "../session";
import { setComposerInput } from "../composerInput";
import { useApp } from "../store";
import { call } from "../api";
import { insertMention, matchFiles, mentionAt, type Mention } from "../mentions";
import { draftFor, keepDraft } from "../drafts";
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
  const root = useApp((s) => (s.screen.kind === "project" ? s.screen.project.root : null));
  // The project's files, read when an `@` starts (the agent may have made new ones since).
  const [files, setFiles] = useState<string[] | null>(null);
  const [mention, setMention] = useState<Mention | null>(null);
  const [picked, setPicked] = useState(0);
  const matches = mention && files ? matchFiles(files, mention.query) : [];
  useEffect(() => {
    setFiles(null);
    setMention(null);
  }, [root]);
  const track = (value: string, caret: number) => {
    const m = mentionAt(value, caret);
    if (m && !mention && root) {
      call("project_files", { root })
        .then((list) => setFiles(list))
        .catch(() => setFiles([]));
    }
    setMention(m);
    setPicked(0);
  };
  const choose = (path: string) => {
    const el = input.current;
    if (!mention || !el) return;
    const next = insertMention(text, el.selectionStart, mention, path);
    setText(next.text);
    setMention(null);
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(next.caret, next.caret);
    });
  };
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
  // An example task clicked while something is written here: asked, never replaced silently.
  const [offered, setOffered] = useState<string | null>(null);
  // Each session keeps its own draft: switching sessions puts this one's aside and brings
  // the other's back.
  const key = current?.id ?? "new";
  const keyNow = useRef(key);
  const textNow = useRef(text);
  textNow.current = text;
  // A layout effect: in the same commit as the switch, so no key typed just after it is lost
  // (an effect ran late on a busy machine and wiped the first letters typed).
  // A task sent from a new session's box: the session it starts is the same conversation, so
  // what is typed while it is being made stays in the box (it went to "new", and was lost).
  const startingHere = useRef(false);
  useLayoutEffect(() => {
    const before = keyNow.current;
    if (before === key) return;
    keyNow.current = key;
    setOffered(null);
    if (before === "new" && startingHere.current) {
      startingHere.current = false;
      return;
    }
    startingHere.current = false;
    keepDraft(before, textNow.current);
    setText(draftFor(key));
  }, [key]);
  useEffect(() => {
    if (!draft) return;
    const previous = lastDraft.current;
    lastDraft.current = draft.text;
    const text = draft.text;
    if (draft.chosen && text !== null) {
      // An example task the person clicked: theirs to send or to change.
      const mine = textNow.current;
      if (mine.trim() !== "" && mine !== text) {
        setOffered(text);
        return;
      }
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
  // Another session holds the agent: said in words above the box, with the way to it (a
  // disabled Send never shows its tooltip).
  const elsewhere = useSession((s) =>
    s.runningSession !== null && s.runningSession !== s.current?.id
      ? (s.sessions.find((x) => x.id === s.runningSession) ?? { id: s.runningSession, title: "", state: "running" as const })
      : null,
  );
  const openSession = useSession((s) => s.openSession);
  // Written while another session holds the agent: kept, and sent when it is free.
  const queued = useSession((s) => (s.queued && s.queued.session === (s.current?.id ?? null) ? s.queued : null));
  const queue = useSession((s) => s.queue);
  const unqueue = useSession((s) => s.unqueue);
  const canQueue = elsewhere !== null && queued === null;

  const submit = async () => {
    if (canQueue && text.trim() !== "") {
      queue(text);
      setText("");
      keepDraft(key, "");
      return;
    }
    if (running || sending || text.trim() === "") return;
    setSending(true);
    // Out of the box before the send: a new session's id arriving must not keep it as a draft.
    const words = text;
    setText("");
    textNow.current = "";
    keepDraft(key, "");
    startingHere.current = key === "new";
    const started = await send(words);
    if (!started) startingHere.current = false;
    setSending(false);
    if (!started) setText((t) => (t === "" ? words : t));
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
      {elsewhere && (
        <div className="composer-busy" data-testid="composer-busy" role="status">
          <span>
            {elsewhere.state === "waiting" ? "Another session waits for your answer" : "Another session is working"}
            {elsewhere.title ? (
              <>
                : <strong>{elsewhere.title}</strong>
              </>
            ) : null}
            . {queued ? "Your message here waits for it." : "What you send here waits for it, and goes when it is done."}
          </span>
          <button className="link-button" data-testid="composer-busy-open" onClick={() => void openSession(elsewhere.id)}>
            {elsewhere.state === "waiting" ? "Answer it" : "Open it"}
          </button>
        </div>
      )}
      {queued && (
        <div className="composer-queued" data-testid="composer-queued" role="status">
          <span>
            Queued: <q>{queued.text.length > 80 ? `${queued.text.slice(0, 80)}…` : queued.text}</q> — sent when the other
            session is done.
          </span>
          <button
            className="link-button"
            data-testid="composer-queued-cancel"
            onClick={() => {
              const words = unqueue();
              if (words !== null) setText((t) => (t.trim() === "" ? words : t));
              input.current?.focus();
            }}
          >
            Take it back
          </button>
        </div>
      )}
      {offered !== null && (
        <div className="composer-offer" data-testid="example-offer" role="group" aria-label="Replace your draft?">
          <span>Replace what you wrote with this example?</span>
          <button
            data-testid="example-replace"
            onClick={() => {
              setText(offered);
              setOffered(null);
              input.current?.focus();
            }}
          >
            Replace
          </button>
          <button
            className="link-button"
            data-testid="example-keep"
            onClick={() => {
              setOffered(null);
              input.current?.focus();
            }}
          >
            Keep mine
          </button>
        </div>
      )}
      {mention && files !== null && (
        <ul className="mention-list" role="listbox" id="mention-list" data-testid="mention-list" aria-label="Project files to attach">
          {matches.length === 0 ? (
            <li className="mention-empty muted">{files.length === 0 ? "Reading the project's files…" : `No file matches "${mention.query}"`}</li>
          ) : (
            matches.map((path, i) => (
              <li
                key={path}
                id={`mention-${i}`}
                role="option"
                aria-selected={i === picked}
                className={i === picked ? "mention-option picked" : "mention-option"}
                data-testid="mention-option"
                onMouseDown={(e) => {
                  e.preventDefault();
                  choose(path);
                }}
              >
                {path}
              </li>
            ))
          )}
        </ul>
      )}
      <textarea
        ref={input}
        className="composer-input"
        data-testid="composer-input"
        aria-autocomplete="list"
        aria-controls={mention ? "mention-list" : undefined}
        aria-activedescendant={mention && matches.length > 0 ? `mention-${picked}` : undefined}
        rows={waiting ? 1 : 3}
        placeholder={
          waiting
            ? "Answer the question above first (click it: then a approves, d denies)…"
            : current
            ? "Reply, or give the next task…  (Enter sends, Shift+Enter for a new line, @ attaches a file)"
            : "Describe a task to start a new session…  (Enter sends, Shift+Enter for a new line, @ attaches a file)"
        }
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          track(e.target.value, e.target.selectionStart);
        }}
        onSelect={(e) => {
          const el = e.currentTarget;
          if (mention && mentionAt(el.value, el.selectionStart)?.start !== mention.start) setMention(null);
        }}
        onBlur={() => setMention(null)}
        onKeyDown={(e) => {
          if (mention && matches.length > 0 && !e.nativeEvent.isComposing) {
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              const step = e.key === "ArrowDown" ? 1 : matches.length - 1;
              setPicked((p) => (p + step) % matches.length);
              return;
            }
            if (e.key === "Enter" || e.key === "Tab") {
              e.preventDefault();
              choose(matches[Math.min(picked, matches.length - 1)] ?? matches[0] ?? "");
              return;
            }
          }
          if (mention && e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            setMention(null);
            return;
          }
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
          disabled={canQueue ? text.trim() === "" : running || sending || text.trim() === ""}
          onClick={() => void submit()}
          title={
            canQueue
              ? "Keep this message and send it when the other session is done (Enter)"
              : running
                ? "Wait for the current turn to end, or stop it"
                : "Send (Enter)"
          }
        >
          {canQueue ? "Queue" : "Send"}
        </button>
      </div>
    </div>
  );
}
