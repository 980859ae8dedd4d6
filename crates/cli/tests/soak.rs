//! The soak test (issue 26): sessions of `tandem-cli run` on one git project, against the
//! scripted model server, killed at random moments, two or three at once editing their own line
//! of one shared file, restored and undone, and run while the disk is full. After every step:
//! every edit a run reported is on disk, no file is torn and no temporary file is left, every
//! restore brings the project back byte for byte to how it was when that turn began (and its
//! undo to how it was before), and the user's `.git` is unchanged. Issue 47 adds: every session
//! whose log holds a task is found by `tandem-cli sessions --search` (its search file cut short,
//! zeroed or behind after a kill is rebuilt), and the day's spending ledger counts each priced
//! reply once — never a reservation a killed run held, never less than the replies of runs that
//! were not killed.
//!
//! It runs in a user and mount namespace of its own, on a small tmpfs that holds both the
//! project and Tandem's data (as one home partition would), so the disk can really be filled.
//! CI runs a bounded form; `make soak` a longer one (`TANDEM_SOAK_ROUNDS`), writing its counts
//! into docs/benchmarks.md (`TANDEM_SOAK_REPORT`). `TANDEM_SOAK_SEED` replays a run.

use model_server::{Scenario, ScriptedServer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use test_support::git;

const INSIDE: &str = "TANDEM_SOAK_INSIDE";
/// Sessions taking turns on the project; each owns one line of `shared.txt`.
const SESSIONS: usize = 3;
/// What each scripted reply costs: 1,000 prompt tokens of claude-sonnet-4-5 at $3 a million,
/// and the one output token the stream's start reports ($15 a million).
const REPLY_USD: f64 = 0.003 + 0.000_015;

/// Runs the soak inside a namespace where it may mount a disk of its own.
#[test]
fn soak() {
    let exe = std::env::current_exe().expect("the test binary");
    let status = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount"])
        .arg(exe)
        .args(["--exact", "soak_inside", "--ignored", "--nocapture"])
        .env(INSIDE, "1")
        .status()
        .expect("unshare (util-linux) runs");
    assert!(status.success(), "the soak found a problem (see above)");
}

/// A small random number generator: the seed is printed, so a failing run can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

type Tree = BTreeMap<String, Vec<u8>>;

/// Every file of the project but git's and Tandem's own folders.
fn tree(root: &Path) -> Tree {
    let mut out = Tree::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            if rel == ".git" || rel == ".tandem" {
                continue;
            }
            if e.file_type().expect("type").is_dir() {
                dirs.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    out
}

fn shared_text(values: &[u64]) -> String {
    values
        .iter()
        .enumerate()
        .map(|(k, v)| format!("line {k}: {v}\n"))
        .collect()
}

/// The values of `shared.txt`'s lines; panics on a torn or malformed file.
fn shared_values(root: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(root.join("shared.txt")).expect("shared.txt");
    let values: Vec<u64> = text
        .lines()
        .enumerate()
        .map(|(k, l)| {
            l.strip_prefix(&format!("line {k}: "))
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("shared.txt is torn: {text:?}"))
        })
        .collect();
    assert_eq!(values.len(), SESSIONS, "shared.txt is torn: {text:?}");
    assert!(text.ends_with('\n'), "shared.txt is torn: {text:?}");
    values
}

/// What one run was asked to write.
struct Planned {
    session: usize,
    round: u64,
    note_path: String,
    note: String,
}

impl Planned {
    fn new(session: usize, round: u64) -> Planned {
        Planned {
            session,
            round,
            note_path: format!("s{session}/r{round}.txt"),
            note: format!("round {round} of session {session}\n").repeat(40),
        }
    }

    fn task(&self) -> String {
        format!("round {}: soak task", self.round)
    }

    /// The script: write a new file, read the shared one, change its own line, finish.
    fn scenario(&self, current: u64) -> Scenario {
        let k = self.session;
        let json = serde_json::json!({
            "name": "soak",
            "format": "anthropic",
            "turns": [
                {"reply": {"input_tokens": 1000, "tool_calls": [{"id": "w1", "name": "write_file",
                    "input": {"path": self.note_path, "content": self.note}}]}},
                {"reply": {"input_tokens": 1000, "tool_calls": [{"id": "r1", "name": "read_file",
                    "input": {"path": "shared.txt"}}]}},
                {"reply": {"input_tokens": 1000, "tool_calls": [{"id": "e1", "name": "edit_file",
                    "input": {"path": "shared.txt",
                              "old_string": format!("line {k}: {current}\n"),
                              "new_string": format!("line {k}: {}\n", self.round)}}]}},
                {"reply": {"input_tokens": 1000, "tool_calls": [{"id": "d1", "name": "task_done",
                    "input": {"summary": format!("round {}", self.round)}}]}}
            ]
        });
        Scenario::from_json(&json.to_string()).expect("scenario")
    }
}

/// What a run printed and how it ended.
struct Ran {
    planned: Planned,
    killed: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    /// Whether the run reported the tool call `id` as done (not refused, not failed).
    fn reported(&self, id: &str) -> bool {
        self.stdout.lines().any(|l| {
            serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| {
                v["type"] == "tool_finished" && v["id"] == id && v["is_error"] == false
            })
        })
    }
}

