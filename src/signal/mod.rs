//! Feedback signals: what agents and people record about a skill (the user corrected the
//! agent; the agent hit friction), kept as JSON lines beside the skill in
//! `.skillopt/pending/signal.json` until an optimisation uses them.

pub mod dashboard;
pub mod input;
pub mod schema;
pub mod select;
pub mod store;

pub use schema::{Signal, SignalContext, SignalType};

/// The sha256 of `bytes` in lowercase hex: what `skill_version_hash` holds.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
