// Issue 46: the column splitters are taken by the keyboard (arrows resize), so a person using it
// must see which one has focus, in the light theme and the dark one alike. jsdom draws nothing:
// the rules themselves are checked.
import { describe, expect, it } from "vitest";
import { cssRules, type CssRule } from "./cssRules";

/** The value of `prop` in a rule's body, or null. */
function prop(rule: CssRule, name: string): string | null {
  const m = rule.body.match(new RegExp(`(?:^|[;\\s])${name}\\s*:\\s*([^;]+)`));
  return m?.[1]?.trim() ?? null;
}

/** Whether a declared outline or box-shadow draws something: a width above zero, not `none`. */
function drawsRing(value: string | null): boolean {
  if (value === null || /\bnone\b/.test(value)) return false;
  const widths = [...value.matchAll(/(\d*\.?\d+)(px|em|rem)\b/g)].map((m) => Number(m[1]));
  return widths.some((w) => w > 0) || /\b(thin|medium|thick)\b/.test(value);
}

/** Takes a ring away: `outline: none`, `outline: 0`, a zero width or no style. */
function removesRing(rule: CssRule): boolean {
  const outline = prop(rule, "outline");
  const width = prop(rule, "outline-width");
  const style = prop(rule, "outline-style");
  return (
    (outline !== null && !drawsRing(outline)) ||
    (width !== null && !drawsRing(width)) ||
    (style !== null && /\b(none|hidden)\b/.test(style))
  );
}

describe("the splitter", () => {
  const rules = cssRules();
  const splitter = rules.filter((r) => r.selectors.some((s) => /\.splitter\b/.test(s)));
  const focused = splitter.filter((r) => r.selectors.some((s) => /\.splitter:focus-visible$/.test(s)));

  it("draws a ring of its own when the keyboard takes it", () => {
    expect(focused.length).toBeGreaterThan(0);
    for (const r of focused) {
      const ring = drawsRing(prop(r, "outline")) || drawsRing(prop(r, "box-shadow"));
      expect(ring, r.selectors.join(", ")).toBe(true);
    }
  });

  it("has no rule, in either theme, that takes the ring away", () => {
    // The themes are the same rules under @media (prefers-color-scheme): read flat, a theme's
    // override of the splitter is one of these.
    for (const r of splitter) expect(removesRing(r), r.selectors.join(", ")).toBe(false);
  });

  it("rings in a colour both themes set", () => {
    const colours = focused.flatMap((r) => [prop(r, "outline"), prop(r, "box-shadow")]).filter((v) => drawsRing(v));
    const vars = colours.flatMap((v) => [...(v ?? "").matchAll(/var\((--[\w-]+)\)/g)].map((m) => m[1]!));
    const roots = rules.filter((r) => r.selectors.includes(":root"));
    // The light theme's :root and the dark one's.
    expect(roots.length).toBeGreaterThanOrEqual(2);
    for (const v of vars) {
      const set = roots.map((r) => prop(r, v)).filter((x): x is string => x !== null);
      expect(set.length, v).toBe(roots.length);
      for (const value of set) expect(value, v).not.toMatch(/transparent|rgba?\([^)]*,\s*0\)/);
    }
  });
});
