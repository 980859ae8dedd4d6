//! A command's changes in words, for the model (and for the person reading a task's output).

use protocol::{ChangeClass, ChangeKind, CommandChanges, CommandFileChange, Fate, RunsCodeWhy};

/// What landed, what did not and why; empty when the command changed nothing.
pub fn changes_words(changes: &CommandChanges) -> String {
    let mut text = String::new();
    let landed: Vec<String> = changes
        .files
        .iter()
        .filter(|f| f.fate == Fate::Landed)
        .map(one)
        .collect();
    if !landed.is_empty() {
        text.push_str(&format!(
            "[Its changes, now in the project: {}.]\n",
            landed.join(", ")
        ));
    }
    for out in &changes.ignored {
        let mut parts = Vec::new();
        for (n, what) in [
            (out.added, "added"),
            (out.modified, "changed"),
            (out.deleted, "removed"),
        ] {
            if n > 0 {
                parts.push(format!(
                    "{n} {} {what}",
                    if n == 1 { "file" } else { "files" }
                ));
            }
        }
        text.push_str(&format!(
            "[Output git ignores, under {}: {}; {}.]\n",
            out.path,
            parts.join(", "),
            if out.landed {
                "in the project now"
            } else {
                "not all of it landed"
            }
        ));
    }
    let refused: Vec<&CommandFileChange> = changes
        .files
        .iter()
        .filter(|f| matches!(f.fate, Fate::Refused))
        .collect();
    for f in &refused {
        let why = match &f.class {
            ChangeClass::RunsCode { why } => why_words(*why).to_string(),
            ChangeClass::Git => {
                "git's work lands only with the files it belongs to, and some of them did not land"
                    .to_string()
            }
            ChangeClass::Project => {
                "in Ask mode project files land only with the person's yes (tandem-cli tool: --approve)".to_string()
            }
        };
        text.push_str(&format!(
            "[Not landed: {} ({why}). The project keeps what it had there.]\n",
            one(f)
        ));
    }
    let rejected: Vec<String> = changes
        .files
        .iter()
        .filter(|f| f.fate == Fate::Rejected)
        .map(one)
        .collect();
    if !rejected.is_empty() {
        text.push_str(&format!(
            "[The user reviewed these changes and rejected them, so the project keeps what it had there: {}. Do not make them again unless the user asks; ask what they want instead.]\n",
            rejected.join(", ")
        ));
    }
    let merged: Vec<&str> = changes
        .files
        .iter()
        .filter(|f| f.fate == Fate::Landed && f.merged)
        .map(|f| f.path.as_str())
        .collect();
    if !merged.is_empty() {
        text.push_str(&format!(
            "[The person changed other lines of these files while the command ran; both changes are in them now, merged: {}. Read them again before changing them.]\n",
            merged.join(", ")
        ));
    }
    let conflicts: Vec<String> = changes
        .files
        .iter()
        .filter(|f| f.fate == Fate::Conflict)
        .map(|f| f.path.clone())
        .collect();
    if !conflicts.is_empty() {
        text.push_str(&format!(
            "[Not landed, because the project's copy changed while the command ran, on the same lines or where the two could not be merged (the person's own work is never overwritten): {}. Read them again before changing them.]\n",
            conflicts.join(", ")
        ));
    }
    for f in &changes.files {
        match &f.fate {
            Fate::NotLandable => text.push_str(&format!(
                "[Not made in the project: {} (a FIFO, socket or device; make it at run time instead).]\n",
                f.path
            )),
            Fate::Failed { message } => text.push_str(&format!(
                "[Not landed: {} ({message}). The project keeps what it had there.]\n",
                f.path
            )),
            _ => {}
        }
    }
    text
}

fn one(f: &CommandFileChange) -> String {
    let what = match f.change {
        ChangeKind::Deleted => "deleted",
        ChangeKind::Replaced => "replaced",
        ChangeKind::Created => "created",
        ChangeKind::Modified => "changed",
        ChangeKind::ModeChanged => "permissions changed",
    };
    match (&f.class, f.lines) {
        (ChangeClass::Git, _) => "git's own work (commits, branches, the index)".to_string(),
        (_, Some(l)) if f.change == ChangeKind::Modified => {
            format!("{} {what} (+{} −{})", f.path, l.added, l.removed)
        }
        _ => format!("{} {what}", f.path),
    }
}

/// Why a file that makes a program run code does not land without a yes.
pub fn why_words(why: RunsCodeWhy) -> &'static str {
    match why {
        RunsCodeWhy::GitInternals => {
            "git reads it and would run what it names the next time git is used here"
        }
        RunsCodeWhy::GitRepository => {
            "it is shaped like a git repository, and git run in that folder would obey its settings"
        }
        RunsCodeWhy::Editor => "VS Code runs what it names when the folder is opened",
        RunsCodeWhy::Jetbrains => "JetBrains IDEs run the tasks and tools it names",
        RunsCodeWhy::Direnv => "direnv runs it on entering the folder",
        RunsCodeWhy::Hooks => "git runs the hooks in it on commit and push",
        RunsCodeWhy::Tandem => "it holds Tandem's own rules and settings for this project",
    }
}
