// Settings → Rules → Defaults: the mode new sessions start in, and the two limits on how much a
// session may change (beyond the first, every change asks; beyond the second, changes are
// refused) — settable only in the rules file's TOML before. Kept in your own rules file.
import { useState } from "react";
import type { Mode, PolicyDefault, PolicyDefaults, RulesView } from "../bindings";
import { call, toAppError } from "../api";
import { MODES } from "./ModeSelect";

type Draft = { mode: Mode; askAbove: string; maxLines: string };

function draftOf(d: PolicyDefaults): Draft {
  return { mode: d.mode, askAbove: String(d.require_approval_above), maxLines: String(d.max_diff_lines) };
}

/** The settings a draft changes, or what is wrong with it in words. */
export function defaultsToSave(saved: PolicyDefaults, d: Draft): PolicyDefault[] | string {
  const lines = (raw: string, what: string): number | string => {
    const v = Number(raw.trim().replace(/,/g, ""));
    return Number.isInteger(v) && v > 0 ? v : `${what}: type a whole number of lines above 0.`;
  };
  const askAbove = lines(d.askAbove, "Ask before every change beyond");
  if (typeof askAbove === "string") return askAbove;
  const maxLines = lines(d.maxLines, "Refuse changes beyond");
  if (typeof maxLines === "string") return maxLines;
  if (askAbove > maxLines) return "Asking must start before changes are refused: make the first number at most the second.";
  const out: PolicyDefault[] = [];
  if (d.mode !== saved.mode) out.push({ kind: "mode", value: d.mode });
  if (askAbove !== saved.require_approval_above) out.push({ kind: "require_approval_above", value: askAbove });
  if (maxLines !== saved.max_diff_lines) out.push({ kind: "max_diff_lines", value: maxLines });
  return out;
}

export function RuleDefaults({ root, defaults, onSaved }: { root: string; defaults: PolicyDefaults; onSaved: (r: RulesView) => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(defaults));
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const changes = defaultsToSave(defaults, draft);

  const save = async () => {
    if (typeof changes === "string" || changes.length === 0) return;
    setSaving(true);
    setError(null);
    setNote(null);
    try {
      let view: RulesView | null = null;
      for (const setting of changes) view = await call("set_policy_default", { root, setting });
      if (view) {
        onSaved(view);
        setDraft(draftOf(view.defaults));
        const held = view.defaults;
        const wanted = defaultsToSave(held, draft);
        setNote(
          Array.isArray(wanted) && wanted.length > 0
            ? "Saved in your rules file; this project's own rules file sets a stricter value, which stays in force here."
            : "Saved. New sessions use these; a running one keeps what it started with.",
        );
      }
    } catch (err) {
      setError(`Not saved: ${toAppError(err).message}`);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="rule-group defaults" data-testid="rule-defaults">
      <h2>Defaults</h2>
      <label className="field">
        <span>New sessions start in</span>
        <select
          data-testid="default-mode"
          value={draft.mode}
          onChange={(e) => setDraft({ ...draft, mode: e.target.value as Mode })}
        >
          {MODES.map((m) => (
            <option key={m.mode} value={m.mode}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Ask before every change once a session has changed more than this many lines, in any mode</span>
        <input
          data-testid="ask-above-lines"
          inputMode="numeric"
          value={draft.askAbove}
          onChange={(e) => setDraft({ ...draft, askAbove: e.target.value })}
        />
      </label>
      <label className="field">
        <span>Refuse changes once a session has changed more than this many lines</span>
        <input
          data-testid="max-diff-lines"
          inputMode="numeric"
          value={draft.maxLines}
          onChange={(e) => setDraft({ ...draft, maxLines: e.target.value })}
        />
      </label>
      {typeof changes === "string" && (
        <p className="error small" role="alert" data-testid="defaults-problem">
          {changes}
        </p>
      )}
      <div className="actions">
        <button
          className="primary"
          data-testid="save-defaults"
          disabled={saving || typeof changes === "string" || changes.length === 0}
          onClick={() => void save()}
        >
          {saving ? "Saving…" : "Save defaults"}
        </button>
      </div>
      {note && (
        <p className="muted small" role="status" data-testid="defaults-note">
          {note}
        </p>
      )}
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
