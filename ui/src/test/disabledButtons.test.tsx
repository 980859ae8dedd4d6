// Issue 22, item 5: a disabled Send or Save kept the accent colour at half opacity, which on the
// dark theme's light accent still read as a live button. Disabled main buttons drop the accent
// in both themes (the colours are the theme's variables) and do not brighten under the pointer.
import { describe, expect, it } from "vitest";
import { cssRules } from "./cssRules";

const rulesFor = (selector: string) => cssRules().filter((r) => r.selectors.includes(selector));

describe("a disabled main button", () => {
  it("loses the accent: a muted text on a plain background", () => {
    const [disabled] = rulesFor("button.primary:disabled");
    expect(disabled, "a rule for button.primary:disabled").toBeDefined();
    expect(disabled!.body).toMatch(/background:\s*var\(--(sidebar|code-bg|bg)\)/);
    expect(disabled!.body).toMatch(/color:\s*var\(--muted\)/);
    expect(disabled!.body).not.toMatch(/--accent/);
  });

  it("does not brighten under the pointer", () => {
    expect(rulesFor("button.primary:hover")).toEqual([]);
    expect(rulesFor("button.primary:hover:not(:disabled)")).toHaveLength(1);
  });

  it("says it cannot be pressed to the pointer", () => {
    expect(rulesFor("button:disabled")[0]?.body).toMatch(/cursor:\s*not-allowed/);
  });
});
