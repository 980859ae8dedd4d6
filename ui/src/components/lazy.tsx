// The heavy parts of the window (CodeMirror, Markdown, the settings screens) load on first use,
// so the first screen paints fast; once it has, they are fetched in the background.
import { lazy, Suspense, type ComponentProps } from "react";
import { plainDiff } from "../plainDiff";
import { retrying } from "../uiErrors";
import { ErrorBoundary } from "./ErrorBoundary";

// A part that fails to load is fetched again; one that still fails shows its plain form (a
// diff, text) or, for a whole screen, the window's error card.
const MergeDiffImpl = lazy(retrying(() => import("./MergeDiff").then((m) => ({ default: m.MergeDiff }))));
const MarkdownImpl = lazy(retrying(() => import("./Markdown").then((m) => ({ default: m.Markdown }))));
export const SettingsDialog = lazy(
  retrying(() => import("./SettingsDialog").then((m) => ({ default: m.SettingsDialog }))),
);
export const FirstRunScreen = lazy(
  retrying(() => import("./FirstRunScreen").then((m) => ({ default: m.FirstRunScreen }))),
);

/** A read-only diff; a plain one (removed and added lines, marked) until CodeMirror has loaded,
 * so a change is never shown as if it were the file's text. */
export function MergeDiff(props: ComponentProps<typeof MergeDiffImpl>) {
  const fallback = (
    <pre className="diff-loading" data-testid="diff-loading">
      {plainDiff(props.original, props.modified).map((line, i) => (
        <span key={i} className={`plain-${line.kind}`}>
          {line.kind === "del" ? "− " : line.kind === "add" ? "+ " : "  "}
          {line.text}
          {"\n"}
        </span>
      ))}
    </pre>
  );
  return (
    <ErrorBoundary part="diff" fallback={() => fallback}>
      <Suspense fallback={fallback}>
        <MergeDiffImpl {...props} />
      </Suspense>
    </ErrorBoundary>
  );
}

/** Markdown; the raw text until the renderer has loaded (or if it cannot be drawn). */
export function Markdown({ text }: { text: string }) {
  const plain = <div className="markdown plain">{text}</div>;
  return (
    <ErrorBoundary part="markdown" fallback={() => plain}>
      <Suspense fallback={plain}>
        <MarkdownImpl text={text} />
      </Suspense>
    </ErrorBoundary>
  );
}

/** Fetches the lazy parts in the background, after the first screen. */
export function preloadHeavyParts() {
  // A failed preload is not a failure: the part is fetched again when it is first drawn.
  import("./MergeDiff").catch(() => undefined);
  import("./Markdown").catch(() => undefined);
  import("./SettingsDialog").catch(() => undefined);
}
