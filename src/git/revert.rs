//! Reverting a commit that changed one file (or a few named together): a tree edit through gix
//! when nothing touched them since, a three-way tree merge (`git merge-tree`) when something
//! did, and `git revert` (with its conflict handling) only when that merge conflicts or the
//! commit changed other files too.

use gix::bstr::ByteSlice;

use super::cli::{first_nonempty, TreeMerge};
use super::commit::{validate_path, FileChange};
use super::{GitError, Repo};

/// How [`Repo::revert_path_commit`] made the revert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevertMethod {
    /// The file was set back to its content before the commit with a tree edit
    /// ([`Repo::commit_files`]): nothing had changed it since.
    TreeEdit,
    /// The file changed since: `git merge-tree` merged the reverse change into it (a three-way merge of
    /// the commit, HEAD and the commit's parent) without conflict.
    TreeMerge,
    /// The file had changed since (or the commit changed other paths too): `git revert
    /// --no-edit` merged the reverse change cleanly.
    GitRevert,
}

/// The result of [`Repo::revert_path_commit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RevertOutcome {
    /// The new commit, now HEAD.
    pub commit: gix::ObjectId,
    pub method: RevertMethod,
}

/// What a caller checks of a revert before it is committed: every change it makes (the reverted
/// paths and `also`); an `Err` is why it must not land, and nothing is committed.
pub type Vet<'a> = &'a mut dyn FnMut(&[FileChange]) -> Result<(), String>;

/// An entry of a tree: its id and mode.
type TreeEntry = (gix::ObjectId, gix::objs::tree::EntryMode);

impl Repo {
    /// Reverts `commit`, a commit that changed `path` (relative to the top, `/`-separated),
    /// with a new commit on HEAD whose message is git's: `Revert "<subject>"`, a blank line,
    /// `This reverts commit <full id>.`.
    ///
    /// When HEAD's entry at `path` is still the one `commit` made and `commit` changed nothing
    /// else, the revert is a tree edit: [`Repo::commit_files`] sets `path` back to its content
    /// in the commit's parent (or deletes it when the parent had none), with a reflog entry
    /// `revert: <subject>` ([`RevertMethod::TreeEdit`]). Otherwise `git revert --no-edit <id>`
    /// runs (git's hooks run as `git revert` runs them) ([`RevertMethod::GitRevert`]); when it
    /// conflicts, `git revert --abort` puts everything back and the error
    /// [`GitError::RevertConflict`] says how to revert by hand.
    ///
    /// Refused: a merge commit, a root commit, a commit that did not change `path`, a `path`
    /// that HEAD already has as it was before the commit (reverted already), an unborn HEAD,
    /// and uncommitted changes to `path` (staged, unstaged or untracked).
    ///
    /// `also`: more changes (other paths) that belong with the revert, in the same commit
    /// whichever way it is made (with `git revert`: `--no-commit`, the changes added, then
    /// `git commit` with git's revert message; that needs an index as HEAD has it).
    pub fn revert_path_commit(
        &self,
        commit: gix::ObjectId,
        path: &str,
        also: &[FileChange],
        vet: Vet<'_>,
    ) -> Result<RevertOutcome, GitError> {
        self.revert_paths_commit(commit, &[path], also, vet)
    }

