// Settings, full window: model providers and their keys, which model does what, and the
// policy rules in force. Esc closes.
import { useEffect, useMemo, useState } from "react";
import type { FailureCode, PolicyRuleView, ProviderKind, ProviderView, RoleView, SettingsView } from "../bindings";
import { call, toAppError } from "../api";
import { useApp } from "../store";
import { nextStep } from "../errors";

type Tab = "providers" | "models" | "rules";

export const ROLES: Array<{ role: string; label: string; help: string }> = [
  { role: "default", label: "Default", help: "Does the work unless another role is set." },
  { role: "fast", label: "Fast", help: "Quick, cheap jobs: titles, summaries, compaction." },
  { role: "coder", label: "Coder", help: "Writing and editing code." },
  { role: "architect", label: "Architect", help: "Planning larger changes." },
];

type ProviderDraft = {
  /** Stable key for React while the name is edited. */
  uid: number;
  name: string;
  kind: ProviderKind;
  base_url: string;
  num_ctx: string;
  /** A key typed here, saved with Save; never the stored one. */
  key: string;
  key_source: string | null;
  saved: boolean;
  test: { status: "idle" | "testing" } | { status: "ok"; models: string[] } | { status: "error"; message: string; failure: FailureCode | null };
};

let uid = 0;

function draftOf(p: ProviderView): ProviderDraft {
  uid += 1;
  return {
    uid,
    name: p.name,
    kind: p.kind,
    base_url: p.base_url ?? "",
    num_ctx: p.num_ctx === null ? "" : String(p.num_ctx),
    key: "",
    key_source: p.key_source,
    saved: true,
    test: { status: "idle" },
  };
}

function rolesOf(settings: SettingsView): RoleView[] {
  return ROLES.map(
    ({ role }) => settings.roles.find((r) => r.role === role) ?? { role, provider: "", model: "" },
  );
}

const NEW_PROVIDERS: Array<{ label: string; name: string; kind: ProviderKind; base_url: string }> = [
  { label: "Anthropic", name: "anthropic", kind: "anthropic", base_url: "" },
  { label: "OpenAI", name: "openai", kind: "openai", base_url: "" },
  { label: "OpenAI-compatible (Ollama, llama.cpp, …)", name: "local", kind: "openai", base_url: "http://127.0.0.1:11434/v1" },
];

