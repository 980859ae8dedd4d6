// "On this computer, built in": the small model that runs inside Tandem. Says plainly what it
// is good for, downloads it (progress, cancel, resume — the Rust side checks the sha256 before
// the file is used) or takes a GGUF file the user has, and says why when this computer cannot
// run it. Progress comes from polling builtin_status while a download runs.
import { useCallback, useEffect, useState } from "react";
import type { BuiltinStatus, SettingsView } from "../bindings";
import { call, toAppError } from "../api";
import { pickModelFile } from "../pickFolder";
import { builtinModelWords } from "../modelChoice";
import { ErrorDetail } from "./ErrorNote";

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`;
  return `${Math.round(n / 1e3)} kB`;
}

const POLL_MS = 500;

/** The download button's words: a cut download resumes where it stopped; a failed one that got
 * nothing tries again. */
export function downloadLabel(d: BuiltinStatus["download"] | undefined, size: number): string {
  if (d && d.done > 0) return `Resume download (${formatBytes(d.done)} of ${formatBytes(d.total ?? size)})`;
  if (d?.error) return `Try the download again (${formatBytes(size)})`;
  return `Download (${formatBytes(size)})`;
}

export function BuiltinCard({
  busy,
  onUsed,
  recommended = false,
}: {
  busy: boolean;
  onUsed: (s: SettingsView) => void;
  /** Shown first to someone with no key anywhere: the one way in that needs no account. */
  recommended?: boolean;
}) {
  const [status, setStatus] = useState<BuiltinStatus | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setStatus(await call("builtin_status"));
    } catch (err) {
      setError(toAppError(err).message);
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const running = status?.download.running ?? false;
  useEffect(() => {
    if (!running) return;
    const timer = window.setInterval(() => void refresh(), POLL_MS);
    return () => window.clearInterval(timer);
  }, [running, refresh]);

  const act = async (f: () => Promise<BuiltinStatus>) => {
    setError(null);
    try {
      setStatus(await f());
    } catch (err) {
      setError(toAppError(err).message);
    }
  };

  const choose = async (modelPath: string | null) => {
    setError(null);
    try {
      onUsed(await call("use_builtin", { model_path: modelPath }));
      await refresh();
    } catch (err) {
      setError(toAppError(err).message);
    }
  };

  const chooseFile = async () => {
    const file = await pickModelFile();
    if (file) await choose(file);
  };

  const d = status?.download;
  const total = d?.total ?? status?.download_size ?? 0;
  const percent = d && total > 0 ? Math.min(100, Math.floor((d.done / total) * 100)) : 0;
  const words = status ? builtinModelWords(status.model_name) : null;

  return (
    <div className="first-run-card builtin-card" data-testid="builtin-card">
      {recommended && (
        <p className="recommended" data-testid="builtin-recommended">
          Recommended if you have no account
        </p>
      )}
      <h3>On this computer, built in</h3>
      <p className="muted">
        A small model that runs inside Tandem: no account, no server, nothing leaves your machine. It is good at
        explicit, step-by-step tasks (“read calc.py, make add return a + b, run the tests”). It is not good at
        open-ended work (“find and fix the bugs”): for that, use a bigger model through a provider or a server.
      </p>
      {status === null && !error && <p className="muted">Checking this computer…</p>}
      {status?.unavailable && (
        <div className="banner warn" data-testid="builtin-unavailable">
          Not available on this computer: {status.unavailable}
        </div>
      )}
      {status && !status.unavailable && (
        <>
          {status.in_use && (
            <p className="builtin-in-use" data-testid="builtin-in-use">
              In use{status.own_file ? `, with ${status.own_file}` : ""}.
            </p>
          )}
          {status.downloaded ? (
            <p className="muted" data-testid="builtin-downloaded">
              {words?.name} is downloaded.
            </p>
          ) : (
            <p className="muted" data-testid="builtin-not-downloaded">
              {words?.name}: not downloaded yet — a {formatBytes(status.download_size)} download, once.
            </p>
          )}
          {running && d && (
            <div className="builtin-progress" data-testid="builtin-progress">
              <progress max={100} value={percent} aria-label="Download progress" />
              <span>
                {formatBytes(d.done)} of {formatBytes(total)} ({percent}%)
              </span>
              <button data-testid="builtin-cancel" onClick={() => void act(() => call("cancel_builtin_download"))}>
                Cancel
              </button>
            </div>
          )}
          {d?.error && !running && (
            <div className="banner error" role="alert" data-testid="builtin-error" data-code={d.error.code}>
              <span className="error-words">{d.error.message}</span>
              <ErrorDetail detail={d.error.detail} />
              {/* The other way to the built-in model, right where the download failed. */}
              <span className="error-actions">
                <button className="small" data-testid="builtin-error-own-file" disabled={busy} onClick={() => void chooseFile()}>
                  Use a model file I already have…
                </button>
              </span>
            </div>
          )}
          <div className="builtin-actions">
            {status.downloaded ? (
              <button
                className="primary"
                data-testid="builtin-use"
                disabled={busy || (status.in_use && !status.own_file)}
                onClick={() => void choose(null)}
              >
                Use the built-in model
              </button>
            ) : (
              !running && (
                <button
                  className="primary"
                  data-testid="builtin-download"
                  disabled={busy}
                  onClick={() => void act(() => call("start_builtin_download"))}
                >
                  {downloadLabel(d, status.download_size)}
                </button>
              )
            )}
            {/* Once: a failed download offers it in its own banner. */}
            {!(d?.error && !running) && (
              <button className="link-button" data-testid="builtin-own-file" disabled={busy} onClick={() => void chooseFile()}>
                Use a model file I already have…
              </button>
            )}
          </div>
          <details className="builtin-details" data-testid="builtin-details">
            <summary>Details</summary>
            <p className="muted">
              The file: {words?.name}
              {words?.quantisation ? `, quantised as ${words.quantisation}` : ""}, in GGUF format,{" "}
              {formatBytes(status.download_size)}. Tandem checks its sha256 before using it. A model file you already
              have must be a GGUF file too.
            </p>
          </details>
        </>
      )}
      {error && (
        <div className="banner error" role="alert" data-testid="builtin-error">
          {error}
        </div>
      )}
    </div>
  );
}
