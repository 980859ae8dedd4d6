// What a tool call came to, in words for people, from the typed summary Rust sends with it
// (the text the model got is written for the model, and folds under "Details").
import type { DoneWarning, ToolSummary } from "./bindings";
import { formatCount } from "./format";

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** A duration the way a card says it: "0.2 s", "12 s", "2 min 5 s". */
export function seconds(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** One contradiction of a task_done, as a short phrase. */
export function warningPhrase(w: DoneWarning): string {
  switch (w.kind) {
    case "edit_rejected":
      return `${w.path} is unchanged (you rejected its edit)`;
    case "file_unchanged":
      return `${w.path} is listed as changed, but nothing changed it`;
    case "check_failed":
      return w.exit_code === null
        ? `the last check (${w.command}) was stopped before it finished`
        : `the last check (${w.command}) failed with exit code ${w.exit_code}`;
    case "check_not_run":
      return `the check the task asked for (${w.command}) did not run after the last change`;
    case "file_missing":
      return `${w.path} is listed as changed, but it does not exist`;
    case "command_denied":
      return `you denied ${w.command}: it did not run`;
    case "call_denied":
      return `you said no to: ${w.title}`;
    case "edit_partly_kept":
      return `you kept ${w.kept} of ${w.total} changes to ${w.path}`;
    case "changes_rejected":
      return `you rejected what ${w.command} did to ${listed(w.paths)}`;
  }
}

/** Paths in a phrase: the first three, and how many more. */
export function listed(paths: string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

/** The summary in a line of words. */
export function summaryWords(s: ToolSummary): string {
  switch (s.kind) {
    case "command_ran": {
      const how = s.timed_out
        ? "Stopped at its time limit"
        : s.exit_code === null
          ? "Ended by a signal"
          : `Exit code ${s.exit_code}`;
      return `${how} · ${seconds(s.duration_ms)}${s.cut ? " · output shortened" : ""}`;
    }
    case "command_in_background":
      return "Goes on in the background; the Tasks tab shows how it does";
    case "file_read":
      if (s.total_lines === 0) return "The file is empty";
      if (s.from <= 1 && s.to >= s.total_lines) return `Read all ${plural(s.total_lines, "line")}`;
      return `Read lines ${formatCount(s.from)}–${formatCount(s.to)} of ${formatCount(s.total_lines)}`;
    case "file_seen":
      return "Looked at a file that is not text";
    case "file_changed":
      return s.created
        ? `Created, ${plural(s.added_lines, "line")}`
        : `${plural(s.added_lines, "line")} added, ${formatCount(s.removed_lines)} removed`;
    case "changes_kept":
      return `You kept ${s.kept} of ${plural(s.total, "change")}`;
    case "files_listed":
      return `${plural(s.count, "file or folder", "files and folders")}${s.more > 0 ? `, ${formatCount(s.more)} more not listed` : ""}`;
    case "search_matches":
      return s.matches === 0 ? "No matches" : `${plural(s.matches, "match", "matches")} in ${plural(s.files, "file")}`;
    case "page_fetched":
      if (s.status >= 400) return `The site answered with an error (HTTP ${s.status})`;
      return s.picture ? "Fetched a picture" : "Fetched the page";
    case "web_results":
      return s.count === 0 ? "No results" : plural(s.count, "result");
    case "plan_updated":
      return `${plural(s.steps, "step")}, ${formatCount(s.done)} done`;
    case "helper_reported":
      return s.finished
        ? `The helper finished${s.files_changed > 0 ? `; it changed ${plural(s.files_changed, "file")}` : ""}`
        : "The helper stopped before finishing";
    case "sent_back":
      return s.warnings.length === 0
        ? "Not finished yet: the agent goes on"
        : `Not finished yet: ${s.warnings.map(warningPhrase).join("; ")}. The agent goes on.`;
    case "denied":
      return s.message ? `You said no: “${s.message}”` : "You said no";
    case "refused":
      return `Not allowed: ${s.reason}`;
    case "repeated":
      return s.paused
        ? "the agent went round in circles, so the task is paused: tell it how to go on"
        : "the agent was asked to try something different";
  }
}
