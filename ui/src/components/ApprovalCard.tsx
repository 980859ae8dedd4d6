// The question the agent is waiting on, pinned above the composer: what it wants to do, why
// the policy asks, and the answers. Several waiting requests are answered in order.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent } from "react";
import type { ApprovalAnswer, ApprovalRequest, Confinement } from "../bindings";
import { useSession } from "../session";
import { answerForHunks, approveLabel } from "../approval";
import { titleText } from "../describeCall";
import {
  APPROVAL_KEY_DELAY_MS,
  FOCUS_RETRY_MS,
  coveringDialog,
  isTextField,
  keyVerdict,
  mayTakeFocus,
} from "../approvalKeys";
import { focusComposer } from "../composerInput";
import { CallTitle } from "./CallTitle";
import { DiffReview } from "./DiffReview";
import { CommandReview } from "./CommandReview";
import { CommitReview } from "./CommitReview";
import { answerForReview, initialChoice, keptCount, reviewLabel, type ReviewChoice } from "../commandReview";

export function ApprovalCard() {
  const pending = useSession((s) => s.transcript.pending);
  const answered = useSession((s) => s.answered);
  // A reopened session's old questions are not asked again: only a live turn waits for answers.
  const live = useSession(
    (s) => s.current !== null && (s.runningSession === s.current.id || s.current.state === "waiting"),
  );
  const queue = useMemo(() => pending.filter((r) => !answered[r.id]), [pending, answered]);
  const request = queue[0];
  const shown = request !== undefined && live;
  // The last question answered (or its turn ended) with the cursor on it: the cursor goes back
  // to the message box rather than nowhere, as the card goes (a layout effect: no frame where
  // typed keys land nowhere).
  const wasShown = useRef(false);
  useLayoutEffect(() => {
    if (wasShown.current && !shown) {
      const active = document.activeElement;
      if (active === null || active === document.body) focusComposer();
    }
    wasShown.current = shown;
  }, [shown]);
  if (!request || !live) return null;
  return <ApprovalQuestion key={request.id} request={request} total={queue.length} />;
}

