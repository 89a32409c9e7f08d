//! `git skill record`: signals given as JSON fields, completed (id, the SKILL.md's hash, the
//! time; credentials masked) and appended to a skill's store, all or nothing.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::signal::input::{self, InputError, Stamp};
use crate::signal::store::{self, Leftover, StoreError};
use crate::signal::{HashError, Signal};
use crate::skill::discover::Skill;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Hash(#[from] HashError),
    /// A signal the schema refuses; `line` is where it starts in what was given.
    #[error("{error}")]
    Invalid { error: InputError, line: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What was recorded.
pub struct Recorded {
    /// The store.
    pub path: PathBuf,
    pub signals: Vec<Signal>,
    /// Signal ids with how many credentials were masked in each.
    pub masked: Vec<(String, usize)>,
    /// What interrupted records had left, removed first.
    pub dropped: Vec<Leftover>,
}

/// Completes and appends `given` (each signal's fields with the line it starts on) to the
/// store of `skill`, as of `now`; one refused signal records none.
pub fn record(
    skill: &Skill,
    given: Vec<(usize, Map<String, Value>)>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Recorded, RecordError> {
    let hash = crate::signal::skill_md_sha256(&skill.dir)?;
    let stamp = Stamp {
        skill: &skill.dir_name,
        skill_hash: &hash,
        now,
        nonce: nonce(),
    };
    let mut signals = Vec::with_capacity(given.len());
    let mut masked = Vec::new();
    for (i, (line, fields)) in given.into_iter().enumerate() {
        let done = input::complete(fields, i + 1, &stamp)
            .map_err(|error| RecordError::Invalid { error, line })?;
        if done.redacted > 0 {
            masked.push((done.signal.signal_id.clone(), done.redacted));
        }
        signals.push(done.signal);
    }
    let appended = store::append(&skill.dir, &signals)?;
    Ok(Recorded {
        path: appended.path,
        signals,
        masked,
        dropped: appended.dropped,
    })
}

/// Mixed into ids: two processes recording the same text in the same second get distinct ids.
fn nonce() -> u64 {
    let nanos = crate::clock::entropy() as u64;
    (u64::from(std::process::id()) << 32) ^ nanos
}
