//! `git skill rollback`: revert a skill's newest optimization and return its signals to
//! pending, in one commit.

use serde::Serialize;

use crate::env::{Env, EnvError};
use crate::git::RevertMethod;
use crate::optimize::rollback::{self, RollbackError};
use crate::skill::discover::Skill;

#[derive(Debug, thiserror::Error)]
pub enum RollbackOpError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error("'{}' is not inside the repository", .0.display())]
    Outside(std::path::PathBuf),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Rollback(#[from] RollbackError),
}

#[derive(Debug, Serialize)]
pub struct RolledBack {
    pub skill: String,
    /// The `optimize(skill):` commit reverted.
    pub reverted: String,
    pub optimization_id: Option<String>,
    /// The revert commit.
    pub commit: String,
    /// `tree-edit`, `tree-merge` or `git-revert`.
    pub via: &'static str,
    /// The signals back in pending.
    pub returned: Vec<String>,
    /// How many of them optimize leaves out by default for their age.
    pub returned_older_than_window: usize,
    /// The reverted commit's subject.
    #[serde(skip)]
    pub subject: String,
}

pub fn rollback(env: &Env, skill: &Skill) -> Result<RolledBack, RollbackOpError> {
    let repo = env.require_repo("rollback")?;
    let rel = repo
        .relative(&skill.dir)
        .ok_or_else(|| RollbackOpError::Outside(skill.dir.clone()))?;
    let now = crate::clock::now();
    // The reverted skill is judged as a person's commit is: the repository's fail level.
    let landing = rollback::Landing {
        fail_on: env.config.fail_on()?,
        today: now.date_naive(),
    };
    let done = rollback::rollback(repo, &skill.dir, &rel, &skill.dir_name, now, landing)?;
    Ok(RolledBack {
        skill: skill.dir_name.clone(),
        reverted: done.reverted.commit,
        optimization_id: done.reverted.optimization_id,
        commit: done.commit.to_string(),
        via: match done.method {
            RevertMethod::TreeEdit => "tree-edit",
            RevertMethod::TreeMerge => "tree-merge",
            RevertMethod::GitRevert => "git-revert",
        },
        returned: done.returned,
        returned_older_than_window: done.returned_old,
        subject: done.reverted.subject,
    })
}
