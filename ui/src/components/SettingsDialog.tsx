// Settings, full window. Models: connect to where models run, pick one of the server's models
// and use it — in one place, like the first-run screen; keys; a different model for some jobs.
// Rules: the rules in force, in words, the user's own removable. Skills and Tool servers: the
// outside tools the agent may use (see SkillsTab, McpTab). Esc closes (asking first when
// something is not saved).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { EngineError, ProviderKind, ProviderView, RoleView, SettingsView } from "../bindings";
import { DEFAULT_LOCAL_URL, PROVIDER_KINDS } from "../bindings";
import { call, toAppError } from "../api";
import { asFailure } from "../errors";
import { useApp } from "../store";
import { useModels } from "../models";
import { ErrorDetail } from "./ErrorNote";
import { RulesTab } from "./RulesTab";
import { WebSearchTab } from "./WebSearchTab";
import { SkillsTab } from "./SkillsTab";
import { McpTab } from "./McpTab";
import { LimitsTab } from "./LimitsTab";
import { NotificationsTab } from "./NotificationsTab";
import { BuiltinCard } from "./BuiltinCard";
import { CommandsSetting } from "./CommandsSetting";
import { settingsCards } from "../modelChoice";
import { LOCAL_SERVER_KIND, hostedKinds, isBuiltin, kindInfo, needsKey, serviceWords, takesAddress } from "../providerKinds";

type Tab = "models" | "rules" | "web" | "skills" | "mcp" | "limits" | "notifications";

const TAB_LABELS: Record<Tab, string> = {
  models: "Models",
  rules: "Rules",
  web: "Web search",
  skills: "Skills",
  mcp: "Tool servers",
  limits: "Limits",
  notifications: "Notifications",
};

export const ROLES: Array<{ role: string; label: string; help: string }> = [
  { role: "default", label: "Default", help: "Does the work unless another role is set." },
  { role: "fast", label: "Fast", help: "Quick, cheap jobs: titles, summaries, compaction." },
  { role: "coder", label: "Coder", help: "Writing and editing code." },
  { role: "architect", label: "Architect", help: "Planning larger changes." },
];

type TestState =
  | { status: "idle" }
  | { status: "testing" }
  | { status: "ok"; models: string[] }
  | { status: "error"; error: EngineError };

type ProviderDraft = {
  /** Stable key for React while the name is edited. */
  uid: number;
  name: string;
  kind: ProviderKind;
  base_url: string;
  num_ctx: string;
  /** Calls a model writes as text: automatic (run for a server on this computer), on or off. */
  lenient: "auto" | "on" | "off";
  /** The help small models need: automatic (the built-in model, and models of at most 4B on this computer), on or off. */
  small: "auto" | "on" | "off";
  /** A key typed here, saved with Save; never the stored one. */
  key: string;
  key_source: string | null;
  saved: boolean;
  test: TestState;
  /** The model picked from this server's list (not yet in use until "Use" or Save). */
  pick: string;
};

let uid = 0;

function lenientOf(v: boolean | null): ProviderDraft["lenient"] {
  return v === null ? "auto" : v ? "on" : "off";
}

function lenientValue(v: ProviderDraft["lenient"]): boolean | null {
  return v === "auto" ? null : v === "on";
}

function draftOf(p: ProviderView, test: TestState = { status: "idle" }, pick = ""): ProviderDraft {
  uid += 1;
  return {
    uid,
    name: p.name,
    kind: p.kind,
    base_url: p.base_url ?? "",
    num_ctx: p.num_ctx === null ? "" : String(p.num_ctx),
    lenient: lenientOf(p.lenient_tool_calls),
    small: lenientOf(p.small_model),
    key: "",
    key_source: p.key_source,
    saved: true,
    test,
    pick,
  };
}

/** The draft of the provider in use, as saved: its card leads the Models tab. */
function leadOf(drafts: ProviderDraft[], settings: SettingsView | null): number | null {
  const inUse = settings?.in_use;
  if (!inUse || inUse.preset) return null;
  return drafts.find((d) => d.name === inUse.provider)?.uid ?? null;
}

function rolesOf(settings: SettingsView): RoleView[] {
  return ROLES.map(
    ({ role }) => settings.roles.find((r) => r.role === role) ?? { role, provider: "", model: "" },
  );
}

