//! Desktop notifications, the OS's own: when a question waits and the window is not in front,
//! and when a turn that took over a minute ends. Clicking one brings the window forward on that
//! session. They go through the freedesktop notification service on the session bus
//! (`org.freedesktop.Notifications`, what every Linux desktop runs) rather than Tauri's
//! notification plugin, which cannot tell the app a notification was clicked on Linux.
//! Settings' `[notifications]` turns each kind off.

use config::locations;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tauri::{Emitter as _, Manager as _};
use zbus::blocking::{Connection, Proxy};

const SERVICE: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
/// A turn longer than this gets a notification when it ends.
pub(crate) const LONG_TURN: Duration = Duration::from_secs(60);
/// The window's event that opens a session (a notification was clicked).
pub(crate) const OPEN_SESSION_EVENT: &str = "open-session";

/// Which kind of notification.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Question,
    TurnEnded,
}

struct Bus {
    conn: Connection,
    /// Notification id → the session it is about.
    sessions: Arc<Mutex<HashMap<u32, String>>>,
}

/// Text as a notification body shows it literally: servers may read a little HTML there
/// (`body-markup`), and the body quotes a model's command or path — a `<a href=…>` in it must
/// not become a link.
fn literal(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The connection to the notification service, made at the first notification.
#[derive(Default)]
pub struct Notifier {
    bus: Mutex<Option<Arc<Bus>>>,
}

fn wanted(kind: Kind) -> bool {
    let settings = config::read_settings(&locations::settings_file()).unwrap_or_default();
    match kind {
        Kind::Question => settings.notifications.questions(),
        Kind::TurnEnded => settings.notifications.turns(),
    }
}

/// Brings the window forward and has it open `session`.
fn bring_forward(app: &tauri::AppHandle, session: &str) {
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.unminimize();
        let _ = w.show();
        let _ = w.set_focus();
    }
    let _ = app.emit(OPEN_SESSION_EVENT, session.to_string());
}

impl Notifier {
    fn bus(&self, app: &tauri::AppHandle) -> Option<Arc<Bus>> {
        let mut slot = self.bus.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(b) = slot.as_ref() {
            return Some(b.clone());
        }
        let conn = match Connection::session() {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(%e, "no session bus: desktop notifications are off");
                return None;
            }
        };
        let bus = Arc::new(Bus {
            conn,
            sessions: Arc::default(),
        });
        // Clicks come back as signals, listened to for the app's life. The match is added
        // here, before the first notification is sent: a click on it that came before a
        // listener thread had subscribed would be lost.
        let signals = match Proxy::new(&bus.conn, SERVICE, PATH, SERVICE)
            .and_then(|proxy| proxy.receive_signal("ActionInvoked"))
        {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!(%e, "notification clicks cannot be heard");
                None
            }
        };
        let listen = bus.clone();
        let app = app.clone();
        std::thread::spawn(move || {
            let Some(signals) = signals else { return };
            for msg in signals {
                let Ok((id, _action)) = msg.body().deserialize::<(u32, String)>() else {
                    continue;
                };
                let session = listen
                    .sessions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&id)
                    .cloned();
                if let Some(session) = session {
                    bring_forward(&app, &session);
                }
            }
        });
        *slot = Some(bus.clone());
        Some(bus)
    }

    /// Tells the desktop, unless the window is in front or Settings turned this kind off.
    /// Blocking (D-Bus): call it off the async runtime's threads.
    pub(crate) fn notify(
        &self,
        app: &tauri::AppHandle,
        kind: Kind,
        session: &str,
        summary: &str,
        body: &str,
    ) {
        let in_front = app
            .get_webview_window("main")
            .and_then(|w| w.is_focused().ok())
            .unwrap_or(false);
        if in_front || !wanted(kind) {
            return;
        }
        let Some(bus) = self.bus(app) else {
            return;
        };
        let body = literal(body);
        let sent = Proxy::new(&bus.conn, SERVICE, PATH, SERVICE).and_then(|p| {
            p.call::<_, _, u32>(
                "Notify",
                &(
                    "Tandem",
                    0u32,
                    "",
                    summary,
                    body.as_str(),
                    vec!["default", "Open"],
                    HashMap::<&str, zbus::zvariant::Value<'_>>::new(),
                    -1i32,
                ),
            )
        });
        match sent {
            Ok(id) => {
                bus.sessions
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(id, session.to_string());
            }
            Err(e) => tracing::warn!(%e, "the desktop notification could not be shown"),
        }
    }
}

fn prefs_of(n: &config::NotificationSettings) -> protocol::NotificationPrefs {
    protocol::NotificationPrefs {
        questions: n.questions(),
        turns: n.turns(),
    }
}

#[tauri::command]
pub async fn get_notifications() -> crate::commands::CmdResult<protocol::NotificationPrefs> {
    crate::commands::blocking(|| {
        let settings = config::read_settings(&locations::settings_file()).unwrap_or_default();
        Ok(prefs_of(&settings.notifications))
    })
    .await
}

/// Keeps the choice in settings.toml's `[notifications]`.
#[tauri::command]
pub async fn save_notifications(
    args: protocol::NotificationPrefs,
) -> crate::commands::CmdResult<protocol::NotificationPrefs> {
    crate::commands::blocking(move || {
        let file = locations::settings_file();
        let mut settings = config::read_settings(&file).map_err(|e| {
            crate::commands::invalid(format!(
                "settings.toml cannot be read ({e}); fix it before changing notifications."
            ))
        })?;
        settings.notifications = config::NotificationSettings {
            questions: (!args.questions).then_some(false),
            turns: (!args.turns).then_some(false),
        };
        crate::settings_host::write_settings(&settings)?;
        Ok(prefs_of(&settings.notifications))
    })
    .await
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_body_is_shown_as_written_never_as_markup() {
        assert_eq!(
            super::literal("run_command: echo <a href='x'>hi</a> && ls"),
            "run_command: echo &lt;a href='x'&gt;hi&lt;/a&gt; &amp;&amp; ls"
        );
    }
}
