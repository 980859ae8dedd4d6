// A read-only CodeMirror diff of two texts: unified (one column, deletions shown above the new
// lines) or side by side.
import { useEffect, useRef } from "react";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { MergeView, unifiedMergeView } from "@codemirror/merge";
import { readOnlySetup } from "../codemirror";

export type DiffLayout = "unified" | "split";

type Props = {
  path: string;
  original: string;
  modified: string;
  layout: DiffLayout;
  /** Line numbers of the first line on each side (for a hunk cut out of a file). */
  firstLineA?: number;
  firstLineB?: number;
  /** Fold long unchanged stretches (whole files). */
  collapse?: boolean;
  testId?: string;
};

export function MergeDiff({ path, original, modified, layout, firstLineA = 1, firstLineB = 1, collapse, testId }: Props) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const collapseUnchanged = collapse ? { margin: 3, minSize: 6 } : undefined;
    if (layout === "unified") {
      const view = new EditorView({
        parent,
        state: EditorState.create({
          doc: modified,
          extensions: [
            ...readOnlySetup(path, firstLineB),
            unifiedMergeView({ original, mergeControls: false, gutter: true, highlightChanges: true, collapseUnchanged }),
          ],
        }),
      });
      return () => view.destroy();
    }
    const view = new MergeView({
      parent,
      a: { doc: original, extensions: readOnlySetup(path, firstLineA) },
      b: { doc: modified, extensions: readOnlySetup(path, firstLineB) },
      gutter: true,
      highlightChanges: true,
      collapseUnchanged,
    });
    return () => view.destroy();
  }, [path, original, modified, layout, firstLineA, firstLineB, collapse]);
  return <div className={`merge-diff ${layout}`} ref={host} data-testid={testId} data-layout={layout} />;
}
