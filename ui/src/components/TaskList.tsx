// The agent's plan and the session's background tasks (commands it left running).
import { useState } from "preact/hooks";
import type { PlanStatus } from "../bindings";
import { useSession } from "../session";
import { formatDuration } from "../format";
import { AnsiText } from "./ToolOutput";

const PLAN_ICON: Record<PlanStatus, string> = { pending: "○", in_progress: "◐", done: "●" };
const PLAN_LABEL: Record<PlanStatus, string> = { pending: "To do", in_progress: "In progress", done: "Done" };

export function TaskList() {
  const plan = useSession((s) => s.transcript.plan);
  const tasks = useSession((s) => s.tasks);
  const error = useSession((s) => s.tasksError);
  const stopTask = useSession((s) => s.stopTask);
  const reviewTask = useSession((s) => s.reviewTask);
  // Tasks whose review was asked for, with the count then: the button waits until it comes.
  const [asked, setAsked] = useState<Record<string, number>>({});

  return (
    <div className="task-list" data-testid="task-list">
      <section>
        <h2>Plan</h2>
        {plan && plan.length > 0 ? (
          <ol className="plan">
            {plan.map((item, i) => (
              <li
                key={i}
                className={`plan-item ${item.status}`}
                data-testid="task-item"
                data-kind="plan"
                data-status={item.status}
                title={PLAN_LABEL[item.status]}
              >
                <span className="plan-icon" aria-label={PLAN_LABEL[item.status]}>
                  {PLAN_ICON[item.status]}
                </span>
                <span>{item.text}</span>
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">The agent's plan shows here when it makes one.</p>
        )}
      </section>
      <section>
        <h2>Background tasks</h2>
        {error && (
          <div className="banner error panel-banner" role="alert">
            {error}
          </div>
        )}
        {tasks.length === 0 ? (
          <p className="muted">Commands the agent leaves running (servers, watchers, long builds) show here.</p>
        ) : (
          <ul className="bg-tasks">
            {tasks.map((t) => (
              <li key={t.id} className={t.running ? "bg-task running" : "bg-task"} data-testid="task-item" data-kind="task" data-id={t.id}>
                <div className="bg-task-head">
                  <span className={t.running ? "live-dot" : "live-dot off"} aria-hidden />
                  <span className="bg-task-title" title={t.title}>
                    {t.title}
                  </span>
                  <button
                    className="danger small"
                    data-testid="task-stop"
                    disabled={!t.running}
                    onClick={() => void stopTask(t.id)}
                  >
                    Stop
                  </button>
                </div>
                <div className="bg-task-meta muted">
                  <span data-testid="task-state">{t.state}</span> · {formatDuration(t.runtime_ms)} · {t.kind}
                </div>
                {t.running && t.changes_so_far > 0 && (
                  <div className="bg-task-waiting" data-testid="task-changes-so-far">
                    <p>
                      {t.changes_so_far === 1 ? "1 change" : `${t.changes_so_far} changes`} so far, not in the
                      project yet: you review {t.changes_so_far === 1 ? "it" : "them"} when it ends, or now.
                    </p>
                    <button
                      className="small"
                      data-testid="task-review-now"
                      disabled={asked[t.id] === t.changes_so_far}
                      onClick={() => {
                        setAsked({ ...asked, [t.id]: t.changes_so_far });
                        void reviewTask(t.id);
                      }}
                    >
                      {asked[t.id] === t.changes_so_far ? "Review asked…" : "Review now"}
                    </button>
                  </div>
                )}
                {t.changes_waiting && (
                  <p className="bg-task-waiting" data-testid="task-changes-waiting">
                    Its changes wait for your review: nothing of them is in the project yet.
                  </p>
                )}
                {t.output_tail && (
                  <details className="bg-task-output" open={t.running}>
                    <summary>Output</summary>
                    <AnsiText text={t.output_tail} />
                  </details>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

