//! `git skill rollback`: the newest optimization of a skill that is still in place is
//! reverted, and the signals it resolved go back to the pending store, in the same commit as
//! the revert: the problem they describe is back, so the feedback is too. The audit commit
//! stays (its `resolved/` folder still says what was done, `git skill log` marks it rolled
//! back), and nothing in history is rewritten.
//!
//! Why write them back rather than derive "pending again" from history: the store stays the
//! one place every reader looks (`signals`, the dashboard, `optimize`, anything else that
//! reads `pending/signal.json`), no command walks the log to count signals, and `git show`
//! of the rollback shows the feedback coming back. A later optimization that resolves them
//! archives them again, under its own folder.

use std::path::Path;

use super::{archive, history};
use crate::fsutil::worklock::{LockError, WorkLock};
use crate::git::{FileChange, GitError, Repo, RevertMethod};
use crate::signal::store::{self, StoreError};
use crate::signal::Signal;
use crate::skill::layout;

/// What a rollback did.
#[derive(Debug, Clone)]
pub struct Rollback {
    /// The optimize commit reverted.
    pub reverted: history::Optimized,
    /// The revert, now HEAD.
    pub commit: gix::ObjectId,
    pub method: RevertMethod,
    /// The ids of the signals put back in the pending store, in the revert's commit.
    pub returned: Vec<String>,
    /// How many of them are older than the default window of optimize (`--days`).
    pub returned_old: usize,
    /// The optimization's archive was not found (an optimize commit without its record):
    /// nothing could be returned.
    pub no_record: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum RollbackError {
    #[error("{skill} has uncommitted changes: {}", .paths.join(", "))]
    Dirty { skill: String, paths: Vec<String> },
    #[error("nothing to roll back for {skill}: {why}")]
    Nothing { skill: String, why: String },
    #[error("an optimize of {skill} is running (lock '{}')", .lock.display())]
    Busy {
        skill: String,
        lock: std::path::PathBuf,
    },
    #[error("an optimize of {skill} was cut short while committing")]
    Interrupted { skill: String },
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Reverts the newest optimization of the skill at `skill_dir` (`skill_rel` from the top)
/// that is not reverted yet, its signals back in `pending/` with the revert.
pub fn rollback(
    repo: &Repo,
    skill_dir: &Path,
    skill_rel: &str,
    skill: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Rollback, RollbackError> {
    let ignore = format!("{}/", layout::rel(skill_rel, layout::DIR));
    let dirty = repo.dirty_paths(skill_rel, &[ignore.as_str()])?;
    if !dirty.is_empty() {
        return Err(RollbackError::Dirty {
            skill: skill.to_owned(),
            paths: dirty,
        });
    }
    let optimizations = history::optimizations(repo, skill_rel)?;
    let Some(target) = optimizations
        .iter()
        .find(|o| o.reverted_by.is_none())
        .cloned()
    else {
        let why = if optimizations.is_empty() {
            format!("no optimize(skill) commit touched {skill_rel}/SKILL.md")
        } else {
            "every optimization of it is rolled back already".to_owned()
        };
        return Err(RollbackError::Nothing {
            skill: skill.to_owned(),
            why,
        });
    };
    let commit = gix::ObjectId::from_hex(target.commit.as_bytes()).map_err(|e| GitError::Read {
        path: skill_dir.to_owned(),
        message: format!("bad commit id {}: {e}", target.commit),
    })?;
    // No optimize of this skill meanwhile: it could land a newer optimization than the one
    // chosen, or be halfway through its commits.
    let work = super::checkpoint::work_dir(skill_dir);
    let _lock = WorkLock::acquire(&work).map_err(|e| match e {
        LockError::Busy { lock } => RollbackError::Busy {
            skill: skill.to_owned(),
            lock,
        },
        LockError::NotADirectory { path } | LockError::Io { path, .. } => {
            RollbackError::Git(GitError::Read {
                path,
                message: "cannot take the optimize lock".into(),
            })
        }
    })?;
    if let Ok(Some((_, cp))) = super::checkpoint::find(skill_dir) {
        if cp.commit.is_some() {
            return Err(RollbackError::Interrupted {
                skill: skill.to_owned(),
            });
        }
    }
    let archived = archived_signals(skill_dir, target.optimization_id.as_deref());
    let no_record = archived.is_none();
    let (archived, case_ids) = archived.unwrap_or_default();
    let pending_rel = layout::rel(skill_rel, layout::PENDING);
    let skill_md = format!("{skill_rel}/SKILL.md");
    // The eval cases its signals became go with the change (and the signals come back).
    let evals_json = format!("{skill_rel}/{}", crate::eval::EVALS_JSON);
    // Under the store's writers' lock, as optimize's archive: an append waiting meanwhile
    // lands in the file the commit writes, and what is pending is read there.
    let nothing = std::collections::HashSet::new();
    let (outcome, returning) = store::rewrite_without(skill_dir, &nothing, |current, _| {
        let present = store::signal_ids(current);
        let returning: Vec<Signal> = archived
            .iter()
            .filter(|s| !present.contains(&s.signal_id))
            .cloned()
            .collect();
        let mut also = if returning.is_empty() {
            Vec::new()
        } else {
            let mut content = current.to_vec();
            if !content.is_empty() && !content.ends_with(b"\n") {
                content.push(b'\n');
            }
            content.extend_from_slice(&store::to_lines(&returning));
            vec![FileChange::write(pending_rel.clone(), content)]
        };
        // The cases its signals became go, by their source: a text merge would conflict with
        // any case appended since.
        if let Some(change) = evals_without(repo, commit, &evals_json, &archived, &case_ids) {
            also.push(change);
        }
        repo.revert_paths_commit(commit, &[skill_md.as_str(), evals_json.as_str()], &also)
            .map(|outcome| (outcome, returning))
    })??;
    let window = chrono::Duration::days(i64::from(crate::signal::select::DEFAULT_DAYS));
    let returned_old = returning
        .iter()
        .filter(|s| s.time().is_some_and(|t| t < now - window))
        .count();
    Ok(Rollback {
        reverted: target,
        commit: outcome.commit,
        method: outcome.method,
        returned: returning.into_iter().map(|s| s.signal_id).collect(),
        returned_old,
        no_record,
    })
}

/// HEAD's evals.json without the cases the optimization `commit` added (`ids`, each still
/// coming from one of its `signals`); the file goes when the optimization created it and
/// nothing else is left. `None` when HEAD has no such file to edit (then the revert merges it
/// like any file).
fn evals_without(
    repo: &Repo,
    commit: gix::ObjectId,
    rel: &str,
    signals: &[Signal],
    ids: &[crate::eval::CaseId],
) -> Option<FileChange> {
    use crate::git::{At, RegularBlob};
    let read = |at: At<'_>| {
        repo.regular_blob(at, rel, crate::eval::cases::MAX_EVALS_BYTES as u64)
            .ok()
    };
    let Some(RegularBlob::Regular(bytes)) = read(At::Head) else {
        return None;
    };
    let sources: std::collections::HashSet<String> = signals
        .iter()
        .map(|s| super::evals::source_of(&s.signal_id))
        .collect();
    let parent = format!("{commit}^");
    let created = matches!(read(At::Revision(&parent)), Some(RegularBlob::Missing));
    // Unchanged (its cases gone already, or none added) is written as it is: `also` covers
    // the path, so the revert never merges it as text.
    let left = super::evals::remove_cases(&bytes, ids, &sources, created).ok()?;
    Some(match left {
        Some(left) => FileChange::write(rel, left),
        None => FileChange::delete(rel),
    })
}

/// The signals the optimization `id` archived (its `resolved/` folder's `signal.json`);
/// `None` when its record is not there.
fn archived_signals(
    skill_dir: &Path,
    id: Option<&str>,
) -> Option<(Vec<Signal>, Vec<crate::eval::CaseId>)> {
    let id = id?;
    let (earlier, _) = archive::earlier(skill_dir);
    let (dir, record) = earlier.iter().find(|(_, o)| o.optimization_id == id)?;
    let loaded = store::load(&dir.join("signal.json")).ok()?;
    Some((
        loaded.signals.into_iter().map(|(_, s)| s).collect(),
        record.eval_cases.clone(),
    ))
}

/// Pending signals that a rollback returned: signal id -> the revert that returned it, from
/// the optimizations rolled back (newest revert first). For `git skill signals`.
pub fn returned_by(
    repo: &Repo,
    skill_dir: &Path,
    skill_rel: &str,
) -> Result<std::collections::HashMap<String, String>, GitError> {
    let mut out = std::collections::HashMap::new();
    let rolled: Vec<(String, String)> = history::optimizations(repo, skill_rel)?
        .into_iter()
        .filter_map(|o| Some((o.optimization_id?, o.reverted_by?)))
        .collect();
    if rolled.is_empty() {
        return Ok(out);
    }
    let (earlier, _) = archive::earlier(skill_dir);
    for (id, revert) in rolled {
        if let Some((_, o)) = earlier.iter().find(|(_, o)| o.optimization_id == id) {
            for signal in &o.signal_ids {
                out.entry(signal.clone()).or_insert_with(|| revert.clone());
            }
        }
    }
    Ok(out)
}
