// Generated from crates/protocol by `make bindings`. Do not edit.

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
crlf: boolean, 
/**
 * Where the text comes from when the file is not text itself (a PDF's extracted
 * text); absent for a text file.
 */
extracted_from?: ExtractedFrom, } | { "kind": "binary", path: string, size: number, } | { "kind": "image", path: string, mime: string, size: number, 
/**
 * Base64 of the image bytes; empty when the image is over the inline limit.
 */
data_base64: string, };

export type ExtractedFrom = "pdf";

export type FileChange = { path: string, 
/**
 * True when the file did not exist before.
 */
created: boolean, added_lines: number, removed_lines: number, 
/**
 * Size of the new content.
 */
chars: number, lines: number, 
/**
 * The file already held exactly this text: nothing was written.
 */
unchanged?: boolean, };

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
text: string, 
/**
 * What the hunk changes, without its context: these lines of the original are taken
 * out, and these lines of the proposed text put in their place. Everything outside the
 * hunks is the same in both, so the file with any choice of hunks is a splice of the two.
 */
removed: LineRange, added: LineRange, };

export type LineRange = { start: number, end: number, };

export type PlanStatus = "pending" | "in_progress" | "done";

export type PlanItem = { text: string, status: PlanStatus, };

export type TaskDone = { summary: string, files_changed: Array<string>, };

export type Role = "user" | "assistant";

export type ContentBlock = { "type": "text", text: string, } | { "type": "image", media_type: string, 
/**
 * Base64 of the image.
 */
data: string, } | { "type": "document", media_type: string, 
/**
 * Its name, as the model was told it.
 */
name: string, 
/**
 * Base64 of the file.
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

export type ApprovalSuggestion = { label: string, 
/**
 * True when the rule is meant to be kept for the project, not just this session.
 */
always: boolean, };

export type Confinement = { "kind": "sandboxed", network: boolean, read_only: boolean, } | { "kind": "outside", reason: OutsideReason, };

export type OutsideReason = "approved" | "unavailable";

export type SandboxDenial = { kind: DenialKind, 
/**
 * The line of output that shows it.
 */
evidence: string, };

export type SandboxStatus = { sandboxed: boolean, 
/**
 * What that means, in a sentence for people.
 */
summary: string, };

export type DenialKind = "files" | "network";

export type Asked = { reason: string, rule: string, 
/**
 * Rules the user could grant instead of answering each time, in order.
 */
suggestions: Array<ApprovalSuggestion>, };

export type ChangePreview = { path: string | null, original: string | null, proposed: string | null, hunks: Array<Hunk>, };

export type CommandPreview = { 
/**
 * The command line, and each simple command the policy found in it (what really runs,
 * wrappers and substitutions included).
 */
command: string | null, commands: Array<string>, 
/**
 * Where it will run if approved (in the sandbox, with the network, or outside the
 * sandbox).
 */
confinement: Confinement | null, 
/**
 * Set when the sandbox stopped this command and the question is whether to run it once
 * outside: what the sandbox refused.
 */
sandbox_denial: SandboxDenial | null, };

export type ApprovalRequest = { 
/**
 * The tool call's id.
 */
id: string, tool: string, input: JsonValue, 
/**
 * The sub-agent that asks (its name), when it is not the session's own agent.
 */
agent: string | null, 
/**
 * The call in words for people, as its tool puts it ("Edit src/main.rs").
 */
title: Array<TitlePart>, 
/**
 * The tool's name in words for people ("Edit a file").
 */
words: string, 
/**
 * A command that has run: its changes, waiting for a yes before they land. Answered
 * with `approve` (all), `deny` (none) or `approve_partial` (the pieces accepted).
 */
review?: ChangeReview, 
/**
 * A commit: what goes in, file by file, with its diff (the call's JSON said only its
 * message).
 */
commit?: CommitPreview, reason: string, rule: string, 
/**
 * Rules the user could grant instead of answering each time, in order.
 */
suggestions: Array<ApprovalSuggestion>, path: string | null, original: string | null, proposed: string | null, hunks: Array<Hunk>, 
/**
 * The command line, and each simple command the policy found in it (what really runs,
 * wrappers and substitutions included).
 */
command: string | null, commands: Array<string>, 
/**
 * Where it will run if approved (in the sandbox, with the network, or outside the
 * sandbox).
 */
confinement: Confinement | null, 
/**
 * Set when the sandbox stopped this command and the question is whether to run it once
 * outside: what the sandbox refused.
 */
sandbox_denial: SandboxDenial | null, };

export type CommitPreview = { message: string, files: Array<CommitFile>, 
/**
 * Files beyond those listed (a commit of very many).
 */
more: number, };

export type CommitFile = { 
/**
 * Relative to the project.
 */
path: string, change: CommitChange, added: number, removed: number, 
/**
 * The unified diff's hunks (empty for a binary, very large or secret file), cut when
 * very long.
 */
diff: string, 
/**
 * A secret (`.env`, keys): its content is not shown, before or after.
 */
secret: boolean, 
/**
 * The session changed it, so the person saw the change in Tandem (as an edit or a
 * command's changes); false for a change made outside Tandem or before the session.
 */
seen: boolean, };

