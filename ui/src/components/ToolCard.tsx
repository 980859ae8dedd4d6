// One tool call in the transcript: what it does in plain words, its state, how long it took,
// what it came to in words for people (from the typed summary), and the text the model got,
// folded under "Details". A finishing call (task_done) the engine sent back is a quiet line,
// not a card.
import { CommandChanges } from "./CommandChanges";
import { createContext, memo, useContext, useEffect, useState } from "react";
import type { BackgroundTask, Confinement, OutputForm } from "../bindings";
import { useSession } from "../session";
import type { ToolItem, ToolStatus } from "../transcript";
import { CallTitle } from "./CallTitle";
import { formatDuration } from "../format";
import { summaryWords } from "../toolSummary";
import { AnsiText, ToolOutput } from "./ToolOutput";
import { Thumbnail } from "./Thumbnail";

/** Which cards the user opened or closed, kept while the virtual list unmounts them. */
export const ExpandedMemo = createContext<Map<string, boolean>>(new Map());

const STATUS: Record<ToolStatus, string> = {
  running: "Running",
  waiting: "Waiting for your approval",
  done: "Done",
  failed: "Failed",
  denied: "Denied",
  unfinished: "Not finished",
  background: "Running in the background",
  sent_back: "Sent back",
  repeated: "Stopped as a repeat",
};

/** The state in words; a failed command says how it ended, from its exit code; a background
 * one that has ended since says so, in the task list's words. */
function statusText(item: ToolItem, task: BackgroundTask | undefined): string {
  if (item.status === "background" && task && !task.running) return `Ended in the background · ${task.state}`;
  if (item.status === "failed" && item.exitCode !== null) return `Failed · exit code ${item.exitCode}`;
  if (isReport(item)) return "Reported";
  return STATUS[item.status];
}

/** A call that ends the task (task_done) and went through: the agent's own claims, not a
 * success the engine vouches for (the summary below it says whether anything contradicts
 * them), so it is not green. */
function isReport(item: ToolItem): boolean {
  return item.look.ends_task && item.status === "done";
}

const LONG_LINES = 12;
const LONG_CHARS = 1200;

function isLong(output: string): boolean {
  return output.length > LONG_CHARS || output.split("\n").length > LONG_LINES;
}

function Timer({ startedMs, endedMs, ticking }: { startedMs: number; endedMs: number | null; ticking: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [ticking]);
  if (!ticking && endedMs === null) return null;
  const ms = (ticking ? now : (endedMs ?? now)) - startedMs;
  if (!ticking && ms < 1000) return null;
  return (
    <span className="tool-timer" data-testid="tool-timer">
      {formatDuration(ms)}
    </span>
  );
}

/** Where a command ran, as the card's badge says it. */
export function confinementLabel(c: Confinement): { kind: string; label: string; help: string } {
  if (c.kind === "outside") {
    return c.reason === "approved"
      ? { kind: "outside", label: "outside the sandbox", help: "You approved running this command once with your own permissions." }
      : { kind: "outside", label: "not sandboxed", help: "This computer cannot sandbox commands: it ran with your own permissions." }
  }
  if (c.network) {
    return { kind: "network", label: "network", help: "Ran in the sandbox, with the network turned on for it." };
  }
  return {
    kind: "sandboxed",
    label: "sandboxed",
    help: c.read_only
      ? "Ran in the sandbox: read-only, no network."
      : "Ran in the sandbox: it could change only the project and a temporary folder, with no network.",
  };
}

/** What the agent said a command is for (its `description`), shown under its title as on its
 * approval card. */
function description(item: ToolItem): string | null {
  const input = item.input;
  if (input === null || typeof input !== "object" || Array.isArray(input)) return null;
  const d = (input as Record<string, unknown>).description;
  return typeof d === "string" && d.trim() !== "" ? d.trim() : null;
}

export const ToolCard = memo(function ToolCard({ item }: { item: ToolItem }) {
  if (item.status === "sent_back") return <SentBack item={item} />;
  if (item.status === "repeated") return <Repeated item={item} />;
  return <Card item={item} />;
});

/** A call Tandem stopped because the agent went round in circles: not a failure of the call,
 * a quiet line in people's words; what the agent was told is under Details. */
function Repeated({ item }: { item: ToolItem }) {
  return (
    <div className="tool-quiet repeated" data-testid="tool-repeated" data-id={item.id}>
      <span data-testid="tool-repeated-words">
        Tandem stopped a repeated step: <CallTitle title={item.title} /> again
        {item.summary ? ` — ${summaryWords(item.summary)}.` : "."}
      </span>
      {item.output && <Details output={item.output} form={item.look.output} />}
    </div>
  );
}

/** A task_done the engine sent back: the agent goes on, so it is a quiet line, with the words
 * the agent got under Details. */
function SentBack({ item }: { item: ToolItem }) {
  return (
    <div className="tool-quiet sent-back" data-testid="tool-sent-back" data-id={item.id}>
      <span data-testid="tool-sent-back-words">{item.summary ? summaryWords(item.summary) : "Not finished yet: the agent goes on."}</span>
      {item.output && <Details output={item.output} form={item.look.output} />}
    </div>
  );
}

