// Where a spending limit stopped a turn: what was spent against which limit, and — while
// nothing came after it — a way to raise that limit for this session and go on.
import { useState } from "react";
import type { Amount, LimitReached, SpendLimits } from "../bindings";
import { formatTokens, formatUsd } from "../format";
import { useSession } from "../session";

function amountText(a: Amount): string {
  return a.unit === "usd" ? formatUsd(a.usd) : `${formatTokens(a.tokens)} tokens`;
}

export function limitText(r: LimitReached): string {
  const whose = r.scope === "session" ? "this session's" : "today's";
  return `Stopped before the next model call: ${whose} limit of ${amountText(r.limit)} is reached (${amountText(r.spent)} spent).`;
}

/** A limit above what was spent: double the old one, at least what was spent and a bit. */
function suggested(r: LimitReached): string {
  if (r.limit.unit === "usd" && r.spent.unit === "usd") {
    return Math.max(r.limit.usd * 2, r.spent.usd + 1).toFixed(2);
  }
  if (r.limit.unit === "tokens" && r.spent.unit === "tokens") {
    return String(Math.max(r.limit.tokens * 2, r.spent.tokens + 10_000));
  }
  return "";
}

/** The limits with the one that was reached set to `value`. */
function raised(base: SpendLimits, r: LimitReached, value: number): SpendLimits {
  const key =
    r.limit.unit === "usd"
      ? r.scope === "session"
        ? "session_usd"
        : "day_usd"
      : r.scope === "session"
        ? "session_tokens"
        : "day_tokens";
  return { ...base, [key]: value };
}

export function LimitCard({ reached, live }: { reached: LimitReached; live: boolean }) {
  const spend = useSession((s) => s.spend);
  const busy = useSession((s) => s.runningSession !== null);
  const raiseLimits = useSession((s) => s.raiseLimits);
  const [value, setValue] = useState(() => suggested(reached));
  const usd = reached.limit.unit === "usd";
  const parsed = Number(value.trim().replace(/^\$/, ""));
  const spent = reached.spent.unit === "usd" ? reached.spent.usd : reached.spent.tokens;
  const valid = Number.isFinite(parsed) && parsed > spent && (usd || Number.isInteger(parsed));
  return (
    <div className="outcome warn limit-card" data-testid="turn-outcome" data-kind="limit_reached" role={live ? "alert" : undefined}>
      <p>{limitText(reached)}</p>
      {live && (
        <form
          className="limit-raise"
          onSubmit={(e) => {
            e.preventDefault();
            if (valid) void raiseLimits(raised(spend?.limits ?? {}, reached, parsed));
          }}
        >
          <label>
            <span>{reached.scope === "session" ? "New limit for this session" : "New limit for today, for this session"}</span>
            <input
              data-testid="raise-limit-amount"
              inputMode={usd ? "decimal" : "numeric"}
              value={value}
              onChange={(e) => setValue(e.target.value)}
              aria-invalid={!valid || undefined}
            />
            <span className="muted">{usd ? "dollars" : "tokens"}</span>
          </label>
          <button type="submit" className="small primary" data-testid="raise-limit" disabled={!valid || busy}>
            Raise and go on
          </button>
          {!valid && <span className="muted small">Type more than what was spent.</span>}
        </form>
      )}
    </div>
  );
}
