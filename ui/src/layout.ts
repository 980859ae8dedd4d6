// The project window's three columns: how wide the sidebar and the details panel are, whether
// each is folded away, and how they give way when the window is narrow. The transcript in the
// middle always keeps room to read and to answer a question.
import { create } from "zustand";

/** Room the transcript keeps, whatever the side panels want. */
export const CENTER_MIN = 360;
/** Room the side panels give up, down to their minimums, before the transcript gets less:
 * an approval's diff needs width more than the session list does. */
export const CENTER_COMFORT = 480;
export const SIDE_MIN = 180;
export const SIDE_MAX = 420;
export const DETAILS_MIN = 260;
export const DETAILS_MAX = 720;
const SIDE_DEFAULT = 230;
const DETAILS_DEFAULT = 380;
const STORAGE_KEY = "tandem.layout";

type Saved = {
  side: number;
  details: number;
  sideFolded: boolean;
  detailsFolded: boolean;
};

/** What the columns are, once fitted to the window. */
export type Columns = {
  side: number;
  details: number;
  /** Folded by the user, or because the window has no room for it. */
  sideShown: boolean;
  detailsShown: boolean;
  /** The details panel is hidden only because the window is too narrow. */
  detailsSqueezed: boolean;
};

type LayoutState = Saved & {
  setSide: (px: number) => void;
  setDetails: (px: number) => void;
  toggleSide: () => void;
  toggleDetails: () => void;
};

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(v)));

function load(): Saved {
  const fallback: Saved = { side: SIDE_DEFAULT, details: DETAILS_DEFAULT, sideFolded: false, detailsFolded: false };
  try {
    const raw = window.localStorage.getItem(STORAGE_KEY);
    if (!raw) return fallback;
    const v = JSON.parse(raw) as Partial<Saved>;
    return {
      side: typeof v.side === "number" ? clamp(v.side, SIDE_MIN, SIDE_MAX) : fallback.side,
      details: typeof v.details === "number" ? clamp(v.details, DETAILS_MIN, DETAILS_MAX) : fallback.details,
      sideFolded: v.sideFolded === true,
      detailsFolded: v.detailsFolded === true,
    };
  } catch {
    // Storage unavailable or holding something else: the defaults are a fine start.
    return fallback;
  }
}

function save(s: Saved) {
  try {
    window.localStorage.setItem(
      STORAGE_KEY,
      JSON.stringify({ side: s.side, details: s.details, sideFolded: s.sideFolded, detailsFolded: s.detailsFolded }),
    );
  } catch {
    // Not remembering the layout is no reason to fail the resize.
  }
}

export const useLayout = create<LayoutState>((set, get) => ({
  ...load(),
  setSide(px) {
    set({ side: clamp(px, SIDE_MIN, SIDE_MAX) });
    save(get());
  },
  setDetails(px) {
    set({ details: clamp(px, DETAILS_MIN, DETAILS_MAX) });
    save(get());
  },
  toggleSide() {
    set({ sideFolded: !get().sideFolded });
    save(get());
  },
  toggleDetails() {
    set({ detailsFolded: !get().detailsFolded });
    save(get());
  },
}));

/**
 * Fits the wanted widths into `width` pixels: until the transcript has a comfortable width,
 * the details panel gives way first (down to its minimum), then the sidebar; if the transcript
 * still lacks its minimum, the details panel is hidden (its toggle brings it back over the
 * sidebar's room), then the sidebar.
 */
export function fitColumns(width: number, s: Saved): Columns {
  let sideShown = !s.sideFolded;
  let detailsShown = !s.detailsFolded;
  let side = s.side;
  let details = s.details;
  const roomFor = (center: number) => width - center - (sideShown ? side : 0) - (detailsShown ? details : 0);
  if (roomFor(CENTER_COMFORT) < 0 && detailsShown) details = Math.max(DETAILS_MIN, details + roomFor(CENTER_COMFORT));
  if (roomFor(CENTER_COMFORT) < 0 && sideShown) side = Math.max(SIDE_MIN, side + roomFor(CENTER_COMFORT));
  const room = () => roomFor(CENTER_MIN);
  let detailsSqueezed = false;
  if (room() < 0 && detailsShown) {
    detailsShown = false;
    detailsSqueezed = true;
  }
  if (room() < 0 && sideShown) sideShown = false;
  return { side, details, sideShown, detailsShown, detailsSqueezed };
}

/** Under this width of the transcript column, an empty details panel gives its room to a
 *  question on screen: an approval's diff needs it more than "no tasks yet" does. */
export const CARD_WANTS_CENTER = 720;

/** What is on screen besides the columns, for `fitColumnsForCard`. */
export type CardRoom = {
  /** An approval or a restore is waiting on screen. */
  cardShowing: boolean;
  /** The details panel shows nothing (see `detailsEmpty`). */
  detailsEmpty: boolean;
  /** The person opened the panel again while this card shows: it stays. */
  keptOpen: boolean;
};

/** The transcript column's width, once the columns are fitted. */
export function centerWidth(width: number, c: Columns): number {
  return width - (c.sideShown ? c.side : 0) - (c.detailsShown ? c.details : 0);
}

/**
 * `fitColumns`, and while a card is on screen an empty details panel folds when the transcript
 * would be narrower than CARD_WANTS_CENTER (at 900 px it kept 260 px for "no tasks", and each
 * side of a side-by-side diff got 170). Not saved: the panel comes back with the card's end, and
 * at once with its toggle (`keptOpen`).
 */
export function fitColumnsForCard(width: number, s: Saved, room: CardRoom): Columns & { detailsYielded: boolean } {
  const cols = fitColumns(width, s);
  const yields =
    room.cardShowing && room.detailsEmpty && !room.keptOpen && cols.detailsShown && centerWidth(width, cols) < CARD_WANTS_CENTER;
  if (!yields) return { ...cols, detailsYielded: false };
  return { ...fitColumns(width, { ...s, detailsFolded: true }), detailsYielded: true };
}

/** The details panel has nothing to show: the Tasks tab, with no plan and no background task. */
export function detailsEmpty(d: { panel: string; planItems: number; tasks: number; tasksError: boolean }): boolean {
  return d.panel === "tasks" && d.planItems === 0 && d.tasks === 0 && !d.tasksError;
}

/** Under this width of a diff (px), "Side by side" leaves each side less than about 270 px —
 *  thirty-odd characters of code beside the line numbers — and the unified layout is shown
 *  instead, unless the person chose side by side for this very diff. */
export const SPLIT_DIFF_MIN = 560;

/**
 * The layout a diff is shown in: the person's remembered choice, except side by side in a diff
 * narrower than SPLIT_DIFF_MIN, which shows unified — the choice itself is kept for wider
 * windows, and a choice made on this diff is always followed. An unknown width (not laid out
 * yet) follows the choice.
 */
export function diffViewShown(
  chosen: "unified" | "split" | "whole",
  diffWidth: number | null,
  chosenHere: boolean,
): "unified" | "split" | "whole" {
  if (chosen !== "split" || chosenHere || diffWidth === null) return chosen;
  return diffWidth < SPLIT_DIFF_MIN ? "unified" : "split";
}
