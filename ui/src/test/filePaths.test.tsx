// Issue 22, item 2: paths whose names start with "." or "_" were shown reversed where a long path
// keeps its end in sight (the right-to-left trick): "__pycache__/x.pyc" read "pycache__/x.pyc__".
// The path is isolated left to right inside that line, everywhere the trick is used.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { clearMocks, mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import { useSession } from "../session";
import { emptyTranscript } from "../transcript";
import type { RestoreArgs, RestorePreview, SessionFileChange } from "../bindings";
import { ChangesPanel } from "../components/ChangesPanel";
import { RestoreCard } from "../components/RestoreCard";
import { FilePath } from "../components/FilePath";
import { sessionInfo } from "./fakeBackend";
import css from "../styles.css?raw";

const PATHS = ["__pycache__/x.pyc", ".notes/todo.md", "src/_private.py", "build/out.", "a (copy).txt"];

/** The path as shown: the text of the element that isolates it left to right. */
function shownPaths(container: ParentNode, selector: string): string[] {
  return Array.from(container.querySelectorAll(selector)).map((el) => {
    const iso = el.querySelector("bdi");
    expect(iso, `${el.textContent} is not isolated`).not.toBeNull();
    expect(iso).toHaveAttribute("dir", "ltr");
    // Nothing of the path sits outside the isolated run (where the line's direction moves it).
    expect(el.textContent).toBe(iso!.textContent);
    return iso!.textContent ?? "";
  });
}

beforeEach(() => {
  mockWindows("main");
  useSession.setState({
    root: "/work/demo",
    current: sessionInfo("s1"),
    transcript: emptyTranscript(),
    runningSession: null,
    restoring: false,
    restoreAsk: null,
  });
});
afterEach(() => {
  cleanup();
  clearMocks();
});

describe("a path kept to its end", () => {
  it("is isolated left to right, whatever its first and last characters", () => {
    const { container } = render(
      <div>
        {PATHS.map((p) => (
          <FilePath key={p} path={p} className="change-path" />
        ))}
      </div>,
    );
    expect(shownPaths(container, ".file-path")).toEqual(PATHS);
  });

  it("in the Changes panel", async () => {
    const changes: SessionFileChange[] = PATHS.map((path) => ({ path, before: "a\n", after: "b\n", added_lines: 1, removed_lines: 1 }));
    mockIPC((cmd) => (cmd === "session_changes" ? changes : null));
    render(<ChangesPanel />);
    await waitFor(() => expect(screen.getAllByTestId("change-item")).toHaveLength(PATHS.length));
    expect(shownPaths(document, "[data-testid=change-item] .change-path")).toEqual(PATHS);
  });

  it("in a restore's file list", async () => {
    const preview = (args: RestoreArgs): RestorePreview => ({
      checkpoint: 0,
      turn: 1,
      scope: args.scope,
      files: PATHS.map((path) => ({ path, action: "modify", current: "a\n", restored: "b\n", binary: false, added_lines: 1, removed_lines: 1, generated: false, not_by_agent: false, changed_after_agent: false })),
      not_restorable: [],
      git: true,
      turns_removed: 0,
      stops_tasks: [],
    });
    mockIPC((cmd, payload) => (cmd === "restore_preview" ? preview((payload as { args: RestoreArgs }).args) : null));
    useSession.setState({
      restoreAsk: { target: { kind: "session_start" }, scopes: ["files_only"], paths: null, title: "every file", text: null },
    });
    render(<RestoreCard />);
    await waitFor(() => expect(screen.getAllByTestId("restore-file")).toHaveLength(PATHS.length));
    expect(shownPaths(document, "[data-testid=restore-file] .change-path")).toEqual(PATHS);
  });
});

describe("a name that is not UTF-8", () => {
  // Issue 26: the engine keeps such a byte as NUL and two hex digits; people see `\xE9`.
  it("shows its bytes in hex, not an invisible NUL", () => {
    const { container } = render(<FilePath path={"notes/caf\u0000e9.txt"} />);
    expect(shownPaths(container, ".file-path")).toEqual(["notes/caf\\xE9.txt"]);
  });

  // Issue 47: a newline in a name was printed raw in the restore preview.
  it("shows control characters escaped, on one line", () => {
    const { container } = render(<FilePath path={"two\nlines\u001b[31m.txt"} />);
    expect(shownPaths(container, ".file-path")).toEqual(["two\\nlines\\x1B[31m.txt"]);
  });
});

describe("the right-to-left trick", () => {
  const sources = import.meta.glob("../**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

  it("is used only through FilePath's isolated path", () => {
    expect(css).toMatch(/\.file-path > bdi \{[^}]*unicode-bidi: isolate/);
    const rules = css
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .split("}").filter((r) => /direction:\s*rtl/.test(r));
    expect(rules.map((r) => r.split("{")[0]!.trim())).toEqual([".file-path"]);
    for (const [file, text] of Object.entries(sources)) {
      if (file.includes("/test/")) continue;
      expect(text, file).not.toMatch(/direction:\s*["']?rtl|dir=["']rtl/);
    }
  });
});
