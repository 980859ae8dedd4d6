// Folds the agent's events into what the transcript shows. The same reducer serves the live
// stream and a reopened session (whose log holds the same events, without the text deltas).
import type {
  AgentEvent,
  ApprovalAnswer,
  ApprovalRequest,
  CallLook,
  Confinement,
  DoneWarning,
  EngineError,
  ExtensionOrigin,
  JsonValue,
  PlanItem,
  RestoreRecord,
  SkillActivation,
  TitlePart,
  ToolOutcome,
  ToolSummary,
  TurnOutcome,
  WakeReason,
} from "./bindings";

/** `sent_back`: a task_done the engine sent back to the agent (what happened contradicts it):
 * the work goes on, nothing failed. */
export type ToolStatus = "running" | "waiting" | "done" | "failed" | "denied" | "unfinished" | "background" | "sent_back" | "repeated";

export type ToolItem = {
  kind: "tool";
  key: string;
  id: string;
  name: string;
  input: JsonValue;
  /** What it does, in words for people, as its tool wrote it (Rust sends it). */
  title: TitlePart[];
  /** How it shows: quiet or a card, what its output is, whether it ends the task. */
  look: CallLook;
  status: ToolStatus;
  output: string | null;
  /** When it started running (live turns only), for the ticking timer. */
  startedMs: number | null;
  endedMs: number | null;
  request: ApprovalRequest | null;
  answer: ApprovalAnswer | null;
  /** For commands: where it ran (or will run, while it waits). */
  confinement: Confinement | null;
  /** For commands that finished: their exit code. */
  exitCode: number | null;
  /** For a command that went on in the background: its task, to show how it ended. */
  task: string | null;
  /** What it came to, for people (older logs have none). */
  summary: ToolSummary | null;
};

export type SubagentStatus = "running" | "done" | "stopped" | "failed";

/** Whether a failure is the one Retry acts on: the session's last outcome while it is still
 * failed ("live"), one a later turn has moved past ("resolved"), or a sub-agent's, which the
 * session's own turn answers for ("subagent"). Decided from the events' types, never their words. */
export type FailureState = "live" | "resolved" | "subagent";

/** A sub-agent the session's agent started: its own transcript, shown in a card. */
export type SubagentItem = {
  kind: "subagent";
  key: string;
  agent: string;
  name: string;
  task: string;
  model: string;
  background: boolean;
  transcript: Transcript;
  status: SubagentStatus;
  report: string | null;
  steps: number;
  tokens: number;
};

export type TranscriptItem =
  /** `checkpoint`: where "Restore to here" goes back to (null: none was taken). */
  | { kind: "user"; key: string; text: string; checkpoint: number | null }
  | { kind: "assistant"; key: string; text: string; streaming: boolean }
  | { kind: "thinking"; key: string; text: string; streaming: boolean }
  | ToolItem
  | SubagentItem
  | { kind: "wake"; key: string; reason: WakeReason }
  | { kind: "notice"; key: string; text: string }
  /** The conversation fills this much of the model's context (compaction comes at `compactAt`). */
  | { kind: "context"; key: string; usedPercent: number; compactAt: number }
  /** Older turns were summarised: the summary, what it replaced, and the turn's checkpoint
   *  (going back there undoes it; null: none was taken). */
  | { kind: "compacted"; key: string; summary: string; dropped: string[]; before: number; after: number; checkpoint: number | null; turnText: string | null }
  /** The project (files, conversation or both) was brought back to a checkpoint. */
  | { kind: "restored"; key: string; record: RestoreRecord }
  /** A skill became active for the task: its tools joined the agent's. */
  | { kind: "skill"; key: string; name: string; origin: ExtensionOrigin; activation: SkillActivation; tools: string[] }
  | { kind: "error"; key: string; error: EngineError; failure: FailureState }
  /** The task_done, with what the engine found contradicting it (empty: nothing). */
  | { kind: "done"; key: string; summary: string; warnings: DoneWarning[] }
  | { kind: "outcome"; key: string; outcome: TurnOutcome; failure: FailureState };

export type Totals = {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Null once any call's price is unknown. */
  cost_usd: number | null;
};