export type CommitChange = "added" | "modified" | "deleted";

export type TitlePart = { text: string, code: boolean, };

export type CallLook = { quiet: boolean, output: OutputForm, 
/**
 * A successful call ends the task (task_done): shown as the task's end, not as a call.
 */
ends_task: boolean, };

export type OutputForm = "plain" | "terminal" | "search_hits";

export type ToolOutcome = "ok" | "failed" | "denied" | "refused" | "stopped" | "background" | "sent_back" | "repeated";

export type ToolSummary = { "kind": "repeated", paused: boolean, } | { "kind": "command_ran", exit_code: number | null, timed_out: boolean, duration_ms: number, output: string, cut: boolean, 
/**
 * What it changed in the project (it ran over a layer), and what became of it.
 */
changes?: CommandChanges, } | { "kind": "command_in_background", task: string, } | { "kind": "file_read", path: string, from: number, to: number, total_lines: number, } | { "kind": "file_seen", path: string, } | { "kind": "file_changed", path: string, created: boolean, added_lines: number, removed_lines: number, } | { "kind": "changes_kept", path: string, kept: number, total: number, } | { "kind": "files_listed", count: number, more: number, } | { "kind": "search_matches", matches: number, files: number, } | { "kind": "page_fetched", url: string, status: number, picture?: string, } | { "kind": "web_results", count: number, } | { "kind": "plan_updated", steps: number, done: number, } | { "kind": "helper_reported", name: string, finished: boolean, files_changed: number, } | { "kind": "sent_back", warnings: Array<DoneWarning>, } | { "kind": "denied", message: string | null, } | { "kind": "refused", reason: string, };

export type ChangeKind = "deleted" | "replaced" | "created" | "modified" | "mode_changed";

export type ItemKind = "file" | "folder" | "symlink" | "special";

export type RunsCodeWhy = "git_internals" | "git_repository" | "editor" | "jetbrains" | "direnv" | "hooks" | "tandem";

export type ChangeClass = { "kind": "project" } | { "kind": "git" } | { "kind": "runs_code", why: RunsCodeWhy, };

export type Fate = { "kind": "landed" } | { "kind": "refused" } | { "kind": "rejected" } | { "kind": "conflict" } | { "kind": "not_landable" } | { "kind": "failed", message: string, };

export type LineCounts = { added: number, removed: number, };

export type CommandFileChange = { 
/**
 * Relative to the project, `/`-separated.
 */
path: string, change: ChangeKind, item: ItemKind, class: ChangeClass, fate: Fate, 
/**
 * For text files: lines added and removed against the project's copy.
 */
lines?: LineCounts | null, 
/**
 * The person changed the file while the command ran, on other lines: it landed as the
 * two merged (their lines and the command's), and `lines` count only the command's.
 */
merged?: boolean, };

export type IgnoredOutput = { 
/**
 * The folder (or file) at the top of what changed, `/`-separated.
 */
path: string, added: number, modified: number, deleted: number, 
/**
 * Whether it is in the project now.
 */
landed: boolean, };

export type CommandChanges = { 
/**
 * Each changed path that is not git-ignored output, deletions and replaced folders first.
 */
files: Array<CommandFileChange>, 
/**
 * Git-ignored output (build folders, `node_modules`, caches), one line per folder it
 * went into: these land without a question.
 */
ignored: Array<IgnoredOutput>, };

export type InsideFile = { 
/**
 * Relative to the project, `/`-separated.
 */
path: string, 
/**
 * Its text, when it is text of at most 16 KB.
 */
text: string | null, };

export type ReviewFile = { path: string, change: ChangeKind, item: ItemKind, class: ChangeClass, lines?: LineCounts | null, 
/**
 * For a text file changed in place: the project's text now and the command's, and the
 * hunks between them, each a piece (`Hunk::index` counts across the whole review).
 */
original?: string | null, proposed?: string | null, hunks: Array<Hunk>, 
/**
 * For a change taken or left whole (created, deleted, a folder, a link, a binary, a
 * mode): its piece.
 */
whole?: number | null, 
/**
 * The first files, each with its text when it is short text.
 */
inside: Array<InsideFile>, 
/**
 * Files in the folder beyond those listed.
 */
more_inside: number, };

export type ChangeReview = { 
/**
 * Deletions and replaced folders first, as in [`CommandChanges`].
 */
files: Array<ReviewFile>, ignored: Array<IgnoredOutput>, 
/**
 * How many pieces the review has: an answer names the pieces it accepts by index.
 */
pieces: number, };

export type DoneWarning = { "kind": "edit_rejected", path: string, } | { "kind": "file_unchanged", path: string, } | { "kind": "check_failed", command: string, exit_code: number | null, } | { "kind": "check_not_run", command: string, } | { "kind": "file_missing", path: string, } | { "kind": "command_denied", command: string, } | { "kind": "call_denied", title: string, } | { "kind": "edit_partly_kept", path: string, kept: number, total: number, } | { "kind": "changes_rejected", command: string, paths: Array<string>, };

