import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { App } from "../App";
import { useApp } from "../store";
import { entry, installFakeBackend, text, type FakeProject } from "./fakeBackend";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: {
    "": [entry("src", "dir", "modified"), entry("notes.txt", "file", "untracked"), entry("README.md", "file")],
    src: [entry("src/main.rs", "file", "modified")],
  },
  files: {
    "README.md": text("README.md", ["# Demo", "", "Hello"]),
    "src/main.rs": text("src/main.rs", ["fn main() {}"]),
    "notes.txt": { kind: "binary", path: "notes.txt", size: 1234 },
  },
};

beforeEach(() => {
  useApp.setState({ screen: { kind: "loading" }, folders: {}, expanded: {}, selected: null, openFile: null, recent: [], showHidden: false });
});
afterEach(() => {
  cleanup();
  clearMocks();
});

const rowFor = (path: string) =>
  screen.getAllByTestId("tree-row").find((r) => r.getAttribute("data-path") === path);

describe("project view", () => {
  it("folds and unfolds the side panels, and a narrow window keeps the transcript whole", async () => {
    installFakeBackend(project);
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(screen.getByTestId("project-view")).toBeInTheDocument());
    const sidebar = screen.getByTestId("sidebar");
    const details = screen.getByTestId("details-panel");
    expect(sidebar).toBeVisible();
    await user.click(screen.getByTestId("toggle-sidebar"));
    expect(sidebar).not.toBeVisible();
    await user.click(screen.getByTestId("toggle-sidebar"));
    expect(sidebar).toBeVisible();
    // Too narrow for three columns: the details panel steps aside; its button brings it back
    // in the sidebar's place.
    act(() => {
      window.innerWidth = 700;
      window.dispatchEvent(new Event("resize"));
    });
    expect(details).not.toBeVisible();
    await user.click(screen.getByTestId("toggle-details"));
    expect(details).toBeVisible();
    expect(sidebar).not.toBeVisible();
    act(() => {
      window.innerWidth = 1024;
      window.dispatchEvent(new Event("resize"));
    });
    await user.click(screen.getByTestId("toggle-sidebar"));
    expect(sidebar).toBeVisible();
    expect(details).toBeVisible();
  });

  it("shows the tree with git badges, folders rolled up", async () => {
    installFakeBackend(project);
    render(<App />);
    await waitFor(() => expect(rowFor("README.md")).toBeDefined());
    expect(screen.getByTestId("project-name")).toHaveTextContent("demo");
    expect(screen.getByTestId("project-branch")).toHaveTextContent("main");
    expect(rowFor("src")).toHaveAttribute("data-git", "modified");
    expect(rowFor("notes.txt")).toHaveAttribute("data-git", "untracked");
    expect(within(rowFor("notes.txt")!).getByTestId("git-badge")).toHaveTextContent("U");
    expect(rowFor("README.md")).toHaveAttribute("data-git", "");
  });

  it("opens a file by click and shows numbered lines", async () => {
    installFakeBackend(project);
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(rowFor("README.md")).toBeDefined());
    await user.click(rowFor("README.md")!);
    await waitFor(() => expect(screen.getAllByTestId("file-line")).toHaveLength(3));
    const numbers = screen.getAllByTestId("line-number").map((n) => n.textContent);
    expect(numbers).toEqual(["1", "2", "3"]);
    expect(screen.getAllByTestId("file-line")[0]).toHaveTextContent("# Demo");
  });

  it("moves with the arrow keys, expands with ArrowRight and opens with Enter", async () => {
    const calls = installFakeBackend(project);
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(rowFor("src")).toBeDefined());
    act(() => screen.getByTestId("file-tree").focus());
    await waitFor(() => expect(rowFor("src")).toHaveAttribute("aria-selected", "true"));
    await user.keyboard("{ArrowRight}");
    await waitFor(() => expect(rowFor("src/main.rs")).toBeDefined());
    await user.keyboard("{ArrowDown}{Enter}");
    await waitFor(() => expect(screen.getByTestId("viewer-path")).toHaveTextContent("src/main.rs"));
    expect(calls.filter((c) => c.cmd === "list_dir").map((c) => (c.payload as { args: { path: string } }).args.path)).toEqual(["", "src"]);
    await user.keyboard("{ArrowLeft}");
    expect(rowFor("src")).toHaveAttribute("aria-selected", "true");
    await user.keyboard("{ArrowLeft}");
    await waitFor(() => expect(rowFor("src/main.rs")).toBeUndefined());
  });

  it("describes binary files instead of showing them", async () => {
    installFakeBackend(project);
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(rowFor("notes.txt")).toBeDefined());
    await user.click(rowFor("notes.txt")!);
    expect(await screen.findByTestId("binary-notice")).toHaveTextContent("Binary file, 1,234 bytes");
  });

  it("pages a long file instead of loading it whole", async () => {
    const big: FakeProject = {
      ...project,
      files: { "README.md": text("README.md", ["line 1", "line 2"], 1, 90_000) },
    };
    const calls = installFakeBackend(big);
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(rowFor("README.md")).toBeDefined());
    await user.click(rowFor("README.md")!);
    expect(await screen.findByTestId("viewer-pager")).toHaveTextContent("Lines 1–2 of 90,000");
    const read = calls.find((c) => c.cmd === "read_file");
    expect((read?.payload as { args: { limit: number } }).args.limit).toBe(2000);
  });
});

