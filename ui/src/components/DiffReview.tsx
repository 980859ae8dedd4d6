// Review of a proposed write or edit: each hunk with its own Accept / Reject, shown as a
// CodeMirror diff (unified or side by side), or the whole file as it will be written.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from "react";
import type { Hunk } from "../bindings";
import { hunkRange, hunkSides, previewMerge } from "../approval";
import { diffViewShown } from "../layout";
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

/** How the change is shown: hunk by hunk in a layout, or the whole file as it will be. */
type View = DiffLayout | "whole";

let rememberedLayout: DiffLayout = "unified";

/** An element's width as laid out, following resizes; null until known. */
function useWidth(ref: RefObject<HTMLElement | null>): number | null {
  const [width, setWidth] = useState<number | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const set = (w: number) => setWidth(w > 0 ? Math.round(w) : null);
    set(el.clientWidth);
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver((entries) => {
      const entry = entries[0];
      if (entry) set(entry.contentRect.width);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

export function DiffReview({ path, original, proposed, hunks, accepted, onChange, focused, onFocus }: Props) {
  const [chosen, setChosen] = useState<View>(rememberedLayout);
  // A layout picked on this diff is followed whatever the width; the remembered one gives way
  // to unified where side by side would be too narrow (see diffViewShown).
  const [chosenHere, setChosenHere] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const width = useWidth(root);
  const view = diffViewShown(chosen, width, chosenHere);
  const narrowed = chosen === "split" && view === "unified";
  const setView = (v: View) => {
    // The whole file is a look before deciding; the next review starts hunk by hunk.
    if (v !== "whole") rememberedLayout = v;
    setChosen(v);
    setChosenHere(true);
  };
  const isNew = original === "";
  const acceptedCount = accepted.filter(Boolean).length;
  const setOne = (i: number, value: boolean) => onChange((prev) => prev.map((a, j) => (j === i ? value : a)));

  return (
    <div className="diff-review" data-testid="diff-review" data-view={view} ref={root}>
      <div className="diff-toolbar">
        <div className="segmented" role="group" aria-label="How to show the change">
          <button aria-pressed={view === "unified"} onClick={() => setView("unified")} data-testid="layout-unified">
            Unified
          </button>
          <button
            aria-pressed={view === "split"}
            onClick={() => setView("split")}
            data-testid="layout-split"
            title={narrowed ? "Too narrow here for side by side, so it is shown unified: click to see it side by side anyway" : undefined}
          >
            Side by side
          </button>
          <button
            aria-pressed={view === "whole"}
            onClick={() => setView("whole")}
            data-testid="layout-whole"
            title="The whole file as it will be written, with only the changes you accept"
          >
            Whole file
          </button>
        </div>
        {isNew && <span className="pill added">New file</span>}
        <span className="muted diff-count" title={path}>
          {hunks.length === 1 ? "1 change" : `${hunks.length} changes`}
          {hunks.length > 1 && ` · ${acceptedCount} accepted`}
        </span>
        <span className="spacer" />
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
      <div className="diff-scroll">
        {view === "whole" ? (
          <WholeFile path={path} original={original} proposed={proposed} hunks={hunks} accepted={accepted} />
        ) : (
          <ol className="hunk-list">
            {hunks.map((hunk, i) => (
              <HunkSection
                key={hunk.index}
                hunk={hunk}
                position={i}
                total={hunks.length}
                path={path}
                layout={view}
                accepted={accepted[i] !== false}
                focused={focused === i}
                onAccept={() => setOne(i, true)}
                onReject={() => setOne(i, false)}
                onFocus={() => onFocus(i)}
              />
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}

/** The file as the engine will write it: the accepted hunks in, the rejected ones left out. */
function WholeFile({ path, original, proposed, hunks, accepted }: Omit<Props, "onChange" | "focused" | "onFocus">) {
  const merged = useMemo(() => previewMerge(original, proposed, hunks, accepted), [original, proposed, hunks, accepted]);
  const kept = hunks.filter((_, i) => accepted[i] !== false).length;
  const rejected = hunks.length - kept;
  const caption =
    kept === 0
      ? "Nothing will be written: the file stays as it is."
      : rejected === 0
        ? "The file as it will be written."
        : `The file as it will be written: ${kept} ${kept === 1 ? "change" : "changes"} in, ${rejected} rejected left out.`;
  return (
    <div className="diff-whole" data-testid="whole-file" data-kept={kept}>
      <p className="diff-whole-caption muted">{caption}</p>
      <MergeDiff path={path} original={original} modified={merged} layout="unified" collapse testId="whole-file-diff" />
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
