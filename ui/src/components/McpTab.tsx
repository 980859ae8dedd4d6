// Settings → Tool servers: the MCP servers of the open project and the user's, as Rust runs
// them — each one's state, what it runs and where, its tools, and when it failed, its last
// stderr lines. A project's server waits for the user's approval before anything starts. The
// user adds a server of their own (a command line or an address; Rust splits and checks it) and
// removes their own.
import { useCallback, useEffect, useState } from "react";
import type { McpServerView, McpState, McpView, NewMcpServerInput } from "../bindings";
import { call, toAppError } from "../api";
import { originWords } from "./SkillsTab";

/** How often the tab asks again while a server is starting. */
const POLL_MS = 1000;

const STATE_WORDS: Record<McpState, string> = {
  needs_approval: "Waiting for your approval",
  disabled: "Turned off",
  starting: "Starting…",
  running: "Running",
  failed: "Failed",
};

function confinementWords(s: McpServerView): string {
  if (!s.local) return "A server on the network (streamable HTTP)";
  return s.network ? "Runs in the sandbox, with the network" : "Runs in the sandbox, without the network";
}

/** A Remove button that asks once more, in place. */
function RemoveServer({ name, busy, onRemove }: { name: string; busy: boolean; onRemove: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button className="link-button" data-testid="mcp-remove" disabled={busy} onClick={() => setAsking(true)}>
        Remove
      </button>
    );
  return (
    <div className="banner warn extension-confirm" data-testid="mcp-remove-question">
      <span>Remove the server {name} from your mcp.json? It stops, and sessions no longer have its tools.</span>
      <button className="danger" data-testid="mcp-remove-confirm" disabled={busy} onClick={onRemove}>
        Remove
      </button>
      <button data-testid="mcp-remove-cancel" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </div>
  );
}

/** The form that adds a server to the user's own mcp.json. */
function AddServer({ busy, onAdd }: { busy: boolean; onAdd: (name: string, server: NewMcpServerInput) => Promise<boolean> }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [kind, setKind] = useState<NewMcpServerInput["kind"]>("program");
  const [commandLine, setCommandLine] = useState("");
  const [network, setNetwork] = useState(false);
  const [url, setUrl] = useState("");
  if (!open)
    return (
      <button data-testid="mcp-add" disabled={busy} onClick={() => setOpen(true)}>
        Add a tool server…
      </button>
    );
  const server: NewMcpServerInput = kind === "program" ? { kind, command_line: commandLine, network } : { kind, url };
  const ready = name.trim() !== "" && (kind === "program" ? commandLine.trim() !== "" : url.trim() !== "");
  const submit = async () => {
    if (await onAdd(name.trim(), server)) {
      setOpen(false);
      setName("");
      setCommandLine("");
      setUrl("");
      setNetwork(false);
    }
  };
  return (
    <form
      className="extension-add"
      data-testid="mcp-add-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) void submit();
      }}
    >
      <label>
        Name
        <input data-testid="mcp-add-name" value={name} placeholder="memory" onChange={(e) => setName(e.target.value)} />
      </label>
      <fieldset className="extension-add-kind">
        <label>
          <input type="radio" name="mcp-kind" data-testid="mcp-add-kind-program" checked={kind === "program"} onChange={() => setKind("program")} />
          A program on this computer
        </label>
        <label>
          <input type="radio" name="mcp-kind" data-testid="mcp-add-kind-address" checked={kind === "address"} onChange={() => setKind("address")} />
          An address (streamable HTTP)
        </label>
      </fieldset>
      {kind === "program" ? (
        <>
          <label>
            Command line
            <input
              data-testid="mcp-add-command"
              value={commandLine}
              placeholder="npx -y @modelcontextprotocol/server-memory"
              spellCheck={false}
              onChange={(e) => setCommandLine(e.target.value)}
            />
          </label>
          <label className="toggle">
            <input type="checkbox" data-testid="mcp-add-network" checked={network} onChange={(e) => setNetwork(e.target.checked)} />
            It needs the network (its sandbox lets it reach the internet)
          </label>
        </>
      ) : (
        <label>
          Address
          <input data-testid="mcp-add-url" value={url} placeholder="https://example.com/mcp" spellCheck={false} onChange={(e) => setUrl(e.target.value)} />
        </label>
      )}
      <p className="muted small">
        Added to your own mcp.json, for all your projects. A program runs in the sandbox; each use of one of its tools still
        asks you first.
      </p>
      <div className="extension-add-actions">
        <button type="submit" className="primary" data-testid="mcp-add-submit" disabled={busy || !ready}>
          Add and start
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function ServerCard({
  server,
  busy,
  onApprove,
  onRestart,
  onRemove,
}: {
  server: McpServerView;
  busy: boolean;
  onApprove: () => void;
  onRestart: () => void;
  onRemove: () => void;
}) {
  const s = server;
  return (
    <li className={`extension-card mcp-card-${s.state}`} data-testid="mcp-server" data-name={s.name} data-state={s.state}>
      <div className="extension-head">
        <strong className="extension-name">{s.name}</strong>
        <span className="extension-origin">{originWords(s.origin)}</span>
        <span className="spacer" />
        <span className={`mcp-state ${s.state}`} data-testid="mcp-state">
          {STATE_WORDS[s.state]}
          {s.state === "running" && s.restarts > 0 ? ` (started again ${s.restarts}×)` : ""}
        </span>
      </div>
      <div className="extension-target">
        <code title={s.target}>{s.target}</code>
        <span className="muted small">{confinementWords(s)}</span>
      </div>
      {s.message && <p className="extension-message">{s.message.charAt(0).toUpperCase() + s.message.slice(1)}.</p>}
      {s.state === "needs_approval" && (
        <div className="banner warn mcp-approval">
          <span>
            This server comes from the project's files. Approving it lets Tandem start <code>{s.target}</code> for this
            project{s.local ? ", in the sandbox" : ""}; each of its tools still asks you before it is used.
          </span>
          <button className="primary" data-testid="mcp-approve" disabled={busy} onClick={onApprove}>
            Approve and start
          </button>
        </div>
      )}
      {s.tools.length > 0 && (
        <ul className="extension-tools" data-testid="mcp-tools">
          {s.tools.map((t) => (
            <li key={t.name} data-testid="mcp-tool" data-name={t.name}>
              <span className="extension-tool-name">{t.name}</span>
              {t.description && <> — {t.description}</>}
            </li>
          ))}
        </ul>
      )}
      {s.state !== "running" && s.stderr.length > 0 && (
        <details className="mcp-stderr" open={s.state === "failed"}>
          <summary>Its last words (standard error)</summary>
          <pre data-testid="mcp-stderr">{s.stderr.join("\n")}</pre>
        </details>
      )}
      {s.state === "failed" && (
        <div>
          <button data-testid="mcp-restart" disabled={busy} onClick={onRestart}>
            Start again
          </button>
        </div>
      )}
      {s.origin === "user" && <RemoveServer name={s.name} busy={busy} onRemove={onRemove} />}
    </li>
  );
}

