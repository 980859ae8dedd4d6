// The first start: Tandem needs a model provider. Four ways in — Anthropic, OpenAI, a model
// server on this computer (found by looking for Ollama and friends), or the model built in.
import { useEffect, useState, type ReactNode } from "react";
import type { EngineError, LocalServer, ProviderInput, ProviderKind, RoleView, SettingsView } from "../bindings";
import { DEFAULT_LOCAL_URL } from "../bindings";
import { call, toAppError } from "../api";
import { asFailure } from "../errors";
import { useApp } from "../store";
import { ErrorDetail } from "./ErrorNote";
import { BuiltinCard } from "./BuiltinCard";
import { firstRunCards, type FirstRunCard } from "../modelChoice";
import { LOCAL_SERVER_KIND, kindInfo, serviceWords } from "../providerKinds";

type Choice = {
  name: string;
  kind: ProviderKind;
  base_url: string | null;
  model: string;
  key: string;
};

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "local";
}

/** Why a choice was not kept, in words that say which part was not. */
class NotKept extends Error {}

/**
 * Keeps the choice: the key first, then the settings that use it — so a key that cannot be
 * stored leaves nothing half-saved, and each failure says truly what was not saved.
 */
async function saveChoice(settings: SettingsView | null, c: Choice, allowFile: boolean): Promise<SettingsView> {
  const providers: ProviderInput[] = (settings?.providers ?? [])
    .filter((p) => p.name !== c.name)
    .map((p) => ({ name: p.name, kind: p.kind, base_url: p.base_url, num_ctx: p.num_ctx, lenient_tool_calls: p.lenient_tool_calls, small_model: p.small_model }));
  providers.push({ name: c.name, kind: c.kind, base_url: c.base_url, num_ctx: null, lenient_tool_calls: null, small_model: null });
  const roles: RoleView[] = (settings?.roles ?? []).filter((r) => r.role !== "default");
  roles.unshift({ role: "default", provider: c.name, model: c.model });
  if (c.key.trim() !== "") {
    try {
      await call("set_api_key", { provider: c.name, key: c.key.trim(), allow_file: allowFile });
    } catch (err) {
      throw new NotKept(`The API key was not saved, so nothing was: ${toAppError(err).message}`);
    }
  }
  try {
    return await call("save_settings", { providers, roles });
  } catch (err) {
    throw new NotKept(`The choice was not saved: ${toAppError(err).message}`);
  }
}

/**
 * The hosted APIs the first-run screen offers, with what this screen says of them; the name
 * of each (its words) comes from its kind's row.
 */
const CLOUD: Record<Exclude<FirstRunCard, "builtin" | "local">, { blurb: (name: string) => string; defaultModel: string; keyHint: string }> = {
  anthropic: {
    blurb: (name) => `Claude models through ${name}'s API. Get a key at console.anthropic.com.`,
    defaultModel: "claude-sonnet-4-5",
    keyHint: "sk-ant-…",
  },
  openai: {
    blurb: (name) => `GPT models through ${name}'s API. Get a key at platform.openai.com.`,
    defaultModel: "gpt-4.1",
    keyHint: "sk-…",
  },
};

function CloudCard({ kind, busy, onSave }: { kind: keyof typeof CLOUD; busy: boolean; onSave: (c: Choice) => void }) {
  const { blurb, defaultModel, keyHint } = CLOUD[kind];
  const row = kindInfo(kind);
  const title = row ? serviceWords(row) : kind;
  const [key, setKey] = useState("");
  const [model, setModel] = useState(defaultModel);
  return (
    <div className="first-run-card" data-testid={`first-run-${kind}`}>
      <h3>{title}</h3>
      <p className="muted">{blurb(title)}</p>
      <label>
        API key
        <input
          type="password"
          autoComplete="off"
          value={key}
          placeholder={keyHint}
          onChange={(e) => setKey(e.target.value)}
          data-testid="first-run-key"
        />
      </label>
      <label>
        Model
        <input value={model} onChange={(e) => setModel(e.target.value)} data-testid="first-run-model" />
      </label>
      <button
        className="primary"
        disabled={busy || key.trim() === "" || model.trim() === ""}
        data-testid="first-run-use"
        onClick={() => onSave({ name: kind, kind, base_url: null, model: model.trim(), key })}
      >
        Use {title}
      </button>
    </div>
  );
}

