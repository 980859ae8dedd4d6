import { describe, expect, it } from "vitest";
import type { FileEntry } from "../bindings";
import { exampleTasks } from "../exampleTasks";

const entry = (name: string, kind: "file" | "dir" = "file"): FileEntry => ({
  path: name,
  name,
  kind,
  symlink: false,
  hidden: false,
  size: null,
  git: null,
});

describe("example tasks for an empty session", () => {
  it("name only files the project has", () => {
    const ex = exampleTasks([entry("src", "dir"), entry("README.md"), entry("Cargo.toml")]);
    expect(ex).toContain("Check that README.md still matches what the code does");
    expect(ex).toContain("Run the tests and fix whatever fails");
    expect(ex.join(" ")).not.toMatch(/parser\.rs|--verbose/);
  });

  it("a bare folder gets tasks that name no file of its own", () => {
    const ex = exampleTasks([entry("notes.txt")]);
    expect(ex.join(" ")).not.toMatch(/README\.md still|tests and fix/);
    expect(ex).toHaveLength(3);
  });
});
