import { useEffect, useState } from "react";
import { useApp } from "./store";
import { watchDragDrop } from "./dragDrop";
import { onWindowFocus } from "./windowFocus";
import { WelcomeScreen } from "./components/WelcomeScreen";
import { ProjectView } from "./components/ProjectView";

export function App() {
  const screen = useApp((s) => s.screen);
  const init = useApp((s) => s.init);
  const openProject = useApp((s) => s.openProject);
  const [dropHover, setDropHover] = useState(false);

  useEffect(() => {
    void init();
  }, [init]);

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

  if (screen.kind === "loading") {
    return <div className="splash" data-testid="loading" />;
  }
  if (screen.kind === "project") {
    return <ProjectView project={screen.project} dropHover={dropHover} />;
  }
  return <WelcomeScreen dropHover={dropHover} />;
}
