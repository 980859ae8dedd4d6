// How much the agent may do on its own this turn, and whether its commands are sandboxed here.
import type { Mode } from "../bindings";
import { useSession } from "../session";

export const MODES: Array<{ mode: Mode; label: string; help: string }> = [
  { mode: "read_only", label: "Read only", help: "Reads and searches only; nothing is changed or run." },
  { mode: "ask", label: "Ask", help: "Asks before every change and every command that is not known to be safe." },
  { mode: "auto_edit", label: "Auto edit", help: "Edits files in the project on its own; asks before commands." },
  {
    mode: "full_auto",
    label: "Full auto",
    help: "Edits and runs commands on its own; still never crosses the hard limits.",
  },
];

export function ModeSelect() {
  const mode = useSession((s) => s.mode);
  const setMode = useSession((s) => s.setMode);
  const help = MODES.find((m) => m.mode === mode)?.help ?? "";
  const sandbox = useSession((s) => s.sandbox);
  return (
    <div className="mode-select">
      <label className="mode-row" title={help}>
        <span className="mode-label">Mode</span>
        <select data-testid="mode-select" value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
          {MODES.map((m) => (
            <option key={m.mode} value={m.mode}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <span className="mode-help muted" data-testid="mode-help">
        {help}
      </span>
      {sandbox && (
        <span
          className={sandbox.sandboxed ? "sandbox-status muted" : "sandbox-status warning"}
          data-testid="sandbox-status"
          data-sandboxed={sandbox.sandboxed}
          title={sandbox.summary}
        >
          {sandbox.sandboxed
            ? "Commands run in a sandbox."
            : "Commands are not sandboxed on this computer: Full auto asks before each one."}
        </span>
      )}
    </div>
  );
}
