// Generated from crates/protocol by `UPDATE_BINDINGS=1 cargo test -p protocol`. Do not edit.

export type EntryKind = "file" | "dir";

export type GitBadge = "conflicted" | "modified" | "added" | "deleted" | "renamed" | "untracked";

export type FileEntry = { path: string, name: string, kind: EntryKind, symlink: boolean, hidden: boolean, size: number | null, git: GitBadge | null, };

export type FileListing = { 
/**
 * The listed folder, relative to the root ("" for the root itself).
 */
path: string, entries: Array<FileEntry>, 
/**
 * Entries that matched but were left out because of `limit`.
 */
omitted: number, 
/**
 * Folders that could not be read (permissions, symlink loops), with why.
 */
skipped: Array<string>, };

export type FileContent = { "kind": "text", path: string, 
/**
 * 1-based number of the first line in `lines`.
 */
start_line: number, lines: Array<string>, 
/**
 * Lines in the whole file.
 */
total_lines: number, size: number, 
/**
 * Whether the file uses CRLF line endings (the lines themselves never carry `\r`).
 */
crlf: boolean, } | { "kind": "binary", path: string, size: number, } | { "kind": "image", path: string, mime: string, size: number, 
/**
 * Base64 of the image bytes; empty when the image is over the inline limit.
 */
data_base64: string, };

export type FileChange = { path: string, 
/**
 * True when the file did not exist before.
 */
created: boolean, added_lines: number, removed_lines: number, 
/**
 * Size of the new content.
 */
chars: number, lines: number, };

export type Hunk = { index: number, 
/**
 * 1-based first line and line count in the original.
 */
old_start: number, old_lines: number, 
/**
 * 1-based first line and line count in the proposed text.
 */
new_start: number, new_lines: number, 
/**
 * The hunk as unified-diff text, header included.
 */
text: string, };

export type PlanStatus = "pending" | "in_progress" | "done";

export type PlanItem = { text: string, status: PlanStatus, };

export type TaskDone = { summary: string, files_changed: Array<string>, };

export type Role = "user" | "assistant";

export type ContentBlock = { "type": "text", text: string, } | { "type": "image", media_type: string, 
/**
 * Base64 of the image.
 */
data: string, } | { "type": "tool_use", id: string, name: string, input: JsonValue, } | { "type": "tool_result", tool_use_id: string, content: string, is_error: boolean, } | { "type": "thinking", thinking: string, 
/**
 * Anthropic's signature, sent back unchanged in the next request.
 */
signature: string | null, };

export type Message = { role: Role, content: Array<ContentBlock>, };

export type ToolDefinition = { name: string, description: string, 
/**
 * JSON schema of the arguments.
 */
input_schema: JsonValue, };

export type Usage = { input_tokens: number, output_tokens: number, cache_read_tokens: number, cache_write_tokens: number, };

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | { "other": string };

export type ApprovalRequest = { 
/**
 * The tool call's id.
 */
id: string, tool: string, input: JsonValue, 
/**
 * The policy's reason, in plain words, and the rule that asked.
 */
reason: string, rule: string, 
/**
 * Labels of the rules the user could grant instead of answering each time, in order.
 */
suggestions: Array<string>, 
/**
 * For writes and edits: the file, its content now and the proposed content, and the hunks.
 */
path: string | null, original: string | null, proposed: string | null, hunks: Array<Hunk>, 
/**
 * For commands: the command line, and each simple command the policy found in it (what
 * really runs, wrappers and substitutions included).
 */
command: string | null, commands: Array<string>, };

export type ApprovalAnswer = { "answer": "approve" } | { "answer": "approve_for_session", suggestion: number, } | { "answer": "approve_always", suggestion: number, } | { "answer": "deny", message: string | null, } | { "answer": "approve_partial", accepted_hunks: Array<number>, };

export type AgentEvent = { "type": "step_started", step: number, } | { "type": "text_delta", text: string, } | { "type": "thinking_delta", text: string, } | { "type": "assistant_message", message: Message, } | { "type": "tool_call_proposed", id: string, name: string, input: JsonValue, } | { "type": "approval_needed", request: ApprovalRequest, } | { "type": "tool_finished", id: string, name: string, output: string, is_error: boolean, } | { "type": "usage", usage: Usage, } | { "type": "notice", text: string, } | { "type": "error", message: string, } | { "type": "done", summary: string, };

export type ProjectInfo = { 
/**
 * Canonical absolute path of the folder.
 */
root: string, 
/**
 * The folder's name, for titles.
 */
name: string, 
/**
 * Whether the folder is inside a git work tree (git badges are shown only then).
 */
is_git: boolean, 
/**
 * The checked-out branch, when there is one.
 */
branch: string | null, };

export type RecentProject = { path: string, name: string, 
/**
 * Milliseconds since the Unix epoch.
 */
opened_at_ms: number, 
/**
 * False when the folder no longer exists: the UI greys it out and offers "Remove".
 */
exists: boolean, };

export type Startup = { "kind": "welcome" } | { "kind": "project", project: ProjectInfo, } | { "kind": "error", path: string, message: string, };

export type CommandError = { code: ErrorCode, message: string, };

export type ErrorCode = "not_found" | "not_a_directory" | "not_a_file" | "permission_denied" | "outside_project" | "invalid_argument" | "io" | "git" | "internal";

export type OpenProjectArgs = { path: string, };

export type RemoveRecentArgs = { path: string, };

export type ListDirArgs = { root: string, 
/**
 * Folder relative to the root; "" for the root.
 */
path: string, hidden: boolean, 
/**
 * Re-read git status now instead of reusing one a few moments old (the Refresh button).
 */
fresh: boolean, };

export type ReadFileArgs = { root: string, path: string, 
/**
 * 1-based first line; negative counts from the end.
 */
offset: number | null, limit: number | null, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export interface Commands {
  startup: { args: null; result: Startup };
  open_project: { args: OpenProjectArgs; result: ProjectInfo };
  recent_projects: { args: null; result: Array<RecentProject> };
  remove_recent: { args: RemoveRecentArgs; result: Array<RecentProject> };
  list_dir: { args: ListDirArgs; result: FileListing };
  read_file: { args: ReadFileArgs; result: FileContent };
}
