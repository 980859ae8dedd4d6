// The one way the UI talks to Rust: a typed `call` over the generated `Commands` interface.
import { Channel, invoke } from "@tauri-apps/api/core";
import type {
  AgentEvent,
  Commands,
  EngineError,
  FailureCode,
  NextStep,
  SendMessageArgs,
  SessionArgs,
  TurnOutcome,
} from "./bindings";
import { markStartup, tracingStartup } from "./startupTrace";

type ArgsOf<K extends keyof Commands> = Commands[K]["args"] extends null ? [] : [Commands[K]["args"]];

export class AppError extends Error {
  readonly code: FailureCode;
  /** What to offer for it, as Rust decided; null for a failure Rust did not type (the bridge
   * to it failed). */
  readonly nextStep: NextStep | null;
  readonly detail: string | null;
  constructor(code: FailureCode, message: string, nextStep: NextStep | null = null, detail: string | null = null) {
    super(message);
    this.code = code;
    this.nextStep = nextStep;
    this.detail = detail;
  }
}

/** A command's failure as Rust sends it: the one failure type (`EngineError`). */
function isEngineError(value: unknown): value is EngineError {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as EngineError).message === "string" &&
    typeof (value as EngineError).code === "string"
  );
}

/** Turns whatever a rejected invoke carries into an AppError with a readable message. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isEngineError(err)) return new AppError(err.code, err.message, err.next_step ?? null, err.detail ?? null);
  if (err instanceof Error) return new AppError("internal", err.message);
  return new AppError("internal", String(err));
}

declare global {
  interface Window {
    /**
     * Commands asked before the app's scripts ran (public/early.js), each taken once: by name,
     * or by name, a space and its args as JSON when it has args (`list_sessions {"root":…}`).
     */
    __tandemEarly?: Record<string, Promise<unknown> | undefined>;
  }
}

function takeEarly<K extends keyof Commands>(cmd: K, args: unknown): Promise<Commands[K]["result"]> | undefined {
  const early = typeof window === "undefined" ? undefined : window.__tandemEarly;
  const key = args === undefined ? cmd : `${cmd} ${JSON.stringify(args)}`;
  const pending = early?.[key];
  if (early && pending) delete early[key];
  return pending as Promise<Commands[K]["result"]> | undefined;
}

export async function call<K extends keyof Commands>(
  cmd: K,
  ...args: ArgsOf<K>
): Promise<Commands[K]["result"]> {
  const traced = tracingStartup();
  if (traced) markStartup(`${cmd} asked`);
  try {
    // Only while the window starts: an answer taken later could be stale (settings saved since).
    const early = traced ? takeEarly(cmd, args[0]) : undefined;
    return await (early ?? invoke<Commands[K]["result"]>(cmd, args.length ? { args: args[0] } : {}));
  } catch (err) {
    throw toAppError(err);
  } finally {
    if (traced) markStartup(`${cmd} answered`);
  }
}

/**
 * Starts a turn: `send_message` with its events streamed over a Channel. Each message on the
 * channel is an array of events (Rust coalesces text deltas). Resolves with how the turn ended.
 */
export async function sendMessage(
  args: SendMessageArgs,
  onEvents: (events: AgentEvent[]) => void,
): Promise<TurnOutcome> {
  return streamed("send_message", args, onEvents);
}

/** Tries a failed turn again, its events streamed like a message's. */
export async function retryTurn(args: SessionArgs, onEvents: (events: AgentEvent[]) => void): Promise<TurnOutcome> {
  return streamed("retry_turn", args, onEvents);
}

async function streamed(
  cmd: "send_message" | "retry_turn",
  args: SendMessageArgs | SessionArgs,
  onEvents: (events: AgentEvent[]) => void,
): Promise<TurnOutcome> {
  // The channel stays the session's: turns the agent starts on its own (a background task
  // ended) arrive on it after this call resolved.
  const onEvent = new Channel<AgentEvent[]>();
  onEvent.onmessage = onEvents;
  try {
    return await invoke<TurnOutcome>(cmd, { args, onEvent });
  } catch (err) {
    throw toAppError(err);
  }
}
