// Every file this session changed, with how much, and the change itself (before → now).
import { useEffect, useState } from "react";
import type { SessionFileChange } from "../bindings";
import { call, toAppError } from "../api";
import { useSession } from "../session";
import { useApp } from "../store";
import type { DiffLayout } from "./MergeDiff";
import { MergeDiff } from "./lazy";
import { FilePath } from "./FilePath";

export function ChangesPanel() {
  const sessionId = useSession((s) => s.current?.id ?? null);
  const version = useSession((s) => s.changesVersion);
  const [changes, setChanges] = useState<{ session: string; list: SessionFileChange[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  // A card asked for one file's change (a command's): show it.
  const focus = useApp((s) => s.changesFocus);
  useEffect(() => {
    if (focus !== null) setSelected(focus);
  }, [focus]);
  const [layout, setLayout] = useState<DiffLayout>("unified");
  const askRestore = useSession((s) => s.askRestore);
  const idle = useSession((s) => s.runningSession === null && !s.restoring);
  // Back to how the file was before the session changed it, previewed first.
  const revert = (paths: string[] | null) =>
    askRestore({
      target: { kind: "session_start" },
      scopes: ["files_only"],
      paths,
      title: paths?.length === 1 ? `${paths[0]} as it was before this session` : "every file as it was before this session",
      text: null,
    });

  useEffect(() => {
    if (!sessionId) return;
    let live = true;
    call("session_changes", { session: sessionId })
      .then((list) => {
        if (!live) return;
        setChanges({ session: sessionId, list });
        setError(null);
      })
      .catch((err: unknown) => live && setError(`The changes could not be read: ${toAppError(err).message}`));
    return () => {
      live = false;
    };
  }, [sessionId, version]);

  if (!sessionId) {
    return <p className="muted panel-empty">Files the agent changes in this session are listed here for review.</p>;
  }
  const list = changes?.session === sessionId ? changes.list : [];
  const chosen = list.find((c) => c.path === selected) ?? list[0];
  return (
    <div className="changes-panel" data-testid="changes-panel">
      {error && (
        <div className="banner error panel-banner" role="alert">
          {error}
        </div>
      )}
      {list.length === 0 && !error && <p className="muted panel-empty">No files changed in this session yet.</p>}
      {list.length > 0 && (
        <div className="panel-toolbar changes-toolbar">
          <span className="muted">{list.length === 1 ? "1 file changed" : `${list.length} files changed`}</span>
          <span className="spacer" />
          <button
            data-testid="revert-all"
            disabled={!idle}
            onClick={() => revert(null)}
            title="Bring every file back to how it was before this session (previewed first)"
          >
            Revert all
          </button>
        </div>
      )}
      {list.length > 0 && (
        <ul className="change-list">
          {list.map((c) => (
            <li key={c.path}>
              <button
                className={c.path === chosen?.path ? "change-item active" : "change-item"}
                data-testid="change-item"
                onClick={() => setSelected(c.path)}
                title={c.path}
              >
                <FilePath className="change-path" path={c.path} />
                {c.before === null && <span className="pill added">new</span>}
                {c.after === null && <span className="pill deleted">deleted</span>}
                <span className="plus">+{c.added_lines}</span>
                <span className="minus">−{c.removed_lines}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {chosen && (
        <div className="change-diff">
          <div className="diff-toolbar">
            <span className="diff-path">{chosen.path}</span>
            <span className="spacer" />
            <button
              data-testid="revert-file"
              disabled={!idle}
              onClick={() => revert([chosen.path])}
              title="Bring this file back to how it was before this session (previewed first)"
            >
              Revert file
            </button>
            <div className="segmented" role="group" aria-label="Diff layout">
              <button aria-pressed={layout === "unified"} onClick={() => setLayout("unified")}>
                Unified
              </button>
              <button aria-pressed={layout === "split"} onClick={() => setLayout("split")}>
                Side by side
              </button>
            </div>
          </div>
          <MergeDiff
            path={chosen.path}
            original={chosen.before ?? ""}
            modified={chosen.after ?? ""}
            layout={layout}
            collapse
            testId="change-diff"
          />
        </div>
      )}
    </div>
  );
}
