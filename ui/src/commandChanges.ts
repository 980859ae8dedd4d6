// A command's changes in words for people (the card, the review). Rust decides what each
// change is and what became of it; these are only its words.
import type { CommandFileChange, IgnoredOutput, RunsCodeWhy } from "./bindings";
import { formatCount } from "./format";

export function changeWords(f: CommandFileChange): string {
  if (f.class.kind === "git") return "commits, branches";
  switch (f.change) {
    case "deleted":
      return f.item === "folder" ? "folder deleted" : "deleted";
    case "replaced":
      return "folder replaced";
    case "created":
      return f.item === "folder" ? "new folder" : f.item === "symlink" ? "new link" : "new";
    case "modified":
      return "changed";
    case "mode_changed":
      return "permissions";
  }
}

const RUNS_CODE: Record<RunsCodeWhy, string> = {
  git_internals: "git reads it and would run what it names the next time git is used here",
  git_repository: "it is shaped like a git repository, and git run in that folder would obey its settings",
  editor: "VS Code runs what it names when the folder is opened",
  jetbrains: "JetBrains IDEs run the tasks and tools it names",
  direnv: "direnv runs it on entering the folder",
  hooks: "git runs the hooks in it on commit and push",
  tandem: "it holds Tandem's own rules and settings for this project",
};

/** Why a file would make another program run code, in words. */
export function runsCodeWords(why: RunsCodeWhy): string {
  return RUNS_CODE[why];
}

/** Why a change did not land, in a sentence. */
export function fateWords(f: CommandFileChange): string {
  switch (f.fate.kind) {
    case "landed":
      return f.merged
        ? "In the project now, merged with the lines you changed while the command ran."
        : "In the project now.";
    case "conflict":
      return "Not landed: you changed the same lines while the command ran, and your work is never overwritten.";
    case "not_landable":
      return "Not landed: a pipe, socket or device is never made in the project.";
    case "failed":
      return `Not landed: ${f.fate.message}.`;
    case "rejected":
      return "Not landed: you rejected it in the review; the project keeps what it had.";
    case "refused":
      if (f.class.kind === "runs_code") return `Not landed: ${RUNS_CODE[f.class.why]}.`;
      if (f.class.kind === "git") return "Not landed: git's work lands only with the files it belongs to.";
      return "Not landed: it waits for your review.";
  }
}

export function ignoredWords(o: IgnoredOutput): string {
  const parts: string[] = [];
  const files = (n: number) => `${formatCount(n)} ${n === 1 ? "file" : "files"}`;
  if (o.added > 0) parts.push(`${files(o.added)} added`);
  if (o.modified > 0) parts.push(`${files(o.modified)} changed`);
  if (o.deleted > 0) parts.push(`${files(o.deleted)} removed`);
  return `${o.path}: ${parts.join(", ")} (ignored by git${o.landed ? "" : "; not all of it landed"})`;
}