    /// [`Repo::revert_path_commit`] for a commit that changed `paths[0]` and maybe the other
    /// `paths` with it (an optimization's SKILL.md and its evals.json): the checks are made on
    /// `paths[0]`; the tree edit and the tree merge revert every one of them the commit
    /// changed, and only them. A path `also` writes is taken as `also` has it (its revert
    /// worked out by the caller), not merged.
    pub fn revert_paths_commit(
        &self,
        commit: gix::ObjectId,
        paths: &[&str],
        also: &[FileChange],
        vet: Vet<'_>,
    ) -> Result<RevertOutcome, GitError> {
        let refuse = |reason: String| GitError::Revert { commit, reason };
        let Some(&path) = paths.first() else {
            return Err(refuse("no path to revert was named".into()));
        };
        for p in paths {
            validate_path(p).map_err(|reason| GitError::InvalidPath {
                path: (*p).to_owned(),
                reason,
            })?;
        }
        let reverted = self.find_commit(commit)?;
        let parents: Vec<gix::ObjectId> = reverted.parent_ids().map(|p| p.detach()).collect();
        let parent = match parents.as_slice() {
            [parent] => *parent,
            [] => {
                return Err(refuse(
                    "it is the root commit (it has no parent to go back to)".into(),
                ))
            }
            _ => {
                return Err(refuse(
                    "it is a merge commit; revert it with `git revert -m 1` by hand".into(),
                ))
            }
        };
        let head = self.head_commit_id()?.ok_or_else(|| GitError::UnbornHead {
            path: self.workdir.clone(),
        })?;
        let commit_tree = self.commit_tree(commit)?;
        let parent_tree = self.commit_tree(parent)?;
        let head_tree = self.commit_tree(head)?;
        // The paths the commit changed, each with its entry in the commit, its parent and HEAD.
        let mut changed = Vec::new();
        for p in paths {
            let at_commit = self.tree_entry(commit_tree, p)?;
            let at_parent = self.tree_entry(parent_tree, p)?;
            if at_commit != at_parent {
                let at_head = self.tree_entry(head_tree, p)?;
                changed.push(Changed {
                    path: p,
                    at_commit,
                    at_parent,
                    at_head,
                });
            }
        }
        if changed.first().map(|c| c.path) != Some(path) {
            return Err(refuse(format!("it does not change '{path}'")));
        }
        for c in &changed {
            if !self.dirty_paths(c.path, &[])?.is_empty() {
                return Err(refuse(format!(
                    "'{}' has uncommitted changes; commit or stash them first",
                    c.path
                )));
            }
        }

        let subject = reverted
            .message()
            .map_err(|e| refuse(format!("could not read its message: {e}")))?
            .summary()
            .to_str_lossy()
            .into_owned();
        let message = format!("Revert \"{subject}\"\n\nThis reverts commit {commit}.\n");

        if changed[0].at_head == changed[0].at_parent {
            return Err(refuse(format!(
                "'{path}' at HEAD is already as it was before that commit (reverted already?)"
            )));
        }
        if !self.only_paths_differ(parent_tree, commit_tree, &changed)? {
            return self.git_revert(commit, paths, also, vet);
        }
        changed.retain(|c| !also.iter().any(|a| a.path == c.path));
        let vetted = |changes: Vec<FileChange>, vet: Vet<'_>| {
            let all = with(changes, also);
            vet(&all).map_err(|reason| GitError::RevertRefused { commit, reason })?;
            Ok::<_, GitError>(all)
        };
        if let Some(changes) = self.fast_revert_changes(&changed)? {
            let id = self.commit_files_as("revert", &message, &vetted(changes, vet)?)?;
            return Ok(RevertOutcome {
                commit: id,
                method: RevertMethod::TreeEdit,
            });
        }
        if let Some(changes) =
            self.merged_revert_changes(&changed, commit_tree, parent_tree, head_tree)?
        {
            let id = self.commit_files_as("revert", &message, &vetted(changes, vet)?)?;
            return Ok(RevertOutcome {
                commit: id,
                method: RevertMethod::TreeMerge,
            });
        }
        self.git_revert(commit, paths, also, vet)
    }

    /// The revert as a tree merge: the reverse change (commit -> parent) merged into HEAD,
    /// with the commit's tree as the base. `None` when the merge conflicts or a result is not
    /// a plain file `commit_files` can write (then `git revert` decides).
    fn merged_revert_changes(
        &self,
        changed: &[Changed<'_>],
        commit_tree: gix::ObjectId,
        parent_tree: gix::ObjectId,
        head_tree: gix::ObjectId,
    ) -> Result<Option<Vec<FileChange>>, GitError> {
        let wanted: Vec<String> = changed.iter().map(|c| c.path.to_owned()).collect();
        let merged = match self.merge_trees(commit_tree, head_tree, parent_tree, &wanted) {
            Ok(TreeMerge::Clean(files)) => files,
            // A conflict, or a git too old for `merge-tree --merge-base`: `git revert` decides.
            Ok(TreeMerge::Conflict(_)) | Err(GitError::GitCommand { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut changes = Vec::new();
        for c in changed {
            let Some((_, file)) = merged.iter().find(|(p, _)| p == c.path) else {
                return Ok(None);
            };
            match file {
                None => changes.push(FileChange::delete(c.path)),
                Some(file) => {
                    let head_executable = c.at_head.is_some_and(|(_, m)| m.is_executable());
                    if !file.blob || file.executable != head_executable {
                        return Ok(None);
                    }
                    changes.push(FileChange::write(c.path, file.bytes.clone()));
                }
            }
        }
        Ok(Some(changes))
    }

    /// The changes that revert the commit as a tree edit, when that is exactly a revert: HEAD
    /// still has the commit's entry at every changed path, and each parent's entry is a file
    /// whose mode [`Repo::commit_files`] reproduces (or none).
    fn fast_revert_changes(
        &self,
        changed: &[Changed<'_>],
    ) -> Result<Option<Vec<FileChange>>, GitError> {
        let mut changes = Vec::new();
        for c in changed {
            if c.at_head != c.at_commit {
                return Ok(None);
            }
            if let Some((_, mode)) = c.at_commit {
                if !mode.is_blob() {
                    return Ok(None);
                }
            }
            changes.push(match c.at_parent {
                None => FileChange::delete(c.path),
                Some((id, mode)) => {
                    // commit_files keeps HEAD's executable bit, or makes a new file 100644.
                    let head_executable = c.at_head.is_some_and(|(_, m)| m.is_executable());
                    if !mode.is_blob() || mode.is_executable() != head_executable {
                        return Ok(None);
                    }
                    FileChange::write(c.path, self.blob(id, c.path)?)
                }
            });
        }
        Ok(Some(changes))
    }

    /// Whether `parent_tree` with each changed path set to its entry in the commit is
    /// `commit_tree`: the commit changed nothing else. Hashes the edited trees without writing
    /// them.
    fn only_paths_differ(
        &self,
        parent_tree: gix::ObjectId,
        commit_tree: gix::ObjectId,
        changed: &[Changed<'_>],
    ) -> Result<bool, GitError> {
        let first = changed.first().map_or("", |c| c.path);
        let bad = |e: gix::Error| GitError::Read {
            path: first.into(),
            message: format!("could not compare trees: {e}"),
        };
        let mut editor = self.repo.edit_tree(parent_tree).map_err(bad)?;
        for c in changed {
            match c.at_commit {
                Some((id, mode)) => editor.upsert(c.path, mode.kind(), id).map_err(bad)?,
                None => editor.remove(c.path).map_err(bad)?,
            };
        }
        let hash_kind = self.repo.object_hash();
        let mut plumbing = editor.detach();
        let edited = plumbing
            .write(|tree| -> Result<gix::ObjectId, String> {
                use gix::objs::WriteTo as _;
                let mut buf = Vec::new();
                tree.write_to(&mut buf).map_err(|e| e.to_string())?;
                gix::objs::compute_hash(hash_kind, gix::objs::Kind::Tree, &buf)
                    .map_err(|e| e.to_string())
            })
            .map_err(|message| GitError::Read {
                path: first.into(),
                message: format!("could not compare trees: {message}"),
            })?;
        Ok(edited == commit_tree)
    }

    /// `git revert --no-commit <commit>`, the changes it made vetted, `also` written and added,
    /// then `git commit --no-edit` with git's revert message; on a conflict or a refusal,
    /// `git revert --abort` ([`GitError::RevertConflict`], [`GitError::RevertRefused`]). The
    /// index must be as HEAD has it (the commit takes the whole index).
    fn git_revert(
        &self,
        commit: gix::ObjectId,
        paths: &[&str],
        also: &[FileChange],
        vet: Vet<'_>,
    ) -> Result<RevertOutcome, GitError> {
        let path = paths[0];
        let sha = commit.to_string();
        let command = format!("git revert --no-commit {sha}");
        let staged = self.run_git(&["diff", "--cached", "--quiet"], "git diff --cached")?;
        if !staged.status.success() {
            return Err(GitError::GitCommand {
                command,
                message: "this revert needs `git revert`, which needs the index as HEAD has it: commit or unstage your staged changes first".into(),
            });
        }
        let output = self.run_git(&["revert", "--no-commit", sha.as_str()], &command)?;
        if output.status.success() {
            let checked = self.reverted_changes(commit).and_then(|changes| {
                vet(&with(changes, also))
                    .map_err(|reason| GitError::RevertRefused { commit, reason })
            });
            if let Err(e) = checked {
                let _ = self.run_git(&["revert", "--abort"], "git revert --abort");
                return Err(e);
            }
            self.commit_reverted_with(also)?;
            let head = self.head_commit_id()?.ok_or_else(|| GitError::UnbornHead {
                path: self.workdir.clone(),
            })?;
            return Ok(RevertOutcome {
                commit: head,
                method: RevertMethod::GitRevert,
            });
        }
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        let stdout = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        let in_progress = self.repo.git_dir().join("REVERT_HEAD").exists()
            || self.repo.git_dir().join("sequencer").exists();
        if !in_progress {
            return Err(GitError::GitCommand {
                command,
                message: first_nonempty(&stderr, &stdout),
            });
        }
        let unmerged =
            self.run_git(&["ls-files", "--unmerged", "-z"], "git ls-files --unmerged")?;
        let conflicted = !unmerged.status.success() || !unmerged.stdout.is_empty();
        let abort = self.run_git(&["revert", "--abort"], "git revert --abort")?;
        if !abort.status.success() {
            return Err(GitError::GitCommand {
                command: "git revert --abort".into(),
                message: format!(
                    "{} (after `{command}` conflicted; the revert is still in progress: resolve it or run `git revert --abort`)",
                    first_nonempty(
                        String::from_utf8_lossy(&abort.stderr).trim(),
                        String::from_utf8_lossy(&abort.stdout).trim()
                    )
                ),
            });
        }
        if !conflicted {
            return Err(GitError::GitCommand {
                command,
                message: format!(
                    "{} (the revert was aborted; nothing changed)",
                    first_nonempty(&stderr, &stdout)
                ),
            });
        }
        Err(GitError::RevertConflict {
            commit,
            path: path.to_owned(),
        })
    }

    /// The paths `commit` changed against its first parent (relative to the top).
    pub fn changed_by(&self, commit: gix::ObjectId) -> Result<Vec<String>, GitError> {
        let sha = commit.to_string();
        let out = self.run_git(
            &[
                "diff-tree",
                "--no-commit-id",
                "--name-only",
                "-r",
                "-z",
                "--no-renames",
                "-m",
                "--first-parent",
                "--root",
                &sha,
            ],
            "git diff-tree",
        )?;
        if !out.status.success() {
            return Err(GitError::GitCommand {
                command: format!("git diff-tree {sha}"),
                message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            });
        }
        Ok(out
            .stdout
            .split(|&b| b == 0)
            .filter(|n| !n.is_empty())
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect())
    }

    /// After `git revert --no-commit`: what it staged, each path as the work tree has it now.
    fn reverted_changes(&self, commit: gix::ObjectId) -> Result<Vec<FileChange>, GitError> {
        let out = self.run_git(
            &[
                "diff",
                "--cached",
                "--name-only",
                "-z",
                "--no-renames",
                "HEAD",
            ],
            "git diff --cached",
        )?;
        if !out.status.success() {
            return Err(GitError::GitCommand {
                command: "git diff --cached --name-only HEAD".into(),
                message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            });
        }
        let mut changes = Vec::new();
        for name in out.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
            let rel = String::from_utf8_lossy(name).into_owned();
            let abs = self.workdir.join(&rel);
            let content = match std::fs::symlink_metadata(&abs) {
                Ok(m) if m.is_file() => {
                    Some(crate::fsutil::read(&abs).map_err(|e| GitError::Read {
                        path: abs.clone(),
                        message: e.to_string(),
                    })?)
                }
                // A link or anything else: not what a vet can read as a file, so not landed.
                Ok(_) => {
                    return Err(GitError::RevertRefused {
                        commit,
                        reason: format!("the revert makes '{rel}' something other than a file"),
                    })
                }
                Err(_) => None,
            };
            changes.push(FileChange { path: rel, content });
        }
        Ok(changes)
    }

    /// After `git revert --no-commit`: writes `also` into the work tree, adds it, and commits
    /// with git's prepared revert message (no hooks: the content was checked). Any failure
    /// aborts the revert, leaving HEAD where it was.
    fn commit_reverted_with(&self, also: &[FileChange]) -> Result<(), GitError> {
        let result = (|| -> Result<(), GitError> {
            for change in also {
                validate_path(&change.path).map_err(|reason| GitError::InvalidPath {
                    path: change.path.clone(),
                    reason,
                })?;
                let abs = self.workdir.join(&change.path);
                let io = |e: std::io::Error| GitError::GitCommand {
                    command: format!("write {}", change.path),
                    message: e.to_string(),
                };
                match &change.content {
                    Some(bytes) => {
                        if let Some(dir) = abs.parent() {
                            std::fs::create_dir_all(dir).map_err(io)?;
                        }
                        crate::fsutil::write_atomic(&abs, bytes).map_err(io)?;
                        self.git_ok(&["add", "--", &change.path], "git add")?;
                    }
                    None => {
                        self.git_ok(
                            &["rm", "-q", "--ignore-unmatch", "--", &change.path],
                            "git rm",
                        )?;
                    }
                }
            }
            self.git_ok(
                &[
                    "commit",
                    "-q",
                    "--no-verify",
                    "--no-edit",
                    "--cleanup=strip",
                ],
                "git commit --no-edit",
            )
        })();
        if result.is_err() {
            let _ = self.run_git(&["revert", "--abort"], "git revert --abort");
        }
        result
    }

    /// Sets (`Some`) or unsets (`None`) `key` in the repository's own configuration
    /// (`.git/config`), through `git config`.
    pub fn set_local_config(&self, key: &str, value: Option<&str>) -> Result<(), GitError> {
        match value {
            Some(v) => self.git_ok(&["config", "--local", key, v], "git config"),
            None => {
                let out = self.run_git(&["config", "--local", "--unset", key], "git config")?;
                // 5: the key was not set, which is what was wanted.
                if out.status.success() || out.status.code() == Some(5) {
                    Ok(())
                } else {
                    Err(GitError::GitCommand {
                        command: "git config --unset".into(),
                        message: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                    })
                }
            }
        }
    }
}

/// A path the reverted commit changed, with its entry there, in its parent and at HEAD.
struct Changed<'p> {
    path: &'p str,
    at_commit: Option<TreeEntry>,
    at_parent: Option<TreeEntry>,
    at_head: Option<TreeEntry>,
}

fn with(mut changes: Vec<FileChange>, also: &[FileChange]) -> Vec<FileChange> {
    changes.extend(also.iter().cloned());
    changes
}
