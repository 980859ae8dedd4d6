// Settings → Rules, "Commands in Ask mode": run a command in the sandbox on a copy of the
// project and ask about what it changed (each file as a diff), or ask before every command
// runs. Saved at once; open sessions follow it from their next call. Where this computer cannot run
// commands on a copy, it says so and every command is asked about first; where the open
// project's disk cannot hold a copy, it says that too.
import { useEffect, useState } from "react";
import type { CommandPrefs } from "../bindings";
import { call, toAppError } from "../api";

export function CommandsSetting({ root }: { root: string | null }) {
  const [prefs, setPrefs] = useState<CommandPrefs | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Whether the open project's file system takes a copy (some, like FUSE folders, do not).
  const [projectCopies, setProjectCopies] = useState<boolean | null>(null);
  useEffect(() => {
    call("get_command_prefs")
      .then(setPrefs)
      .catch((err) => setError(toAppError(err).message));
  }, []);
  useEffect(() => {
    setProjectCopies(null);
    if (!root) return;
    let live = true;
    call("project_copies", { root }).then(
      (copies) => live && setProjectCopies(copies),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [root]);

  const choose = async (askFirst: boolean) => {
    if (!prefs) return;
    setError(null);
    try {
      setPrefs(await call("save_command_prefs", { ...prefs, ask_first: askFirst }));
    } catch (err) {
      setError(`Not saved: ${toAppError(err).message}`);
    }
  };

  return (
    <fieldset className="settings-section commands-setting" data-testid="commands-setting">
      <legend>Commands in Ask mode</legend>
      {prefs && !prefs.copies && (
        <p className="banner warn" data-testid="commands-no-copies">
          This computer cannot run commands on a copy of the project, so in Ask mode every command is asked about before
          it runs, and what it changes lands at once. Those changes are found afterwards and shown for review: a change
          you reject is put back.
        </p>
      )}
      {prefs?.copies && projectCopies === false && (
        <p className="banner warn" data-testid="commands-project-no-copies">
          This project is on a kind of disk that cannot hold a copy (such as a network or FUSE folder), so its commands
          change it directly. What they change is found afterwards and shown for review: a change you reject is put back.
        </p>
      )}
      {prefs && (
        <>
          <label className="toggle">
            <input
              type="radio"
              name="commands-ask"
              data-testid="commands-review"
              checked={!prefs.ask_first && prefs.copies}
              disabled={!prefs.copies}
              onChange={() => void choose(false)}
            />
            <span>
              Run them in the sandbox on a copy of the project, then ask about what they changed
              <span className="muted small"> — recommended: you see each file's diff and keep what you want</span>
            </span>
          </label>
          <label className="toggle">
            <input
              type="radio"
              name="commands-ask"
              data-testid="commands-ask-first"
              checked={prefs.ask_first || !prefs.copies}
              disabled={!prefs.copies}
              onChange={() => void choose(true)}
            />
            <span>
              Ask before every command runs
              <span className="muted small"> — what it changes is still shown for your yes</span>
            </span>
          </label>
          <p className="muted small">
            Network access, recursive deletes and your own rules are asked about first either way. Open sessions follow
            this choice from their next command.
          </p>
        </>
      )}
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