describe("welcome screen", () => {
  it("shows the error for a bad command-line path", async () => {
    installFakeBackend({
      ...project,
      startup: { kind: "error", path: "/nope", message: "/nope does not exist." },
    });
    render(<App />);
    const error = await screen.findByTestId("welcome-error");
    expect(error).toHaveTextContent("/nope");
    expect(error).toHaveTextContent("does not exist");
    expect(screen.getByTestId("open-folder")).toBeInTheDocument();
  });

  it("lists recent projects, greys vanished ones and removes them", async () => {
    const calls = installFakeBackend({
      ...project,
      startup: { kind: "welcome" },
      recent: [
        { path: "/work/a", name: "a", opened_at_ms: Date.now(), exists: true },
        { path: "/work/gone", name: "gone", opened_at_ms: Date.now() - 86_400_000 * 3, exists: false },
      ],
    });
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(screen.getAllByTestId("recent-project")).toHaveLength(2));
    const [first, gone] = screen.getAllByTestId("recent-project");
    expect(first).toHaveAttribute("data-exists", "true");
    expect(gone).toHaveAttribute("data-exists", "false");
    expect(within(gone!).getByText("folder not found")).toBeInTheDocument();
    expect(within(gone!).getByTestId("recent-open")).toBeDisabled();
    await user.click(within(gone!).getByTestId("recent-remove"));
    await waitFor(() => expect(screen.getAllByTestId("recent-project")).toHaveLength(1));
    expect(calls.some((c) => c.cmd === "remove_recent")).toBe(true);
  });

  it("opening a recent project that fails shows why, on the welcome screen", async () => {
    installFakeBackend({
      ...project,
      startup: { kind: "welcome" },
      recent: [{ path: "/work/a", name: "a", opened_at_ms: Date.now(), exists: true }],
    });
    const user = userEvent.setup();
    render(<App />);
    const item = await screen.findByTestId("recent-project");
    await user.click(within(item).getByTestId("recent-open"));
    expect(await screen.findByTestId("welcome-error")).toHaveTextContent("does not exist");
  });

  it("opens a folder dropped onto the window, showing a drop target while dragging", async () => {
    const calls = installFakeBackend({ ...project, startup: { kind: "welcome" } });
    render(<App />);
    await screen.findByTestId("open-folder");
    // The listeners are registered asynchronously after the first render.
    await waitFor(async () => {
      await emit("tauri://drag-enter", { paths: ["/dropped/project"], position: { x: 10, y: 10 } });
      expect(screen.getByText("Drop a folder to open it")).toBeInTheDocument();
    });
    await emit("tauri://drag-drop", { paths: ["/dropped/project"], position: { x: 10, y: 10 } });
    await waitFor(() => expect(calls.some((c) => c.cmd === "open_project")).toBe(true));
    const open = calls.find((c) => c.cmd === "open_project");
    expect(open?.payload).toEqual({ args: { path: "/dropped/project" } });
    // The fake backend says the folder does not exist: the reason shows, the overlay is gone.
    expect(await screen.findByTestId("welcome-error")).toHaveTextContent("/dropped/project");
    expect(screen.queryByText("Drop a folder to open it")).not.toBeInTheDocument();
  });
});

describe("refresh", () => {
  it("asks for a fresh git status and reloads the open file at its page", async () => {
    const calls = installFakeBackend(project);
    const user = userEvent.setup();
    render(<App />);
    await waitFor(() => expect(rowFor("README.md")).toBeDefined());
    await user.click(rowFor("README.md")!);
    await screen.findAllByTestId("file-line");
    calls.length = 0;
    await user.click(screen.getByTestId("refresh-tree"));
    await waitFor(() => expect(calls.some((c) => c.cmd === "read_file")).toBe(true));
    const list = calls.find((c) => c.cmd === "list_dir");
    expect((list?.payload as { args: { fresh: boolean; path: string } }).args).toMatchObject({ path: "", fresh: true });
    const read = calls.find((c) => c.cmd === "read_file");
    expect((read?.payload as { args: { path: string; offset: number } }).args).toMatchObject({ path: "README.md", offset: 1 });
    // The file stayed on screen while it reloaded.
    expect(screen.getAllByTestId("file-line")).toHaveLength(3);
  });
});
