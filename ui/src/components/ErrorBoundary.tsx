// A part of the window that fails to draw (or to load) shows its fallback and is logged; the
// rest of the window goes on. Without one, React takes the whole page down with it.
import { Component, type ErrorInfo, type ReactNode } from "react";
import { reportUiError } from "../uiErrors";

type Props = {
  /** Which part, for the log. */
  part: string;
  /** What shows instead; `retry` draws the part again. */
  fallback: (error: Error, retry: () => void) => ReactNode;
  children: ReactNode;
};

type State = { error: Error | null };

export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    reportUiError(this.props.part, error, info.componentStack);
  }

  retry = () => this.setState({ error: null });

  render() {
    return this.state.error ? this.props.fallback(this.state.error, this.retry) : this.props.children;
  }
}

/** The whole window's last resort: what happened, and a way back. Sessions live in Rust, so
 * reloading the window loses nothing the agent did. */
export function WindowError({ error, retry }: { error: Error; retry: () => void }) {
  return (
    <div className="window-error" role="alert" data-testid="window-error">
      <div className="window-error-card">
        <h1>Something in the window went wrong</h1>
        <p>
          Your sessions and files are safe: the agent runs outside the window. Reload the window to go on; the error
          is in Tandem's log.
        </p>
        <details className="error-detail">
          <summary>Details</summary>
          <code>{error.message}</code>
        </details>
        <div className="window-error-actions">
          <button className="primary" data-testid="window-reload" onClick={() => window.location.reload()}>
            Reload the window
          </button>
          <button data-testid="window-retry" onClick={retry}>
            Try again
          </button>
        </div>
      </div>
    </div>
  );
}
