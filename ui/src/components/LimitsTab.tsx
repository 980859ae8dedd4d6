// Settings → Limits: what one session and one day (every session together) may spend on
// models. Money counts for models whose price is known; tokens for any model. At a limit the
// agent stops before its next model call, and the transcript offers to raise it for that
// session. Saved in settings.toml's [limits]; sessions running now get the new limits too.
import { useEffect, useState } from "react";
import type { SpendLimits } from "../bindings";
import { call, toAppError } from "../api";

type Field = keyof SpendLimits;

const FIELDS: Array<{ field: Field; label: string; unit: "usd" | "tokens"; testId: string }> = [
  { field: "session_usd", label: "Each session, in dollars", unit: "usd", testId: "limit-session-usd" },
  { field: "day_usd", label: "Each day, in dollars", unit: "usd", testId: "limit-day-usd" },
  { field: "session_tokens", label: "Each session, in tokens", unit: "tokens", testId: "limit-session-tokens" },
  { field: "day_tokens", label: "Each day, in tokens", unit: "tokens", testId: "limit-day-tokens" },
];

type Draft = Record<Field, string>;

function toDraft(l: SpendLimits): Draft {
  const text = (v: number | undefined) => (v === undefined || v === null ? "" : String(v));
  return {
    session_usd: text(l.session_usd),
    day_usd: text(l.day_usd),
    session_tokens: text(l.session_tokens),
    day_tokens: text(l.day_tokens),
  };
}

/** The limits a draft stands for, or what is wrong with it in words. */
export function parseLimits(d: Draft): SpendLimits | string {
  const out: SpendLimits = {};
  for (const { field, label, unit } of FIELDS) {
    const raw = d[field].trim().replace(/^\$/, "").replace(/,/g, "");
    if (raw === "") continue;
    const v = Number(raw);
    if (!Number.isFinite(v) || v <= 0) return `${label}: type an amount above 0, or leave it empty for no limit.`;
    if (unit === "tokens" && !Number.isInteger(v)) return `${label}: tokens are whole numbers.`;
    out[field] = v;
  }
  return out;
}

export function LimitsTab() {
  const [saved, setSaved] = useState<SpendLimits | null>(null);
  const [draft, setDraft] = useState<Draft>(toDraft({}));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  useEffect(() => {
    call("get_limits")
      .then((l) => {
        setSaved(l);
        setDraft(toDraft(l));
      })
      .catch((err) => setError(toAppError(err).message));
  }, []);

  const parsed = parseLimits(draft);
  const dirty = saved !== null && JSON.stringify(toDraft(saved)) !== JSON.stringify(draft);

  const save = async () => {
    if (typeof parsed === "string") return;
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const l = await call("save_limits", parsed);
      setSaved(l);
      setDraft(toDraft(l));
      setNote(Object.keys(l).length === 0 ? "Saved: no limits." : "Saved. Sessions running now use these limits too.");
    } catch (err) {
      setError(`Not saved: ${toAppError(err).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="settings-section limits" data-testid="limits-settings">
      <p className="muted">
        Stop the agent before it spends more than this. Dollars count for models whose price Tandem knows; tokens count
        for every model, the ones on this computer too. The day is every session together (UTC). When a limit is reached
        you see what was spent and can raise it for that session.
      </p>
      {FIELDS.map(({ field, label, unit, testId }) => (
        <label className="field" key={field}>
          <span>{label}</span>
          <input
            data-testid={testId}
            inputMode={unit === "usd" ? "decimal" : "numeric"}
            placeholder="No limit"
            value={draft[field]}
            onChange={(e) => setDraft({ ...draft, [field]: e.target.value })}
            aria-invalid={typeof parsed === "string" && parsed.startsWith(label) ? true : undefined}
            aria-describedby={field === "session_tokens" ? "limit-tokens-hint" : undefined}
          />
          {/* Under the row it explains, across both columns: in the control's column it
              pushed the box onto a line of its own. */}
          {field === "session_tokens" && (
            <small className="muted" id="limit-tokens-hint" data-testid="limit-tokens-hint">
              A token is a piece of a word, about ¾ of a word of English: a million tokens is some 750,000 words the
              model reads or writes. Models read the whole conversation again at every step, so a session of an hour
              can use a few million.
            </small>
          )}
        </label>
      ))}
      {typeof parsed === "string" && (
        <p className="error small" role="alert" data-testid="limits-problem">
          {parsed}
        </p>
      )}
      <div className="actions">
        <button
          data-testid="save-limits"
          className="primary"
          disabled={busy || !dirty || typeof parsed === "string"}
          onClick={() => void save()}
        >
          {busy ? "Saving…" : "Save limits"}
        </button>
      </div>
      {note && (
        <p className="muted small" role="status" data-testid="limits-note">
          {note}
        </p>
      )}
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
