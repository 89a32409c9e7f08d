//! `git skill review`: after an agent session, a model reads the session and saves what it
//! learned as a skill, or improves a skill it may touch, inside a sandbox.

pub mod sandbox;
mod shell;
mod similar;
pub mod tools;
