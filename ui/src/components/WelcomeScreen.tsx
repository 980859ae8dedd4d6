import { useApp } from "../store";
import { pickFolder } from "../pickFolder";
import { RecentList } from "./RecentList";
import { useState } from "react";
import { toAppError } from "../api";

export function WelcomeScreen({ dropHover }: { dropHover: boolean }) {
  const screen = useApp((s) => s.screen);
  const recent = useApp((s) => s.recent);
  const openProject = useApp((s) => s.openProject);
  const removeRecent = useApp((s) => s.removeRecent);
  const openSettings = useApp((s) => s.setSettingsOpen);
  const [pickerError, setPickerError] = useState<string | null>(null);
  const error = screen.kind === "welcome" ? screen.error : undefined;

  const onOpenFolder = async () => {
    setPickerError(null);
    try {
      const path = await pickFolder();
      if (path) await openProject(path);
    } catch (err) {
      setPickerError(`The folder picker failed: ${toAppError(err).message}`);
    }
  };

  return (
    <main className={dropHover ? "welcome drop-hover" : "welcome"} data-testid="welcome-screen">
      <div className="welcome-card">
        <header className="welcome-header">
          <img src="/icon.png" alt="" className="welcome-logo" width={56} height={56} />
          <div>
            <h1>Tandem</h1>
            <p className="muted">Describe a task, watch the agent work, review every change.</p>
          </div>
        </header>

        {error && (
          <div className="banner error" role="alert" data-testid="welcome-error">
            <strong>Can't open {error.path ? <code>{error.path}</code> : "that folder"}</strong>
            <span>{error.message}</span>
          </div>
        )}
        {pickerError && (
          <div className="banner error" role="alert">
            {pickerError}
          </div>
        )}

        <div className="welcome-actions">
          <button className="primary" data-testid="open-folder" onClick={onOpenFolder} autoFocus>
            Open folder…
          </button>
          <span className="muted drop-hint">or drop a folder anywhere on this window</span>
          <span className="spacer" />
          <button className="link-button" data-testid="welcome-settings" onClick={() => openSettings(true)}>
            Settings
          </button>
        </div>

        <section className="recent">
          <h2>Recent projects</h2>
          <RecentList recent={recent} onOpen={(p) => void openProject(p)} onRemove={(p) => void removeRecent(p)} />
        </section>
      </div>
      {dropHover && (
        <div className="drop-overlay" aria-hidden>
          Drop a folder to open it
        </div>
      )}
    </main>
  );
}
