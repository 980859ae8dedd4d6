// A scripted backend for component tests: answers the app's commands from an in-memory project
// and agent. `send_message` streams events over its Channel the way Rust does: arrays of events.
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type {
  RaiseLimitsArgs,
  NotificationPrefs,
  CommandPrefs,
  SearchHit,
  SpendLimits,
  SpendStatus,
  BuiltinStatus,
  SearchProviderKind,
  AgentEvent,
  BackgroundTask,
  EngineError,
  FailureCode,
  NextStep,
  FileContent,
  FileEntry,
  LocalServer,
  McpServerView,
  McpView,
  ProviderModels,
  RecentProject,
  RestoreArgs,
  RestorePreview,
  RestoreRecord,
  PolicyDefault,
  RuleKey,
  RulesView,
  SandboxStatus,
  SendMessageArgs,
  SessionFileChange,
  SessionInfo,
  SessionTranscript,
  SettingsView,
  SkillsView,
  Startup,
  TurnOutcome,
} from "../bindings";

export type Call = { cmd: string; payload: unknown };

export type FakeProject = {
  startup: Startup;
  folders: Record<string, FileEntry[]>;
  files: Record<string, FileContent>;
  recent?: RecentProject[];
};

/** A running turn in the fake: push events to the UI, then end it. */
export type FakeTurn = {
  args: SendMessageArgs;
  push: (events: AgentEvent[]) => void;
  end: (outcome?: TurnOutcome) => void;
  /** The turn cannot run: send_message fails with `code` (Rust's next step with it). */
  fail: (message: string, code?: FailureCode) => void;
};

export type FakeAgent = {
  settings?: SettingsView;
  sessions?: SessionInfo[];
  transcripts?: Record<string, SessionTranscript>;
  tasks?: BackgroundTask[];
  changes?: SessionFileChange[];
  /** Pictures the session's fetches saved, by name (fetched_picture). */
  fetched?: Record<string, FileContent>;
  localServers?: LocalServer[];
  /** What test_connection answers: the models, or the failure in words. */
  models?: string[] | EngineError;
  /** What provider_models answers (default: every provider lists `models`). */
  providerModels?: ProviderModels[];
  /** set_api_key fails with this message. */
  keyError?: string;
  rules?: RulesView;
  /** What sandbox_status answers (default: sandboxed). */
  sandbox?: SandboxStatus;
  /** What skills_view answers (default: none). */
  skills?: SkillsView;
  /** The folder the native folder picker answers with (default: the person cancels). */
  pickedFolder?: string;
  /** add_skill / add_mcp_server fail with these words, as Rust would refuse. */
  addSkillError?: string;
  addMcpError?: string;
  /** What mcp_view answers, one view per call while there are several (the last one stays). */
  mcp?: McpView | McpView[];
  /** What builtin_status answers first (default: available, not downloaded). */
  builtin?: BuiltinStatus;
  /** The file the native file picker answers with (default: the person cancels). */
  pickedFile?: string;
  /** What search_sessions answers for a query (default: nothing found). */
  search?: (query: string) => SearchHit[];
  /** The file the native save dialog answers with (default: the person cancels). */
  savedFile?: string;
  /** The spending limits in Settings (default: none). */
  limits?: SpendLimits;
  /** How commands are asked about in Ask mode (Settings → Rules); copies on by default. */
  commandPrefs?: CommandPrefs;
  /** Whether the open project's disk takes a copy (`project_copies`); true by default. */
  projectCopies?: boolean | null;
  /** Called when a turn starts; the test drives it. */
  onTurn?: (turn: FakeTurn) => void;
  /** What list_sessions answers, from the sessions the fake holds (default: them as they are). */
  listed?: (sessions: SessionInfo[]) => SessionInfo[];
  /** What restore_preview answers. */
  restorePreview?: (args: RestoreArgs) => RestorePreview;
  /** What restore does: its record, and the session's transcript after it. */
  restore?: (args: RestoreArgs) => { record: RestoreRecord; transcript: SessionTranscript };
};

