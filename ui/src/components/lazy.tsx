// The heavy parts of the window (CodeMirror, Markdown, the settings screens) load on first use,
// so the first screen paints fast; once it has, they are fetched in the background.
import { lazy, Suspense, type ComponentProps } from "react";
import { plainDiff } from "../plainDiff";

const MergeDiffImpl = lazy(() => import("./MergeDiff").then((m) => ({ default: m.MergeDiff })));
const MarkdownImpl = lazy(() => import("./Markdown").then((m) => ({ default: m.Markdown })));
export const SettingsDialog = lazy(() => import("./SettingsDialog").then((m) => ({ default: m.SettingsDialog })));
export const FirstRunScreen = lazy(() => import("./FirstRunScreen").then((m) => ({ default: m.FirstRunScreen })));

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
    <Suspense fallback={fallback}>
      <MergeDiffImpl {...props} />
    </Suspense>
  );
}

/** Markdown; the raw text until the renderer has loaded. */
export function Markdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="markdown plain">{text}</div>}>
      <MarkdownImpl text={text} />
    </Suspense>
  );
}

/** Fetches the lazy parts in the background, after the first screen. */
export function preloadHeavyParts() {
  void import("./MergeDiff");
  void import("./Markdown");
  void import("./SettingsDialog");
}
