// How much the agent may do on its own this turn, and whether its commands are sandboxed here.
// Full auto is chosen only after saying what it still never does (Rust's list of the limits no
// mode lifts).
import { useState } from "react";
import type { Mode } from "../bindings";
import { call, toAppError } from "../api";
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

type Confirm = { status: "loading" } | { status: "ready"; limits: string[] } | { status: "error"; message: string };

export function ModeSelect() {
  const mode = useSession((s) => s.mode);
  const setMode = useSession((s) => s.setMode);
  const root = useSession((s) => s.root);
  const help = MODES.find((m) => m.mode === mode)?.help ?? "";
  const sandbox = useSession((s) => s.sandbox);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const current = MODES.find((m) => m.mode === mode)?.label ?? mode;

  const choose = (next: Mode) => {
    if (next !== "full_auto") {
      setConfirm(null);
      setMode(next);
      return;
    }
    setConfirm({ status: "loading" });
    if (!root) {
      setConfirm({ status: "error", message: "Open a project first." });
      return;
    }
    call("policy_rules", { root }).then(
      (r) => setConfirm({ status: "ready", limits: r.limits }),
      (err: unknown) => setConfirm({ status: "error", message: `The limits could not be read: ${toAppError(err).message}` }),
    );
  };

  return (
    <div className="mode-select">
      <label className="mode-row" title={help}>
        <span className="mode-label">Mode</span>
        <select data-testid="mode-select" value={mode} onChange={(e) => choose(e.target.value as Mode)}>
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
      {confirm && (
        <div className="full-auto-confirm" role="alertdialog" aria-label="Switch to Full auto?" data-testid="full-auto-confirm">
          <strong>Switch to Full auto?</strong>
          <p>The agent will edit files and run commands on its own, without asking you first.</p>
          {confirm.status === "loading" && <p className="muted">Reading the limits…</p>}
          {confirm.status === "error" && <p className="form-problem">{confirm.message}</p>}
          {confirm.status === "ready" && (
            <ul data-testid="full-auto-limits">
              {confirm.limits.map((l) => (
                <li key={l}>{l}</li>
              ))}
              {sandbox && !sandbox.sandboxed && <li>Commands are not sandboxed on this computer, so it asks before each one.</li>}
            </ul>
          )}
          <div className="full-auto-actions">
            <button data-testid="full-auto-no" onClick={() => setConfirm(null)} autoFocus>
              Keep {current}
            </button>
            <button
              className="primary"
              data-testid="full-auto-yes"
              disabled={confirm.status !== "ready"}
              onClick={() => {
                setConfirm(null);
                setMode("full_auto");
              }}
            >
              Switch to Full auto
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
