//! Drives a real `Session` against the scripted model server, as a front end does: a task
//! collects every event and answers each question as the test says a user would. Compiled once
//! for every suite of the engine (it was pulled by `#[path]` into seven test binaries).

use agent::{AgentConfig, Sandboxing, Session, SessionOptions, engine_error};
use config::ResolvedModel;
use llm::{Provider, ProviderConfig, ProviderKind, RetryPolicy};
use model_server::{Format, Scenario, ScriptedServer};
use policy::Mode;
use protocol::{AgentEvent, ApprovalAnswer, ApprovalRequest, FailureCode, TurnOutcome};
use std::future::ready;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use test_support::wait_until;

pub fn scenario(name: &str) -> Scenario {
    Scenario::named(name)
}

/// A scenario file with `@NAME@` placeholders filled in.
pub fn scenario_with(name: &str, vars: &[(&str, String)]) -> Scenario {
    Scenario::named_with(name, vars)
}

/// The question an event asks, wherever in the tree of agents it comes from.
pub fn question(e: &AgentEvent) -> Option<&ApprovalRequest> {
    match e {
        AgentEvent::ApprovalNeeded { request } => Some(request),
        AgentEvent::Subagent { event, .. } => question(event),
        _ => None,
    }
}

pub type Answerer = Arc<dyn Fn(&ApprovalRequest) -> ApprovalAnswer + Send + Sync>;

pub struct Harness {
    pub session: Session,
    pub server: ScriptedServer,
    pub events: Arc<Mutex<Vec<AgentEvent>>>,
    pub questions: Arc<Mutex<Vec<ApprovalRequest>>>,
    pub sessions_dir: PathBuf,
    _sessions: Option<tempfile::TempDir>,
}

/// What a test sets of its session, over the defaults a harness session starts with (the
/// scripted model, no sandbox, a fresh sessions folder): codex-rs's `with_config`.
pub struct Setup {
    pub mode: Mode,
    /// Where logs go (a fresh folder when unset).
    pub sessions_dir: Option<PathBuf>,
    /// Continue this session instead of starting one.
    pub resume: Option<String>,
    /// Roles the settings name (others fall back to the default).
    pub roles: Vec<&'static str>,
    /// Whether the model takes images, when not the provider's default.
    pub images: Option<bool>,
    /// The default role's model name (a priced one makes the replies cost money).
    pub model: &'static str,
    /// Answer with this in-process model (as the built-in provider) instead of the server.
    pub local_model: Option<Arc<dyn llm::LocalModel>>,
    /// Leave questions waiting for the test to answer (`session.answer`), as a user who has
    /// not answered yet.
    pub hold_questions: bool,
    /// The test's changes to the session's options, in order.
    changes: Vec<OptionsChange>,
}

type OptionsChange = Box<dyn FnOnce(&mut SessionOptions) + Send>;

impl Setup {
    pub fn new(mode: Mode) -> Self {
        Setup {
            mode,
            sessions_dir: None,
            resume: None,
            roles: vec!["default"],
            images: None,
            model: "scripted-model",
            local_model: None,
            hold_questions: false,
            changes: Vec::new(),
        }
    }

    /// The session's options as this test needs them: `change` runs on the defaults (after
    /// the changes given before it).
    pub fn with_options(
        mut self,
        change: impl FnOnce(&mut SessionOptions) + Send + 'static,
    ) -> Self {
        self.changes.push(Box::new(change));
        self
    }

    /// The options of a session of `project` logged in `sessions_dir`, finding its models
    /// with `resolver`: the defaults, the harness's own (no sandbox, this test's model), then
    /// the test's changes.
    pub fn options(
        self,
        project: &Path,
        sessions_dir: PathBuf,
        resolver: config::ProviderResolver,
    ) -> SessionOptions {
        let root = tools::ProjectRoot::open(project).expect("open");
        let model = self.model;
        let mut opts = SessionOptions::new(root, sessions_dir, resolver).with(|o| {
            o.config = AgentConfig::new(model);
            o.sandboxing = Sandboxing::Off;
        });
        for change in self.changes {
            change(&mut opts);
        }
        opts
    }
}

/// Opens a session, waiting for a previous holder that is closing to let go of it.
async fn open_when_free(opts: SessionOptions, id: &str) -> (Session, agent::Events) {
    let mut opened = None;
    wait_until(
        "a previous holder of the session to let go of it",
        Duration::from_secs(10),
        || {
            match Session::open(opts.clone(), id) {
                Ok(s) => opened = Some(s),
                Err(agent::SessionError::Log(agent::LogError::Busy(_))) => {}
                Err(e) => panic!("open session: {e}"),
            }
            ready(opened.is_some())
        },
    )
    .await
    .unwrap_or_else(|e| panic!("open session: {e}"));
    opened.expect("opened")
}

