//! Spending limits in the window: Settings' `[limits]`, the meter's status of a session, and
//! raising a limit for one session where it stopped a turn. The engine decides (`agent::spend`);
//! this only reads and writes the settings and reaches the running sessions.

use crate::commands::{CmdResult, blocking, invalid};
use crate::session_host::Sessions;
use agent::spend::{SpendOptions, limits_problem};
use config::locations;
use protocol::{RaiseLimitsArgs, SessionArgs, SpendLimits, SpendStatus};
use tauri::{Manager as _, State};

/// The limits new sessions get: the settings', or none when the file cannot be read (its
/// error is shown in Settings).
pub(crate) fn spend_options() -> SpendOptions {
    SpendOptions {
        limits: config::read_settings(&locations::settings_file())
            .map(|s| s.limits)
            .unwrap_or_default(),
        ledger_dir: Some(locations::spend_dir()),
    }
}

#[tauri::command]
pub async fn get_limits() -> CmdResult<SpendLimits> {
    blocking(|| Ok(spend_options().limits)).await
}

/// Keeps the limits in settings.toml; sessions running now get them too.
#[tauri::command]
pub async fn save_limits(args: SpendLimits, app: tauri::AppHandle) -> CmdResult<SpendLimits> {
    if let Some(problem) = limits_problem(&args) {
        return Err(invalid(format!("These limits cannot be kept: {problem}.")));
    }
    blocking(move || {
        let file = locations::settings_file();
        let mut settings = config::read_settings(&file).map_err(|e| {
            invalid(format!(
                "settings.toml cannot be read ({e}); fix it before changing the limits."
            ))
        })?;
        settings.limits = args;
        crate::settings_host::write_settings(&settings)?;
        Ok(())
    })
    .await?;
    for session in app.state::<Sessions>().all() {
        session.set_limits(args);
    }
    Ok(args)
}

/// What the session has spent, today's spending, and its limits (for the meter).
#[tauri::command]
pub async fn spend_status(
    args: SessionArgs,
    sessions: State<'_, Sessions>,
) -> CmdResult<SpendStatus> {
    if let Some(session) = sessions.session(&args.session) {
        return Ok(session.spend_status());
    }
    let path = crate::session_host::log_path(&args.session)?;
    blocking(move || {
        agent::spend_status(&path, spend_options())
            .map_err(|e| invalid(format!("The session's log cannot be read: {e}")))
    })
    .await
}

/// New limits for one session, where a limit stopped it; Retry then goes on.
#[tauri::command]
pub async fn raise_limits(
    args: RaiseLimitsArgs,
    sessions: State<'_, Sessions>,
) -> CmdResult<SpendStatus> {
    if let Some(problem) = limits_problem(&args.limits) {
        return Err(invalid(format!("That limit cannot be used: {problem}.")));
    }
    let session = sessions.session(&args.session).ok_or_else(|| {
        invalid("This session is not running; send a message to go on with the new limits.")
    })?;
    Ok(session.set_limits(args.limits))
}
