//! Commits that live under a reference of their own and touch neither HEAD, the index nor the
//! work tree (a review's proposal under `refs/skill-proposals/<id>`), what such a commit
//! changes, and a three-way merge of one onto the work tree.

use std::collections::BTreeMap;
use std::path::PathBuf;

use gix::bstr::ByteSlice;
use gix::refs::transaction::{Change, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;

use super::cli::TreeMerge;
use super::{FileChange, GitError, Repo};

/// A commit as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub id: gix::ObjectId,
    /// The first parent (`None` for a root commit).
    pub parent: Option<gix::ObjectId>,
    pub tree: gix::ObjectId,
    /// Committer time, seconds since the epoch.
    pub time: i64,
    pub message: String,
}

/// One file that differs between two trees (blobs and links; a submodule counts as a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeChange {
    pub path: String,
    pub old: Option<gix::ObjectId>,
    pub new: Option<gix::ObjectId>,
}

/// What a three-way merge onto the work tree gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    /// The merged content of each path (a deletion as `None`).
    Clean(Vec<FileChange>),
    /// These paths conflict with the work tree's content.
    Conflict(Vec<String>),
}

fn err(what: impl std::fmt::Display, message: impl std::fmt::Display) -> GitError {
    GitError::Read {
        path: PathBuf::from(what.to_string()),
        message: message.to_string(),
    }
}