export type WakeReason = { "kind": "task_finished", task: string, title: string, state: string, } | { "kind": "changes_asked", task: string, title: string, } | { "kind": "timer", hint: string | null, } | { "kind": "retry" };

export type EngineError = { code: FailureCode, 
/**
 * What happened and what to do, in words for people (built from the typed error).
 */
message: string, 
/**
 * The technical cause (the server's own words, the connection error), for a "details"
 * fold and bug reports; never the only thing shown.
 */
detail?: string, 
/**
 * Always `code.next_step()`: written for the front ends, never read back (a log written
 * before it existed, or by another version, gets today's decision).
 */
next_step: NextStep, };

export type NextStep = { 
/**
 * Sending again, unchanged, can help: offer Retry.
 */
retry: boolean, 
/**
 * The fix is in Settings: offer to open them.
 */
settings: boolean, };

export type FailureCode = "no_provider" | "auth" | "rate_limited" | "server_error" | "unreachable" | "bad_address" | "not_a_model_server" | "stream_broken" | "model_not_found" | "context_too_long" | "bad_request" | "builtin_unavailable" | "builtin_not_downloaded" | "log_failed" | "session_busy" | "not_found" | "not_a_directory" | "not_a_file" | "permission_denied" | "outside_project" | "invalid_argument" | "io" | "git" | "internal";

export type ApprovalAnswer = { "answer": "approve" } | { "answer": "approve_for_session", suggestion: number, } | { "answer": "approve_always", suggestion: number, } | { "answer": "deny", message: string | null, } | { "answer": "approve_partial", accepted_hunks: Array<number>, };

export type RestoreScope = "both" | "files_only" | "conversation_only";

export type RestoreTarget = { "kind": "checkpoint", id: number, } | { "kind": "session_start" };

export type NotRestorableReason = "outside_git" | "git_ignored" | "git_filter" | "too_large" | "not_tracked" | "folder_in_the_way" | "copy_missing" | "write_failed" | "unreadable" | "not_copied";

export type NotRestorable = { path: string, reason: NotRestorableReason, };

export type RestoreAction = "modify" | "create" | "delete";

export type RestoreFile = { path: string, action: RestoreAction, 
/**
 * Its text now and as it will be, for the diff; None when there is no file, or for
 * content that is not text (or too big to show).
 */
current: string | null, restored: string | null, 
/**
 * Not shown as text: not UTF-8, or too big.
 */
binary: boolean, added_lines: number, removed_lines: number, 
/**
 * A program made it, not a person: git ignores it, or it is a cache or build output
 * (`__pycache__/`, `*.pyc`, `node_modules/`). The preview lists these after the person's
 * own files, folded.
 */
generated: boolean, 
/**
 * Changed since then, but never by the agent (its tools or its commands): the person's
 * own change, or another program's. Restoring takes it away too; the preview says so.
 */
not_by_agent: boolean, 
/**
 * The agent changed it, and it changed again after (the person's edit on top): going
 * back takes both away.
 */
changed_after_agent: boolean, };

export type RestorePreview = { checkpoint: number, 
/**
 * The turn (numbered from 1) that began at this checkpoint; None for one taken before a
 * restore.
 */
turn: number | null, scope: RestoreScope, 
/**
 * Files that will change (empty for a conversation-only restore): the person's own
 * first, then generated ones, each group in path order.
 */
files: Array<RestoreFile>, 
/**
 * Files changed since that will stay as they are, each with why.
 */
not_restorable: Array<NotRestorable>, 
/**
 * The project is a git repository: changes commands made come back too (git-ignored files
 * do not). Outside one, only the tools' own writes do.
 */
git: boolean, 
/**
 * Turns the conversation loses (a conversation restore).
 */
turns_removed: number, 
/**
 * Background work the restore stops first (its titles).
 */
stops_tasks: Array<string>, };

export type RestoreRecord = { checkpoint: number, turn: number | null, 
/**
 * The first words of the person's message that began that turn (older logs lack it; a
 * wake-up has none): the window names the turn by them, as it shows no turn numbers.
 */
turn_words?: string, scope: RestoreScope, 
/**
 * The files it changed.
 */
files: Array<string>, not_restorable: Array<NotRestorable>, turns_removed: number, 
/**
 * The checkpoint taken just before it: restoring there, with the same scope, undoes it.
 */
undo_checkpoint: number, };

export type RestoreArgs = { session: string, target: RestoreTarget, scope: RestoreScope, 
/**
 * Only these files (project-relative), for Revert file / Revert all; None: every file.
 */
paths: Array<string> | null, };