function ApprovalQuestion({ request, total }: { request: ApprovalRequest; total: number }) {
  const answer = useSession((s) => s.answer);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const isDiff = request.path !== null && request.proposed !== null;
  const review = request.review ?? null;
  // A diff or a command's changes: the card sizes itself to what it shows.
  const isBig = isDiff || review !== null;
  const hunks = request.hunks;
  const [accepted, setAccepted] = useState<boolean[]>(() => hunks.map(() => true));
  const [choice, setChoice] = useState<ReviewChoice>(() => (review ? initialChoice(review) : {}));
  const [focused, setFocused] = useState(0);
  const cardRef = useRef<HTMLElement>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  // A diff's card takes the height its content asks for (within the bounds the stylesheet
  // sets) and keeps it from the user's first touch on: switching views or accepting hunks
  // then scrolls inside it, and never moves the buttons under the pointer. Until then it
  // follows its content, which grows once the diff editor has loaded.
  const [frame, setFrame] = useState<number | null>(null);
  const frozen = useRef(false);
  useLayoutEffect(() => {
    const card = cardRef.current;
    const body = bodyRef.current;
    if (!isBig || !card || !body) return;
    // What scrolls is the diff's own area: the card's height plus what it hides.
    const scroller = body.querySelector(".diff-scroll") ?? body;
    const measure = () => {
      if (!frozen.current) setFrame(card.offsetHeight - scroller.clientHeight + scroller.scrollHeight);
    };
    measure();
    const content = scroller.firstElementChild;
    if (typeof ResizeObserver === "undefined" || !content) return;
    const observer = new ResizeObserver(measure);
    observer.observe(content);
    return () => observer.disconnect();
  }, [isBig]);
  const freeze = () => {
    frozen.current = true;
  };

  const send = useCallback(
    async (a: ApprovalAnswer) => {
      if (busy) return;
      setBusy(true);
      const ok = await answer(request, a);
      // On success this card is replaced by the next one; on failure it stays to retry.
      if (!ok) setBusy(false);
    },
    [answer, busy, request],
  );

  const approve = useCallback(
    () =>
      void send(
        review !== null
          ? answerForReview(review, choice)
          : isDiff
            ? answerForHunks(hunks, accepted)
            : { answer: "approve" },
      ),
    [send, isDiff, hunks, accepted, review, choice],
  );
  const deny = useCallback(
    () => void send({ answer: "deny", message: message.trim() === "" ? null : message.trim() }),
    [send, message],
  );

  // Keys answer only once the card has been there a moment (a key already on its way must not
  // answer a question nobody read), and again a moment after the card took the cursor.
  const [armed, setArmed] = useState(false);
  const [armedSince, setArmedSince] = useState(0);
  useEffect(() => {
    setArmed(false);
    const timer = window.setTimeout(() => setArmed(true), APPROVAL_KEY_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [armedSince]);

  // The cursor comes to the card only from nowhere (the card before it was just answered), never
  // from the message box and never behind a dialog. Behind a dialog the card looks again now and
  // then, until the dialog closes. It takes the cursor once, as the card appears.
  useLayoutEffect(() => {
    let timer: number | undefined;
    const attempt = () => {
      const card = cardRef.current;
      if (!card) return;
      const active = document.activeElement;
      if (card.contains(active)) return;
      const situation = { nothingFocused: active === null || active === document.body, covered: coveringDialog(card) };
      if (mayTakeFocus(situation)) {
        card.focus({ preventScroll: true });
        setArmedSince((n) => n + 1);
        return;
      }
      if (situation.covered) timer = window.setTimeout(attempt, FOCUS_RETRY_MS);
    };
    attempt();
    return () => window.clearTimeout(timer);
  }, []);

  const [hasFocus, setHasFocus] = useState(false);
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.defaultPrevented) return;
    const verdict = keyVerdict(
      {
        key: e.key,
        modified: e.ctrlKey || e.metaKey || e.altKey,
        repeat: e.repeat,
        inTextField: isTextField(e.target),
      },
      { covered: coveringDialog(cardRef.current), armed, hasHunks: isDiff },
    );
    if (verdict === "to-composer") {
      // Text typed at the card is text: it goes to the message box (the character follows the
      // cursor there), and answers nothing.
      focusComposer();
      return;
    }
    if (verdict !== "answer") return;
    e.preventDefault();
    frozen.current = true;
    const last = hunks.length - 1;
    switch (e.key) {
      case "a":
        approve();
        break;
      case "d":
        deny();
        break;
      case "j":
        setFocused((f) => Math.min(last, f + 1));
        break;
      case "k":
        setFocused((f) => Math.max(0, f - 1));
        break;
      case "y":
      case "n":
        setAccepted((acc) => acc.map((v, i) => (i === focused ? e.key === "y" : v)));
        break;
    }
  };

  const acceptedCount = accepted.filter(Boolean).length;
  const leaves = request.confinement?.kind === "outside" && request.confinement.reason === "approved";
  // With every hunk rejected the answer is a deny: the button says so.
  const rejectsAll = review !== null ? keptCount(review, choice) === 0 : isDiff && hunks.length > 0 && acceptedCount === 0;
  const label = review !== null
    ? reviewLabel(review, choice)
    : request.sandbox_denial !== null
    ? "Run once outside the sandbox"
    : isDiff
      ? approveLabel(hunks.length, acceptedCount)
      : leaves
        ? "Approve (outside the sandbox)"
        : "Approve";

  return (
    <section
      className={review !== null ? "approval-card diff review" : isDiff ? "approval-card diff" : "approval-card"}
      data-testid="approval-card"
      data-request={request.id}
      aria-label="Tandem needs your approval"
      data-keys={hasFocus && armed ? "on" : "off"}
      tabIndex={0}
      ref={cardRef}
      style={frame === null ? undefined : ({ "--approval-frame": `${frame}px` } as CSSProperties)}
      onPointerDownCapture={freeze}
      onKeyDownCapture={freeze}
      onKeyDown={onKeyDown}
      onFocus={() => setHasFocus(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget)) setHasFocus(false);
      }}
    >
      {/* Said by screen readers as each question arrives (this element is new per question). */}
      <p className="visually-hidden" role="alert" data-testid="approval-announce" key={request.id}>
        Tandem needs your approval: {titleText(request.title)}
        {total > 1 ? `. ${total} questions wait.` : "."}
      </p>
      <header className="approval-header">
        <span className="approval-badge" aria-hidden>
          ?
        </span>
        <div className="approval-heading">
          <strong>{review !== null ? "Keep what this command changed?" : "Tandem needs your approval"}</strong>
          {request.agent && (
            <span className="approval-agent" data-testid="approval-agent">
              Asked by the sub-agent “{request.agent}”
            </span>
          )}
          <span className="approval-call">
            <CallTitle title={request.title} />
          </span>
        </div>
        <span
          className="muted key-hints"
          title={hasFocus ? undefined : "The keys answer once this card has the cursor: click it, or press Tab to reach it"}
        >
          <span>
            {!hasFocus && "Click here, then "}
            <kbd>a</kbd> {rejectsAll ? (review !== null ? "reject all" : "reject the edit") : review !== null ? "keep" : "approve"} · <kbd>d</kbd> deny
          </span>
          {isDiff && hunks.length > 1 && (
            <span>
              <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>y</kbd>/<kbd>n</kbd> accept/reject
            </span>
          )}
        </span>
        {total > 1 && (
          <span className="pill approval-count" data-testid="approval-count">
            1 of {total}
          </span>
        )}
      </header>
      {request.reason && (
        <p
          className="approval-reason"
          data-testid="approval-reason"
          data-rule={request.rule}
          title={request.rule ? `The rule that asks: ${request.rule}` : undefined}
        >
          <span className="muted">Why it asks: </span>
          {request.reason}
        </p>
      )}
      <div className="approval-body" ref={bodyRef}>
        {review !== null ? (
          <>
            <CommandRan request={request} />
            <div className="diff-scroll review-scroll">
              <CommandReview review={review} choice={choice} onChange={setChoice} />
            </div>
          </>
        ) : isDiff ? (
          <DiffReview
            path={request.path ?? ""}
            original={request.original ?? ""}
            proposed={request.proposed ?? ""}
            hunks={hunks}
            accepted={accepted}
            onChange={setAccepted}
            focused={focused}
            onFocus={setFocused}
          />
        ) : request.commit ? (
          <div className="diff-scroll review-scroll">
            <CommitReview commit={request.commit} />
          </div>
        ) : request.command !== null ? (
          <CommandDetails request={request} />
        ) : (
          <OtherDetails request={request} />
        )}
      </div>
      <div className="approval-bottom">
        {request.suggestions.length > 0 && (
          <div className="suggestions">
            <span className="muted">Approve and remember:</span>
            {request.suggestions.map((s, i) => (
              <SuggestionButton key={i} label={s.label} always={s.always} index={i} disabled={busy} onAnswer={(a) => void send(a)} />
            ))}
          </div>
        )}
        <textarea
          className="deny-message"
          data-testid="deny-message"
          rows={1}
          placeholder="Why, or what to do instead (sent with Deny)"
          value={message}
          onChange={(e) => setMessage(e.target.value)}
        />
        {/* Deny first: the approve button's label follows the hunks chosen and changes its
            width, and growing to the right it moves nothing else under the pointer. */}
        <footer className="approval-actions">
          <button className="danger" data-testid="deny-button" disabled={busy} onClick={deny} title="Deny (d)">
            Deny
          </button>
          <button
            className={rejectsAll ? "danger" : "primary"}
            data-testid="approve-button"
            data-answer={rejectsAll ? "deny" : "approve"}
            disabled={busy}
            onClick={approve}
            title={
              rejectsAll
                ? review !== null
                  ? "Nothing lands: the project stays as it was (a)"
                  : "Nothing will be written: the edit is rejected (a)"
                : "Approve (a)"
            }
          >
            {label}
          </button>
        </footer>
      </div>
    </section>
  );
}

