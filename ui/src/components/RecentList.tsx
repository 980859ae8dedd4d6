import type { RecentProject } from "../bindings";

type Props = {
  recent: RecentProject[];
  onOpen: (path: string) => void;
  onRemove: (path: string) => void;
};

function when(ms: number): string {
  const minutes = Math.round((Date.now() - ms) / 60000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return new Date(ms).toLocaleDateString();
}

export function RecentList({ recent, onOpen, onRemove }: Props) {
  if (recent.length === 0) {
    return <p className="muted recent-empty">Projects you open appear here.</p>;
  }
  return (
    <ul className="recent-list" data-testid="recent-projects" aria-label="Recent projects">
      {recent.map((r) => (
        <li
          key={r.path}
          className={r.exists ? "recent-item" : "recent-item vanished"}
          data-testid="recent-project"
          data-path={r.path}
          data-exists={r.exists}
        >
          <button
            className="recent-open"
            data-testid="recent-open"
            disabled={!r.exists}
            onClick={() => onOpen(r.path)}
            title={r.exists ? `Open ${r.path}` : "This folder no longer exists"}
          >
            <span className="recent-name">{r.name}</span>
            <span className="recent-path">{r.path}</span>
          </button>
          <span className="recent-when">{r.exists ? when(r.opened_at_ms) : "folder not found"}</span>
          <button
            className={r.exists ? "link-button subtle" : "link-button"}
            data-testid="recent-remove"
            onClick={() => onRemove(r.path)}
            aria-label={`Remove ${r.name} from recent projects`}
          >
            Remove
          </button>
        </li>
      ))}
    </ul>
  );
}