export type AgentEvent = { "type": "user_message", text: string, 
/**
 * The checkpoint taken as the turn began: "Restore to here" goes back to it. None in
 * logs from before checkpoints, or when it could not be taken.
 */
checkpoint?: number, } | { "type": "step_started", step: number, } | { "type": "text_delta", text: string, } | { "type": "thinking_delta", text: string, } | { "type": "prompt_progress", evaluated: number, total: number, } | { "type": "tool_call_writing", name: string, chars: number, 
/**
 * The tool's name in words for people.
 */
words: string, } | { "type": "assistant_message", message: Message, } | { "type": "tool_call_proposed", id: string, name: string, input: JsonValue, 
/**
 * The call in words for people (older logs lack it; the engine's reader fills it in).
 */
title: Array<TitlePart>, look: CallLook, } | { "type": "approval_needed", request: ApprovalRequest, } | { "type": "command_started", id: string, task: string, } | { "type": "tool_finished", id: string, name: string, output: string, is_error: boolean, 
/**
 * How it ended (for the front ends; older logs lack it).
 */
outcome?: ToolOutcome, 
/**
 * For commands: where it ran.
 */
confinement?: Confinement, 
/**
 * For commands that finished: their exit code.
 */
exit_code?: number, 
/**
 * For a command that went on in the background: its task, so a front end can show
 * how it ended later.
 */
task?: string, 
/**
 * What it came to, for people (older logs lack it; so do results with nothing to
 * add to the outcome).
 */
summary?: ToolSummary, } | { "type": "usage", usage: Usage, 
/**
 * This call's cost, when the model's price is known.
 */
cost_usd: number | null, } | { "type": "notice", text: string, } | { "type": "context_filling", used_percent: number, compact_at: number, } | { "type": "compacted", summary: string, dropped: Array<string>, messages_before: number, messages_after: number, } | { "type": "error", error: EngineError, } | { "type": "done", summary: string, 
/**
 * What contradicts the summary (older logs lack it; empty when nothing does).
 */
warnings?: Array<DoneWarning>, } | { "type": "plan_updated", items: Array<PlanItem>, } | { "type": "approval_answered", id: string, answer: ApprovalAnswer, } | { "type": "turn_ended", outcome: TurnOutcome, } | { "type": "wake", reason: WakeReason, 
/**
 * The checkpoint taken as the turn began, as for a user's message.
 */
checkpoint?: number, } | { "type": "restored", record: RestoreRecord, } | { "type": "skill_activated", name: string, origin: ExtensionOrigin, activation: SkillActivation, 
/**
 * Its tools, by the names the model calls them.
 */
tools: Array<string>, } | { "type": "subagent_started", 
/**
 * Unique in the session, e.g. `a1`.
 */
agent: string, 
/**
 * Its name (`reviewer`, `reviewer-2`) or the title it was given.
 */
name: string, task: string, 
/**
 * Runs in the background (a named agent) or while the parent waits.
 */
background: boolean, model: string, parent?: string, } | { "type": "subagent", agent: string, event: AgentEvent, } | { "type": "subagent_ended", agent: string, outcome: TurnOutcome, report: string, steps: number, tokens: number, cost_usd: number | null, };

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

export type ProjectChanged = { root: string, 
/**
 * Project-relative, `/`-separated; `.git` when the repository's state moved.
 */
paths: Array<string>, };

export type Startup = { "kind": "welcome" } | { "kind": "project", project: ProjectInfo, } | { "kind": "error", path: string, message: string, };

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

export type TurnOutcome = { "kind": "done", summary: string, } | { "kind": "ended" } | { "kind": "paused", reason: string, } | { "kind": "step_limit" } | { "kind": "budget_spent", used: number, } | { "kind": "limit_reached", reached: LimitReached, } | { "kind": "cancelled" } | { "kind": "failed", error: EngineError, };

export type SpendLimits = { session_usd?: number, day_usd?: number, 
/**
 * Input and output tokens, every reply counted (the built-in model's too).
 */
session_tokens?: number, day_tokens?: number, };

export type SpendScope = "session" | "day";

export type Amount = { "unit": "usd", usd: number, } | { "unit": "tokens", tokens: number, };

export type LimitReached = { scope: SpendScope, spent: Amount, limit: Amount, };

export type SpendStatus = { 
/**
 * The settings' limits, with what the person raised for this session.
 */
limits: SpendLimits, session_usd: number, session_tokens: number, day_usd: number, day_tokens: number, };

export type NotificationPrefs = { 
/**
 * A question waits while the window is not in front.
 */
questions: boolean, 
/**
 * A turn that took over a minute ended.
 */
turns: boolean, };

export type CommandPrefs = { 
/**
 * Ask before every command runs, rather than run it in the sandbox over a copy of the
 * project and ask about what it changed.
 */
ask_first: boolean, 
/**
 * Whether this computer can run commands over a copy of the project at all (when it
 * cannot, every command in Ask mode is asked about before it runs). Read only.
 */
copies: boolean, };

export type RaiseLimitsArgs = { session: string, limits: SpendLimits, };

export type ExportKind = "markdown" | "jsonl";

