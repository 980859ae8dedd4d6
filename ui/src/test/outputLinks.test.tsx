// Issue 46, item 7: a pull request's URL in a tool's result was plain text. Web addresses in
// what tools print open in the browser (never in the window); the sentence's full stop is not
// part of the address.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { clearMocks, mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import { ToolOutput } from "../components/ToolOutput";
import { splitUrls } from "../links";

afterEach(() => {
  cleanup();
  clearMocks();
});

describe("web addresses in a tool's result", () => {
  it("are split from the words around them, without a closing mark", () => {
    expect(splitUrls("Opened https://github.com/o/r/pull/7. Done")).toEqual([
      { text: "Opened " },
      { text: "https://github.com/o/r/pull/7", url: "https://github.com/o/r/pull/7" },
      { text: ". Done" },
    ]);
    expect(splitUrls("(see https://x.dev/a_(b))")).toEqual([
      { text: "(see " },
      { text: "https://x.dev/a_(b)", url: "https://x.dev/a_(b)" },
      { text: ")" },
    ]);
    expect(splitUrls("file:///etc/passwd and ftp://x")).toEqual([{ text: "file:///etc/passwd and ftp://x" }]);
  });

  it("open in the browser from plain and terminal output", async () => {
    mockWindows("main");
    const calls: Array<{ cmd: string; payload: unknown }> = [];
    mockIPC((cmd, payload) => {
      calls.push({ cmd, payload });
      return null;
    });
    render(
      <>
        <ToolOutput form="plain" output={"Created the pull request: https://github.com/o/r/pull/7\n"} />
        <ToolOutput form="terminal" output={"\u001b[32mremote:\u001b[0m https://github.com/o/r/pull/new/fix\n"} />
      </>,
    );
    const links = screen.getAllByTestId("output-link");
    expect(links.map((a) => a.textContent)).toEqual(["https://github.com/o/r/pull/7", "https://github.com/o/r/pull/new/fix"]);
    fireEvent.click(links[0]!);
    await waitFor(() => expect(calls.some((c) => c.cmd === "plugin:opener|open_url")).toBe(true));
    expect(calls.find((c) => c.cmd === "plugin:opener|open_url")?.payload).toMatchObject({ url: "https://github.com/o/r/pull/7" });
  });
});
