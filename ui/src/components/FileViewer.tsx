import { useEffect, useRef, useState } from "react";
import type { ThemedToken } from "shiki/core";
import { PAGE_LINES, useApp } from "../store";
import { highlightLines } from "../highlight";
import type { FileContent } from "../bindings";
import { formatCount } from "../format";

function formatBytes(n: number): string {
  if (n < 1024) return `${formatCount(n)} bytes`;
  const units = ["KB", "MB", "GB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

type TextContent = Extract<FileContent, { kind: "text" }>;

function useTokens(content: TextContent): ThemedToken[][] | null {
  const [tokens, setTokens] = useState<{ key: string; tokens: ThemedToken[][] | null } | null>(null);
  const key = `${content.path}:${content.start_line}:${content.lines.length}`;
  useEffect(() => {
    let live = true;
    highlightLines(content.path, content.lines)
      .then((t) => live && setTokens({ key, tokens: t }))
      .catch(() => live && setTokens({ key, tokens: null }));
    return () => {
      live = false;
    };
  }, [content, key]);
  return tokens?.key === key ? tokens.tokens : null;
}

function TextView({ content, focusLine }: { content: TextContent; focusLine?: number }) {
  const tokens = useTokens(content);
  const focusRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    focusRef.current?.scrollIntoView({ block: "center" });
  }, [focusLine, content]);
  const openFileAt = useApp((s) => s.openFileAt);
  const end = content.start_line + content.lines.length - 1;
  const paged = content.total_lines > content.lines.length;
  const width = String(Math.max(end, 1)).length;

  if (content.total_lines === 0) {
    return <p className="viewer-note muted" data-testid="empty-file">Empty file</p>;
  }
  return (
    <>
      {paged && (
        <div className="viewer-pager" data-testid="viewer-pager">
          <span>
            Lines {formatCount(content.start_line)}–{formatCount(end)} of{" "}
            {formatCount(content.total_lines)}
          </span>
          <button
            disabled={content.start_line <= 1}
            onClick={() => void openFileAt(content.path, Math.max(1, content.start_line - PAGE_LINES))}
          >
            ← Previous
          </button>
          <button disabled={end >= content.total_lines} onClick={() => void openFileAt(content.path, end + 1)}>
            Next →
          </button>
        </div>
      )}
      <div className="code" role="document" aria-label={`Contents of ${content.path}`} style={{ ["--ln-width" as string]: `${width}ch` }}>
        {content.lines.map((line, i) => (
          <div
            className={content.start_line + i === focusLine ? "code-line focus" : "code-line"}
            key={i}
            data-testid="file-line"
            ref={content.start_line + i === focusLine ? focusRef : undefined}
          >
            <span className="ln" data-testid="line-number">
              {content.start_line + i}
            </span>
            <span className="lc">
              {tokens?.[i]
                ? tokens[i].map((t, j) => (
                    <span key={j} style={t.htmlStyle as React.CSSProperties}>
                      {t.content}
                    </span>
                  ))
                : line || " "}
            </span>
          </div>
        ))}
      </div>
    </>
  );
}

export function FileViewer() {
  const openFile = useApp((s) => s.openFile);
  if (!openFile) {
    return (
      <section className="viewer empty" data-testid="file-viewer">
        <p className="muted">Select a file to see it here. Arrow keys move in the tree; Enter opens.</p>
      </section>
    );
  }
  const content = openFile.status === "error" ? undefined : openFile.content;
  return (
    <section className="viewer" data-testid="file-viewer" data-path={openFile.path}>
      <header className="viewer-header">
        <span className="viewer-path" data-testid="viewer-path">{openFile.path}</span>
        {content && content.kind !== "binary" && <span className="muted">{formatBytes(content.size)}</span>}
        {content?.kind === "text" && content.crlf && <span className="pill">CRLF</span>}
      </header>
      <div className="viewer-body">
        {openFile.status === "loading" && !content && <p className="viewer-note muted">Loading…</p>}
        {openFile.status === "error" && (
          <div className="banner error" role="alert" data-testid="viewer-error">
            {openFile.message}
          </div>
        )}
        {content?.kind === "binary" && (
          <p className="viewer-note" data-testid="binary-notice">
            Binary file, {formatCount(content.size)} bytes — not shown as text.
          </p>
        )}
        {content?.kind === "image" &&
          (content.data_base64 ? (
            <div className="image-preview">
              <img data-testid="image-preview" alt={content.path} src={`data:${content.mime};base64,${content.data_base64}`} />
            </div>
          ) : (
            <p className="viewer-note">Image too large to preview ({formatBytes(content.size)}).</p>
          ))}
        {content?.kind === "text" && <TextView content={content} focusLine={openFile.focusLine} />}
      </div>
    </section>
  );
}
