//! `git skill rollback`: the newest optimization of a skill that is still in place is
//! reverted, and the signals it resolved go back to the pending store, in the same commit as
//! the revert: the problem they describe is back, so the feedback is too. The audit commit
//! stays (its `resolved/` folder still says what was done, `git skill log` marks it rolled
//! back), and nothing in history is rewritten.
//!
//! Only what optimize made is rolled back: the commit must be a genuine optimization (its
//! record committed in the skill's `resolved/` folder, with the hashes of SKILL.md before and
//! after, and no file changed but SKILL.md and `evals/evals.json`), and the skill as the revert
//! leaves it passes the one gate as a person's change. A commit made by hand with an
//! `optimize(skill):` subject (a pull request can carry one) would otherwise turn a revert into a
//! way around the pre-commit hook: git-skill refuses it and names `git revert`, which runs the
//! person's hooks.
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
    #[error("commit {commit} is not an optimization git-skill made, so git-skill does not revert it: {why}")]
    NotGenuine {
        skill: String,
        commit: String,
        why: String,
    },
    #[error("rolling back {skill} was refused, nothing changed: the skill as the revert leaves it does not pass the gate: {}", .reasons.join("; "))]
    Blocked { skill: String, reasons: Vec<String> },
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the reverted skill is judged by: the repository's fail level and today's date (for
/// the policy's expiries).
#[derive(Debug, Clone, Copy)]
pub struct Landing {
    pub fail_on: crate::config::FailOn,
    pub today: chrono::NaiveDate,
}

/// Reverts the newest optimization of the skill at `skill_dir` (`skill_rel` from the top)
/// that is not reverted yet, its signals back in `pending/` with the revert.
pub fn rollback(
    repo: &Repo,
    skill_dir: &Path,
    skill_rel: &str,
    skill: &str,
    now: chrono::DateTime<chrono::Utc>,
    landing: Landing,
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
    let (archived, case_ids) =
        genuine(repo, skill_dir, skill_rel, &target, commit).map_err(|why| {
            RollbackError::NotGenuine {
                skill: skill.to_owned(),
                commit: target.commit.clone(),
                why,
            }
        })?;
    let policy = crate::check::policy_at(repo, crate::git::At::Head).map_err(|e| {
        RollbackError::Blocked {
            skill: skill.to_owned(),
            reasons: vec![format!("the repository's policy cannot be read: {e}")],
        }
    })?;
    // A refused or failed revert leaves no empty store behind where there was none.
    let store_file = store::pending_path(skill_dir);
    let had_store = std::fs::symlink_metadata(&store_file).is_ok();
    let mut refusal = None;
    let mut vet = |changes: &[FileChange]| -> Result<(), String> {
        match vet_landing(skill_dir, skill_rel, changes, policy.as_ref(), landing) {
            Ok(()) => Ok(()),
            Err(reasons) => {
                let why = reasons.join("; ");
                refusal = Some(reasons);
                Err(why)
            }
        }
    };
    let pending_rel = layout::rel(skill_rel, layout::PENDING);
    let skill_md = format!("{skill_rel}/SKILL.md");
    // The eval cases its signals became go with the change (and the signals come back).
    let evals_json = format!("{skill_rel}/{}", crate::eval::EVALS_JSON);
    // Under the store's writers' lock, as optimize's archive: an append waiting meanwhile
    // lands in the file the commit writes, and what is pending is read there.
    let nothing = std::collections::HashSet::new();
    let reverted = store::rewrite_without(skill_dir, &nothing, |current, _| {
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
        repo.revert_paths_commit(
            commit,
            &[skill_md.as_str(), evals_json.as_str()],
            &also,
            &mut vet,
        )
        .map(|outcome| (outcome, returning))
    })?;
    if reverted.is_err() && !had_store {
        if std::fs::metadata(&store_file).is_ok_and(|m| m.is_file() && m.len() == 0) {
            let _ = std::fs::remove_file(&store_file);
        }
        // Each only when empty: whatever else is there stays.
        if let Some(pending) = store_file.parent() {
            let _ = std::fs::remove_dir(pending);
            let _ = pending.parent().map(std::fs::remove_dir);
        }
    }
    let (outcome, returning) = reverted.map_err(|e| match (e, refusal.take()) {
        (GitError::RevertRefused { .. }, Some(reasons)) => RollbackError::Blocked {
            skill: skill.to_owned(),
            reasons,
        },
        (e, _) => RollbackError::Git(e),
    })?;
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
    })
}

