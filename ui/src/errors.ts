// What the window offers for a failure: Retry where sending again can help, Open Settings where
// the fix is there. Decided by the failure's code; the words (what happened, what to do) come
// from Rust in the error's message, never read back out of it here.
import type { FailureCode } from "./bindings";

export type NextStep = {
  /** Sending again can help: offer Retry. */
  retry: boolean;
  /** The fix is in Settings: offer to open them. */
  settings: boolean;
};

const STEPS: Record<FailureCode, NextStep> = {
  no_provider: { retry: false, settings: true },
  auth: { retry: false, settings: true },
  rate_limited: { retry: true, settings: false },
  server_error: { retry: true, settings: false },
  unreachable: { retry: true, settings: true },
  bad_address: { retry: false, settings: true },
  not_a_model_server: { retry: false, settings: true },
  stream_broken: { retry: true, settings: false },
  model_not_found: { retry: false, settings: true },
  context_too_long: { retry: false, settings: false },
  bad_request: { retry: true, settings: true },
  builtin_unavailable: { retry: false, settings: true },
  log_failed: { retry: true, settings: false },
  session_busy: { retry: true, settings: false },
  internal: { retry: true, settings: false },
};

export function nextStep(code: FailureCode | null | undefined): NextStep | null {
  return code ? STEPS[code] : null;
}

/**
 * Whether a failure whose fix is in Settings (and that Retry alone cannot help) may now be sent
 * again: Settings were saved after it showed, and a model is in use. Read from the typed
 * settings, never from the failure's words.
 */
export function sendAgainAfterSettings(code: FailureCode | null | undefined, s: { settingsSaved: boolean; modelInUse: boolean }): boolean {
  const step = nextStep(code);
  return step !== null && step.settings && !step.retry && s.settingsSaved && s.modelInUse;
}
