// Folders dropped onto the window: Tauri reports the native drag-and-drop with real paths.
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { subscribe } from "./subscribe";

export type DropHandlers = {
  onHover: (hovering: boolean) => void;
  onDrop: (paths: string[]) => void;
};

/** Subscribes to the window's drag-and-drop; returns the unsubscribe function. */
export function watchDragDrop(handlers: DropHandlers): () => void {
  return subscribe(() =>
    getCurrentWebview().onDragDropEvent((event) => {
      const payload = event.payload;
      if (payload.type === "enter" || payload.type === "over") handlers.onHover(true);
      else if (payload.type === "leave") handlers.onHover(false);
      else if (payload.type === "drop") {
        handlers.onHover(false);
        if (payload.paths.length > 0) handlers.onDrop(payload.paths);
      }
    }),
  );
}
