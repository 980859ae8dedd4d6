// A tool's result: command output with its terminal colours, search hits that open the file,
// anything else as plain text; web addresses in it open in the browser.
import { useMemo } from "react";
import { openUrl } from "@tauri-apps/plugin-opener";
import { parseAnsi, type AnsiStyle } from "../ansi";
import { splitUrls } from "../links";
import type { OutputForm } from "../bindings";
import { useApp } from "../store";

function cssOf(style: AnsiStyle): React.CSSProperties | undefined {
  if (Object.keys(style).length === 0) return undefined;
  const fg = style.inverse ? (style.bg ?? "var(--panel)") : style.fg;
  const bg = style.inverse ? (style.fg ?? "var(--text)") : style.bg;
  return {
    color: fg,
    backgroundColor: bg,
    fontWeight: style.bold ? 700 : undefined,
    opacity: style.dim ? 0.7 : undefined,
    fontStyle: style.italic ? "italic" : undefined,
    textDecoration: style.underline ? "underline" : undefined,
  };
}

/** Text with its web addresses as links that open in the browser. */
export function Linked({ text }: { text: string }) {
  const pieces = useMemo(() => splitUrls(text), [text]);
  return (
    <>
      {pieces.map((p, i) =>
        p.url === undefined ? (
          p.text
        ) : (
          <a
            key={i}
            href={p.url}
            className="output-link"
            data-testid="output-link"
            title={`Open ${p.url} in your browser`}
            onClick={(e) => {
              e.preventDefault();
              openUrl(p.url).catch(() => undefined);
            }}
          >
            {p.text}
          </a>
        ),
      )}
    </>
  );
}

export function AnsiText({ text, testId }: { text: string; testId?: string }) {
  const spans = useMemo(() => parseAnsi(text), [text]);
  return (
    <pre className="term" data-testid={testId}>
      {spans.map((s, i) => (
        <span key={i} style={cssOf(s.style)}>
          <Linked text={s.text} />
        </span>
      ))}
    </pre>
  );
}

// `path:line: text` (a match) or `path-line- text` (context), as the code search prints them.
const HIT = /^(.+?):(\d+):(.*)$/;

export function SearchHits({ text }: { text: string }) {
  const showFile = useApp((s) => s.showFile);
  const lines = useMemo(() => text.split("\n"), [text]);
  return (
    <pre className="term search-hits">
      {lines.map((line, i) => {
        const m = HIT.exec(line);
        if (!m || m[1]?.includes(" ")) return <div key={i}>{line || " "}</div>;
        const path = m[1] as string;
        const lineNo = Number(m[2]);
        return (
          <div key={i} className="hit">
            <button
              className="hit-link"
              data-testid="search-hit"
              data-path={path}
              data-line={lineNo}
              onClick={() => void showFile(path, lineNo)}
              title={`Open ${path} at line ${lineNo}`}
            >
              {path}:{lineNo}:
            </button>
            <span>{m[3]}</span>
          </div>
        );
      })}
    </pre>
  );
}

/** The output in the form its tool declared (the call's look, from Rust). */
export function ToolOutput({ form, output }: { form: OutputForm; output: string }) {
  switch (form) {
    case "search_hits":
      return <SearchHits text={output} />;
    case "terminal":
      return <AnsiText text={output} />;
    case "plain":
      return (
        <pre className="term plain">
          <Linked text={output} />
        </pre>
      );
  }
}
