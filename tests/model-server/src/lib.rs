//! A scripted model server for tests: real HTTP on a free loopback port, speaking the
//! Anthropic Messages and OpenAI Chat Completions streaming formats, driven by scenario files.
//!
//! Owns the scenario format, rendering scripted replies in either wire format (split into
//! chunks of any size, delayed, or cut off), faults (any status with any headers), raw events
//! for protocol violations, and checks on what the client sent. Must not depend on the code
//! under test: it speaks the vendors' public formats, so a client bug cannot hide behind a
//! matching server bug.

mod render;
mod scenario;
mod server;

pub use scenario::{Expect, Fault, Format, RawEvent, Reply, Scenario, ToolCallSpec, Turn};
pub use server::{Recorded, ScriptedServer};
