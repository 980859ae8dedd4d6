// Settings → Notifications: the desktop's own notifications when Tandem needs you and the
// window is not in front. Each kind saves at once when ticked or unticked.
import { useEffect, useState } from "react";
import type { NotificationPrefs } from "../bindings";
import { call, toAppError } from "../api";

const KINDS: Array<{ key: keyof NotificationPrefs; label: string; help: string; testId: string }> = [
  {
    key: "questions",
    label: "When a question waits for me",
    help: "An approval the agent needs while you are in another window. Clicking it brings the session forward.",
    testId: "notify-questions",
  },
  {
    key: "turns",
    label: "When a long task ends",
    help: "A turn that took over a minute finished, failed or stopped at a spending limit.",
    testId: "notify-turns",
  },
];

export function NotificationsTab() {
  const [prefs, setPrefs] = useState<NotificationPrefs | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    call("get_notifications")
      .then(setPrefs)
      .catch((err) => setError(toAppError(err).message));
  }, []);

  const toggle = async (key: keyof NotificationPrefs, on: boolean) => {
    if (!prefs) return;
    setError(null);
    try {
      setPrefs(await call("save_notifications", { ...prefs, [key]: on }));
    } catch (err) {
      setError(`Not saved: ${toAppError(err).message}`);
    }
  };

  return (
    <section className="settings-section notifications" data-testid="notification-settings">
      <p className="muted">Tandem tells your desktop when it needs you and this window is not in front.</p>
      {prefs &&
        KINDS.map(({ key, label, help, testId }) => (
          <label className="toggle notification-kind" key={key}>
            <input type="checkbox" data-testid={testId} checked={prefs[key]} onChange={(e) => void toggle(key, e.target.checked)} />
            <span>
              {label}
              <span className="muted small"> — {help}</span>
            </span>
          </label>
        ))}
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
