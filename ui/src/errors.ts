// What the user can do about an error: one next step, in plain words.

const HINTS: Array<[RegExp, string]> = [
  [/connection refused|couldn'?t connect|failed to connect|error sending request|dns error|unreachable|timed? ?out/i,
    "Check that the model server is running and its address is right in Settings."],
  [/no (model|provider)|not configured|no default/i, "Choose a model provider in Settings."],
  [/\b401\b|unauthori[sz]ed|invalid.{0,20}(api )?key|authentication|no api key|missing.{0,10}key/i,
    "Check the API key in Settings."],
  [/\b403\b|forbidden|permission to use/i, "Check that your key may use this model, in Settings."],
  [/\b404\b|model.{0,40}not found|unknown model|does not exist/i, "Check the model name in Settings → Models."],
  [/\b429\b|rate limit|overloaded|\b529\b/i, "The provider is busy or rate-limited: wait a moment, then send again."],
  [/context|too long|maximum.{0,20}tokens/i, "Start a new session, or ask for a smaller step."],
  [/\b5\d\d\b|server error|internal error/i, "The provider had a problem: try again in a moment."],
];

/** A next step for an error message, or null when there is nothing better than trying again. */
export function nextStep(message: string): string | null {
  for (const [pattern, hint] of HINTS) if (pattern.test(message)) return hint;
  return null;
}

/** Whether the hint points at the Settings view (so a button can open it). */
export function pointsToSettings(hint: string | null): boolean {
  return !!hint && hint.includes("Settings");
}