/** The command whose changes are reviewed: it has run, in the sandbox, over a copy. */
function CommandRan({ request }: { request: ApprovalRequest }) {
  const input = request.input && typeof request.input === "object" && !Array.isArray(request.input) ? request.input : {};
  const description = typeof input.description === "string" ? input.description : null;
  return (
    <div className="command-details review-command">
      {description && <p className="command-description">{description}</p>}
      <pre className="command-line" data-testid="approval-command">
        <code>{request.command}</code>
      </pre>
    </div>
  );
}

/** A label with `code` spans, as the policy writes them. */
function LabelText({ label }: { label: string }) {
  return (
    <>
      {label.split("`").map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : <span key={i}>{part}</span>))}
    </>
  );
}

/**
 * One button per rule the policy offers. Its label says its reach: "Always allow … in this
 * project" is kept in the project's rules (approve_always); the others last for the session.
 */
function SuggestionButton({
  label,
  always,
  index,
  disabled,
  onAnswer,
}: {
  label: string;
  always: boolean;
  index: number;
  disabled: boolean;
  onAnswer: (a: ApprovalAnswer) => void;
}) {
  return (
    <button
      className="suggestion"
      disabled={disabled}
      data-testid={always ? "approve-always" : "approve-for-session"}
      onClick={() =>
        onAnswer(always ? { answer: "approve_always", suggestion: index } : { answer: "approve_for_session", suggestion: index })
      }
      title={always ? "Approve, and keep this rule in your rules for this project" : "Approve, and allow this until the session ends"}
    >
      <LabelText label={label} />
    </button>
  );
}

