// The project's sessions, newest first; open one to read it or carry on in it.
import type { SessionState } from "../bindings";
import { useSession } from "../session";
import { formatCost, relativeTime } from "../format";
import { call, toAppError } from "../api";
import { pickExportFile } from "../pickFolder";
import { useState } from "react";

/** A file name for a session's export: its title, made safe, then the format's extension. */
export function exportName(title: string): string {
  const base = title
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `${base || "session"}.md`;
}

const STATE_LABEL: Record<SessionState, string> = {
  running: "Running",
  waiting: "Waiting for you",
  done: "Done",
  done_with_warnings: "Done — check it",
  ended: "Ended",
  stopped: "Stopped",
  failed: "Failed",
  interrupted: "Interrupted — resumable",
};

export function SessionList() {
  const sessions = useSession((s) => s.sessions);
  const loaded = useSession((s) => s.sessionsLoaded);
  const error = useSession((s) => s.sessionsError);
  const current = useSession((s) => s.current);
  const runningSession = useSession((s) => s.runningSession);
  const newSession = useSession((s) => s.newSession);
  const openSession = useSession((s) => s.openSession);
  const refresh = useSession((s) => s.refreshSessions);
  const [exported, setExported] = useState<{ text: string; error: boolean } | null>(null);

  const exportCurrent = async () => {
    if (!current) return;
    setExported(null);
    try {
      const path = await pickExportFile(exportName(current.title));
      if (!path) return;
      const format = path.toLowerCase().endsWith(".jsonl") ? "jsonl" : "markdown";
      const written = await call("export_session", { session: current.id, format, path });
      setExported({ text: `Exported to ${written}`, error: false });
    } catch (err) {
      setExported({ text: `Not exported: ${toAppError(err).message}`, error: true });
    }
  };

  return (
    <div className="session-panel">
      <div className="panel-toolbar">
        <button className="new-session" data-testid="new-session" onClick={newSession} disabled={current === null}>
          + New session
        </button>
        <button
          className="link-button"
          data-testid="export-session"
          onClick={() => void exportCurrent()}
          disabled={current === null}
          title="Save the open session as Markdown (messages, tool calls, diffs, cost) or as its JSON log (.jsonl)"
        >
          Export…
        </button>
        <button className="link-button" onClick={() => void refresh()} title="Reload the list">
          Refresh
        </button>
      </div>
      {exported && (
        <p className={exported.error ? "error small panel-banner" : "muted small panel-banner"} role="status" data-testid="export-note">
          {exported.text}
        </p>
      )}
      {error && (
        <div className="banner error panel-banner" role="alert">
          The sessions could not be listed: {error}
        </div>
      )}
      {loaded && sessions.length === 0 && !error && (
        <p className="muted panel-empty">No sessions yet. Describe a task in the box on the right to start one.</p>
      )}
      <ul className="session-list" data-testid="session-list" aria-label="Sessions">
        {sessions.map((s) => {
          // Rust knows whether the running turn waits for an answer; until the list catches up
          // with a turn this window just started, it is running.
          const state = runningSession === s.id && s.state !== "waiting" ? "running" : s.state;
          return (
            <li key={s.id}>
              <button
                className={s.id === current?.id ? "session-item active" : "session-item"}
                data-testid="session-item"
                data-id={s.id}
                data-state={state}
                aria-current={s.id === current?.id ? "true" : undefined}
                onClick={() => void openSession(s.id)}
                title={s.title}
              >
                <span className="session-title">{s.title || "Untitled session"}</span>
                <span className="session-meta">
                  <span className={`state-badge state-${state}`}>{STATE_LABEL[state]}</span>
                  <span className="muted">{relativeTime(s.updated_ms)}</span>
                  <span className="muted session-cost">{formatCost(s.cost_usd)}</span>
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
