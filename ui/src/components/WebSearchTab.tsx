// Settings → Web search: which search service the agent's web_search uses, its key (kept
// with the model keys) and a test search. Saved on its own, at once.
import { useState } from "react";
import type { SearchProviderKind, SettingsView, WebSearchTest } from "../bindings";
import { call, toAppError } from "../api";
import { useApp } from "../store";

type Choice = SearchProviderKind | "off";

const LABEL: Record<Choice, string> = {
  off: "Off — the agent cannot search the web",
  brave: "Brave Search",
  tavily: "Tavily",
  searxng: "SearXNG (a server of your own)",
};

const HELP: Record<Choice, string> = {
  off: "Without a search service, the agent can still read a page you name (web_fetch).",
  brave: "Needs an API key from brave.com/search/api.",
  tavily: "Needs an API key from tavily.com.",
  searxng: "Give the address of your SearXNG server (JSON output must be enabled on it). No key needed.",
};

/** The environment variable a service's key is also read from. */
const KEY_ENV: Record<SearchProviderKind, string> = {
  brave: "BRAVE_API_KEY",
  tavily: "TAVILY_API_KEY",
  searxng: "SEARXNG_API_KEY",
};

export function WebSearchTab({ settings, allowFile }: { settings: SettingsView; allowFile: boolean }) {
  const setSettings = useApp((s) => s.setSettings);
  const saved = settings.web_search;
  const [choice, setChoice] = useState<Choice>(saved?.provider ?? "off");
  const [url, setUrl] = useState(saved?.base_url ?? "");
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState<"test" | "save" | null>(null);
  const [test, setTest] = useState<WebSearchTest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const needsKey = choice === "brave" || choice === "tavily";
  const keyStored = saved !== null && saved.provider === choice && saved.key_source !== null;
  const dirty = choice !== (saved?.provider ?? "off") || url !== (saved?.base_url ?? "") || key !== "";

  const runTest = async () => {
    if (choice === "off") return;
    setBusy("test");
    setTest(null);
    setError(null);
    try {
      setTest(
        await call("test_web_search", {
          provider: choice,
          base_url: url.trim() === "" ? null : url.trim(),
          api_key: key.trim() === "" ? null : key.trim(),
        }),
      );
    } catch (err) {
      setError(toAppError(err).message);
    } finally {
      setBusy(null);
    }
  };

  const save = async () => {
    setBusy("save");
    setError(null);
    setNote(null);
    try {
      // The key first: a key that cannot be stored saves nothing, and says so.
      if (choice !== "off" && needsKey && key.trim() !== "") {
        await call("set_api_key", { provider: "web_search", key: key.trim(), allow_file: allowFile });
      }
      const view = await call("save_web_search", {
        provider: choice === "off" ? null : choice,
        base_url: choice === "searxng" && url.trim() !== "" ? url.trim() : null,
      });
      setSettings(view);
      setKey("");
      setNote(choice === "off" ? "Web search is off." : `Saved: the agent searches with ${LABEL[choice]}.`);
    } catch (err) {
      setError(`Not saved: ${toAppError(err).message}`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="settings-section web-search" data-testid="web-search-settings">
      <p className="muted">
        The agent can search the web when a task needs it (documentation, an error message). Choose the search service
        it uses; each search still follows your rules for the network.
      </p>
      <label className="field">
        <span>Search service</span>
        <select
          data-testid="web-search-provider"
          value={choice}
          onChange={(e) => {
            setChoice(e.target.value as Choice);
            setTest(null);
          }}
        >
          {(Object.keys(LABEL) as Choice[]).map((c) => (
            <option key={c} value={c}>
              {LABEL[c]}
            </option>
          ))}
        </select>
      </label>
      <p className="muted small">{HELP[choice]}</p>
      {choice === "searxng" && (
        <label className="field">
          <span>Server address</span>
          <input
            data-testid="web-search-url"
            value={url}
            placeholder="http://127.0.0.1:8888"
            onChange={(e) => setUrl(e.target.value)}
            spellCheck={false}
          />
        </label>
      )}
      {needsKey && (
        <label className="field">
          <span>API key</span>
          <input
            data-testid="web-search-key"
            type="password"
            value={key}
            autoComplete="off"
            placeholder={keyStored ? `Stored (${saved?.key_source ?? ""}); type to replace it` : "Paste the key here"}
            onChange={(e) => setKey(e.target.value)}
          />
        </label>
      )}
      {needsKey && !keyStored && (
        <p className="muted small">It can also come from the environment variable {KEY_ENV[choice]}.</p>
      )}
      <div className="web-search-actions">
        <button data-testid="web-search-test" disabled={choice === "off" || busy !== null} onClick={() => void runTest()}>
          {busy === "test" ? "Searching…" : "Test with a search"}
        </button>
        <button className="primary" data-testid="web-search-save" disabled={!dirty || busy !== null} onClick={() => void save()}>
          {busy === "save" ? "Saving…" : "Save"}
        </button>
      </div>
      {test && (
        <div
          className={test.ok ? "banner ok" : "banner error"}
          role={test.ok ? "status" : "alert"}
          data-testid="web-search-result"
          data-ok={test.ok}
        >
          <span>{test.message}</span>
          {test.titles.length > 0 && (
            <ul>
              {test.titles.map((t, i) => (
                <li key={i}>{t}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {error && (
        <div className="banner error" role="alert" data-testid="web-search-error">
          {error}
        </div>
      )}
      {note && !dirty && (
        <p className="muted" data-testid="web-search-saved">
          {note}
        </p>
      )}
    </section>
  );
}
