//! The checkpoint of a run, `<skill>/.skillopt/work/optimization_<time>.json`: everything the
//! steps so far produced, model answers included, written atomically after each step, so that
//! `--resume` after a crash, a kill or Ctrl-C repeats no model call that already answered.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::checks::LocalChecks;
use super::edits::Dropped;
use crate::prompt::contracts::{Edit, Reflection, TriageAnswer};
use crate::signal::Signal;

pub const VERSION: u32 = 1;

/// The directory checkpoints live in (never committed: `.skillopt/.gitignore` says `work/`).
pub fn work_dir(skill_dir: &Path) -> PathBuf {
    crate::skill::layout::path(skill_dir, crate::skill::layout::WORK)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    TextEdit,
    Rewrite,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::TextEdit => "text_edit",
            Mode::Rewrite => "rewrite",
        }
    }
}

/// The candidate SKILL.md of step 6.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub mode: Mode,
    pub text: String,
    /// MODE 1: the edits applied.
    pub edits: Vec<Edit>,
    /// MODE 1: the edits dropped, with the reason.
    pub dropped: Vec<Dropped>,
    /// A person edited it before approving (`e` at the question): `text` is theirs, checked
    /// and judged again; `edits` are the model's, from before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
}

/// One gate verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateRecord {
    pub cluster_id: String,
    /// `YES`, `NO`, `COVERED` or `NOT_COVERED`.
    pub verdict: String,
    pub passed: bool,
    pub reason: String,
    /// For regression checks: the optimization that fixed this cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_optimization: Option<String>,
    /// With `skill.gateVotes` above 1: every judge's vote, the majority giving `verdict`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub votes: Vec<Vote>,
}

/// One judge's vote on a cluster, and how the question was put to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    pub verdict: String,
    pub passed: bool,
    pub reason: String,
    /// `skill first` or `signals first`, and whether the signals came in reverse order.
    pub framing: String,
}

/// The gate of step 7.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateOutcome {
    pub mode: Mode,
    /// Only friction signals: `skill-optimizer.md` skips the model gate.
    pub skipped: bool,
    pub records: Vec<GateRecord>,
    pub passed: usize,
    pub total: usize,
    pub threshold: f64,
    pub accepted: bool,
    /// Earlier fixes judged again against the candidate; any that fails rejects the run.
    pub regression: Vec<GateRecord>,
    /// The skill's eval cases run on SKILL.md as it is and on the candidate, when the skill
    /// has evals and the judges accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Replay>,
}

impl GateOutcome {
    /// The judges accepted, every earlier fix holds, and no eval case broke (or the person
    /// took the regression).
    pub fn passed(&self) -> bool {
        self.accepted
            && self.regression.iter().all(|r| r.passed)
            && self
                .replay
                .as_ref()
                .is_none_or(|r| r.allowed || r.regressions.is_empty())
    }
}

/// The replay gate: the skill's eval cases, run on SKILL.md before and after the change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replay {
    pub cases: usize,
    /// SKILL.md as it is.
    pub before: PassRate,
    /// The candidate.
    pub after: PassRate,
    /// Cases SKILL.md passes as it is and the candidate does not: any refuses the change,
    /// unless `--allow-regression` took them (`allowed`).
    pub regressions: Vec<Regressed>,
    pub allowed: bool,
    /// Calls it made (0 when an earlier run had graded everything).
    pub calls: u32,
    /// Where the answers, grades and benchmark.json are (under the git directory).
    pub run: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassRate {
    pub passed: usize,
    pub graded: usize,
}

