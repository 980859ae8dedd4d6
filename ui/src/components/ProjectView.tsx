import type { ProjectInfo } from "../bindings";
import { useApp } from "../store";
import { pickFolder } from "../pickFolder";
import { FileTree } from "./FileTree";
import { FileViewer } from "./FileViewer";

export function ProjectView({ project, dropHover }: { project: ProjectInfo; dropHover: boolean }) {
  const showHidden = useApp((s) => s.showHidden);
  const setShowHidden = useApp((s) => s.setShowHidden);
  const refresh = useApp((s) => s.refresh);
  const closeProject = useApp((s) => s.closeProject);
  const openProject = useApp((s) => s.openProject);

  return (
    <div className={dropHover ? "project drop-hover" : "project"} data-testid="project-view">
      <header className="toolbar">
        <div className="project-title">
          <span className="project-name" data-testid="project-name">{project.name}</span>
          {project.branch && (
            <span className="pill branch" title="Current git branch" data-testid="project-branch">
              ⎇ {project.branch}
            </span>
          )}
          <span className="project-path muted" title={project.root}>{project.root}</span>
        </div>
        <div className="toolbar-actions">
          <label className="toggle" title="Show files whose names start with a dot">
            <input
              type="checkbox"
              data-testid="toggle-hidden"
              checked={showHidden}
              onChange={(e) => void setShowHidden(e.target.checked)}
            />
            Hidden files
          </label>
          <button data-testid="refresh-tree" onClick={() => void refresh()} title="Reload the tree and git status">
            Refresh
          </button>
          <button
            onClick={async () => {
              const path = await pickFolder().catch(() => null);
              if (path) await openProject(path);
            }}
          >
            Open folder…
          </button>
          <button data-testid="close-project" onClick={closeProject}>
            Close
          </button>
        </div>
      </header>
      <div className="panes">
        <aside className="sidebar">
          <FileTree />
        </aside>
        <FileViewer />
      </div>
      {dropHover && (
        <div className="drop-overlay" aria-hidden>
          Drop a folder to open it
        </div>
      )}
    </div>
  );
}
