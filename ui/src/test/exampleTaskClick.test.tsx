// Issue 22, item 5: the example tasks on an empty session looked like something to click, and
// clicking did nothing. Clicking one now puts it in the message box, to send or to change first.
// Issue 46, item 8: it replaced a draft without asking, and a draft followed the person into
// another session.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import { forgetDrafts } from "../drafts";
import userEvent from "@testing-library/user-event";
import { clearMocks, mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import { useSession } from "../session";
import { emptyTranscript } from "../transcript";
import { Transcript } from "../components/Transcript";
import { Composer } from "../components/Composer";
import { sessionInfo } from "./fakeBackend";

beforeEach(() => {
  mockWindows("main");
  mockIPC(() => null);
  useSession.setState({
    root: "/work/demo",
    current: sessionInfo("s1"),
    transcript: emptyTranscript(),
    runningSession: null,
    loading: false,
    warnings: [],
    draft: null,
    error: null,
  });
});
afterEach(() => {
  cleanup();
  clearMocks();
});

describe("an example task", () => {
  it("fills the message box when clicked, ready to send", async () => {
    const user = userEvent.setup();
    render(
      <>
        <Transcript />
        <Composer />
      </>,
    );
    const examples = screen.getAllByTestId("example-task");
    expect(examples.length).toBeGreaterThan(0);
    // A button, so the keyboard reaches it too.
    expect(examples[0]!.tagName).toBe("BUTTON");
    const words = examples[0]!.getAttribute("data-text")!;
    expect(examples[0]).toHaveTextContent(words);
    await user.click(examples[0]!);
    const box = screen.getByRole("textbox");
    expect(box).toHaveValue(words);
    expect(box).toHaveFocus();
    expect(screen.getByTestId("send-button")).toBeEnabled();
  });

  it("never replaces a draft silently: the person is asked, and keeps theirs or takes it", async () => {
    const user = userEvent.setup();
    render(
      <>
        <Transcript />
        <Composer />
      </>,
    );
    const box = screen.getByRole("textbox");
    await user.type(box, "something else");
    const second = screen.getAllByTestId("example-task")[1]!;
    await user.click(second);
    expect(box).toHaveValue("something else");
    expect(screen.getByTestId("example-offer")).toHaveTextContent("Replace what you wrote with this example?");
    await user.click(screen.getByTestId("example-keep"));
    expect(box).toHaveValue("something else");
    expect(screen.queryByTestId("example-offer")).toBeNull();
    await user.click(second);
    await user.click(screen.getByTestId("example-replace"));
    expect(box).toHaveValue(second.getAttribute("data-text"));
  });
});

describe("drafts", () => {
  it("stay with their session: a draft typed in one does not follow the person into another", async () => {
    forgetDrafts();
    const user = userEvent.setup();
    render(<Composer />);
    const box = screen.getByRole("textbox");
    await user.type(box, "half a thought for s1");
    act(() => useSession.setState({ current: sessionInfo("s2") }));
    expect(box).toHaveValue("");
    await user.type(box, "for s2");
    act(() => useSession.setState({ current: null }));
    expect(box).toHaveValue("");
    act(() => useSession.setState({ current: sessionInfo("s1") }));
    expect(box).toHaveValue("half a thought for s1");
    act(() => useSession.setState({ current: sessionInfo("s2") }));
    expect(box).toHaveValue("for s2");
  });

  // Seen in the real window on a busy machine: the first letter typed after sending a new
  // session's task, before the session had its id, went to the "new" box's draft and was lost.
  it("keep what is typed while a new session's task is being started", async () => {
    forgetDrafts();
    act(() => useSession.setState({ current: null }));
    let started: (ok: boolean) => void = () => undefined;
    act(() => useSession.setState({ send: () => new Promise<boolean>((resolve) => (started = resolve)) }));
    const user = userEvent.setup();
    render(<Composer />);
    const box = screen.getByRole("textbox");
    await user.type(box, "Rename line 2{Enter}");
    expect(box).toHaveValue("");
    await user.type(box, "a");
    act(() => useSession.setState({ current: sessionInfo("s9") }));
    await user.type(box, "lso add a test");
    await act(async () => started(true));
    expect(box).toHaveValue("also add a test");
    // Going to another session and back finds it there, not in a new session's box.
    act(() => useSession.setState({ current: null }));
    expect(box).toHaveValue("");
    act(() => useSession.setState({ current: sessionInfo("s9") }));
    expect(box).toHaveValue("also add a test");
  });
});
