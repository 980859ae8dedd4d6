import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { useApp } from "./store";
import { ErrorBoundary, WindowError } from "./components/ErrorBoundary";
import "./styles.css";
import { installTooltips } from "./tooltips";
import { installErrorReporting } from "./uiErrors";
import { beginStartupTrace } from "./startupTrace";

beginStartupTrace();

installTooltips();
installErrorReporting();

// Asked before React's first render: with the answers early.js already has, the first screen
// React draws is the real one, not a splash followed by it.
void useApp.getState().init();

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ErrorBoundary part="window" fallback={(error, retry) => <WindowError error={error} retry={retry} />}>
        <App initStarted />
      </ErrorBoundary>
    </StrictMode>,
  );
}
