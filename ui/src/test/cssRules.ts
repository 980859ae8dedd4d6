// styles.css read as text: jsdom lays nothing out, so what a rule does is checked on the rule.
import css from "../styles.css?raw";

export type CssRule = { selectors: string[]; body: string };

/** Every rule of styles.css (those inside @media too), comments left out. */
export function cssRules(): CssRule[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, "");
  const rules: CssRule[] = [];
  for (const m of text.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const head = (m[1] ?? "").trim();
    if (head.startsWith("@")) continue;
    rules.push({ selectors: head.split(",").map((s) => s.trim().replace(/\s+/g, " ")), body: m[2] ?? "" });
  }
  return rules;
}
