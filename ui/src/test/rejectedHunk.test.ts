// Issue 22, item 5: a rejected hunk struck through every line of it, the unchanged lines around
// the change too, as if they would be deleted. Only the lines the hunk adds or removes look
// rejected; its context reads as it is.
import { describe, expect, it } from "vitest";
import { cssRules } from "./cssRules";

/** The classes CodeMirror's merge view (and the plain diff shown until it loads) gives the lines
 *  a change adds or removes. */
const CHANGED = /\.(cm-changedLine|cm-insertedLine|cm-deletedLine|cm-deletedChunk|plain-add|plain-del)$/;

describe("a rejected hunk", () => {
  const rejected = cssRules().flatMap((r) => r.selectors.filter((s) => s.includes(".hunk.rejected")).map((s) => ({ s, body: r.body })));

  it("strikes through and dims only its changed lines", () => {
    const struck = rejected.filter((r) => /line-through/.test(r.body));
    expect(struck.length).toBeGreaterThan(0);
    for (const r of struck) expect(r.s).toMatch(CHANGED);
    for (const r of rejected.filter((x) => /opacity/.test(x.body))) expect(r.s).toMatch(CHANGED);
    // Added and removed lines, in both layouts and before CodeMirror loads.
    const covered = struck.map((r) => r.s);
    for (const cls of ["cm-changedLine", "cm-insertedLine", "cm-deletedLine", "plain-add", "plain-del"]) {
      expect(covered.some((s) => s.endsWith(`.${cls}`)), cls).toBe(true);
    }
  });
});
