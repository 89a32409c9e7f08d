//! The one integration-test runner: every module builds real temporary repositories with the
//! real `git` binary and runs the real `git-skill` binary in a pinned environment.

mod common;
mod config;
mod edge;
mod git_ops;
mod hook;
mod hostile;
mod lint;
mod list;
mod llm;
mod llm_server;
mod man_completions;
mod optimize;
mod prompt;
mod refuses;
mod scan;
mod signals;
