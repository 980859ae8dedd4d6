// App state: which screen shows, the recent list, the tree's folders and the open file.
// Components read it and call its actions; every decision about files is made in Rust.
import { create } from "zustand";
import { call, toAppError } from "./api";
import { afterFirstFrame } from "./startupTrace";
import { useSession } from "./session";
import type { FileContent, FileEntry, ProjectInfo, RecentProject, SettingsView } from "./bindings";

export type Screen =
  | { kind: "loading" }
  | { kind: "welcome"; error?: { path: string; message: string } }
  | { kind: "project"; project: ProjectInfo };

export type FolderState =
  | { status: "loading" }
  | { status: "loaded"; entries: FileEntry[]; omitted: number; skipped: string[] }
  | { status: "error"; message: string };

export type OpenFile = {
  path: string;
  /** A line to bring into view and mark (from a search hit). */
  focusLine?: number;
  status: "loading" | "loaded" | "error";
  content?: FileContent;
  message?: string;
};

/** The right-hand panel's tabs. */
export type Panel = "tasks" | "changes" | "file";

/** Lines per page in the viewer; the tool pages the same way, so a huge file is never whole. */
export const PAGE_LINES = 2000;

type State = {
  screen: Screen;
  recent: RecentProject[];
  showHidden: boolean;
  folders: Record<string, FolderState>;
  expanded: Record<string, boolean>;
  selected: string | null;
  openFile: OpenFile | null;
  panel: Panel;
  /** The file the Changes panel shows, when something asked for one (a command's card). */
  changesFocus: string | null;
  settings: SettingsView | null;
  settingsError: string | null;
  settingsOpen: boolean;
  firstRunSkipped: boolean;

  init: () => Promise<void>;
  openProject: (path: string) => Promise<void>;
  closeProject: () => void;
  loadRecent: () => Promise<void>;
  removeRecent: (path: string) => Promise<void>;
  loadFolder: (path: string, fresh?: boolean) => Promise<void>;
  toggleFolder: (path: string) => Promise<void>;
  setExpanded: (path: string, open: boolean) => Promise<void>;
  select: (path: string | null) => void;
  openFileAt: (path: string, offset?: number, focusLine?: number) => Promise<void>;
  setShowHidden: (show: boolean) => Promise<void>;
  refresh: () => Promise<void>;
  setPanel: (panel: Panel) => void;
  /** Shows the Changes panel at one file's change. */
  showChange: (path: string) => void;
  /** Opens a file in the File panel and shows that panel, optionally at a line. */
  showFile: (path: string, line?: number) => Promise<void>;
  loadSettings: () => Promise<SettingsView | null>;
  setSettings: (settings: SettingsView) => void;
  setSettingsOpen: (open: boolean) => void;
  skipFirstRun: () => void;
};

function projectRoot(get: () => State): string | null {
  const screen = get().screen;
  return screen.kind === "project" ? screen.project.root : null;
}

