// The project window's three columns: how wide the sidebar and the details panel are, whether
// each is folded away, and how they give way when the window is narrow. The transcript in the
// middle always keeps room to read and to answer a question.
import { create } from "zustand";

/** Room the transcript keeps, whatever the side panels want. */
export const CENTER_MIN = 360;
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
 * Fits the wanted widths into `width` pixels: the details panel gives way first (down to its
 * minimum), then the sidebar; if the transcript still lacks room, the details panel is hidden
 * (its toggle brings it back over the sidebar's room), then the sidebar.
 */
export function fitColumns(width: number, s: Saved): Columns {
  let sideShown = !s.sideFolded;
  let detailsShown = !s.detailsFolded;
  let side = s.side;
  let details = s.details;
  const room = () => width - CENTER_MIN - (sideShown ? side : 0) - (detailsShown ? details : 0);
  if (room() < 0 && detailsShown) details = Math.max(DETAILS_MIN, details + room());
  if (room() < 0 && sideShown) side = Math.max(SIDE_MIN, side + room());
  let detailsSqueezed = false;
  if (room() < 0 && detailsShown) {
    detailsShown = false;
    detailsSqueezed = true;
  }
  if (room() < 0 && sideShown) sideShown = false;
  return { side, details, sideShown, detailsShown, detailsSqueezed };
}
