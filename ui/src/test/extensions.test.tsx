// Skills and tool servers (issue 12) as a person meets them, against the fake backend:
// Settings lists the skills (where each came from, its triggers and tools, broken ones with
// their file and error) and turns one off; it lists the MCP servers with their state and tools,
// approves a project's server, and shows a failed one's last stderr lines; the transcript says
// "Skill NAME activated".
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { App } from "../App";
import { useApp } from "../store";
import { useSession } from "../session";
import { useModels } from "../models";
import { applyEvents, emptyTranscript } from "../transcript";
import { TranscriptItem } from "../components/TranscriptItem";
import { entry, installFakeBackend, mcpServer, mcpView, skillsView, text, type FakeAgent, type FakeProject } from "./fakeBackend";
import { PLAIN, proposed } from "./fixtures";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("README.md", "file")] },
  files: { "README.md": text("README.md", ["# Demo"]) },
};

beforeEach(() => {
  useApp.setState({
    screen: { kind: "loading" },
    settings: null,
    settingsError: null,
    settingsOpen: false,
    firstRunSkipped: false,
  });
  useSession.setState({ root: null, sessions: [], sessionsLoaded: false, transcript: emptyTranscript() });
  useModels.setState({ lists: null, loading: false, error: null, useError: null });
});
afterEach(() => {
  cleanup();
  clearMocks();
});

async function openTab(tab: "skills" | "mcp", agent: FakeAgent) {
  const calls = installFakeBackend(project, agent);
  const user = userEvent.setup();
  render(<App />);
  await user.click(await screen.findByTestId("settings-button"));
  const view = await screen.findByTestId("settings-view");
  await user.click(within(view).getByTestId(`settings-tab-${tab}`));
  return { calls, user, view };
}

describe("Settings → Skills", () => {
  it("lists each skill with where it came from, its triggers and tools, and the broken ones", async () => {
    const skills = skillsView({
      problems: [
        { origin: "project", file: "/work/demo/.tandem/skills/broken/skill.json", error: "EOF while parsing a value at line 1 column 9" },
      ],
    });
    const { view } = await openTab("skills", { skills });
    const card = await within(view).findByTestId("skill-card");
    expect(card).toHaveAttribute("data-name", "word-count");
    expect(within(card).getByTestId("skill-origin")).toHaveTextContent("This project");
    expect(card).toHaveTextContent("Counts the words of a file");
    expect(card).toHaveTextContent("word count");
    expect(within(card).getByTestId("skill-tool")).toHaveTextContent("count_words — Words in one file");
    expect(within(card).getByTestId("skill-tool")).toHaveTextContent("wc -w {{file}}");
    expect(card).toHaveTextContent("SKILL.md joins the agent's instructions");
    const problem = within(view).getByTestId("skill-problem");
    expect(problem).toHaveTextContent("/work/demo/.tandem/skills/broken/skill.json: EOF while parsing");
    expect(view).toHaveTextContent("One skill could not be loaded and is skipped");
  });

  it("turns a skill off, as Rust keeps it", async () => {
    const { calls, user, view } = await openTab("skills", { skills: skillsView() });
    const card = await within(view).findByTestId("skill-card");
    await user.click(within(card).getByTestId("skill-toggle"));
    await waitFor(() => expect(within(view).getByTestId("skill-card")).toHaveAttribute("data-enabled", "false"));
    const sent = calls.find((c) => c.cmd === "set_skill_enabled")?.payload as { args: unknown };
    expect(sent.args).toEqual({ root: "/work/demo", name: "word-count", enabled: false });
  });

  it("adds a skill from a picked folder and removes one of the user's own after asking once more", async () => {
    const { calls, user, view } = await openTab("skills", { skills: skillsView(), pickedFolder: "/home/me/src/spell-check" });
    await within(view).findByTestId("skill-card");
    await user.click(within(view).getByTestId("skill-add"));
    await waitFor(() => expect(within(view).getAllByTestId("skill-card")).toHaveLength(2));
    const sent = calls.find((c) => c.cmd === "add_skill")?.payload as { args: unknown };
    expect(sent.args).toEqual({ root: "/work/demo", folder: "/home/me/src/spell-check" });
    const [projects, mine] = within(view).getAllByTestId("skill-card");
    // A project's skill lives in its repository: it can be turned off, not removed here.
    expect(within(projects!).queryByTestId("skill-remove")).toBeNull();
    await user.click(within(mine!).getByTestId("skill-remove"));
    expect(calls.some((c) => c.cmd === "remove_skill")).toBe(false);
    expect(within(mine!).getByTestId("skill-remove-question")).toHaveTextContent("Remove the skill spell-check?");
    await user.click(within(mine!).getByTestId("skill-remove-confirm"));
    await waitFor(() => expect(within(view).getAllByTestId("skill-card")).toHaveLength(1));
    const removed = calls.find((c) => c.cmd === "remove_skill")?.payload as { args: unknown };
    expect(removed.args).toEqual({ root: "/work/demo", name: "spell-check" });
  });

  it("shows Rust's words when a picked folder is not a skill, and nothing when the picker is cancelled", async () => {
    const refused = "This folder is not a skill Tandem can load — /home/me/x/skill.json: there is no skill.json in this skill folder";
    const { calls, user, view } = await openTab("skills", { pickedFolder: "/home/me/x", addSkillError: refused });
    await user.click(await within(view).findByTestId("skill-add"));
    expect(await within(view).findByTestId("skill-error")).toHaveTextContent("there is no skill.json");
    expect(calls.filter((c) => c.cmd === "add_skill")).toHaveLength(1);

    cleanup();
    const again = await openTab("skills", {});
    await again.user.click(await within(again.view).findByTestId("skill-add"));
    await waitFor(() => expect(again.calls.some((c) => c.cmd === "plugin:dialog|open")).toBe(true));
    expect(again.calls.some((c) => c.cmd === "add_skill")).toBe(false);
  });

  it("says where skills go when there are none", async () => {
    const { view } = await openTab("skills", {});
    expect(await within(view).findByTestId("no-skills")).toHaveTextContent("/work/demo/.tandem/skills");
  });
});