export type ExportSessionArgs = { session: string, format: ExportKind, path: string, };

export type SessionState = "running" | "waiting" | "done" | "done_with_warnings" | "ended" | "paused" | "stopped" | "failed" | "interrupted";

export type Mode = "read_only" | "ask" | "auto_edit" | "full_auto";

export type SessionInfo = { id: string, project: string, 
/**
 * From the first task.
 */
title: string, model: string, started_ms: number, updated_ms: number, state: SessionState, input_tokens: number, output_tokens: number, 
/**
 * None when the model's price is unknown (local models cost nothing and say 0).
 */
cost_usd: number | null, };

export type SearchHitKind = "user" | "assistant" | "tool" | "file";

export type SearchHit = { session: string, title: string, 
/**
 * The log entry of the first match (the transcript opens there).
 */
seq: number, kind: SearchHitKind, 
/**
 * The words around the first match.
 */
snippet: string, 
/**
 * How many messages match.
 */
matches: number, updated_ms: number, };

export type SearchSessionsArgs = { root: string, query: string, };

export type SessionTranscript = { info: SessionInfo, events: Array<AgentEvent>, 
/**
 * Lines of the log that could not be read (a torn last line after a crash).
 */
warnings: Array<string>, };

export type SessionFileChange = { path: string, 
/**
 * None when the session created the file.
 */
before: string | null, 
/**
 * None when the file is gone now.
 */
after: string | null, added_lines: number, removed_lines: number, };

export type BackgroundTask = { id: string, 
/**
 * "command" or "agent".
 */
kind: string, title: string, running: boolean, 
/**
 * Its state in plain words ("running", "exited with code 1", "stopped").
 */
state: string, runtime_ms: number, 
/**
 * The end of its output so far.
 */
output_tail: string, 
/**
 * It ended and some of its changes wait for the person's review (asked when the agent
 * hears it ended).
 */
changes_waiting: boolean, 
/**
 * It still runs, and this many of its changes wait in its layer (nothing of them is in
 * the project yet); the person may review them now.
 */
changes_so_far: number, };

export type ProviderKind = string;

export type Wire = "anthropic" | "openai" | "builtin";

export type ProviderKindView = { name: string, words: string, wire: Wire, default_url: string, 
/**
 * "" for a kind without keys.
 */
key_env: string, };

export type ProviderView = { name: string, kind: ProviderKind, base_url: string | null, num_ctx: number | null, 
/**
 * Whether calls written as text are run; None: automatic (yes for a server on this
 * computer).
 */
lenient_tool_calls: boolean | null, 
/**
 * Whether its models get the help small models need; None: automatic (yes for the
 * built-in model and models of at most 4B parameters on a server on this computer).
 */
small_model: boolean | null, 
/**
 * Where its key comes from: "keychain", "file", "environment (ANTHROPIC_API_KEY)", or
 * None when there is none (fine for local servers).
 */
key_source: string | null, };

export type RoleView = { 
/**
 * default, fast, coder or architect.
 */
role: string, provider: string, model: string, };

export type SearchProviderKind = "brave" | "tavily" | "searxng";

export type WebSearchView = { provider: SearchProviderKind, base_url: string | null, 
/**
 * Where its key comes from ("keychain", "file", "environment (BRAVE_API_KEY)"), if any.
 */
key_source: string | null, };

export type SaveWebSearchArgs = { provider: SearchProviderKind | null, base_url: string | null, };

export type TestWebSearchArgs = { provider: SearchProviderKind, base_url: string | null, api_key: string | null, };

export type WebSearchTest = { ok: boolean, message: string, titles: Array<string>, };

export type KeychainStatus = { available: boolean, 
/**
 * Why not, in plain words, when it is not.
 */
message: string | null, 
/**
 * The user opted in to keeping keys in a file only they can read.
 */
file_fallback: boolean, };

export type SettingsView = { 
/**
 * The settings file (`~/.config/tandem/settings.toml`).
 */
file: string, providers: Array<ProviderView>, roles: Array<RoleView>, keychain: KeychainStatus, 
/**
 * True when a model for the default role is set (or preset by TANDEM_PROVIDER): the
 * first-run screen is shown otherwise.
 */
configured: boolean, 
/**
 * The provider preset by TANDEM_PROVIDER / TANDEM_BASE_URL / TANDEM_MODEL, described.
 */
preset: string | null, 
/**
 * The model new turns use, if any.
 */
in_use: ModelInUse | null, 
/**
 * A problem reading the settings file, with where.
 */
error: string | null, 
/**
 * Where `web_search` searches, if anywhere.
 */
web_search: WebSearchView | null, };

export type LocalServer = { name: string, base_url: string, models: Array<string>, };

