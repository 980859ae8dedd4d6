// A failure in words, as Rust worded it (what happened, what to do), the technical cause folded
// away under "Details", and the next step as a button: Retry where sending again can help, Open
// Settings where the fix is there (and Send again once Settings were saved with a model in use).
// The buttons follow the next step Rust decided from the failure's code and the typed settings,
// never its message.
import { useState } from "react";
import type { EngineError } from "../bindings";
import type { FailureState } from "../transcript";
import { nextStep, sendAgainAfterSettings } from "../errors";
import { useApp } from "../store";
import { useSession } from "../session";

/** The detail of a failure, folded: for bug reports, never the only thing shown. */
export function ErrorDetail({ detail }: { detail: string | null | undefined }) {
  if (!detail) return null;
  return (
    <details className="error-detail" data-testid="error-detail">
      <summary>Details</summary>
      <code>{detail}</code>
    </details>
  );
}

/** `failure`: in a transcript, whether this is the failure Retry acts on (see `FailureState`);
 * one a later turn moved past reads "Resolved" and offers nothing. */
export function ErrorNote({ error, testId, failure = "live" }: { error: EngineError; testId?: string; failure?: FailureState }) {
  const open = useApp((s) => s.setSettingsOpen);
  const retry = useSession((s) => s.retry);
  const busy = useSession((s) => s.runningSession !== null);
  const step = failure === "resolved" ? null : nextStep(error);
  const offersRetry = step?.retry === true && failure === "live";
  // Settings as they were when the failure showed: saved since, with a model in use, the
  // message can go again without being typed again — only while it is the live failure.
  const settings = useApp((s) => s.settings);
  const [settingsThen] = useState(settings);
  const sendAgain =
    failure === "live" &&
    sendAgainAfterSettings(error, {
      settingsSaved: settings !== settingsThen,
      modelInUse: (settings?.in_use ?? null) !== null,
    });
  return (
    <div
      className={failure === "resolved" ? "banner error transcript-error resolved" : "banner error transcript-error"}
      role={failure === "resolved" ? undefined : "alert"}
      data-testid={testId}
      data-code={error.code}
      data-failure={failure}
    >
      <span className="error-words">{error.message}</span>
      <ErrorDetail detail={error.detail} />
      {failure === "resolved" && (
        <span className="error-resolved muted" data-testid="error-resolved">
          Resolved
        </span>
      )}
      {step && (offersRetry || sendAgain || step.settings) && (
        <span className="error-actions">
          {offersRetry && (
            <button className="small" data-testid="retry-button" disabled={busy} onClick={() => retry()}>
              Retry
            </button>
          )}
          {sendAgain && (
            <button className="small" data-testid="send-again-button" disabled={busy} onClick={() => retry()}>
              Send again
            </button>
          )}
          {step.settings && (
            <button className="small" data-testid="open-settings-button" onClick={() => open(true)}>
              Open Settings
            </button>
          )}
        </span>
      )}
    </div>
  );
}