/** The text the model got, folded: written for the model, kept for the curious. */
function Details({ form, output }: { form: OutputForm; output: string }) {
  return (
    <details className="tool-details" data-testid="tool-details">
      <summary>Details</summary>
      <ToolOutput form={form} output={output} />
    </details>
  );
}

function Card({ item }: { item: ToolItem }) {
  const memo = useContext(ExpandedMemo);
  const summary = item.summary;
  // What a person reads first: a command's own output when there is a summary; else the text.
  const shownOutput = summary?.kind === "command_ran" ? summary.output : null;
  const output = item.output ?? "";
  // Short results show; long ones, and file contents the agent read for itself, start folded.
  const task = useSession((s) => (item.task === null ? undefined : s.tasks.find((t) => t.id === item.task)));
  const quiet = item.look.quiet && item.status === "done";
  const defaultOpen =
    summary !== null
      ? shownOutput !== null && shownOutput !== "" && (!isLong(shownOutput) || item.status === "failed")
      : output !== "" && !quiet && (!isLong(output) || item.status === "failed");
  // Until the user folds or unfolds it, the card follows its output: short results show.
  const [chosen, setChosen] = useState<boolean | undefined>(() => memo.get(item.key));
  const open = chosen ?? defaultOpen;
  const setOpen = (v: boolean) => {
    memo.set(item.key, v);
    setChosen(v);
  };
  const ticking = item.status === "running" && item.startedMs !== null;
  const counted = shownOutput ?? (summary === null ? output : "");
  const lines = counted === "" ? 0 : counted.split("\n").length;
  return (
    <div
      className={`tool-card status-${item.status}`}
      data-testid="tool-card"
      data-status={item.status}
      data-kind={item.status}
      data-tool={item.name}
      data-id={item.id}
    >
      <button
        className="tool-header"
        onClick={() => output && setOpen(!open)}
        aria-expanded={output ? open : undefined}
        title={output ? (open ? "Hide the result" : "Show the result") : undefined}
      >
        <span className={`tool-icon ${isReport(item) ? "reported" : item.status}`} aria-hidden />
        <span className="tool-title">
          <CallTitle title={item.title} />
        </span>
        {/* A denied or refused call never ran: where it would have run no longer matters. */}
        {item.confinement && item.status !== "denied" && <ConfinementBadge confinement={item.confinement} />}
        <span className="tool-status" data-testid="tool-status" data-exit-code={item.exitCode ?? undefined}>
          {statusText(item, task)}
        </span>
        {summary && (
          <span className="tool-summary muted" data-testid="tool-summary" data-kind={summary.kind}>
            {summaryWords(summary)}
          </span>
        )}
        {item.startedMs !== null && <Timer startedMs={item.startedMs} endedMs={item.endedMs} ticking={ticking} />}
        {output && (
          <span className="tool-more muted">
            {!open && lines > 1 ? `${lines} lines ` : ""}
            <span className={open ? "chev open" : "chev"} aria-hidden />
          </span>
        )}
      </button>
      {description(item) && (
        <p className="tool-description muted" data-testid="tool-description">
          {description(item)}
        </p>
      )}
      {summary?.kind === "file_seen" && <Thumbnail picture={{ kind: "project", path: summary.path }} />}
      {summary?.kind === "page_fetched" && summary.picture && (
        <Thumbnail picture={{ kind: "fetched", name: summary.picture, url: summary.url }} />
      )}
      {summary?.kind === "command_ran" && summary.changes && <CommandChanges changes={summary.changes} />}
      {/* The person turned down a command's changes, with words: said on its card as for a
          denied call. */}
      {summary?.kind === "command_ran" && item.answer?.answer === "deny" && item.answer.message && (
        <p className="command-said muted" data-testid="command-said">
          You said no: “{item.answer.message}”
        </p>
      )}
      {item.status === "running" && task?.output_tail ? (
        <div className="tool-result live" data-testid="tool-live-output" aria-live="off">
          <AnsiText text={task.output_tail} />
        </div>
      ) : null}
      {open && output && summary === null && (
        <div className="tool-result" data-testid="tool-result">
          <ToolOutput form={item.look.output} output={output} />
        </div>
      )}
      {open && output && summary !== null && (
        <div className="tool-result" data-testid="tool-result">
          {shownOutput !== null &&
            (shownOutput === "" ? <p className="muted">It printed nothing.</p> : <AnsiText text={shownOutput} testId="tool-command-output" />)}
          <Details form={item.look.output} output={output} />
        </div>
      )}
    </div>
  );
}

function ConfinementBadge({ confinement }: { confinement: Confinement }) {
  const c = confinementLabel(confinement);
  return (
    <span className={`pill confinement ${c.kind}`} data-testid="tool-confinement" data-kind={c.kind} title={c.help}>
      {c.label}
    </span>
  );
}
