//! `git skill proposals`: the review's proposals, kept as commits under
//! `refs/skill-proposals/<id>`, listed, shown as a diff, accepted (a three-way merge onto the
//! work tree and the index, checked like any commit first), rejected or pruned.

use std::collections::HashMap;

use serde::Serialize;

use super::message::{self, Facts};
use super::REF_PREFIX;
use crate::check::{self, Snapshot};
use crate::config::FailOn;
use crate::git::{At, FileChange, GitError, Merged, Repo, TreeChange};
use crate::skill::SkillFiles;

/// One proposal.
#[derive(Debug, Clone, Serialize)]
pub struct Proposal {
    pub id: String,
    pub refname: String,
    pub commit: String,
    /// HEAD when the review started.
    pub base: String,
    /// Commit time, RFC 3339.
    pub date: String,
    #[serde(skip)]
    pub time: i64,
    #[serde(flatten)]
    pub facts: Facts,
    /// HEAD is no longer the review's base.
    pub head_moved: bool,
    /// Files the proposal changes.
    pub files: Vec<String>,
    #[serde(skip)]
    pub message: String,
    #[serde(skip)]
    changes: Vec<TreeChange>,
    #[serde(skip)]
    tree: gix::ObjectId,
    #[serde(skip)]
    base_tree: gix::ObjectId,
}

#[derive(Debug, thiserror::Error)]
pub enum ProposalError {
    #[error("no proposal '{id}' (git skill proposals list shows them)")]
    NotFound { id: String },
    #[error("'{id}' names {} proposals: {}", .matches.len(), .matches.join(", "))]
    Ambiguous { id: String, matches: Vec<String> },
    #[error("'{refname}' is not a proposal git-skill can read: {reason}")]
    Malformed { refname: String, reason: String },
    #[error("proposal {id} conflicts with the work tree at {}; nothing was changed", .paths.join(", "))]
    Conflict { id: String, paths: Vec<String> },
    #[error("proposal {id} changes '{path}', which is outside every skill root; it is refused")]
    OutsideRoots { id: String, path: String },
    #[error("proposal {id} would not pass the pre-commit check; nothing was changed:\n{}", .reasons.join("\n"))]
    Blocked { id: String, reasons: Vec<String> },
    #[error("--commit would also commit your uncommitted changes of {}; accept without --commit and commit yourself", .paths.join(", "))]
    DirtyForCommit { paths: Vec<String> },
    #[error(transparent)]
    Git(#[from] GitError),
}

/// Every proposal, oldest first.
pub fn list(repo: &Repo) -> Result<Vec<Proposal>, ProposalError> {
    Ok(list_all(repo)?.0)
}

/// Every proposal, oldest first, and what was skipped under `refs/skill-proposals/` (a
/// symbolic reference, or one that is not a proposal git-skill wrote), each with why.
pub fn list_all(repo: &Repo) -> Result<(Vec<Proposal>, Vec<String>), ProposalError> {
    let head = repo.head_commit_id()?;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for (refname, target) in repo.refs_under(REF_PREFIX)? {
        let Some(commit) = target else {
            skipped.push(format!(
                "'{refname}' is a symbolic reference, not a proposal"
            ));
            continue;
        };
        match read(repo, &refname, commit, head) {
            Ok(p) => out.push(p),
            Err(e) => skipped.push(e.to_string()),
        }
    }
    out.sort_by(|a, b| (a.time, &a.id).cmp(&(b.time, &b.id)));
    Ok((out, skipped))
}

/// The proposal `id`, or the one whose id starts with it.
pub fn find(repo: &Repo, id: &str) -> Result<Proposal, ProposalError> {
    let id = id.trim().strip_prefix(REF_PREFIX).unwrap_or(id.trim());
    let all = list(repo)?;
    if let Some(p) = all.iter().find(|p| p.id == id) {
        return Ok(p.clone());
    }
    let matches: Vec<&Proposal> = all
        .iter()
        .filter(|p| !id.is_empty() && (p.id.starts_with(id) || p.commit.starts_with(id)))
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ProposalError::NotFound { id: id.to_owned() }),
        many => Err(ProposalError::Ambiguous {
            id: id.to_owned(),
            matches: many.iter().map(|p| p.id.clone()).collect(),
        }),
    }
}

