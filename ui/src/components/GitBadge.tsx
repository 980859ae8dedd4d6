import type { GitBadge as Badge } from "../bindings";

const LETTER: Record<Badge, string> = {
  conflicted: "!",
  modified: "M",
  added: "A",
  deleted: "D",
  renamed: "R",
  untracked: "U",
};

const TITLE: Record<Badge, string> = {
  conflicted: "Conflicted: needs a merge resolution",
  modified: "Modified since the last commit",
  added: "Added to the index",
  deleted: "Deleted",
  renamed: "Renamed",
  untracked: "Untracked: not in git yet",
};

export function GitBadge({ badge, folder }: { badge: Badge; folder?: boolean }) {
  return (
    <span
      className={`git-badge git-${badge}${folder ? " git-folder" : ""}`}
      data-testid="git-badge"
      data-badge={badge}
      title={folder ? `Contains changes — ${TITLE[badge].toLowerCase()}` : TITLE[badge]}
    >
      {folder ? "•" : LETTER[badge]}
    </span>
  );
}
