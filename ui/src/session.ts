// The agent side of the app: the project's sessions, the open one's transcript, the running
// turn, its approvals and background tasks. Rust runs the agent; this store shows and asks.
import { keepDraft } from "./drafts";
import { create } from "zustand";
import { call, retryTurn, sendMessage, toAppError } from "./api";
import { SEND_AGAIN, asFailure } from "./errors";
import { afterFirstFrame } from "./startupTrace";
import type {
  AgentEvent,
  Mode,
  ApprovalAnswer,
  ApprovalRequest,
  BackgroundTask,
  EngineError,
  RestoreRecord,
  SpendLimits,
  SpendStatus,
  RestoreScope,
  RestorePreview,
  RestoreTarget,
  SandboxStatus,
  SessionInfo,
} from "./bindings";
import { applyEvents, closeTurn, emptyTranscript, foldEvents, innermost, type Transcript } from "./transcript";

/** A restore the user is looking at before it happens ("Restore to here", Revert). */
export type RestoreAsk = {
  target: RestoreTarget;
  /** The scopes offered: all three for a turn, files only for a revert. */
  scopes: RestoreScope[];
  paths: string[] | null;
  /** What the restore goes back to, in words ("when you asked “…”"). */
  title: string;
  /** The message the turn began with: back in the composer when the conversation goes back. */
  text: string | null;
  /** Files changed since by someone other than the agent (the person's own): left out of
   * `paths` and named, so an Undo keeps them unless the person chooses otherwise. `afterAgent`:
   * the agent changed it too, before them, so keeping it keeps the agent's change as well. */
  keeps?: Array<{ path: string; afterAgent: boolean }>;
  /** An Undo of the last turn: the card speaks of undoing, not restoring. */
  undo?: boolean;
  /** What the first of `scopes` with these `paths` changes, when it was read already (an Undo
   *  reads it to find the person's own files): the card shows it rather than asking again. */
  preview?: RestorePreview;
};

type SessionState = {
  root: string | null;
  sessions: SessionInfo[];
  sessionsLoaded: boolean;
  sessionsError: string | null;
  /** The open session; null for a new one (the next message creates it). */
  current: SessionInfo | null;
  transcript: Transcript;
  loading: boolean;
  /** Why the last action failed, shown above the composer. */
  error: string | null;
  warnings: string[];
  /** The session whose turn is running, if any. */
  runningSession: string | null;
  mode: Mode;
  /** The person picked the mode in this window: the project's default no longer replaces it. */
  modeChosen: boolean;
  /** Approval requests answered here, hidden before Rust's confirmation arrives. */
  answered: Record<string, true>;
  tasks: BackgroundTask[];
  tasksError: string | null;
  /** Bumped whenever files may have changed (a tool finished, a turn ended). */
  changesVersion: number;
  /** Whether this computer sandboxes commands (asked once). */
  sandbox: SandboxStatus | null;
  /** The restore being previewed, if any. */
  restoreAsk: RestoreAsk | null;
  /** A restore is being done (its buttons wait). */
  restoring: boolean;
  /** Text for the composer: a message a restore took out of the conversation (null: a
   *  restore put it back, so the composer lets go of it), kept only if nothing is written
   *  there; or an example task the person clicked (`chosen`), which replaces what is. */
  draft: { text: string | null; at: number; chosen?: boolean } | null;
  /** The open session's spending against its limits (for the meter), when known. */
  spend: SpendStatus | null;
  /** Opened from a search: the transcript shows the first entry holding these words. */
  searchFocus: { session: string; query: string } | null;
  /** A message written while another session held the agent: sent when it is free, to the
   *  session it was written in (null: a new one). */
  queued: { session: string | null; text: string } | null;

  /** Resolves once the project's session list is loaded (or failed to). */
  setProject: (root: string) => Promise<void>;
  refreshSessions: () => Promise<void>;
  newSession: () => void;
  /** Opens a session; from a search, at the first entry holding `query`'s words. */
  openSession: (id: string, query?: string) => Promise<void>;
  /** The transcript has shown the search's match. */
  clearSearchFocus: () => void;
  send: (text: string) => Promise<boolean>;
  /** Keeps a message for the open session (or a new one) until the agent is free. */
  queue: (text: string) => void;
  /** Takes the queued message back (its words), if any. */
  unqueue: () => string | null;
  /** The agent is free: the queued message goes to its session if that is the one open;
   *  otherwise it waits in that session's message box, never lost. */
  flushQueue: () => Promise<void>;
  receive: (session: string, events: AgentEvent[]) => void;
  stop: () => Promise<void>;
  /** Tries the failed turn of the open session again. */
  retry: () => void;
  /** Reads the open session's spending and limits again. */
  refreshSpend: () => Promise<void>;
  /** New limits for the open session (where one stopped it), then goes on. False when they
   *  could not be set (the error is shown). */
  raiseLimits: (limits: SpendLimits) => Promise<boolean>;
  answer: (request: ApprovalRequest, answer: ApprovalAnswer) => Promise<boolean>;
  refreshTasks: () => Promise<void>;
  stopTask: (task: string) => Promise<void>;
  reviewTask: (task: string) => Promise<void>;
  setMode: (mode: Mode) => void;
  clearError: () => void;
  askRestore: (ask: RestoreAsk | null) => void;
  /** Undo of the last turn: always its preview first, naming the person's own changes, which
   * stay unless they choose otherwise. */
  undo: (checkpoint: number, text: string, title: string) => Promise<void>;
  setDraft: (text: string | null, chosen?: boolean) => void;
  /** Restores the open session; true when it happened. */
  restore: (target: RestoreTarget, scope: RestoreScope, paths: string[] | null) => Promise<RestoreRecord | null>;
};

