// What a command changed in the project, on its card: each file with +/− (a click shows its
// diff in the Changes panel), what did not land and why, and ignored output summed up per
// folder. Deletions and replaced folders come first and are never folded away.
import type { CommandChanges as Changes, CommandFileChange, Fate } from "../bindings";
import { useApp } from "../store";
import { FilePath } from "./FilePath";
import { changeWords, fateWords, ignoredWords } from "../commandChanges";

export function CommandChanges({ changes }: { changes: Changes }) {
  const showChange = useApp((s) => s.showChange);
  if (changes.files.length === 0 && changes.ignored.length === 0) return null;
  return (
    <div className="command-changes" data-testid="command-changes">
      {changes.files.length > 0 && (
        <ul className="change-list command-change-list">
          {changes.files.map((f) => (
            <li key={f.path}>
              <FileRow file={f} onShow={f.fate.kind === "landed" && f.item !== "folder" ? () => showChange(f.path) : null} />
              {/* Why it stayed out is said, not left to a tooltip. */}
              {f.fate.kind !== "landed" && (
                <p className="command-why muted" data-testid="command-why">
                  {fateWords(f)}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      {changes.ignored.map((o) => (
        <p key={o.path} className="muted command-ignored" data-testid="command-ignored">
          {ignoredWords(o)}
        </p>
      ))}
    </div>
  );
}

function FileRow({ file, onShow }: { file: CommandFileChange; onShow: (() => void) | null }) {
  const body = (
    <>
      <FilePath className="change-path" path={file.path} />
      <span className={`pill ${pillClass(file)}`}>{changeWords(file)}</span>
      {file.lines && (
        <>
          <span className="plus">+{file.lines.added}</span>
          <span className="minus">−{file.lines.removed}</span>
        </>
      )}
      {file.fate.kind !== "landed" && <FateNote fate={file.fate} file={file} />}
      {file.fate.kind === "landed" && file.merged && (
        <span className="command-fate merged" data-testid="command-merged" title={fateWords(file)}>
          merged with your edits
        </span>
      )}
    </>
  );
  return onShow ? (
    <button
      className="change-item"
      data-testid="command-change"
      data-fate={file.fate.kind}
      onClick={onShow}
      title={`Show the change to ${file.path}`}
    >
      {body}
    </button>
  ) : (
    <div className="change-item" data-testid="command-change" data-fate={file.fate.kind}>
      {body}
    </div>
  );
}

function FateNote({ fate, file }: { fate: Fate; file: CommandFileChange }) {
  return (
    <span className={`command-fate ${fate.kind}`} title={fateWords(file)}>
      {fate.kind === "conflict" ? "kept yours" : fate.kind === "rejected" ? "rejected" : "not landed"}
    </span>
  );
}

function pillClass(f: CommandFileChange): string {
  if (f.change === "deleted" || f.change === "replaced") return "deleted";
  if (f.change === "created") return "added";
  return "changed";
}
