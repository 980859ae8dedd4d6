// Calls back when the window regains focus: the user may have changed files elsewhere.
import { getCurrentWindow } from "@tauri-apps/api/window";

export function onWindowFocus(callback: () => void): () => void {
  if (!("__TAURI_INTERNALS__" in window)) return () => {};
  let unlisten: (() => void) | null = null;
  let cancelled = false;
  getCurrentWindow()
    .onFocusChanged(({ payload: focused }) => {
      if (focused) callback();
    })
    .then((fn) => {
      if (cancelled) fn();
      else unlisten = fn;
    })
    .catch(() => {
      // Without focus events the Refresh button still works.
    });
  return () => {
    cancelled = true;
    unlisten?.();
  };
}
