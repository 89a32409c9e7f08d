//! `git skill optimize`: the 8 steps of `skill-optimizer.md` (confirm, load signals, triage,
//! deep read, reflect, dry run, gate, update), with a checkpoint after each step, a gate
//! stronger than `skill-optimizer.md`'s (SkillGuard and lint, a size budget, a regression check against
//! earlier optimizations) and two commits: the audit, then the SKILL.md change.
//!
//! The library never prints: progress and questions go through [`Interact`].

pub mod archive;
pub mod checkpoint;
pub mod checks;
pub mod diff;
pub mod edits;
pub mod evals;
pub mod fingerprint;
mod gate;
pub mod history;
mod pipeline;
pub mod rollback;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use checkpoint::{
    Candidate, Checkpoint, CommitIntent, GateOutcome, GateRecord, Mode, PassRate, Regressed, Replay,
};
pub use pipeline::run;

use crate::llm::{LlmError, Provider};
pub use crate::progress::Progress;
use crate::prompt::contracts::Conflict;
use crate::prompt::Prompts;
use crate::signal::Signal;

/// What `optimize` is pointed at and works with.
pub struct Job<'a> {
    pub repo: &'a crate::git::Repo,
    /// Absolute.
    pub skill_dir: PathBuf,
    /// Relative to the top of the work tree, `/`-separated.
    pub skill_rel: String,
    /// The directory name (SKILL.md's `name`).
    pub skill_name: String,
    pub provider: &'a dyn Provider,
    pub prompts: &'a Prompts,
    pub parallel: usize,
    pub gate_threshold: f64,
    /// `skill.gateVotes`: judges per cluster, the majority deciding.
    pub gate_votes: u32,
    pub max_growth: f64,
    /// `skill.evalMaxCalls`: the replay gate refuses a suite that needs more.
    pub eval_max_calls: usize,
    /// `skill.failOn`: what the candidate adds is rejected at this verdict.
    pub fail_on: crate::config::FailOn,
    pub now: chrono::DateTime<chrono::Utc>,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub days: u32,
    pub max_signals: usize,
    pub dry_run: bool,
    /// Discard an existing checkpoint.
    pub restart: bool,
    /// Require an existing checkpoint.
    pub resume: bool,
    /// Signal ids to favour when triage finds conflicting pairs.
    pub prefer: Vec<String>,
    /// Do not ask before calling the model.
    pub yes: bool,
    /// The user confirmed a frontmatter change (`--allow-frontmatter`).
    pub allow_frontmatter: bool,
    /// The user confirmed new capabilities (`--allow-drift`).
    pub allow_drift: bool,
    /// The user takes a candidate that fails eval cases SKILL.md passes (`--allow-regression`).
    pub allow_regression: bool,
    /// Corrected signals the change resolves become eval cases, committed with it
    /// (`skill.evalsFromSignals`, `--no-evals`).
    pub record_evals: bool,
    /// For tests of crash recovery: `after-step-N` (N = 1..7) ends the process there at once,
    /// as a kill would (the CLI reads `GIT_SKILL_FAILPOINT`).
    pub failpoint: Option<String>,
}

/// The rough cost shown before any model call (`skill-optimizer.md` step 2).
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    pub corrected: usize,
    pub friction: usize,
    pub clusters: usize,
    pub regression: usize,
    /// The skill's eval cases, each run before and after by the replay gate.
    pub eval_cases: usize,
    pub calls: usize,
}

/// The answer to "continue?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirm {
    Yes,
    No,
    /// Nobody to ask (no terminal).
    CannotAsk,
}

/// What a person sees before the commits of step 8: the change, the gate's verdicts and the
/// two commit messages.
pub struct Approval<'a> {
    pub skill: &'a str,
    /// The unified diff of SKILL.md.
    pub diff: &'a str,
    pub gate: &'a GateOutcome,
    pub checks: &'a checks::LocalChecks,
    pub audit_message: &'a str,
    pub optimize_message: &'a str,
    /// Whether the candidate is the person's own edit, judged again.
    pub edited: bool,
    /// The eval cases the change adds to evals/evals.json (from its corrected signals).
    pub eval_cases: &'a [crate::eval::Case],
}

