//! `tandem-cli restore ID --to N [--files-only|--conversation-only] [--dry-run]`: a session's
//! project brought back to how it was when turn N began (its files, its conversation, or
//! both), as the window's "Restore to here" does; `--undo` undoes the last restore.

use agent::{OfflineSession, RestoreRequest};
use anyhow::Result;
use clap::{ArgGroup, Args};
use protocol::{
    NotRestorableReason, RestoreAction, RestorePreview, RestoreRecord, RestoreScope, RestoreTarget,
};
use std::process::ExitCode;
use tools::path_text;

#[derive(Args)]
#[command(group(ArgGroup::new("when").required(true).args(["to", "undo"])))]
pub struct RestoreArgs {
    /// The session (`tandem-cli sessions` lists them).
    id: String,
    /// The turn to go back to, numbered from 1 as `tandem-cli show ID` lists them: the project
    /// as it was when that turn began (`--to 1`: the session's start).
    #[arg(long)]
    to: Option<u32>,
    /// Undo the last restore.
    #[arg(long, conflicts_with_all = ["files_only", "conversation_only"])]
    undo: bool,
    /// Only the files; the conversation goes on.
    #[arg(long, conflicts_with = "conversation_only")]
    files_only: bool,
    /// Only the conversation; the files stay as they are.
    #[arg(long)]
    conversation_only: bool,
    /// Show what would change, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the preview (with --dry-run) or what was done as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Why a file stays as it is, in words.
fn reason_words(r: NotRestorableReason) -> &'static str {
    match r {
        NotRestorableReason::OutsideGit => {
            "a command changed it, and outside a git repository what it held before is not known"
        }
        NotRestorableReason::GitIgnored => "git ignores it (build output), so it is not kept",
        NotRestorableReason::GitFilter => {
            "git converts it on checkout, so its bytes before are not known exactly"
        }
        NotRestorableReason::Unreadable => {
            "it could not be read when the checkpoint was made, so what it held then is not known"
        }
        NotRestorableReason::TooLarge => "it is too big to keep (over 100 MB)",
        NotRestorableReason::NotTracked => {
            "it changed while Tandem was not watching, and what it held before is not known"
        }
        NotRestorableReason::FolderInTheWay => "a folder is in the way",
        NotRestorableReason::CopyMissing => "its saved copy is missing",
        NotRestorableReason::WriteFailed => "it could not be written",
        NotRestorableReason::NotCopied => {
            "git did not track it and, with so many such files, only those the agent changes are copied; it changed another way"
        }
    }
}

fn scope_words(s: RestoreScope) -> &'static str {
    match s {
        RestoreScope::Both => "files and conversation",
        RestoreScope::FilesOnly => "files only",
        RestoreScope::ConversationOnly => "conversation only",
    }
}

fn print_preview(p: &RestorePreview) {
    let what = match p.turn {
        Some(1) => "the session's start (turn 1)".to_string(),
        Some(n) => format!("when turn {n} began"),
        None => "before the last restore".to_string(),
    };
    println!("Restoring to {what} — {}:", scope_words(p.scope));
    if p.scope.files() {
        if p.files.is_empty() {
            println!("  no file changes");
        }
        for f in &p.files {
            let action = match f.action {
                RestoreAction::Modify => "modify",
                RestoreAction::Create => "create",
                RestoreAction::Delete => "delete",
            };
            let counts = if f.binary {
                " (not text)".to_string()
            } else {
                format!(" (+{} −{})", f.added_lines, f.removed_lines)
            };
            let whose = if f.not_by_agent {
                " — not the agent's change (yours, or another program's)"
            } else {
                ""
            };
            println!("  {action:<7} {}{counts}{whose}", path_text::shown(&f.path));
        }
        for n in &p.not_restorable {
            println!(
                "  kept as is: {} — {}",
                path_text::shown(&n.path),
                reason_words(n.reason)
            );
        }
        if p.git {
            println!("  (git-ignored files, such as build outputs, are never restored)");
        } else {
            println!(
                "  (not a git repository: only the agent's own edits come back, not what commands changed)"
            );
        }
    }
    if p.scope.conversation() {
        match p.turns_removed {
            0 => println!("  the conversation keeps every turn"),
            1 => println!("  the conversation loses 1 turn"),
            n => println!("  the conversation loses {n} turns"),
        }
    }
    for t in &p.stops_tasks {
        println!("  stops the background task: {t}");
    }
}

/// What was done; `failed` is how many files the preview promised that could not be written.
fn print_done(id: &str, r: &RestoreRecord, failed: usize) {
    if r.scope.files() {
        let n = r.files.len();
        if failed == 0 {
            println!("Restored {n} file{}.", if n == 1 { "" } else { "s" });
        } else {
            let (keeps, holds) = if failed == 1 {
                ("keeps", "it holds")
            } else {
                ("keep", "they hold")
            };
            println!(
                "Restored {n} of {} files: {failed} could not be written and {keeps} what {holds} now.",
                n + failed,
            );
        }
    }
    if r.scope.conversation() {
        println!("The conversation is back to where it was.");
    }
    println!("Undo: tandem-cli restore {id} --undo");
}

pub fn run(a: RestoreArgs) -> Result<ExitCode> {
    let mut session = OfflineSession::open(&config::locations::sessions_dir(), &a.id)?;
    let entries = session.entries()?;
    let request = if a.undo {
        let last = agent::last_restore(&entries).ok_or(agent::RestoreError::NothingToUndo)?;
        RestoreRequest {
            target: RestoreTarget::Checkpoint {
                id: last.undo_checkpoint,
            },
            scope: last.scope,
            paths: None,
        }
    } else {
        let turn = a.to.unwrap_or(1);
        RestoreRequest {
            target: RestoreTarget::Checkpoint {
                id: agent::turn_checkpoint(&entries, turn)?,
            },
            scope: if a.files_only {
                RestoreScope::FilesOnly
            } else if a.conversation_only {
                RestoreScope::ConversationOnly
            } else {
                RestoreScope::Both
            },
            paths: None,
        }
    };
    let preview = session.preview(&request)?;
    if a.dry_run {
        if a.json {
            println!("{}", serde_json::to_string(&preview)?);
        } else {
            print_preview(&preview);
            println!("Nothing was changed (--dry-run).");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !a.json {
        print_preview(&preview);
    }
    let record = session.restore(&request)?;
    let failed: Vec<&protocol::NotRestorable> = record
        .not_restorable
        .iter()
        .filter(|n| !preview.not_restorable.contains(n))
        .collect();
    if a.json {
        println!("{}", serde_json::to_string(&record)?);
    } else {
        for n in &failed {
            println!(
                "  not restored: {} — {}",
                path_text::shown(&n.path),
                reason_words(n.reason)
            );
        }
        print_done(&a.id, &record, failed.len());
    }
    // A restore that left files it promised to bring back is not a success for a script.
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