#[derive(Default, Debug)]
struct Counts {
    rounds: u64,
    runs: u64,
    kills: u64,
    concurrent_rounds: u64,
    edits_reported: u64,
    edits_refused: u64,
    files_written: u64,
    restores: u64,
    undos: u64,
    full_disk_episodes: u64,
    failed_while_full: u64,
    checks: u64,
    /// Model replies served to any run.
    replies: u64,
    /// Replies served to runs that were neither killed nor run while the disk was full: each
    /// must be in the day's ledger.
    replies_counted: u64,
    /// Search files damaged on purpose after a kill (cut short, zeroed).
    search_files_damaged: u64,
}

struct Soak {
    root: PathBuf,
    disk: PathBuf,
    data: PathBuf,
    cli: PathBuf,
    rng: Rng,
    ids: Vec<Option<String>>,
    /// Turns whose start is known exactly (they ran alone): session, round, the project then.
    turns: Vec<(usize, u64, Tree)>,
    git_before: Tree,
    counts: Counts,
    /// When the disk is full, no run is expected to finish.
    full: bool,
    /// A run of the step just checked was killed.
    killed: bool,
}

impl Soak {
    fn sessions(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.data.join("sessions"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.cli);
        c.env("TANDEM_DATA_DIR", &self.data)
            .env("XDG_CONFIG_HOME", self.data.join("config"))
            .env("ANTHROPIC_API_KEY", "scripted-key")
            .env("TANDEM_NO_KEYCHAIN", "1")
            .stdin(Stdio::null());
        c
    }

