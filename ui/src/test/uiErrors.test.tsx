import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { ErrorBoundary, WindowError } from "../components/ErrorBoundary";
import { MAX_REPORTS, reportUiError, resetReported, retrying } from "../uiErrors";

afterEach(() => {
  cleanup();
  clearMocks();
  resetReported();
});

function logged(): { cmd: string; args: unknown }[] {
  const seen: { cmd: string; args: unknown }[] = [];
  mockIPC((cmd, payload) => {
    seen.push({ cmd, args: (payload as { args?: unknown } | undefined)?.args });
    return null;
  });
  return seen;
}

function Broken(): never {
  throw new Error("the list could not be drawn");
}

describe("a part of the window that fails to draw", () => {
  it("shows the window's error card with a way back instead of a blank page, and is logged", async () => {
    const seen = logged();
    // React reports the caught error to the console as well; keep the test output readable.
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    render(
      <ErrorBoundary part="window" fallback={(error, retry) => <WindowError error={error} retry={retry} />}>
        <Broken />
      </ErrorBoundary>,
    );
    quiet.mockRestore();
    const card = screen.getByTestId("window-error");
    expect(card).toHaveTextContent("Something in the window went wrong");
    expect(card).toHaveTextContent("Your sessions and files are safe");
    expect(card).toHaveTextContent("the list could not be drawn");
    expect(screen.getByTestId("window-reload")).toBeEnabled();
    await waitFor(() => expect(seen.filter((c) => c.cmd === "ui_error")).toHaveLength(1));
    const args = seen.find((c) => c.cmd === "ui_error")?.args as { part: string; message: string; stack: string };
    expect(args.part).toBe("window");
    expect(args.message).toBe("the list could not be drawn");
    expect(args.stack).toContain("Broken");
  });

  it("draws the part again on Try again", async () => {
    logged();
    let broken = true;
    function Flaky() {
      if (broken) throw new Error("not yet");
      return <p>drawn</p>;
    }
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    render(
      <ErrorBoundary part="window" fallback={(error, retry) => <WindowError error={error} retry={retry} />}>
        <Flaky />
      </ErrorBoundary>,
    );
    quiet.mockRestore();
    broken = false;
    screen.getByTestId("window-retry").click();
    expect(await screen.findByText("drawn")).toBeInTheDocument();
    expect(screen.queryByTestId("window-error")).toBeNull();
  });
});

describe("a lazily loaded part", () => {
  it("is fetched again after a failed fetch", async () => {
    let calls = 0;
    const load = retrying(
      () => {
        calls += 1;
        return calls < 3 ? Promise.reject(new Error("fetch failed")) : Promise.resolve("module");
      },
      3,
      1,
    );
    await expect(load()).resolves.toBe("module");
    expect(calls).toBe(3);
  });

  it("gives up after its tries with the last failure", async () => {
    let calls = 0;
    const load = retrying(
      () => {
        calls += 1;
        return Promise.reject(new Error(`fetch failed ${calls}`));
      },
      3,
      1,
    );
    await expect(load()).rejects.toThrow("fetch failed 3");
    expect(calls).toBe(3);
  });
});

describe("reporting", () => {
  it("sends the same failure once, and at most a few a page", async () => {
    const seen = logged();
    for (let i = 0; i < 5; i++) reportUiError("page", new Error("every frame"));
    await waitFor(() => expect(seen).toHaveLength(1));
    for (let i = 0; i < 100; i++) reportUiError("page", new Error(`failure ${i}`));
    await waitFor(() => expect(seen).toHaveLength(MAX_REPORTS));
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toHaveLength(MAX_REPORTS);
  });
});