const live = () => ({ now: Date.now(), live: true });

function fresh() {
  return {
    current: null,
    transcript: emptyTranscript(),
    loading: false,
    error: null,
    warnings: [],
    answered: {},
    tasks: [],
    tasksError: null,
    restoreAsk: null,
    restoring: false,
    draft: null,
    spend: null,
    searchFocus: null,
  };
}

export const useSession = create<SessionState>((set, get) => ({
  root: null,
  sessions: [],
  sessionsLoaded: false,
  sessionsError: null,
  runningSession: null,
  queued: null,
  mode: "ask",
  modeChosen: false,
  changesVersion: 0,
  sandbox: null,
  ...fresh(),

  setProject(root) {
    if (get().root === root) return Promise.resolve();
    set({ root, sessions: [], sessionsLoaded: false, sessionsError: null, runningSession: null, queued: null, modeChosen: false, ...fresh() });
    const listed = get().refreshSessions();
    // The mode new sessions start in is a rule (Settings → Rules → Defaults): the window starts
    // there for this project. Read after the first frame; until then, Ask.
    afterFirstFrame()
      .then(() => call("policy_rules", { root }))
      .then(
        (rules) => {
          // Never over a mode the person chose meanwhile.
          if (get().root === root && !get().modeChosen && get().runningSession === null && rules.defaults) {
            set({ mode: rules.defaults.mode });
          }
        },
        () => undefined,
      );
    if (get().sandbox === null) {
      afterFirstFrame()
        .then(() => call("sandbox_status"))
        .then(
          (sandbox) => set({ sandbox }),
          () => undefined,
        );
    }
    return listed;
  },

  async refreshSessions() {
    const root = get().root;
    if (!root) return;
    try {
      const sessions = await call("list_sessions", { root });
      if (get().root !== root) return;
      const current = get().current;
      const updated = current ? sessions.find((s) => s.id === current.id) : undefined;
      set({ sessions, sessionsLoaded: true, sessionsError: null, ...(updated ? { current: updated } : {}) });
    } catch (err) {
      set({ sessionsLoaded: true, sessionsError: toAppError(err).message });
    }
  },

  newSession() {
    set({ ...fresh(), changesVersion: get().changesVersion + 1 });
  },

  async openSession(id, query) {
    const known = get().sessions.find((s) => s.id === id) ?? null;
    set({ ...fresh(), current: known, loading: true, searchFocus: query ? { session: id, query } : null });
    try {
      const loaded = await loadTranscript(id);
      if (get().current?.id !== id) return;
      set({ current: loaded.info, transcript: loaded.transcript, loading: false, warnings: loaded.warnings });
      set((s) => ({ changesVersion: s.changesVersion + 1 }));
      void get().refreshTasks();
      void get().refreshSpend();
    } catch (err) {
      if (get().current?.id !== id) return;
      set({ loading: false, error: `This session could not be opened: ${toAppError(err).message}` });
    }
  },

  queue(text) {
    if (text.trim() === "") return;
    set({ queued: { session: get().current?.id ?? null, text } });
  },

  unqueue() {
    const q = get().queued;
    set({ queued: null });
    return q?.text ?? null;
  },

  async flushQueue() {
    const q = get().queued;
    if (!q || get().runningSession !== null) return;
    set({ queued: null });
    if ((get().current?.id ?? null) === q.session) {
      await get().send(q.text);
    } else {
      keepDraft(q.session ?? "new", q.text);
    }
  },

  async send(text) {
    const { root, runningSession, mode } = get();
    if (!root || runningSession !== null || text.trim() === "") return false;
    set({ error: null });
    let session = get().current;
    if (!session) {
      try {
        session = await call("create_session", { root, task: text });
      } catch (err) {
        set({ error: `The session could not be created: ${toAppError(err).message}` });
        return false;
      }
      const created = session;
      set((s) => ({
        current: created,
        transcript: emptyTranscript(),
        sessions: [created, ...s.sessions.filter((x) => x.id !== created.id)],
      }));
      void get().refreshSpend();
    }
    const id = session.id;
    set({ runningSession: id });
    void runTurn(id, { kind: "message", text, mode });
    return true;
  },

  receive(session, events) {
    if (get().current?.id !== session) return;
    // A restore's event is shown when the transcript is read again after it (see restore).
    events = events.filter((e) => e.type !== "restored");
    if (events.length === 0) return;
    const touched = events.some((e) => e.type === "tool_finished");
    // A call may ask a second question (run it outside the sandbox?): it is new, not answered.
    const asked = events.flatMap((e) => (e.type === "approval_needed" ? [e.request.id] : []));
    set((s) => {
      const answered = { ...s.answered };
      for (const id of asked) delete answered[id];
      return {
        transcript: applyEvents(s.transcript, events, live()),
        changesVersion: touched ? s.changesVersion + 1 : s.changesVersion,
        answered,
      };
    });
    // The session list shows "waiting" and the cost so far: refresh it when either changes, for
    // the session's own agent and its sub-agents alike.
    const refresh = (e: AgentEvent) => {
      const inner = innermost(e);
      return inner.type === "approval_needed" || inner.type === "approval_answered" || inner.type === "usage";
    };
    if (events.some(refresh)) {
      void get().refreshSessions();
    }
  },

  retry() {
    const id = get().current?.id;
    if (!id || get().runningSession) return;
    set({ runningSession: id, error: null });
    void runTurn(id, { kind: "retry" });
  },

  clearSearchFocus() {
    set({ searchFocus: null });
  },

  async refreshSpend() {
    const id = get().current?.id;
    if (!id) return;
    try {
      const spend = await call("spend_status", { session: id });
      if (get().current?.id === id) set({ spend });
    } catch {
      // The meter goes on without its limit; nothing the person must act on.
    }
  },

  async raiseLimits(limits) {
    const id = get().current?.id;
    if (!id || get().runningSession) return false;
    try {
      const spend = await call("raise_limits", { session: id, limits });
      if (get().current?.id === id) set({ spend });
    } catch (err) {
      set({ error: `The limit could not be raised: ${toAppError(err).message}` });
      return false;
    }
    get().retry();
    return true;
  },

  async stop() {
    const id = get().runningSession;
    if (!id) return;
    try {
      await call("stop_turn", { session: id });
    } catch (err) {
      set({ error: `The turn could not be stopped: ${toAppError(err).message}` });
    }
  },

  async answer(request, answer) {
    const id = get().current?.id;
    if (!id) return false;
    try {
      await call("answer_approval", { session: id, request: request.id, answer });
      set((s) => ({ answered: { ...s.answered, [request.id]: true }, error: null }));
      return true;
    } catch (err) {
      set({ error: `Your answer could not be sent: ${toAppError(err).message}` });
      return false;
    }
  },

  async refreshTasks() {
    const id = get().current?.id;
    if (!id) {
      set({ tasks: [], tasksError: null });
      return;
    }
    try {
      const tasks = await call("session_tasks", { session: id });
      if (get().current?.id === id) set({ tasks, tasksError: null });
    } catch (err) {
      if (get().current?.id === id) set({ tasksError: toAppError(err).message });
    }
  },

  async stopTask(task) {
    const id = get().current?.id;
    if (!id) return;
    try {
      const tasks = await call("stop_task", { session: id, task });
      if (get().current?.id === id) set({ tasks, tasksError: null });
    } catch (err) {
      set({ tasksError: `The task could not be stopped: ${toAppError(err).message}` });
    }
  },

  async reviewTask(task) {
    const id = get().current?.id;
    if (!id) return;
    try {
      const tasks = await call("review_task", { session: id, task });
      if (get().current?.id === id) set({ tasks, tasksError: null });
    } catch (err) {
      set({ tasksError: `Its changes could not be put to you now: ${toAppError(err).message}` });
    }
  },

  setMode(mode) {
    set({ mode, modeChosen: true });
    // A running turn takes the new mode from its next call on.
    const running = get().runningSession;
    if (running) {
      call("set_mode", { session: running, mode }).catch((err: unknown) =>
        set({ error: `The mode could not be changed: ${toAppError(err).message}` }),
      );
    }
  },

  clearError() {
    set({ error: null });
  },

  askRestore(ask) {
    set({ restoreAsk: ask });
  },

  async undo(checkpoint, text, title) {
    const id = get().current?.id;
    if (!id || get().runningSession !== null || get().restoring) return;
    const target: RestoreTarget = { kind: "checkpoint", id: checkpoint };
    let preview: RestorePreview;
    try {
      preview = await call("restore_preview", { session: id, target, scope: "both", paths: null });
    } catch (err) {
      set({ error: `The undo did not happen: ${toAppError(err).message}` });
      return;
    }
    // The person's own: files the agent never changed, and the agent's files changed again after.
    const yours = preview.files
      .filter((f) => (f.not_by_agent || f.changed_after_agent) && !f.generated)
      .map((f) => ({ path: f.path, afterAgent: f.changed_after_agent }));
    // Issue 46: an undo is previewed like any restore, even when only the agent's work goes
    // back; a person should see which files change before they do.
    get().askRestore({
      target,
      scopes: ["both", "files_only", "conversation_only"],
      paths: yours.length === 0 ? null : preview.files.filter((f) => !yours.some((y) => y.path === f.path)).map((f) => f.path),
      title,
      text,
      keeps: yours,
      undo: true,
      preview: yours.length === 0 ? preview : undefined,
    });
  },

  setDraft(text, chosen = false) {
    set({ draft: { text, at: Date.now(), chosen } });
  },

  async restore(target, scope, paths) {
    const id = get().current?.id;
    if (!id || get().runningSession !== null || get().restoring) return null;
    set({ restoring: true, error: null });
    try {
      const record = await call("restore", { session: id, target, scope, paths });
      // The conversation may have gone back: read it again as the log now holds it.
      const loaded = await loadTranscript(id);
      if (get().current?.id === id) set({ current: loaded.info, transcript: loaded.transcript, warnings: loaded.warnings });
      return record;
    } catch (err) {
      set({ error: `The restore did not happen: ${toAppError(err).message}` });
      return null;
    } finally {
      set((s) => ({ restoring: false, restoreAsk: null, changesVersion: s.changesVersion + 1 }));
      void get().refreshSessions();
      void get().refreshTasks();
    }
  },
}));

