// Tokens and cost, this turn and this session, as the usage events report them.
import { useSession } from "../session";
import { formatCost, formatTokens } from "../format";
import type { Totals } from "../transcript";

function line(t: Totals): string {
  return `${formatTokens(t.input_tokens)} in · ${formatTokens(t.output_tokens)} out · ${formatCost(t.cost_usd)}`;
}

export function CostMeter() {
  const turn = useSession((s) => s.transcript.turn);
  const session = useSession((s) => s.transcript.session);
  const cacheRead = turn.cache_read_tokens;
  return (
    <div
      className="cost-meter"
      data-testid="cost-meter"
      title={`This turn: ${turn.input_tokens.toLocaleString()} input, ${turn.output_tokens.toLocaleString()} output${
        cacheRead ? `, ${cacheRead.toLocaleString()} read from cache` : ""
      } tokens.\nThis session: ${session.input_tokens.toLocaleString()} input, ${session.output_tokens.toLocaleString()} output tokens.\nModels on this computer cost nothing; “cost unknown” means Tandem has no price for the model.`}
    >
      <span>
        <span className="muted">Turn </span>
        <span data-testid="cost-turn">{line(turn)}</span>
      </span>
      <span>
        <span className="muted">Session </span>
        <span data-testid="cost-session">{line(session)}</span>
      </span>
    </div>
  );
}