fn read(
    repo: &Repo,
    refname: &str,
    commit: gix::ObjectId,
    head: Option<gix::ObjectId>,
) -> Result<Proposal, ProposalError> {
    let malformed = |reason: String| ProposalError::Malformed {
        refname: refname.to_owned(),
        reason,
    };
    let info = repo
        .commit_info(commit)
        .map_err(|e| malformed(e.to_string()))?;
    let base = info
        .parent
        .ok_or_else(|| malformed("its commit has no parent".into()))?;
    let base_tree = repo
        .commit_info(base)
        .map_err(|e| malformed(e.to_string()))?
        .tree;
    let changes = repo.tree_changes(base_tree, info.tree)?;
    let date = chrono::DateTime::from_timestamp(info.time, 0)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default();
    Ok(Proposal {
        id: super::id_of(refname).to_owned(),
        refname: refname.to_owned(),
        commit: commit.to_string(),
        base: base.to_string(),
        date,
        time: info.time,
        facts: message::parse(&info.message),
        head_moved: head != Some(base),
        files: changes.iter().map(|c| c.path.clone()).collect(),
        message: info.message,
        changes,
        tree: info.tree,
        base_tree,
    })
}

/// The proposal's changes as a unified diff (`a/` its base, `b/` the proposal).
pub fn diff(repo: &Repo, p: &Proposal) -> Result<String, ProposalError> {
    let mut out = String::new();
    for c in &p.changes {
        let text = |id: Option<gix::ObjectId>| -> Result<String, GitError> {
            Ok(match id {
                Some(id) => String::from_utf8_lossy(&repo.blob(id, &c.path)?).into_owned(),
                None => String::new(),
            })
        };
        let (old, new) = (text(c.old)?, text(c.new)?);
        out.push_str(&format!("diff --git a/{0} b/{0}\n", c.path));
        match (c.old, c.new) {
            (None, _) => out.push_str("new file\n"),
            (_, None) => out.push_str("deleted file\n"),
            _ => {}
        }
        let from = if c.old.is_some() {
            format!("a/{}", c.path)
        } else {
            "/dev/null".into()
        };
        let to = if c.new.is_some() {
            format!("b/{}", c.path)
        } else {
            "/dev/null".into()
        };
        out.push_str(
            &similar::TextDiff::from_lines(&old, &new)
                .unified_diff()
                .context_radius(3)
                .header(&from, &to)
                .to_string(),
        );
    }
    Ok(out)
}

