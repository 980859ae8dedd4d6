import { Suspense, useEffect, useLayoutEffect, useState } from "react";
import { useApp } from "./store";
import { call } from "./api";
import { finishStartupTrace, markStartup } from "./startupTrace";
import { watchDragDrop } from "./dragDrop";
import { onWindowFocus } from "./windowFocus";
import { onOpenSession, onProjectChanged } from "./projectChanges";
import { useSession } from "./session";
import { WelcomeScreen } from "./components/WelcomeScreen";
import { ProjectView } from "./components/ProjectView";
import { FirstRunScreen, SettingsDialog, preloadHeavyParts } from "./components/lazy";

/** `initStarted`: the page's entry already asked for the first screen (main.tsx). */
export function App({ initStarted = false }: { initStarted?: boolean }) {
  const screen = useApp((s) => s.screen);
  const init = useApp((s) => s.init);
  const openProject = useApp((s) => s.openProject);
  const [dropHover, setDropHover] = useState(false);
  const settings = useApp((s) => s.settings);
  const firstRunSkipped = useApp((s) => s.firstRunSkipped);
  const settingsOpen = useApp((s) => s.settingsOpen);

  useEffect(() => {
    if (!initStarted) void init();
  }, [init, initStarted]);

  useEffect(
    () =>
      watchDragDrop({
        onHover: setDropHover,
        onDrop: (paths) => {
          if (paths[0]) void openProject(paths[0]);
        },
      }),
    [openProject],
  );

  // Back from another app: files and git state may have changed.
  useEffect(
    () =>
      onWindowFocus(() => {
        if (useApp.getState().screen.kind === "project") void useApp.getState().refresh();
      }),
    [],
  );

  // Changed outside the app while it shows the project: the badges follow without a Refresh.
  useEffect(
    () =>
      onProjectChanged((change) => {
        const screen = useApp.getState().screen;
        if (screen.kind === "project" && screen.project.root === change.root) void useApp.getState().refresh();
      }),
    [],
  );

  // A notification was clicked: its session comes forward (and the Sessions tab with it).
  useEffect(
    () =>
      onOpenSession((session) => {
        if (useApp.getState().screen.kind !== "project") return;
        if (useSession.getState().current?.id !== session) void useSession.getState().openSession(session);
      }),
    [],
  );

  // Tells Rust once the first real screen has painted (logged; the startup benchmark times it).
  // Counted from the commit, as an empty page counts from its DOM: a layout effect runs before
  // the browser paints the commit, a passive one after it, which would wait a frame more.
  const loaded = screen.kind !== "loading";
  useLayoutEffect(() => {
    if (!loaded) return;
    markStartup("first screen committed");
    const id = requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        markStartup("first frame");
        call("ui_ready", finishStartupTrace()).catch(() => undefined);
        preloadHeavyParts();
      }),
    );
    return () => cancelAnimationFrame(id);
  }, [loaded]);

  if (screen.kind === "loading") {
    return <div className="splash" data-testid="loading" />;
  }
  if (settings && !settings.configured && !firstRunSkipped) {
    return (
      <Suspense fallback={<div className="splash" data-testid="loading" />}>
        <FirstRunScreen />
      </Suspense>
    );
  }
  return (
    <>
      {screen.kind === "project" ? (
        <ProjectView project={screen.project} dropHover={dropHover} />
      ) : (
        <WelcomeScreen dropHover={dropHover} />
      )}
      {settingsOpen && (
        <Suspense fallback={null}>
          <SettingsDialog />
        </Suspense>
      )}
    </>
  );
}
