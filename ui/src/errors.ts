// What the user can do about a failure: one next step in plain words, from the failure's code
// (Rust decides what went wrong; the window never reads it out of the message).
import type { FailureCode } from "./bindings";

export type NextStep = {
  text: string;
  /** Sending again can help: offer Retry. */
  retry: boolean;
  /** The fix is in Settings: offer to open them. */
  settings: boolean;
};

const STEPS: Record<FailureCode, NextStep> = {
  no_provider: { text: "Choose a model in Settings to start.", retry: false, settings: true },
  auth: { text: "The provider did not accept the API key. Check it in Settings.", retry: false, settings: true },
  rate_limited: { text: "The provider is busy. Wait a moment, then try again.", retry: true, settings: false },
  server_error: { text: "The provider had a problem on its side. Try again in a moment.", retry: true, settings: false },
  unreachable: {
    text: "The model server could not be reached. Check that it is running and its address in Settings.",
    retry: true,
    settings: true,
  },
  stream_broken: { text: "The reply was cut off. Try again.", retry: true, settings: false },
  model_not_found: { text: "The server does not know this model. Pick another one in Settings.", retry: false, settings: true },
  context_too_long: {
    text: "The conversation is too long for this model. Start a new session, or ask for a smaller step.",
    retry: false,
    settings: false,
  },
  bad_request: { text: "The provider refused the request. Check the model and its settings.", retry: true, settings: true },
  log_failed: { text: "Tandem could not save the session to disk. Free some space, then try again.", retry: true, settings: false },
  session_busy: {
    text: "This session is open in another Tandem window or in tandem-cli. Close it there, then try again.",
    retry: true,
    settings: false,
  },
  internal: { text: "Something went wrong inside Tandem. Try again; the log folder has details.", retry: true, settings: false },
};

export function nextStep(code: FailureCode | null | undefined): NextStep | null {
  return code ? STEPS[code] : null;
}
