// Syntax highlighting with shiki's JavaScript regex engine (no WASM), languages loaded on demand
// so the first paint does not wait for grammars the project does not use.
// shiki itself loads on first use, so it stays out of the first screen's bundle.
import type { HighlighterCore, ThemedToken } from "shiki/core";

type LangLoader = () => Promise<unknown>;

const LANGS: Record<string, LangLoader> = {
  rust: () => import("shiki/langs/rust.mjs"),
  typescript: () => import("shiki/langs/typescript.mjs"),
  tsx: () => import("shiki/langs/tsx.mjs"),
  javascript: () => import("shiki/langs/javascript.mjs"),
  jsx: () => import("shiki/langs/jsx.mjs"),
  json: () => import("shiki/langs/json.mjs"),
  toml: () => import("shiki/langs/toml.mjs"),
  yaml: () => import("shiki/langs/yaml.mjs"),
  markdown: () => import("shiki/langs/markdown.mjs"),
  python: () => import("shiki/langs/python.mjs"),
  go: () => import("shiki/langs/go.mjs"),
  c: () => import("shiki/langs/c.mjs"),
  cpp: () => import("shiki/langs/cpp.mjs"),
  java: () => import("shiki/langs/java.mjs"),
  html: () => import("shiki/langs/html.mjs"),
  css: () => import("shiki/langs/css.mjs"),
  shellscript: () => import("shiki/langs/shellscript.mjs"),
  sql: () => import("shiki/langs/sql.mjs"),
  diff: () => import("shiki/langs/diff.mjs"),
  makefile: () => import("shiki/langs/makefile.mjs"),
  dockerfile: () => import("shiki/langs/dockerfile.mjs"),
};

const BY_EXT: Record<string, string> = {
  rs: "rust", ts: "typescript", mts: "typescript", cts: "typescript", tsx: "tsx",
  js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "jsx",
  json: "json", jsonc: "json", toml: "toml", yml: "yaml", yaml: "yaml",
  md: "markdown", markdown: "markdown", py: "python", go: "go",
  c: "c", h: "c", cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp", java: "java",
  html: "html", htm: "html", css: "css", sh: "shellscript", bash: "shellscript", zsh: "shellscript",
  sql: "sql", diff: "diff", patch: "diff",
};

const BY_NAME: Record<string, string> = {
  makefile: "makefile", gnumakefile: "makefile", dockerfile: "dockerfile",
  "cargo.lock": "toml", ".bashrc": "shellscript", ".profile": "shellscript",
};

/** The shiki language for a file path, or null for plain text. */
export function languageFor(path: string): string | null {
  const name = (path.split("/").pop() ?? path).toLowerCase();
  if (BY_NAME[name]) return BY_NAME[name];
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  return BY_EXT[name.slice(dot + 1)] ?? null;
}

let highlighter: Promise<HighlighterCore> | null = null;

function getHighlighter(): Promise<HighlighterCore> {
  highlighter ??= Promise.all([import("shiki/core"), import("shiki/engine/javascript")]).then(
    ([core, engine]) =>
      core.createHighlighterCore({
        themes: [import("shiki/themes/github-light.mjs"), import("shiki/themes/github-dark.mjs")],
        langs: [],
        engine: engine.createJavaScriptRegexEngine({ forgiving: true }),
      }),
  );
  return highlighter;
}

/** Above this, highlighting costs more than it helps: the viewer shows plain text. */
export const HIGHLIGHT_MAX_CHARS = 400_000;

/**
 * Tokens per line with light and dark colours (`color` and `--shiki-dark`), or null when the
 * language is unknown or the text too large.
 */
export async function highlightLines(path: string, lines: string[]): Promise<ThemedToken[][] | null> {
  const lang = languageFor(path);
  if (!lang || !LANGS[lang]) return null;
  const code = lines.join("\n");
  if (code.length > HIGHLIGHT_MAX_CHARS) return null;
  const hl = await getHighlighter();
  if (!hl.getLoadedLanguages().includes(lang)) {
    const mod = (await LANGS[lang]()) as { default: Parameters<HighlighterCore["loadLanguage"]>[0] };
    await hl.loadLanguage(mod.default);
  }
  const result = hl.codeToTokens(code, {
    lang,
    themes: { light: "github-light", dark: "github-dark" },
  });
  return result.tokens;
}