    /// Starts runs for these sessions at once, kills some at random moments, and waits.
    async fn run(&mut self, planned: Vec<Planned>, kill_percent: u64) -> Vec<Ran> {
        let before = self.sessions();
        let current = shared_values(&self.root);
        let mut started = Vec::new();
        for p in planned {
            let server = ScriptedServer::start(p.scenario(current[p.session]))
                .await
                .expect("server");
            let mut c = self.command();
            c.args([
                "run",
                "--json",
                "--approve",
                "all",
                "--provider",
                "anthropic",
            ])
            .args([
                "--model",
                "claude-sonnet-4-5",
                "--base-url",
                server.base_url(),
            ])
            .args(["--max-cost", "1000"])
            .arg("--project")
            .arg(&self.root);
            if let Some(id) = &self.ids[p.session] {
                c.args(["--session", id]);
            }
            c.arg(p.task())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let child = c.spawn().expect("spawn tandem-cli");
            let kill_at = self
                .rng
                .chance(kill_percent)
                .then(|| Duration::from_millis(self.rng.below(450)));
            started.push((p, child, kill_at, server));
            self.counts.runs += 1;
        }
        let mut out = Vec::new();
        let t0 = std::time::Instant::now();
        for (p, mut child, kill_at, server) in started {
            let mut killed = false;
            if let Some(at) = kill_at {
                let left = at.saturating_sub(t0.elapsed());
                tokio::time::sleep(left).await;
                if child.try_wait().expect("try_wait").is_none() {
                    child.kill().expect("SIGKILL");
                    killed = true;
                    self.counts.kills += 1;
                }
            }
            let o = tokio::task::spawn_blocking(move || child.wait_with_output())
                .await
                .expect("join")
                .expect("wait");
            // A run killed mid-way, or turned away (its session busy), leaves its script
            // unfinished: what it did is checked from its files and its log. A run that
            // finished followed its script.
            let unasked = server.failures();
            if !killed && o.status.success() {
                assert!(unasked.is_empty(), "{unasked:?}");
            }
            let served = server.requests().len() as u64;
            self.counts.replies += served;
            if !killed && !self.full {
                self.counts.replies_counted += served;
            }
            drop(server);
            out.push(Ran {
                planned: p,
                killed,
                code: o.status.code(),
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            });
        }
        // A session's first run names it; a killed one may have made it without saying.
        let new: Vec<String> = self
            .sessions()
            .into_iter()
            .filter(|s| !before.contains(s))
            .collect();
        for r in &out {
            let k = r.planned.session;
            if self.ids[k].is_some() {
                continue;
            }
            let said = r
                .stderr
                .lines()
                .find_map(|l| l.strip_prefix("session: "))
                .map(str::to_string);
            self.ids[k] = said.or_else(|| (out.len() == 1).then(|| new.first().cloned()).flatten());
        }
        out
    }

    /// What must hold after any step.
    fn check(&mut self, step: &str) {
        self.counts.checks += 1;
        self.check_search(step);
        self.check_ledger(step);
        shared_values(&self.root);
        let t = tree(&self.root);
        // A run killed between writing a changed file whole and renaming it over the old one
        // leaves its temporary name (the rename is what makes the change whole); the next
        // writer in that folder removes it. Only then, and only a dead writer's, is one allowed.
        let temps: Vec<&String> = t
            .keys()
            .filter(|k| k.contains(".tandem-"))
            .filter(|k| !(self.killed && writer_is_gone(k)))
            .collect();
        assert!(temps.is_empty(), "{step}: temporary files left: {temps:?}");
        assert!(
            test_support::projects::git_dir(&self.root) == self.git_before,
            "{step}: the user's .git changed"
        );
    }

