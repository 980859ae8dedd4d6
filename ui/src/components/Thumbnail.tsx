// A picture the agent looked at, shown small on its card: "Looked at a file that is not text"
// told a person nothing. A project file is read as it is now and a click opens it whole; a
// picture fetched from the web is read from the session's saved copy (what the model saw) and
// a click opens its address in the browser.
import { openUrl } from "@tauri-apps/plugin-opener";
import { useEffect, useState } from "react";
import { call } from "../api";
import type { FileContent } from "../bindings";
import { useSession } from "../session";
import { useApp } from "../store";

export type Picture = { kind: "project"; path: string } | { kind: "fetched"; name: string; url: string };

export function Thumbnail({ picture }: { picture: Picture }) {
  const root = useApp((s) => (s.screen.kind === "project" ? s.screen.project.root : null));
  const session = useSession((s) => s.current?.id ?? null);
  const showFile = useApp((s) => s.showFile);
  const [src, setSrc] = useState<string | null>(null);
  // Primitives, so a new object naming the same picture reads nothing again.
  const kind = picture.kind;
  const name = picture.kind === "project" ? picture.path : picture.name;
  useEffect(() => {
    let read: Promise<FileContent> | null = null;
    if (kind === "project" && root) read = call("read_file", { root, path: name, offset: null, limit: 1 });
    if (kind === "fetched" && session) read = call("fetched_picture", { session, name });
    if (!read) return;
    let live = true;
    read
      .then((c) => {
        if (live && c.kind === "image" && c.data_base64) setSrc(`data:${c.mime};base64,${c.data_base64}`);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [root, session, kind, name]);
  if (src === null) return null;
  const open = () => {
    if (picture.kind === "project") void showFile(picture.path);
    else openUrl(picture.url).catch(() => undefined);
  };
  const title = picture.kind === "project" ? `Open ${picture.path}` : `Open ${picture.url} in your browser`;
  const alt =
    picture.kind === "project"
      ? `${picture.path}, the picture the agent looked at`
      : `The picture the agent fetched from ${picture.url}`;
  return (
    <button className="tool-thumbnail" data-testid="tool-thumbnail" onClick={open} title={title}>
      <img src={src} alt={alt} />
    </button>
  );
}
