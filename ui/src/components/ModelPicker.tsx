// Which model new messages go to, in the project window, and a quick way to switch: the
// models of every provider set up in Settings, by provider. Choosing one makes it the default
// (Rust writes it to the settings); setting up providers stays in Settings.
import { useEffect } from "react";
import { useApp } from "../store";
import { useModels } from "../models";
import { onWindowFocus } from "../windowFocus";
import { afterFirstFrame } from "../startupTrace";
import { isBuiltin } from "../providerKinds";

const SEP = "\u001f";
const SETTINGS = "__settings__";

export function ModelPicker() {
  const settings = useApp((s) => s.settings);
  const openSettings = useApp((s) => s.setSettingsOpen);
  const lists = useModels((s) => s.lists);
  const loading = useModels((s) => s.loading);
  const load = useModels((s) => s.load);
  const use = useModels((s) => s.use);
  const useError = useModels((s) => s.useError);
  // Asked again whenever the providers change (Settings saved).
  const providers = settings ? settings.providers.map((p) => `${p.name} ${p.base_url ?? ""}`).join(",") : null;
  useEffect(() => {
    // The list fills the select's options; the first frame shows the model in use without it.
    if (providers !== null) void afterFirstFrame().then(load);
  }, [providers, load]);
  // Back from elsewhere (a model pulled, a server started): asked again. Not on the select's
  // own focus, which would change its options while its list is open.
  useEffect(() => onWindowFocus(() => void load()), [load]);

  if (!settings) return null;
  const inUse = settings.in_use;
  // The built-in model is named for what it is, not by its provider's key.
  const builtin = (provider: string | undefined) =>
    settings.providers.some((p) => p.name === provider && isBuiltin(p.kind));
  const modelLabel = (provider: string | undefined, model: string) =>
    builtin(provider) ? "Built-in model" : model;
  const groupLabel = (provider: string) => (builtin(provider) ? "On this computer" : provider);
  const current = inUse ? `${inUse.provider}${SEP}${inUse.model}` : "";
  const listed = (lists ?? []).some((l) => l.provider === inUse?.provider && l.models.includes(inUse.model));
  const title = useError
    ? useError
    : inUse
      ? `New messages go to ${modelLabel(inUse.provider, inUse.model)} (${inUse.preset ? "chosen when Tandem started" : groupLabel(inUse.provider)}). Choose another here; set up providers in Settings.`
      : "No model is chosen yet. Choose one here, or set one up in Settings.";

  return (
    <label className={useError ? "model-picker problem" : "model-picker"} title={title}>
      <span className="muted">Model</span>
      <select
        data-testid="model-picker"
        value={current}
        data-provider={inUse?.provider ?? ""}
        data-model={inUse?.model ?? ""}
        onChange={(e) => {
          const value = e.target.value;
          if (value === SETTINGS) {
            openSettings(true);
            return;
          }
          const cut = value.indexOf(SEP);
          if (cut > 0) void use(value.slice(0, cut), value.slice(cut + SEP.length));
        }}
      >
        {!inUse && <option value="">Choose a model…</option>}
        {inUse && !listed && (
          <option value={current}>{modelLabel(inUse.provider, inUse.model)}</option>
        )}
        {(lists ?? []).map((l) => (
          <optgroup key={l.provider} label={l.error ? `${groupLabel(l.provider)} — not reachable` : groupLabel(l.provider)}>
            {l.models.map((m) => (
              <option key={m} value={`${l.provider}${SEP}${m}`}>
                {modelLabel(l.provider, m)}
              </option>
            ))}
          </optgroup>
        ))}
        {lists === null && loading && <option disabled>Looking for models…</option>}
        <option value={SETTINGS}>Set up models in Settings…</option>
      </select>
    </label>
  );
}
