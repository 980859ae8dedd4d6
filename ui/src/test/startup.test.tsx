// The window's start: the first frame waits only for what the first screen shows.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { useLayoutEffect } from "react";
import { useApp } from "../store";
import { useSession } from "../session";
import { clearMocks } from "@tauri-apps/api/mocks";
import { App } from "../App";
import { call } from "../api";
import { beginStartupTrace, finishStartupTrace } from "../startupTrace";
import { entry, installFakeBackend, sessionInfo, type FakeProject } from "./fakeBackend";
import { resetStores } from "./resetStores";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("README.md", "file")] },
  files: {},
};

beforeEach(resetStores);

afterEach(() => {
  cleanup();
  clearMocks();
  delete window.__tandemEarly;
});

describe("the window's start", () => {
  it("asks only for what the first screen shows before its first frame, and the rest right after", async () => {
    const calls = installFakeBackend(project);
    beginStartupTrace();
    render(<App />);
    await waitFor(() => expect(calls.some((c) => c.cmd === "ui_ready")).toBe(true));
    const ready = calls.findIndex((c) => c.cmd === "ui_ready");
    const before = calls.slice(0, ready).map((c) => c.cmd);
    expect(before).toEqual(expect.arrayContaining(["startup", "get_settings", "list_sessions"]));
    for (const later of ["list_dir", "watch_project", "provider_models", "sandbox_status"]) {
      expect(before).not.toContain(later);
    }
    // The trace travels with ui_ready: the page's moments and the commands asked on the way.
    const traced = calls[ready]?.payload as { args: { marks: { name: string }[] } };
    const names = traced.args.marks.map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(["scripts evaluated", "startup asked", "first frame"]));
    await waitFor(() => {
      const after = calls.slice(ready).map((c) => c.cmd);
      expect(after).toEqual(expect.arrayContaining(["list_dir", "watch_project", "provider_models", "sandbox_status"]));
    });
    expect(screen.getByTestId("project-view")).toBeInTheDocument();
  });

  it("draws its first screen with the project's sessions already listed, not filled in a frame later", async () => {
    const calls = installFakeBackend(project, { sessions: [sessionInfo("s1", { title: "Yesterday's task" })] });
    beginStartupTrace();
    // What the first commit of the project screen holds, seen from inside that commit.
    const seen: string[][] = [];
    function Witness() {
      const kind = useApp((s) => s.screen.kind);
      useLayoutEffect(() => {
        if (kind === "project") seen.push(useSession.getState().sessions.map((x) => x.title ?? ""));
      }, [kind]);
      return null;
    }
    render(
      <>
        <App />
        <Witness />
      </>,
    );
    await waitFor(() => expect(calls.some((c) => c.cmd === "ui_ready")).toBe(true));
    expect(seen[0]).toEqual(["Yesterday's task"]);
    const traced = calls.find((c) => c.cmd === "ui_ready")?.payload as { args: { marks: { name: string }[] } };
    const names = traced.args.marks.map((m) => m.name);
    expect(names.indexOf("list_sessions answered")).toBeLessThan(names.indexOf("first screen committed"));
  });

  it("takes an answer early.js asked for once, and asks Rust itself after that", async () => {
    const calls = installFakeBackend(project);
    beginStartupTrace();
    const early = { kind: "welcome" as const };
    window.__tandemEarly = { startup: Promise.resolve(early) };
    expect(await call("startup")).toBe(early);
    expect(calls.map((c) => c.cmd)).not.toContain("startup");
    expect(await call("startup")).toEqual(project.startup);
    expect(calls.map((c) => c.cmd)).toContain("startup");
  });

  it("shows the project without its session list when the list is slow, and fills it in after", async () => {
    installFakeBackend(project, { sessions: [sessionInfo("s1", { title: "Yesterday's task" })] });
    beginStartupTrace();
    let answer: (v: unknown) => void = () => {};
    window.__tandemEarly = {
      'list_sessions {"root":"/work/demo"}': new Promise((resolve) => {
        answer = resolve;
      }),
    };
    render(<App />);
    expect(await screen.findByTestId("project-view", {}, { timeout: 2000 })).toBeInTheDocument();
    expect(screen.queryByText("Yesterday's task")).toBeNull();
    answer([sessionInfo("s1", { title: "Yesterday's task" })]);
    expect(await screen.findByText("Yesterday's task")).toBeInTheDocument();
  });

  it("takes the session list early.js asked for only for the same project", async () => {
    const calls = installFakeBackend(project);
    beginStartupTrace();
    const listed = [sessionInfo("s1")];
    window.__tandemEarly = { 'list_sessions {"root":"/work/demo"}': Promise.resolve(listed) };
    expect(await call("list_sessions", { root: "/elsewhere" })).toEqual([]);
    expect(calls.filter((c) => c.cmd === "list_sessions")).toHaveLength(1);
    expect(await call("list_sessions", { root: "/work/demo" })).toBe(listed);
    expect(calls.filter((c) => c.cmd === "list_sessions")).toHaveLength(1);
  });

  it("never takes an early answer once the start is over: it could be stale", async () => {
    const calls = installFakeBackend(project);
    beginStartupTrace();
    finishStartupTrace();
    window.__tandemEarly = { startup: Promise.resolve({ kind: "welcome" as const }) };
    expect(await call("startup")).toEqual(project.startup);
    expect(calls.map((c) => c.cmd)).toContain("startup");
  });
});
