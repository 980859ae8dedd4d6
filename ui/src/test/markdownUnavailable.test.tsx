// The Markdown renderer's module failing to load (every try): the message still shows, as its
// plain text, the rest of the window is untouched, and the failure is logged.
import { afterEach, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";

vi.mock("../components/Markdown", () => {
  throw new Error("Importing a module script failed.");
});

const { Markdown } = await import("../components/lazy");

afterEach(() => {
  cleanup();
  clearMocks();
});

it("shows the message as plain text when the renderer cannot load, and logs it", async () => {
  const seen: { cmd: string; args: unknown }[] = [];
  mockIPC((cmd, payload) => {
    seen.push({ cmd, args: (payload as { args?: unknown } | undefined)?.args });
    return null;
  });
  const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
  render(
    <div>
      <p>the rest of the window</p>
      <div data-testid="message-assistant">
        <Markdown text="I'll read **list.txt** first." />
      </div>
    </div>,
  );
  await waitFor(() => expect(seen.some((c) => c.cmd === "ui_error")).toBe(true), { timeout: 5000 });
  quiet.mockRestore();
  expect(screen.getByTestId("message-assistant")).toHaveTextContent("I'll read **list.txt** first.");
  expect(screen.getByText("the rest of the window")).toBeInTheDocument();
  const args = seen.find((c) => c.cmd === "ui_error")?.args as { part: string };
  expect(args.part).toBe("markdown");
});
