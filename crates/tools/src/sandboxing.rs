//! Commands in the OS sandbox: what a session keeps for it (the helper, its private folders,
//! the home folder's visible part, the secret locations to hide, the project's guard), the
//! spec for one command, and reading a refusal of the sandbox out of a command's output.

use crate::git_places::{git_places, repository_configs};
use crate::project_guard::{Known, ProjectGuard};
use protocol::{DenialKind, SandboxDenial};
use sandbox::{Bind, Guarded, HomeView, Limits, Replacement, SandboxSpec, Shown};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// What a session keeps to sandbox its commands. Clones share the project's guard.
#[derive(Debug, Clone)]
pub struct SandboxSetup {
    /// The `tandem-sandbox` program.
    pub helper: PathBuf,
    /// The helper's own files (outside the project, never seen by commands).
    pub state_dir: PathBuf,
    /// Hidden from every command: the user's keys and credentials, Tandem's configuration
    /// and data, the session bus and keyring sockets.
    pub hidden: Vec<PathBuf>,
    /// The user's home folder: commands see an empty one with only `home_visible` in it.
    pub home: Option<PathBuf>,
    /// What toolchains need of the home folder (`~/.cargo`, `~/.gitconfig` …).
    pub home_visible: Vec<PathBuf>,
    /// Folders that must stay visible at their path although /tmp or the home folder is
    /// replaced (a test's fixtures).
    pub keep_visible: Vec<PathBuf>,
    /// Which files hold secrets (the policy engine's judgement, handed in: this crate does
    /// not depend on the policy).
    pub is_secret: crate::SecretTest,
    /// The places outside the project the rules let commands read (`paths.allow_read`, and
    /// what the person allowed this session), asked at each command: rules change as a
    /// session goes on.
    pub granted_reads: GrantedReads,
    /// How much one command may take.
    pub limits: Limits,
    /// Whether a command that may write runs over a copy-on-write layer of the project, its
    /// changes landed after it ends (the machine can mount unprivileged overlays).
    pub layers: bool,
    /// What the setup learns about projects as commands run (shared by its clones).
    learned: Arc<Learned>,
}

/// The places outside the project the rules let commands read (the policy's judgement, handed
/// in: this crate does not depend on the policy). Absolute paths.
#[derive(Clone)]
pub struct GrantedReads(Arc<dyn Fn() -> Vec<PathBuf> + Send + Sync>);

impl<F: Fn() -> Vec<PathBuf> + Send + Sync + 'static> From<F> for GrantedReads {
    fn from(f: F) -> Self {
        GrantedReads(Arc::new(f))
    }
}

impl Default for GrantedReads {
    fn default() -> Self {
        GrantedReads::from(Vec::new)
    }
}

impl std::fmt::Debug for GrantedReads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GrantedReads")
    }
}

/// What a setup learns about the projects its commands run in.
#[derive(Debug, Default)]
struct Learned {
    /// The project's secret files and repositories, kept current from the first command on.
    guard: Mutex<Option<WatchedProject>>,
    /// Per project: whether its file system takes being the folder below a layer (tried once),
    /// and whether a refusal was told yet.
    layer_tried: Mutex<HashMap<PathBuf, (bool, bool)>>,
}

/// A project and the guard that watches it.
type WatchedProject = (PathBuf, Arc<ProjectGuard>);

impl SandboxSetup {
    /// A setup that hides nothing beyond what the sandbox always hides (`/tmp`, `/run`,
    /// the machine's sockets, the project's secret files); see [`SandboxSetup::hiding`] and
    /// [`SandboxSetup::with_home`].
    pub fn new(
        helper: PathBuf,
        state_dir: PathBuf,
        is_secret: impl Into<crate::SecretTest>,
    ) -> Self {
        SandboxSetup {
            helper,
            state_dir,
            hidden: Vec::new(),
            home: None,
            home_visible: Vec::new(),
            keep_visible: Vec::new(),
            is_secret: is_secret.into(),
            granted_reads: GrantedReads::default(),
            limits: Limits::default(),
            layers: false,
            learned: Arc::default(),
        }
    }

    /// These files and folders are hidden from every command too.
    pub fn hiding(mut self, hidden: Vec<PathBuf>) -> Self {
        self.hidden = hidden;
        self
    }

    /// Commands see `home` empty but for `visible`.
    pub fn with_home(mut self, home: PathBuf, visible: Vec<PathBuf>) -> Self {
        self.home = Some(home);
        self.home_visible = visible;
        self
    }

    /// Commands that may write run over a layer of the project (see [`SandboxSetup::layers`]).
    pub fn with_layers(mut self, layers: bool) -> Self {
        self.layers = layers;
        self
    }