/** A session's transcript as its log holds it now (the conversation as restores left it). */
async function loadTranscript(id: string) {
  const loaded = await call("load_session", { session: id });
  let transcript = foldEvents(loaded.events, { now: Date.now(), live: false });
  // A turn cut short by a crash: its calls never finished, and the next message continues.
  if (loaded.info.state === "interrupted") {
    transcript = closeTurn(
      transcript,
      {
        kind: "failed",
        error: {
          code: "stream_broken",
          message: "Tandem closed before this turn finished. Send a message, or try again, to continue from here.",
          next_step: SEND_AGAIN,
        },
      },
      { now: Date.now(), live: false },
    );
  }
  // The session's totals come from Rust; live usage adds to them from here on.
  transcript.session = {
    ...transcript.session,
    input_tokens: loaded.info.input_tokens,
    output_tokens: loaded.info.output_tokens,
    cost_usd: loaded.info.cost_usd,
  };
  return { info: loaded.info, transcript, warnings: loaded.warnings };
}

type Start = { kind: "message"; text: string; mode: Mode } | { kind: "retry" };

async function runTurn(id: string, start: Start) {
  const { getState, setState } = useSession;
  let sawStart = false;
  const text = start.kind === "message" ? start.text : null;
  const onEvents = (events: AgentEvent[]) => {
    // A turn that could not start (no model set up) says so before any message of its own:
    // the user's words stay on screen above the reason.
    if (!sawStart && text !== null && events[0]?.type === "error") {
      events = [{ type: "user_message", text }, ...events];
    }
    if (events.some((e) => e.type === "user_message" || e.type === "wake")) sawStart = true;
    getState().receive(id, events);
  };
  try {
    const outcome =
      start.kind === "message"
        ? await sendMessage({ session: id, text: start.text, mode: start.mode }, onEvents)
        : await retryTurn({ session: id }, onEvents);
    if (getState().current?.id === id) {
      setState((s) => ({ transcript: closeTurn(s.transcript, outcome, live()) }));
    }
  } catch (err) {
    const e = toAppError(err);
    const error: EngineError = asFailure(e);
    if (getState().current?.id === id) {
      // Rust failed before the turn started: keep the user's words on screen with the reason.
      const events: AgentEvent[] = sawStart || text === null ? [] : [{ type: "user_message", text }];
      events.push({ type: "error", error });
      setState((s) => ({ transcript: closeTurn(applyEvents(s.transcript, events, live()), { kind: "failed", error }, live()) }));
    }
  } finally {
    setState((s) => ({ runningSession: s.runningSession === id ? null : s.runningSession, changesVersion: s.changesVersion + 1 }));
    void getState().refreshSessions();
    void getState().refreshTasks();
    void getState().refreshSpend();
    void getState().flushQueue();
  }
}

/** The approval requests still to answer, in order. */
export function pendingApprovals(s: Pick<SessionState, "transcript" | "answered">): ApprovalRequest[] {
  return s.transcript.pending.filter((r) => !s.answered[r.id]);
}

/** A question is on screen: one still to answer, in a live turn (a reopened session's old
 *  questions are not asked again), or a restore being looked at. */
export function cardShowing(
  s: Pick<SessionState, "transcript" | "answered" | "current" | "runningSession" | "restoreAsk">,
): boolean {
  if (s.restoreAsk !== null && s.current !== null) return true;
  const live = s.current !== null && (s.runningSession === s.current.id || s.current.state === "waiting");
  return live && pendingApprovals(s).length > 0;
}
