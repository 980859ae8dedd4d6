// The assistant's text as Markdown (GFM), code blocks highlighted like the file viewer.
import { isValidElement, memo, useEffect, useState, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import { openUrl } from "@tauri-apps/plugin-opener";
import remarkGfm from "remark-gfm";
import type { ThemedToken } from "shiki/core";
import { highlightLines } from "../highlight";

/** Fence names → a file name `highlightLines` knows. */
const FENCE_FILE: Record<string, string> = {
  rust: "x.rs", rs: "x.rs", typescript: "x.ts", ts: "x.ts", tsx: "x.tsx", javascript: "x.js", js: "x.js",
  jsx: "x.jsx", json: "x.json", jsonc: "x.json", toml: "x.toml", yaml: "x.yaml", yml: "x.yaml",
  markdown: "x.md", md: "x.md", python: "x.py", py: "x.py", go: "x.go", c: "x.c", h: "x.h", cpp: "x.cpp",
  "c++": "x.cpp", java: "x.java", html: "x.html", css: "x.css", bash: "x.sh", sh: "x.sh", shell: "x.sh",
  zsh: "x.sh", console: "x.sh", sql: "x.sql", diff: "x.diff", patch: "x.diff", makefile: "Makefile",
  make: "Makefile", dockerfile: "Dockerfile", docker: "Dockerfile",
};

function textOf(node: ReactNode): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return "";
}

export function CodeBlock({ code, lang }: { code: string; lang: string }) {
  const [tokens, setTokens] = useState<{ code: string; tokens: ThemedToken[][] | null } | null>(null);
  const [copied, setCopied] = useState(false);
  const lines = code.replace(/\n$/, "").split("\n");
  useEffect(() => {
    const file = FENCE_FILE[lang.toLowerCase()];
    if (!file) return;
    let live = true;
    highlightLines(file, code.replace(/\n$/, "").split("\n"))
      .then((t) => live && setTokens({ code, tokens: t }))
      .catch(() => live && setTokens({ code, tokens: null }));
    return () => {
      live = false;
    };
  }, [code, lang]);
  const shown = tokens?.code === code ? tokens.tokens : null;
  return (
    <div className="md-code" data-testid="code-block" data-lang={lang || undefined}>
      <div className="md-code-bar">
        <span>{lang || "text"}</span>
        <button
          className="link-button"
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(() => setCopied(true));
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre>
        <code>
          {lines.map((line, i) => (
            <div key={i} className="md-code-line">
              {shown?.[i]
                ? shown[i].map((t, j) => (
                    <span key={j} style={t.htmlStyle as React.CSSProperties}>
                      {t.content}
                    </span>
                  ))
                : line || " "}
            </div>
          ))}
        </code>
      </pre>
    </div>
  );
}

const components: Components = {
  pre({ children }) {
    const child = Array.isArray(children) ? children[0] : children;
    const className = isValidElement<{ className?: string }>(child) ? (child.props.className ?? "") : "";
    const lang = /language-([\w+#-]+)/.exec(className)?.[1] ?? "";
    return <CodeBlock code={textOf(child)} lang={lang} />;
  },
  a({ href, children }) {
    // Web links open in the user's browser, never inside the app's window.
    const web = href !== undefined && /^https?:\/\//i.test(href);
    return (
      <a
        href={href}
        title={href}
        rel="noreferrer noopener"
        onClick={(e) => {
          e.preventDefault();
          if (web) openUrl(href).catch(() => undefined);
        }}
      >
        {children}
      </a>
    );
  },
};

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