    /// Whether commands in `project` run over a layer: the machine mounts overlays, and the
    /// project's file system takes being the folder below one (overlayfs refuses some). Tried
    /// once per project with a command that does nothing (`tmp`: its temporary folder); where
    /// it is refused, commands run as before layers and their changes are found afterwards.
    pub fn layers_for(&self, project: &Path, tmp: &Path) -> bool {
        if !self.layers {
            return false;
        }
        let mut tried = self
            .learned
            .layer_tried
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((ok, _)) = tried.get(project) {
            return *ok;
        }
        let ok = self.try_layer(project, tmp);
        if !ok {
            tracing::warn!(project = %project.display(), "the project's file system refuses an overlay: its commands run without a layer");
        }
        tried.insert(project.to_path_buf(), (ok, false));
        ok
    }

    /// Whether `project` was found to refuse a layer and that has not been told yet: the
    /// first command that runs without one says why, once.
    pub fn refusal_to_tell(&self, project: &Path) -> bool {
        let mut tried = self
            .learned
            .layer_tried
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match tried.get_mut(project) {
            Some((false, told)) if !*told => {
                *told = true;
                true
            }
            _ => false,
        }
    }

    fn try_layer(&self, project: &Path, tmp: &Path) -> bool {
        let Ok(layer) = crate::CommandLayer::make(&self.state_dir, project) else {
            return false;
        };
        let _ = std::fs::create_dir_all(tmp);
        let mut spec = self.spec(project, tmp, false, false);
        spec.layer = Some(layer.spec());
        spec.guarded.hidden.push(layer.folder().to_path_buf());
        let status = self
            .state_dir
            .join(format!("layer-probe-{}.json", std::process::id()));
        let ran = sandbox::wrap(&self.helper, &spec, &status, "true", Vec::<&str>::new())
            .current_dir(project)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        let report = sandbox::read_report(&status);
        if let Err(e) = layer.discard() {
            tracing::warn!(%e, "could not remove the layer of the project's probe");
        }
        // A helper that did not start says nothing of the project: the command will say why.
        ran.is_err() || !report.layer_refused
    }

    /// These folders stay visible at their path.
    pub fn keeping_visible(mut self, folders: Vec<PathBuf>) -> Self {
        self.keep_visible = folders;
        self
    }

    /// The guard of `project`, started now when it is not yet (reading a big tree takes a
    /// moment: a session starts it early, with [`SandboxSetup::watch`]).
    fn guard(&self, project: &Path) -> Arc<ProjectGuard> {
        let mut slot = self
            .learned
            .guard
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match &*slot {
            Some((p, g)) if p == project => g.clone(),
            _ => {
                let g = ProjectGuard::start(
                    project,
                    &self.state_dir.join("watch-sync"),
                    self.is_secret.clone(),
                );
                *slot = Some((project.to_path_buf(), g.clone()));
                g
            }
        }
    }

    /// Starts reading and watching `project` in the background.
    pub fn watch(&self, project: &Path) {
        let _ = self.guard(project);
    }

    /// The project's secret files and repositories as of now.
    pub fn known(&self, project: &Path) -> Known {
        self.guard(project).current()
    }

    /// The spec for one command in `project`, with `tmp` as its private temporary folder.
    pub fn spec(&self, project: &Path, tmp: &Path, network: bool, read_only: bool) -> SandboxSpec {
        let known = self.known(project);
        self.spec_for(project, tmp, network, read_only, &known, Vec::new(), &[])
    }