export type BuiltinStatus = { 
/**
 * Why it cannot run on this computer (no AVX2, too little memory), in words; `None`
 * when it can.
 */
unavailable: string | null, 
/**
 * The default model, in words.
 */
model_name: string, 
/**
 * Its download size in bytes.
 */
download_size: number, 
/**
 * Where the downloaded file goes (and is looked for).
 */
model_path: string, 
/**
 * The file is there, checked against its sha256.
 */
downloaded: boolean, 
/**
 * A GGUF file of the user's own chosen in Settings, if any.
 */
own_file: string | null, download: BuiltinDownload, 
/**
 * The built-in model serves the default role.
 */
in_use: boolean, };

export type BuiltinDownload = { running: boolean, 
/**
 * Bytes on disk (a stopped download continues from here).
 */
done: number, total: number | null, 
/**
 * Why the last attempt failed.
 */
error: DownloadFailure | null, };

export type DownloadFailure = { code: DownloadFailureCode, message: string, detail?: string, };

export type DownloadFailureCode = "unreachable" | "interrupted" | "refused" | "wrong_file" | "cannot_save";

export type UseBuiltinArgs = { model_path: string | null, };

export type ConnectionTest = { "kind": "connected", models: Array<string>, } | { "kind": "failed", error: EngineError, };

export type ModelInUse = { 
/**
 * The provider's name in the settings (for a launch preset: `anthropic` or `openai`).
 */
provider: string, model: string, 
/**
 * Chosen at launch (TANDEM_PROVIDER), not in the settings: picking a model replaces it.
 */
preset: boolean, };

export type ProviderModels = { provider: string, models: Array<string>, 
/**
 * Why the list could not be read (the server is off, the key is wrong).
 */
error: EngineError | null, };

export type UseModelArgs = { provider: string, model: string, };

export type RulesView = { 
/**
 * Rules the user wrote or granted ("always allow … in this project"): their own file's,
 * then the project's file's. The ones for this project come first.
 */
yours: Array<OwnRule>, 
/**
 * The built-in rules, grouped, in words.
 */
groups: Array<RuleGroup>, 
/**
 * What holds in every mode, Full auto included, one sentence each.
 */
limits: Array<string>, 
/**
 * Rules left out of a file and why (a project file that tried to loosen them).
 */
notes: Array<string>, 
/**
 * Whether you trust this project's own rules file (`trusted_projects` in your file).
 */
trusted: boolean, 
/**
 * The tools a rule may turn off, by name.
 */
tools: Array<string>, 
/**
 * The mode new sessions start in and the limits on how much a session changes, as in
 * force for this project.
 */
defaults: PolicyDefaults, };

export type PolicyDefaults = { 
/**
 * The mode new sessions start in.
 */
mode: Mode, 
/**
 * Beyond this many lines changed in a session, changes are refused.
 */
max_diff_lines: number, 
/**
 * Beyond this many, every further change asks, whatever the mode.
 */
require_approval_above: number, };

export type PolicyDefault = { "kind": "mode", "value": Mode } | { "kind": "max_diff_lines", "value": number } | { "kind": "require_approval_above", "value": number };

export type SetPolicyDefaultArgs = { root: string, setting: PolicyDefault, };

export type RuleGroup = { kind: RuleGroupKind, 
/**
 * What the items have in common, as a sentence start.
 */
title: string, 
/**
 * Each item in words (a kind of file, a command).
 */
items: Array<string>, };

export type RuleGroupKind = "never_read" | "not_secret" | "never_run" | "always_ask" | "runs_without_asking" | "web" | "limits";

export type OwnRule = { 
/**
 * The rule in words: "Run “make check” without asking".
 */
words: string, 
/**
 * The rule as written in its file, for a tooltip: `commands.allow "make check"`.
 */
rule: string, 
/**
 * Which rule it is, to remove it.
 */
key: RuleKey, };

export type RuleKey = { file: RuleFileKind, 
/**
 * The project the rule is kept for (a `[projects."…"]` grant in the user's file); None
 * for a rule that applies everywhere the file does.
 */
project: string | null, list: RuleList, 
/**
 * The pattern, glob or domain as written.
 */
value: string, };

export type RuleFileKind = "user" | "project";

export type RuleList = "commands_allow" | "commands_ask" | "commands_deny" | "paths_protected" | "paths_protected_exceptions" | "paths_allow_write" | "paths_allow_read" | "network_allowed_domains" | "network_denied_domains" | "tools_allow" | "tools_off";

export type RemoveRuleArgs = { 
/**
 * The open project (its rules are shown again after the removal).
 */
root: string, rule: RuleKey, };

export type AddRuleArgs = { 
/**
 * The open project (its rules are shown again after the change).
 */
root: string, rule: RuleKey, replacing?: RuleKey, };

export type TrustProjectArgs = { root: string, trusted: boolean, };

export type ProjectArgs = { root: string, };

export type SessionArgs = { session: string, };

export type FetchedPictureArgs = { session: string, name: string, };

export type CreateSessionArgs = { root: string, 
/**
 * The first task: the session's title.
 */
task: string, };

export type SendMessageArgs = { session: string, text: string, mode: Mode, };

export type AnswerApprovalArgs = { session: string, 
/**
 * The request's id (the tool call's id).
 */
request: string, answer: ApprovalAnswer, };

