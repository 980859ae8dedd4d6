// "Export…" for the open session: the save dialog, then Rust writes it — Markdown, or the JSON
// log when the chosen name ends in .jsonl.
import { useState } from "react";
import { call, toAppError } from "../api";
import { pickExportFile } from "../pickFolder";
import { useSession } from "../session";

/** A file name for a session's export: its title, made safe, then the format's extension. */
export function exportName(title: string): string {
  const base = title
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `${base || "session"}.md`;
}

export function ExportSession() {
  const current = useSession((s) => s.current);
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null);
  if (!current) return null;

  const exportCurrent = async () => {
    setNote(null);
    try {
      const path = await pickExportFile(exportName(current.title));
      if (!path) return;
      const format = path.toLowerCase().endsWith(".jsonl") ? "jsonl" : "markdown";
      const written = await call("export_session", { session: current.id, format, path });
      setNote({ text: `Exported to ${written}`, error: false });
    } catch (err) {
      setNote({ text: `Not exported: ${toAppError(err).message}`, error: true });
    }
  };

  return (
    <span className="export-session">
      {note && (
        <span className={note.error ? "error small" : "muted small"} role="status" data-testid="export-note" title={note.text}>
          {note.text}
        </span>
      )}
      <button
        className="link-button"
        data-testid="export-session"
        onClick={() => void exportCurrent()}
        title="Save this session as Markdown (messages, tool calls, diffs, cost) or as its JSON log (.jsonl)"
      >
        Export…
      </button>
    </span>
  );
}