type NewProvider = { label: string; name: string; kind: ProviderKind; base_url: string };

/** What can be added: a server on this computer, then each hosted API (a row of PROVIDER_KINDS with a key), named for its kind. */
function newProviders(): NewProvider[] {
  return [
    { label: "A server on this computer (Ollama, llama.cpp, LM Studio…)", name: "local", kind: LOCAL_SERVER_KIND, base_url: DEFAULT_LOCAL_URL },
    ...hostedKinds().map((row) => ({ label: serviceWords(row), name: row.name, kind: row.name, base_url: "" })),
  ];
}

function uniqueName(base: string, taken: string[]): string {
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}-${i}`)) return `${base}-${i}`;
}

/** What Save would write, to tell whether anything is unsaved. */
function snapshot(providers: ProviderDraft[], roles: RoleView[], allowFile: boolean): string {
  return JSON.stringify({
    providers: providers.map((p) => [p.name.trim(), p.kind, p.base_url.trim(), p.num_ctx.trim(), p.lenient, p.small, p.key.trim()]),
    roles: roles.filter((r) => r.provider !== "" && r.model.trim() !== "").map((r) => [r.role, r.provider, r.model.trim()]),
    allowFile,
  });
}

/** Where a provider's key is, or whether it needs one, in words. */
function keyHint(p: ProviderDraft): string {
  if (p.key_source) return `(stored: ${p.key_source})`;
  const row = kindInfo(p.kind);
  if (row && needsKey(p.kind, p.base_url)) return `(none stored — ${serviceWords(row)} needs one)`;
  return "(none stored — most servers on this computer need none)";
}

function Problem({ message, detail }: { message: string; detail?: string | null }) {
  return (
    <div className="banner error" role="alert">
      <span>{message}</span>
      <ErrorDetail detail={detail} />
    </div>
  );
}

export function SettingsDialog() {
  const settings = useApp((s) => s.settings);
  const loadError = useApp((s) => s.settingsError);
  const setSettings = useApp((s) => s.setSettings);
  const loadSettings = useApp((s) => s.loadSettings);
  const setOpen = useApp((s) => s.setSettingsOpen);
  const screen = useApp((s) => s.screen);
  const loadModels = useModels((s) => s.load);
  const root = screen.kind === "project" ? screen.project.root : null;
  const [tab, setTab] = useState<Tab>("models");
  const [providers, setProviders] = useState<ProviderDraft[]>(() => settings?.providers.map((p) => draftOf(p)) ?? []);
  // The card that leads, fixed while the dialog is open so nothing moves under the pointer.
  const [lead, setLead] = useState<number | null>(() => leadOf(providers, settings));
  const [roles, setRoles] = useState<RoleView[]>(() => (settings ? rolesOf(settings) : []));
  const [allowFile, setAllowFile] = useState(settings?.keychain.file_fallback ?? false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [savedNote, setSavedNote] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [baseline, setBaseline] = useState(() =>
    settings ? snapshot(settings.providers.map((p) => draftOf(p)), rolesOf(settings), settings.keychain.file_fallback) : "",
  );

  useEffect(() => {
    if (!settings) void loadSettings();
  }, [settings, loadSettings]);

  // The built-in model was chosen (saved at once by its card): the drafts follow the file.
  const onBuiltinUsed = (s: SettingsView) => {
    setSettings(s);
    const drafts = s.providers.map((p) => draftOf(p));
    setProviders(drafts);
    setLead(leadOf(drafts, s));
    setRoles(rolesOf(s));
    setBaseline(snapshot(drafts, rolesOf(s), allowFile));
  };

  // The settings arrived after the dialog opened: start the drafts from them.
  const [seeded, setSeeded] = useState(settings !== null);
  if (!seeded && settings) {
    setSeeded(true);
    const drafts = settings.providers.map((p) => draftOf(p));
    setProviders(drafts);
    setLead(leadOf(drafts, settings));
    setRoles(rolesOf(settings));
    setAllowFile(settings.keychain.file_fallback);
    setBaseline(snapshot(drafts, rolesOf(settings), settings.keychain.file_fallback));
  }

  // The saved providers' models, asked once on opening, so each card can offer its list
  // without another test.
  const [listed, setListed] = useState(false);
  useEffect(() => {
    if (!seeded || listed) return;
    setListed(true);
    void loadModels().then((lists) => {
      if (!lists) return;
      setProviders((ps) =>
        ps.map((p) => {
          const l = lists.find((x) => x.provider === p.name);
          if (!p.saved || !l || p.test.status !== "idle") return p;
          if (l.error) return { ...p, test: { status: "error", error: l.error } };
          const inUse = settings?.in_use;
          const here = inUse && !inUse.preset && inUse.provider === p.name && l.models.includes(inUse.model) ? inUse.model : "";
          return { ...p, test: { status: "ok", models: l.models }, pick: here || (l.models[0] ?? "") };
        }),
      );
    });
  }, [seeded, listed, loadModels, settings]);

  const dirty = seeded && snapshot(providers, roles, allowFile) !== baseline;
  const close = (force = false) => {
    if (dirty && !force) setAsking(true);
    else setOpen(false);
  };
  const closeRef = useRef(close);
  closeRef.current = close;

  // The dialog takes the cursor (keys typed now are for it, never for what it covers) and gives
  // it back on closing. A layout effect: the cursor moves as the dialog appears, with no frame
  // in between where a key would reach the window behind it (an approval card).
  const overlay = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const before = document.activeElement;
    overlay.current?.focus({ preventScroll: true });
    return () => {
      if (before instanceof HTMLElement && before.isConnected && before !== document.body) before.focus({ preventScroll: true });
    };
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        closeRef.current();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const names = providers.map((p) => p.name.trim());
  const problems = useMemo(() => {
    const out: string[] = [];
    if (names.some((n) => n === "")) out.push("Every provider needs a name.");
    if (new Set(names).size !== names.length) out.push("Two providers have the same name.");
    for (const r of roles) {
      if ((r.provider === "") !== (r.model.trim() === "")) {
        out.push(`The ${r.role} model needs both a provider and a model.`);
      } else if (r.provider && !names.includes(r.provider)) {
        out.push(`The ${r.role} model uses “${r.provider}”, which is not in the list.`);
      }
    }
    return out;
  }, [names, roles]);

  const update = (uidOf: number, change: Partial<ProviderDraft>) =>
    setProviders((ps) => ps.map((p) => (p.uid === uidOf ? { ...p, ...change } : p)));

  const setRole = (role: string, change: Partial<RoleView>) =>
    setRoles((rs) => rs.map((r) => (r.role === role ? { ...r, ...change } : r)));

  const current = roles.find((r) => r.role === "default");

  const rename = (draft: ProviderDraft, name: string) => {
    update(draft.uid, { name });
    setRoles((rs) => rs.map((r) => (r.provider === draft.name ? { ...r, provider: name } : r)));
  };

  const add = (template: NewProvider) => {
    uid += 1;
    setProviders((ps) => [
      ...ps,
      {
        uid,
        name: uniqueName(template.name, ps.map((p) => p.name)),
        kind: template.kind,
        base_url: template.base_url,
        num_ctx: "",
        lenient: "auto",
        small: "auto",
        key: "",
        key_source: null,
        saved: false,
        test: { status: "idle" },
        pick: "",
      },
    ]);
  };

  const remove = (draft: ProviderDraft) => {
    setProviders((ps) => ps.filter((p) => p.uid !== draft.uid));
    setRoles((rs) => rs.map((r) => (r.provider === draft.name ? { ...r, provider: "", model: "" } : r)));
  };

  const test = async (draft: ProviderDraft) => {
    update(draft.uid, { test: { status: "testing" } });
    try {
      const result = await call("test_connection", {
        kind: draft.kind,
        base_url: draft.base_url.trim() || null,
        api_key: draft.key.trim() || null,
        provider: draft.saved ? draft.name : null,
      });
      if (result.kind === "failed") {
        update(draft.uid, { test: { status: "error", error: result.error } });
        return;
      }
      const models = result.models;
      const inUseHere = current?.provider === draft.name && models.includes(current.model) ? current.model : "";
      const pick = inUseHere || (models.includes(draft.pick) ? draft.pick : (models[0] ?? ""));
      update(draft.uid, { test: { status: "ok", models }, pick });
      // Nothing is in use yet: this server's model is, once saved (as the first-run screen
      // does), so that Save leaves Tandem able to work.
      if (pick && (!current || current.provider === "")) setRole("default", { provider: draft.name.trim(), model: pick });
    } catch (err) {
      const e = toAppError(err);
      update(draft.uid, { test: { status: "error", error: asFailure(e) } });
    }
  };


  const save = async (then?: () => void, use?: { provider: string; model: string }) => {
    setSaving(true);
    setSaveError(null);
    setSavedNote(null);
    const rolesToSave = roles
      .map((r) => (use && r.role === "default" ? { ...r, ...use } : r))
      .filter((r) => r.provider !== "" && r.model.trim() !== "")
      .map((r) => ({ ...r, model: r.model.trim() }));
    let result: SettingsView;
    try {
      result = await call("save_settings", {
        providers: providers.map((p) => ({
          name: p.name.trim(),
          kind: p.kind,
          base_url: p.base_url.trim() || null,
          num_ctx: p.num_ctx.trim() === "" ? null : Number(p.num_ctx),
          lenient_tool_calls: lenientValue(p.lenient),
          small_model: lenientValue(p.small),
        })),
        roles: rolesToSave,
      });
    } catch (err) {
      setSaveError(`The settings were not saved: ${toAppError(err).message}`);
      setSaving(false);
      return;
    }
    // The settings are saved from here on; each key is its own step, reported on its own.
    const keyFailures: string[] = [];
    const keysKept = new Set<string>();
    for (const p of providers) {
      if (p.key.trim() === "") continue;
      try {
        result = await call("set_api_key", { provider: p.name.trim(), key: p.key.trim(), allow_file: allowFile });
      } catch (err) {
        keyFailures.push(`The settings were saved, but the API key for “${p.name.trim()}” was not: ${toAppError(err).message}`);
        keysKept.add(p.name.trim());
      }
    }
    setSettings(result);
    const byName = new Map(providers.map((p) => [p.name.trim(), p]));
    const drafts = result.providers.map((p) => {
      const was = byName.get(p.name);
      // The same card stays on screen (its uid), with its list and pick.
      const d = { ...draftOf(p, was?.test ?? { status: "idle" }, was?.pick ?? ""), ...(was ? { uid: was.uid } : {}) };
      return keysKept.has(p.name) && was ? { ...d, key: was.key } : d;
    });
    setProviders(drafts);
    setRoles(rolesOf(result));
    setAllowFile(result.keychain.file_fallback || allowFile);
    // What failed stays unsaved (a key still typed), so closing still asks about it.
    setBaseline(snapshot(drafts.map((d) => ({ ...d, key: "" })), rolesOf(result), result.keychain.file_fallback || allowFile));
    setSaving(false);
    void loadModels();
    if (keyFailures.length > 0) {
      setSaveError(keyFailures.join(" "));
      return;
    }
    setSavedNote(use ? `Saved. New tasks use ${use.model}.` : "Saved.");
    then?.();
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

  const keychainMissing = settings !== null && !settings.keychain.available;
  const keyWords = !keychainMissing
    ? "API keys are kept in your system's keychain and never shown again."
    : allowFile
      ? "There is no keychain on this computer, so API keys are kept in a file only you can read. They are never shown again."
      : "There is no keychain on this computer: to store an API key, tick “Keep keys in a file only I can read”.";

  return (
    <div
      className="settings-overlay"
      role="dialog"
      aria-modal="true"
      aria-label="Settings"
      data-testid="settings-view"
      tabIndex={-1}
      ref={overlay}
    >
      <div className="settings">
        <header className="settings-header">
          <h1>Settings</h1>
          <div className="tabs" role="tablist">
            {(Object.keys(TAB_LABELS) as Tab[]).map((t) => (
              <button key={t} role="tab" aria-selected={tab === t} data-testid={`settings-tab-${t}`} onClick={() => setTab(t)}>
                {TAB_LABELS[t]}
              </button>
            ))}
          </div>
          <span className="spacer" />
          <button onClick={() => close()} data-testid="settings-close" title="Close (Esc)">
            Close
          </button>
        </header>
        <div className="settings-body">
          {loadError && <Problem message={loadError} />}
          {settings?.error && <Problem message={settings.error} />}
          {tab === "models" && (
            <section className="settings-section">
              <p className="muted" data-testid="settings-intro">
                Tandem sends your tasks to a language model. Connect to where models run — a server on this computer or
                a provider on the internet — then choose one of its models. {keyWords}
              </p>
              {settings?.preset && (
                <div className="banner info">
                  In use: {settings.preset}. It is used until you choose a model here.
                </div>
              )}
              <InUse settings={settings} roles={roles} dirty={dirty} />
              {keychainMissing && (
                <div className="banner warn">
                  <span>{settings?.keychain.message ?? "No keychain service is running."}</span>
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
              {providers.length === 0 && <p className="muted">Nothing is set up yet. Add where your models run:</p>}
              {settingsCards(providers, lead).map((card) => {
                if (card.kind === "builtin") return <BuiltinCard key="builtin" busy={false} onUsed={onBuiltinUsed} />;
                const p = card.provider;
                return (
                <ProviderCard
                  key={p.uid}
                  draft={p}
                  inUse={current?.provider === p.name.trim() && current.model !== "" ? current.model : null}
                  savedInUse={
                    settings?.in_use && !settings.in_use.preset && settings.in_use.provider === p.name.trim()
                      ? settings.in_use.model
                      : null
                  }
                  saving={saving}
                  onUpdate={(change) => update(p.uid, change)}
                  onRename={(name) => rename(p, name)}
                  onRemove={() => remove(p)}
                  onTest={() => void test(p)}
                  onPick={(m) => update(p.uid, { pick: m })}
                  onUse={(model) => {
                    setRole("default", { provider: p.name.trim(), model });
                    void save(undefined, { provider: p.name.trim(), model });
                  }}
                  onForgetKey={() => void forgetKey(p)}
                />
                );
              })}
              <div className="add-provider">
                {newProviders().map((t) => (
                  <button key={t.label} onClick={() => add(t)} data-testid={`add-${t.name}`}>
                    + {t.label}
                  </button>
                ))}
              </div>
              <details className="other-roles">
                <summary>A different model for some jobs (optional)</summary>
                <table className="roles">
                  <tbody>
                    {roles
                      .filter((r) => r.role !== "default")
                      .map((r) => {
                        const info = ROLES.find((x) => x.role === r.role);
                        const models = modelsOf(r.provider);
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
                                aria-label={`${info?.label ?? r.role}: provider`}
                                onChange={(e) => {
                                  const provider = e.target.value;
                                  setRole(r.role, { provider, model: provider ? (modelsOf(provider)[0] ?? "") : "" });
                                }}
                              >
                                <option value="">Same as the model in use</option>
                                {providers.map((p) => (
                                  <option key={p.uid} value={p.name}>
                                    {p.name}
                                  </option>
                                ))}
                              </select>
                            </td>
                            <td className="grow">
                              {r.provider !== "" && models.length > 0 ? (
                                <select
                                  value={r.model}
                                  data-testid="role-model"
                                  aria-label={`${info?.label ?? r.role}: model`}
                                  onChange={(e) => setRole(r.role, { model: e.target.value })}
                                >
                                  {!models.includes(r.model) && <option value={r.model}>{r.model || "Choose a model"}</option>}
                                  {models.map((m) => (
                                    <option key={m} value={m}>
                                      {m}
                                    </option>
                                  ))}
                                </select>
                              ) : (
                                <input
                                  value={r.model}
                                  disabled={r.provider === ""}
                                  placeholder={r.provider === "" ? "" : "Model name (connect to list them)"}
                                  data-testid="role-model"
                                  aria-label={`${info?.label ?? r.role}: model`}
                                  onChange={(e) => setRole(r.role, { model: e.target.value })}
                                />
                              )}
                            </td>
                          </tr>
                        );
                      })}
                  </tbody>
                </table>
              </details>
            </section>
          )}
          {tab === "rules" && (
            <>
              <CommandsSetting root={root} />
              <RulesTab root={root} />
            </>
          )}
          {tab === "web" && settings && <WebSearchTab settings={settings} allowFile={allowFile} />}
          {tab === "skills" && <SkillsTab root={root} />}
          {tab === "mcp" && <McpTab root={root} />}
          {tab === "limits" && <LimitsTab />}
          {tab === "notifications" && <NotificationsTab />}
        </div>
        {asking && (
          <div className="unsaved-bar" role="alertdialog" aria-label="Unsaved changes" data-testid="unsaved-changes">
            <span>Some changes are not saved yet.</span>
            <span className="spacer" />
            <button data-testid="unsaved-cancel" onClick={() => setAsking(false)}>
              Keep editing
            </button>
            <button data-testid="unsaved-discard" className="danger" onClick={() => close(true)}>
              Close without saving
            </button>
            <button
              data-testid="unsaved-save"
              className="primary"
              disabled={saving || problems.length > 0}
              onClick={() => {
                setAsking(false);
                void save(() => setOpen(false));
              }}
            >
              Save and close
            </button>
          </div>
        )}
        <footer className="settings-footer">
          <span className="muted settings-file" title="The settings file">
            {settings ? settings.file : ""}
          </span>
          <span className="spacer" />
          {problems.length > 0 && <span className="form-problem">{problems[0]}</span>}
          {saveError && (
            <span className="form-problem" role="alert" data-testid="save-error">
              {saveError}
            </span>
          )}
          {savedNote && !saveError && !dirty && (
            <span className="muted" data-testid="saved-note">
              {savedNote}
            </span>
          )}
          {tab === "models" && (
            <button
              className="primary"
              data-testid="settings-save"
              disabled={saving || problems.length > 0 || !settings || !dirty}
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

/** Which model new tasks use, saved or about to be. */
function InUse({ settings, roles, dirty }: { settings: SettingsView | null; roles: RoleView[]; dirty: boolean }) {
  if (!settings) return null;
  const draft = roles.find((r) => r.role === "default");
  const saved = settings.in_use;
  if (draft && draft.provider !== "" && draft.model !== "") {
    const same = saved && !saved.preset && saved.provider === draft.provider && saved.model === draft.model;
    return (
      <div className="banner info in-use" data-testid="settings-in-use">
        {same || !dirty
          ? `New tasks use ${draft.model} (${draft.provider}).`
          : `New tasks will use ${draft.model} (${draft.provider}) once you save.`}
      </div>
    );
  }
  if (saved?.preset) return null;
  return (
    <div className="banner warn" data-testid="settings-in-use">
      No model is chosen yet, so tasks cannot run. Connect to a server below and choose one of its models.
    </div>
  );
}

function ProviderCard(props: {
  draft: ProviderDraft;
  /** The model chosen for new tasks, if it is this provider's (saved or not). */
  inUse: string | null;
  /** The same, as saved. */
  savedInUse: string | null;
  saving: boolean;
  onUpdate: (change: Partial<ProviderDraft>) => void;
  onRename: (name: string) => void;
  onRemove: () => void;
  onTest: () => void;
  onPick: (model: string) => void;
  onUse: (model: string) => void;
  onForgetKey: () => void;
}) {
  const p = props.draft;
  const models = p.test.status === "ok" ? p.test.models : [];
  const picked = p.pick && models.includes(p.pick) ? p.pick : (props.inUse ?? models[0] ?? "");
  const row = kindInfo(p.kind);
  const address = takesAddress(p.kind);
  const builtin = isBuiltin(p.kind);
  return (
    <div className="provider-card" data-testid="provider-card" data-name={p.name}>
      <div className="provider-row">
        <label>
          Name
          <input value={p.name} onChange={(e) => props.onRename(e.target.value)} data-testid="provider-name" />
        </label>
        <label>
          Kind
          <select
            value={p.kind}
            data-testid="provider-kind"
            onChange={(e) => props.onUpdate({ kind: e.target.value, test: { status: "idle" } })}
          >
            {PROVIDER_KINDS.map((k) => (
              <option key={k.name} value={k.name}>
                {k.words}
              </option>
            ))}
          </select>
        </label>
        <span className="spacer" />
        <button className="link-button" onClick={props.onRemove}>
          Remove
        </button>
      </div>
      {address && row && (
        <div className="provider-row">
          <label className="grow">
            <span>
              Address{" "}
              {row.default_url !== "" && <span className="muted">(empty for {serviceWords(row)} itself)</span>}
            </span>
            <input
              value={p.base_url}
              placeholder={row.default_url || DEFAULT_LOCAL_URL}
              onChange={(e) => props.onUpdate({ base_url: e.target.value, test: { status: "idle" } })}
              data-testid="provider-base-url"
            />
          </label>
        </div>
      )}
      <div className="provider-row">
        {builtin ? (
          <span className="grow muted">Runs inside Tandem: no key, no address (its file is chosen above).</span>
        ) : (
          <label className="grow">
            <span>
              API key{" "}
              <span className="muted" data-testid="key-source">
                {keyHint(p)}
              </span>
            </span>
            <input
              type="password"
              autoComplete="off"
              value={p.key}
              placeholder={p.key_source ? "Type a new key to replace it" : "Paste a key"}
              onChange={(e) => props.onUpdate({ key: e.target.value })}
              data-testid="provider-key"
            />
          </label>
        )}
        {!builtin && (p.key_source === "keychain" || p.key_source?.startsWith("file")) ? (
          <button className="link-button" onClick={props.onForgetKey}>
            Forget key
          </button>
        ) : null}
        <button data-testid="test-connection" disabled={p.test.status === "testing"} onClick={props.onTest}>
          {p.test.status === "testing" ? "Connecting…" : p.test.status === "ok" ? "Connect again" : "Connect"}
        </button>
      </div>
      {p.test.status === "ok" && (
        <div className="test-result ok" data-testid="test-result">
          <span>Connected — {models.length === 1 ? "1 model" : `${models.length} models`}.</span>
          {models.length === 0 ? (
            <span className="muted"> It has no models yet: add one to the server first (for Ollama: ollama pull qwen2.5-coder).</span>
          ) : (
            <div className="model-choice">
              <label>
                <span>Model</span>
                <select value={picked} onChange={(e) => props.onPick(e.target.value)} data-testid="provider-model">
                  {models.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
              {props.inUse === picked ? (
                <span className="pill ok" data-testid="model-in-use">
                  {props.savedInUse === picked ? "In use" : "Chosen — used once saved"}
                </span>
              ) : (
                <button className="primary" data-testid="use-model" disabled={props.saving || !picked} onClick={() => props.onUse(picked)}>
                  Use this model
                </button>
              )}
            </div>
          )}
        </div>
      )}
      {p.test.status === "error" && (
        <div data-testid="test-result" data-code={p.test.error.code}>
          <Problem message={p.test.error.message} detail={p.test.error.detail} />
        </div>
      )}
      {address && (
        <details className="provider-advanced" data-testid="provider-advanced">
          <summary>
            <span>Advanced</span>
            {advancedChanges(p).map((c) => ` · ${c}`).join("")}
          </summary>
          <div className="provider-row">
            <label>
              <span>
                Context size <span className="muted">(num_ctx)</span>
              </span>
              <input
                value={p.num_ctx}
                inputMode="numeric"
                placeholder="default"
                onChange={(e) => props.onUpdate({ num_ctx: e.target.value.replace(/[^0-9]/g, "") })}
              />
            </label>
          </div>
          <div className="provider-row">
            <label className="grow">
              <span>
                Tool calls written as text{" "}
                <span className="muted">(small models often write a call as a block of JSON)</span>
              </span>
              <select
                value={p.lenient}
                onChange={(e) => props.onUpdate({ lenient: e.target.value as ProviderDraft["lenient"] })}
                data-testid="provider-lenient"
              >
                <option value="auto">Automatic: run them for a server on this computer</option>
                <option value="on">Run them</option>
                <option value="off">Leave them as text</option>
              </select>
            </label>
          </div>
          <div className="provider-row">
            <label className="grow">
              <span>
                Help for a small model{" "}
                <span className="muted">(one form per tool, the files the task names read first, fewer tools)</span>
              </span>
              <select
                value={p.small}
                onChange={(e) => props.onUpdate({ small: e.target.value as ProviderDraft["small"] })}
                data-testid="provider-small-model"
              >
                <option value="auto">Automatic: for models of 4B or less on this computer</option>
                <option value="on">Always</option>
                <option value="off">Never</option>
              </select>
            </label>
          </div>
        </details>
      )}
    </div>
  );
}

/** What under Advanced differs from the default, said on the fold so a folded setting is not a hidden one. */
function advancedChanges(p: ProviderDraft): string[] {
  return [
    p.num_ctx.trim() !== "" ? `context size ${p.num_ctx.trim()}` : null,
    p.lenient === "on" ? "calls written as text run" : p.lenient === "off" ? "calls written as text left as text" : null,
    p.small === "on" ? "small-model help always" : p.small === "off" ? "no small-model help" : null,
  ].filter((x): x is string => x !== null);
}
