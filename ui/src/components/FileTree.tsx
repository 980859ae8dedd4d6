import { useEffect, useMemo, useRef } from "react";
import { useApp } from "../store";
import { visibleRows, type Row } from "../tree";
import { GitBadge } from "./GitBadge";

function rowId(path: string): string {
  return `tree-row-${encodeURIComponent(path)}`;
}

export function FileTree() {
  const folders = useApp((s) => s.folders);
  const expanded = useApp((s) => s.expanded);
  const selected = useApp((s) => s.selected);
  const select = useApp((s) => s.select);
  const setExpanded = useApp((s) => s.setExpanded);
  const showFile = useApp((s) => s.showFile);
  const rows = useMemo(() => visibleRows(folders, expanded), [folders, expanded]);
  const entries = useMemo(
    () => rows.filter((r): r is Extract<Row, { kind: "entry" }> => r.kind === "entry"),
    [rows],
  );
  const treeRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!selected) return;
    document.getElementById(rowId(selected))?.scrollIntoView({ block: "nearest" });
  }, [selected]);

  const activate = (row: Extract<Row, { kind: "entry" }>) => {
    select(row.entry.path);
    if (row.entry.kind === "dir") void setExpanded(row.entry.path, !row.expanded);
    else void showFile(row.entry.path);
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (entries.length === 0) return;
    const index = entries.findIndex((r) => r.entry.path === selected);
    const current = index >= 0 ? entries[index] : undefined;
    const move = (i: number) => {
      const target = entries[Math.max(0, Math.min(entries.length - 1, i))];
      if (target) select(target.entry.path);
    };
    switch (e.key) {
      case "ArrowDown":
        move(index + 1);
        break;
      case "ArrowUp":
        move(index < 0 ? 0 : index - 1);
        break;
      case "Home":
        move(0);
        break;
      case "End":
        move(entries.length - 1);
        break;
      case "ArrowRight":
        if (current?.entry.kind === "dir") {
          if (!current.expanded) void setExpanded(current.entry.path, true);
          else move(index + 1);
        }
        break;
      case "ArrowLeft":
        if (current?.entry.kind === "dir" && current.expanded) void setExpanded(current.entry.path, false);
        else if (current && current.parent !== "") select(current.parent);
        break;
      case "Enter":
      case " ":
        if (current) activate(current);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const root = folders[""];
  return (
    <div
      className="file-tree"
      role="tree"
      aria-label="Project files"
      tabIndex={0}
      ref={treeRef}
      data-testid="file-tree"
      aria-activedescendant={selected ? rowId(selected) : undefined}
      onKeyDown={onKeyDown}
      onFocus={() => {
        if (!selected && entries[0]) select(entries[0].entry.path);
      }}
    >
      {root?.status === "loaded" && root.entries.length === 0 && (
        <p className="muted tree-empty">This folder is empty{root.skipped.length ? "" : " (or everything in it is ignored)"}.</p>
      )}
      {rows.map((row) =>
        row.kind === "status" ? (
          <div
            key={row.path}
            className={`tree-status ${row.tone}`}
            style={{ paddingLeft: 12 + row.depth * 16 }}
            data-testid={row.tone === "error" ? "tree-error" : undefined}
          >
            {row.text}
          </div>
        ) : (
          <div
            key={row.entry.path}
            id={rowId(row.entry.path)}
            role="treeitem"
            aria-level={row.depth + 1}
            aria-expanded={row.entry.kind === "dir" ? row.expanded : undefined}
            aria-selected={selected === row.entry.path}
            className={[
              "tree-row",
              row.entry.kind,
              selected === row.entry.path ? "selected" : "",
              row.entry.hidden ? "hidden-entry" : "",
            ].join(" ")}
            style={{ paddingLeft: 8 + row.depth * 16 }}
            data-testid="tree-row"
            data-path={row.entry.path}
            data-kind={row.entry.kind}
            data-git={row.entry.git ?? ""}
            title={row.entry.path + (row.entry.symlink ? " (symbolic link)" : "")}
            onClick={() => {
              treeRef.current?.focus({ preventScroll: true });
              activate(row);
            }}
          >
            <span className={`twisty ${row.entry.kind === "dir" ? (row.expanded ? "open" : "closed") : "none"}`} aria-hidden />
            <span className={`icon ${row.entry.kind}`} aria-hidden />
            <span className={`name git-text-${row.entry.git ?? "none"}`}>{row.entry.name}</span>
            {row.entry.symlink && <span className="symlink-mark" aria-label="symbolic link">↪</span>}
            {row.entry.git && <GitBadge badge={row.entry.git} folder={row.entry.kind === "dir"} />}
          </div>
        ),
      )}
    </div>
  );
}
