// A commit asked about: what goes in, file by file, with each file's diff a click away, and a
// warning on a file whose change the person never saw in Tandem (made outside it, or before the
// session) — a commit must not be approved blind.
import type { CommitFile, CommitPreview } from "../bindings";

const CHANGE: Record<CommitFile["change"], string> = { added: "new", modified: "changed", deleted: "deleted" };

function DiffText({ diff }: { diff: string }) {
  const lines = diff.endsWith("\n") ? diff.slice(0, -1).split("\n") : diff.split("\n");
  return (
    <div className="commit-diff" data-testid="commit-file-diff">
      {lines.map((line, i) => (
        <div
          key={i}
          className={
            line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-del" : line.startsWith("@@") ? "diff-hunk" : undefined
          }
        >
          {line || " "}
        </div>
      ))}
    </div>
  );
}

export function CommitReview({ commit }: { commit: CommitPreview }) {
  const unseen = commit.files.filter((f) => !f.seen).length;
  // What the person never saw comes first: it is what needs looking at.
  const files = [...commit.files.filter((f) => !f.seen), ...commit.files.filter((f) => f.seen)];
  return (
    <div className="commit-review" data-testid="commit-review">
      <p className="commit-message">
        <span className="muted">Message: </span>
        <span data-testid="commit-message">{commit.message}</span>
      </p>
      {unseen > 0 && (
        <p className="commit-warning" role="note" data-testid="commit-unseen-warning">
          {unseen === 1 ? "1 file" : `${unseen} files`} in this commit changed where you did not see it in Tandem
          (outside it, or before this session). Look at {unseen === 1 ? "its" : "their"} changes before you approve.
        </p>
      )}
      <ul className="commit-files">
        {files.map((f) => (
          <li key={f.path} data-testid="commit-file" data-seen={f.seen} data-change={f.change}>
            <details open={!f.seen || commit.files.length <= 3}>
              <summary>
                <code>{f.path}</code> <span className="muted">{CHANGE[f.change]}</span>{" "}
                <span className="diff-count">
                  <span className="add">+{f.added}</span> <span className="del">−{f.removed}</span>
                </span>
                {!f.seen && (
                  <span className="pill warn" data-testid="commit-unseen">
                    not seen in Tandem
                  </span>
                )}
              </summary>
              {f.secret ? (
                <p className="muted small" data-testid="commit-secret">
                  A secret file (keys, passwords): its content is not shown here. Committing it puts it in the history.
                </p>
              ) : f.diff === "" ? (
                <p className="muted small">No text to show (a binary or very large file).</p>
              ) : (
                <DiffText diff={f.diff} />
              )}
            </details>
          </li>
        ))}
      </ul>
      {commit.more > 0 && (
        <p className="muted small" data-testid="commit-more">
          And {commit.more} more {commit.more === 1 ? "file" : "files"}.
        </p>
      )}
    </div>
  );
}
