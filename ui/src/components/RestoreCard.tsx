// A restore before it happens, pinned above the composer where approvals are asked: the choice
// of what comes back (files, conversation or both), every file it will change in the same diff
// view as an approval, the files it cannot bring back and why, and the turns the conversation
// loses. Nothing changes until Restore is pressed, and the restore itself can be undone. An
// Undo of the last turn is the same card in its own words.
import { useEffect, useRef, useState } from "react";
import type { RestoreFile, RestorePreview, RestoreScope } from "../bindings";
import { call, toAppError } from "../api";
import { reasonWords, SCOPES } from "../restore";
import { useSession, type RestoreAsk } from "../session";
import type { DiffLayout } from "./MergeDiff";
import { MergeDiff } from "./lazy";
import { FilePath } from "./FilePath";
import { shownPath } from "../format";

export function RestoreCard() {
  const ask = useSession((s) => s.restoreAsk);
  const session = useSession((s) => s.current?.id ?? null);
  if (!ask || !session) return null;
  return <RestoreQuestion key={JSON.stringify([session, ask.target, ask.paths])} ask={ask} session={session} />;
}

function RestoreQuestion({ ask, session }: { ask: RestoreAsk; session: string }) {
  const askRestore = useSession((s) => s.askRestore);
  const restore = useSession((s) => s.restore);
  const setDraft = useSession((s) => s.setDraft);
  const restoring = useSession((s) => s.restoring);
  const running = useSession((s) => s.runningSession !== null);
  const [scope, setScope] = useState<RestoreScope>(ask.scopes[0] ?? "both");
  const [preview, setPreview] = useState<{ scope: RestoreScope; value: RestorePreview } | null>(() =>
    ask.preview ? { scope: ask.scopes[0] ?? "both", value: ask.preview } : null,
  );
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [layout, setLayout] = useState<DiffLayout>("unified");

  // The scope whose preview came with the ask (an Undo read it already): not read twice.
  const given = useRef<RestoreScope | null>(ask.preview ? (ask.scopes[0] ?? "both") : null);

  useEffect(() => {
    if (given.current === scope) {
      given.current = null;
      return;
    }
    let live = true;
    setError(null);
    call("restore_preview", { session, target: ask.target, scope, paths: ask.paths })
      .then((value) => live && setPreview({ scope, value }))
      .catch((err: unknown) => live && setError(`What the restore would change cannot be shown: ${toAppError(err).message}`));
    return () => {
      live = false;
    };
  }, [session, ask, scope]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") askRestore(null);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [askRestore]);

  const shown = preview?.scope === scope ? preview.value : null;
  const files = shown?.files ?? [];
  // The person's own files first; caches and build output a program made fold away below them.
  const own = files.filter((f) => !f.generated);
  const generated = files.filter((f) => f.generated);
  const notByAgent = own.filter((f) => f.not_by_agent || f.changed_after_agent).length;
  const chosen = files.find((f) => f.path === selected) ?? own[0] ?? generated[0];
  const nothing = shown !== null && scope !== "conversation_only" && files.length === 0;
  const undo = ask.undo === true;
  // Undo's own testids, so a test that means an undo cannot press a restore's button by mistake.
  const act = undo ? "undo" : "restore";
  return (
    <section className="approval-card restore-card" data-testid="restore-card" aria-label={undo ? "Undo" : "Restore"}>
      <header className="approval-header">
        <span className="approval-badge" aria-hidden>
          {undo ? "↶" : "↺"}
        </span>
        <div className="approval-heading">
          <strong data-testid="restore-title">{undo ? ask.title : `Restore ${ask.title}`}</strong>
          <span className="muted">
            {undo
              ? "Nothing changes until you press Undo these changes, and the undo can itself be undone."
              : "Nothing changes until you press Restore, and a restore can be undone."}
          </span>
        </div>
      </header>
      {ask.scopes.length > 1 && (
        <div className="segmented restore-scopes" role="radiogroup" aria-label="What to restore">
          {SCOPES.filter((s) => ask.scopes.includes(s.scope)).map((s) => (
            <button
              key={s.scope}
              role="radio"
              aria-checked={scope === s.scope}
              aria-pressed={scope === s.scope}
              data-testid={`restore-scope-${s.scope}`}
              onClick={() => setScope(s.scope)}
              title={s.hint}
            >
              {s.label}
            </button>
          ))}
        </div>
      )}
      <div className="approval-body restore-body" data-testid="restore-preview" data-ready={shown !== null}>
        {error && (
          <div className="banner error" role="alert">
            {error}
          </div>
        )}
        {!shown && !error && <p className="muted">Looking at what would change…</p>}
        {shown && <PreviewSummary preview={shown} />}
        {ask.keeps && ask.keeps.length > 0 && <Keeps keeps={ask.keeps} undoToo={() => askRestore({ ...ask, paths: null, keeps: [] })} />}
        {nothing && <p data-testid="restore-nothing">The files are already as they were then: nothing to change.</p>}
        {files.length > 0 && (
          <>
            {notByAgent > 0 && (
              <p className="banner warn" data-testid="restore-not-by-agent-note">
                {notByAgent === 1
                  ? `1 of these changes was not made by the agent — your own edit, or another program's. ${undo ? "Undoing" : "Restoring"} takes it away too.`
                  : `${notByAgent} of these changes were not made by the agent — your own edits, or another program's. ${undo ? "Undoing" : "Restoring"} takes them away too.`}
              </p>
            )}
            {own.length > 0 && <FileList files={own} chosen={chosen} choose={setSelected} />}
            {generated.length > 0 && (
              <details className="restore-generated" data-testid="restore-generated" open={own.length === 0 || undefined}>
                <summary>
                  {generated.length === 1 ? "1 generated file also goes back" : `${generated.length} generated files also go back`}
                  <span className="muted"> (caches and build output)</span>
                </summary>
                <FileList files={generated} chosen={chosen} choose={setSelected} />
              </details>
            )}
            {chosen && <FileDiff file={chosen} layout={layout} setLayout={setLayout} />}
          </>
        )}
      </div>
      <div className="approval-bottom">
        <footer className="approval-actions">
          <button data-testid={`${act}-cancel`} onClick={() => askRestore(null)} disabled={restoring}>
            Cancel
          </button>
          <button
            className="primary"
            data-testid={`${act}-confirm`}
            disabled={restoring || running || !shown}
            onClick={() =>
              void restore(ask.target, scope, ask.paths).then((r) => {
                // The message leaves the conversation: it comes back to the composer, to send
                // again or change.
                if (r && scope !== "files_only" && ask.text !== null) setDraft(ask.text);
              })
            }
            title={running ? "Wait for the turn to end, or stop it" : undefined}
          >
            {restoring ? (undo ? "Undoing…" : "Restoring…") : undo ? "Undo these changes" : "Restore"}
          </button>
        </footer>
      </div>
    </section>
  );
}

/** The files an Undo leaves as they are, by name: the person's own changes, and the files they
 * changed after the agent, which stay whole, the agent's change in them included. */
function Keeps({ keeps, undoToo }: { keeps: NonNullable<RestoreAsk["keeps"]>; undoToo: () => void }) {
  const mine = keeps.filter((k) => !k.afterAgent);
  const whole = keeps.filter((k) => k.afterAgent);
  return (
    <div className="banner warn restore-keeps" data-testid="restore-keeps">
      <span>
        {mine.length > 0 && (
          <span data-testid="restore-keeps-mine">
            {mine.length === 1 ? "Your own change stays as it is: " : "Your own changes stay as they are: "}
            <Paths keeps={mine} />. Going back would take {mine.length === 1 ? "it" : "them"} away too.
          </span>
        )}
        {mine.length > 0 && whole.length > 0 && " "}
        {whole.length > 0 && (
          // Kept whole, so the agent's own edit stays too: an Undo that says only "your change
          // stays" would let the person think the agent's part went back.
          <span data-testid="restore-keeps-whole">
            <Paths keeps={whole} />
            {whole.length === 1
              ? " changed again after the agent's edit, so it stays whole as it is now, the agent's change included. Going back would take the later change away with the agent's."
              : " changed again after the agent's edits, so they stay whole as they are now, the agent's changes included. Going back would take the later changes away with the agent's."}
          </span>
        )}
      </span>
      <button className="small" data-testid="restore-keeps-undo-too" onClick={undoToo}>
        Undo {keeps.length === 1 ? "it" : "them"} too
      </button>
    </div>
  );
}

function Paths({ keeps }: { keeps: NonNullable<RestoreAsk["keeps"]> }) {
  return (
    <>
      {keeps.map((k, i) => (
        <span key={k.path}>
          {i > 0 && ", "}
          <code>{shownPath(k.path)}</code>
        </span>
      ))}
    </>
  );
}

function FileList({
  files,
  chosen,
  choose,
}: {
  files: RestoreFile[];
  chosen: RestoreFile | undefined;
  choose: (path: string) => void;
}) {
  return (
    <ul className="change-list restore-files">
      {files.map((f) => (
        <li key={f.path}>
          <button
            className={f.path === chosen?.path ? "change-item active" : "change-item"}
            data-testid="restore-file"
            data-action={f.action}
            data-generated={f.generated}
            onClick={() => choose(f.path)}
            title={f.path}
          >
            <FilePath className="change-path" path={f.path} />
            <ActionPill file={f} />
            {f.not_by_agent && (
              <span
                className="pill warn"
                data-testid="restore-not-by-agent"
                title="The agent did not make this change: it is yours, or another program's"
              >
                not the agent's
              </span>
            )}
            {f.changed_after_agent && (
              <span
                className="pill warn"
                data-testid="restore-changed-after-agent"
                title="It changed again after the agent's edit: going back takes both away"
              >
                changed since the agent
              </span>
            )}
            {!f.binary && (
              <>
                <span className="plus">+{f.added_lines}</span>
                <span className="minus">−{f.removed_lines}</span>
              </>
            )}
          </button>
        </li>
      ))}
    </ul>
  );
}

function ActionPill({ file }: { file: RestoreFile }) {
  switch (file.action) {
    case "create":
      return <span className="pill added">comes back</span>;
    case "delete":
      return <span className="pill deleted">removed</span>;
    case "modify":
      return null;
  }
}

function PreviewSummary({ preview }: { preview: RestorePreview }) {
  const files = preview.scope !== "conversation_only";
  const conversation = preview.scope !== "files_only";
  return (
    <div className="restore-summary" data-testid="restore-summary">
      {files && (
        <p className="muted" data-testid="restore-git-note" data-git={preview.git}>
          {preview.git
            ? "Files git ignores (build output, node_modules and the like) are not restored."
            : "This folder is not a git repository: what the agent's own edits changed comes back, but not what commands changed."}
        </p>
      )}
      {files && preview.not_restorable.length > 0 && (
        <div className="restore-kept" data-testid="restore-not-restorable">
          <p>
            {preview.not_restorable.length === 1
              ? "1 changed file stays as it is:"
              : `${preview.not_restorable.length} changed files stay as they are:`}
          </p>
          <ul>
            {preview.not_restorable.map((n) => (
              <li key={n.path} data-reason={n.reason}>
                <code>{shownPath(n.path)}</code> <span className="muted">— {reasonWords(n.reason)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {conversation && (
        <p data-testid="restore-turns">
          {preview.turns_removed === 0
            ? "The conversation keeps every turn."
            : `The conversation goes back: ${preview.turns_removed === 1 ? "1 turn leaves it" : `${preview.turns_removed} turns leave it`}.`}
        </p>
      )}
      {preview.stops_tasks.length > 0 && (
        <p className="restore-tasks">Background work is stopped first: {preview.stops_tasks.join(", ")}.</p>
      )}
    </div>
  );
}

function FileDiff({
  file,
  layout,
  setLayout,
}: {
  file: RestoreFile;
  layout: DiffLayout;
  setLayout: (l: DiffLayout) => void;
}) {
  return (
    <div className="diff-review restore-diff" data-testid="diff-review">
      <div className="diff-toolbar">
        <div className="segmented" role="group" aria-label="How to show the change">
          <button aria-pressed={layout === "unified"} onClick={() => setLayout("unified")} data-testid="layout-unified">
            Unified
          </button>
          <button aria-pressed={layout === "split"} onClick={() => setLayout("split")} data-testid="layout-split">
            Side by side
          </button>
        </div>
        <span className="muted diff-count" title={file.path}>
          {shownPath(file.path)}: now → as it will be
        </span>
      </div>
      <div className="diff-scroll">
        {file.binary ? (
          <p className="muted">Not shown: this file is not text, or too big to show.</p>
        ) : (
          <MergeDiff
            path={file.path}
            original={file.current ?? ""}
            modified={file.restored ?? ""}
            layout={layout}
            collapse
            testId="restore-diff"
          />
        )}
      </div>
    </div>
  );
}