export type SetModeArgs = { session: string, mode: Mode, };

export type StopTaskArgs = { session: string, task: string, };

export type ProviderInput = { name: string, kind: ProviderKind, base_url: string | null, num_ctx: number | null, 
/**
 * Whether calls a model writes as text (a ```json block, bare JSON, `<tool_call>` tags)
 * are run; None: automatic (yes for a server on this computer).
 */
lenient_tool_calls: boolean | null, 
/**
 * Whether its models get the help small models need; None: automatic (yes for the
 * built-in model and models of at most 4B parameters on a server on this computer).
 */
small_model: boolean | null, };

export type SaveSettingsArgs = { providers: Array<ProviderInput>, roles: Array<RoleView>, };

export type SetApiKeyArgs = { provider: string, 
/**
 * Empty deletes the stored key.
 */
key: string, 
/**
 * Where no keychain service runs: keep the key in a file only the user can read.
 */
allow_file: boolean, };

export type TestConnectionArgs = { kind: ProviderKind, base_url: string | null, 
/**
 * A key typed but not saved yet; otherwise the provider's stored key is used.
 */
api_key: string | null, 
/**
 * The configured provider whose stored key to use.
 */
provider: string | null, };

export type ExtensionOrigin = "project" | "user";

export type SkillView = { name: string, description: string, origin: ExtensionOrigin, 
/**
 * Its `skill.json`.
 */
file: string, 
/**
 * As written: words, or `/regular expressions/`.
 */
triggers: Array<string>, tools: Array<SkillToolView>, 
/**
 * Whether it has a `SKILL.md` whose text joins the system prompt while it is active.
 */
has_instructions: boolean, 
/**
 * False when the user turned it off in Settings.
 */
enabled: boolean, };

export type SkillToolView = { name: string, description: string, 
/**
 * The program and its arguments as written, `{{param}}` placeholders included.
 */
run: Array<string>, };

export type SkillProblem = { origin: ExtensionOrigin, 
/**
 * The file (or folder) at fault.
 */
file: string, 
/**
 * What is wrong, in words.
 */
error: string, };

export type SkillsView = { skills: Array<SkillView>, problems: Array<SkillProblem>, 
/**
 * Where they are looked for: the project's folder and the user's.
 */
project_dir: string, user_dir: string, };

export type SetSkillEnabledArgs = { 
/**
 * The open project (its skills are listed again after the change).
 */
root: string, name: string, enabled: boolean, };

export type AddSkillArgs = { 
/**
 * The open project (its skills are listed again after the change).
 */
root: string, 
/**
 * The folder that holds the skill's `skill.json`.
 */
folder: string, };

export type RemoveSkillArgs = { root: string, name: string, };

export type SkillActivation = { "kind": "trigger", trigger: string, } | { "kind": "model" };

export type McpState = "needs_approval" | "disabled" | "starting" | "running" | "failed";

export type McpServerView = { name: string, origin: ExtensionOrigin, 
/**
 * What runs (the command line) or where it is (the address).
 */
target: string, 
/**
 * A program on this machine (stdio) rather than an address (streamable HTTP).
 */
local: boolean, 
/**
 * For a program: whether its sandbox lets it reach the network.
 */
network: boolean, state: McpState, 
/**
 * Why it failed, or what it is doing, in words.
 */
message: string | null, 
/**
 * Times it was started again after failing (at most three).
 */
restarts: number, tools: Array<McpToolView>, 
/**
 * The last lines it wrote to its standard error.
 */
stderr: Array<string>, };

export type McpToolView = { 
/**
 * The name the model calls it by: `server__tool`.
 */
name: string, 
/**
 * The server's own name for it.
 */
tool: string, description: string, };

export type McpProblem = { file: string, error: string, };

export type McpView = { servers: Array<McpServerView>, problems: Array<McpProblem>, 
/**
 * The files they are configured in: the user's and the project's `mcp.json`.
 */
user_file: string, project_file: string, };

export type McpServerArgs = { root: string, name: string, };

export type NewMcpServerInput = { "kind": "program", command_line: string, network: boolean, } | { "kind": "address", url: string, };

export type AddMcpServerArgs = { root: string, name: string, server: NewMcpServerInput, };

export type UiErrorArgs = { 
/**
 * Which part of the window: "window", "markdown", "diff", or "page" for an error no
 * part caught.
 */
part: string, message: string, stack: string | null, };

export type UiReadyArgs = { 
/**
 * The page's `performance.timeOrigin`: milliseconds since the Unix epoch.
 */
time_origin_ms: number, marks: Array<StartupMark>, };

export type StartupMark = { name: string, at_ms: number, };

/** The address a model server on this computer is offered at (Ollama's). */
export const DEFAULT_LOCAL_URL = "http://127.0.0.1:11434/v1";

