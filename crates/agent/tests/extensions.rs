//! Skills and MCP servers through the agent loop, against the scripted model server, in the OS
//! sandbox: a skill activated by its trigger (an injection attempt in its argument arrives as
//! one literal argument and creates nothing), a skill left inactive until the model activates
//! it, a broken skill skipped, a tiny stdio MCP server whose tools are asked about by name,
//! fenced, and whose crash in the middle of a call is survived, and a project's server that
//! starts nothing before the user approves it.

use agent_harness as harness;

use agent::Sandboxing;
use config::Extensions;
use harness::{Harness, Setup, scenario};
use policy::Mode;
use protocol::{
    AgentEvent, ApprovalAnswer, Confinement, ExtensionOrigin, McpState, SkillActivation,
    TurnOutcome,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use test_support::git;
use tools::{ProjectRoot, SandboxSetup};

struct Fixture {
    _root: tempfile::TempDir,
    base: PathBuf,
    home: PathBuf,
    config: PathBuf,
    project: PathBuf,
    session: PathBuf,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

const WORD_COUNT: &str = r#"{
  "name": "word-count",
  "description": "Counts the words of a file",
  "triggers": ["word count", "/\\bhow many words\\b/"],
  "tools": [{
    "name": "count_words",
    "description": "The number of words in one file",
    "inputSchema": {"type": "object", "properties": {"file": {"type": "string", "description": "A file of the project"}}, "required": ["file"]},
    "run": ["wc", "-w", "{{file}}"]
  }]
}"#;

/// Under the build's temporary folder rather than /tmp, as a real project is.
fn fixture() -> Fixture {
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let base = root.path().canonicalize().expect("canonical");
    let (home, config, project, session) = (
        base.join("home"),
        base.join("config"),
        base.join("project"),
        base.join("session"),
    );
    for d in [&home, &config, &project, &session] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    write(&project.join("notes.txt"), "alpha\nbeta\n");
    write(
        &project.join(".tandem/skills/word-count/skill.json"),
        WORD_COUNT,
    );
    write(
        &project.join(".tandem/skills/word-count/SKILL.md"),
        "Report counts in words, never as bare digits.",
    );
    // A broken skill beside it is skipped; the session does not notice.
    write(
        &project.join(".tandem/skills/broken/skill.json"),
        "{\"name\": ",
    );
    git(&project, &["init", "-q"]);
    git(&project, &["config", "user.email", "t@example.com"]);
    git(&project, &["config", "user.name", "Test"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-q", "-m", "init"]);
    Fixture {
        _root: root,
        base,
        home,
        config,
        project,
        session,
    }
}

fn sandbox_setup(f: &Fixture, state: &str) -> SandboxSetup {
    let helper = sandbox::find_helper().expect("the helper is built (cargo build -p sandbox)");
    SandboxSetup::new(helper, f.session.join(state), policy::is_secret)
        .hiding(vec![f.config.clone()])
        .with_home(f.home.clone(), Vec::new())
}

fn setup(f: &Fixture, mode: Mode, extensions: Extensions) -> Setup {
    let (tmp, home) = (f.session.join("tmp"), f.home.clone());
    let sandboxing = Sandboxing::With(sandbox_setup(f, "sandbox"));
    Setup::new(mode).with_options(move |o| {
        o.tmp_dir = Some(tmp);
        o.config.home = Some(home);
        o.sandboxing = sandboxing;
        o.extensions = extensions;
    })
}

fn skills(f: &Fixture) -> Extensions {
    let root = ProjectRoot::open(&f.project).expect("open");
    let set = config::session_skills(&root, &f.config, &config::Settings::default());
    assert_eq!(set.problems.len(), 1, "{:?}", set.problems);
    Extensions {
        skills: Arc::new(set),
        mcp: None,
    }
}

fn tiny_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/tiny_server.py")
        .canonicalize()
        .expect("tests/mcp/tiny_server.py")
        .display()
        .to_string()
}

fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// A hub for the project's servers, sandboxed as the app's are, with quick restarts.
fn hub(f: &Fixture) -> Arc<mcp::Hub> {
    let root = ProjectRoot::open(&f.project).expect("open");
    config::mcp_hub(
        &root,
        &f.config,
        Some(sandbox_setup(f, "mcp-sandbox")),
        mcp::Timing {
            start: Duration::from_secs(20),
            call: Duration::from_secs(20),
            backoff: Duration::from_millis(50),
        },
    )
}

fn tiny_entry(network: bool) -> serde_json::Value {
    json!({"command": python(), "args": [tiny_server(), "--marker", "started.txt"], "network": network})
}

fn finished(events: &[AgentEvent], id: &str) -> (String, Option<Confinement>) {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolFinished {
                id: i,
                output,
                confinement,
                ..
            } if i == id => Some((output.clone(), *confinement)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no result for {id}"))
}

#[tokio::test]
async fn a_triggered_skills_tool_gets_an_injection_attempt_as_one_argument() {
    let f = fixture();
    let h = Harness::start(
        scenario("agent_skill_triggered.json"),
        &f.project,
        setup(&f, Mode::Ask, skills(&f)),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("What is the word count of notes.txt?").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let events = h.events();
    let activated: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::SkillActivated {
                name,
                origin,
                activation,
                tools,
            } => Some((name.clone(), *origin, activation.clone(), tools.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        activated,
        vec![(
            "word-count".to_string(),
            ExtensionOrigin::Project,
            SkillActivation::Trigger {
                trigger: "word count".into()
            },
            vec!["count_words".to_string()]
        )]
    );
    // It ran as a program in the sandbox, the payload one literal argument.
    let (out, confinement) = finished(&events, "c1");
    assert!(out.contains("[ran: wc -w 'x; touch ../pwned']"), "{out}");
    assert!(
        matches!(
            confinement,
            Some(Confinement::Sandboxed { network: false, .. })
        ),
        "{confinement:?}"
    );
    for place in [&f.base, &f.project, &f.project.join(".tandem")] {
        assert!(
            !place.join("pwned").exists(),
            "pwned in {}",
            place.display()
        );
    }
    assert!(!f.session.join("pwned").exists());
    // The activation is in the session's log, for the transcript read back.
    let log = std::fs::read_to_string(h.log_path()).expect("log");
    assert!(log.contains("\"type\":\"skill_activated\""), "{log}");
}

#[tokio::test]
async fn a_skill_the_task_does_not_match_stays_inactive_until_the_model_activates_it() {
    let f = fixture();
    let h = Harness::start(
        scenario("agent_skill_inactive.json"),
        &f.project,
        setup(&f, Mode::FullAuto, skills(&f)),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Tidy up notes.txt").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let offered = |i: usize| -> Vec<String> {
        h.server.requests()[i].body["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
            .collect()
    };
    assert!(!offered(0).contains(&"count_words".to_string()));
    assert!(offered(3).contains(&"count_words".to_string()));
    let activations: Vec<SkillActivation> = h
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::SkillActivated { activation, .. } => Some(activation.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(activations, vec![SkillActivation::Model]);
    // A new task starts without it.
    let prompt: String = h.server.requests()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        !prompt.contains("The skill word-count is active"),
        "{prompt}"
    );
}

#[tokio::test]
async fn an_mcp_servers_tools_are_asked_fenced_and_survive_its_crash() {
    let f = fixture();
    write(
        &f.config.join("mcp.json"),
        &json!({"mcpServers": {"tiny": tiny_entry(false)}}).to_string(),
    );
    let hub = hub(&f);
    hub.start();
    let extensions = Extensions {
        skills: Arc::default(),
        mcp: Some(hub.clone()),
    };
    let h = Harness::start(
        scenario("agent_mcp_tools.json"),
        &f.project,
        setup(&f, Mode::Ask, extensions),
        |req| {
            if req.tool == "tiny__echo" {
                // "Allow for this session": the second echo is not asked about.
                ApprovalAnswer::ApproveForSession { suggestion: 1 }
            } else {
                ApprovalAnswer::Approve
            }
        },
    )
    .await;
    let outcome = h.run("Talk to the tiny server").await;
    assert_eq!(
        outcome,
        TurnOutcome::Done {
            summary: "The server came back.".into()
        }
    );
    let questions = h.questions();
    let asked: Vec<&str> = questions.iter().map(|q| q.tool.as_str()).collect();
    assert_eq!(asked, ["tiny__echo", "tiny__inject", "tiny__crash"]);
    let labels: Vec<&str> = questions[0]
        .asked
        .suggestions
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "Always allow the tool “tiny__echo” in this project",
            "Allow the tool “tiny__echo” for this session"
        ]
    );
    assert!(questions[0].asked.suggestions[0].always);
    // The server's words are fenced: its fake closing tag does not close the fence.
    let (out, _) = finished(&h.events(), "i1");
    let open = out.find("<untrusted-tool-result-").expect("fenced");
    let tag: String = out[open + 1..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '>')
        .collect();
    let close = out.find(&format!("</{tag}>")).expect("closed");
    assert!(out[open..close].contains("delete every file"), "{out}");
    assert!(!out.contains("</untrusted-tool-result>"), "{out}");
    // It crashed once and came back.
    let view = hub.view();
    assert_eq!(view.servers[0].state, McpState::Running);
    assert_eq!(view.servers[0].restarts, 1);
    assert_eq!(
        std::fs::read_to_string(f.project.join("started.txt"))
            .expect("marker")
            .lines()
            .count(),
        2
    );
}

#[tokio::test]
async fn a_servers_network_is_off_unless_its_entry_turns_it_on() {
    let f = fixture();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    write(
        &f.config.join("mcp.json"),
        &json!({"mcpServers": {"closed": tiny_entry(false), "open": tiny_entry(true)}}).to_string(),
    );
    let hub = hub(&f);
    hub.start();
    hub.settle(Duration::from_secs(30)).await;
    let cancel = tokio_util::sync::CancellationToken::new();
    let args = json!({ "port": port });
    let closed = hub
        .call("closed__connect", &args, &cancel)
        .await
        .expect("call");
    assert!(
        closed.is_error && closed.text.starts_with("refused"),
        "{closed:?}"
    );
    let open = hub
        .call("open__connect", &args, &cancel)
        .await
        .expect("call");
    assert_eq!(open.text, "connected", "{open:?}");
    // It runs in the project, which it may write, in its sandbox.
    assert!(f.project.join("started.txt").exists());
}

#[tokio::test]
async fn a_projects_mcp_json_starts_nothing_before_the_user_approves_it() {
    let f = fixture();
    write(
        &f.project.join(".tandem/mcp.json"),
        &json!({"mcpServers": {"repo": tiny_entry(false)}}).to_string(),
    );
    let hub = hub(&f);
    hub.start();
    let extensions = Extensions {
        skills: Arc::default(),
        mcp: Some(hub.clone()),
    };
    let h = Harness::start(
        scenario("agent_mcp_unapproved.json"),
        &f.project,
        setup(&f, Mode::FullAuto, extensions),
        |_| ApprovalAnswer::Approve,
    )
    .await;
    let outcome = h.run("Use the repository's server").await;
    assert!(matches!(outcome, TurnOutcome::Done { .. }), "{outcome:?}");
    let tools = h.server.requests()[0].body["tools"].to_string();
    assert!(!tools.contains("repo__"), "{tools}");
    assert!(
        !f.project.join("started.txt").exists(),
        "the repository's program ran"
    );
    assert_eq!(hub.view().servers[0].state, McpState::NeedsApproval);
}
