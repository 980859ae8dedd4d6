// Issue 22, item 5: "↓ Latest" floated over the end of the conversation and covered what was
// there (a restore's note, with its Undo). It now sits below the list, in the column's flow, so
// the list ends above it. The virtual list is stood in for: jsdom lays nothing out, so the test
// scrolls it by hand.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forwardRef, useImperativeHandle, type ReactNode } from "react";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useSession } from "../session";
import { applyEvents, emptyTranscript } from "../transcript";
import { Transcript } from "../components/Transcript";
import css from "../styles.css?raw";

vi.mock("virtua", () => ({
  VList: forwardRef(function VList(
    props: { className?: string; data: number[]; children: (i: number) => ReactNode; onScroll?: (offset: number) => void },
    ref,
  ) {
    // Far from the end: 2000 px of rows in a 400 px window.
    useImperativeHandle(ref, () => ({ scrollSize: 2000, viewportSize: 400, scrollToIndex: () => {} }));
    return (
      <div className={props.className} data-testid="vlist" onScroll={() => props.onScroll?.(0)}>
        {props.data.map((i) => props.children(i))}
      </div>
    );
  }),
}));

/** The declarations of one rule of styles.css. */
function rule(selector: string): string {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, "");
  const at = text.search(new RegExp(`(^|\\n)${selector.replace(/[.]/g, "\\.")} \\{`));
  expect(at, `${selector} in styles.css`).toBeGreaterThanOrEqual(0);
  return text.slice(at, text.indexOf("}", at));
}

beforeEach(() => {
  const transcript = applyEvents(
    emptyTranscript(),
    [
      { type: "user_message", text: "make add return a + b" },
      {
        type: "restored",
        record: { checkpoint: 1, turn: 1, scope: "files_only", files: ["calc.py"], not_restorable: [], turns_removed: 0, undo_checkpoint: 2 },
      },
    ],
    { now: 0, live: false },
  );
  useSession.setState({ current: null, transcript, runningSession: null, loading: false, warnings: [] });
});
afterEach(cleanup);

describe("↓ Latest", () => {
  it("sits below the list, covering none of it", () => {
    render(<Transcript />);
    expect(screen.queryByTestId("jump-latest")).toBeNull();
    // The person scrolls up to read.
    fireEvent.wheel(screen.getByTestId("transcript"), { deltaY: -100 });
    fireEvent.scroll(screen.getByTestId("vlist"));
    const button = screen.getByTestId("jump-latest");
    expect(button).toHaveTextContent("↓ Latest");
    // Not inside the list, and after it in the transcript's column.
    expect(screen.getByTestId("vlist").contains(button)).toBe(false);
    const bar = button.parentElement!;
    expect(bar).toHaveClass("jump-latest-bar");
    expect(bar.parentElement).toBe(screen.getByTestId("transcript"));
    expect(screen.getByTestId("vlist").compareDocumentPosition(bar) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    // In the flow: neither the button nor its bar is laid over the list.
    expect(rule(".jump-latest")).not.toMatch(/position:\s*(absolute|fixed)/);
    expect(rule(".jump-latest-bar")).not.toMatch(/position:\s*(absolute|fixed)/);
    expect(rule(".jump-latest-bar")).toMatch(/flex:\s*none/);
  });
});
