import { useEffect, useState, useSyncExternalStore } from "react";
import type { ProjectInfo } from "../bindings";
import { useApp, type Panel } from "../store";
import { cardShowing, useSession } from "../session";
import { pickFolder } from "../pickFolder";
import { FileTree } from "./FileTree";
import { FileViewer } from "./FileViewer";
import { SessionList } from "./SessionList";
import { ExportSession } from "./ExportSession";
import { Transcript } from "./Transcript";
import { ApprovalCard } from "./ApprovalCard";
import { RestoreCard } from "./RestoreCard";
import { Composer } from "./Composer";
import { TaskList } from "./TaskList";
import { useTaskPolling } from "../taskPolling";
import { ChangesPanel } from "./ChangesPanel";
import { ModelPicker } from "./ModelPicker";
import { Splitter } from "./Splitter";
import { DETAILS_MAX, DETAILS_MIN, SIDE_MAX, SIDE_MIN, detailsEmpty, fitColumnsForCard, useLayout } from "../layout";

type SideTab = "sessions" | "files";

function subscribeResize(onChange: () => void) {
  window.addEventListener("resize", onChange);
  return () => window.removeEventListener("resize", onChange);
}

/** The window's width, following resizes. */
function useWindowWidth(): number {
  return useSyncExternalStore(subscribeResize, () => window.innerWidth);
}

const PANELS: Array<{ id: Panel; label: string }> = [
  { id: "tasks", label: "Tasks" },
  { id: "changes", label: "Changes" },
  { id: "file", label: "File" },
];