/// What `accept` did.
#[derive(Debug, Clone, Serialize)]
pub struct Accepted {
    pub id: String,
    pub files: Vec<String>,
    /// The commit made with `--commit`.
    pub commit: Option<String>,
    /// Verdicts of the skills as accepted.
    pub verdicts: Vec<(String, &'static str)>,
}

/// Applies proposal `p` to the work tree and the index (three-way, against the person's
/// uncommitted edits too), after checking the skills it touches as the pre-commit hook would;
/// with `commit`, commits it on the current branch with the proposal's message. A conflict,
/// a path outside the roots, or a failing check changes nothing. The reference is deleted
/// once applied.
pub fn accept(
    repo: &Repo,
    p: &Proposal,
    roots: &[(String, String)],
    fail_on: FailOn,
    commit: bool,
    today: chrono::NaiveDate,
) -> Result<Accepted, ProposalError> {
    for path in &p.files {
        if !roots
            .iter()
            .any(|(r, _)| path.starts_with(&format!("{}/", r.trim_end_matches('/'))))
        {
            return Err(ProposalError::OutsideRoots {
                id: p.id.clone(),
                path: path.clone(),
            });
        }
    }
    // Every path is one git-skill may write, before any file is read for the merge.
    for path in &p.files {
        repo.check_path_for_write(path)?;
    }
    let merged = match repo.merge_onto_worktree(p.base_tree, p.tree, &p.files)? {
        Merged::Conflict(paths) => {
            return Err(ProposalError::Conflict {
                id: p.id.clone(),
                paths,
            })
        }
        Merged::Clean(changes) => changes,
    };
    // git's rule, whatever merge driver the repository's attributes name (`merge=union`
    // would hide a conflict): changes of both sides to the same or adjacent lines conflict.
    let mut overlapping = Vec::new();
    for c in &p.changes {
        let (Some(base), Some(theirs)) = (c.old, c.new) else {
            continue;
        };
        let Ok(ours) = crate::fsutil::read(&repo.workdir().join(&c.path)) else {
            continue;
        };
        let base = repo.blob(base, &c.path)?;
        let theirs = repo.blob(theirs, &c.path)?;
        if ours != base && theirs != base && ours != theirs && overlap(&base, &ours, &theirs) {
            overlapping.push(c.path.clone());
        }
    }
    if !overlapping.is_empty() {
        return Err(ProposalError::Conflict {
            id: p.id.clone(),
            paths: overlapping,
        });
    }
    let verdicts = check_skills(repo, roots, &merged, fail_on, today)?.map_err(|reasons| {
        ProposalError::Blocked {
            id: p.id.clone(),
            reasons,
        }
    })?;
    if commit {
        let mut dirty = Vec::new();
        for path in &p.files {
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            for d in repo.dirty_paths(dir, &[])? {
                if d == *path && !dirty.contains(&d) {
                    dirty.push(d);
                }
            }
        }
        if !dirty.is_empty() {
            return Err(ProposalError::DirtyForCommit { paths: dirty });
        }
    }
    let made = if commit {
        Some(repo.commit_files(&p.message, &merged)?.to_string())
    } else {
        repo.stage_files(&merged)?;
        None
    };
    repo.delete_ref(
        &p.refname,
        gix::ObjectId::from_hex(p.commit.as_bytes()).map_err(|e| ProposalError::Malformed {
            refname: p.refname.clone(),
            reason: e.to_string(),
        })?,
    )?;
    Ok(Accepted {
        id: p.id.clone(),
        files: p.files.clone(),
        commit: made,
        verdicts,
    })
}

/// The verdict of each skill a check looked at.
pub type Verdicts = Vec<(String, &'static str)>;

/// The skills `merged` (files relative to the top) touches, as they would be, judged by the
/// one gate as the pre-commit hook judges a person's commit: the repository's policy,
/// SkillGuard with inline allows, `fail_on`, the lint errors the change brings (those HEAD
/// has already do not block). The verdicts, or the reasons it would be refused.
pub fn check_skills(
    repo: &Repo,
    roots: &[(String, String)],
    merged: &[FileChange],
    fail_on: FailOn,
    today: chrono::NaiveDate,
) -> Result<Result<Verdicts, Vec<String>>, GitError> {
    let at_head = crate::staged::skills_at(
        repo,
        At::Head,
        &crate::staged::Roots::with_agents(roots.to_vec()),
    )?;
    let mut touched: HashMap<String, Snapshot> = HashMap::new();
    for change in merged {
        let owner = at_head
            .skills
            .iter()
            .filter(|s| change.path.starts_with(&format!("{}/", s.dir)))
            .max_by_key(|s| s.dir.len());
        let (dir, rel) = match owner {
            Some(s) => (s.dir.clone(), change.path[s.dir.len() + 1..].to_owned()),
            None => {
                // A new skill: its directory is the one holding its SKILL.md.
                let dir = merged
                    .iter()
                    .filter_map(|c| c.path.strip_suffix("/SKILL.md"))
                    .filter(|d| change.path.starts_with(&format!("{d}/")))
                    .max_by_key(|d| d.len())
                    .map(str::to_owned);
                match dir {
                    Some(d) => {
                        let rel = change.path[d.len() + 1..].to_owned();
                        (d, rel)
                    }
                    None => {
                        return Ok(Err(vec![format!(
                            "'{}' belongs to no skill (no SKILL.md)",
                            change.path
                        )]))
                    }
                }
            }
        };
        let snapshot = touched.remove(&dir).unwrap_or_else(|| match owner {
            Some(s) => s.clone(),
            None => {
                let name = dir.rsplit('/').next().unwrap_or(&dir).to_owned();
                let root = roots
                    .iter()
                    .find(|(r, _)| dir.starts_with(&format!("{r}/")))
                    .map(|(_, l)| l.clone())
                    .unwrap_or_default();
                Snapshot::from_blobs(
                    dir.clone(),
                    name,
                    root,
                    None,
                    SkillFiles::default(),
                    HashMap::new(),
                )
            }
        });
        let snapshot = match &change.content {
            Some(bytes) => snapshot.with_file(&rel, bytes.clone()),
            None => snapshot.without_file(&rel),
        };
        touched.insert(dir, snapshot);
    }
    let policy = match crate::check::policy_at(repo, At::Index) {
        Ok(p) => p,
        Err(e) => {
            return Ok(Err(vec![format!(
                "the repository's policy cannot be read: {e}"
            )]))
        }
    };
    // A person accepts it: the one gate, as for the person's own commit.
    let gate = check::Gate::new(check::Writer::Person, policy.as_ref(), fail_on, today);
    let mut dirs: Vec<String> = touched.keys().cloned().collect();
    dirs.sort();
    let changes: Vec<check::Change> = dirs
        .iter()
        .map(|dir| check::Change {
            before: at_head.skills.iter().find(|s| &s.dir == dir).cloned(),
            after: touched.remove(dir).expect("a touched skill"),
            display: std::path::PathBuf::from(dir),
        })
        .collect();
    let decision = check::gate::decide(&changes, &gate, 1);
    let mut verdicts = Vec::new();
    let mut reasons = review_rules(&dirs, &changes, merged, today);
    for (dir, judged) in dirs.iter().zip(&decision.skills) {
        let verdict = judged.counted;
        verdicts.push((dir.clone(), verdict.as_str()));
        if judged.verdict_blocks(fail_on) {
            reasons.push(format!("{dir}: SkillGuard verdict {}", verdict.as_str()));
        }
        for e in &judged.check.report.errors {
            reasons.push(format!("{dir}: could not be checked: {e}"));
        }
        for d in &judged.introduced {
            reasons.push(format!("{dir}: lint {}: {}", d.code, d.message));
        }
    }
    if !reasons.is_empty() {
        return Ok(Err(reasons));
    }
    Ok(Ok(verdicts))
}

/// What the review's sandbox holds every write of its agent to, checked again on the skills as
/// a proposal leaves them: a reference under `refs/skill-proposals/` can be written by anyone
/// who can push one, so what it holds is not taken as the review's word. No field that grants
/// tools, hooks, permissions or MCP servers; no secret's mask the skill did not hold; and
/// SkillGuard read strictly (allow comments are not honoured, quoted examples not demoted),
/// refusing a dangerous skill. The reasons a rule refuses, by skill.
fn review_rules(
    dirs: &[String],
    changes: &[check::Change],
    merged: &[FileChange],
    today: chrono::NaiveDate,
) -> Vec<String> {
    let mut reasons = Vec::new();
    let strict = check::Gate::new(check::Writer::Agent, None, FailOn::Dangerous, today);
    let judged = check::gate::decide(changes, &strict, 1);
    let masks = crate::redact::masks;
    for ((dir, change), judged) in dirs.iter().zip(changes).zip(&judged.skills) {
        if let Err(e) = crate::manage::check_grants(change.before.as_ref(), &change.after) {
            reasons.push(format!("{dir}: {e}"));
        }
        let prefix = format!("{dir}/");
        for file in merged {
            let (Some(rel), Some(now)) = (file.path.strip_prefix(&prefix), &file.content) else {
                continue;
            };
            let before = change
                .before
                .as_ref()
                .and_then(|b| b.read(rel).ok())
                .map_or(0, |b| masks(&b));
            if masks(now) > before {
                reasons.push(format!(
                    "{}: holds a secret's mask ({}) it does not hold now: the review was shown that text masked",
                    file.path,
                    crate::redact::MASK
                ));
            }
        }
        if judged.verdict_blocks(FailOn::Dangerous) {
            let rules: Vec<&str> = judged
                .check
                .report
                .findings
                .iter()
                .filter(|f| f.suppressed.is_none())
                .map(|f| f.rule)
                .collect();
            reasons.push(format!(
                "{dir}: read as the review reads what its agent writes (no allow comments), SkillGuard calls it dangerous: {}",
                rules.join(", ")
            ));
        }
    }
    reasons
}

/// Deletes proposal `p`'s reference.
pub fn reject(repo: &Repo, p: &Proposal) -> Result<(), ProposalError> {
    let id =
        gix::ObjectId::from_hex(p.commit.as_bytes()).map_err(|e| ProposalError::Malformed {
            refname: p.refname.clone(),
            reason: e.to_string(),
        })?;
    repo.delete_ref(&p.refname, id)?;
    Ok(())
}

/// Deletes the proposals made before `cutoff`; returns them.
pub fn prune(
    repo: &Repo,
    cutoff: chrono::DateTime<chrono::Utc>,
    dry_run: bool,
) -> Result<Vec<Proposal>, ProposalError> {
    let mut pruned = Vec::new();
    for p in list(repo)? {
        if p.time < cutoff.timestamp() {
            if !dry_run {
                reject(repo, &p)?;
            }
            pruned.push(p);
        }
    }
    Ok(pruned)
}

/// Whether the changes from `base` to `ours` and from `base` to `theirs` touch the same or
/// adjacent lines of `base`.
fn overlap(base: &[u8], ours: &[u8], theirs: &[u8]) -> bool {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let (base, ours, theirs) = (text(base), text(ours), text(theirs));
    let ranges = |other: &str| -> Vec<(usize, usize)> {
        similar::TextDiff::from_lines(base.as_str(), other)
            .ops()
            .iter()
            .filter(|op| op.tag() != similar::DiffTag::Equal)
            .map(|op| {
                let r = op.old_range();
                (r.start, r.end)
            })
            .collect()
    };
    let a = ranges(&ours);
    let b = ranges(&theirs);
    a.iter()
        .any(|(s1, e1)| b.iter().any(|(s2, e2)| *s1 <= *e2 && *s2 <= *e1))
}

#[cfg(test)]
mod tests {
    use super::overlap;

    #[test]
    fn changes_to_the_same_or_adjacent_lines_overlap() {
        let base = b"a\nb\nc\nd\ne\nf\n";
        assert!(overlap(base, b"a\nB\nc\nd\ne\nf\n", b"a\nb2\nc\nd\ne\nf\n"));
        assert!(
            overlap(base, b"a\nB\nc\nd\ne\nf\n", b"a\nb\nC\nd\ne\nf\n"),
            "adjacent"
        );
        assert!(
            !overlap(base, b"A\nb\nc\nd\ne\nf\n", b"a\nb\nc\nd\ne\nF\n"),
            "far apart"
        );
        assert!(
            overlap(base, b"a\nb\nx\nc\nd\ne\nf\n", b"a\nb\ny\nc\nd\ne\nf\n"),
            "two inserts at one place"
        );
    }
}
