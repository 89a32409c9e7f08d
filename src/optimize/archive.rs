//! What an accepted optimization leaves in the audit commit: the resolved signals and
//! `optimization.json` under `.skillopt/resolved/YY-MM-DD_<desc>/`, with every field `skill-optimizer.md`
//! lists and what git-skill's stronger gate adds.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::checkpoint::{GateOutcome, Mode};
use super::checks::LocalChecks;
use super::edits::Dropped;
use crate::prompt::contracts::{Cluster, Conflict, Edit};

/// `optimization.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Optimization {
    pub optimization_id: String,
    pub skill: String,
    /// RFC 3339.
    pub timestamp: String,
    pub mode: Mode,
    pub diagnosis: String,
    /// The edits applied (MODE 1); empty for a rewrite.
    pub edits: Vec<Edit>,
    pub dropped_edits: Vec<Dropped>,
    /// MODE 2: why a rewrite.
    #[serde(default)]
    pub rewrite_reason: String,
    pub clusters: Vec<Cluster>,
    pub conflicts: Vec<Conflict>,
    /// Signals kept out of this run after a conflict; they stay pending.
    pub set_aside: Vec<String>,
    pub stale_signals: Vec<String>,
    pub gate_result: GateOutcome,
    pub local_checks: LocalChecks,
    pub pre_optimization_hash: String,
    pub post_optimization_hash: String,
    pub signal_ids: Vec<String>,
    pub pre_skill_backup: String,
    pub provider: String,
    pub model: String,
    pub summary: String,
    pub tokens: super::checkpoint::Tokens,
    /// A person edited the candidate before approving it; it was checked and judged again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// The eval cases its corrected signals became (in the optimize commit's evals.json).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eval_cases: Vec<crate::eval::CaseId>,
}

/// The resolved folder of an optimization: `YY-MM-DD_<desc>` below `.skillopt/resolved/`,
/// `<desc>` a slug of the first root cause, with `-2`, `-3`... when taken.
pub fn resolved_dir(skill_dir: &Path, date: chrono::NaiveDate, desc: &str) -> PathBuf {
    let base = crate::skill::layout::path(skill_dir, crate::skill::layout::RESOLVED);
    // A root cause that quotes a secret must not name a folder after it.
    let mut slug = crate::skill::lint::slug(&crate::redact::redact(desc));
    slug.truncate(40);
    let slug = slug.trim_end_matches('-').to_owned();
    let slug = if slug.is_empty() {
        "optimization".to_owned()
    } else {
        slug
    };
    let stem = format!("{}_{slug}", date.format("%y-%m-%d"));
    let mut n = 1;
    loop {
        let name = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        let dir = base.join(&name);
        if !dir.exists() {
            return dir;
        }
        n += 1;
    }
}

/// The earlier optimizations of the skill, oldest first (by their time, then folder name),
/// one per optimization id; unreadable ones are skipped with the reason.
pub fn earlier(skill_dir: &Path) -> (Vec<(PathBuf, Optimization)>, Vec<String>) {
    let base = crate::skill::layout::path(skill_dir, crate::skill::layout::RESOLVED);
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(&base) else {
        return (found, problems);
    };
    let mut dirs: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    dirs.sort();
    for dir in dirs {
        let path = dir.join("optimization.json");
        if std::fs::symlink_metadata(&path).map_or(true, |m| !m.is_file()) {
            continue;
        }
        match crate::fsutil::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<Optimization>(&b).map_err(|e| e.to_string()))
        {
            Ok(o) => found.push((dir, o)),
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
    found.sort_by(|(da, a), (db, b)| a.timestamp.cmp(&b.timestamp).then(da.cmp(db)));
    let mut seen = std::collections::HashSet::new();
    found.retain(|(_, o)| seen.insert(o.optimization_id.clone()));
    (found, problems)
}
