// A scripted backend for component tests: answers the app's commands from an in-memory project.
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { FileContent, FileEntry, RecentProject, Startup } from "../bindings";

export type Call = { cmd: string; payload: unknown };

export type FakeProject = {
  startup: Startup;
  folders: Record<string, FileEntry[]>;
  files: Record<string, FileContent>;
  recent?: RecentProject[];
};

export function entry(path: string, kind: "file" | "dir", git: FileEntry["git"] = null): FileEntry {
  const name = path.split("/").pop() ?? path;
  return { path, name, kind, symlink: false, hidden: name.startsWith("."), size: kind === "file" ? 10 : null, git };
}

export function text(path: string, lines: string[], start_line = 1, total_lines = lines.length): FileContent {
  return { kind: "text", path, start_line, lines, total_lines, size: lines.join("\n").length, crlf: false };
}

export function installFakeBackend(project: FakeProject): Call[] {
  const calls: Call[] = [];
  let recent = project.recent ?? [];
  mockWindows("main");
  mockIPC((cmd, payload) => {
    calls.push({ cmd, payload });
    const args = (payload as { args?: Record<string, unknown> } | undefined)?.args ?? {};
    switch (cmd) {
      case "startup":
        return project.startup;
      case "recent_projects":
        return recent;
      case "remove_recent":
        recent = recent.filter((r) => r.path !== args.path);
        return recent;
      case "open_project":
        throw { code: "not_found", message: `${String(args.path)} does not exist.` };
      case "list_dir": {
        const entries = project.folders[String(args.path)];
        if (!entries) throw { code: "not_found", message: `${String(args.path)} does not exist.` };
        return { path: args.path, entries, omitted: 0, skipped: [] };
      }
      case "read_file": {
        const file = project.files[String(args.path)];
        if (!file) throw { code: "not_found", message: `${String(args.path)} does not exist.` };
        return file;
      }
      default:
        throw new Error(`unexpected command ${cmd}`);
    }
  }, { shouldMockEvents: true });
  return calls;
}
