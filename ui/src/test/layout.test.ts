import { describe, expect, it } from "vitest";
import { CENTER_MIN, DETAILS_MIN, fitColumns } from "../layout";

const wide = { side: 240, details: 380, sideFolded: false, detailsFolded: false };

describe("the project window's columns", () => {
  it("keep what the user chose when there is room", () => {
    expect(fitColumns(1400, wide)).toEqual({
      side: 240,
      details: 380,
      sideShown: true,
      detailsShown: true,
      detailsSqueezed: false,
    });
  });

  it("fit a 900-pixel window with all three columns whole", () => {
    const c = fitColumns(900, wide);
    expect(c.sideShown && c.detailsShown).toBe(true);
    expect(c.side + c.details + CENTER_MIN).toBeLessThanOrEqual(900);
    expect(c.details).toBeGreaterThanOrEqual(DETAILS_MIN);
  });

  it("hide the details panel before the transcript gets too narrow, then the sidebar", () => {
    const c = fitColumns(700, wide);
    expect(c.detailsShown).toBe(false);
    expect(c.detailsSqueezed).toBe(true);
    expect(c.sideShown).toBe(true);
    expect(c.side + CENTER_MIN).toBeLessThanOrEqual(700);
    const tiny = fitColumns(450, wide);
    expect(tiny.sideShown || tiny.detailsShown).toBe(false);
  });

  it("a folded panel gives its room to the transcript", () => {
    const c = fitColumns(900, { ...wide, sideFolded: true });
    expect(c.sideShown).toBe(false);
    expect(c.details).toBe(380);
  });
});