export const useApp = create<State>((set, get) => ({
  screen: { kind: "loading" },
  recent: [],
  showHidden: false,
  folders: {},
  expanded: {},
  selected: null,
  openFile: null,
  panel: "tasks",
  changesFocus: null,
  settings: null,
  settingsError: null,
  settingsOpen: false,
  firstRunSkipped: false,

  async init() {
    // Settings and the startup screen are asked at once; the screen waits for both, so the
    // first-run screen (no model provider yet) never flashes the project first.
    const settings = get().loadSettings();
    try {
      const startup = await call("startup");
      await settings;
      if (startup.kind === "project") {
        // The session list is part of the first screen: loaded before it is drawn, so the
        // window does not appear with an empty list that fills a frame later — but a slow list
        // (a huge sessions folder, a busy disk) never holds the window back: it fills in later.
        await Promise.race([
          useSession.getState().setProject(startup.project.root),
          new Promise((resolve) => window.setTimeout(resolve, SESSIONS_WAIT_AT_MOST_MS)),
        ]);
        showProject(set, startup.project);
        // The Files tab is not the one shown first: its listing comes after the first frame.
        await afterFirstFrame();
        await get().loadFolder("");
      } else if (startup.kind === "error") {
        set({ screen: { kind: "welcome", error: { path: startup.path, message: startup.message } } });
      } else {
        set({ screen: { kind: "welcome" } });
      }
    } catch (err) {
      set({ screen: { kind: "welcome", error: { path: "", message: toAppError(err).message } } });
    }
    await get().loadRecent();
  },

  async openProject(path) {
    try {
      const project = await call("open_project", { path });
      showProject(set, project);
      await get().loadFolder("");
    } catch (err) {
      set({ screen: { kind: "welcome", error: { path, message: toAppError(err).message } } });
    }
    await get().loadRecent();
  },

  closeProject() {
    // Remembered in Rust, so the next launch opens the welcome screen, not this project.
    void call("close_project").catch(() => undefined);
    set({ screen: { kind: "welcome" }, folders: {}, expanded: {}, selected: null, openFile: null, panel: "tasks" });
    void get().loadRecent();
  },

  async loadRecent() {
    try {
      set({ recent: await call("recent_projects") });
    } catch {
      // The list is a convenience: without it the welcome screen still works.
      set({ recent: [] });
    }
  },

  async removeRecent(path) {
    try {
      set({ recent: await call("remove_recent", { path }) });
    } catch (err) {
      set({ screen: { kind: "welcome", error: { path, message: toAppError(err).message } } });
    }
  },

  async loadFolder(path, fresh = false) {
    const root = projectRoot(get);
    if (root === null) return;
    const hidden = get().showHidden;
    if (!get().folders[path]) set((s) => ({ folders: { ...s.folders, [path]: { status: "loading" } } }));
    try {
      const listing = await call("list_dir", { root, path, hidden, fresh });
      if (projectRoot(get) !== root) return;
      set((s) => ({
        folders: {
          ...s.folders,
          [path]: {
            status: "loaded",
            entries: listing.entries,
            omitted: listing.omitted,
            skipped: listing.skipped,
          },
        },
      }));
    } catch (err) {
      set((s) => ({
        folders: { ...s.folders, [path]: { status: "error", message: toAppError(err).message } },
      }));
    }
  },

  async toggleFolder(path) {
    await get().setExpanded(path, !get().expanded[path]);
  },

  async setExpanded(path, open) {
    set((s) => ({ expanded: { ...s.expanded, [path]: open } }));
    if (open && get().folders[path]?.status !== "loaded") await get().loadFolder(path);
  },

  select(path) {
    set({ selected: path });
  },

  async openFileAt(path, offset, focusLine?: number) {
    const root = projectRoot(get);
    if (root === null) return;
    // While a page loads, the previous page of the same file stays on screen (no flicker on
    // refresh or paging).
    const previous = get().openFile;
    const keep = previous?.path === path ? previous.content : undefined;
    set({ selected: path, openFile: { path, status: "loading", content: keep, focusLine } });
    try {
      const content = await call("read_file", { root, path, offset: offset ?? null, limit: PAGE_LINES });
      if (get().openFile?.path !== path) return;
      set({ openFile: { path, status: "loaded", content, focusLine } });
    } catch (err) {
      if (get().openFile?.path !== path) return;
      set({ openFile: { path, status: "error", message: toAppError(err).message } });
    }
  },

  async setShowHidden(show) {
    set({ showHidden: show });
    await get().refresh();
  },

  async refresh() {
    const open = Object.entries(get().expanded)
      .filter(([, isOpen]) => isOpen)
      .map(([path]) => path);
    // The root asks for a fresh git status; the folders after it reuse that reading.
    await get().loadFolder("", true);
    await Promise.all(open.map((p) => get().loadFolder(p)));
    const file = get().openFile;
    if (file?.status === "loaded") {
      const start = file.content?.kind === "text" ? file.content.start_line : undefined;
      await get().openFileAt(file.path, start, file.focusLine);
    }
  },

  showChange(path) {
    set({ panel: "changes", changesFocus: path });
  },

  setPanel(panel) {
    set({ panel });
  },

  async showFile(path, line) {
    set({ panel: "file" });
    // The page that holds the line, with some lines above it for context.
    const offset = line !== undefined && line > PAGE_LINES ? Math.max(1, line - 20) : undefined;
    await get().openFileAt(path, offset, line);
  },

  async loadSettings() {
    try {
      const settings = await call("get_settings");
      set({ settings, settingsError: null });
      return settings;
    } catch (err) {
      set({ settingsError: `The settings could not be read: ${toAppError(err).message}` });
      return null;
    }
  },

  setSettings(settings) {
    set({ settings, settingsError: null });
  },

  setSettingsOpen(open) {
    set({ settingsOpen: open });
  },

  skipFirstRun() {
    set({ firstRunSkipped: true });
  },
}));

/** How long the first screen waits for its session list (it answers in ~10 ms here). */
const SESSIONS_WAIT_AT_MOST_MS = 200;

function showProject(set: (partial: Partial<State>) => void, project: ProjectInfo) {
  // Rust watches the folder from now on and says when files change (see projectChanges.ts).
  void afterFirstFrame()
    .then(() => call("watch_project", { root: project.root }))
    .catch(() => undefined);
  set({
    screen: { kind: "project", project },
    folders: {},
    expanded: {},
    selected: null,
    openFile: null,
  });
}
