// Flattens the lazily loaded folders into the rows the tree shows, in order.
import type { FileEntry } from "./bindings";
import type { FolderState } from "./store";
import { formatCount } from "./format";

export type Row =
  | { kind: "entry"; entry: FileEntry; depth: number; expanded: boolean; parent: string }
  | { kind: "status"; path: string; depth: number; text: string; tone: "muted" | "error" };

export function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

export function visibleRows(
  folders: Record<string, FolderState>,
  expanded: Record<string, boolean>,
): Row[] {
  const rows: Row[] = [];
  const walk = (path: string, depth: number) => {
    const folder = folders[path];
    if (!folder || folder.status === "loading") {
      rows.push({ kind: "status", path: `${path}#loading`, depth, text: "Loading…", tone: "muted" });
      return;
    }
    if (folder.status === "error") {
      rows.push({ kind: "status", path: `${path}#error`, depth, text: folder.message, tone: "error" });
      return;
    }
    if (folder.entries.length === 0 && depth > 0) {
      rows.push({ kind: "status", path: `${path}#empty`, depth, text: "Empty folder", tone: "muted" });
    }
    for (const entry of folder.entries) {
      const isOpen = entry.kind === "dir" && !!expanded[entry.path];
      rows.push({ kind: "entry", entry, depth, expanded: isOpen, parent: path });
      if (isOpen) walk(entry.path, depth + 1);
    }
    if (folder.omitted > 0) {
      rows.push({
        kind: "status",
        path: `${path}#omitted`,
        depth,
        text: `${formatCount(folder.omitted)} more not shown`,
        tone: "muted",
      });
    }
  };
  walk("", 0);
  return rows;
}
