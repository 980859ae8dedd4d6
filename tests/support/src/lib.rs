//! What the test suites share, compiled once: a small HTTP responder on 127.0.0.1 that
//! answers each request with what a route function makes of it (real sockets, real HTTP/1.1;
//! only the server's answers are scripted); programs run to their end (`tandem-cli`, `git`)
//! and the processes they leave; small projects. Nothing here is part of the product. (The
//! harness that drives agent sessions is `agent-harness`: a crate of its own, so the suites of
//! the crates below `agent` do not link the whole engine.)

pub mod http;
pub mod procs;
pub mod projects;
pub mod run;
pub mod tool_calls;
pub mod wait;

pub use run::{Ran, git, ran, run, run_async, scripted_run, tandem_cli_in, tandem_cli_scripted};
pub use wait::{TimedOut, wait_until, wait_until_blocking};
