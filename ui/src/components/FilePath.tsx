import { shownPath } from "../format";
// A file's path on one line: when it is too long, its start gives way to an ellipsis, so the
// file's name stays in sight. The line runs right to left for that (the ellipsis goes where the
// line starts); the path itself is isolated left to right inside it, or the right-to-left line
// would move the neutral characters at its ends: "__pycache__/x.pyc" read "pycache__/x.pyc__",
// ".notes/todo.md" read "notes/todo.md.".
export function FilePath({ path, className }: { path: string; className?: string }) {
  return (
    <span className={className ? `file-path ${className}` : "file-path"}>
      <bdi dir="ltr">{shownPath(path)}</bdi>
    </span>
  );
}