/** Where an approved command would run, in a sentence. */
function whereItRuns(c: Confinement | null): { kind: string; text: string } | null {
  if (c === null) return null;
  if (c.kind === "outside") {
    return c.reason === "approved"
      ? { kind: "outside", text: "Outside the sandbox: it runs with your own permissions and can change anything you can." }
      : { kind: "outside", text: "This computer cannot sandbox commands: it runs with your own permissions." };
  }
  if (c.network) {
    return { kind: "network", text: "This command wants the network. It runs in the sandbox, with the network turned on for it." };
  }
  return { kind: "sandboxed", text: "In the sandbox: it can change only the project and a temporary folder, and has no network." };
}

function CommandDetails({ request }: { request: ApprovalRequest }) {
  const input = request.input && typeof request.input === "object" && !Array.isArray(request.input) ? request.input : {};
  const cwd = typeof input.cwd === "string" && input.cwd ? input.cwd : null;
  const description = typeof input.description === "string" ? input.description : null;
  const where = whereItRuns(request.confinement);
  const denial = request.sandbox_denial;
  return (
    <div className="command-details">
      {denial && (
        <p className="sandbox-denial" data-testid="sandbox-denial" data-kind={denial.kind}>
          {denial.kind === "network"
            ? "The sandbox kept this command off the network. "
            : "The sandbox kept this command away from a file it may not touch. "}
          <span className="muted">It said: </span>
          <code>{denial.evidence}</code>
        </p>
      )}
      {description && <p className="command-description">{description}</p>}
      <pre className="command-line" data-testid="approval-command">
        <code>{request.command}</code>
      </pre>
      <p className="muted">
        Runs in: {cwd ? <code>{cwd}</code> : "the project folder"}
        {input.background === true && " · in the background"}
      </p>
      {where && (
        <p className={`where-it-runs ${where.kind}`} data-testid="approval-confinement" data-kind={where.kind}>
          {where.text}
        </p>
      )}
      {request.commands.length > 1 && (
        <div className="command-parts">
          <span className="muted">This runs {request.commands.length} commands:</span>
          <ul>
            {request.commands.map((c, i) => (
              <li key={i}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function OtherDetails({ request }: { request: ApprovalRequest }) {
  return (
    <div className="other-details">
      <p>
        <span className="muted">Tool: </span>
        {request.words}
      </p>
      <pre className="json-input">{JSON.stringify(request.input, null, 2)}</pre>
    </div>
  );
}
