// What the window offers for a failure: Retry where sending again can help, Open Settings where
// the fix is there. Rust decides it from the failure's code (`EngineError.next_step`); the words
// (what happened, what to do) come from Rust too, never read back out of the message here.
import type { AppError } from "./api";
import type { EngineError, NextStep } from "./bindings";

/** What is offered for a failure Rust did not type (the bridge to it failed, or the app closed
 * mid-turn): sending again is all there is to try. */
export const SEND_AGAIN: NextStep = { retry: true, settings: false };

/** A command's failure as the transcript and Settings show one. */
export function asFailure(e: AppError): EngineError {
  return {
    code: e.code,
    message: e.message,
    next_step: e.nextStep ?? SEND_AGAIN,
    ...(e.detail === null ? {} : { detail: e.detail }),
  };
}

export function nextStep(error: EngineError | null | undefined): NextStep | null {
  return error ? error.next_step : null;
}

/**
 * Whether a failure whose fix is in Settings (and that Retry alone cannot help) may now be sent
 * again: Settings were saved after it showed, and a model is in use. Read from the typed
 * settings, never from the failure's words.
 */
export function sendAgainAfterSettings(error: EngineError | null | undefined, s: { settingsSaved: boolean; modelInUse: boolean }): boolean {
  const step = nextStep(error);
  return step !== null && step.settings && !step.retry && s.settingsSaved && s.modelInUse;
}