/// The answer to "Commit?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approve {
    Commit,
    /// No: nothing is committed; the checkpoint is kept for a later `--resume`.
    Decline,
    /// Open the candidate in an editor, then check and judge it again.
    Edit,
    /// Nobody to ask (no terminal).
    CannotAsk,
}

/// The checkpoint of a dry run that a plain run found.
#[derive(Debug, Clone)]
pub struct WaitingDryRun {
    /// RFC 3339.
    pub started: String,
    pub signals: usize,
    /// Whether the dry run's candidate passed the gate.
    pub accepted: bool,
}

/// What to do with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// Go on from it, as `--resume` would: commit exactly what it showed.
    Reuse,
    /// Discard it and start again, as `--restart` would.
    Discard,
    Stop,
    CannotAsk,
}

/// What the pipeline tells (its 8 steps, through [`Progress`]) and asks the person running it.
pub trait Interact: Progress {
    fn confirm(&mut self, estimate: &Estimate) -> Confirm;
    /// Whether to commit the candidate the gate accepted.
    fn approve(&mut self, approval: &Approval<'_>) -> Approve;
    /// Opens `path` (the candidate, written there by the run) in the person's editor and
    /// returns when they close it; `Err` says why it could not be opened.
    fn edit(&mut self, path: &Path) -> Result<(), String>;
    /// A plain run found the checkpoint of a dry run.
    fn reuse(&mut self, waiting: &WaitingDryRun) -> Reuse;
    /// Which of two conflicting signals to follow: the id of the one preferred, or `None`
    /// when nobody can be asked.
    fn choose(
        &mut self,
        conflict: &Conflict,
        a: Option<&Signal>,
        b: Option<&Signal>,
    ) -> Option<String>;
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Both commits landed.
    Accepted,
    /// The gate, the local checks or the regression check refused the candidate.
    Rejected,
    /// Reflect produced nothing applicable (every edit dropped).
    NothingToApply,
    /// `--dry-run`: the candidate would have been accepted; nothing changed.
    DryRunAccepted,
    /// `--dry-run`: the candidate would have been rejected; nothing changed.
    DryRunRejected,
    /// The person answered no at "Commit?": nothing committed, the checkpoint kept.
    Declined,
    /// Accepted by the gate, but nobody could be asked (no terminal, no `--yes`): nothing
    /// committed, the checkpoint kept for `--resume --yes`.
    AwaitingApproval,
}

/// The summary of a run, as `skill-optimizer.md` prints it (and as `--format json` gives it).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Report {
    pub skill: String,
    pub optimization_id: String,
    pub outcome: Decision,
    pub corrected: usize,
    pub friction: usize,
    pub clusters: usize,
    pub mode: Option<Mode>,
    pub diagnosis: String,
    pub candidate: Option<Candidate>,
    pub checks: Option<checks::LocalChecks>,
    pub gate: Option<GateOutcome>,
    pub stale: Vec<String>,
    pub set_aside: Vec<String>,
    pub left_out: usize,
    pub too_old: usize,
    /// Why the run was rejected, in sentences.
    pub reasons: Vec<String>,
    pub audit_commit: Option<String>,
    pub optimize_commit: Option<String>,
    pub audit_message: String,
    pub optimize_message: String,
    /// `--dry-run`: the change to SKILL.md.
    pub diff: Option<String>,
    /// Rejected only by checks that these flags allow; the checkpoint is kept, so
    /// `--resume` with them repeats no model call.
    pub resume_with: Option<String>,
    /// Nothing committed, the checkpoint kept: the options that commit exactly this
    /// candidate with no new model call (`--resume`, `--resume --yes`).
    pub commit_with: Option<String>,
    /// The person edited the candidate before approving it.
    pub edited: bool,
    /// The eval cases the change adds to the skill's evals/evals.json, one per corrected
    /// signal it resolves.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eval_cases: Vec<crate::eval::Case>,
    pub resolved_dir: Option<String>,
    pub tokens: checkpoint::Tokens,
    pub resumed_from_step: Option<u8>,
}

