// Review of a proposed write or edit: each hunk with its own Accept / Reject, shown as a
// CodeMirror diff (unified or side by side), and the whole file on demand.
import { useEffect, useRef, useState } from "react";
import type { Hunk } from "../bindings";
import { hunkRange, hunkSides } from "../approval";
import type { DiffLayout } from "./MergeDiff";
import { MergeDiff } from "./lazy";

type Props = {
  path: string;
  original: string;
  proposed: string;
  hunks: Hunk[];
  accepted: boolean[];
  /** Takes an updater, so quick clicks in a row each see the one before. */
  onChange: (update: (accepted: boolean[]) => boolean[]) => void;
  focused: number;
  onFocus: (index: number) => void;
};

let rememberedLayout: DiffLayout = "unified";

export function DiffReview({ path, original, proposed, hunks, accepted, onChange, focused, onFocus }: Props) {
  const [layout, setLayoutState] = useState<DiffLayout>(rememberedLayout);
  const [wholeFile, setWholeFile] = useState(false);
  const setLayout = (l: DiffLayout) => {
    rememberedLayout = l;
    setLayoutState(l);
  };
  const isNew = original === "";
  const acceptedCount = accepted.filter(Boolean).length;
  const setOne = (i: number, value: boolean) => onChange((prev) => prev.map((a, j) => (j === i ? value : a)));

  return (
    <div className="diff-review" data-testid="diff-review">
      <div className="diff-toolbar">
        <span className="diff-path">{path}</span>
        {isNew && <span className="pill added">New file</span>}
        <span className="muted">
          {hunks.length === 1 ? "1 change" : `${hunks.length} changes`}
          {hunks.length > 1 && ` · ${acceptedCount} accepted`}
        </span>
        <span className="spacer" />
        <div className="segmented" role="group" aria-label="Diff layout">
          <button aria-pressed={layout === "unified"} onClick={() => setLayout("unified")} data-testid="layout-unified">
            Unified
          </button>
          <button aria-pressed={layout === "split"} onClick={() => setLayout("split")} data-testid="layout-split">
            Side by side
          </button>
        </div>
        <button aria-pressed={wholeFile} onClick={() => setWholeFile(!wholeFile)} title="Show the whole file with the changes">
          Whole file
        </button>
        {hunks.length > 1 && (
          <>
            <button data-testid="accept-all" onClick={() => onChange(() => hunks.map(() => true))}>
              Accept all
            </button>
            <button data-testid="reject-all" onClick={() => onChange(() => hunks.map(() => false))}>
              Reject all
            </button>
          </>
        )}
      </div>
      {wholeFile && (
        <div className="diff-whole">
          <MergeDiff path={path} original={original} modified={proposed} layout={layout} collapse testId="whole-file-diff" />
        </div>
      )}
      <ol className="hunk-list">
        {hunks.map((hunk, i) => (
          <HunkSection
            key={hunk.index}
            hunk={hunk}
            position={i}
            total={hunks.length}
            path={path}
            layout={layout}
            accepted={accepted[i] !== false}
            focused={focused === i}
            onAccept={() => setOne(i, true)}
            onReject={() => setOne(i, false)}
            onFocus={() => onFocus(i)}
          />
        ))}
      </ol>
    </div>
  );
}

type HunkProps = {
  hunk: Hunk;
  position: number;
  total: number;
  path: string;
  layout: DiffLayout;
  accepted: boolean;
  focused: boolean;
  onAccept: () => void;
  onReject: () => void;
  onFocus: () => void;
};

function HunkSection({ hunk, position, total, path, layout, accepted, focused, onAccept, onReject, onFocus }: HunkProps) {
  const ref = useRef<HTMLLIElement>(null);
  // Focus from the keyboard (j/k) brings the hunk into view; focus from a click must not scroll,
  // or the button moves away between mouse down and up and the click is lost.
  const byPointer = useRef(false);
  useEffect(() => {
    if (focused && !byPointer.current) ref.current?.scrollIntoView({ block: "nearest" });
    byPointer.current = false;
  }, [focused]);
  const { before, after } = hunkSides(hunk);
  return (
    <li
      ref={ref}
      className={["hunk", accepted ? "accepted" : "rejected", focused ? "focused" : ""].join(" ")}
      data-testid="hunk"
      data-index={hunk.index}
      data-state={accepted ? "accepted" : "rejected"}
      onMouseDown={() => {
        byPointer.current = true;
        onFocus();
      }}
    >
      <div className="hunk-header">
        <span className="hunk-title">
          Change {position + 1} of {total} <span className="muted">· {hunkRange(hunk)}</span>
        </span>
        <span className="hunk-state">{accepted ? "Will be applied" : "Rejected — will not be applied"}</span>
        <div className="segmented" role="group" aria-label={`Change ${position + 1}`}>
          <button
            className={accepted ? "choice accept on" : "choice accept"}
            aria-pressed={accepted}
            data-testid="hunk-accept"
            onClick={onAccept}
            title="Accept this change (y)"
          >
            ✓ Accept
          </button>
          <button
            className={accepted ? "choice reject" : "choice reject on"}
            aria-pressed={!accepted}
            data-testid="hunk-reject"
            onClick={onReject}
            title="Reject this change (n)"
          >
            ✕ Reject
          </button>
        </div>
      </div>
      <div className="hunk-body">
        <MergeDiff
          path={path}
          original={before}
          modified={after}
          layout={layout}
          firstLineA={hunk.old_start}
          firstLineB={hunk.new_start}
        />
      </div>
    </li>
  );
}
