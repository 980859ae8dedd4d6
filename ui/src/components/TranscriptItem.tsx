// One entry of the transcript, by kind.
import { memo } from "react";
import type { TurnOutcome, WakeReason } from "../bindings";
import { shownPath, formatCount } from "../format";
import type { TranscriptItem as Item } from "../transcript";
import { reasonWords, restoredText } from "../restore";
import { useSession } from "../session";
import { DoneSummary } from "./DoneSummary";
import { LimitCard, limitText } from "./LimitCard";
import { ErrorNote } from "./ErrorNote";
import { Markdown } from "./lazy";
import { SubagentCard } from "./SubagentCard";
import { ToolCard } from "./ToolCard";

function wakeText(r: WakeReason): string {
  switch (r.kind) {
    case "task_finished":
      return r.state === "reported" ? `${r.title} reported back` : `Background task ${r.title} ended: ${r.state}`;
    case "changes_asked":
      return `You asked to review what ${r.title} changed so far (it goes on running)`;
    case "timer":
      return r.hint ? `Woke up as planned: ${r.hint}` : "Woke up as planned";
    case "retry":
      return "Trying again";
  }
}

function outcomeText(o: TurnOutcome): { text: string; tone: "muted" | "warn" | "error" } {
  switch (o.kind) {
    case "done":
      return { text: `Done: ${o.summary}`, tone: "muted" };
    case "ended":
      return { text: "The turn ended.", tone: "muted" };
    case "paused":
      return { text: `Paused: ${o.reason}. Send a message to tell the agent how to go on.`, tone: "warn" };
    case "step_limit":
      return { text: "Stopped at the step limit. Send a message to let it continue.", tone: "warn" };
    case "budget_spent":
      return { text: `Stopped: the token budget is spent (${formatCount(o.used)} tokens used).`, tone: "warn" };
    case "limit_reached":
      return { text: limitText(o.reached), tone: "warn" };
    case "cancelled":
      return { text: "Stopped by you.", tone: "muted" };
    case "failed":
      return { text: o.error.message, tone: "error" };
  }
}

/** A line whose `backticked` parts (a command in a pause's reason) are set as code, as a
 * call's title sets them, instead of showing the backticks. */
function CodeSpans({ text }: { text: string }) {
  const parts = text.split("`");
  // An odd count of backticks leaves one unpaired: the text is shown as it is.
  if (parts.length % 2 === 0) return <>{text}</>;
  return <>{parts.map((p, i) => (i % 2 === 1 ? <code key={i}>{p}</code> : p))}</>;
}

export const TranscriptItem = memo(function TranscriptItem({ item }: { item: Item }) {
  switch (item.kind) {
    case "user":
      return <UserMessage item={item} />;
    case "restored":
      return <Restored item={item} />;
    case "assistant":
      return (
        <div className={item.streaming ? "msg assistant streaming" : "msg assistant"} data-testid="message-assistant">
          <Markdown text={item.text} />
        </div>
      );
    case "thinking":
      return (
        <details className="thinking" data-testid="thinking">
          <summary>{item.streaming ? "Thinking…" : "Thinking"}</summary>
          <div className="thinking-text">{item.text}</div>
        </details>
      );
    case "tool":
      return <ToolCard item={item} />;
    case "subagent":
      return <SubagentCard item={item} />;
    case "wake":
      return (
        <div className="wake" data-testid="wake" data-kind={item.reason.kind}>
          {wakeText(item.reason)}
        </div>
      );
    case "notice":
      return (
        <div className="notice" data-testid="notice">
          {item.text.charAt(0).toUpperCase() + item.text.slice(1)}
        </div>
      );
    case "context":
      return (
        <div className="notice context-warning" data-testid="context-warning" role="status">
          This conversation fills {item.usedPercent}% of the model's context. Past {item.compactAt}%, Tandem
          summarises the older turns so the work can go on; you will see what the summary replaced.
        </div>
      );
    case "compacted":
      return <Compacted item={item} />;
    case "skill":
      return (
        <div className="skill-activated" data-testid="skill-activated" data-skill={item.name} data-activation={item.activation.kind}>
          <span>
            Skill <strong>{item.name}</strong> activated
          </span>
          <span className="muted">
            {item.activation.kind === "trigger"
              ? ` — your task mentions “${item.activation.trigger}”`
              : " — the agent asked for it"}
            {item.tools.length > 0 ? `; its tools: ${item.tools.join(", ")}` : ""}
          </span>
        </div>
      );
    case "error":
      return <ErrorNote error={item.error} testId="transcript-error" failure={item.failure} />;
    case "done":
      return <DoneSummary summary={item.summary} warnings={item.warnings} />;
    case "outcome": {
      if (item.outcome.kind === "failed")
        return <ErrorNote error={item.outcome.error} testId="transcript-error" failure={item.failure} />;
      if (item.outcome.kind === "limit_reached")
        return <LimitCard reached={item.outcome.reached} live={item.failure === "live"} />;
      const { text, tone } = outcomeText(item.outcome);
      return (
        <div className={`outcome ${tone}`} data-testid="turn-outcome" data-kind={item.outcome.kind}>
          <CodeSpans text={text} />
        </div>
      );
    }
  }
});