export function ProjectView({ project, dropHover }: { project: ProjectInfo; dropHover: boolean }) {
  useTaskPolling();
  const showHidden = useApp((s) => s.showHidden);
  const setShowHidden = useApp((s) => s.setShowHidden);
  const refresh = useApp((s) => s.refresh);
  const closeProject = useApp((s) => s.closeProject);
  const openProject = useApp((s) => s.openProject);
  const panel = useApp((s) => s.panel);
  const setPanel = useApp((s) => s.setPanel);
  const openSettings = useApp((s) => s.setSettingsOpen);
  const openFile = useApp((s) => s.openFile);
  const setProject = useSession((s) => s.setProject);
  const title = useSession((s) => s.current?.title ?? null);
  const [side, setSide] = useState<SideTab>("sessions");
  const settingsError = useApp((s) => s.settingsError);
  const layout = useLayout();
  const width = useWindowWidth();
  // While a question is on screen an empty Tasks panel gives its room to it (its toggle brings
  // it back for as long as the question stays).
  const card = useSession(cardShowing);
  const empty = useSession((s) =>
    detailsEmpty({ panel, planItems: s.transcript.plan?.length ?? 0, tasks: s.tasks.length, tasksError: s.tasksError !== null }),
  );
  const [keptOpen, setKeptOpen] = useState(false);
  if (keptOpen && !card) setKeptOpen(false);
  const cols = fitColumnsForCard(width, layout, { cardShowing: card, detailsEmpty: empty, keptOpen });
  const columns = [
    cols.sideShown ? `${cols.side}px` : null,
    "minmax(0, 1fr)",
    cols.detailsShown ? `${cols.details}px` : null,
  ]
    .filter((c) => c !== null)
    .join(" ");
  // Hidden only for want of room: showing it makes room by folding the sidebar. Folded for a
  // question: showing it keeps it for that question.
  const toggleDetails = cols.detailsYielded
    ? () => setKeptOpen(true)
    : cols.detailsSqueezed
      ? () => {
          if (!layout.sideFolded) layout.toggleSide();
        }
      : layout.toggleDetails;

  useEffect(() => {
    void setProject(project.root);
  }, [project.root, setProject]);

  return (
    <div className={dropHover ? "project drop-hover" : "project"} data-testid="project-view">
      <header className="toolbar">
        <div className="project-title">
          <button
            className="icon-button panel-toggle"
            data-testid="toggle-sidebar"
            aria-pressed={cols.sideShown}
            aria-label={cols.sideShown ? "Hide the sidebar" : "Show the sidebar"}
            title={cols.sideShown ? "Hide the sidebar" : "Show the sidebar"}
            onClick={layout.toggleSide}
          >
            <span className={cols.sideShown ? "panel-icon left on" : "panel-icon left"} aria-hidden />
          </button>
          <span className="project-name" data-testid="project-name" title={project.name}>
            {project.name}
          </span>
          {project.branch && (
            <span className="pill branch" title="Current git branch" data-testid="project-branch">
              ⎇ {project.branch}
            </span>
          )}
          <span className="project-path muted" title={project.root}>{project.root}</span>
        </div>
        <div className="toolbar-actions">
          <ModelPicker />
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
          <button data-testid="settings-button" onClick={() => openSettings(true)} title="Providers, models and rules">
            Settings
          </button>
          <button
            className="icon-button panel-toggle"
            data-testid="toggle-details"
            aria-pressed={cols.detailsShown}
            aria-label={cols.detailsShown ? "Hide tasks and changes" : "Show tasks and changes"}
            title={cols.detailsShown ? "Hide tasks and changes" : "Show tasks and changes"}
            onClick={toggleDetails}
          >
            <span className={cols.detailsShown ? "panel-icon right on" : "panel-icon right"} aria-hidden />
          </button>
        </div>
      </header>
      {settingsError && (
        <div className="banner error app-banner" role="alert">
          <span>
            {settingsError}{" "}
            <button className="link-button" onClick={() => openSettings(true)}>
              Open Settings
            </button>
          </span>
        </div>
      )}
      <div className="workspace" style={{ gridTemplateColumns: columns }}>
        <aside className="sidebar" hidden={!cols.sideShown} data-testid="sidebar">
          <div className="tabs" role="tablist" aria-label="Sidebar">
            <button role="tab" aria-selected={side === "sessions"} data-testid="sessions-tab" onClick={() => setSide("sessions")}>
              Sessions
            </button>
            <button role="tab" aria-selected={side === "files"} data-testid="files-tab" onClick={() => setSide("files")}>
              Files
            </button>
          </div>
          <div className="tab-body" hidden={side !== "sessions"}>
            <SessionList />
          </div>
          <div className="tab-body files" hidden={side !== "files"}>
            <div className="panel-toolbar">
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
            </div>
            <FileTree />
          </div>
          <Splitter
            label="Resize the sidebar"
            testId="sidebar-splitter"
            value={cols.side}
            min={SIDE_MIN}
            max={SIDE_MAX}
            direction={1}
            onChange={layout.setSide}
          />
        </aside>
        <main className="center">
          {title && (
            <div className="session-heading">
              <span className="session-heading-title" title={title}>
                {title}
              </span>
              <ExportSession />
            </div>
          )}
          <Transcript />
          <RestoreCard />
          <ApprovalCard />
          <Composer />
        </main>
        <aside className="right-panel" hidden={!cols.detailsShown} data-testid="details-panel">
          <Splitter
            label="Resize tasks and changes"
            testId="details-splitter"
            value={cols.details}
            min={DETAILS_MIN}
            max={DETAILS_MAX}
            direction={-1}
            onChange={layout.setDetails}
          />
          <div className="tabs" role="tablist" aria-label="Details">
            {PANELS.map((p) => (
              <button
                key={p.id}
                role="tab"
                aria-selected={panel === p.id}
                data-testid={`${p.id}-tab`}
                onClick={() => setPanel(p.id)}
                title={p.id === "file" && openFile ? openFile.path : undefined}
              >
                {p.label}
              </button>
            ))}
          </div>
          <div className="tab-body">
            {panel === "tasks" && <TaskList />}
            {panel === "changes" && <ChangesPanel />}
            <div className="file-panel" hidden={panel !== "file"}>
              <FileViewer />
            </div>
          </div>
        </aside>
      </div>
      {dropHover && (
        <div className="drop-overlay" aria-hidden>
          Drop a folder to open it
        </div>
      )}
    </div>
  );
}