describe("Settings → Tool servers", () => {
  it("lists each server with its state and tools, and a failed one with its last stderr lines", async () => {
    const failed = mcpServer({
      name: "broken",
      state: "failed",
      restarts: 3,
      tools: [],
      message: "it did not start as an MCP server. It was started again 3 times and failed each time, so Tandem gave up on it",
      stderr: ["tiny server: cannot start: the database is missing"],
    });
    const { calls, user, view } = await openTab("mcp", { mcp: mcpView([mcpServer(), failed]) });
    const servers = await within(view).findAllByTestId("mcp-server");
    expect(servers.map((s) => s.getAttribute("data-state"))).toEqual(["running", "failed"]);
    expect(within(servers[0]!).getByTestId("mcp-state")).toHaveTextContent("Running");
    expect(within(servers[0]!).getByTestId("mcp-tool")).toHaveTextContent("tiny__echo — Says the text back.");
    expect(servers[0]).toHaveTextContent("Runs in the sandbox, without the network");
    expect(within(servers[0]!).queryByTestId("mcp-stderr")).toBeNull();
    expect(within(servers[1]!).getByTestId("mcp-stderr")).toHaveTextContent("the database is missing");
    expect(servers[1]).toHaveTextContent("gave up on it");
    await user.click(within(servers[1]!).getByTestId("mcp-restart"));
    await waitFor(() => expect(calls.some((c) => c.cmd === "restart_mcp_server")).toBe(true));
  });

  it("approves a project's server, which then starts and shows its tools", async () => {
    const waiting = mcpServer({
      name: "repo",
      origin: "project",
      state: "needs_approval",
      tools: [],
      stderr: [],
      message: "it comes from this project's .tandem/mcp.json; it starts once you approve it",
    });
    const { calls, user, view } = await openTab("mcp", { mcp: mcpView([waiting]) });
    const card = await within(view).findByTestId("mcp-server");
    expect(card).toHaveAttribute("data-state", "needs_approval");
    expect(card).toHaveTextContent("Approving it lets Tandem start python3 tiny_server.py for this project, in the sandbox");
    expect(within(card).queryByTestId("mcp-tool")).toBeNull();
    await user.click(within(card).getByTestId("mcp-approve"));
    const sent = calls.find((c) => c.cmd === "approve_mcp_server")?.payload as { args: unknown };
    expect(sent.args).toEqual({ root: "/work/demo", name: "repo" });
    expect(await within(view).findByText("Starting…")).toBeTruthy();
    // The tab looks again while it starts, and shows what Rust says next.
    const tool = await within(view).findByTestId("mcp-tool", {}, { timeout: 3000 });
    expect(tool).toHaveTextContent("repo__echo");
    expect(within(view).getByTestId("mcp-server")).toHaveAttribute("data-state", "running");
  });

  it("adds a program as a server of the user's own and removes it after asking once more", async () => {
    const { calls, user, view } = await openTab("mcp", {});
    await user.click(await within(view).findByTestId("mcp-add"));
    const form = within(view).getByTestId("mcp-add-form");
    expect(within(form).getByTestId("mcp-add-submit")).toBeDisabled();
    await user.type(within(form).getByTestId("mcp-add-name"), "memory");
    await user.type(within(form).getByTestId("mcp-add-command"), "npx -y @modelcontextprotocol/server-memory");
    await user.click(within(form).getByTestId("mcp-add-network"));
    await user.click(within(form).getByTestId("mcp-add-submit"));
    const server = await within(view).findByTestId("mcp-server");
    expect(server).toHaveAttribute("data-name", "memory");
    expect(within(view).queryByTestId("mcp-add-form")).toBeNull();
    const sent = calls.find((c) => c.cmd === "add_mcp_server")?.payload as { args: unknown };
    expect(sent.args).toEqual({
      root: "/work/demo",
      name: "memory",
      server: { kind: "program", command_line: "npx -y @modelcontextprotocol/server-memory", network: true },
    });
    await user.click(within(server).getByTestId("mcp-remove"));
    await user.click(within(server).getByTestId("mcp-remove-confirm"));
    await waitFor(() => expect(within(view).queryByTestId("mcp-server")).toBeNull());
    const removed = calls.find((c) => c.cmd === "remove_mcp_server")?.payload as { args: unknown };
    expect(removed.args).toEqual({ root: "/work/demo", name: "memory" });
  });

  it("adds an address, keeps the form with Rust's words when refused, and offers no Remove on a project's server", async () => {
    const project = mcpServer({ name: "repo", origin: "project", state: "needs_approval", tools: [] });
    const refused = "a server named web is already set up; choose another name, or remove that one first";
    const { calls, user, view } = await openTab("mcp", { mcp: mcpView([project]), addMcpError: refused });
    const repo = await within(view).findByTestId("mcp-server");
    expect(within(repo).queryByTestId("mcp-remove")).toBeNull();
    await user.click(within(view).getByTestId("mcp-add"));
    const form = within(view).getByTestId("mcp-add-form");
    await user.type(within(form).getByTestId("mcp-add-name"), "web");
    await user.click(within(form).getByTestId("mcp-add-kind-address"));
    expect(within(form).queryByTestId("mcp-add-command")).toBeNull();
    await user.type(within(form).getByTestId("mcp-add-url"), "https://example.com/mcp");
    await user.click(within(form).getByTestId("mcp-add-submit"));
    expect(await within(view).findByTestId("mcp-error")).toHaveTextContent("already set up");
    expect(within(view).getByTestId("mcp-add-form")).toBeInTheDocument();
    expect(within(view).getByTestId("mcp-add-url")).toHaveValue("https://example.com/mcp");
    const sent = calls.find((c) => c.cmd === "add_mcp_server")?.payload as { args: unknown };
    expect(sent.args).toEqual({ root: "/work/demo", name: "web", server: { kind: "address", url: "https://example.com/mcp" } });
  });

  it("shows a configuration file it cannot read, and where servers go when there are none", async () => {
    const { view } = await openTab("mcp", {
      mcp: mcpView([], { problems: [{ file: "/work/demo/.tandem/mcp.json", error: "key must be a string at line 1 column 2" }] }),
    });
    expect(await within(view).findByTestId("mcp-problem")).toHaveTextContent("/work/demo/.tandem/mcp.json: key must be a string");
    expect(within(view).getByTestId("no-mcp")).toHaveTextContent("/home/me/.config/tandem/mcp.json");
  });
});

