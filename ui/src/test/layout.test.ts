import { describe, expect, it } from "vitest";
import {
  CARD_WANTS_CENTER,
  CENTER_MIN,
  DETAILS_MIN,
  SPLIT_DIFF_MIN,
  centerWidth,
  detailsEmpty,
  diffViewShown,
  fitColumns,
  fitColumnsForCard,
} from "../layout";

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

// Issue 22, item 3: at 900×700 the empty Tasks panel kept 260 px while a diff waited, and each
// side of a side-by-side diff got about 170 px.
describe("room for a question", () => {
  const defaults = { side: 230, details: 380, sideFolded: false, detailsFolded: false };
  const card = { cardShowing: true, detailsEmpty: true, keptOpen: false };
  /** The diff's width in a column: the card's margins (16 + 16), border (2 + 2) and padding (12 + 12). */
  const diffIn = (center: number) => center - 60;

  it("folds an empty details panel while a card shows in a 900-pixel window", () => {
    const before = fitColumns(900, defaults);
    expect(before.detailsShown).toBe(true);
    expect(diffIn(centerWidth(900, before))).toBeLessThan(SPLIT_DIFF_MIN);
    const c = fitColumnsForCard(900, defaults, card);
    expect(c.detailsShown).toBe(false);
    expect(c.detailsYielded).toBe(true);
    expect(c.sideShown).toBe(true);
    expect(diffIn(centerWidth(900, c))).toBeGreaterThanOrEqual(SPLIT_DIFF_MIN);
  });

  it("keeps the panel when it has something to show, when no card shows, when reopened, or when there is room", () => {
    for (const room of [
      { ...card, detailsEmpty: false },
      { ...card, cardShowing: false },
      { ...card, keptOpen: true },
    ]) {
      const c = fitColumnsForCard(900, defaults, room);
      expect(c.detailsShown).toBe(true);
      expect(c.detailsYielded).toBe(false);
    }
    const wide = fitColumnsForCard(1920, defaults, card);
    expect(wide.detailsShown).toBe(true);
    expect(centerWidth(1920, wide)).toBeGreaterThanOrEqual(CARD_WANTS_CENTER);
    // The person's own fold stays theirs: nothing is yielded that was not shown.
    const folded = fitColumnsForCard(900, { ...defaults, detailsFolded: true }, card);
    expect(folded.detailsShown).toBe(false);
    expect(folded.detailsYielded).toBe(false);
  });

  it("calls the panel empty only on its Tasks tab with no plan, no task and no error", () => {
    const none = { panel: "tasks", planItems: 0, tasks: 0, tasksError: false };
    expect(detailsEmpty(none)).toBe(true);
    expect(detailsEmpty({ ...none, planItems: 2 })).toBe(false);
    expect(detailsEmpty({ ...none, tasks: 1 })).toBe(false);
    expect(detailsEmpty({ ...none, tasksError: true })).toBe(false);
    expect(detailsEmpty({ ...none, panel: "changes" })).toBe(false);
    expect(detailsEmpty({ ...none, panel: "file" })).toBe(false);
  });

  it("shows a narrow diff unified, keeping side by side for wider windows and for a choice made on it", () => {
    // 900 px with the Tasks panel: the diff is 400 px wide, each side would get under 200.
    const narrow = diffIn(centerWidth(900, fitColumns(900, defaults)));
    expect(diffViewShown("split", narrow, false)).toBe("unified");
    expect(diffViewShown("split", narrow, true)).toBe("split");
    expect(diffViewShown("unified", narrow, false)).toBe("unified");
    expect(diffViewShown("whole", narrow, false)).toBe("whole");
    // A 1280-pixel window with both panels, and 900 px with the panel folded for the card.
    expect(diffViewShown("split", diffIn(centerWidth(1280, fitColumns(1280, defaults))), false)).toBe("split");
    expect(diffViewShown("split", diffIn(centerWidth(900, fitColumnsForCard(900, defaults, card))), false)).toBe("split");
    // Not laid out yet: the choice.
    expect(diffViewShown("split", null, false)).toBe("split");
  });
});