function uniqueName(base: string, taken: string[]): string {
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}-${i}`)) return `${base}-${i}`;
}

function Problem({ message, failure = null }: { message: string; failure?: FailureCode | null }) {
  const hint = nextStep(failure);
  return (
    <div className="banner error" role="alert">
      <span>{message}</span>
      {hint && <span className="next-step">{hint.text}</span>}
    </div>
  );
}

export function SettingsDialog() {
  const settings = useApp((s) => s.settings);
  const loadError = useApp((s) => s.settingsError);
  const setSettings = useApp((s) => s.setSettings);
  const loadSettings = useApp((s) => s.loadSettings);
  const close = useApp((s) => s.setSettingsOpen);
  const screen = useApp((s) => s.screen);
  const root = screen.kind === "project" ? screen.project.root : null;
  const [tab, setTab] = useState<Tab>("providers");
  const [providers, setProviders] = useState<ProviderDraft[]>(() => settings?.providers.map(draftOf) ?? []);
  const [roles, setRoles] = useState<RoleView[]>(() => (settings ? rolesOf(settings) : []));
  const [allowFile, setAllowFile] = useState(settings?.keychain.file_fallback ?? false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [savedNote, setSavedNote] = useState<string | null>(null);

  useEffect(() => {
    if (!settings) void loadSettings();
  }, [settings, loadSettings]);

  // The settings arrived after the dialog opened: start the drafts from them.
  const [seeded, setSeeded] = useState(settings !== null);
  if (!seeded && settings) {
    setSeeded(true);
    setProviders(settings.providers.map(draftOf));
    setRoles(rolesOf(settings));
    setAllowFile(settings.keychain.file_fallback);
  }

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        close(false);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [close]);

  const names = providers.map((p) => p.name.trim());
  const problems = useMemo(() => {
    const out: string[] = [];
    if (names.some((n) => n === "")) out.push("Every provider needs a name.");
    if (new Set(names).size !== names.length) out.push("Two providers have the same name.");
    for (const r of roles) {
      if ((r.provider === "") !== (r.model.trim() === "")) {
        out.push(`The ${r.role} role needs both a provider and a model.`);
      } else if (r.provider && !names.includes(r.provider)) {
        out.push(`The ${r.role} role uses “${r.provider}”, which is not in the list.`);
      }
    }
    return out;
  }, [names, roles]);

  const update = (uidOf: number, change: Partial<ProviderDraft>) =>
    setProviders((ps) => ps.map((p) => (p.uid === uidOf ? { ...p, ...change } : p)));

  const rename = (draft: ProviderDraft, name: string) => {
    update(draft.uid, { name });
    setRoles((rs) => rs.map((r) => (r.provider === draft.name ? { ...r, provider: name } : r)));
  };

  const add = (template: (typeof NEW_PROVIDERS)[number]) => {
    uid += 1;
    setProviders((ps) => [
      ...ps,
      {
        uid,
        name: uniqueName(template.name, ps.map((p) => p.name)),
        kind: template.kind,
        base_url: template.base_url,
        num_ctx: "",
        key: "",
        key_source: null,
        saved: false,
        test: { status: "idle" },
      },
    ]);
    setTab("providers");
  };

  const remove = (draft: ProviderDraft) => {
    setProviders((ps) => ps.filter((p) => p.uid !== draft.uid));
    setRoles((rs) => rs.map((r) => (r.provider === draft.name ? { ...r, provider: "", model: "" } : r)));
  };

  const test = async (draft: ProviderDraft) => {
    update(draft.uid, { test: { status: "testing" } });
    try {
      const models = await call("test_connection", {
        kind: draft.kind,
        base_url: draft.base_url.trim() || null,
        api_key: draft.key.trim() || null,
        provider: draft.saved ? draft.name : null,
      });
      update(draft.uid, { test: { status: "ok", models } });
    } catch (err) {
      const e = toAppError(err);
      update(draft.uid, { test: { status: "error", message: e.message, failure: e.failure } });
    }
  };

  const save = async () => {
    setSaving(true);
    setSaveError(null);
    setSavedNote(null);
    try {
      let result = await call("save_settings", {
        providers: providers.map((p) => ({
          name: p.name.trim(),
          kind: p.kind,
          base_url: p.base_url.trim() || null,
          num_ctx: p.num_ctx.trim() === "" ? null : Number(p.num_ctx),
        })),
        roles: roles.filter((r) => r.provider !== "" && r.model.trim() !== "").map((r) => ({ ...r, model: r.model.trim() })),
      });
      for (const p of providers) {
        if (p.key.trim() === "") continue;
        result = await call("set_api_key", { provider: p.name.trim(), key: p.key.trim(), allow_file: allowFile });
      }
      setSettings(result);
      const tested = new Map(providers.map((p) => [p.name.trim(), p.test]));
      setProviders(result.providers.map((p) => ({ ...draftOf(p), test: tested.get(p.name) ?? { status: "idle" } })));
      setRoles(rolesOf(result));
      setSavedNote("Saved.");
    } catch (err) {
      setSaveError(`The settings were not saved: ${toAppError(err).message}`);
    } finally {
      setSaving(false);
    }
  };

  const forgetKey = async (draft: ProviderDraft) => {
    try {
      const result = await call("set_api_key", { provider: draft.name, key: "", allow_file: allowFile });
      setSettings(result);
      update(draft.uid, { key_source: result.providers.find((p) => p.name === draft.name)?.key_source ?? null });
    } catch (err) {
      setSaveError(`The key could not be removed: ${toAppError(err).message}`);
    }
  };

  const modelsOf = (name: string) => {
    const t = providers.find((p) => p.name === name)?.test;
    return t?.status === "ok" ? t.models : [];
  };

  return (
    <div className="settings-overlay" role="dialog" aria-modal="true" aria-label="Settings" data-testid="settings-view">
      <div className="settings">
        <header className="settings-header">
          <h1>Settings</h1>
          <div className="tabs" role="tablist">
            {(["providers", "models", "rules"] as Tab[]).map((t) => (
              <button key={t} role="tab" aria-selected={tab === t} data-testid={`settings-tab-${t}`} onClick={() => setTab(t)}>
                {t === "providers" ? "Providers" : t === "models" ? "Models" : "Rules"}
              </button>
            ))}
          </div>
          <span className="spacer" />
          <button onClick={() => close(false)} data-testid="settings-close" title="Close (Esc)">
            Close
          </button>
        </header>
        <div className="settings-body">
          {loadError && <Problem message={loadError} />}
          {settings?.error && <Problem message={settings.error} />}
          {settings?.preset && (
            <div className="banner info">
              Set at launch: {settings.preset}. It is used until you choose a default model here.
            </div>
          )}
          {tab === "providers" && (
            <section className="settings-section">
              <p className="muted">
                A provider is where the models run: a cloud API or a server on this computer. Keys are kept in your
                system's keychain and never shown again.
              </p>
              {settings && !settings.keychain.available && (
                <div className="banner warn">
                  <span>{settings.keychain.message ?? "No keychain service is running."}</span>
                  <label className="toggle">
                    <input
                      type="checkbox"
                      data-testid="allow-file"
                      checked={allowFile}
                      onChange={(e) => setAllowFile(e.target.checked)}
                    />
                    Keep keys in a file only I can read
                  </label>
                </div>
              )}
              {providers.length === 0 && <p className="muted">No providers yet. Add one:</p>}
              {providers.map((p) => (
                <div className="provider-card" key={p.uid} data-testid="provider-card">
                  <div className="provider-row">
                    <label>
                      Name
                      <input value={p.name} onChange={(e) => rename(p, e.target.value)} data-testid="provider-name" />
                    </label>
                    <label>
                      Kind
                      <select
                        value={p.kind}
                        onChange={(e) => update(p.uid, { kind: e.target.value as ProviderKind })}
                      >
                        <option value="anthropic">Anthropic</option>
                        <option value="openai">OpenAI or compatible</option>
                      </select>
                    </label>
                    <span className="spacer" />
                    <button className="link-button" onClick={() => remove(p)}>
                      Remove
                    </button>
                  </div>
                  {p.kind === "openai" && (
                    <div className="provider-row">
                      <label className="grow">
                        <span>
                          Base URL <span className="muted">(empty for OpenAI itself)</span>
                        </span>
                        <input
                          value={p.base_url}
                          placeholder="http://127.0.0.1:11434/v1"
                          onChange={(e) => update(p.uid, { base_url: e.target.value })}
                          data-testid="provider-base-url"
                        />
                      </label>
                      <label>
                        <span>
                          Context size <span className="muted">(num_ctx)</span>
                        </span>
                        <input
                          value={p.num_ctx}
                          inputMode="numeric"
                          placeholder="default"
                          onChange={(e) => update(p.uid, { num_ctx: e.target.value.replace(/[^0-9]/g, "") })}
                        />
                      </label>
                    </div>
                  )}
                  <div className="provider-row">
                    <label className="grow">
                      <span>
                        API key{" "}
                        <span className="muted" data-testid="key-source">
                          {p.key_source ? `(stored: ${p.key_source})` : "(none stored — fine for local servers)"}
                        </span>
                      </span>
                      <input
                        type="password"
                        autoComplete="off"
                        value={p.key}
                        placeholder={p.key_source ? "Type a new key to replace it" : "Paste a key"}
                        onChange={(e) => update(p.uid, { key: e.target.value })}
                        data-testid="provider-key"
                      />
                    </label>
                    {p.key_source === "keychain" || p.key_source === "file" ? (
                      <button className="link-button" onClick={() => void forgetKey(p)}>
                        Forget key
                      </button>
                    ) : null}
                    <button
                      data-testid="test-connection"
                      disabled={p.test.status === "testing"}
                      onClick={() => void test(p)}
                    >
                      {p.test.status === "testing" ? "Testing…" : "Test connection"}
                    </button>
                  </div>
                  {p.test.status === "ok" && (
                    <div className="test-result ok" data-testid="test-result">
                      Connected — {p.test.models.length === 1 ? "1 model" : `${p.test.models.length} models`}
                      {p.test.models.length > 0 && (
                        <ul className="model-chips">
                          {p.test.models.slice(0, 40).map((m) => (
                            <li key={m}>{m}</li>
                          ))}
                          {p.test.models.length > 40 && <li className="muted">and {p.test.models.length - 40} more</li>}
                        </ul>
                      )}
                    </div>
                  )}
                  {p.test.status === "error" && (
                    <div data-testid="test-result">
                      <Problem message={p.test.message} failure={p.test.failure} />
                    </div>
                  )}
                </div>
              ))}
              <div className="add-provider">
                {NEW_PROVIDERS.map((t) => (
                  <button key={t.label} onClick={() => add(t)} data-testid={`add-${t.name}`}>
                    + {t.label}
                  </button>
                ))}
              </div>
            </section>
          )}
          {tab === "models" && (
            <section className="settings-section">
              <p className="muted">Which model does what. Only the default is needed; test a provider to pick from its models.</p>
              <table className="roles">
                <tbody>
                  {roles.map((r, i) => {
                    const info = ROLES.find((x) => x.role === r.role);
                    const listId = `models-${r.role}`;
                    return (
                      <tr key={r.role} data-testid="role-row" data-role={r.role}>
                        <th>
                          {info?.label ?? r.role}
                          <div className="muted small">{info?.help}</div>
                        </th>
                        <td>
                          <select
                            value={r.provider}
                            data-testid="role-provider"
                            onChange={(e) => setRoles((rs) => rs.map((x, j) => (j === i ? { ...x, provider: e.target.value } : x)))}
                          >
                            <option value="">{r.role === "default" ? "Choose a provider" : "Same as default"}</option>
                            {providers.map((p) => (
                              <option key={p.uid} value={p.name}>
                                {p.name}
                              </option>
                            ))}
                          </select>
                        </td>
                        <td className="grow">
                          <input
                            list={listId}
                            value={r.model}
                            placeholder="Model name"
                            data-testid="role-model"
                            onChange={(e) => setRoles((rs) => rs.map((x, j) => (j === i ? { ...x, model: e.target.value } : x)))}
                          />
                          <datalist id={listId}>
                            {modelsOf(r.provider).map((m) => (
                              <option key={m} value={m} />
                            ))}
                          </datalist>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </section>
          )}
          {tab === "rules" && <RulesTab root={root} />}
        </div>
        <footer className="settings-footer">
          <span className="muted settings-file" title="The settings file">
            {settings ? settings.file : ""}
          </span>
          <span className="spacer" />
          {problems.length > 0 && <span className="form-problem">{problems[0]}</span>}
          {saveError && <span className="form-problem" role="alert">{saveError}</span>}
          {savedNote && !saveError && <span className="muted" data-testid="saved-note">{savedNote}</span>}
          {tab !== "rules" && (
            <button
              className="primary"
              data-testid="settings-save"
              disabled={saving || problems.length > 0 || !settings}
              onClick={() => void save()}
            >
              {saving ? "Saving…" : "Save"}
            </button>
          )}
        </footer>
      </div>
    </div>
  );
}

const SOURCE_ORDER = ["built-in", "builtin", "user", "project"];

function sourceRank(source: string): number {
  const i = SOURCE_ORDER.findIndex((s) => source.toLowerCase().startsWith(s));
  return i < 0 ? SOURCE_ORDER.length : i;
}

function RulesTab({ root }: { root: string | null }) {
  const [rules, setRules] = useState<PolicyRuleView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
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
  if (error) return <Problem message={error} />;
  if (!rules) return <p className="muted">Loading the rules…</p>;
  const groups = new Map<string, PolicyRuleView[]>();
  for (const r of rules) groups.set(r.source, [...(groups.get(r.source) ?? []), r]);
  const ordered = [...groups.entries()].sort((a, b) => sourceRank(a[0]) - sourceRank(b[0]));
  return (
    <section className="settings-section" data-testid="rules">
      <p className="muted">
        What the agent may do without asking, what it must ask about and what it may never do. Later rules — your own,
        then the project's — refine the built-in ones. “Always allow” answers are added to your rules for the project.
      </p>
      {ordered.length === 0 && <p className="muted">No rules.</p>}
      {ordered.map(([source, list]) => (
        <div key={source} className="rule-group" data-testid="rule-group">
          <h2>{source}</h2>
          <ul>
            {list.map((r, i) => (
              <li key={i}>
                <code>{r.rule}</code>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}
