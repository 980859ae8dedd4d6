// Calls back when the window regains focus: the user may have changed files elsewhere.
import { getCurrentWindow } from "@tauri-apps/api/window";
import { subscribe } from "./subscribe";

export function onWindowFocus(callback: () => void): () => void {
  return subscribe(() =>
    getCurrentWindow().onFocusChanged(({ payload: focused }) => {
      if (focused) callback();
    }),
  );
}