impl Repo {
    /// Writes a commit whose only parent is `parent` and whose tree is `parent`'s with
    /// `changes` applied, and points the new reference `refname` at it (refused when
    /// `refname` exists). HEAD, the index and the work tree are not touched. Author and
    /// committer as [`Repo::commit_files`] finds them.
    pub fn commit_to_ref(
        &self,
        refname: &str,
        parent: gix::ObjectId,
        message: &str,
        changes: &[FileChange],
    ) -> Result<gix::ObjectId, GitError> {
        let fail = |message: String| GitError::Commit {
            paths: refname.to_owned(),
            message,
        };
        for change in changes {
            super::commit::validate_path(&change.path)
                .map_err(|reason| fail(format!("'{}': {reason}", change.path)))?;
        }
        let message = super::commit::clean_message(message)
            .ok_or_else(|| fail("the message is empty".into()))?;
        let parent_tree = self.commit_tree(parent)?;
        let tree = self.edited_tree(parent_tree, changes)?;
        let author = super::commit::signature("author", self.repo.author())?;
        let committer = super::commit::signature("committer", self.repo.committer())?;
        let commit = gix::objs::Commit {
            tree,
            parents: vec![parent].into(),
            author,
            committer,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        let id = self
            .repo
            .write_object(&commit)
            .map_err(|e| fail(format!("could not write the commit: {e}")))?
            .detach();
        self.repo
            .reference(
                refname,
                id,
                PreviousValue::MustNotExist,
                "git-skill: proposal",
            )
            .map_err(|e| fail(format!("could not create the reference: {e}")))?;
        Ok(id)
    }

    /// `tree` with `changes` applied (a new file gets mode 100644, an existing one keeps its
    /// mode), written.
    pub fn edited_tree(
        &self,
        tree: gix::ObjectId,
        changes: &[FileChange],
    ) -> Result<gix::ObjectId, GitError> {
        let base = self
            .repo
            .find_tree(tree)
            .map_err(|e| err(tree, format!("could not read the tree: {e}")))?;
        let mut editor = self
            .repo
            .edit_tree(tree)
            .map_err(|e| err(tree, format!("could not edit the tree: {e}")))?;
        for change in changes {
            match &change.content {
                Some(bytes) => {
                    let old = base
                        .lookup_entry_by_path(&change.path)
                        .map_err(|e| err(&change.path, e))?;
                    let kind = if old.is_some_and(|e| e.mode().is_executable()) {
                        gix::objs::tree::EntryKind::BlobExecutable
                    } else {
                        gix::objs::tree::EntryKind::Blob
                    };
                    let blob = self
                        .repo
                        .write_blob(bytes)
                        .map_err(|e| err(&change.path, format!("could not store it: {e}")))?
                        .detach();
                    editor
                        .upsert(change.path.as_str(), kind, blob)
                        .map_err(|e| err(&change.path, format!("could not set it: {e}")))?;
                }
                None => {
                    editor
                        .remove(change.path.as_str())
                        .map_err(|e| err(&change.path, format!("could not remove it: {e}")))?;
                }
            }
        }
        Ok(editor
            .write()
            .map_err(|e| err(tree, format!("could not write the tree: {e}")))?
            .detach())
    }

    /// The references below `prefix` (`refs/skill-proposals/`), by name, with the object each
    /// points at; `None` for a symbolic reference (it points at another name, not a commit).
    pub fn refs_under(
        &self,
        prefix: &str,
    ) -> Result<Vec<(String, Option<gix::ObjectId>)>, GitError> {
        let platform = self
            .repo
            .references()
            .map_err(|e| err(prefix, format!("could not list references: {e}")))?;
        let iter = platform
            .prefixed(prefix)
            .map_err(|e| err(prefix, format!("could not list references: {e}")))?;
        let mut out = Vec::new();
        for r in iter {
            let r = r.map_err(|e| err(prefix, format!("could not read a reference: {e}")))?;
            let name = r.name().as_bstr().to_str_lossy().into_owned();
            let id = match r.target() {
                gix::refs::TargetRef::Object(id) => Some(id.to_owned()),
                gix::refs::TargetRef::Symbolic(_) => None,
            };
            out.push((name, id));
        }
        out.sort();
        Ok(out)
    }

    /// Deletes `refname`, which must still point at `expected`.
    pub fn delete_ref(&self, refname: &str, expected: gix::ObjectId) -> Result<(), GitError> {
        let name = refname.try_into().map_err(|e| {
            err(
                refname,
                format!("not a valid reference name: {e:?}").replace('\n', " "),
            )
        })?;
        self.repo
            .edit_reference(RefEdit {
                change: Change::Delete {
                    expected: PreviousValue::MustExistAndMatch(Target::Object(expected)),
                    log: RefLog::AndReference,
                },
                name,
                deref: false,
            })
            .map_err(|e| GitError::GitCommand {
                command: format!("delete {refname}"),
                message: e.to_string(),
            })?;
        Ok(())
    }

    /// A commit's parent, tree, time and message.
    pub fn commit_info(&self, id: gix::ObjectId) -> Result<CommitInfo, GitError> {
        let commit = self
            .repo
            .find_commit(id)
            .map_err(|e| err(id, format!("could not read the commit: {e}")))?;
        let decoded = commit
            .decode()
            .map_err(|e| err(id, format!("could not read the commit: {e}")))?;
        let parent = decoded.parents().next();
        let tree = decoded.tree();
        let time = decoded
            .committer()
            .map_err(|e| err(id, format!("could not read the commit: {e}")))?
            .seconds();
        let message = decoded.message.to_str_lossy().into_owned();
        Ok(CommitInfo {
            id,
            parent,
            tree,
            time,
            message,
        })
    }

    /// The files that differ from tree `from` to tree `to`, by path.
    pub fn tree_changes(
        &self,
        from: gix::ObjectId,
        to: gix::ObjectId,
    ) -> Result<Vec<TreeChange>, GitError> {
        let old = self.flat_tree(from)?;
        let new = self.flat_tree(to)?;
        let mut out = Vec::new();
        for (path, id) in &new {
            if old.get(path) != Some(id) {
                out.push(TreeChange {
                    path: path.clone(),
                    old: old.get(path).copied(),
                    new: Some(*id),
                });
            }
        }
        for (path, id) in &old {
            if !new.contains_key(path) {
                out.push(TreeChange {
                    path: path.clone(),
                    old: Some(*id),
                    new: None,
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Every non-tree entry of `tree`, by path.
    fn flat_tree(&self, tree: gix::ObjectId) -> Result<BTreeMap<String, gix::ObjectId>, GitError> {
        let tree_obj = self
            .repo
            .find_tree(tree)
            .map_err(|e| err(tree, format!("could not read the tree: {e}")))?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        tree_obj
            .traverse()
            .breadthfirst(&mut recorder)
            .map_err(|e| err(tree, format!("could not walk the tree: {e}")))?;
        Ok(recorder
            .records
            .into_iter()
            .filter(|r| !r.mode.is_tree())
            .map(|r| (r.filepath.to_str_lossy().into_owned(), r.oid))
            .collect())
    }

    /// Merges the change from tree `base` to tree `theirs` into what the work tree holds now
    /// at `paths` (on top of HEAD's tree), with git's merge rules: a path whose work-tree
    /// content is the base's takes theirs, one changed on both sides is merged line by line,
    /// and overlapping changes conflict. Returns the merged content of each of `paths`.
    pub fn merge_onto_worktree(
        &self,
        base: gix::ObjectId,
        theirs: gix::ObjectId,
        paths: &[String],
    ) -> Result<Merged, GitError> {
        let head = self.head_commit_id()?.ok_or_else(|| GitError::UnbornHead {
            path: self.workdir.clone(),
        })?;
        let head_tree = self.commit_tree(head)?;
        // Ours: HEAD with the work tree's files at the paths the proposal touches.
        let mut ours_changes = Vec::new();
        for path in paths {
            let abs = self.workdir.join(path);
            match std::fs::symlink_metadata(&abs) {
                Ok(meta) if meta.is_file() => {
                    let bytes = crate::fsutil::read(&abs).map_err(|e| err(path, e))?;
                    ours_changes.push(FileChange::write(path.clone(), bytes));
                }
                Ok(_) => {
                    return Err(GitError::InvalidPath {
                        path: path.clone(),
                        reason: "it is not a regular file in the work tree".into(),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if self.tree_entry(head_tree, path)?.is_some() {
                        ours_changes.push(FileChange::delete(path.clone()));
                    }
                }
                Err(e) => return Err(err(path, e)),
            }
        }
        let ours = self.edited_tree(head_tree, &ours_changes)?;
        let merged = match self.merge_trees(base, ours, theirs, paths)? {
            TreeMerge::Clean(files) => files,
            TreeMerge::Conflict(conflicted) => return Ok(Merged::Conflict(conflicted)),
        };
        let mut out = Vec::new();
        for (path, file) in merged {
            match file {
                None => out.push(FileChange::delete(path)),
                Some(file) if file.blob => out.push(FileChange::write(path, file.bytes)),
                Some(_) => {
                    return Err(GitError::InvalidPath {
                        path,
                        reason: "the merge made it something other than a file".into(),
                    })
                }
            }
        }
        Ok(Merged::Clean(out))
    }
}