/** What Rust's `FailureCode::next_step` sends with each code (crates/protocol/src/session.rs). */
const NEXT_STEP: Record<FailureCode, NextStep> = {
  no_provider: { retry: false, settings: true },
  auth: { retry: false, settings: true },
  bad_address: { retry: false, settings: true },
  not_a_model_server: { retry: false, settings: true },
  model_not_found: { retry: false, settings: true },
  builtin_unavailable: { retry: false, settings: true },
  builtin_not_downloaded: { retry: false, settings: true },
  rate_limited: { retry: true, settings: false },
  server_error: { retry: true, settings: false },
  stream_broken: { retry: true, settings: false },
  log_failed: { retry: true, settings: false },
  session_busy: { retry: true, settings: false },
  internal: { retry: true, settings: false },
  not_found: { retry: true, settings: false },
  not_a_directory: { retry: true, settings: false },
  not_a_file: { retry: true, settings: false },
  permission_denied: { retry: true, settings: false },
  outside_project: { retry: true, settings: false },
  invalid_argument: { retry: true, settings: false },
  io: { retry: true, settings: false },
  git: { retry: true, settings: false },
  unreachable: { retry: true, settings: true },
  bad_request: { retry: true, settings: true },
  context_too_long: { retry: false, settings: false },
};

/** A failure as Rust sends it. */
export function engineError(code: FailureCode, message: string, detail?: string): EngineError {
  return { code, message, next_step: NEXT_STEP[code], ...(detail === undefined ? {} : { detail }) };
}

export function builtinStatus(overrides: Partial<BuiltinStatus> = {}): BuiltinStatus {
  return {
    unavailable: null,
    model_name: "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)",
    download_size: 1_117_320_768,
    model_path: "/home/me/.local/share/tandem/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    downloaded: false,
    own_file: null,
    download: { running: false, done: 0, total: 1_117_320_768, error: null },
    in_use: false,
    ...overrides,
  };
}

export function entry(path: string, kind: "file" | "dir", git: FileEntry["git"] = null): FileEntry {
  const name = path.split("/").pop() ?? path;
  return { path, name, kind, symlink: false, hidden: name.startsWith("."), size: kind === "file" ? 10 : null, git };
}

export function text(path: string, lines: string[], start_line = 1, total_lines = lines.length): FileContent {
  return { kind: "text", path, start_line, lines, total_lines, size: lines.join("\n").length, crlf: false };
}

export function settingsView(overrides: Partial<SettingsView> = {}): SettingsView {
  return {
    file: "/home/me/.config/tandem/settings.toml",
    providers: [{ name: "anthropic", kind: "anthropic", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: "keychain" }],
    roles: [{ role: "default", provider: "anthropic", model: "claude-sonnet-4-5" }],
    keychain: { available: true, message: null, file_fallback: false },
    configured: true,
    preset: null,
    in_use: { provider: "anthropic", model: "claude-sonnet-4-5", preset: false },
    error: null,
    web_search: null,
    ...overrides,
  };
}

export function skillsView(overrides: Partial<SkillsView> = {}): SkillsView {
  return {
    skills: [
      {
        name: "word-count",
        description: "Counts the words of a file",
        origin: "project",
        file: "/work/demo/.tandem/skills/word-count/skill.json",
        triggers: ["word count", "/\\bhow many words\\b/"],
        tools: [{ name: "count_words", description: "Words in one file", run: ["wc", "-w", "{{file}}"] }],
        has_instructions: true,
        enabled: true,
      },
    ],
    problems: [],
    project_dir: "/work/demo/.tandem/skills",
    user_dir: "/home/me/.config/tandem/skills",
    ...overrides,
  };
}

