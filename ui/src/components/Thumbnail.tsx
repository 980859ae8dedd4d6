// A picture the agent looked at, shown small on its card: "Looked at a file that is not text"
// told a person nothing. Read from the project as it is now; a click opens it whole.
import { useEffect, useState } from "react";
import { call } from "../api";
import { useApp } from "../store";

export function Thumbnail({ path }: { path: string }) {
  const root = useApp((s) => (s.screen.kind === "project" ? s.screen.project.root : null));
  const showFile = useApp((s) => s.showFile);
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    if (!root) return;
    let live = true;
    call("read_file", { root, path, offset: null, limit: 1 })
      .then((c) => {
        if (live && c.kind === "image" && c.data_base64) setSrc(`data:${c.mime};base64,${c.data_base64}`);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [root, path]);
  if (src === null) return null;
  return (
    <button className="tool-thumbnail" data-testid="tool-thumbnail" onClick={() => void showFile(path)} title={`Open ${path}`}>
      <img src={src} alt={`${path}, the picture the agent looked at`} />
    </button>
  );
}
