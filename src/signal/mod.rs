//! Feedback signals: what agents and people record about a skill (the user corrected the
//! agent; the agent hit friction), kept as JSON lines beside the skill in
//! `.skillopt/pending/signal.json` until an optimisation uses them.

pub mod dashboard;
pub mod input;
pub mod schema;
pub mod select;
pub mod store;

pub use schema::{Signal, SignalContext, SignalType};