/// An error of a run, with what the user needs to go on: which skill, and whether it was a dry
/// run (which keeps no checkpoint to resume from).
#[derive(Debug)]
pub struct RunError {
    pub skill: String,
    pub dry_run: bool,
    pub error: Box<OptimizeError>,
}

// The run's error as it is: same message, same causes.
impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.error)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OptimizeError {
    #[error("{skill} has uncommitted changes: {}", .paths.join(", "))]
    Dirty { skill: String, paths: Vec<String> },
    #[error("no pending signals for {skill}")]
    NoSignals { skill: String },
    #[error("another optimize of {skill} is running (lock '{}')", .lock.display())]
    Busy { skill: String, lock: PathBuf },
    #[error("the checkpoint '{}' was made for another version of SKILL.md", .path.display())]
    StaleCheckpoint { path: PathBuf },
    #[error("a dry run of {skill} from {started} is waiting: a plain run would not commit what it showed")]
    DryRunWaiting { skill: String, started: String },
    #[error("{} changed since the dry run of {started}, so its candidate is not what a run would give now: {}", .skill, .changes.join("; "))]
    DryRunChanged {
        skill: String,
        started: String,
        changes: Vec<String>,
    },
    #[error("the checkpoint '{}' was made with --days {days} --max-signals {max_signals}", .path.display())]
    OptionsChanged {
        path: PathBuf,
        days: u32,
        max_signals: usize,
    },
    #[error("{0} changed while the run was going on; nothing was committed")]
    ChangedDuringRun(String),
    #[error("none of the run's signals for {skill} are pending any more; nothing was committed")]
    NothingToArchive { skill: String },
    #[error("signal {signal} of {skill} still holds a secret after masking ({why}); nothing was committed")]
    SecretInSignal {
        skill: String,
        signal: String,
        why: String,
    },
    #[error("an earlier run of {skill} was cut short while committing")]
    InterruptedCommit { skill: String },
    #[error("an earlier run of {skill} was cut short while committing, and HEAD has moved since to {head} without its commits; nothing was touched")]
    Diverged { skill: String, head: String },
    #[error("'{path}' is tracked by git: a checkpoint is never committed, so this one is not git-skill's to trust")]
    CommittedCheckpoint { path: String },
    #[error("'{}' is not a directory (a symbolic link or a file); git-skill keeps its checkpoints only in the skill's own .skillopt/work/", .path.display())]
    NotADirectory { path: PathBuf },
    #[error("stopped at failpoint {0} (GIT_SKILL_FAILPOINT)")]
    Failpoint(String),
    #[error("--resume: there is no checkpoint for {skill}")]
    NothingToResume { skill: String },
    #[error("stopped before any model call, as asked")]
    Declined,
    #[error(transparent)]
    Evals(crate::eval::suite::SuiteError),
    #[error("the replay gate of {skill} needs up to {planned} model calls for its {cases} eval cases, more than skill.evalMaxCalls ({max})")]
    EvalBudget {
        skill: String,
        cases: usize,
        planned: usize,
        max: usize,
    },
    #[error("the replay gate could not grade every eval case of {skill}: {}", .ungraded.join("; "))]
    ReplayIncomplete {
        skill: String,
        ungraded: Vec<String>,
    },
    #[error(transparent)]
    EvalStore(crate::eval::store::StoreError),
    #[error("triage found conflicting signals: {}", describe_conflicts(.0))]
    Conflicts(Vec<Conflict>),
    #[error(transparent)]
    Checkpoint(#[from] checkpoint::CheckpointError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Prompt(#[from] crate::prompt::PromptError),
    #[error(transparent)]
    Store(#[from] crate::signal::store::StoreError),
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error("cannot read '{}': {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn describe_conflicts(conflicts: &[Conflict]) -> String {
    conflicts
        .iter()
        .map(|c| format!("{} vs {} ({})", c.signal_a, c.signal_b, c.reason))
        .collect::<Vec<_>>()
        .join("; ")
}
