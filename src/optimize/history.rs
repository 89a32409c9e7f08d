//! The evolution of a skill as git records it: optimize commits (with their
//! `Optimization-Id:` trailer) and the reverts of them that `git skill rollback` makes.

use std::collections::{HashMap, HashSet};

use crate::git::{GitError, Repo};

/// How far back the history is read.
pub const MAX_COMMITS: usize = 10_000;

/// One `optimize(skill):` commit of the skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Optimized {
    pub commit: String,
    pub subject: String,
    pub time: i64,
    pub optimization_id: Option<String>,
    /// The commit that reverted it, if any.
    pub reverted_by: Option<String>,
}

/// The optimize commits that touched `<skill_rel>/SKILL.md`, newest first, with their reverts.
pub fn optimizations(repo: &Repo, skill_rel: &str) -> Result<Vec<Optimized>, GitError> {
    let log = repo.log_path(&format!("{skill_rel}/SKILL.md"), MAX_COMMITS)?;
    // Only git's revert commits count (subject `Revert "..."`), not any message that quotes
    // the phrase; a revert that was itself reverted no longer counts.
    let mut reverts: HashMap<String, String> = HashMap::new();
    for entry in log.iter().rev() {
        if !entry.subject.starts_with("Revert \"") {
            continue;
        }
        if let Some(sha) = reverted_sha(&entry.body) {
            let undone_revert = reverts
                .iter()
                .find(|(_, by)| **by == sha)
                .map(|(k, _)| k.clone());
            match undone_revert {
                Some(original) => {
                    reverts.remove(&original);
                }
                None => {
                    reverts.insert(sha, entry.id.to_string());
                }
            }
        }
    }
    Ok(log
        .iter()
        .filter(|e| e.subject.starts_with("optimize(skill):"))
        .map(|e| {
            let commit = e.id.to_string();
            Optimized {
                reverted_by: reverts.get(&commit).cloned(),
                optimization_id: trailer(&e.body, "Optimization-Id"),
                subject: e.subject.clone(),
                time: e.time,
                commit,
            }
        })
        .collect())
}

/// The optimization ids whose optimize commit was reverted.
pub fn rolled_back_ids(repo: &Repo, skill_rel: &str) -> Result<HashSet<String>, GitError> {
    Ok(optimizations(repo, skill_rel)?
        .into_iter()
        .filter(|o| o.reverted_by.is_some())
        .filter_map(|o| o.optimization_id)
        .collect())
}

/// `This reverts commit <sha>.` as git writes it.
fn reverted_sha(body: &str) -> Option<String> {
    let rest = body.split("This reverts commit ").nth(1)?;
    let sha: String = rest.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    (sha.len() >= 40).then_some(sha)
}

fn trailer(body: &str, key: &str) -> Option<String> {
    body.lines().rev().find_map(|l| {
        l.strip_prefix(key)
            .and_then(|r| r.strip_prefix(':'))
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn trailers_and_revert_lines_are_read() {
        let body = "diagnosis\n\nMode: text_edit\nOptimization-Id: opt_1_pdf\n";
        assert_eq!(
            super::trailer(body, "Optimization-Id").as_deref(),
            Some("opt_1_pdf")
        );
        assert_eq!(super::trailer(body, "Missing"), None);
        let sha = "a".repeat(40);
        assert_eq!(
            super::reverted_sha(&format!("This reverts commit {sha}.\n")),
            Some(sha)
        );
        assert_eq!(super::reverted_sha("This reverts commit abc."), None);
    }
}
