// Files in the open project changed outside the app (Rust watches the folder): the tree and
// its git badges are read again, a burst at a time.
import { listen } from "@tauri-apps/api/event";
import type { ProjectChanged } from "./bindings";
import { subscribe } from "./subscribe";

export function onProjectChanged(callback: (change: ProjectChanged) => void): () => void {
  return subscribe(() => listen<ProjectChanged>("project-changed", (e) => callback(e.payload)));
}

/** A desktop notification about a session was clicked: the window shows that session. */
export function onOpenSession(callback: (session: string) => void): () => void {
  return subscribe(() => listen<string>("open-session", (e) => callback(e.payload)));
}