    /// Every session whose conversation holds its task (a whole line of its log, in a turn no
    /// restore took back) is found by a search.
    fn check_search(&self, step: &str) {
        let dir = self.data.join("sessions");
        let logged: Vec<String> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let id = name.strip_suffix(".jsonl")?.to_string();
                let text = std::fs::read_to_string(e.path()).ok()?;
                let whole = match text.rfind('\n') {
                    Some(end) => &text[..end],
                    None => "",
                };
                whole.contains("soak task").then_some(id)
            })
            // A restore may have taken every turn with the task out of the conversation: a
            // search rightly leaves those out. And a run killed after its task was received but
            // before the message was logged has a turn with no message to find.
            .filter(|id| {
                let o = self
                    .command()
                    .args(["show", id])
                    .output()
                    .expect("tandem-cli show");
                let log =
                    std::fs::read_to_string(dir.join(format!("{id}.jsonl"))).unwrap_or_default();
                String::from_utf8_lossy(&o.stdout).lines().any(|l| {
                    let asked = l
                        .trim_start()
                        .split_once(". ")
                        .and_then(|(_, rest)| rest.split(" — ").next())
                        .unwrap_or_default();
                    asked.contains("soak task")
                        && !l.contains("taken out of the conversation")
                        && log.lines().any(|e| {
                            e.contains("\"user_message\"")
                                && e.contains(&format!("\"text\":\"{asked}\""))
                        })
                })
            })
            .collect();
        if logged.is_empty() {
            return;
        }
        let o = self
            .command()
            .args(["sessions", "--search", "soak task", "--project"])
            .arg(&self.root)
            .output()
            .expect("tandem-cli sessions");
        let found = String::from_utf8_lossy(&o.stdout);
        for id in &logged {
            assert!(
                found.lines().any(|l| l.starts_with(&format!("{id}\t"))),
                "{step}: session {id} holds the task and a search does not find it\n{found}{}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }

    /// The day's ledger counts every reply of a run that was not killed, and nothing more
    /// than the replies served (a killed run's reservation is never spending).
    fn check_ledger(&self, step: &str) {
        let mut usd = 0.0;
        for e in std::fs::read_dir(self.data.join("spend"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            for line in text.lines() {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                    usd += v["usd"].as_f64().unwrap_or(0.0);
                }
            }
        }
        let c = &self.counts;
        let (low, high) = (
            c.replies_counted as f64 * REPLY_USD,
            c.replies as f64 * REPLY_USD,
        );
        assert!(
            usd >= low - 1e-9 && usd <= high + 1e-9,
            "{step}: the day's ledger says ${usd:.3}; the replies served say ${low:.3}..${high:.3}"
        );
    }

    /// After a kill, what a power cut leaves of a search file: cut short, or zeroed.
    fn damage_search_file(&mut self, session: usize) {
        let Some(id) = self.ids[session].clone() else {
            return;
        };
        let path = self.data.join("sessions").join(format!("{id}.search"));
        let Ok(bytes) = std::fs::read(&path) else {
            return;
        };
        let damaged = if self.rng.chance(50) {
            let keep = self.rng.below(bytes.len() as u64 + 1) as usize;
            bytes[..keep].to_vec()
        } else {
            vec![0; bytes.len()]
        };
        std::fs::write(&path, damaged).expect("damage the search file");
        self.counts.search_files_damaged += 1;
    }

    /// Every edit a run reported is on disk, and nothing it wrote is torn.
    fn check_runs(&mut self, step: &str, runs: &[Ran]) {
        let values = shared_values(&self.root);
        for r in runs {
            let p = &r.planned;
            let note = std::fs::read(self.root.join(&p.note_path)).ok();
            if r.reported("w1") {
                self.counts.files_written += 1;
                assert_eq!(
                    note.as_deref(),
                    Some(p.note.as_bytes()),
                    "{step}: {} was reported written and is not on disk\n{}{}",
                    p.note_path,
                    r.stdout,
                    r.stderr
                );
            } else if let Some(n) = note {
                assert_eq!(n, p.note.as_bytes(), "{step}: {} is torn", p.note_path);
            }
            if r.reported("e1") {
                self.counts.edits_reported += 1;
                assert_eq!(
                    values[p.session], p.round,
                    "{step}: session {}'s edit of shared.txt was reported and is not on disk\n{}{}",
                    p.session, r.stdout, r.stderr
                );
            } else if r.stdout.contains("\"id\":\"e1\"") {
                self.counts.edits_refused += 1;
            }
            if !r.killed && !self.full {
                assert_eq!(
                    r.code,
                    Some(0),
                    "{step}: a run that was not killed failed\n{}{}",
                    r.stdout,
                    r.stderr
                );
            }
        }
        self.killed = runs.iter().any(|r| r.killed);
        self.check(step);
        self.killed = false;
    }

    async fn solo(&mut self, round: u64, kill_percent: u64) {
        let k = self.rng.below(SESSIONS as u64) as usize;
        let start = tree(&self.root);
        let runs = self.run(vec![Planned::new(k, round)], kill_percent).await;
        if runs.iter().any(|r| r.killed) && !self.full && self.rng.chance(50) {
            self.damage_search_file(k);
        }
        self.check_runs(&format!("round {round} (session {k} alone)"), &runs);
        if !self.full {
            self.turns.push((k, round, start));
        }
    }

    async fn concurrent(&mut self, round: u64) {
        self.counts.concurrent_rounds += 1;
        let n = 2 + self.rng.below(SESSIONS as u64 - 1) as usize;
        let first = self.rng.below(SESSIONS as u64) as usize;
        let planned = (0..n)
            .map(|i| Planned::new((first + i) % SESSIONS, round))
            .collect();
        let runs = self.run(planned, 20).await;
        self.check_runs(&format!("round {round} ({n} sessions at once)"), &runs);
    }

    /// The turn's number and whether it has a checkpoint, as `tandem-cli show` lists it.
    fn turn_number(&self, id: &str, round: u64) -> Option<u32> {
        let out = self.command().args(["show", id]).output().expect("show");
        let shown = String::from_utf8_lossy(&out.stdout);
        let task = format!(". round {round}: soak task — ");
        shown.lines().find_map(|l| {
            let (n, rest) = l.trim_start().split_once(". ")?;
            (format!(". {rest}").starts_with(&task) && rest.contains("— checkpoint "))
                .then(|| n.parse().ok())
                .flatten()
        })
    }

    fn restore(&mut self, round: u64) {
        if self.turns.is_empty() {
            return;
        }
        let pick = self.rng.below(self.turns.len() as u64) as usize;
        let (k, turn_round, then) = self.turns[pick].clone();
        let Some(id) = self.ids[k].clone() else {
            return;
        };
        let Some(n) = self.turn_number(&id, turn_round) else {
            return;
        };
        let before = tree(&self.root);
        let files_only = self.rng.chance(50);
        let mut c = self.command();
        c.args(["restore", &id, "--to", &n.to_string()]);
        if files_only {
            c.arg("--files-only");
        }
        let out = c.output().expect("restore");
        let step = format!("round {round}: restore session {k} to turn {n} (round {turn_round})");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let now = tree(&self.root);
        if out.status.success() {
            self.counts.restores += 1;
            assert!(now == then, "{step}: not byte for byte\n{said}");
        } else {
            assert!(self.full, "{step}: failed with room on the disk\n{said}");
            self.counts.failed_while_full += 1;
            // Each file whole: as it was, or as it was to be.
            for (path, bytes) in &now {
                assert!(
                    before.get(path) == Some(bytes) || then.get(path) == Some(bytes),
                    "{step}: {path} is neither before nor after\n{said}"
                );
            }
        }
        self.check(&step);
        if out.status.success() && !self.full && self.rng.chance(50) {
            let out = self
                .command()
                .args(["restore", &id, "--undo"])
                .output()
                .expect("undo");
            let said = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(out.status.success(), "{step}: the undo failed\n{said}");
            assert!(
                tree(&self.root) == before,
                "{step}: the undo is not byte for byte"
            );
            self.counts.undos += 1;
            self.check(&format!("{step}, undone"));
        }
    }

    /// Fills the disk, works on it, frees it.
    async fn full_disk(&mut self, round: u64) {
        self.counts.full_disk_episodes += 1;
        let filler = self.disk.join("filler");
        let mut f = std::fs::File::create(&filler).expect("filler");
        for size in [1 << 20, 4096, 1] {
            let chunk = vec![b'x'; size];
            while std::io::Write::write_all(&mut f, &chunk).is_ok() {}
        }
        drop(f);
        self.full = true;
        self.solo(round, 0).await;
        self.restore(round);
        self.full = false;
        std::fs::remove_file(&filler).expect("free the disk");
        self.check(&format!("round {round}: after the full disk"));
    }

    fn report(&self, seed: u64, rounds: u64) -> String {
        let c = &self.counts;
        format!(
            "| {rounds} | {} | {} | {} | {} | {} ({} refused) | {} | {} | {} | {} ({} restores refused while full) | {} | {} ({} counted for sure) | {} | `{seed}` |",
            SESSIONS,
            c.runs,
            c.kills,
            c.concurrent_rounds,
            c.edits_reported,
            c.edits_refused,
            c.files_written,
            c.restores,
            c.undos,
            c.full_disk_episodes,
            c.failed_while_full,
            c.checks,
            c.replies,
            c.replies_counted,
            c.search_files_damaged,
        )
    }
}

/// Writes the counts between the soak markers of `docs/benchmarks.md`.
fn write_report(path: &Path, row: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let (start, end) = ("<!-- soak:start -->", "<!-- soak:end -->");
    let header = "| rounds | sessions | runs | killed | rounds at once | edits reported (refused) | new files reported | restores | undos | full-disk episodes | checks | priced replies in the ledger | search files damaged | seed |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
    let block = format!("{start}\n{header}\n{row}\n{end}");
    let text = match (text.find(start), text.find(end)) {
        (Some(a), Some(b)) if a < b => format!("{}{block}{}", &text[..a], &text[b + end.len()..]),
        _ => format!("{text}\n## Soak (`make soak`)\n\n{block}\n"),
    };
    std::fs::write(path, text).expect("write the report");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by `soak`, inside a namespace of its own where it can mount a small disk"]
async fn soak_inside() {
    assert!(
        std::env::var_os(INSIDE).is_some(),
        "run through the `soak` test"
    );
    let rounds: u64 = std::env::var("TANDEM_SOAK_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(14);
    let seed: u64 = std::env::var("TANDEM_SOAK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
                | 1
        });
    println!("soak: {rounds} rounds, seed {seed} (TANDEM_SOAK_SEED={seed} replays it)");
    let base = tempfile::tempdir().expect("tempdir");
    let disk = base.path().join("disk");
    std::fs::create_dir(&disk).expect("mkdir");
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=48m", "tmpfs"])
        .arg(&disk)
        .status()
        .expect("mount");
    assert!(mounted.success(), "a tmpfs could not be mounted");
    let root = disk.join("project");
    std::fs::create_dir(&root).expect("mkdir");
    std::fs::write(root.join("shared.txt"), shared_text(&[0; SESSIONS])).expect("write");
    std::fs::write(root.join("README.md"), "# Soak\n").expect("write");
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "start"]);
    let mut soak = Soak {
        git_before: test_support::projects::git_dir(&root),
        root,
        data: disk.join("data"),
        disk,
        cli: PathBuf::from(env!("CARGO_BIN_EXE_tandem-cli")),
        rng: Rng(seed),
        ids: vec![None; SESSIONS],
        turns: Vec::new(),
        counts: Counts::default(),
        full: false,
        killed: false,
    };
    // Every session has a turn before anything is thrown at it.
    for k in 0..SESSIONS {
        let start = tree(&soak.root);
        let runs = soak.run(vec![Planned::new(k, k as u64)], 0).await;
        soak.check_runs(&format!("session {k}'s first turn"), &runs);
        soak.turns.push((k, k as u64, start));
    }
    let first_round = SESSIONS as u64;
    let mut full_done = false;
    for round in first_round..first_round + rounds {
        soak.counts.rounds += 1;
        let last = round + 1 == first_round + rounds;
        match soak.rng.below(100) {
            _ if last && !full_done => {
                soak.full_disk(round).await;
                full_done = true;
            }
            0..40 => soak.solo(round, 40).await,
            40..65 => soak.concurrent(round).await,
            65..90 => soak.restore(round),
            _ => {
                soak.full_disk(round).await;
                full_done = true;
            }
        }
    }
    // Afterwards every session still goes on.
    for k in 0..SESSIONS {
        let round = first_round + rounds + k as u64;
        let runs = soak.run(vec![Planned::new(k, round)], 0).await;
        soak.check_runs(&format!("session {k} after the soak"), &runs);
    }
    let row = soak.report(seed, rounds);
    println!("soak: {:?}", soak.counts);
    if let Some(path) = std::env::var_os("TANDEM_SOAK_REPORT") {
        write_report(Path::new(&path), &row);
    }
}

/// Whether the process that wrote a temporary name (`.NAME.tandem-PID-N.tmp`) has ended.
fn writer_is_gone(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once(".tandem-")
        .and_then(|(_, tail)| tail.split('-').next())
        .and_then(|pid| pid.parse::<u32>().ok())
        .is_some_and(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists())
}
