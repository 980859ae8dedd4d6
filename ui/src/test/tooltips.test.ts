import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { installTooltips } from "../tooltips";

describe("tooltips drawn by the page", () => {
  let uninstall: () => void;
  beforeEach(() => {
    vi.useFakeTimers();
    uninstall = installTooltips(document);
  });
  afterEach(() => {
    uninstall();
    vi.useRealTimers();
    document.body.innerHTML = "";
  });

  const hover = (el: Element) => el.dispatchEvent(new Event("pointerover", { bubbles: true }));

  it("shows the title after a pause, without leaving a native one behind", () => {
    document.body.innerHTML = `<button title="Approve (a)">Approve</button>`;
    const button = document.querySelector("button")!;
    hover(button);
    expect(button.hasAttribute("title")).toBe(false);
    expect(button.getAttribute("aria-description")).toBe("Approve (a)");
    expect(document.querySelector("[role=tooltip]")).toBeNull();
    vi.advanceTimersByTime(500);
    expect(document.querySelector("[role=tooltip]")?.textContent).toBe("Approve (a)");
  });

  it("goes with its button, and on a click", async () => {
    document.body.innerHTML = `<div id="card"><button title="Approve (a)">Approve</button></div>`;
    hover(document.querySelector("button")!);
    vi.advanceTimersByTime(500);
    expect(document.querySelector("[role=tooltip]")).not.toBeNull();
    document.getElementById("card")!.remove();
    await vi.waitFor(() => expect(document.querySelector("[role=tooltip]")).toBeNull());

    document.body.innerHTML = `<button title="Stop">Stop</button>`;
    const stop = document.querySelector("button")!;
    hover(stop);
    vi.advanceTimersByTime(500);
    stop.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(document.querySelector("[role=tooltip]")).toBeNull();
  });

  it("never appears for a button removed before the pause ends", async () => {
    document.body.innerHTML = `<button title="Deny (d)">Deny</button>`;
    hover(document.querySelector("button")!);
    document.body.innerHTML = "";
    await Promise.resolve();
    vi.advanceTimersByTime(500);
    expect(document.querySelector("[role=tooltip]")).toBeNull();
  });
});
