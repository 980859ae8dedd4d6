// The agent's task_done: its summary, marked green only when nothing the engine knows
// contradicts it; otherwise what does, first, in words.
import type { DoneWarning } from "../bindings";
import { listed } from "../toolSummary";
import { Markdown } from "./lazy";

/** One contradiction in a sentence, chosen by its kind. */
function warningText(w: DoneWarning): { lead: string; code?: string; tail?: string } {
  switch (w.kind) {
    case "edit_rejected":
      return { lead: "", code: w.path, tail: " is unchanged: you rejected its edit." };
    case "file_unchanged":
      return { lead: "", code: w.path, tail: " is listed as changed, but nothing changed it." };
    case "check_failed":
      return w.exit_code === null
        ? { lead: "The last check was stopped before it finished: ", code: w.command }
        : { lead: "The last check failed: ", code: w.command, tail: ` ended with exit code ${w.exit_code}.` };
    case "check_not_run":
      return { lead: "The check the task asked for did not run after the last change: ", code: w.command };
    case "file_missing":
      return { lead: "", code: w.path, tail: " is listed as changed, but it does not exist." };
    case "command_denied":
      return { lead: "You denied ", code: w.command, tail: ": it did not run." };
    case "call_denied":
      return { lead: `You said no to: ${w.title}.` };
    case "edit_partly_kept":
      return { lead: `You kept ${w.kept} of ${w.total} changes to `, code: w.path, tail: "." };
    case "changes_rejected":
      return { lead: "You rejected what ", code: w.command, tail: ` did to ${listed(w.paths)}: it did not land.` };
  }
}

export function DoneSummary({ summary, warnings }: { summary: string; warnings: DoneWarning[] }) {
  if (warnings.length === 0) {
    return (
      <div className="done-summary" data-testid="done-summary" data-kind="done">
        <div className="done-title">✓ Task done</div>
        <Markdown text={summary} />
      </div>
    );
  }
  return (
    <div className="done-summary warning" data-testid="done-summary" data-kind="warning" role="status">
      <div className="done-title">⚠ The agent says it is done, but check this</div>
      <ul className="done-warnings">
        {warnings.map((w, i) => {
          const t = warningText(w);
          return (
            <li key={i} data-testid="done-warning" data-kind={w.kind}>
              {t.lead}
              {t.code !== undefined && <code>{t.code}</code>}
              {t.tail}
            </li>
          );
        })}
      </ul>
      <div className="done-said muted">What it said:</div>
      <Markdown text={summary} />
    </div>
  );
}