export function mcpServer(overrides: Partial<McpServerView> = {}): McpServerView {
  return {
    name: "tiny",
    origin: "user",
    target: "python3 tiny_server.py",
    local: true,
    network: false,
    state: "running",
    message: null,
    restarts: 0,
    tools: [{ name: "tiny__echo", tool: "echo", description: "Says the text back." }],
    stderr: ["tiny server: ready"],
    ...overrides,
  };
}

export function mcpView(servers: McpServerView[], overrides: Partial<McpView> = {}): McpView {
  return {
    servers,
    problems: [],
    user_file: "/home/me/.config/tandem/mcp.json",
    project_file: "/work/demo/.tandem/mcp.json",
    ...overrides,
  };
}

/** The model in use as Rust reports it: the default role's. */
function inUseOf(roles: SettingsView["roles"]): SettingsView["in_use"] {
  const d = roles.find((r) => r.role === "default");
  return d ? { provider: d.provider, model: d.model, preset: false } : null;
}

export function rulesView(overrides: Partial<RulesView> = {}): RulesView {
  return {
    yours: [],
    groups: [
      { kind: "never_read", title: "Files Tandem never reads or changes", items: [".env files", "SSH keys"] },
      { kind: "never_run", title: "Commands Tandem never runs", items: ["sudo, su, doas (administrator commands)", "shutdown"] },
    ],
    limits: ["It never runs commands as the administrator (sudo, su, doas).", "It never reads or changes secrets: .env files, keys, SSH and cloud credentials."],
    notes: [],
    trusted: false,
    tools: ["read_file", "run_command", "web_fetch", "web_search"],
    defaults: { mode: "ask", max_diff_lines: 2000, require_approval_above: 200 },
    ...overrides,
  };
}

function sameKey(a: RuleKey, b: RuleKey): boolean {
  return a.file === b.file && a.project === b.project && a.list === b.list && a.value === b.value;
}

export function sessionInfo(id: string, overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id,
    project: "/work/demo",
    title: `Session ${id}`,
    model: "claude-sonnet-4-5",
    started_ms: Date.now() - 3_600_000,
    updated_ms: Date.now() - 60_000,
    state: "done",
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    ...overrides,
  };
}

type ChannelLike = { id: number } | string;

function channelId(channel: ChannelLike): number {
  return typeof channel === "string" ? Number(channel.split(":")[1]) : channel.id;
}

