//! git-skill: make AI-agent skills (directories with a `SKILL.md`) evolve safely inside git.
//!
//! The library holds every capability and never prints: functions return data or take a
//! writer. The `git-skill` binary parses arguments, calls into this crate and renders.

pub mod check;
pub mod config;
pub mod drift;
pub mod fsutil;
pub mod git;
pub mod guard;
pub mod hook;
pub mod llm;
pub mod optimize;
pub mod parallel;
pub mod progress;
pub mod prompt;
pub mod report;
pub mod signal;
pub mod skill;
pub mod staged;
pub mod worklock;