function LocalCard({ busy, onSave }: { busy: boolean; onSave: (c: Choice) => void }) {
  const [servers, setServers] = useState<LocalServer[] | null>(null);
  const [detectError, setDetectError] = useState<string | null>(null);
  const [picked, setPicked] = useState<Record<string, string>>({});
  const [url, setUrl] = useState(DEFAULT_LOCAL_URL);
  const [manualModels, setManualModels] = useState<string[] | null>(null);
  const [manualModel, setManualModel] = useState("");
  const [testError, setTestError] = useState<EngineError | null>(null);
  const [testing, setTesting] = useState(false);

  useEffect(() => {
    let live = true;
    call("detect_local")
      .then((s) => live && setServers(s))
      .catch((err: unknown) => {
        if (!live) return;
        setServers([]);
        setDetectError(toAppError(err).message);
      });
    return () => {
      live = false;
    };
  }, []);

  const test = async () => {
    setTesting(true);
    setTestError(null);
    try {
      const result = await call("test_connection", { kind: LOCAL_SERVER_KIND, base_url: url.trim(), api_key: null, provider: null });
      if (result.kind === "failed") {
        setManualModels(null);
        setTestError(result.error);
      } else {
        setManualModels(result.models);
        const first = result.models[0];
        if (first && !result.models.includes(manualModel)) setManualModel(first);
      }
    } catch (err) {
      setManualModels(null);
      const e = toAppError(err);
      setTestError(asFailure(e));
    } finally {
      setTesting(false);
    }
  };

  return (
    <div className="first-run-card" data-testid="first-run-local">
      <h3>On this computer</h3>
      <p className="muted">Ollama, llama.cpp, LM Studio or any OpenAI-compatible server. Nothing leaves your machine.</p>
      {servers === null && <p className="muted">Looking for a model server…</p>}
      {servers?.map((s) => {
        const model = picked[s.base_url] ?? s.models[0] ?? "";
        return (
          <div key={s.base_url} className="local-server" data-testid="local-server">
            <p>
              <strong>{s.name}</strong> is running at <code>{s.base_url}</code> with{" "}
              {s.models.length === 1 ? "1 model" : `${s.models.length} models`}.
            </p>
            {s.models.length > 0 ? (
              <ModelPick
                models={s.models}
                model={model}
                onPick={(m) => setPicked({ ...picked, [s.base_url]: m })}
                label={`Model on ${s.name}`}
                selectTestId="local-model"
                useTestId="use-local"
                useLabel={`Use ${s.name}`}
                disabled={busy || !model}
                onUse={() => onSave({ name: slug(s.name), kind: LOCAL_SERVER_KIND, base_url: s.base_url, model, key: "" })}
              />
            ) : (
              <p className="muted">It has no models yet: pull one (for example <code>ollama pull qwen2.5-coder</code>).</p>
            )}
          </div>
        );
      })}
      {servers !== null && servers.length === 0 && manualModels === null && (
        <p className="muted" data-testid="no-local">
          No local server answered{detectError ? ` (${detectError})` : ""}. Start one, or enter its address:
        </p>
      )}
      <details className="manual-server" open={servers !== null && servers.length === 0}>
        <summary>Another server address</summary>
        <label>
          Base URL
          <input value={url} onChange={(e) => setUrl(e.target.value)} data-testid="manual-url" />
        </label>
        <button data-testid="manual-connect" onClick={() => void test()} disabled={testing || url.trim() === ""}>
          {testing ? "Connecting…" : "Connect"}
        </button>
        {testError && (
          <div className="banner error" role="alert" data-testid="manual-error" data-code={testError.code}>
            <span>{testError.message}</span>
            <ErrorDetail detail={testError.detail} />
          </div>
        )}
        {manualModels && manualModels.length === 0 && (
          <p className="muted">It answered, but has no models yet: add one to the server first (for Ollama: ollama pull qwen2.5-coder).</p>
        )}
        {manualModels && manualModels.length > 0 && (
          <ModelPick
            models={manualModels}
            model={manualModel}
            onPick={setManualModel}
            label="Model"
            useTestId="manual-use"
            useLabel="Use this server"
            disabled={busy || !manualModel}
            onUse={() => onSave({ name: "local", kind: LOCAL_SERVER_KIND, base_url: url.trim(), model: manualModel, key: "" })}
          />
        )}
      </details>
    </div>
  );
}

