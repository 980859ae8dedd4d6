// A sub-agent in its parent's transcript: what it was asked, how it is doing, and its own live
// transcript, folded by default once it has finished.
import { useState } from "react";
import type { SubagentItem } from "../transcript";
import { TranscriptItem } from "./TranscriptItem";
import { formatCount } from "../format";

const STATUS: Record<SubagentItem["status"], string> = {
  running: "Working",
  done: "Finished",
  stopped: "Stopped",
  failed: "Failed",
};

export function SubagentCard({ item }: { item: SubagentItem }) {
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? item.status === "running";
  return (
    <div
      className={`subagent-card status-${item.status}`}
      data-testid="subagent-card"
      data-agent={item.agent}
      data-status={item.status}
    >
      <button className="subagent-header" onClick={() => setChosen(!open)} aria-expanded={open}>
        <span className={`tool-icon ${item.status === "running" ? "running" : item.status === "done" ? "done" : "failed"}`} aria-hidden />
        <span className="subagent-title">
          <strong>{item.background ? `Agent ${item.name}` : `Sub-agent: ${item.name}`}</strong>
          <span className="muted"> · {item.model}</span>
        </span>
        <span className="tool-status">{STATUS[item.status]}</span>
        {item.status !== "running" && (
          <span className="muted subagent-usage">
            {item.steps} steps · {formatCount(item.tokens)} tokens
          </span>
        )}
        <span className={open ? "chev open" : "chev"} aria-hidden />
      </button>
      {open && (
        <div className="subagent-body" data-testid="subagent-transcript">
          {/* Its transcript opens with the task as its first message; until then, say it here. */}
          {item.transcript.items.length === 0 && <p className="subagent-task muted">{item.task}</p>}
          {item.transcript.items.map((i) => (
            <TranscriptItem key={i.key} item={i} />
          ))}
        </div>
      )}
      {item.report && !open && (
        <p className="subagent-report" data-testid="subagent-report">
          {item.report}
        </p>
      )}
    </div>
  );
}
