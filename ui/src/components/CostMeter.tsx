// Tokens and cost, this turn and this session, as the usage events report them.
import { useSession } from "../session";
import { formatCost, formatTokens, formatUsd, formatCount } from "../format";
import type { Totals } from "../transcript";
import type { SpendLimits } from "../bindings";

function line(t: Totals): string {
  return `${formatTokens(t.input_tokens)} in · ${formatTokens(t.output_tokens)} out · ${formatCost(t.cost_usd)}`;
}

/** The limits in force, in words ("limit $5.00 · today $20.00"), or null when there are none. */
export function limitLine(l: SpendLimits): string | null {
  const parts: string[] = [];
  if (l.session_usd !== undefined) parts.push(`limit ${formatUsd(l.session_usd)}`);
  if (l.session_tokens !== undefined) parts.push(`limit ${formatTokens(l.session_tokens)} tokens`);
  if (l.day_usd !== undefined) parts.push(`today ${formatUsd(l.day_usd)}`);
  if (l.day_tokens !== undefined) parts.push(`today ${formatTokens(l.day_tokens)} tokens`);
  return parts.length ? parts.join(" · ") : null;
}

export function CostMeter() {
  const turn = useSession((s) => s.transcript.turn);
  const session = useSession((s) => s.transcript.session);
  const spend = useSession((s) => s.spend);
  const limits = spend ? limitLine(spend.limits) : null;
  const cacheRead = turn.cache_read_tokens;
  return (
    <div
      className="cost-meter"
      data-testid="cost-meter"
      title={`This turn: ${formatCount(turn.input_tokens)} input, ${formatCount(turn.output_tokens)} output${
        cacheRead ? `, ${formatCount(cacheRead)} read from cache` : ""
      } tokens.\nThis session: ${formatCount(session.input_tokens)} input, ${formatCount(session.output_tokens)} output tokens.\nModels on this computer cost nothing; “cost unknown” means Tandem has no price for the model.`}
    >
      <span>
        <span className="muted">Turn </span>
        <span data-testid="cost-turn">{line(turn)}</span>
      </span>
      <span>
        <span className="muted">Session </span>
        <span data-testid="cost-session">{line(session)}</span>
      </span>
      {limits && spend && (
        <span
          data-testid="cost-limit"
          title={`Spent today, every session together: ${formatUsd(spend.day_usd)}, ${formatCount(spend.day_tokens)} tokens. Change the limits in Settings → Limits.`}
        >
          <span className="muted">{limits}</span>
        </span>
      )}
    </div>
  );
}