/** Every kind of model provider, in the order people are offered them. */
export const PROVIDER_KINDS: ProviderKindView[] = [
  {
    "name": "anthropic",
    "words": "Anthropic",
    "wire": "anthropic",
    "default_url": "https://api.anthropic.com",
    "key_env": "ANTHROPIC_API_KEY"
  },
  {
    "name": "openai",
    "words": "OpenAI or compatible",
    "wire": "openai",
    "default_url": "https://api.openai.com/v1",
    "key_env": "OPENAI_API_KEY"
  },
  {
    "name": "builtin",
    "words": "Built in (this computer)",
    "wire": "builtin",
    "default_url": "",
    "key_env": ""
  }
];

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export interface Commands {
  startup: { args: null; result: Startup };
  ui_ready: { args: UiReadyArgs; result: null };
  ui_error: { args: UiErrorArgs; result: null };
  open_project: { args: OpenProjectArgs; result: ProjectInfo };
  recent_projects: { args: null; result: Array<RecentProject> };
  remove_recent: { args: RemoveRecentArgs; result: Array<RecentProject> };
  close_project: { args: null; result: null };
  watch_project: { args: ProjectArgs; result: null };
  list_dir: { args: ListDirArgs; result: FileListing };
  project_files: { args: ProjectArgs; result: Array<string> };
  read_file: { args: ReadFileArgs; result: FileContent };
  list_sessions: { args: ProjectArgs; result: Array<SessionInfo> };
  load_session: { args: SessionArgs; result: SessionTranscript };
  create_session: { args: CreateSessionArgs; result: SessionInfo };
  send_message: { args: SendMessageArgs; result: TurnOutcome };
  answer_approval: { args: AnswerApprovalArgs; result: null };
  stop_turn: { args: SessionArgs; result: null };
  retry_turn: { args: SessionArgs; result: TurnOutcome };
  set_mode: { args: SetModeArgs; result: null };
  session_tasks: { args: SessionArgs; result: Array<BackgroundTask> };
  stop_task: { args: StopTaskArgs; result: Array<BackgroundTask> };
  review_task: { args: StopTaskArgs; result: Array<BackgroundTask> };
  session_changes: { args: SessionArgs; result: Array<SessionFileChange> };
  fetched_picture: { args: FetchedPictureArgs; result: FileContent };
  restore_preview: { args: RestoreArgs; result: RestorePreview };
  restore: { args: RestoreArgs; result: RestoreRecord };
  get_settings: { args: null; result: SettingsView };
  save_settings: { args: SaveSettingsArgs; result: SettingsView };
  set_api_key: { args: SetApiKeyArgs; result: SettingsView };
  test_connection: { args: TestConnectionArgs; result: ConnectionTest };
  save_web_search: { args: SaveWebSearchArgs; result: SettingsView };
  test_web_search: { args: TestWebSearchArgs; result: WebSearchTest };
  detect_local: { args: null; result: Array<LocalServer> };
  builtin_status: { args: null; result: BuiltinStatus };
  start_builtin_download: { args: null; result: BuiltinStatus };
  cancel_builtin_download: { args: null; result: BuiltinStatus };
  use_builtin: { args: UseBuiltinArgs; result: SettingsView };
  provider_models: { args: null; result: Array<ProviderModels> };
  use_model: { args: UseModelArgs; result: SettingsView };
  policy_rules: { args: ProjectArgs; result: RulesView };
  remove_rule: { args: RemoveRuleArgs; result: RulesView };
  add_rule: { args: AddRuleArgs; result: RulesView };
  trust_project: { args: TrustProjectArgs; result: RulesView };
  set_policy_default: { args: SetPolicyDefaultArgs; result: RulesView };
  sandbox_status: { args: null; result: SandboxStatus };
  skills_view: { args: ProjectArgs; result: SkillsView };
  set_skill_enabled: { args: SetSkillEnabledArgs; result: SkillsView };
  add_skill: { args: AddSkillArgs; result: SkillsView };
  remove_skill: { args: RemoveSkillArgs; result: SkillsView };
  mcp_view: { args: ProjectArgs; result: McpView };
  approve_mcp_server: { args: McpServerArgs; result: McpView };
  restart_mcp_server: { args: McpServerArgs; result: McpView };
  add_mcp_server: { args: AddMcpServerArgs; result: McpView };
  remove_mcp_server: { args: McpServerArgs; result: McpView };
  get_limits: { args: null; result: SpendLimits };
  save_limits: { args: SpendLimits; result: SpendLimits };
  spend_status: { args: SessionArgs; result: SpendStatus };
  raise_limits: { args: RaiseLimitsArgs; result: SpendStatus };
  export_session: { args: ExportSessionArgs; result: string };
  search_sessions: { args: SearchSessionsArgs; result: Array<SearchHit> };
  get_notifications: { args: null; result: NotificationPrefs };
  get_command_prefs: { args: null; result: CommandPrefs };
  save_command_prefs: { args: CommandPrefs; result: CommandPrefs };
  project_copies: { args: ProjectArgs; result: boolean | null };
  save_notifications: { args: NotificationPrefs; result: NotificationPrefs };
}
