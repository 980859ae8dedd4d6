// The window's own failures go to the app's log (Rust writes it), so a part that could not draw
// or load leaves a trace instead of vanishing with the page.
import { call } from "./api";

function describe(error: unknown): { message: string; stack: string | null } {
  if (error instanceof Error) return { message: error.message || error.name, stack: error.stack ?? null };
  return { message: String(error), stack: null };
}

/** The most failures one page sends: an error thrown on every frame would otherwise fill the
 * log (and the IPC channel) for as long as the window is open. */
export const MAX_REPORTS = 20;
const reported = new Set<string>();

/** Sends one failure of `part` to the log, once per part and message, at most
 * [`MAX_REPORTS`] a page; never throws (there is nowhere left to report to). */
export function reportUiError(part: string, error: unknown, componentStack?: string | null) {
  const { message, stack } = describe(error);
  const key = `${part}\u0000${message}`;
  if (reported.has(key) || reported.size >= MAX_REPORTS) return;
  reported.add(key);
  const where = componentStack ? `${stack ?? ""}\n${componentStack}` : stack;
  call("ui_error", { part, message, stack: where }).catch(() => undefined);
}

/** For tests: forget what was sent. */
export function resetReported() {
  reported.clear();
}

/** Errors no part caught (a failed promise, a throwing event handler) are logged too. */
export function installErrorReporting() {
  window.addEventListener("error", (e) => reportUiError("page", e.error ?? e.message));
  window.addEventListener("unhandledrejection", (e) => reportUiError("page", e.reason));
}

/** A lazily loaded part, fetched again after a failure: a module fetch can fail once on a busy
 * machine, and a part that never loads would leave its fallback showing for good. */
export function retrying<T>(load: () => Promise<T>, tries = 3, waitMs = 400): () => Promise<T> {
  return async () => {
    let last: unknown;
    for (let i = 0; i < tries; i++) {
      try {
        return await load();
      } catch (e) {
        last = e;
        if (i + 1 < tries) await new Promise((r) => setTimeout(r, waitMs * (i + 1)));
      }
    }
    throw last;
  };
}
