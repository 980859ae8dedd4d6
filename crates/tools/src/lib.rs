//! The tools the agent and the UI share.
//!
//! Owns the tool registry (`registry`): every tool declared once, in its own file — its name,
//! description and argument schema (what the model sees), its arguments as a type, how the
//! policy sees a call and its title for people (functions of those arguments), whether it only
//! reads, is cached, polls, ends the task or is offered to a small model, what it needs to be
//! offered, how it runs, and its result three ways (text for the model, a structured value for
//! the UI, a typed [`ToolSummary`](protocol::ToolSummary) and [`Details`] for the engine). A
//! call is looked up once ([`resolve`]) and carried as a [`Resolved`] handle. Behind the registry: paths kept inside the project root (and
//! the session's own saved outputs, read-only); reading, listing, searching and writing files
//! (whole or not at all); git status, diff, log, commits, branches and pull requests; commands
//! in the OS sandbox with their background tasks and wake-ups; web fetches and searches;
//! skills; arguments checked before anyone is asked; the cache of read-only results.
//!
//! Must not touch Tauri or the model, nor decide whether a call may run: a tool says how the
//! policy sees its call (a `policy::ToolCall`), and the engine (`agent`) has it judged; this
//! crate only runs it. Nothing outside the registry switches on a tool's name.

mod agents;
mod atomic;
mod cache;
mod closest_text;
pub mod command_env;
mod command_output;
mod diff;
mod edit_file;
mod error;
pub mod fence;
mod git_places;
mod git_status;
mod git_tools;
mod history_secrets;
mod layer;
mod line_endings;
mod list_files;
pub mod path_text;
mod paths;
pub mod pdf_text;
mod plan;
mod project_guard;
mod pull_request;
mod read_file;
mod registry;
mod regular_file;
mod result_cap;
mod run_command;
mod sandboxing;
mod saved_outputs;
mod search;
mod skills;
mod stoppable_process;
mod tasks;
mod three_way;
mod toolbox;
pub mod tree_feed;
mod tree_order;
mod watch;
mod web;
mod workspace;
mod write_file;
mod write_lock;

pub use agents::{AgentSendArgs, AgentSpawnArgs, ModelRole, SpawnSubagentArgs};
pub use atomic::write_atomic;
pub use cache::{CACHE_TTL, Cache};
pub use command_output::{KEPT_HEAD_BYTES, KEPT_TAIL_BYTES, OutputSize, head_tail};
pub use diff::{
    HUNK_CONTEXT, Region, edit_regions, hunks, hunks_in, line_counts, merge_hunks, merge_hunks_in,
};
pub use edit_file::{Edit, EditFileArgs, EditOneArgs, edit_file, plan_edit};
pub use error::{ToolError, ToolResult};
pub use git_places::{GitPlaces, git_places, neutral_git_env, repository_configs};
pub use git_status::{GitStatus, StatusEntry, git_status};
pub use git_tools::{
    BranchAction, CommitDiff, CommitResult, GitBranchArgs, GitCommitArgs, GitDiffArgs, GitLogArgs,
    commit_diffs, commit_files, git_branch, git_commit, git_diff, git_log, render_commit,
};
pub use history_secrets::HistorySecrets;
pub use layer::{
    BaseOf, Before, ChangeFinder, CommandLayer, FoundFile, Held, HeldChanges, Landed, Landing,
    LayerView, changes_words, found_changes, why_words,
};
pub use list_files::{DEFAULT_LIST_LIMIT, ListFilesArgs, list_files, render_listing};
pub use paths::{ProjectRoot, SecretTest, real_path, secret_test};
pub use plan::{TaskDoneArgs, UpdatePlanArgs, render_plan, task_done, update_plan};
pub use project_guard::{Known, ProjectGuard};
pub use pull_request::{
    PULL_REQUEST_STEP_LIMIT, PullRequest, PullRequestArgs, PullRequestRun, check_pull_request,
    create_pull_request, find_program, render_pull_request,
};
pub use read_file::{
    DEFAULT_READ_LIMIT, IMAGE_INLINE_BYTES, MAX_LINE_CHARS, ReadFileArgs, read_fetched_picture,
    read_file, render_content,
};
pub use registry::{
    Caching, Details, EngineCall, Look, Needs, NoArgs, Offer, Offered, Resolved, Runs, SmallModel,
    Step, TOOLS, Title, ToolOutput, ToolSpec, Worked, find_tool, no_tool_named, resolve, run_tool,
    title_of, words_for,
};
pub use regular_file::{
    MAX_CHANGED_FILE_BYTES, RegularFileError, open_regular, read_config_text, read_regular,
    read_regular_text,
};
pub use result_cap::{MAX_RESULT_CHARS, cap_result};
pub use run_command::{
    CommandConfig, CommandOutcome, LandedFile, LimitHit, OnLanded, OnStarted, Program,
    RunCommandArgs, RunContext, render_outcome, run_command, run_program,
};
pub use sandboxing::{GrantedReads, SandboxSetup, sandbox_denial};
pub use saved_outputs::{SavedOutputs, SavedPath};
pub use search::{
    CaseMode, DEFAULT_MAX_RESULTS, Include, SearchArgs, SearchLine, SearchResult, render_search,
    search_codebase, search_with_limit,
};
pub use skills::{
    PROJECT_SKILLS_DIR, SKILL_DIR_PARAM, Skill, SkillActivateArgs, SkillSet, SkillTool, Trigger,
    USER_SKILLS_DIR, shell_words, skill_argv,
};
pub use tasks::{Event, POLL_CHUNK_BYTES, TaskInfo, TaskRegistry, TaskState};
pub use toolbox::{CallContext, TaskIdArgs, TaskListArgs, Toolbox, WakeupArgs};
pub use watch::{ProjectWatcher, WatchError};
pub use web::{
    BRAVE_URL, DEFAULT_MAX_LENGTH, FetchContext, FetchFormat, FetchResult, FetchedFile, Hop,
    HopGate, SearchHit, SearchProvider, TAVILY_URL, WebConfig, WebFetchArgs, WebSearchArgs,
    fetch_host, render_fetch, render_search_hits, resolve_host, web_fetch, web_search,
};
pub use workspace::{AgentAction, BeforeWrite, DiffTotals, Workspace};
pub use write_file::{
    Planned, WriteFileArgs, apply_planned, plan_write, render_change, write_file,
};
