// What the window does between its page starting and its first interactive frame: moments and
// every command asked on the way, sent with `ui_ready` so the log and the startup benchmark
// show where the time went. Collects nothing once the window is ready.
import type { StartupMark, UiReadyArgs } from "./bindings";

let marks: StartupMark[] | null = [];

// What is not needed for the first screen (the file tree's listing, watching the folder, the
// model list, the sandbox's state) waits for the first frame, so it does not compete with it for
// the page's only thread. Open unless the window's start holds it (unit tests render parts alone).
let firstFrame: Promise<void> = Promise.resolve();
let releaseFirstFrame = () => {};
// Should the first screen never report (a part failing to draw), the rest still comes.
const FIRST_FRAME_AT_MOST_MS = 3000;

/** Called once as the window's scripts start: later work waits for the first frame. */
export function beginStartupTrace(): void {
  marks = [];
  markStartup("scripts evaluated");
  firstFrame = new Promise((resolve) => {
    releaseFirstFrame = resolve;
    window.setTimeout(() => {
      // No first frame reported: stop collecting (the trace would grow with every command).
      marks = null;
      resolve();
    }, FIRST_FRAME_AT_MOST_MS);
  });
}

/** Resolves once the first screen has painted (at once outside the window's start). */
export function afterFirstFrame(): Promise<void> {
  return firstFrame;
}

export function markStartup(name: string): void {
  marks?.push({ name, at_ms: performance.now() });
}

/** Whether the start is still being traced (the first interactive frame is not yet reported). */
export function tracingStartup(): boolean {
  return marks !== null;
}

/** The trace so far, with the page's own loading moments, and the end of tracing. */
export function finishStartupTrace(): UiReadyArgs {
  const collected = marks ?? [];
  marks = null;
  releaseFirstFrame();
  // Answers early.js asked for belong to the start only: later asks go to Rust.
  delete (window as { __tandemEarly?: unknown }).__tandemEarly;
  const page: StartupMark[] = [];
  const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
  if (nav) {
    page.push({ name: "html received", at_ms: nav.responseEnd });
    page.push({ name: "DOM content loaded", at_ms: nav.domContentLoadedEventStart });
  }
  const earlyAt = (window as { __tandemEarlyAt?: number }).__tandemEarlyAt;
  if (earlyAt !== undefined) page.push({ name: "startup and get_settings asked (early.js)", at_ms: earlyAt });
  for (const r of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
    const file = r.name.split("/").pop() ?? r.name;
    page.push({ name: `loaded ${file}`, at_ms: r.responseEnd });
  }
  return { time_origin_ms: performance.timeOrigin, marks: [...page, ...collected] };
}
