// Folders dropped onto the window: Tauri reports the native drag-and-drop with real paths.
import { getCurrentWebview } from "@tauri-apps/api/webview";

export type DropHandlers = {
  onHover: (hovering: boolean) => void;
  onDrop: (paths: string[]) => void;
};

/** Subscribes to the window's drag-and-drop; returns the unsubscribe function. */
export function watchDragDrop(handlers: DropHandlers): () => void {
  // Outside the Tauri shell (unit tests, a plain browser) there is no native drag-and-drop.
  if (!("__TAURI_INTERNALS__" in window)) return () => {};
  let unlisten: (() => void) | null = null;
  let cancelled = false;
  getCurrentWebview()
    .onDragDropEvent((event) => {
      const payload = event.payload;
      if (payload.type === "enter" || payload.type === "over") handlers.onHover(true);
      else if (payload.type === "leave") handlers.onHover(false);
      else if (payload.type === "drop") {
        handlers.onHover(false);
        if (payload.paths.length > 0) handlers.onDrop(payload.paths);
      }
    })
    .then((fn) => {
      if (cancelled) fn();
      else unlisten = fn;
    })
    .catch(() => {
      // Without the event permission the app still works through "Open folder…".
    });
  return () => {
    cancelled = true;
    unlisten?.();
  };
}
