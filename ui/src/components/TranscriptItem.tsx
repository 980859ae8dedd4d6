// One entry of the transcript, by kind.
import { memo } from "react";
import type { TurnOutcome, WakeReason } from "../bindings";
import type { TranscriptItem as Item } from "../transcript";
import { DoneSummary } from "./DoneSummary";
import { ErrorNote } from "./ErrorNote";
import { Markdown } from "./lazy";
import { SubagentCard } from "./SubagentCard";
import { ToolCard } from "./ToolCard";

function wakeText(r: WakeReason): string {
  switch (r.kind) {
    case "task_finished":
      return r.state === "reported" ? `${r.title} reported back` : `Background task ${r.title} ended: ${r.state}`;
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
      return { text: `Stopped: the token budget is spent (${o.used.toLocaleString()} tokens used).`, tone: "warn" };
    case "cancelled":
      return { text: "Stopped by you.", tone: "muted" };
    case "failed":
      return { text: o.error.message, tone: "error" };
  }
}

export const TranscriptItem = memo(function TranscriptItem({ item }: { item: Item }) {
  switch (item.kind) {
    case "user":
      return (
        <div className="msg user" data-testid="message-user">
          <div className="bubble">{item.text}</div>
        </div>
      );
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
      return <ErrorNote error={item.error} testId="transcript-error" />;
    case "done":
      return <DoneSummary summary={item.summary} warnings={item.warnings} />;
    case "outcome": {
      if (item.outcome.kind === "failed") return <ErrorNote error={item.outcome.error} testId="transcript-error" />;
      const { text, tone } = outcomeText(item.outcome);
      return (
        <div className={`outcome ${tone}`} data-testid="turn-outcome" data-kind={item.outcome.kind}>
          {text}
        </div>
      );
    }
  }
});
