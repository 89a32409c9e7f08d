//! `git skill quarantine`: what the watch took out of agents' reach
//! ([`crate::ops::agent_watch`]), to look at, release or drop.

use crate::agent::quarantine::{Entry, Quarantine, QuarantineError};
use crate::env::{Env, EnvError};

#[derive(Debug, thiserror::Error)]
pub enum QuarantineOpError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Quarantine(#[from] QuarantineError),
}

#[derive(Debug, serde::Serialize)]
pub struct Listing {
    pub entries: Vec<Entry>,
}

/// One entry and what it keeps, as text a terminal may show: secrets masked, and a file that
/// is not UTF-8 said to be so rather than shown.
#[derive(Debug, serde::Serialize)]
pub struct Shown {
    pub entry: Entry,
    pub content: Option<String>,
    /// Secrets masked in `content`.
    pub masked: usize,
    pub binary: bool,
}

fn quarantine(env: &Env) -> Result<Quarantine, QuarantineOpError> {
    let repo = env.require_repo("quarantine")?;
    Ok(Quarantine::new(repo.git_dir()))
}

pub fn list(env: &Env) -> Result<Listing, QuarantineOpError> {
    Ok(Listing {
        entries: quarantine(env)?.list(),
    })
}

pub fn show(env: &Env, id: &str) -> Result<Shown, QuarantineOpError> {
    let q = quarantine(env)?;
    let entry = q.entry(id)?;
    let bytes = q.content(&entry)?;
    let (content, masked, binary) = match bytes.map(String::from_utf8) {
        Some(Ok(text)) => {
            let redacted = crate::redact::redact(&text);
            let masked = crate::redact::secrets(&text).len();
            (Some(redacted), masked, false)
        }
        Some(Err(_)) => (None, 0, true),
        None => (None, 0, false),
    };
    Ok(Shown {
        entry,
        content,
        masked,
        binary,
    })
}

/// Puts `id` back where it was; with `force`, over whatever is there now.
pub fn release(env: &Env, id: &str, force: bool) -> Result<Entry, QuarantineOpError> {
    let repo = env.require_repo("quarantine")?;
    let q = quarantine(env)?;
    // An entry from below HOME goes back there.
    let top = match (q.entry(id)?.home, env.home.as_ref()) {
        (true, Some(home)) => home.canonicalize().unwrap_or_else(|_| home.clone()),
        _ => repo.workdir().to_owned(),
    };
    let key = crate::agent::seal::user_key(env.config_home.as_deref(), env.home.as_deref());
    Ok(q.release(&top, id, force, key.as_ref())?)
}

/// Deletes `id` and what it keeps.
pub fn drop(env: &Env, id: &str) -> Result<Entry, QuarantineOpError> {
    let q = quarantine(env)?;
    let entry = q.entry(id)?;
    q.drop_entry(id)?;
    Ok(entry)
}