    /// Places outside the project one command may read: what the rules grant and what the
    /// person let this command read (`approved`), each as it really is; never a secret.
    pub fn readable_outside(&self, approved: &[PathBuf]) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = (self.granted_reads.0)()
            .into_iter()
            .chain(approved.iter().cloned())
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| !(self.is_secret)(p))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The spec for one command, from what is `known` of the project, showing `binds`, and
    /// letting it read `approved` outside the project (the person said yes to that).
    #[allow(clippy::too_many_arguments)]
    pub fn spec_for(
        &self,
        project: &Path,
        tmp: &Path,
        network: bool,
        read_only: bool,
        known: &Known,
        binds: Vec<Bind>,
        approved: &[PathBuf],
    ) -> SandboxSpec {
        // A hidden folder that holds the project or the temporary folder would hide them too.
        // So would one that holds what the sandbox shows: a test's fake home, a toolchain the
        // home links to elsewhere, the helper's own files.
        let shown: Vec<PathBuf> = self
            .keep_visible
            .iter()
            .cloned()
            .chain(
                self.home_visible
                    .iter()
                    .filter_map(|v| std::fs::canonicalize(v).ok()),
            )
            .chain([self.state_dir.clone()])
            .collect();
        let mut hidden: Vec<PathBuf> = self
            .hidden
            .iter()
            .filter(|h| !project.starts_with(h) && !tmp.starts_with(h))
            .filter(|h| !shown.iter().any(|s| s.starts_with(h)))
            .cloned()
            .collect();
        hidden.extend(known.secrets.iter().cloned());
        let places = git_places(project, &known.repositories);
        // A command that only reads, or that has the network, sees the repository's
        // configuration without the programs it names.
        // Neither ever sees a credential the configuration holds (a token in a remote's URL):
        // a command that writes without the network sees the configuration less those alone.
        let copies = self.state_dir.join("git-config");
        let replaced = if network || read_only {
            repository_configs(project, &copies)
        } else {
            crate::git_places::repository_configs_without_credentials(project, &copies)
        }
        .into_iter()
        .map(|(source, target)| Replacement { source, target })
        .collect();
        let readable = self.readable_outside(approved);
        // The home folder is shown empty: a place in it the rules grant is shown too.
        let mut home_visible = self.home_visible.clone();
        if let Some(home) = &self.home {
            home_visible.extend(readable.iter().filter(|r| r.starts_with(home)).cloned());
        }
        SandboxSpec {
            project: project.to_path_buf(),
            project_writable: !read_only,
            layer: None,
            tmp: tmp.to_path_buf(),
            home: HomeView {
                folder: self.home.clone(),
                visible: home_visible,
                keep_visible: self.keep_visible.clone(),
            },
            guarded: Guarded {
                read_only: places.read_only,
                pinned: places.pinned,
                hidden,
                git_dir: places.git_dir,
            },
            shown: Shown { binds, replaced },
            network,
            readable,
            limits: self.limits,
            cgroup_procs: Vec::new(),
            state_dir: self.state_dir.clone(),
        }
    }

    /// After a command: the repositories it made inside the project (`before` is what was
    /// known when it started) are disabled — their `.git` renamed — so that the user's own git
    /// never runs what their configuration or hooks name. Returns what was done, in words.
    pub fn undo_new_repositories(&self, project: &Path, before: &Known) -> Vec<String> {
        let now = self.known(project);
        let mut done = Vec::new();
        for repo in now.repositories {
            if before.repositories.contains(&repo) {
                continue;
            }
            let shown = repo
                .strip_prefix(project)
                .unwrap_or(&repo)
                .display()
                .to_string();
            let disabled = disabled_name(&repo);
            // A rename never follows a link, and keeps everything the command made.
            match std::fs::rename(&repo, &disabled) {
                Ok(()) => done.push(format!(
                    "{shown} (renamed to {})",
                    disabled
                        .strip_prefix(project)
                        .unwrap_or(&disabled)
                        .display()
                )),
                Err(e) => done.push(format!("{shown} (could not be disabled: {e})")),
            }
        }
        // The renamed entries are gone as repositories.
        let _ = self.known(project);
        done
    }
}

/// `X/.git` → `X/.git-disabled-by-tandem` (numbered when taken).
fn disabled_name(repo: &Path) -> PathBuf {
    let base = repo.with_file_name(".git-disabled-by-tandem");
    if std::fs::symlink_metadata(&base).is_err() {
        return base;
    }
    (2..)
        .map(|n| repo.with_file_name(format!(".git-disabled-by-tandem-{n}")))
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .unwrap_or(base)
}

const FILE_REFUSALS: &[&str] = &[
    "permission denied",
    "read-only file system",
    "operation not permitted",
    "eacces",
    "erofs",
];
const NETWORK_REFUSALS: &[&str] = &[
    "network is unreachable",
    "could not resolve host",
    "couldn't resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "no address associated with hostname",
    "getaddrinfo",
    "enetunreach",
    "eai_again",
    "failed to resolve",
];

/// Whether a failed command's output shows the sandbox refusing it: a file it may not touch,
/// or the network it does not have. The kernel tells the command, not us, so its own words
/// are all there is to go on.
pub fn sandbox_denial(output: &str, network: bool) -> Option<SandboxDenial> {
    let shown = |line: &str| line.trim().chars().take(300).collect::<String>();
    for line in output.lines().rev() {
        let lower = line.to_ascii_lowercase();
        if !network && NETWORK_REFUSALS.iter().any(|m| lower.contains(m)) {
            return Some(SandboxDenial {
                kind: DenialKind::Network,
                evidence: shown(line),
            });
        }
        if FILE_REFUSALS.iter().any(|m| lower.contains(m)) {
            return Some(SandboxDenial {
                kind: DenialKind::Files,
                evidence: shown(line),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_read_from_the_output() {
        let d = sandbox_denial(
            "ok\ntouch: cannot touch '/home/x': Permission denied\n",
            false,
        );
        assert_eq!(d.map(|d| d.kind), Some(DenialKind::Files));
        let d = sandbox_denial("curl: (6) Could not resolve host: example.com\n", false);
        assert_eq!(d.map(|d| d.kind), Some(DenialKind::Network));
        assert_eq!(
            sandbox_denial("curl: (6) Could not resolve host: example.com\n", true),
            None
        );
        assert_eq!(sandbox_denial("assertion failed: 1 == 2\n", false), None);
    }
}
