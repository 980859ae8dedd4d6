//! The four modes, from strictest to loosest: the workspace's one mode type lives in
//! `protocol`, so the window, the CLI and this engine cannot disagree on it.

pub use protocol::Mode;