impl std::fmt::Display for PassRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.passed, self.graded)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Regressed {
    /// The case's id.
    pub case: String,
    /// The judge's reason for failing the candidate's answer.
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub calls: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub version: u32,
    pub optimization_id: String,
    pub skill: String,
    /// RFC 3339.
    pub started: String,
    /// sha256 of SKILL.md when the run started; a checkpoint for another SKILL.md is stale.
    pub pre_hash: String,
    pub last_completed_step: u8,
    pub signals: Vec<Signal>,
    pub stale: Vec<String>,
    pub left_out: usize,
    pub too_old: usize,
    pub triage: Option<TriageAnswer>,
    /// Signals kept out of this run after a conflict, with the one preferred.
    pub set_aside: Vec<String>,
    pub reflection: Option<Reflection>,
    pub candidate: Option<Candidate>,
    pub checks: Option<LocalChecks>,
    /// Gate answers received so far, by cluster id (a gate interrupted halfway resumes with
    /// the rest).
    pub gate_answers: BTreeMap<String, GateRecord>,
    pub regression_answers: BTreeMap<String, GateRecord>,
    pub gate: Option<GateOutcome>,
    pub tokens: Tokens,
    /// The selection options the run started with; a resume with others is refused.
    pub days: u32,
    pub max_signals: usize,
    /// HEAD when the run started.
    pub head: String,
    /// Made by `--dry-run`: a `--resume` commits exactly its candidate, and refuses when the
    /// skill, the selected signals or the configuration changed since.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// The configuration that shaped the prompts and the verdict, when the run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<super::fingerprint::Fingerprint>,
    /// How many times the judges were asked: once, and once more after each edit by hand.
    #[serde(default = "one")]
    pub gate_rounds: u32,
    /// Step 8 under way: its commits prepared (their objects written) and what they archive,
    /// saved before the work tree, the index or HEAD change, so that a resume after a crash at
    /// any point knows whether they landed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitIntent>,
}

/// What step 8 is about to land (see [`Checkpoint::commit`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitIntent {
    pub plan: crate::git::Plan,
    /// The signals the audit commit archives.
    pub signal_ids: Vec<String>,
    pub audit_message: String,
    pub optimize_message: String,
    /// The archive directory, relative to the top.
    pub resolved_dir: String,
    /// The pending store, relative to the top.
    pub pending: String,
    /// The eval cases the optimize commit adds (for the report of a recovered run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eval_cases: Vec<crate::eval::Case>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot read the checkpoint '{}': {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the checkpoint '{}' is not usable: {reason}", path.display())]
    Corrupt { path: PathBuf, reason: String },
    #[error("cannot write the checkpoint '{}': {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The newest checkpoint of the skill, if any.
pub fn find(skill_dir: &Path) -> Result<Option<(PathBuf, Checkpoint)>, CheckpointError> {
    let dir = work_dir(skill_dir);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(CheckpointError::Read { path: dir, source }),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("optimization_") && n.ends_with(".json"))
        })
        .collect();
    paths.sort();
    let Some(path) = paths.pop() else {
        return Ok(None);
    };
    if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Err(CheckpointError::Corrupt {
            path,
            reason: "not a regular file".into(),
        });
    }
    let bytes = crate::fsutil::read(&path).map_err(|source| CheckpointError::Read {
        path: path.clone(),
        source,
    })?;
    let checkpoint: Checkpoint =
        serde_json::from_slice(&bytes).map_err(|e| CheckpointError::Corrupt {
            path: path.clone(),
            reason: e.to_string(),
        })?;
    if checkpoint.version != VERSION {
        return Err(CheckpointError::Corrupt {
            path,
            reason: format!(
                "version {} (this git-skill writes {VERSION})",
                checkpoint.version
            ),
        });
    }
    Ok(Some((path, checkpoint)))
}

/// Writes the checkpoint atomically.
pub fn save(path: &Path, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
    let err = |source| CheckpointError::Write {
        path: path.to_owned(),
        source,
    };
    // The checkpoint holds the signals and the model's answers: the user's alone.
    if let Some(dir) = path.parent() {
        crate::fsutil::private_dir(dir).map_err(err)?;
    }
    let json = serde_json::to_vec_pretty(checkpoint).expect("a checkpoint serialises");
    crate::fsutil::write_private(path, &json).map_err(err)
}

/// What a committed run leaves in `.skillopt/work/` until the next run starts: its report. A
/// `--resume` after a kill during the cleanup, or after the run had ended, reports that run
/// instead of finding nothing to resume.
pub const FINISHED: &str = "finished.json";

/// Writes the report of a run whose commits landed, atomically, before the cleanup.
pub fn save_finished(work: &Path, report: &super::Report) -> Result<(), CheckpointError> {
    let path = work.join(FINISHED);
    let err = |source| CheckpointError::Write {
        path: path.clone(),
        source,
    };
    let json = crate::redact::to_json_pretty(report).map_err(|e| err(std::io::Error::other(e)))?;
    crate::fsutil::write_private(&path, &json).map_err(err)
}

/// The report a finished run left, if any (one that cannot be read counts as none).
pub fn finished(work: &Path) -> Option<super::Report> {
    let bytes = crate::fsutil::read_regular(&work.join(FINISHED), 16 << 20).ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// Forgets a finished run's report: a new run starts.
pub fn forget_finished(work: &Path) {
    let _ = std::fs::remove_file(work.join(FINISHED));
}
