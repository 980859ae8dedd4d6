// Settings → Rules: the rules in force for the open project, as Rust words them. Whether the
// project's own rules file is trusted; the user's own rules, each with the project it applies
// to, to change or remove, and a form to add one; the defaults (the mode new sessions start in,
// the limits on how much a session changes); then the built-in rules in groups; then what holds
// in every mode.
import { useEffect, useState } from "react";
import type { OwnRule, RuleKey, RulesView } from "../bindings";
import { call, toAppError } from "../api";
import { RuleDefaults } from "./RuleDefaults";
import { RuleForm } from "./RuleForm";

/** Where one of the user's rules applies, from where it is kept. */
function appliesTo(key: RuleKey, root: string): string {
  if (key.file === "project") return "This project (its own rules file)";
  if (key.project === null) return "All projects";
  if (key.project === root) return "This project";
  return key.project;
}

function sameRule(a: RuleKey, b: RuleKey): boolean {
  return a.file === b.file && a.project === b.project && a.list === b.list && a.value === b.value;
}

export function RulesTab({ root }: { root: string | null }) {
  const [rules, setRules] = useState<RulesView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  // The form: closed, adding a rule ("new"), or changing the rule named.
  const [form, setForm] = useState<RuleKey | "new" | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (!root) return;
    let live = true;
    call("policy_rules", { root })
      .then((r) => live && setRules(r))
      .catch((err: unknown) => live && setError(`The rules could not be read: ${toAppError(err).message}`));
    return () => {
      live = false;
    };
  }, [root]);
  if (!root) return <p className="muted">Open a project to see the rules that apply to it.</p>;
  if (!rules && error) return <div className="banner error" role="alert">{error}</div>;
  if (!rules) return <p className="muted">Loading the rules…</p>;

  const remove = async (rule: OwnRule) => {
    setRemoving(rule.rule);
    setError(null);
    try {
      setRules(await call("remove_rule", { root, rule: rule.key }));
    } catch (err) {
      setError(`The rule was not removed: ${toAppError(err).message}`);
    } finally {
      setRemoving(null);
    }
  };

  const save = async (rule: RuleKey) => {
    setSaving(true);
    setError(null);
    try {
      const replacing = form !== "new" && form !== null ? form : undefined;
      setRules(await call("add_rule", { root, rule, replacing }));
      setForm(null);
    } catch (err) {
      setError(`The rule was not saved: ${toAppError(err).message}`);
    } finally {
      setSaving(false);
    }
  };

  const trust = async (trusted: boolean) => {
    setSaving(true);
    setError(null);
    try {
      setRules(await call("trust_project", { root, trusted }));
    } catch (err) {
      setError(`The project's trust was not changed: ${toAppError(err).message}`);
    } finally {
      setSaving(false);
    }
  };

  const formFor = (key: RuleKey | "new") => (
    <RuleForm
      key={key === "new" ? "new" : `${key.file} ${key.project ?? ""} ${key.list} ${key.value}`}
      root={root}
      tools={rules.tools}
      editing={key === "new" ? null : key}
      saving={saving}
      onSave={(rule) => void save(rule)}
      onCancel={() => setForm(null)}
    />
  );

  return (
    <section className="settings-section rules" data-testid="rules">
      <p className="muted">
        What the agent may do without asking, what it asks about first and what it never does. Answering “Always
        allow … in this project” on a question adds one of your rules here. Your rules are kept in your own rules
        file, never in the project's folder, so a project you download cannot give itself permissions.
      </p>
      {error && (
        <div className="banner error" role="alert">
          {error}
        </div>
      )}
      <div className="rule-group trust">
        <label className="trust-project">
          <input
            type="checkbox"
            data-testid="trust-project"
            checked={rules.trusted}
            disabled={saving}
            onChange={(e) => void trust(e.target.checked)}
          />
          <span>
            <strong>Trust this project</strong>
            <span className="muted">
              {" "}
              Its own rules file (.tandem/policy.toml) may then loosen your rules — run commands or fetch sites without
              asking. Untrusted, it may only make them stricter. Trust only projects you or your team control.
            </span>
          </span>
        </label>
      </div>
      <RuleDefaults root={root} defaults={rules.defaults} onSaved={setRules} />
      <div className="rule-group yours" data-testid="own-rules">
        <div className="rule-group-head">
          <h2>Your rules</h2>
          {form === null && (
            <button className="link-button" data-testid="rule-add" onClick={() => setForm("new")}>
              Add a rule
            </button>
          )}
        </div>
        {form === "new" && formFor("new")}
        {rules.yours.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <ul>
            {rules.yours.map((r) =>
              form !== null && form !== "new" && sameRule(form, r.key) ? (
                <li key="editing">{formFor(r.key)}</li>
              ) : (
                <li key={`${r.key.file} ${r.key.project ?? ""} ${r.key.list} ${r.key.value}`} data-testid="own-rule" title={r.rule}>
                  <span className="rule-words">{r.words}</span>
                  <span className="muted rule-where">{appliesTo(r.key, root)}</span>
                  <button
                    className="link-button"
                    data-testid="rule-edit"
                    disabled={removing !== null || form !== null}
                    onClick={() => setForm(r.key)}
                    aria-label={`Change: ${r.words}`}
                  >
                    Change
                  </button>
                  <button
                    className="link-button"
                    data-testid="rule-remove"
                    disabled={removing !== null || form !== null}
                    onClick={() => void remove(r)}
                    aria-label={`Remove: ${r.words}`}
                  >
                    {removing === r.rule ? "Removing…" : "Remove"}
                  </button>
                </li>
              ),
            )}
          </ul>
        )}
      </div>
      <div className="rule-group" data-testid="rule-limits">
        <h2>In every mode, Full auto too</h2>
        <ul>
          {rules.limits.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      </div>
      {rules.groups.map((g) => (
        <div key={g.title} className="rule-group" data-testid="rule-group" data-kind={g.kind}>
          <h2>{g.title}</h2>
          <p className="rule-items">{g.items.join(", ")}</p>
        </div>
      ))}
      {rules.notes.length > 0 && (
        <div className="rule-group">
          <h2>Left out</h2>
          <ul>
            {rules.notes.map((n) => (
              <li key={n} className="muted">
                {n}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