/// The signals and eval cases of the optimization `commit` when it is one git-skill made: its
/// record is committed in the skill's `resolved/` folder under the id of the commit's
/// `Optimization-Id` trailer, SKILL.md before and after the commit has the hashes the record
/// holds, and the commit changed nothing but SKILL.md and `evals/evals.json`. Otherwise why
/// not.
fn genuine(
    repo: &Repo,
    skill_dir: &Path,
    skill_rel: &str,
    target: &history::Optimized,
    commit: gix::ObjectId,
) -> Result<(Vec<Signal>, Vec<crate::eval::CaseId>), String> {
    use crate::git::{At, RegularBlob};
    let id = target
        .optimization_id
        .as_deref()
        .ok_or("it has no Optimization-Id trailer")?;
    let (earlier, _) = archive::earlier(skill_dir);
    let (dir, record) = earlier
        .iter()
        .find(|(_, o)| o.optimization_id == id)
        .ok_or_else(|| {
            format!(
                "no record of optimization {id} is in {}/ (optimize commits one beside every change it makes)",
                layout::rel(skill_rel, layout::RESOLVED)
            )
        })?;
    let rel_of = |path: &Path| {
        let inner = path.strip_prefix(skill_dir).unwrap_or(path);
        format!("{skill_rel}/{}", inner.to_string_lossy().replace('\\', "/"))
    };
    let cap = 16 * 1024 * 1024;
    // The record as committed: a file left in the work tree proves nothing.
    let record_rel = rel_of(&dir.join("optimization.json"));
    let on_disk = crate::fsutil::read(&dir.join("optimization.json")).map_err(|e| e.to_string())?;
    // Line ends aside: a checkout with `core.autocrlf` writes CRLF where the blob has LF.
    let lf = |b: &[u8]| -> Vec<u8> { b.iter().copied().filter(|&c| c != b'\r').collect() };
    match repo.regular_blob(At::Head, &record_rel, cap) {
        Ok(RegularBlob::Regular(bytes)) if lf(&bytes) == lf(&on_disk) => {}
        _ => {
            return Err(format!(
                "its record '{record_rel}' is not committed as it is on disk"
            ))
        }
    }
    let skill_md = format!("{skill_rel}/SKILL.md");
    // The record hashes SKILL.md as optimize read it from the work tree: the blob, or the blob
    // with CRLF line ends.
    let matches_at =
        |rev: &str, hash: &str| match repo.regular_blob(At::Revision(rev), &skill_md, cap) {
            Ok(RegularBlob::Regular(bytes)) => {
                let crlf = String::from_utf8_lossy(&lf(&bytes)).replace('\n', "\r\n");
                crate::signal::sha256_hex(&bytes) == hash
                    || crate::signal::sha256_hex(crlf.as_bytes()) == hash
            }
            _ => false,
        };
    let sha = commit.to_string();
    if !matches_at(&sha, &record.post_optimization_hash) {
        return Err(format!(
            "{skill_md} in that commit is not the text its record says optimization {id} wrote"
        ));
    }
    if !matches_at(&format!("{sha}^"), &record.pre_optimization_hash) {
        return Err(format!(
            "{skill_md} before that commit is not the text its record says optimization {id} started from"
        ));
    }
    let evals_json = format!("{skill_rel}/{}", crate::eval::EVALS_JSON);
    let changed = repo.changed_by(commit).map_err(|e| e.to_string())?;
    if let Some(other) = changed
        .iter()
        .find(|p| **p != skill_md && **p != evals_json)
    {
        return Err(format!(
            "it also changes '{other}', and optimize changes only SKILL.md and {}",
            crate::eval::EVALS_JSON
        ));
    }
    let loaded = store::load(&dir.join("signal.json")).map_err(|e| e.to_string())?;
    Ok((
        loaded.signals.into_iter().map(|(_, s)| s).collect(),
        record.eval_cases.clone(),
    ))
}

/// The skill as the revert `changes` leave it, judged by the one gate as a person's change:
/// the reasons it may not land, if any.
fn vet_landing(
    skill_dir: &Path,
    skill_rel: &str,
    changes: &[FileChange],
    policy: Option<&crate::guard::suppress::Policy>,
    landing: Landing,
) -> Result<(), Vec<String>> {
    use crate::check::{self, Snapshot, Writer};
    let before = Snapshot::from_dir(skill_dir, skill_rel.to_owned(), String::new(), None)
        .map_err(|e| vec![format!("the skill could not be read: {e}")])?;
    let mut after = before.clone();
    let prefix = format!("{skill_rel}/");
    for change in changes {
        let Some(rel) = change.path.strip_prefix(&prefix) else {
            continue;
        };
        after = match &change.content {
            Some(bytes) => after.with_file(rel, bytes.clone()),
            None => after.without_file(rel),
        };
    }
    // As CI judges a range: a suppression counts only for what HEAD had suppressed, so an
    // allow comment the revert brings back (a pull request can stage one with a forged
    // optimization that removes it) does not let its own finding land.
    let mut gate = check::Gate::new(Writer::Person, policy, landing.fail_on, landing.today);
    gate.allows = check::Allows::Before;
    let change = check::Change {
        before: Some(before),
        after,
        display: skill_dir.to_owned(),
    };
    let judged = check::gate::decide(std::slice::from_ref(&change), &gate, 1)
        .skills
        .remove(0);
    let mut reasons = Vec::new();
    if judged.verdict_blocks(landing.fail_on) {
        let findings: Vec<String> = judged
            .counted_findings()
            .iter()
            .filter(|f| f.suppressed.is_none())
            .map(|f| format!("{} {}:{} {}", f.rule, f.file, f.line, f.message))
            .collect();
        reasons.push(format!(
            "SkillGuard calls it {} (skill.failOn is {}): {}",
            judged.counted.as_str(),
            landing.fail_on.as_str(),
            findings.join(", ")
        ));
    }
    for e in &judged.check.report.errors {
        reasons.push(format!("it could not be checked: {e}"));
    }
    for d in &judged.introduced {
        reasons.push(format!("lint {}: {}", d.code, d.message));
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(reasons)
    }
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