type UserItem = Extract<Item, { kind: "user" }>;

/** The key of the last message of the user's, which has Undo. */
function lastUserKey(items: Item[]): string | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it?.kind === "user") return it.key;
  }
  return null;
}

/** Words for what a message's turn began with, for the restore card's title. */
function quoted(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}

/** A message of the user's, with "Restore to here" (and Undo on the last one). */
function UserMessage({ item }: { item: UserItem }) {
  const isLast = useSession((s) => lastUserKey(s.transcript.items) === item.key);
  const idle = useSession((s) => s.runningSession === null && !s.restoring && s.current !== null);
  const askRestore = useSession((s) => s.askRestore);
  const undo = useSession((s) => s.undo);
  const checkpoint = item.checkpoint;
  return (
    <div className="msg user" data-testid="message-user">
      {checkpoint !== null && (
        <div className={isLast ? "msg-actions last" : "msg-actions"} data-testid="message-actions">
          {isLast && (
            <button
              className="link-button"
              data-testid="undo-button"
              disabled={!idle}
              onClick={() => void undo(checkpoint, item.text, `Undo “${quoted(item.text)}”`)}
              title="Undo this turn: the files and the conversation go back to before it (the undo can be undone)"
            >
              ↶ Undo
            </button>
          )}
          <button
            className="link-button"
            data-testid="restore-button"
            disabled={!idle}
            onClick={() =>
              askRestore({
                target: { kind: "checkpoint", id: checkpoint },
                scopes: ["both", "files_only", "conversation_only"],
                paths: null,
                title: `before “${quoted(item.text)}”`,
                text: item.text,
              })
            }
            title="Bring back the files, the conversation or both as they were when you sent this"
          >
            Restore to here…
          </button>
        </div>
      )}
      <div className="bubble">{item.text}</div>
    </div>
  );
}

/** A restore that happened, with the way to undo it. */
function Restored({ item }: { item: Extract<Item, { kind: "restored" }> }) {
  const idle = useSession((s) => s.runningSession === null && !s.restoring && s.current !== null);
  const restore = useSession((s) => s.restore);
  const setDraft = useSession((s) => s.setDraft);
  const r = item.record;
  return (
    <div className="restored-note" data-testid="restored" data-scope={r.scope}>
      <div className="restored-line">
        <span aria-hidden>↺</span>
        <span>{restoredText(r)}</span>
        <button
          className="link-button"
          data-testid="undo-restore"
          disabled={!idle}
          onClick={() =>
            void restore({ kind: "checkpoint", id: r.undo_checkpoint }, r.scope, null).then(
              (done) => done && r.scope !== "files_only" && setDraft(null),
            )
          }
          title="Put back what this restore changed"
        >
          Undo this restore
        </button>
      </div>
      {r.files.length > 0 && (
        <p className="muted restored-files" data-testid="restored-files">
          Changed back:{" "}
          {r.files.slice(0, 5).map((f, i) => (
            <span key={f}>
              {i > 0 && ", "}
              <code>{shownPath(f)}</code>
            </span>
          ))}
          {r.files.length > 5 && ` and ${r.files.length - 5} more`}.
        </p>
      )}
      {r.not_restorable.length > 0 && (
        <ul className="muted restored-kept">
          {r.not_restorable.map((n) => (
            <li key={n.path}>
              <code>{shownPath(n.path)}</code> stays as it is: {reasonWords(n.reason)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

type CompactedItem = Extract<Item, { kind: "compacted" }>;

/** Where older turns were summarised: the summary, what it replaced, and the way back. */
function Compacted({ item }: { item: CompactedItem }) {
  const idle = useSession((s) => s.runningSession === null && !s.restoring && s.current !== null);
  const askRestore = useSession((s) => s.askRestore);
  const checkpoint = item.checkpoint;
  return (
    <details className="compaction-marker" data-testid="compaction-marker">
      <summary>
        Earlier messages summarised{" "}
        <span className="muted">
          ({item.before} messages → {item.after}, to fit the model's context)
        </span>
      </summary>
      <div className="compaction-body">
        <h4>The summary the model has now</h4>
        <div className="compaction-summary" data-testid="compaction-summary">
          {item.summary}
        </div>
        <h4>What it replaced</h4>
        <ul className="compaction-dropped" data-testid="compaction-dropped">
          {item.dropped.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
        </ul>
        {checkpoint !== null && (
          <button
            className="small"
            data-testid="compaction-undo"
            disabled={!idle}
            onClick={() =>
              askRestore({
                target: { kind: "checkpoint", id: checkpoint },
                scopes: ["conversation_only", "both"],
                paths: null,
                title: item.turnText ? `before “${quoted(item.turnText)}”, when nothing was summarised` : "before this turn",
                text: item.turnText,
              })
            }
            title="Take the conversation back to before this turn, when nothing was summarised (the files stay as they are unless you choose otherwise)"
          >
            Undo the summary…
          </button>
        )}
      </div>
    </details>
  );
}