/** A model list to choose from and the button that uses the choice. */
function ModelPick(props: {
  models: string[];
  model: string;
  onPick: (model: string) => void;
  label: string;
  selectTestId?: string;
  useTestId: string;
  useLabel: string;
  disabled: boolean;
  onUse: () => void;
}) {
  return (
    <div className="local-pick">
      <select
        value={props.model}
        onChange={(e) => props.onPick(e.target.value)}
        data-testid={props.selectTestId}
        aria-label={props.label}
      >
        {props.models.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      <button className="primary" data-testid={props.useTestId} disabled={props.disabled} onClick={props.onUse}>
        {props.useLabel}
      </button>
    </div>
  );
}

export function FirstRunScreen() {
  const settings = useApp((s) => s.settings);
  const setSettings = useApp((s) => s.setSettings);
  const skip = useApp((s) => s.skipFirstRun);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [allowFile, setAllowFile] = useState(settings?.keychain.file_fallback ?? false);
  const keychainMissing = settings !== null && !settings.keychain.available;
  const keyWords = !keychainMissing
    ? "API keys are kept in your system's keychain, not in a file, and never shown again."
    : allowFile
      ? "There is no keychain on this computer, so API keys are kept in a file only you can read, and never shown again."
      : "There is no keychain on this computer: to use a cloud provider's key, tick “Keep keys in a file only I can read” below.";

  const use = async (choice: Choice) => {
    if (choice.key && keychainMissing && !allowFile) {
      setError("There is no keychain to keep the key in. Tick “Keep keys in a file only I can read” to store it anyway.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // Settings now say configured: the app goes on by itself.
      setSettings(await saveChoice(settings, choice, allowFile));
    } catch (err) {
      setError(err instanceof NotKept ? err.message : `That did not work: ${toAppError(err).message}`);
      setBusy(false);
    }
  };

  // With no key anywhere the built-in model, which needs no account, comes first.
  const { order, recommendBuiltin } = firstRunCards(settings);
  const cards: Record<FirstRunCard, ReactNode> = {
    builtin: <BuiltinCard key="builtin" busy={busy} onUsed={setSettings} recommended={recommendBuiltin} />,
    anthropic: <CloudCard key="anthropic" kind="anthropic" busy={busy} onSave={(c) => void use(c)} />,
    openai: <CloudCard key="openai" kind="openai" busy={busy} onSave={(c) => void use(c)} />,
    local: <LocalCard key="local" busy={busy} onSave={(c) => void use(c)} />,
  };

  return (
    <main className="first-run" data-testid="first-run">
      <div className="first-run-inner">
        <header className="welcome-header">
          <img src="/icon.png" alt="" className="welcome-logo" width={56} height={56} />
          <div>
            <h1>Welcome to Tandem</h1>
            <p className="muted" data-testid="first-run-intro">
              Tandem needs a language model to think with. Pick where it runs — you can change it or add more later in
              Settings. {keyWords}
            </p>
          </div>
        </header>
        {error && (
          <div className="banner error" role="alert" data-testid="first-run-error">
            {error}
          </div>
        )}
        {keychainMissing && (
          <div className="banner warn">
            <span>{settings?.keychain.message ?? "No keychain service is running."}</span>
            <label className="toggle">
              <input type="checkbox" checked={allowFile} onChange={(e) => setAllowFile(e.target.checked)} />
              Keep keys in a file only I can read
            </label>
          </div>
        )}
        <div className="first-run-cards">
          {order.map((card) => cards[card])}
        </div>
        <button className="link-button skip" data-testid="first-run-skip" onClick={skip}>
          Skip for now
        </button>
      </div>
    </main>
  );
}
