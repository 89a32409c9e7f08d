//! `git skill proposals`: what the review agent proposed, listed, shown, accepted (through
//! the one gate, as a person's commit), rejected and pruned.

use serde::Serialize;

use crate::config::FailOn;
use crate::env::{Env, EnvError};
use crate::review::proposals::{self, Accepted, Proposal, ProposalError};

#[derive(Debug, thiserror::Error)]
pub enum ProposalsError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Proposal(#[from] ProposalError),
    /// `prune --older-than` that is no age or date.
    #[error("{0}")]
    Age(String),
}

#[derive(Debug, Serialize)]
pub struct Listing {
    /// Oldest first.
    pub proposals: Vec<Proposal>,
    /// What lies under `refs/skill-proposals/` that is no proposal, each with why.
    #[serde(skip)]
    pub skipped: Vec<String>,
}

pub fn list(env: &Env) -> Result<Listing, ProposalsError> {
    let repo = env.require_repo("proposals")?;
    let (proposals, skipped) = proposals::list_all(repo)?;
    Ok(Listing { proposals, skipped })
}

/// A proposal with its message and its diff against the review's base.
#[derive(Debug, Serialize)]
pub struct Shown {
    #[serde(flatten)]
    pub proposal: Proposal,
    pub message: String,
    pub diff: String,
}

pub fn show(env: &Env, id: &str) -> Result<Shown, ProposalsError> {
    let repo = env.require_repo("proposals")?;
    let proposal = proposals::find(repo, id)?;
    let diff = proposals::diff(repo, &proposal)?;
    Ok(Shown {
        message: proposal.message.clone(),
        proposal,
        diff,
    })
}

pub struct AcceptOptions {
    /// Commit it too, with the proposal's message.
    pub commit: bool,
    pub fail_on: FailOn,
    pub today: chrono::NaiveDate,
}

/// What `accept` did: applied, or refused for what the proposal holds (nothing changed).
#[derive(Debug, Serialize)]
pub struct AcceptReport {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted: Option<Accepted>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// The proposal's id.
    #[serde(skip)]
    pub id: String,
    /// The refusal, when it was refused.
    #[serde(skip)]
    pub refused: Option<ProposalError>,
}

pub fn accept(
    env: &Env,
    id: &str,
    options: &AcceptOptions,
) -> Result<AcceptReport, ProposalsError> {
    let repo = env.require_repo("proposals")?;
    let p = proposals::find(repo, id)?;
    let roots = env.repo_relative_roots().named;
    match proposals::accept(
        repo,
        &p,
        &roots,
        options.fail_on,
        options.commit,
        options.today,
    ) {
        Ok(a) => Ok(AcceptReport {
            ok: true,
            accepted: Some(a),
            errors: Vec::new(),
            id: p.id,
            refused: None,
        }),
        Err(
            e @ (ProposalError::Conflict { .. }
            | ProposalError::Blocked { .. }
            | ProposalError::DirtyForCommit { .. }
            | ProposalError::OutsideRoots { .. }),
        ) => Ok(AcceptReport {
            ok: false,
            accepted: None,
            errors: vec![e.to_string()],
            id: p.id,
            refused: Some(e),
        }),
        Err(e) => Err(e.into()),
    }
}

/// Deletes a proposal; the one deleted.
pub fn reject(env: &Env, id: &str) -> Result<Proposal, ProposalsError> {
    let repo = env.require_repo("proposals")?;
    let p = proposals::find(repo, id)?;
    proposals::reject(repo, &p)?;
    Ok(p)
}

/// Deletes (or with `dry_run` lists) the proposals older than `older_than` (an age such as
/// `30d`, or a date) as of `now`.
pub fn prune(
    env: &Env,
    older_than: &str,
    now: chrono::DateTime<chrono::Utc>,
    dry_run: bool,
) -> Result<Vec<Proposal>, ProposalsError> {
    let repo = env.require_repo("proposals")?;
    let cutoff = crate::signal::select::parse_since(older_than, now)
        .map_err(|e| ProposalsError::Age(e.to_string()))?;
    Ok(proposals::prune(repo, cutoff, dry_run)?)
}