describe("the transcript", () => {
  it("says which skill was activated, why, and its tools", () => {
    const t = applyEvents(
      emptyTranscript(),
      [
        { type: "user_message", text: "What is the word count of notes.txt?" },
        {
          type: "skill_activated",
          name: "word-count",
          origin: "project",
          activation: { kind: "trigger", trigger: "word count" },
          tools: ["count_words"],
        },
        { type: "skill_activated", name: "lint", origin: "user", activation: { kind: "model" }, tools: [] },
      ],
      { now: 0, live: true },
    );
    expect(t.items.map((i) => i.kind)).toEqual(["user", "skill", "skill"]);
    render(
      <div>
        {t.items.map((item) => (
          <TranscriptItem key={item.key} item={item} />
        ))}
      </div>,
    );
    const shown = screen.getAllByTestId("skill-activated");
    expect(shown[0]).toHaveTextContent("Skill word-count activated — your task mentions “word count”; its tools: count_words");
    expect(shown[0]).toHaveAttribute("data-activation", "trigger");
    expect(shown[1]).toHaveTextContent("Skill lint activated — the agent asked for it");
  });

  it("shows outside tools' calls by the title Rust gave them, as plain cards", () => {
    const t = applyEvents(
      emptyTranscript(),
      [
        proposed("e", "tiny__echo", { text: "hi" }, "Echo (tiny)", PLAIN),
        { type: "tool_finished", id: "e", name: "tiny__echo", output: "hi", is_error: false, outcome: "ok" },
        proposed("r", "files__read_file", { path: "a" }, "Read file (files)", PLAIN),
        { type: "tool_finished", id: "r", name: "files__read_file", output: "a's text", is_error: false, outcome: "ok" },
        proposed("w", "count_words", { path: "notes.txt" }, "Count words", PLAIN),
        proposed("s", "skill_activate", { name: "lint" }, "Activate the skill lint"),
      ],
      { now: 0, live: false },
    );
    render(
      <div>
        {t.items.map((item) => (
          <TranscriptItem key={item.key} item={item} />
        ))}
      </div>,
    );
    const cards = screen.getAllByTestId("tool-card");
    expect(cards.map((c) => c.querySelector(".tool-title")?.textContent)).toEqual([
      "Echo (tiny)",
      "Read file (files)",
      "Count words",
      "Activate the skill lint",
    ]);
    // A server's read_file is not Tandem's quiet read: its result shows, as plain text.
    expect(within(cards[1]!).getByTestId("tool-result").querySelector("pre.plain")).toHaveTextContent("a's text");
  });
});
