// The project's sessions, newest first; open one to read it or carry on in it.
import type { SessionState } from "../bindings";
import { useSession } from "../session";
import { formatCost, relativeTime } from "../format";
import { call, toAppError } from "../api";
import { useEffect, useState } from "react";
import type { SearchHit } from "../bindings";

const STATE_LABEL: Record<SessionState, string> = {
  running: "Running",
  waiting: "Waiting for you",
  done: "Done",
  done_with_warnings: "Done — check it",
  ended: "Ended",
  paused: "Paused — tell it how to go on",
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
  const root = useSession((s) => s.root);
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [searchError, setSearchError] = useState<string | null>(null);

  // Searched as the person types, once they pause; an older answer never replaces a newer one.
  useEffect(() => {
    const q = query.trim();
    if (!root || q === "") {
      setHits(null);
      setSearchError(null);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      call("search_sessions", { root, query: q })
        .then((found) => {
          if (stale) return;
          setHits(found);
          setSearchError(null);
        })
        .catch((err) => {
          if (!stale) setSearchError(toAppError(err).message);
        });
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query, root]);


  return (
    <div className="session-panel">
      <div className="panel-toolbar">
        <button className="new-session" data-testid="new-session" onClick={newSession} disabled={current === null}>
          + New session
        </button>
        <button className="link-button" onClick={() => void refresh()} title="Reload the list">
          Refresh
        </button>
      </div>
      {error && (
        <div className="banner error panel-banner" role="alert">
          The sessions could not be listed: {error}
        </div>
      )}
      <div className="session-search">
        <input
          type="search"
          data-testid="session-search"
          placeholder="Search sessions"
          aria-label="Search this project's sessions: messages, tool results, files"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setQuery("");
          }}
        />
      </div>
      {searchError && (
        <div className="banner error panel-banner" role="alert">
          The search failed: {searchError}
        </div>
      )}
      {hits !== null && (
        <>
          <p className="muted small panel-empty" role="status" data-testid="search-count">
            {hits.length === 0
              ? `No session mentions “${query.trim()}”.`
              : hits.length === 1
                ? `1 session mentions “${query.trim()}”`
                : `${hits.length} sessions mention “${query.trim()}”`}
          </p>
          <ul className="session-list search-hits" aria-label="Sessions found">
            {hits.map((h) => (
              <li key={h.session}>
                <button
                  className={h.session === current?.id ? "session-item active" : "session-item"}
                  data-testid="search-hit"
                  data-id={h.session}
                  onClick={() => void openSession(h.session, query.trim())}
                  title={h.title}
                >
                  <span className="session-title">{h.title || "Untitled session"}</span>
                  <span className="search-snippet">{h.snippet}</span>
                  <span className="session-meta">
                    <span className="muted">
                      {h.matches} match{h.matches === 1 ? "" : "es"}
                    </span>
                    <span className="muted">{relativeTime(h.updated_ms)}</span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {hits === null && loaded && sessions.length === 0 && !error && (
        <p className="muted panel-empty">No sessions yet. Describe a task in the box on the right to start one.</p>
      )}
      <ul className="session-list" data-testid="session-list" aria-label="Sessions" hidden={hits !== null}>
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