export type Transcript = {
  items: TranscriptItem[];
  /** Tool call id → index in `items`. */
  tools: Record<string, number>;
  /** Sub-agent id → index in `items`. */
  agents: Record<string, number>;
  /** Approval requests still waiting for an answer, in the order they were asked. */
  pending: ApprovalRequest[];
  plan: PlanItem[] | null;
  turn: Totals;
  session: Totals;
  turnOpen: boolean;
  /** The command's answer closed the turn before its turn_ended event came (Rust waits only so
   *  long for the events to be sent): that event, when it comes, has nothing left to say. */
  endedByAnswer: boolean;
  streamingText: number | null;
  streamingThinking: number | null;
  /** The tool call the model is writing (its tool's name in words, its arguments' length so
   *  far), until it is proposed. */
  writing: { name: string; words: string; chars: number } | null;
  /** How far a model running in Tandem has read a long prompt, until it starts answering. */
  reading: { evaluated: number; total: number } | null;
  seq: number;
};

export function emptyTotals(): Totals {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0 };
}

export function emptyTranscript(): Transcript {
  return {
    items: [],
    tools: {},
    agents: {},
    pending: [],
    plan: null,
    turn: emptyTotals(),
    session: emptyTotals(),
    turnOpen: false,
    endedByAnswer: false,
    streamingText: null,
    streamingThinking: null,
    writing: null,
    reading: null,
    seq: 0,
  };
}

export type FoldOptions = {
  /** Now, in ms: when live tool calls started and ended. */
  now: number;
  /** Live events get timers; a reopened session's do not. */
  live: boolean;
};

/** How a finished tool call shows. Older logs carry no outcome: an error is a failure. */
function statusOf(outcome: ToolOutcome | undefined, isError: boolean): ToolStatus {
  switch (outcome) {
    case "ok":
      return "done";
    case "failed":
      return "failed";
    case "denied":
    case "refused":
      return "denied";
    case "stopped":
      return "unfinished";
    case "background":
      return "background";
    case "sent_back":
      return "sent_back";
    case "repeated":
      return "repeated";
    default:
      return isError ? "failed" : "done";
  }
}

/** The innermost event of a sub-agent's (possibly nested) event. */
export function innermost(e: AgentEvent): AgentEvent {
  return e.type === "subagent" ? innermost(e.event) : e;
}

function addTotals(a: Totals, usage: Omit<Totals, "cost_usd">, cost: number | null): Totals {
  return {
    input_tokens: a.input_tokens + usage.input_tokens,
    output_tokens: a.output_tokens + usage.output_tokens,
    cache_read_tokens: a.cache_read_tokens + usage.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + usage.cache_write_tokens,
    cost_usd: a.cost_usd === null || cost === null ? null : a.cost_usd + cost,
  };
}

/** Applies a batch of events; copies the item list once per batch, not once per event. */
export function applyEvents(state: Transcript, events: AgentEvent[], opts: FoldOptions): Transcript {
  if (events.length === 0) return state;
  const s: Transcript = {
    ...state,
    items: state.items.slice(),
    tools: { ...state.tools },
    agents: { ...state.agents },
    pending: state.pending.slice(),
  };
  for (const event of events) step(s, event, opts);
  return s;
}

/** A whole session's events folded from the start. */
export function foldEvents(events: AgentEvent[], opts: FoldOptions): Transcript {
  return applyEvents(emptyTranscript(), events, opts);
}

