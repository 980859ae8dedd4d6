// Settings → Skills: the skills of the open project and the user's own, as Rust found them —
// where each comes from, what activates it, its tools and what they run — each with a switch to
// turn it off, and the broken ones with their file and what is wrong. The user adds a skill by
// picking its folder (Rust checks it and copies it into their own skills) and removes their own.
import { useEffect, useState } from "react";
import type { SkillView, SkillsView } from "../bindings";
import { call, toAppError } from "../api";
import { pickSkillFolder } from "../pickFolder";

/** Where a skill comes from, in words. */
export function originWords(origin: SkillView["origin"]): string {
  return origin === "project" ? "This project" : "Yours (all projects)";
}

/** A Remove button that asks once more, in place: removing deletes the skill's copied folder. */
function RemoveSkill({ skill, busy, onRemove }: { skill: SkillView; busy: boolean; onRemove: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button className="link-button" data-testid="skill-remove" disabled={busy} onClick={() => setAsking(true)}>
        Remove
      </button>
    );
  return (
    <div className="banner warn extension-confirm" data-testid="skill-remove-question">
      <span>
        Remove the skill {skill.name}? Its folder in your skills is deleted; sessions opened afterwards no longer have it.
      </span>
      <button className="danger" data-testid="skill-remove-confirm" disabled={busy} onClick={onRemove}>
        Remove
      </button>
      <button data-testid="skill-remove-cancel" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </div>
  );
}

function SkillCard({
  skill,
  busy,
  onToggle,
  onRemove,
}: {
  skill: SkillView;
  busy: boolean;
  onToggle: (on: boolean) => void;
  onRemove: () => void;
}) {
  return (
    <li className={`extension-card${skill.enabled ? "" : " off"}`} data-testid="skill-card" data-name={skill.name} data-enabled={skill.enabled}>
      <div className="extension-head">
        <strong className="extension-name">{skill.name}</strong>
        <span className="extension-origin" data-testid="skill-origin">
          {originWords(skill.origin)}
        </span>
        <span className="spacer" />
        <label className="toggle">
          <input
            type="checkbox"
            data-testid="skill-toggle"
            checked={skill.enabled}
            disabled={busy}
            onChange={(e) => onToggle(e.target.checked)}
          />
          {skill.enabled ? "On" : "Off"}
        </label>
      </div>
      <p className="extension-description">{skill.description}</p>
      <dl className="extension-facts">
        <dt>Activates when your task mentions</dt>
        <dd>
          {skill.triggers.length === 0 ? (
            <span className="muted">nothing by itself: the agent can activate it when it needs it</span>
          ) : (
            <ul className="model-chips">
              {skill.triggers.map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Tools</dt>
        <dd>
          {skill.tools.length === 0 ? (
            <span className="muted">none{skill.has_instructions ? " (instructions only)" : ""}</span>
          ) : (
            <ul className="extension-tools">
              {skill.tools.map((t) => (
                <li key={t.name} data-testid="skill-tool" data-name={t.name}>
                  <span className="extension-tool-name">{t.name}</span> — {t.description}
                  <code className="extension-run" title="What it runs; each {{value}} is one whole argument, never shell text">
                    {t.run.join(" ")}
                  </code>
                </li>
              ))}
            </ul>
          )}
        </dd>
        {skill.has_instructions && (
          <>
            <dt>Instructions</dt>
            <dd>SKILL.md joins the agent's instructions while the skill is active.</dd>
          </>
        )}
      </dl>
      <span className="extension-file muted small" title={skill.file}>
        {skill.file}
      </span>
      {skill.origin === "user" && <RemoveSkill skill={skill} busy={busy} onRemove={onRemove} />}
    </li>
  );
}

export function SkillsTab({ root }: { root: string | null }) {
  const [view, setView] = useState<SkillsView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  useEffect(() => {
    if (!root) return;
    let live = true;
    call("skills_view", { root })
      .then((v) => live && setView(v))
      .catch((err: unknown) => live && setError(`The skills could not be read: ${toAppError(err).message}`));
    return () => {
      live = false;
    };
  }, [root]);
  if (!root) return <p className="muted">Open a project to see its skills.</p>;
  if (!view && error) return <div className="banner error" role="alert">{error}</div>;
  if (!view) return <p className="muted">Looking for skills…</p>;

  const act = async (name: string, change: () => Promise<SkillsView>) => {
    setBusy(name);
    setError(null);
    try {
      setView(await change());
    } catch (err) {
      setError(toAppError(err).message);
    } finally {
      setBusy(null);
    }
  };
  const toggle = (skill: SkillView, enabled: boolean) =>
    act(skill.name, () => call("set_skill_enabled", { root, name: skill.name, enabled }));
  const remove = (skill: SkillView) => act(skill.name, () => call("remove_skill", { root, name: skill.name }));
  const add = async () => {
    const folder = await pickSkillFolder().catch(() => null);
    if (folder) await act("", () => call("add_skill", { root, folder }));
  };

  return (
    <section className="settings-section extensions" data-testid="skills-settings">
      <div className="extension-intro">
        <p className="muted">
          A skill adds tools for one kind of task. It becomes active when your task mentions one of its triggers, or when
          the agent asks for it. What its tools run is still judged by your rules, asked about when they say so, and run
          in the sandbox.
        </p>
        <button data-testid="skill-add" disabled={busy !== null} onClick={() => void add()}>
          Add a skill…
        </button>
      </div>
      {error && (
        <div className="banner error" role="alert" data-testid="skill-error">
          {error}
        </div>
      )}
      {view.problems.length > 0 && (
        <div className="banner error" role="alert">
          <span>
            {view.problems.length === 1 ? "One skill could not be loaded" : `${view.problems.length} skills could not be loaded`}{" "}
            and {view.problems.length === 1 ? "is" : "are"} skipped:
          </span>
          <ul>
            {view.problems.map((p) => (
              <li key={p.file} data-testid="skill-problem" data-file={p.file}>
                <code>{p.file}</code>: {p.error}
              </li>
            ))}
          </ul>
        </div>
      )}
      {view.skills.length === 0 ? (
        <p className="muted" data-testid="no-skills">
          No skills yet. A skill is a folder with a <code>skill.json</code>: add one with “Add a skill…” (it is copied into{" "}
          <code>{view.user_dir}</code>, for all your projects), or keep it in <code>{view.project_dir}</code> for this
          project.
        </p>
      ) : (
        <ul className="extension-list" data-testid="skill-list">
          {view.skills.map((s) => (
            <SkillCard
              key={`${s.origin}:${s.name}`}
              skill={s}
              busy={busy !== null}
              onToggle={(on) => void toggle(s, on)}
              onRemove={() => void remove(s)}
            />
          ))}
        </ul>
      )}
      <p className="muted small">
        Skills are looked for in <code>{view.project_dir}</code> and <code>{view.user_dir}</code>. A change there applies
        to sessions opened afterwards.
      </p>
    </section>
  );
}
