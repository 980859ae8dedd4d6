// A tool call's title in plain words: "Edit src/main.rs", "Run cargo test" (the command shown
// as code: as parts, so the window draws code as code instead of printing backticks).
import { TOOL_WORDS, type JsonValue } from "./bindings";

type Input = { [key: string]: JsonValue | undefined };

function str(input: Input, key: string): string | null {
  const v = input[key];
  return typeof v === "string" && v.trim() !== "" ? v : null;
}

function firstLine(text: string, max = 80): string {
  const line = text.split("\n")[0]?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One piece of a title: words, or code (a command, a pattern) the window sets in monospace. */
export type TitlePart = { text: string; code?: boolean };

/** A tool's name for people: Tandem's own from Rust's one table (`spawn_subagent` is "Hand work
 * to a helper"); another's `snake_case` as "Snake case", and `server__tool` as "Tool (server)". */
export function plainToolName(name: string): string {
  const cut = name.indexOf("__");
  // A server's own `read_file` is not Tandem's: it keeps its own name, made readable.
  if (cut > 0 && cut + 2 < name.length) return `${snakeWords(name.slice(cut + 2))} (${name.slice(0, cut)})`;
  const own = Object.hasOwn(TOOL_WORDS, name) ? TOOL_WORDS[name] : undefined;
  if (own !== undefined) return own;
  return snakeWords(name);
}

/** `snake_case` as "Snake case". */
function snakeWords(name: string): string {
  const words = name.replace(/_/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The title as parts: what the window shows. */
export function describeCallParts(name: string, rawInput: JsonValue): TitlePart[] {
  const input: Input = rawInput && typeof rawInput === "object" && !Array.isArray(rawInput) ? rawInput : {};
  const path = str(input, "path");
  switch (name) {
    case "search_codebase": {
      const pattern = str(input, "pattern");
      const where = path && path !== "." ? ` in ${path}` : "";
      return pattern
        ? [{ text: "Search for " }, { text: firstLine(pattern, 60), code: true }, { text: where }]
        : [{ text: "Search the code" }];
    }
    case "run_command": {
      const command = str(input, "command");
      const bg = input.background === true ? " in the background" : "";
      return command ? [{ text: "Run " }, { text: firstLine(command), code: true }, { text: bg }] : [{ text: "Run a command" }];
    }
    default:
      return [{ text: plainTitle(name, input) }];
  }
}

/** The title as one line of text (code between backticks), for tooltips and the log. */
export function describeCall(name: string, rawInput: JsonValue): string {
  return describeCallParts(name, rawInput)
    .map((p) => (p.code ? `\`${p.text}\`` : p.text))
    .join("");
}

function plainTitle(name: string, input: Input): string {
  const path = str(input, "path");
  switch (name) {
    case "read_file":
      return path ? `Read ${path}` : plainToolName(name);
    case "write_file":
      return path ? `Write ${path}` : plainToolName(name);
    case "edit_file":
      return path ? `Edit ${path}` : plainToolName(name);
    case "list_files":
      return path && path !== "." ? `List files in ${path}` : plainToolName(name);
    case "task_poll": {
      const id = str(input, "id");
      return id ? `Check background task ${id}` : plainToolName(name);
    }
    case "task_stop": {
      const id = str(input, "id");
      return id ? `Stop background task ${id}` : plainToolName(name);
    }
    case "wakeup": {
      const ms = typeof input.delay_ms === "number" ? input.delay_ms : null;
      return ms === null ? plainToolName(name) : `Wait ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`}`;
    }
    case "git_diff":
      return input.staged === true ? "See the changes staged for commit (git diff)" : plainToolName(name);
    case "git_commit": {
      const message = str(input, "message");
      return message ? `Commit: ${firstLine(message)}` : plainToolName(name);
    }
    case "git_branch": {
      const action = str(input, "action");
      const branch = str(input, "name");
      if (action === "create" && branch) return `Create branch ${branch}`;
      if (action === "switch" && branch) return `Switch to branch ${branch}`;
      return "List the branches";
    }
    case "create_pull_request": {
      const title = str(input, "title");
      return title ? `Open a pull request: ${firstLine(title)}` : plainToolName(name);
    }
    case "web_fetch": {
      const url = str(input, "url");
      return url ? `Fetch ${firstLine(url, 100)}` : plainToolName(name);
    }
    case "web_search": {
      const query = str(input, "query");
      return query ? `Search the web for “${firstLine(query, 60)}”` : plainToolName(name);
    }
    case "skill_activate": {
      const skill = str(input, "name");
      return skill ? `Activate the skill ${skill}` : plainToolName(name);
    }
    case "task_done": {
      const summary = str(input, "summary");
      return summary ? `Finish: ${firstLine(summary)}` : plainToolName(name);
    }
    case "spawn_subagent": {
      const title = str(input, "title");
      return title ? `Hand work to a helper: ${firstLine(title)}` : plainToolName(name);
    }
    default:
      return plainToolName(name);
  }
}
