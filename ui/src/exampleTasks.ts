// Example tasks for an empty session, worded for the project that is open: they name only
// files that are there, so the first thing a person reads is not wrong about their project.
import type { FileEntry } from "./bindings";

export function exampleTasks(top: FileEntry[] | null): string[] {
  const names = new Set((top ?? []).map((e) => e.name.toLowerCase()));
  const readme = (top ?? []).find((e) => e.kind === "file" && /^readme(\.md|\.txt|\.rst)?$/i.test(e.name));
  const examples = ["Explain how this project is organised and where to start reading"];
  examples.push(
    readme
      ? `Check that ${readme.name} still matches what the code does`
      : "Write a README.md that explains what this project is and how to use it",
  );
  const hasTests = ["tests", "test", "spec", "__tests__"].some((d) => names.has(d));
  const manifest = ["package.json", "cargo.toml", "pyproject.toml", "go.mod", "makefile"].find((f) => names.has(f));
  if (hasTests || manifest) examples.push("Run the tests and fix whatever fails");
  else examples.push("Find the most likely bug in this project and explain it before changing anything");
  return examples;
}
