// CodeMirror pieces shared by the diff views: the language for a file, colours that follow the
// app's light/dark variables, and a read-only setup.
import { EditorState, type Extension } from "@codemirror/state";
import { EditorView, lineNumbers } from "@codemirror/view";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";
import { javascript } from "@codemirror/lang-javascript";
import { rust } from "@codemirror/lang-rust";
import { python } from "@codemirror/lang-python";
import { json } from "@codemirror/lang-json";
import { css } from "@codemirror/lang-css";
import { html } from "@codemirror/lang-html";
import { markdown } from "@codemirror/lang-markdown";

/** The CodeMirror language for a path, by its extension; null for plain text. */
export function languageExtension(path: string): Extension | null {
  const name = (path.split("/").pop() ?? path).toLowerCase();
  const ext = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : "";
  switch (ext) {
    case "js":
    case "mjs":
    case "cjs":
      return javascript();
    case "jsx":
      return javascript({ jsx: true });
    case "ts":
    case "mts":
    case "cts":
      return javascript({ typescript: true });
    case "tsx":
      return javascript({ typescript: true, jsx: true });
    case "rs":
      return rust();
    case "py":
    case "pyi":
      return python();
    case "json":
    case "jsonc":
      return json();
    case "css":
      return css();
    case "html":
    case "htm":
      return html();
    case "md":
    case "markdown":
      return markdown();
    default:
      return null;
  }
}

const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.moduleKeyword, t.operatorKeyword], color: "var(--syn-keyword)" },
  { tag: [t.string, t.special(t.string), t.regexp], color: "var(--syn-string)" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "var(--syn-number)" },
  { tag: [t.comment, t.lineComment, t.blockComment, t.docComment], color: "var(--syn-comment)", fontStyle: "italic" },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], color: "var(--syn-function)" },
  { tag: [t.typeName, t.className, t.namespace], color: "var(--syn-type)" },
  { tag: [t.propertyName, t.attributeName], color: "var(--syn-property)" },
  { tag: [t.tagName, t.heading], color: "var(--syn-tag)", fontWeight: "600" },
  { tag: [t.macroName, t.meta], color: "var(--syn-macro)" },
]);

const theme = EditorView.theme({
  "&": { fontSize: "12.5px", backgroundColor: "var(--panel)", color: "var(--text)" },
  ".cm-content": { fontFamily: "var(--font-mono)", caretColor: "transparent" },
  ".cm-gutters": {
    backgroundColor: "var(--panel)",
    color: "var(--ln)",
    borderRight: "1px solid var(--border)",
    fontFamily: "var(--font-mono)",
  },
  ".cm-scroller": { fontFamily: "var(--font-mono)", lineHeight: "1.55" },
  "&.cm-focused": { outline: "none" },
});

/** A read-only editor's extensions, with line numbers starting at `firstLine`. */
export function readOnlySetup(path: string, firstLine = 1): Extension[] {
  const lang = languageExtension(path);
  return [
    EditorState.readOnly.of(true),
    EditorView.editable.of(false),
    lineNumbers({ formatNumber: (n) => String(n + firstLine - 1) }),
    syntaxHighlighting(highlight),
    theme,
    EditorView.lineWrapping,
    ...(lang ? [lang] : []),
  ];
}
