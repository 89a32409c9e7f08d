//! `git skill hook pre-commit`: whether the staged change of skills may be committed, decided
//! by the one gate ([`crate::check::gate`]) for a person's commit, at the staged state (the
//! index, never the work tree) with the policy as staged.

use crate::check::{self, gate, Decision, Gate, Writer};
use crate::config::FailOn;
use crate::env::{Env, EnvError};
use crate::git::{At, GitError};
use crate::guard::suppress::PolicyError;
use crate::guard::ScanOptions;
use crate::skill::discover::Note;
use crate::staged::KnownScans;

#[derive(Debug, thiserror::Error)]
pub enum PreCommitError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

pub struct Options {
    pub fail_on: FailOn,
    pub today: chrono::NaiveDate,
    pub jobs: usize,
    /// Use the scan cache (`guard::cache`).
    pub cache: bool,
}

/// What the hook found.
pub struct PreCommit {
    /// Links and submodules the commit brings that no skill check covers; an error among them
    /// blocks the commit.
    pub notes: Vec<Note>,
    /// The gate's decision, or none when the commit touches no skill.
    pub decision: Option<Decision>,
}

pub fn pre_commit(env: &Env, options: &Options) -> Result<PreCommit, PreCommitError> {
    let repo = env.require_repo("hook pre-commit")?;
    let cache = super::scan_cache(env, options.cache);
    let scan = ScanOptions {
        cache,
        ..Writer::Person.scan_options()
    };
    // A skill staged in a state scanned before (a commit tried again) is not read at all.
    let scans = check::known_scans(&scan);
    let known = scans.as_ref().map(|scans| KnownScans {
        scans,
        skip_reads: true,
    });
    let (changes, notes) =
        crate::staged::staged_changes(repo, &env.repo_relative_roots(), known.as_ref())?;
    // The policy as staged (an unstaged edit to it must not change the verdict either), read
    // even when no skill changed: a commit must not land a policy that CI cannot read.
    let policy = check::policy_at(repo, At::Index)?;
    if changes.is_empty() {
        return Ok(PreCommit {
            notes,
            decision: None,
        });
    }
    let changes = super::changes(env, repo, changes);
    let mut gate = Gate::new(
        Writer::Person,
        policy.as_ref(),
        options.fail_on,
        options.today,
    );
    gate.scan = scan;
    // Each skill is checked on its own, on all cores: a commit that touches many skills
    // should not wait for them one after another.
    let decision = gate::decide(&changes, &gate, options.jobs);
    if let Some(cache) = cache {
        cache.trim();
    }
    Ok(PreCommit {
        notes,
        decision: Some(decision),
    })
}
