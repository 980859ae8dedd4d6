// Issue 22, item 1: one key press must never approve something the person did not see. The
// card's keys act only on the card itself, never behind a dialog, never in its first moments,
// and a card never takes the cursor from someone writing; typed text is never lost.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks, mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import { App } from "../App";
import { useApp } from "../store";
import { useSession } from "../session";
import { emptyTranscript } from "../transcript";
import type { ApprovalAnswer } from "../bindings";
import { APPROVAL_KEY_DELAY_MS, keyVerdict, mayTakeFocus } from "../approvalKeys";
import { ApprovalCard } from "../components/ApprovalCard";
import { Composer } from "../components/Composer";
import { entry, installFakeBackend, sessionInfo, text, type FakeProject, type FakeTurn } from "./fakeBackend";
import { editRequest, request } from "./fixtures";

const project: FakeProject = {
  startup: { kind: "project", project: { root: "/work/demo", name: "demo", is_git: true, branch: "main" } },
  folders: { "": [entry("README.md", "file")] },
  files: { "README.md": text("README.md", ["# Demo"]) },
};

function resetStores() {
  useApp.setState({
    screen: { kind: "loading" },
    folders: {},
    expanded: {},
    selected: null,
    openFile: null,
    recent: [],
    showHidden: false,
    panel: "tasks",
    settings: null,
    settingsError: null,
    settingsOpen: false,
    firstRunSkipped: false,
  });
  useSession.setState({
    root: null,
    sessions: [],
    sessionsLoaded: false,
    sessionsError: null,
    current: null,
    transcript: emptyTranscript(),
    runningSession: null,
    mode: "ask",
    answered: {},
    tasks: [],
    error: null,
    loading: false,
    warnings: [],
    sandbox: null,
  });
}

beforeEach(resetStores);
afterEach(() => {
  cleanup();
  clearMocks();
  vi.useRealTimers();
  delete (globalThis as { jest?: unknown }).jest;
});

describe("when a card's keys may answer (pure rules)", () => {
  const press = { key: "a", modified: false, repeat: false, inTextField: false };
  const card = { covered: false, armed: true, hasHunks: false };

  it("answers only an armed, uncovered card, and never from a text field", () => {
    expect(keyVerdict(press, card)).toBe("answer");
    expect(keyVerdict(press, { ...card, armed: false })).toBe("to-composer");
    expect(keyVerdict(press, { ...card, covered: true })).toBe("ignore");
    expect(keyVerdict({ ...press, inTextField: true }, card)).toBe("ignore");
    expect(keyVerdict({ ...press, modified: true }, card)).toBe("ignore");
    expect(keyVerdict({ ...press, repeat: true }, card)).toBe("ignore");
    // Other letters are text: they go to the message box.
    expect(keyVerdict({ ...press, key: "l" }, card)).toBe("to-composer");
    expect(keyVerdict({ ...press, key: "j" }, card)).toBe("to-composer");
    expect(keyVerdict({ ...press, key: "j" }, { ...card, hasHunks: true })).toBe("answer");
    expect(keyVerdict({ ...press, key: " " }, card)).toBe("ignore");
    expect(keyVerdict({ ...press, key: "Enter" }, card)).toBe("ignore");
  });

  it("takes the cursor only from nowhere, never from the message box and never behind a dialog", () => {
    expect(mayTakeFocus({ nothingFocused: true, covered: false })).toBe(true);
    expect(mayTakeFocus({ nothingFocused: true, covered: true })).toBe(false);
    expect(mayTakeFocus({ nothingFocused: false, covered: false })).toBe(false);
  });
});

/** The card and the message box, on a running session, with time under the test's control. */
function setUpCard() {
  vi.useFakeTimers();
  // Testing Library waits on timers between steps; it advances them when it sees Jest's fakes.
  (globalThis as { jest?: unknown }).jest = { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) };
  const answers: ApprovalAnswer[] = [];
  mockWindows("main");
  mockIPC((cmd, payload) => {
    if (cmd === "answer_approval") answers.push((payload as { args: { answer: ApprovalAnswer } }).args.answer);
    if (cmd === "list_sessions") return [];
    return null;
  });
  useSession.setState({ root: "/work/demo", current: sessionInfo("s1", { state: "running" }), runningSession: "s1" });
  const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
  render(
    <main>
      <ApprovalCard />
      <Composer />
    </main>,
  );
  const arrive = (id = "r") => act(() => useSession.getState().receive("s1", [{ type: "approval_needed", request: request(id) }]));
  const wait = (ms: number) => act(() => vi.advanceTimersByTime(ms));
  const composer = () => screen.getByTestId("composer-input") as HTMLTextAreaElement;
  return { answers, user, arrive, wait, composer };
}

describe("a question arriving while the person types", () => {
  it("keeps the text typed into the composer (already written in) and answers nothing", async () => {
    const { answers, user, arrive, wait, composer } = setUpCard();
    await user.click(composer());
    await user.keyboard("also ");
    await arrive();
    expect(screen.getByTestId("approval-card")).toBeInTheDocument();
    await user.keyboard("add a test");
    await wait(5_000);
    await user.keyboard(" and docs");
    expect(composer()).toHaveValue("also add a test and docs");
    expect(document.activeElement).toBe(composer());
    expect(answers).toEqual([]);
  });

  it("leaves the cursor in an empty composer just typed in: “also add a test” stays text and approves nothing", async () => {
    const { answers, user, arrive, wait, composer } = setUpCard();
    await user.click(composer());
    await user.keyboard("x{Backspace}");
    await arrive();
    await wait(300);
    await user.keyboard("also add a test");
    await wait(5_000);
    expect(composer()).toHaveValue("also add a test");
    expect(document.activeElement).toBe(composer());
    expect(answers).toEqual([]);
  });

  it("leaves the cursor in an empty composer left alone for a while: a follow-up typed after reading approves nothing", async () => {
    const { answers, user, arrive, wait, composer } = setUpCard();
    await user.click(composer());
    await user.keyboard("x{Backspace}");
    await arrive();
    const card = screen.getByTestId("approval-card");
    await wait(10_000);
    expect(document.activeElement).toBe(composer());
    await user.keyboard("also add a test");
    await wait(APPROVAL_KEY_DELAY_MS);
    expect(composer()).toHaveValue("also add a test");
    expect(answers).toEqual([]);
    // The person chooses the card: its keys answer.
    await user.click(within(card).getByText("Tandem needs your approval"));
    await user.keyboard("d");
    await waitFor(() => expect(answers).toEqual([{ answer: "deny", message: null }]));
  });
});

