//! `git skill diff`: capability drift, what each skill changed between two states can do now
//! that it could not before.

use serde::Serialize;

use crate::drift::SkillDrift;
use crate::env::{Env, EnvError};
use crate::git::GitError;
use crate::skill::discover::Note;

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(transparent)]
    Env(#[from] EnvError),
    /// The revisions cannot be compared.
    #[error(transparent)]
    Revisions(GitError),
}

#[derive(Debug, Serialize)]
pub struct Drift {
    /// Each skill that gained a capability, its path as the user should see it.
    pub skills: Vec<SkillDrift>,
    /// Links and submodules that could not be compared.
    #[serde(skip)]
    pub notes: Vec<Note>,
}

impl Drift {
    pub fn any(&self) -> bool {
        !self.skills.is_empty()
    }
}

/// The drift between `from` and `to` (the index when `None`).
pub fn diff(env: &Env, from: &str, to: Option<&str>) -> Result<Drift, DiffError> {
    let repo = env.require_repo("diff")?;
    let (mut skills, notes) = crate::drift::report(repo, from, to, &env.repo_relative_roots())
        .map_err(DiffError::Revisions)?;
    for d in &mut skills {
        d.path = env
            .display(&repo.workdir().join(&d.path))
            .display()
            .to_string();
    }
    Ok(Drift { skills, notes })
}
