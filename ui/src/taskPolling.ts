// The session's background tasks, kept fresh for the task list and the transcript's cards.
import { useEffect } from "react";
import { useSession } from "./session";

/** Keeps the session's background tasks fresh while something can change — mounted with the
 * project, not the Tasks tab, since the transcript's cards show how a task ended too. */
export function useTaskPolling() {
  const tasks = useSession((s) => s.tasks);
  const sessionId = useSession((s) => s.current?.id ?? null);
  const turnRunning = useSession((s) => s.runningSession !== null && s.runningSession === s.current?.id);
  const refreshTasks = useSession((s) => s.refreshTasks);
  const anyRunning = tasks.some((t) => t.running);

  useEffect(() => {
    void refreshTasks();
  }, [sessionId, refreshTasks]);

  // Every second while something can change.
  useEffect(() => {
    if (!sessionId || !(turnRunning || anyRunning)) return;
    const timer = setInterval(() => void refreshTasks(), 1000);
    return () => clearInterval(timer);
  }, [sessionId, turnRunning, anyRunning, refreshTasks]);
}
