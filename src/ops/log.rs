//! `git skill log`: how a skill evolved, each optimization newest first, with the commit that
//! landed it and the rollback that undid it, if one did.

use std::collections::HashMap;

use serde::Serialize;

use crate::env::{Env, EnvError};
use crate::git::GitError;
use crate::optimize::{archive, history};
use crate::skill::discover::Skill;

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error("'{}' is not inside the repository", .0.display())]
    Outside(std::path::PathBuf),
    #[error(transparent)]
    Git(#[from] GitError),
}

#[derive(Debug, Serialize)]
pub struct Log {
    pub skill: String,
    pub optimizations: Vec<Row>,
    /// Records in the skill's resolved folder that could not be read.
    #[serde(skip)]
    pub skipped: Vec<String>,
}

/// One optimization.
#[derive(Debug, Serialize)]
pub struct Row {
    pub optimization_id: String,
    pub timestamp: String,
    pub mode: &'static str,
    pub summary: String,
    pub signals_resolved: usize,
    pub clusters: usize,
    pub gate_passed: usize,
    pub gate_total: usize,
    pub gate_skipped: bool,
    /// The replay gate's pass rates, before and after, when the skill had evals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evals: Option<crate::optimize::Replay>,
    /// The eval cases its corrected signals became.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub eval_cases: Vec<crate::eval::CaseId>,
    /// Its record's folder, as the user should see it.
    pub resolved_dir: String,
    /// The `optimize(skill):` commit, when the history has it.
    pub commit: Option<String>,
    pub rolled_back: bool,
    pub reverted_by: Option<String>,
}

pub fn log(env: &Env, skill: &Skill) -> Result<Log, LogError> {
    let repo = env.require_repo("log")?;
    let rel = repo
        .relative(&skill.dir)
        .ok_or_else(|| LogError::Outside(skill.dir.clone()))?;
    let commits = history::optimizations(repo, &rel)?;
    let by_id: HashMap<&str, &history::Optimized> = commits
        .iter()
        .filter_map(|c| c.optimization_id.as_deref().map(|id| (id, c)))
        .collect();
    let (records, problems) = archive::earlier(&skill.dir);
    let mut rows: Vec<Row> = records
        .iter()
        .map(|(dir, o)| {
            let commit = by_id.get(o.optimization_id.as_str());
            Row {
                optimization_id: o.optimization_id.clone(),
                timestamp: o.timestamp.clone(),
                mode: o.mode.as_str(),
                summary: o.summary.clone(),
                signals_resolved: o.signal_ids.len(),
                clusters: o.clusters.len(),
                gate_passed: o.gate_result.passed,
                gate_total: o.gate_result.total,
                gate_skipped: o.gate_result.skipped,
                evals: o.gate_result.replay.clone(),
                eval_cases: o.eval_cases.clone(),
                resolved_dir: env.display(dir).display().to_string(),
                commit: commit.map(|c| c.commit.clone()),
                rolled_back: commit.is_some_and(|c| c.reverted_by.is_some()),
                reverted_by: commit.and_then(|c| c.reverted_by.clone()),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.timestamp
            .cmp(&a.timestamp)
            .then(b.optimization_id.cmp(&a.optimization_id))
    });
    Ok(Log {
        skill: skill.dir_name.clone(),
        optimizations: rows,
        skipped: problems,
    })
}
