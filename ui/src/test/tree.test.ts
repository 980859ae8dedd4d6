import { describe, expect, it } from "vitest";
import { parentOf, visibleRows } from "../tree";
import { entry } from "./fakeBackend";
import type { FolderState } from "../store";

describe("visibleRows", () => {
  const loaded = (entries: ReturnType<typeof entry>[], omitted = 0): FolderState => ({
    status: "loaded",
    entries,
    omitted,
    skipped: [],
  });

  it("shows children only of expanded folders, depth first", () => {
    const folders = {
      "": loaded([entry("src", "dir"), entry("README.md", "file")]),
      src: loaded([entry("src/main.rs", "file")]),
    };
    const collapsed = visibleRows(folders, {});
    expect(collapsed.map((r) => (r.kind === "entry" ? r.entry.path : r.text))).toEqual(["src", "README.md"]);
    const open = visibleRows(folders, { src: true });
    expect(open.map((r) => (r.kind === "entry" ? `${r.depth}:${r.entry.path}` : r.text))).toEqual([
      "0:src",
      "1:src/main.rs",
      "0:README.md",
    ]);
  });

  it("shows loading, error, empty and omitted rows", () => {
    const rows = visibleRows(
      {
        "": loaded([entry("a", "dir"), entry("b", "dir"), entry("c", "dir")], 12),
        b: { status: "error", message: "Permission denied" } as FolderState,
        c: loaded([]),
      },
      { a: true, b: true, c: true },
    );
    const texts = rows.filter((r) => r.kind === "status").map((r) => (r.kind === "status" ? r.text : ""));
    expect(texts).toEqual(["Loading…", "Permission denied", "Empty folder", "12 more not shown"]);
  });

  it("parentOf", () => {
    expect(parentOf("a/b/c")).toBe("a/b");
    expect(parentOf("a")).toBe("");
  });
});
