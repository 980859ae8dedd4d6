// A command's changes, waiting for the person's yes before they land: each file with its diff
// (hunk by hunk, as for an edit), or a change kept or rejected whole (a new folder, a
// deletion, a binary, a link). Deletions and replaced folders come first and are never folded
// away; files that would make another program run code say why, and start rejected.
import { useState } from "react";
import type { ChangeReview, ReviewFile } from "../bindings";
import { changeWords, ignoredWords, runsCodeWords } from "../commandChanges";
import { piecesOf, type ReviewChoice } from "../commandReview";
import { DiffReview } from "./DiffReview";
import { FilePath } from "./FilePath";

type Props = {
  review: ChangeReview;
  choice: ReviewChoice;
  /** Takes an updater, so quick clicks in a row each see the one before. */
  onChange: (update: (choice: ReviewChoice) => ReviewChoice) => void;
};

export function CommandReview({ review, choice, onChange }: Props) {
  return (
    <div className="command-review" data-testid="command-review">
      {review.ignored.length > 0 && (
        <div className="review-ignored muted" data-testid="review-ignored">
          Already in the project (git ignores these, so they land without a question):
          <ul>
            {review.ignored.map((o) => (
              <li key={o.path}>{ignoredWords(o)}</li>
            ))}
          </ul>
        </div>
      )}
      <ol className="review-files">
        {review.files.map((f) => (
          <ReviewFileItem key={f.path} file={f} choice={choice} onChange={onChange} />
        ))}
      </ol>
    </div>
  );
}

function ReviewFileItem({ file, choice, onChange }: { file: ReviewFile } & Omit<Props, "review">) {
  const pieces = piecesOf(file);
  const kept = pieces.filter((p) => choice[p] !== false).length;
  const state = kept === 0 ? "rejected" : kept === pieces.length ? "accepted" : "partly";
  const [focused, setFocused] = useState(0);
  const set = (indices: number[], value: boolean) =>
    onChange((prev) => {
      const next = { ...prev };
      for (const i of indices) next[i] = value;
      return next;
    });
  const hasDiff = file.hunks.length > 0 && file.original !== undefined && file.proposed !== undefined;
  const risky = file.class.kind === "runs_code";
  return (
    <li
      className={["review-file", state, risky ? "risky" : ""].join(" ")}
      data-testid="review-file"
      data-path={file.path}
      data-change={file.change}
      data-class={file.class.kind}
      data-state={state}
    >
      <div className="review-file-header">
        <FilePath className="change-path" path={file.path} />
        <span className={`pill ${pillClass(file)}`}>{reviewChangeWords(file)}</span>
        {file.lines && (
          <>
            <span className="plus">+{file.lines.added}</span>
            <span className="minus">−{file.lines.removed}</span>
          </>
        )}
        <span className="spacer" />
        {!hasDiff && (
          <div className="segmented" role="group" aria-label={`The change to ${file.path}`}>
            <button
              className={kept > 0 ? "choice accept on" : "choice accept"}
              aria-pressed={kept > 0}
              data-testid="review-file-accept"
              onClick={() => set(pieces, true)}
            >
              ✓ Keep
            </button>
            <button
              className={kept === 0 ? "choice reject on" : "choice reject"}
              aria-pressed={kept === 0}
              data-testid="review-file-reject"
              onClick={() => set(pieces, false)}
            >
              ✕ Reject
            </button>
          </div>
        )}
      </div>
      {risky && file.class.kind === "runs_code" && (
        <p className="review-risk" data-testid="review-risk">
          Careful: {runsCodeWords(file.class.why)}. It lands only if you keep it.
        </p>
      )}
      {file.class.kind === "git" && (
        <p className="muted review-note">
          Git's own work (commits, branches, the index): it lands only together with all the files it belongs to.
        </p>
      )}
      {hasDiff ? (
        <DiffReview
          path={file.path}
          original={file.original ?? ""}
          proposed={file.proposed ?? ""}
          hunks={file.hunks}
          accepted={file.hunks.map((h) => choice[h.index] !== false)}
          onChange={(update) =>
            onChange((prev) => {
              const next = { ...prev };
              const before = file.hunks.map((h) => prev[h.index] !== false);
              update(before).forEach((v, i) => {
                const hunk = file.hunks[i];
                if (hunk) next[hunk.index] = v;
              });
              return next;
            })
          }
          focused={focused}
          onFocus={setFocused}
        />
      ) : (
        <p className="muted review-note">{wholeWords(file)}</p>
      )}
      {file.inside.length > 0 && <Inside file={file} open={risky} />}
    </li>
  );
}

/** What a folder under review holds (or, deleted, held): each file, its text a click away. */
function Inside({ file, open }: { file: ReviewFile; open: boolean }) {
  return (
    <ul className="review-inside" data-testid="review-inside">
      {file.inside.map((f) => (
        <li key={f.path}>
          {f.text !== null ? (
            <details open={open}>
              <summary>
                <FilePath path={f.path} />
              </summary>
              <pre className="review-inside-text">{f.text}</pre>
            </details>
          ) : (
            <span>
              <FilePath path={f.path} /> <span className="muted">(not text, or too large to show)</span>
            </span>
          )}
        </li>
      ))}
      {file.more_inside > 0 && (
        <li className="muted">
          and {file.more_inside} more {file.more_inside === 1 ? "file" : "files"}
        </li>
      )}
    </ul>
  );
}

function reviewChangeWords(f: ReviewFile): string {
  return changeWords({ ...f, fate: { kind: "landed" }, lines: f.lines ?? null });
}

/** What keeping a change shown whole does, in words. */
function wholeWords(f: ReviewFile): string {
  const what = f.item === "folder" ? "folder" : f.item === "symlink" ? "link" : "file";
  switch (f.change) {
    case "deleted":
      return `Keeping this deletes the ${what} and all it holds from your project.`;
    case "replaced":
      return "Keeping this replaces the folder: what the command left in it is all there will be.";
    case "created":
      return f.item === "file" ? "A new file that is not text (or too large to show)." : `A new ${what}.`;
    case "mode_changed":
      return "The same content with other permissions (made executable, say).";
    case "modified":
      return "Changed; not text (or too large to show as a diff).";
  }
}

function pillClass(f: ReviewFile): string {
  if (f.change === "deleted" || f.change === "replaced") return "deleted";
  if (f.change === "created") return "added";
  return "changed";
}
