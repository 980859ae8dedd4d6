//! A desktop's notification service, scripted: a private D-Bus session bus (`dbus-daemon`) with
//! `org.freedesktop.Notifications` on it, recording what the app sends and clicking a
//! notification as a person would (the `ActionInvoked` signal).

use crate::TestResult;
use std::collections::HashMap;
use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};

const SERVICE: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";

/// One notification the app sent.
#[derive(Debug, Clone)]
pub struct Sent {
    pub id: u32,
    pub app: String,
    pub summary: String,
    pub body: String,
    pub actions: Vec<String>,
}

struct Server {
    sent: Arc<Mutex<Vec<Sent>>>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &mut self,
        app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, zbus::zvariant::OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let mut sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        let id = sent.len() as u32 + 1;
        sent.push(Sent {
            id,
            app: app_name,
            summary,
            body,
            actions,
        });
        id
    }

    fn get_capabilities(&self) -> Vec<String> {
        vec!["actions".into(), "body".into()]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "scripted".into(),
            "tandem-tests".into(),
            "1".into(),
            "1.2".into(),
        )
    }

    fn close_notification(&self, _id: u32) {}
}

/// The bus and the service on it; the bus stops when this is dropped.
pub struct FakeNotifications {
    daemon: Child,
    /// For the app's `DBUS_SESSION_BUS_ADDRESS`.
    pub address: String,
    conn: zbus::blocking::Connection,
    sent: Arc<Mutex<Vec<Sent>>>,
}

impl FakeNotifications {
    pub fn start() -> TestResult<FakeNotifications> {
        let mut daemon = Command::new("dbus-daemon")
            .args([
                "--session",
                "--nofork",
                "--print-address=1",
                "--address=unix:tmpdir=/tmp",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut line = String::new();
        let out = daemon.stdout.take().ok_or("dbus-daemon has no output")?;
        BufReader::new(out).read_line(&mut line)?;
        let address = line.trim().to_string();
        if address.is_empty() {
            let _ = daemon.kill();
            return Err("dbus-daemon printed no address".into());
        }
        let sent: Arc<Mutex<Vec<Sent>>> = Arc::default();
        let conn = zbus::blocking::connection::Builder::address(address.as_str())?
            .name(SERVICE)?
            .serve_at(PATH, Server { sent: sent.clone() })?
            .build()?;
        Ok(FakeNotifications {
            daemon,
            address,
            conn,
            sent,
        })
    }

    /// What the app sent so far.
    pub fn sent(&self) -> Vec<Sent> {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The person clicks notification `id`.
    pub fn click(&self, id: u32) -> TestResult {
        self.conn.emit_signal(
            None::<&str>,
            PATH,
            SERVICE,
            "ActionInvoked",
            &(id, "default"),
        )?;
        Ok(())
    }
}

impl Drop for FakeNotifications {
    fn drop(&mut self) {
        // SIGTERM: the bus goes away cleanly.
        let _ = Command::new("kill")
            .arg(self.daemon.id().to_string())
            .status();
        let _ = self.daemon.wait();
    }
}