export function installFakeBackend(project: FakeProject, agent: FakeAgent = {}): Call[] {
  const calls: Call[] = [];
  let recent = project.recent ?? [];
  let settings = agent.settings ?? settingsView();
  let webKey = false;
  let builtin = agent.builtin ?? builtinStatus();
  let sessions = agent.sessions ?? [];
  let tasks = agent.tasks ?? [];
  let rules = agent.rules ?? rulesView();
  let skills = agent.skills ?? skillsView({ skills: [] });
  const mcpViews = Array.isArray(agent.mcp) ? [...agent.mcp] : [agent.mcp ?? mcpView([])];
  const nextMcp = (): McpView => (mcpViews.length > 1 ? mcpViews.shift() : mcpViews[0]) ?? mcpView([]);
  const setMcp = (name: string, change: Partial<McpServerView>): McpView => {
    const now = nextMcp();
    const updated = { ...now, servers: now.servers.map((x) => (x.name === name ? { ...x, ...change } : x)) };
    mcpViews.splice(0, mcpViews.length, updated);
    return updated;
  };
  let created = 0;
  let limits: SpendLimits = agent.limits ?? {};
  let notifications: NotificationPrefs = { questions: true, turns: true };
  let commandPrefs: CommandPrefs = agent.commandPrefs ?? { ask_first: false, copies: true };
  const spendStatus = (l: SpendLimits): SpendStatus => ({
    limits: l,
    session_usd: 0.6,
    session_tokens: 200000,
    day_usd: 0.6,
    day_tokens: 200000,
  });
  mockWindows("main");
  mockIPC((cmd, payload) => {
    calls.push({ cmd, payload });
    const args = (payload as { args?: Record<string, unknown> } | undefined)?.args ?? {};
    switch (cmd) {
      case "ui_ready":
      case "ui_error":
      case "close_project":
      case "watch_project":
        return null;
      case "startup":
        return project.startup;
      case "recent_projects":
        return recent;
      case "remove_recent":
        recent = recent.filter((r) => r.path !== args.path);
        return recent;
      case "open_project":
        throw { code: "not_found", message: `${String(args.path)} does not exist.` };
      case "list_dir": {
        const entries = project.folders[String(args.path)];
        if (!entries) throw { code: "not_found", message: `${String(args.path)} does not exist.` };
        return { path: args.path, entries, omitted: 0, skipped: [] };
      }
      case "project_files":
        return Object.keys(project.files).sort();
      case "read_file": {
        const file = project.files[String(args.path)];
        if (!file) throw { code: "not_found", message: `${String(args.path)} does not exist.` };
        return file;
      }
      case "get_settings":
        return settings;
      case "save_settings": {
        const a = args as unknown as { providers: SettingsView["providers"]; roles: SettingsView["roles"] };
        settings = {
          ...settings,
          providers: a.providers.map((p) => ({
            ...p,
            key_source: settings.providers.find((q) => q.name === p.name)?.key_source ?? null,
          })),
          roles: a.roles,
          configured: a.roles.some((r) => r.role === "default"),
          in_use: inUseOf(a.roles),
        };
        return settings;
      }
      case "use_model": {
        const roles = [
          { role: "default", provider: String(args.provider), model: String(args.model) },
          ...settings.roles.filter((r) => r.role !== "default"),
        ];
        settings = { ...settings, roles, configured: true, preset: null, in_use: inUseOf(roles) };
        return settings;
      }
      case "set_api_key":
        if (agent.keyError) throw { code: "invalid_argument", message: agent.keyError };
        if (args.provider === "web_search") webKey = Boolean(args.key);
        settings = {
          ...settings,
          providers: settings.providers.map((p) =>
            p.name === args.provider ? { ...p, key_source: args.key ? "keychain" : null } : p,
          ),
        };
        return settings;
      case "save_web_search":
        settings = {
          ...settings,
          web_search:
            args.provider === null
              ? null
              : {
                  provider: args.provider as SearchProviderKind,
                  base_url: (args.base_url as string | null) ?? null,
                  key_source: settings.web_search?.key_source ?? (webKey ? "keychain" : null),
                },
        };
        return settings;
      case "test_web_search":
        if (args.provider === "searxng" && !args.base_url)
          return { ok: false, message: "Give the address of the SearXNG server.", titles: [] };
        return { ok: true, message: "Connected: 2 results.", titles: ["Tandem, the agent", "Another page"] };
      case "test_connection":
        if (agent.models && !Array.isArray(agent.models)) return { kind: "failed", error: agent.models };
        return { kind: "connected", models: agent.models ?? [] };
      case "provider_models":
        return (
          agent.providerModels ??
          settings.providers.map((p) => ({ provider: p.name, models: Array.isArray(agent.models) ? agent.models : [], error: null }))
        );
      case "builtin_status":
        return builtin;
      case "start_builtin_download":
        builtin = { ...builtin, download: { ...builtin.download, running: true, done: 300_000_000 } };
        return builtin;
      case "cancel_builtin_download":
        builtin = { ...builtin, download: { ...builtin.download, running: false } };
        return builtin;
      case "use_builtin": {
        const path = (args.model_path as string | null | undefined) ?? null;
        settings = {
          ...settings,
          providers: [...settings.providers.filter((p) => p.name !== "builtin"), { name: "builtin", kind: "builtin", base_url: null, num_ctx: null, lenient_tool_calls: null, small_model: null, key_source: null }],
          roles: [{ role: "default", provider: "builtin", model: "builtin" }, ...settings.roles.filter((r) => r.role !== "default")],
          configured: true,
          in_use: { provider: "builtin", model: "builtin", preset: false },
        };
        builtin = { ...builtin, in_use: true, own_file: path };
        return settings;
      }
      case "detect_local":
        return agent.localServers ?? [];
      case "policy_rules":
        return rules;
      case "remove_rule": {
        const key = args.rule as unknown as RuleKey;
        rules = { ...rules, yours: rules.yours.filter((r) => !sameKey(r.key, key)) };
        return rules;
      }
      case "add_rule": {
        const key = args.rule as unknown as RuleKey;
        const replacing = args.replacing as unknown as RuleKey | undefined;
        const kept = rules.yours.filter((r) => !replacing || !sameKey(r.key, replacing));
        const added = { words: `${key.list} ${key.value}`, rule: `${key.list} "${key.value}"`, key };
        rules = { ...rules, yours: [...kept, added] };
        return rules;
      }
      case "trust_project":
        rules = { ...rules, trusted: Boolean(args.trusted) };
        return rules;
      case "set_policy_default": {
        const setting = args.setting as unknown as PolicyDefault;
        const d = { ...rules.defaults };
        if (setting.kind === "mode") d.mode = setting.value;
        else if (setting.kind === "max_diff_lines") d.max_diff_lines = setting.value;
        else d.require_approval_above = setting.value;
        rules = { ...rules, defaults: d };
        return rules;
      }
      case "skills_view":
        return skills;
      case "set_skill_enabled":
        skills = {
          ...skills,
          skills: skills.skills.map((x) => (x.name === args.name ? { ...x, enabled: Boolean(args.enabled) } : x)),
        };
        return skills;
      case "add_skill": {
        if (agent.addSkillError) throw { code: "invalid_argument", message: agent.addSkillError };
        const name = String(args.folder).split("/").pop() ?? "skill";
        skills = {
          ...skills,
          skills: [
            ...skills.skills,
            {
              name,
              description: `The skill in ${String(args.folder)}`,
              origin: "user",
              file: `/home/me/.config/tandem/skills/${name}/skill.json`,
              triggers: [],
              tools: [],
              has_instructions: false,
              enabled: true,
            },
          ],
        };
        return skills;
      }
      case "remove_skill":
        skills = { ...skills, skills: skills.skills.filter((x) => !(x.origin === "user" && x.name === args.name)) };
        return skills;
      case "mcp_view":
        return nextMcp();
      case "add_mcp_server": {
        if (agent.addMcpError) throw { code: "invalid_argument", message: agent.addMcpError };
        const now = nextMcp();
        const server = args.server as unknown as { kind: string; command_line?: string; url?: string; network?: boolean };
        const added = mcpServer({
          name: String(args.name),
          origin: "user",
          target: server.kind === "program" ? String(server.command_line) : String(server.url),
          local: server.kind === "program",
          network: Boolean(server.network),
          state: "starting",
          tools: [],
        });
        const updated = { ...now, servers: [...now.servers, added] };
        mcpViews.splice(0, mcpViews.length, updated);
        return updated;
      }
      case "remove_mcp_server": {
        const now = nextMcp();
        const updated = { ...now, servers: now.servers.filter((x) => x.name !== args.name) };
        mcpViews.splice(0, mcpViews.length, updated);
        return updated;
      }
      case "approve_mcp_server":
      case "restart_mcp_server": {
        // Starting now; running (with a tool) when the tab looks again, as Rust would say.
        const name = String(args.name);
        const starting = setMcp(name, { state: "starting", message: null, restarts: 0 });
        mcpViews.splice(0, mcpViews.length, {
          ...starting,
          servers: starting.servers.map((x) =>
            x.name === name
              ? { ...x, state: "running", tools: [{ name: `${name}__echo`, tool: "echo", description: "Says the text back." }] }
              : x,
          ),
        });
        return starting;
      }
      case "list_sessions":
        return agent.listed ? agent.listed(sessions) : sessions;
      case "load_session": {
        const t = agent.transcripts?.[String(args.session)];
        if (!t) throw { code: "not_found", message: `No session ${String(args.session)}.` };
        return t;
      }
      case "create_session": {
        created += 1;
        const info = sessionInfo(`new-${created}`, { title: String(args.task), state: "running" });
        sessions = [info, ...sessions];
        return info;
      }
      case "send_message": {
        const p = payload as { args: SendMessageArgs; onEvent: ChannelLike };
        const id = channelId(p.onEvent);
        let index = 0;
        return new Promise<TurnOutcome>((resolve, reject) => {
          const turn: FakeTurn = {
            args: p.args,
            push: (events) => {
              const internals = (window as unknown as {
                __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void };
              }).__TAURI_INTERNALS__;
              internals.runCallback(id, { index, message: events });
              index += 1;
            },
            end: (outcome = { kind: "ended" }) => resolve(outcome),
            fail: (message, code = "session_busy") => reject(engineError(code, message)),
          };
          if (agent.onTurn) agent.onTurn(turn);
          else resolve({ kind: "ended" });
        });
      }
      case "retry_turn": {
        const error = engineError("server_error", "still down");
        return { kind: "failed", error };
      }
      case "answer_approval":
      case "stop_turn":
      case "set_mode":
        return null;
      case "session_tasks":
        return tasks;
      case "stop_task":
        tasks = tasks.map((t) => (t.id === args.task ? { ...t, running: false, state: "stopped" } : t));
        return tasks;
      case "review_task":
        return tasks;
      case "sandbox_status":
        return agent.sandbox ?? { sandboxed: true, summary: "Commands run in a sandbox." };
      case "session_changes":
        return agent.changes ?? [];
      case "fetched_picture": {
        const file = agent.fetched?.[String(args.name)];
        if (!file) throw { code: "invalid_argument", message: `${String(args.name)} is not a picture this session fetched` };
        return file;
      }
      case "restore_preview": {
        if (!agent.restorePreview) throw new Error("no restore preview scripted");
        return agent.restorePreview(args as unknown as RestoreArgs);
      }
      case "restore": {
        if (!agent.restore) throw new Error("no restore scripted");
        const a = args as unknown as RestoreArgs;
        const done = agent.restore(a);
        agent.transcripts = { ...agent.transcripts, [a.session]: done.transcript };
        return done.record;
      }
      case "get_notifications":
        return notifications;
      case "get_command_prefs":
        return commandPrefs;
      case "project_copies":
        return agent.projectCopies === undefined ? true : agent.projectCopies;
      case "save_command_prefs":
        commandPrefs = { ...(args as unknown as CommandPrefs), copies: commandPrefs.copies };
        return commandPrefs;
      case "save_notifications":
        notifications = args as unknown as NotificationPrefs;
        return notifications;
      case "get_limits":
        return limits;
      case "save_limits":
        limits = args as SpendLimits;
        return limits;
      case "spend_status":
        return spendStatus(limits);
      case "raise_limits":
        return spendStatus((args as unknown as RaiseLimitsArgs).limits);
      case "plugin:opener|open_url":
        return null;
      case "plugin:dialog|save":
        return agent.savedFile ?? null;
      case "search_sessions":
        return agent.search ? agent.search((args as { query: string }).query) : [];
      case "export_session":
        return (args as { path: string }).path;
      case "plugin:dialog|open":
        // The native picker: a file or a folder, as the test scripted it (default: cancelled).
        return agent.pickedFile ?? agent.pickedFolder ?? null;
      default:
        throw new Error(`unexpected command ${cmd}`);
    }
  }, { shouldMockEvents: true });
  return calls;
}