function push(s: Transcript, item: DistributiveOmit<TranscriptItem, "key">): number {
  s.seq += 1;
  s.items.push({ ...item, key: `i${s.seq}` } as TranscriptItem);
  return s.items.length - 1;
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

function endStreaming(s: Transcript) {
  for (const idx of [s.streamingText, s.streamingThinking]) {
    const item = idx === null ? undefined : s.items[idx];
    if (item && (item.kind === "assistant" || item.kind === "thinking") && item.streaming) {
      s.items[idx as number] = { ...item, streaming: false };
    }
  }
  s.streamingText = null;
  s.streamingThinking = null;
  s.writing = null;
  s.reading = null;
}

function updateTool(s: Transcript, id: string, change: (t: ToolItem) => ToolItem) {
  const idx = s.tools[id];
  const item = idx === undefined ? undefined : s.items[idx];
  if (item?.kind === "tool") s.items[idx as number] = change(item);
}

/** How a call shows when nothing said otherwise (Rust's `CallLook::default`): a card, its
 * output plain text. */
const PLAIN_LOOK: CallLook = { quiet: false, output: "plain", ends_task: false };

/** How a call shows: its title and look, as Rust sent them with the call. */
type Shown = { title: TitlePart[]; look: CallLook };

/** A call that arrives without its proposal (which carries its title) is named by its name. */
function shownByName(name: string): Shown {
  return { title: [{ text: name, code: true }], look: PLAIN_LOOK };
}

function ensureTool(s: Transcript, id: string, name: string, input: JsonValue, shown: Shown, opts: FoldOptions) {
  if (s.tools[id] !== undefined) return;
  s.tools[id] = push(s, {
    kind: "tool",
    id,
    name,
    input,
    title: shown.title,
    look: shown.look,
    status: "running",
    output: null,
    startedMs: opts.live ? opts.now : null,
    endedMs: null,
    request: null,
    answer: null,
    confinement: null,
    exitCode: null,
    task: null,
    summary: null,
  });
}

/** Failures still live become `to`: a later turn started, or one finished without failing. */
function settleFailures(s: Transcript, to: FailureState) {
  s.items.forEach((item, i) => {
    if ((item.kind === "error" || item.kind === "outcome") && item.failure === "live") {
      s.items[i] = { ...item, failure: to };
    }
  });
}

function dropPending(s: Transcript, id: string) {
  const i = s.pending.findIndex((r) => r.id === id);
  if (i >= 0) s.pending.splice(i, 1);
}

function step(s: Transcript, e: AgentEvent, opts: FoldOptions) {
  switch (e.type) {
    case "user_message":
      endStreaming(s);
      settleFailures(s, "resolved");
      push(s, { kind: "user", text: e.text, checkpoint: e.checkpoint ?? null });
      s.turn = emptyTotals();
      s.turnOpen = true;
      s.endedByAnswer = false;
      break;
    case "wake":
      endStreaming(s);
      settleFailures(s, "resolved");
      push(s, { kind: "wake", reason: e.reason });
      s.turn = emptyTotals();
      s.turnOpen = true;
      s.endedByAnswer = false;
      break;
    case "subagent_started":
      endStreaming(s);
      s.agents[e.agent] = push(s, {
        kind: "subagent",
        agent: e.agent,
        name: e.name,
        task: e.task,
        model: e.model,
        background: e.background,
        transcript: emptyTranscript(),
        status: "running",
        report: null,
        steps: 0,
        tokens: 0,
      });
      break;
    case "subagent": {
      const idx = s.agents[e.agent];
      const item = idx === undefined ? undefined : s.items[idx];
      if (item?.kind === "subagent") {
        const transcript = applyEvents(item.transcript, [e.event], opts);
        // Retry tries the session's turn again, not the sub-agent's.
        const ended = innermost(e).type;
        if (ended === "error" || ended === "turn_ended") settleFailures(transcript, "subagent");
        s.items[idx as number] = { ...item, transcript };
      }
      // Its questions join the session's queue; its cost joins the meter.
      const inner = innermost(e);
      if (inner.type === "approval_needed") {
        dropPending(s, inner.request.id);
        s.pending.push(inner.request);
      } else if (inner.type === "approval_answered" || inner.type === "tool_finished") {
        dropPending(s, inner.id);
      } else if (inner.type === "usage") {
        s.turn = addTotals(s.turn, inner.usage, inner.cost_usd);
        s.session = addTotals(s.session, inner.usage, inner.cost_usd);
      }
      break;
    }
    case "subagent_ended": {
      const idx = s.agents[e.agent];
      const item = idx === undefined ? undefined : s.items[idx];
      if (item?.kind === "subagent") {
        const status: SubagentStatus =
          e.outcome.kind === "done" || e.outcome.kind === "ended"
            ? "done"
            : e.outcome.kind === "failed"
              ? "failed"
              : "stopped";
        s.items[idx as number] = { ...item, status, report: e.report, steps: e.steps, tokens: e.tokens };
      }
      break;
    }
    case "step_started":
      endStreaming(s);
      break;
    case "text_delta": {
      s.reading = null;
      const idx = s.streamingText;
      const item = idx === null ? undefined : s.items[idx];
      if (item?.kind === "assistant") s.items[idx as number] = { ...item, text: item.text + e.text };
      else s.streamingText = push(s, { kind: "assistant", text: e.text, streaming: true });
      break;
    }
    case "thinking_delta": {
      const idx = s.streamingThinking;
      const item = idx === null ? undefined : s.items[idx];
      if (item?.kind === "thinking") s.items[idx as number] = { ...item, text: item.text + e.text };
      else s.streamingThinking = push(s, { kind: "thinking", text: e.text, streaming: true });
      break;
    }
    case "prompt_progress":
      s.reading = e.evaluated < e.total ? { evaluated: e.evaluated, total: e.total } : null;
      break;
    case "tool_call_writing":
      s.writing = { name: e.name, words: e.words, chars: e.chars };
      s.reading = null;
      break;
    case "assistant_message": {
      const thinking = e.message.content
        .map((b) => (b.type === "thinking" ? b.thinking : ""))
        .filter(Boolean)
        .join("\n\n");
      const text = e.message.content
        .map((b) => (b.type === "text" ? b.text : ""))
        .filter((t) => t.trim() !== "")
        .join("\n\n");
      const ti = s.streamingThinking;
      const thinkingItem = ti === null ? undefined : s.items[ti];
      if (thinkingItem?.kind === "thinking") {
        s.items[ti as number] = { ...thinkingItem, text: thinking || thinkingItem.text, streaming: false };
      } else if (thinking) {
        push(s, { kind: "thinking", text: thinking, streaming: false });
      }
      const ai = s.streamingText;
      const textItem = ai === null ? undefined : s.items[ai];
      if (textItem?.kind === "assistant") {
        s.items[ai as number] = { ...textItem, text: text || textItem.text, streaming: false };
      } else if (text) {
        push(s, { kind: "assistant", text, streaming: false });
      }
      s.streamingText = null;
      s.streamingThinking = null;
      s.writing = null;
      s.reading = null;
      break;
    }
    case "tool_call_proposed":
      endStreaming(s);
      ensureTool(s, e.id, e.name, e.input, { title: e.title, look: e.look }, opts);
      break;
    case "approval_needed": {
      const r = e.request;
      ensureTool(s, r.id, r.tool, r.input, { title: r.title, look: PLAIN_LOOK }, opts);
      updateTool(s, r.id, (t) => ({ ...t, status: "waiting", request: r, confinement: r.confinement ?? t.confinement }));
      dropPending(s, r.id);
      s.pending.push(r);
      break;
    }
    case "approval_answered":
      dropPending(s, e.id);
      updateTool(s, e.id, (t) => {
        // Turning down a command's changes is no denial of the command: it has run, and
        // its card says how it ended and what of it landed.
        const denied = e.answer.answer === "deny" && !t.request?.review;
        return {
          ...t,
          answer: e.answer,
          status: denied ? "denied" : "running",
          startedMs: opts.live && !t.request?.review ? opts.now : t.startedMs,
          endedMs: denied && opts.live ? opts.now : t.endedMs,
        };
      });
      break;
    case "command_started":
      // Its output is this task's until it ends: the card shows it live.
      updateTool(s, e.id, (t) => ({ ...t, task: e.task }));
      break;
    case "tool_finished":
      dropPending(s, e.id);
      ensureTool(s, e.id, e.name, null, shownByName(e.name), opts);
      updateTool(s, e.id, (t) => ({
        ...t,
        output: e.output,
        confinement: e.confinement ?? t.confinement,
        exitCode: e.exit_code ?? null,
        task: e.task ?? null,
        summary: e.summary ?? null,
        endedMs: opts.live ? opts.now : null,
        status: t.status === "denied" ? "denied" : statusOf(e.outcome, e.is_error),
      }));
      break;
    case "usage":
      s.turn = addTotals(s.turn, e.usage, e.cost_usd);
      s.session = addTotals(s.session, e.usage, e.cost_usd);
      break;
    case "notice":
      push(s, { kind: "notice", text: e.text });
      break;
    case "context_filling":
      push(s, { kind: "context", usedPercent: e.used_percent, compactAt: e.compact_at });
      break;
    case "compacted": {
      // The turn it happened in: going back to its start undoes the summary.
      let user: Extract<TranscriptItem, { kind: "user" }> | null = null;
      for (let i = s.items.length - 1; i >= 0 && user === null; i--) {
        const it = s.items[i];
        if (it?.kind === "user") user = it;
      }
      push(s, {
        kind: "compacted",
        summary: e.summary,
        dropped: e.dropped,
        before: e.messages_before,
        after: e.messages_after,
        checkpoint: user?.checkpoint ?? null,
        turnText: user?.text ?? null,
      });
      break;
    }
    case "restored":
      push(s, { kind: "restored", record: e.record });
      break;
    case "skill_activated":
      push(s, { kind: "skill", name: e.name, origin: e.origin, activation: e.activation, tools: e.tools });
      break;
    case "error":
      endStreaming(s);
      dropAnsweredEnd(s, (it) => it.kind === "outcome" && it.outcome.kind === "failed");
      settleFailures(s, "resolved");
      push(s, { kind: "error", error: e.error, failure: "live" });
      break;
    case "done": {
      endStreaming(s);
      dropAnsweredEnd(s, (it) => it.kind === "done");
      // The task_done call that ended the task and the end itself are one block: the summary
      // takes the call's place.
      const call = finishingCall(s);
      if (call === null) push(s, { kind: "done", summary: e.summary, warnings: e.warnings ?? [] });
      else {
        const item = s.items[call] as ToolItem;
        delete s.tools[item.id];
        s.items[call] = { kind: "done", key: item.key, summary: e.summary, warnings: e.warnings ?? [] };
      }
      break;
    }
    case "plan_updated":
      s.plan = e.items;
      break;
    case "turn_ended":
      // Said once, whichever of the answer and the event comes first.
      if (s.endedByAnswer) s.endedByAnswer = false;
      else endTurn(s, e.outcome, opts);
      break;
  }
}

/** The command's answer came first and showed the turn's end from its outcome alone: the late
 * event says the same with more (the engine's warnings, the task_done call it replaces), so it
 * takes the place of that line rather than adding a second. Only the last item: the answer's
 * line was pushed last, and taking it leaves every other index as it was. */
function dropAnsweredEnd(s: Transcript, isIt: (item: TranscriptItem) => boolean) {
  const last = s.items[s.items.length - 1];
  if (s.endedByAnswer && last !== undefined && isIt(last)) s.items.pop();
}

/** The accepted call that ended the turn under way's task (task_done; its index), if one came
 * since it began. */
function finishingCall(s: Transcript): number | null {
  for (let i = s.items.length - 1; i >= 0; i--) {
    const item = s.items[i];
    if (item?.kind === "user" || item?.kind === "wake") return null;
    if (item?.kind === "tool" && item.look.ends_task && item.status === "done") return i;
  }
  return null;
}

/** Whether the turn under way already shows its end (a `done` since it began). */
function saidDone(s: Transcript): boolean {
  for (let i = s.items.length - 1; i >= 0; i--) {
    const item = s.items[i];
    if (item?.kind === "user" || item?.kind === "wake") return false;
    if (item?.kind === "done") return true;
  }
  return false;
}

function endTurn(s: Transcript, outcome: TurnOutcome, opts: FoldOptions) {
  endStreaming(s);
  for (const idx of Object.values(s.tools)) {
    const item = s.items[idx];
    if (item?.kind === "tool" && (item.status === "running" || item.status === "waiting")) {
      s.items[idx] = { ...item, status: "unfinished", endedMs: opts.live ? opts.now : null };
    }
  }
  s.pending = [];
  s.turnOpen = false;
  const last = s.items[s.items.length - 1];
  if (outcome.kind !== "failed") settleFailures(s, "resolved");
  // A finished task already shows its summary; a plain end needs no line.
  if (outcome.kind === "ended") return;
  if (outcome.kind === "done" && saidDone(s)) return;
  // The error itself is already on screen, just above.
  if (outcome.kind === "failed" && last?.kind === "error") return;
  if (outcome.kind === "done") push(s, { kind: "done", summary: outcome.summary, warnings: [] });
  else {
    if (outcome.kind === "failed") settleFailures(s, "resolved");
    // A failure and a spending limit offer what to do next while nothing came after them.
    const actionable = outcome.kind === "failed" || outcome.kind === "limit_reached";
    push(s, { kind: "outcome", outcome, failure: actionable ? "live" : "resolved" });
  }
}

/** The session ended its turn without saying so (the command failed or resolved early). */
export function closeTurn(state: Transcript, outcome: TurnOutcome, opts: FoldOptions): Transcript {
  if (!state.turnOpen) return state;
  return { ...applyEvents(state, [{ type: "turn_ended", outcome }], opts), endedByAnswer: true };
}

/** The words of an entry a search looks through (what the session search indexed of it). */
export function itemText(item: TranscriptItem): string {
  switch (item.kind) {
    case "user":
    case "assistant":
    case "notice":
      return item.text;
    case "compacted":
      return item.summary;
    case "tool":
      return `${item.name} ${JSON.stringify(item.input)} ${item.output ?? ""}`;
    case "done":
      return item.summary;
    default:
      return "";
  }
}

/** The first entry holding every word of `query` (case-insensitive), or -1. */
export function findMatch(items: TranscriptItem[], query: string): number {
  const terms = query.toLowerCase().split(/\s+/).filter((t) => t !== "");
  if (terms.length === 0) return -1;
  return items.findIndex((item) => {
    const text = itemText(item).toLowerCase();
    return terms.every((t) => text.includes(t));
  });
}
