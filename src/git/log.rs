//! Reading history: HEAD, commit messages, a file at a commit, the commits that changed a path.

use std::path::PathBuf;

use gix::bstr::ByteSlice;

use super::{GitError, Repo};

/// One commit of [`Repo::log_path`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub id: gix::ObjectId,
    /// The first paragraph of the message, its lines joined by spaces (git's `%s`).
    pub subject: String,
    /// The rest of the message after the blank line, without trailing newlines (git's `%b`,
    /// trimmed); empty when there is none.
    pub body: String,
    /// The committer time, seconds since the Unix epoch (git's `%ct`).
    pub time: i64,
    /// The author's name (git's `%an`).
    pub author: String,
    /// The author's email (git's `%ae`).
    pub author_email: String,
}

fn read_err(what: impl std::fmt::Display, message: impl std::fmt::Display) -> GitError {
    GitError::Read {
        path: PathBuf::from(what.to_string()),
        message: message.to_string(),
    }
}

impl Repo {
    /// The commit HEAD points to; `None` on an unborn branch (no commit yet).
    pub fn head_commit_id(&self) -> Result<Option<gix::ObjectId>, GitError> {
        let head = self
            .repo
            .head()
            .map_err(|e| read_err("HEAD", format!("could not read HEAD: {e}")))?;
        Ok(head.id().map(|id| id.detach()))
    }

    /// The full message of commit `id`, as stored (normally ending with a newline).
    pub fn commit_message(&self, id: gix::ObjectId) -> Result<String, GitError> {
        let commit = self.find_commit(id)?;
        let raw = commit
            .message_raw()
            .map_err(|e| read_err(id, format!("could not read the commit: {e}")))?;
        Ok(raw.to_str_lossy().into_owned())
    }

    /// The content of `path` (relative to the top, `/`-separated) in commit `commit`; `None`
    /// when the commit has no file there (absent, or a directory or submodule).
    pub fn blob_at_commit(
        &self,
        commit: gix::ObjectId,
        path: &str,
    ) -> Result<Option<Vec<u8>>, GitError> {
        let tree = self.commit_tree(commit)?;
        match self.tree_entry(tree, path)? {
            Some((id, mode)) if mode.is_blob() || mode.is_link() => self.blob(id, path).map(Some),
            _ => Ok(None),
        }
    }

    /// Commits reachable from HEAD that changed `path` (a file or a directory) compared with
    /// their first parent, newest first by committer date, at most `limit` of them. The root
    /// commit counts when it has `path`. Merges count only when `path` differs from their first
    /// parent (unlike `git log -- path`, no history simplification: this follows every
    /// parent). Empty on an unborn branch.
    pub fn log_path(&self, path: &str, limit: usize) -> Result<Vec<LogEntry>, GitError> {
        let path = path.trim_end_matches('/');
        let Some(head) = self.head_commit_id()? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        let walk = self
            .repo
            .rev_walk([head])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()
            .map_err(|e| read_err(path, format!("could not walk the history: {e}")))?;
        for info in walk {
            let info =
                info.map_err(|e| read_err(path, format!("could not walk the history: {e}")))?;
            let commit = self.find_commit(info.id)?;
            let tree = commit
                .tree_id()
                .map_err(|e| read_err(info.id, format!("could not read the commit: {e}")))?
                .detach();
            let here = self.tree_entry(tree, path)?;
            let before = match info.parent_ids.first() {
                Some(parent) => {
                    let parent_tree = self.commit_tree(*parent)?;
                    self.tree_entry(parent_tree, path)?
                }
                None => None,
            };
            if here == before {
                continue;
            }
            out.push(log_entry(&commit)?);
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    pub(super) fn find_commit(&self, id: gix::ObjectId) -> Result<gix::Commit<'_>, GitError> {
        self.repo
            .find_commit(id)
            .map_err(|e| read_err(id, format!("not a commit: {e}")))
    }

    /// The tree of commit `id`.
    pub(super) fn commit_tree(&self, id: gix::ObjectId) -> Result<gix::ObjectId, GitError> {
        Ok(self
            .find_commit(id)?
            .tree_id()
            .map_err(|e| read_err(id, format!("could not read the commit: {e}")))?
            .detach())
    }

    /// The id and mode of the entry at `path` in `tree`, if any.
    pub(super) fn tree_entry(
        &self,
        tree: gix::ObjectId,
        path: &str,
    ) -> Result<Option<(gix::ObjectId, gix::objs::tree::EntryMode)>, GitError> {
        let tree = self
            .repo
            .find_tree(tree)
            .map_err(|e| read_err(path, format!("could not read tree {tree}: {e}")))?;
        let entry = tree
            .lookup_entry_by_path(path)
            .map_err(|e| read_err(path, e))?;
        Ok(entry.map(|e| (e.object_id(), e.mode())))
    }
}

fn log_entry(commit: &gix::Commit<'_>) -> Result<LogEntry, GitError> {
    let id = commit.id;
    let bad = |e: gix::Error| read_err(id, format!("could not read the commit: {e}"));
    let message = commit.message().map_err(bad)?;
    let subject = message.summary().to_str_lossy().into_owned();
    let body = message
        .body
        .map(|b| b.to_str_lossy().trim_end().to_owned())
        .unwrap_or_default();
    let author = commit.author().map_err(bad)?;
    let time = commit.time().map_err(bad)?.seconds;
    Ok(LogEntry {
        id,
        subject,
        body,
        time,
        author: author.name.to_str_lossy().into_owned(),
        author_email: author.email.to_str_lossy().into_owned(),
    })
}
