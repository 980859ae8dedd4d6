// Words for restores: the scopes offered, why a file stays as it is, and what a restore did.
import type { NotRestorableReason, RestoreRecord, RestoreScope } from "./bindings";

export const SCOPES: Array<{ scope: RestoreScope; label: string; hint: string }> = [
  { scope: "both", label: "Files and conversation", hint: "The project and the conversation as they were then" },
  { scope: "files_only", label: "Files only", hint: "The project as it was then; the conversation goes on (the agent is told)" },
  { scope: "conversation_only", label: "Conversation only", hint: "The conversation as it was then; the files stay as they are now" },
];

export function reasonWords(r: NotRestorableReason): string {
  switch (r) {
    case "outside_git":
      return "a command changed it, and outside a git repository what it held before is not known";
    case "git_ignored":
      return "git ignores it (build output and the like), so it is not kept";
    case "git_filter":
      return "git converts it on checkout, so its exact bytes before are not known";
    case "too_large":
      return "it is too big to keep";
    case "not_tracked":
      return "it changed while Tandem was not watching, and what it held before is not known";
    case "folder_in_the_way":
      return "a folder is in the way";
    case "copy_missing":
      return "its saved copy is missing";
    case "write_failed":
      return "it could not be written";
    case "not_copied":
      return "git did not track it and, with so many such files, Tandem copies only those the agent changes; this one changed another way, so what it held before is not known";
    case "unreadable":
      return "it could not be read when the checkpoint was made (no permission), so what it held then is not known";
  }
}

function files(n: number): string {
  return n === 1 ? "1 file" : `${n} files`;
}

/** One line for the transcript: what a restore did. */
export function restoredText(r: RestoreRecord): string {
  // The window numbers no turns: a turn is named by the person's words that began it.
  const when =
    r.turn === null
      ? "before a restore"
      : r.turn === 1
        ? "the start of the session"
        : r.turn_words
          ? `before “${r.turn_words}”`
          : `when turn ${r.turn} began`;
  const what = r.scope === "both" ? "the files and the conversation" : r.scope === "files_only" ? "the files" : "the conversation";
  const parts: string[] = [];
  if (r.scope !== "conversation_only") parts.push(`${files(r.files.length)} changed back`);
  if (r.scope !== "files_only") {
    parts.push(
      r.turns_removed === 0
        ? "the conversation kept every turn"
        : `${r.turns_removed === 1 ? "1 turn" : `${r.turns_removed} turns`} left the conversation`,
    );
  }
  if (r.not_restorable.length > 0) parts.push(`${files(r.not_restorable.length)} could not be brought back`);
  return `Restored ${what} to ${when}: ${parts.join(", ")}.`;
}