describe("a new card's first moments", () => {
  it("ignore a key (the character goes to the composer), then a approves once the card has been there a moment", async () => {
    const { answers, user, arrive, wait, composer } = setUpCard();
    await arrive();
    const card = screen.getByTestId("approval-card");
    // Nothing had the cursor: the card takes it, but its keys wait.
    expect(document.activeElement).toBe(card);
    await wait(APPROVAL_KEY_DELAY_MS / 6);
    await user.keyboard("a");
    expect(answers).toEqual([]);
    expect(composer()).toHaveValue("a");
    expect(document.activeElement).toBe(composer());
    // Brought back to the card by the person, after the delay: a approves.
    await wait(APPROVAL_KEY_DELAY_MS);
    await user.click(within(card).getByText("Tandem needs your approval"));
    expect(document.activeElement).toBe(card);
    await user.keyboard("a");
    await waitFor(() => expect(answers).toEqual([{ answer: "approve" }]));
    // Nothing else to answer: the cursor goes back to the message box, not nowhere.
    await waitFor(() => expect(screen.queryByTestId("approval-card")).toBeNull());
    expect(document.activeElement).toBe(composer());
  });

  it("answers nothing from keys pressed outside the card", async () => {
    const { answers, user, arrive, wait } = setUpCard();
    await arrive();
    await wait(APPROVAL_KEY_DELAY_MS * 2);
    act(() => (document.activeElement as HTMLElement | null)?.blur());
    await user.keyboard("ad");
    expect(answers).toEqual([]);
  });

  it("is reached with Tab, and a new card after an answer waits again", async () => {
    const { answers, user, arrive, wait } = setUpCard();
    await arrive("r1");
    await wait(APPROVAL_KEY_DELAY_MS);
    act(() => (document.activeElement as HTMLElement | null)?.blur());
    await user.tab();
    expect(document.activeElement).toBe(screen.getByTestId("approval-card"));
    await user.keyboard("a");
    await waitFor(() => expect(answers).toEqual([{ answer: "approve" }]));
    // The next question: a second "a" typed straight after does not answer it.
    await arrive("r2");
    await waitFor(() => expect(screen.getByTestId("approval-card")).toHaveAttribute("data-request", "r2"));
    await user.keyboard("a");
    expect(answers).toHaveLength(1);
  });
});

async function startTurn() {
  let turn: FakeTurn | null = null;
  const calls = installFakeBackend(project, { onTurn: (t) => (turn = t) });
  const user = userEvent.setup();
  render(<App />);
  await user.type(await screen.findByTestId("composer-input"), "Fix the bug{Enter}");
  await waitFor(() => expect(turn).not.toBeNull());
  const t = turn as unknown as FakeTurn;
  return { calls, user, push: (events: Parameters<FakeTurn["push"]>[0]) => act(() => t.push(events)) };
}

const answered = (calls: Array<{ cmd: string }>) => calls.filter((c) => c.cmd === "answer_approval");
const pause = (ms: number) => act(() => new Promise<void>((resolve) => setTimeout(resolve, ms)));

describe("keys behind a dialog", () => {
  it("answer nothing while Settings is open, whatever tab, even with the cursor left on the card", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: editRequest("e") }]);
    const card = await screen.findByTestId("approval-card");
    await pause(APPROVAL_KEY_DELAY_MS + 50);
    await user.click(screen.getByTestId("settings-button"));
    const settings = await screen.findByTestId("settings-view");
    // Settings takes the cursor …
    expect(settings.contains(document.activeElement)).toBe(true);
    await user.click(within(settings).getByTestId("settings-tab-rules"));
    await user.keyboard("d");
    // … and where a click leaves the cursor where it was (WebKit), the card still answers nothing.
    act(() => card.focus());
    await user.keyboard("d");
    await user.click(within(settings).getByTestId("settings-tab-skills"));
    act(() => card.focus());
    await user.keyboard("a");
    await user.keyboard("n");
    expect(answered(calls)).toEqual([]);
    await user.click(within(settings).getByTestId("settings-close"));
    await waitFor(() => expect(screen.queryByTestId("settings-view")).toBeNull());
    // Uncovered and chosen by the person, the card answers.
    await user.click(within(card).getByText("Tandem needs your approval"));
    await user.keyboard("a");
    await waitFor(() => expect(answered(calls)).toHaveLength(1));
  });

  it("answer nothing while the Full auto question is open", async () => {
    const { calls, user, push } = await startTurn();
    push([{ type: "approval_needed", request: request("r") }]);
    const card = await screen.findByTestId("approval-card");
    await pause(APPROVAL_KEY_DELAY_MS + 50);
    await user.selectOptions(screen.getByTestId("mode-select"), "full_auto");
    await screen.findByTestId("full-auto-confirm");
    act(() => card.focus());
    await user.keyboard("a");
    expect(answered(calls)).toEqual([]);
  });
});