impl Harness {
    pub async fn start(
        s: Scenario,
        project: &Path,
        setup: Setup,
        answer: impl Fn(&ApprovalRequest) -> ApprovalAnswer + Send + Sync + 'static,
    ) -> Harness {
        let format = s.format;
        let server = ScriptedServer::start(s).await.expect("server");
        let base = server.base_url().to_string();
        let roles = setup.roles.clone();
        let images = setup.images;
        let local = setup.local_model.clone();
        let default_model = setup.model;
        let (mode, hold, resume) = (setup.mode, setup.hold_questions, setup.resume.clone());
        let resolver: config::ProviderResolver = Arc::new(move |role: &str| {
            if let Some(model) = &local {
                return Ok(ResolvedModel {
                    provider: Provider::local(
                        ProviderConfig::new(ProviderKind::Builtin, "", None),
                        model.clone(),
                    ),
                    model: llm::BUILTIN_MODEL.into(),
                    fell_back: false,
                });
            }
            let mut pc = ProviderConfig::new(
                match format {
                    Format::Anthropic => ProviderKind::Anthropic,
                    Format::Openai => ProviderKind::OpenAi,
                },
                &base,
                Some("k".into()),
            );
            pc.retry = RetryPolicy {
                base_delay: Duration::from_millis(5),
                ..RetryPolicy::default()
            };
            if let Some(i) = images {
                pc.takes.images = i;
            }
            let provider = Provider::new(pc)
                .map_err(|e| engine_error(FailureCode::Internal, e.to_string()))?;
            Ok(ResolvedModel {
                provider,
                model: if role == "default" {
                    default_model.into()
                } else {
                    format!("scripted-{role}")
                },
                fell_back: !roles.contains(&role),
            })
        });
        let (owned, sessions_dir) = match setup.sessions_dir.clone() {
            Some(d) => (None, d),
            None => {
                let d = tempfile::tempdir().expect("tempdir");
                let p = d.path().to_path_buf();
                (Some(d), p)
            }
        };
        let opts = setup.options(project, sessions_dir.clone(), resolver);
        let (session, mut events) = match &resume {
            Some(id) => open_when_free(opts, id).await,
            None => Session::create(opts, "test task").expect("create session"),
        };
        session.set_mode(mode);
        let seen: Arc<Mutex<Vec<AgentEvent>>> = Arc::default();
        let asked: Arc<Mutex<Vec<ApprovalRequest>>> = Arc::default();
        let (seen2, asked2, answerer) = (seen.clone(), asked.clone(), session.approvals());
        let answer: Answerer = Arc::new(answer);
        tokio::spawn(async move {
            while let Some(e) = events.recv().await {
                if let Some(req) = question(&e) {
                    asked2.lock().expect("lock").push(req.clone());
                    if !hold {
                        let a = answer(req);
                        let _ = answerer.answer(&req.id, a);
                    }
                }
                seen2.lock().expect("lock").push(e);
            }
        });
        Harness {
            session,
            server,
            events: seen,
            questions: asked,
            sessions_dir,
            _sessions: owned,
        }
    }

    /// Runs a turn to its end (bounded: a test must not hang).
    pub async fn run(&self, text: &str) -> TurnOutcome {
        tokio::time::timeout(Duration::from_secs(120), self.session.run(text))
            .await
            .expect("no hang")
            .expect("turn")
    }

    pub fn events(&self) -> Vec<AgentEvent> {
        self.events.lock().expect("lock").clone()
    }

    pub fn questions(&self) -> Vec<ApprovalRequest> {
        self.questions.lock().expect("lock").clone()
    }

    pub fn log_path(&self) -> PathBuf {
        agent::session_path(&self.sessions_dir, self.session.id()).expect("path")
    }

    /// Waits until `pred` holds for the events seen so far.
    pub async fn until(&self, what: &str, pred: impl Fn(&[AgentEvent]) -> bool) {
        wait_until(what, Duration::from_secs(60), || {
            ready(pred(&self.events()))
        })
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{e}\nserver failures: {:?}\nevents: {:#?}",
                self.server.failures(),
                self.events().iter().map(summary).collect::<Vec<_>>()
            )
        });
    }
}

/// One line per event, for a failing test's message.
fn summary(e: &AgentEvent) -> String {
    match e {
        AgentEvent::Subagent { agent, event } => format!("[{agent}] {}", summary(event)),
        AgentEvent::ToolFinished { name, output, .. } => {
            format!(
                "tool_finished {name}: {}",
                output.chars().take(160).collect::<String>()
            )
        }
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v["type"].as_str().map(str::to_string))
            .unwrap_or_default(),
    }
}
