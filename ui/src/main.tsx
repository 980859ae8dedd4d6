import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { ErrorBoundary, WindowError } from "./components/ErrorBoundary";
import "./styles.css";
import { installTooltips } from "./tooltips";
import { installErrorReporting } from "./uiErrors";
import { beginStartupTrace } from "./startupTrace";

beginStartupTrace();

installTooltips();
installErrorReporting();

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ErrorBoundary part="window" fallback={(error, retry) => <WindowError error={error} retry={retry} />}>
        <App />
      </ErrorBoundary>
    </StrictMode>,
  );
}