export function McpTab({ root }: { root: string | null }) {
  const [view, setView] = useState<McpView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [tick, setTick] = useState(0);

  const load = useCallback(
    async (r: string) => {
      try {
        setView(await call("mcp_view", { root: r }));
      } catch (err) {
        setError(`The tool servers could not be read: ${toAppError(err).message}`);
      }
    },
    [],
  );
  useEffect(() => {
    if (root) void load(root);
  }, [root, load, tick]);
  // While a server starts, look again: Rust says when it runs or failed.
  const starting = view?.servers.some((s) => s.state === "starting") ?? false;
  useEffect(() => {
    if (!starting) return;
    const t = setTimeout(() => setTick((n) => n + 1), POLL_MS);
    return () => clearTimeout(t);
  }, [starting, view]);

  if (!root) return <p className="muted">Open a project to see its tool servers.</p>;
  if (!view && error) return <div className="banner error" role="alert">{error}</div>;
  if (!view) return <p className="muted">Looking for tool servers…</p>;

  const change = async (run: () => Promise<McpView>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      setView(await run());
      return true;
    } catch (err) {
      setError(toAppError(err).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const act = (command: "approve_mcp_server" | "restart_mcp_server" | "remove_mcp_server", name: string) =>
    void change(() => call(command, { root, name }));
  const add = (name: string, server: NewMcpServerInput) => change(() => call("add_mcp_server", { root, name, server }));

  return (
    <section className="settings-section extensions" data-testid="mcp-settings">
      <p className="muted">
        Tool servers (MCP) give the agent tools from other programs. Each use of one of their tools asks you first, unless
        you allow that tool; what they return is treated as data, never as instructions. A server from the project's own
        files starts only after you approve it.
      </p>
      <AddServer busy={busy} onAdd={add} />
      {error && (
        <div className="banner error" role="alert" data-testid="mcp-error">
          {error}
        </div>
      )}
      {view.problems.map((p) => (
        <div key={`${p.file}:${p.error}`} className="banner error" role="alert" data-testid="mcp-problem">
          <span>
            <code>{p.file}</code>: {p.error}
          </span>
        </div>
      ))}
      {view.servers.length === 0 ? (
        <div className="muted" data-testid="no-mcp">
          <p>
            No tool servers. Add one above, or write them into <code>{view.user_file}</code> (yours) or{" "}
            <code>{view.project_file}</code> (this project), in the common format:
          </p>
          <pre className="extension-example">{`{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "network": true}}}`}</pre>
        </div>
      ) : (
        <ul className="extension-list" data-testid="mcp-list">
          {view.servers.map((s) => (
            <ServerCard
              key={s.name}
              server={s}
              busy={busy}
              onApprove={() => act("approve_mcp_server", s.name)}
              onRestart={() => act("restart_mcp_server", s.name)}
              onRemove={() => act("remove_mcp_server", s.name)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
