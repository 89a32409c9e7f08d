//! Commits of given file contents on top of HEAD, like `git commit --only <paths>`, through gix.
//!
//! The new tree is HEAD's tree with the given paths set or removed; the work tree and the index
//! entries of exactly those paths follow, every other index entry is left alone. The steps are
//! ordered like git's own: objects first (harmless when unused: [`Repo::prepare_plan`]), then
//! the locks on HEAD's branch and the index, then the work tree, then HEAD moves, and last the
//! index ([`Repo::apply_plan`]). A failure before HEAD moves restores the files already written
//! and leaves the repository as it was.
//!
//! The locks are git's lock files, but made by hard-linking a temporary file named after the
//! operation instead of by `O_EXCL`, and the reference is written the way git's files backend
//! does (loose ref, then reflog) instead of through gix's transaction: after a kill, a lock that
//! is the same file as our temporary one is provably ours, which an `O_EXCL` lock never is. That
//! is what lets [`Repo::recover_plan`] finish or undo an interrupted commit without touching a
//! lock another git command holds.
//!
//! git's hooks are not run: the only caller, `git skill optimize`, has already put the content
//! through SkillGuard and the lint (the checks of git-skill's own pre-commit hook), and other
//! hooks (formatters, `commit-msg` rewriting) would change content that the audit trail records
//! by hash.

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use gix::bstr::{BStr, ByteSlice};

use super::{GitError, Repo};

/// One file of a commit made by [`Repo::commit_files`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Relative to the top of the work tree, `/`-separated (for example
    /// `.claude/skills/pdf/SKILL.md`).
    pub path: String,
    /// The new content; `None` deletes the file.
    pub content: Option<Vec<u8>>,
}

impl FileChange {
    /// Sets `path` to `content`.
    pub fn write(path: impl Into<String>, content: impl Into<Vec<u8>>) -> FileChange {
        FileChange {
            path: path.into(),
            content: Some(content.into()),
        }
    }

    /// Deletes `path`.
    pub fn delete(path: impl Into<String>) -> FileChange {
        FileChange {
            path: path.into(),
            content: None,
        }
    }
}

/// A commit (or a chain of commits) made ready: every object is written, nothing else has
/// changed. Kept by the caller (optimize keeps it in its checkpoint before applying it), so that
/// after a crash at any point of [`Repo::apply_plan`], [`Repo::recover_plan`] can tell whether
/// the commits landed, finish what was left, or put the work tree back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Plan {
    /// Names this operation's temporary files and locks (`[A-Za-z0-9_-]`): a lock is provably
    /// ours when it is the same file as our temporary file of that name.
    pub token: String,
    /// HEAD's commit before.
    pub head: String,
    /// The reference that moves: `HEAD` when it is detached, else the branch it points to.
    pub reference: String,
    /// The commits in order; HEAD ends at the last.
    pub commits: Vec<String>,
    /// The reflog entry: `<operation>: <subject>`.
    pub reflog: String,
    pub files: Vec<PlannedFile>,
}

impl Plan {
    /// The paths, quoted, for messages.
    fn quoted_paths(&self) -> String {
        self.files
            .iter()
            .map(|f| format!("'{}'", f.path))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One path of a [`Plan`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlannedFile {
    /// Relative to the top of the work tree.
    pub path: String,
    /// The blob it gets; `None`: it is deleted.
    pub new: Option<String>,
    pub executable: bool,
    /// What the work tree held there before, as a blob (`None`: nothing).
    pub old: Option<String>,
    /// The old content's permissions (unix mode bits).
    pub old_mode: Option<u32>,
}

/// What [`Repo::recover_plan`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// The commits are on HEAD; what was left (the index, the reflog, temporary files and
    /// locks) is finished.
    Landed,
    /// HEAD is where it was; git-skill's locks are gone and every file this plan wrote is back
    /// as it was, except `changed`: files that hold neither the old nor the new content
    /// (someone wrote them since), left as they are for the caller.
    NotLanded { changed: Vec<String> },
    /// HEAD moved elsewhere since (`head`), without the plan's commits: git-skill's locks are
    /// gone, and nothing else was touched.
    Diverged { head: String },
}

/// What the steps of [`Repo::apply_plan`] are called, in order, for crash tests: the callback
/// hears each name just before the step runs.
pub type Points<'a> = &'a mut dyn FnMut(&str);

/// A temporary-file tag that no other process uses.
fn process_token() -> String {
    format!("{}", std::process::id())
}

impl Repo {
    /// Commits exactly `changes` on top of HEAD, like `git commit --only <paths>` after writing
    /// them: returns the new commit's id.
    ///
    /// - The new tree is HEAD's tree with each path set to its content (a new file gets mode
    ///   100644, an existing one keeps 100644 or 100755) or removed (a directory left empty
    ///   disappears from the tree). The commit's only parent is HEAD.
    /// - Author and committer come from git's usual sources: `GIT_AUTHOR_NAME`,
    ///   `GIT_AUTHOR_EMAIL`, `GIT_AUTHOR_DATE` and the `GIT_COMMITTER_*` equivalents, then
    ///   `author.*`/`committer.*`, then `user.name`/`user.email`.
    /// - HEAD (or the branch it points to) moves, with a reflog entry `commit: <subject>`.
    /// - The work-tree files are written atomically (keeping an existing file's permissions) or
    ///   removed, with directories left empty removed too.
    /// - The index entries of exactly these paths are set to the new blobs, with stat data from
    ///   the written files (so `git status` is clean without re-hashing), or removed; every
    ///   other entry stays as it was, so a user's unrelated staged change stays staged and is
    ///   not committed. The index's cached trees are dropped (git rebuilds them).
    ///
    /// The message is cleaned like `git commit -m` does (trailing whitespace, surrounding and
    /// repeated blank lines). git's hooks are not run (see the module documentation). The
    /// content at these paths in the work tree is replaced: callers check that the paths have no
    /// uncommitted changes first ([`Repo::dirty_paths`]).
    ///
    /// Refused, before anything changes: no commit yet on HEAD, no identity, a merge, rebase,
    /// cherry-pick, revert or bisect in progress, an empty message, a path that is absolute,
    /// contains `.`, `..`, an empty component, a backslash or `.git`, a path listed twice or
    /// inside another listed path, a path whose parent is a symbolic link or a file, a path
    /// that is a directory (or, when written, a symbolic link), a path in conflict in the
    /// index, and changes that leave HEAD's tree as it is.
    ///
    /// A failure before HEAD moves leaves the repository, the index and the work tree as they
    /// were (files already written are restored; at worst unreferenced objects remain, which
    /// `git gc` removes). After this call, [`Repo::staged_index`] of this `Repo` may still
    /// return the index read before it.
    pub fn commit_files(
        &self,
        message: &str,
        changes: &[FileChange],
    ) -> Result<gix::ObjectId, GitError> {
        self.commit_files_as("commit", message, changes)
    }

    /// Several commits in a row, each on the one before, made as one operation: HEAD moves
    /// once, from where it was to the last of them, so either all land or none does (the
    /// reflog records the last subject). The commits must touch disjoint paths. Otherwise as
    /// [`Repo::commit_files`]; returns the ids in order.
    pub fn commit_chain(
        &self,
        commits: &[(&str, &[FileChange])],
    ) -> Result<Vec<gix::ObjectId>, GitError> {
        let plan = self.prepare_plan(&process_token(), "commit", commits)?;
        self.apply_plan(&plan, &mut |_| {})
    }

    /// [`Repo::commit_files`] with the reflog's operation name (`commit`, `revert`).
    pub(super) fn commit_files_as(
        &self,
        operation: &str,
        message: &str,
        changes: &[FileChange],
    ) -> Result<gix::ObjectId, GitError> {
        let plan = self.prepare_plan(&process_token(), operation, &[(message, changes)])?;
        let ids = self.apply_plan(&plan, &mut |_| {})?;
        Ok(ids[ids.len() - 1])
    }

    /// The first half of [`Repo::commit_chain`]: checks everything that can be checked without
    /// changing anything, and writes the objects (the blobs, trees and commits, and the work
    /// tree's current content of each path, so that it can be put back). Nothing else changes:
    /// unused, these objects are what `git gc` removes.
    pub fn prepare_plan(
        &self,
        token: &str,
        operation: &str,
        commits: &[(&str, &[FileChange])],
    ) -> Result<Plan, GitError> {
        let all: Vec<FileChange> = commits
            .iter()
            .flat_map(|(_, changes)| changes.iter().cloned())
            .collect();
        let changes = all.as_slice();
        let paths = quote_paths(changes);
        let fail = |message: String| GitError::Commit {
            paths: paths.clone(),
            message,
        };
        if token.is_empty()
            || !token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(fail(format!("'{token}' cannot name temporary files")));
        }
        let mut messages = Vec::with_capacity(commits.len());
        for (message, _) in commits {
            messages
                .push(clean_message(message).ok_or_else(|| fail("the message is empty".into()))?);
        }
        if messages.is_empty() {
            return Err(fail("no commit to make".into()));
        }
        // Disjoint paths across the chain: one check over all of them.
        validate_changes(changes)?;
        if let Some(state) = self.repo.state() {
            return Err(GitError::InProgress {
                operation: in_progress_name(&state).to_owned(),
                path: self.workdir.clone(),
            });
        }
        // References are written as git's files backend keeps them; a reftable repository is
        // not something to write loose files into.
        let storage = self
            .repo
            .config_snapshot()
            .string("extensions.refStorage")
            .map(|v| v.to_string().to_ascii_lowercase());
        if storage.as_deref().is_some_and(|s| s != "files") {
            return Err(fail(format!(
                "the repository keeps its references as '{}'; git-skill commits only to the files backend",
                storage.unwrap_or_default()
            )));
        }
        let head = self.head_commit_id()?.ok_or_else(|| GitError::UnbornHead {
            path: self.workdir.clone(),
        })?;
        let reference = match self.repo.head_name() {
            Ok(Some(name)) => name.as_bstr().to_str_lossy().into_owned(),
            Ok(None) => "HEAD".to_owned(),
            Err(e) => return Err(fail(format!("could not read HEAD: {e}"))),
        };
        let author = identity("author", self.repo.author())?;
        let committer = identity("committer", self.repo.committer())?;
        for change in changes {
            check_worktree_path(&self.workdir, &change.path, change.content.is_some())?;
        }

        let head_commit = self
            .repo
            .find_commit(head)
            .map_err(|e| fail(format!("could not read HEAD's commit {head}: {e}")))?;
        let mut parent = head;
        let mut parent_tree = head_commit
            .tree_id()
            .map_err(|e| fail(format!("could not read HEAD's tree: {e}")))?
            .detach();
        let mut files = Vec::new();
        let mut ids = Vec::with_capacity(commits.len());
        for ((_, changes), message) in commits.iter().zip(&messages) {
            let parent_tree_obj = self
                .repo
                .find_tree(parent_tree)
                .map_err(|e| fail(format!("could not read the parent tree: {e}")))?;
            let mut editor = self
                .repo
                .edit_tree(parent_tree)
                .map_err(|e| fail(format!("could not edit the parent tree: {e}")))?;
            for change in changes.iter() {
                let old = parent_tree_obj
                    .lookup_entry_by_path(&change.path)
                    .map_err(|e| fail(format!("could not read '{}' in HEAD: {e}", change.path)))?;
                let mut planned = PlannedFile {
                    path: change.path.clone(),
                    new: None,
                    executable: false,
                    old: None,
                    old_mode: None,
                };
                match &change.content {
                    Some(content) => {
                        if let Some(old) = &old {
                            if old.mode().is_tree() || old.mode().is_commit() {
                                return Err(invalid(&change.path, "it is a directory in HEAD"));
                            }
                        }
                        let executable = old.as_ref().is_some_and(|e| e.mode().is_executable());
                        let blob = self
                            .repo
                            .write_blob(content)
                            .map_err(|e| fail(format!("could not store '{}': {e}", change.path)))?
                            .detach();
                        let kind = if executable {
                            gix::objs::tree::EntryKind::BlobExecutable
                        } else {
                            gix::objs::tree::EntryKind::Blob
                        };
                        editor
                            .upsert(change.path.as_str(), kind, blob)
                            .map_err(|e| fail(format!("could not set '{}': {e}", change.path)))?;
                        planned.new = Some(blob.to_string());
                        planned.executable = executable;
                    }
                    None => {
                        if old.as_ref().is_some_and(|e| e.mode().is_tree()) {
                            return Err(invalid(&change.path, "it is a directory in HEAD"));
                        }
                        editor.remove(change.path.as_str()).map_err(|e| {
                            fail(format!("could not remove '{}': {e}", change.path))
                        })?;
                    }
                }
                // The work tree's content now, kept as an object to put it back after a crash.
                let abs = self.workdir.join(&change.path);
                match std::fs::symlink_metadata(&abs) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        return Err(invalid(
                            &change.path,
                            "it is a symbolic link; git-skill does not replace links",
                        ))
                    }
                    Ok(meta) => {
                        let bytes = crate::fsutil::read(&abs)
                            .map_err(|e| fail(format!("could not read '{}': {e}", change.path)))?;
                        let id = self
                            .repo
                            .write_blob(&bytes)
                            .map_err(|e| fail(format!("could not store '{}': {e}", change.path)))?;
                        planned.old = Some(id.to_string());
                        planned.old_mode = Some(mode_bits(&meta));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => {
                        return Err(fail(format!("could not inspect '{}': {e}", change.path)))
                    }
                }
                files.push(planned);
            }
            let tree = editor
                .write()
                .map_err(|e| fail(format!("could not write the tree: {e}")))?
                .detach();
            if tree == parent_tree {
                return Err(GitError::NothingToCommit {
                    paths: quote_paths(changes),
                });
            }
            let author_sig = author
                .to_owned()
                .map_err(|e| fail(format!("the author date is not valid: {e}")))?;
            let committer_sig = committer
                .to_owned()
                .map_err(|e| fail(format!("the committer date is not valid: {e}")))?;
            let commit = gix::objs::Commit {
                tree,
                parents: vec![parent].into(),
                author: author_sig,
                committer: committer_sig,
                encoding: None,
                message: message.clone().into(),
                extra_headers: Vec::new(),
            };
            parent = self
                .repo
                .write_object(&commit)
                .map_err(|e| fail(format!("could not write the commit: {e}")))?
                .detach();
            parent_tree = tree;
            ids.push(parent.to_string());
        }
        let subject = messages
            .last()
            .and_then(|m| m.lines().next())
            .unwrap_or_default()
            .to_owned();
        Ok(Plan {
            token: token.to_owned(),
            head: head.to_string(),
            reference,
            commits: ids,
            reflog: format!("{operation}: {subject}"),
            files,
        })
    }

    /// The second half of [`Repo::commit_chain`]: takes the locks on the reference and the
    /// index, writes the work tree, the index and the reference, and moves HEAD. `points` hears
    /// the name of each step just before it runs (crash tests stop the process there).
    ///
    /// The locks are git's own (`<ref>.lock`, `index.lock`), each made as a hard link of a
    /// temporary file named after the plan's token: a lock left by a crash is provably this
    /// plan's, so that [`Repo::recover_plan`] removes it and no other. HEAD's move (a rename)
    /// is the one step after which the commits exist. A failure before it leaves the
    /// repository, the index and the work tree as they were.
    pub fn apply_plan(
        &self,
        plan: &Plan,
        points: Points<'_>,
    ) -> Result<Vec<gix::ObjectId>, GitError> {
        let paths = plan.quoted_paths();
        let fail = |message: String| GitError::Commit {
            paths: paths.clone(),
            message,
        };
        let ids: Vec<gix::ObjectId> = plan
            .commits
            .iter()
            .map(|id| gix::ObjectId::from_hex(id.as_bytes()))
            .collect::<Result<_, _>>()
            .map_err(|e| fail(format!("the plan names no valid commit: {e}")))?;
        let new_head = *ids.last().ok_or_else(|| fail("no commit to make".into()))?;
        let head = gix::ObjectId::from_hex(plan.head.as_bytes())
            .map_err(|e| fail(format!("the plan names no valid HEAD: {e}")))?;
        let locks = self.locks(plan);

        // 1. The locks: the reference's (checking it still points at `head`), then the index's.
        points("lock-ref");
        let ref_lock = Lock::acquire(&locks.ref_tmp, &locks.ref_lock).map_err(|e| {
            fail(format!(
                "could not lock HEAD (another git command running? if not, remove '{}'): {e}",
                locks.ref_lock.display()
            ))
        })?;
        let current = self.reference_target(&plan.reference);
        if current.as_ref().ok() != Some(&head) {
            ref_lock.release();
            return Err(fail(match current {
                Ok(id) => format!("HEAD moved to {id} meanwhile"),
                Err(e) => e,
            }));
        }
        points("lock-index");
        let index_lock = match Lock::acquire(&locks.index_tmp, &locks.index_lock) {
            Ok(lock) => lock,
            Err(e) => {
                ref_lock.release();
                return Err(fail(format!(
                    "could not lock the index (another git command running? if not, remove '{}'): {e}",
                    locks.index_lock.display()
                )));
            }
        };
        let release = |message: String| {
            index_lock.release();
            ref_lock.release();
            fail(message)
        };
        let index_path = self.repo.index_path();
        let mut index = match gix::index::File::at_or_default(
            &index_path,
            self.repo.object_hash(),
            true,
            gix::index::decode::Options::default(),
        ) {
            Ok(index) => index,
            Err(e) => return Err(release(format!("could not read the index: {e}"))),
        };
        let changes: Vec<FileChange> = plan
            .files
            .iter()
            .map(|f| FileChange {
                path: f.path.clone(),
                content: f.new.as_ref().map(|_| Vec::new()),
            })
            .collect();
        if let Err(e) = check_index(&index, &changes) {
            index_lock.release();
            ref_lock.release();
            return Err(e);
        }

        // 2. The work tree, undone on any failure until HEAD has moved.
        let mut journal = Journal::default();
        let staged = (|| -> Result<(), String> {
            let mut written = Vec::new();
            for file in &plan.files {
                let content = match &file.new {
                    Some(id) => Some(self.planned_blob(id)?),
                    None => None,
                };
                journal.apply(
                    &self.workdir,
                    &file.path,
                    content.as_deref(),
                    &plan.token,
                    points,
                )?;
                if let Some(id) = &file.new {
                    let id = gix::ObjectId::from_hex(id.as_bytes()).map_err(|e| e.to_string())?;
                    written.push((file.path.clone(), id, file.executable));
                }
            }
            update_index(&mut index, &self.workdir, &changes, &written)?;
            points("write-index");
            let mut bytes = Vec::new();
            index
                .write_to(&mut bytes, gix::index::write::Options::default())
                .map_err(|e| format!("could not write the index: {e}"))?;
            index_lock
                .write(&bytes)
                .map_err(|e| format!("could not write the index: {e}"))?;
            points("write-ref");
            ref_lock
                .write(format!("{new_head}\n").as_bytes())
                .map_err(|e| format!("could not write '{}': {e}", plan.reference))?;
            Ok(())
        })();
        if let Err(message) = staged {
            index_lock.release();
            ref_lock.release();
            return Err(journal.undo(paths, message));
        }

        // 3. HEAD moves: from here on the commits exist.
        points("move-head");
        if let Err(e) = std::fs::rename(&locks.ref_lock, &locks.ref_file) {
            index_lock.release();
            ref_lock.release();
            return Err(journal.undo(paths, format!("could not move HEAD: {e}")));
        }
        ref_lock.forget_lock();
        // 4. What follows the move: none of it decides whether the commits exist.
        points("reflog");
        let reflog = self.append_reflogs(plan, head, new_head);
        points("commit-index");
        let indexed = std::fs::rename(&locks.index_lock, &index_path);
        if indexed.is_ok() {
            index_lock.forget_lock();
        }
        points("cleanup");
        ref_lock.release();
        index_lock.release();
        journal.cleanup_empty_dirs(&self.workdir);
        if let Err(e) = indexed {
            return Err(GitError::IndexAfterCommit {
                commit: new_head,
                paths: plan
                    .files
                    .iter()
                    .map(|c| shell_quote(&c.path))
                    .collect::<Vec<_>>()
                    .join(" "),
                message: e.to_string(),
            });
        }
        if let Err(e) = reflog {
            // The commits stand; only the reflog entry is missing.
            return Err(GitError::GitCommand {
                command: "reflog".into(),
                message: format!(
                    "commit {new_head} was made, but its reflog entry could not be written: {e}"
                ),
            });
        }
        Ok(ids)
    }

    /// After a crash while `plan` was applied (or before it was): finishes a plan whose
    /// commits landed (the index, the reflog, temporary files), or takes back what one that did
    /// not land changed. Only git-skill's own locks are removed: a lock that is not provably
    /// this plan's stays, and the error names it.
    pub fn recover_plan(&self, plan: &Plan, within: &str) -> Result<Recovery, GitError> {
        let paths = plan.quoted_paths();
        let fail = |message: String| GitError::Commit {
            paths: paths.clone(),
            message,
        };
        // The plan comes from a file on disk: nothing in it is trusted. Every path must be one
        // the caller owns, reached without links; the token must name only our files; the
        // reference must be the one HEAD follows now.
        if plan.token.is_empty()
            || !plan
                .token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(fail("the plan's token is not git-skill's".into()));
        }
        let prefix = format!("{within}/");
        for file in &plan.files {
            validate_path(&file.path).map_err(|reason| invalid(&file.path, reason))?;
            if within.is_empty() || !file.path.starts_with(&prefix) {
                return Err(invalid(
                    &file.path,
                    format!("the plan may only touch files below '{within}'"),
                ));
            }
            check_worktree_path(&self.workdir, &file.path, true)?;
        }
        let reference = match self.repo.head_name() {
            Ok(Some(name)) => name.as_bstr().to_str_lossy().into_owned(),
            Ok(None) => "HEAD".to_owned(),
            Err(e) => return Err(fail(format!("could not read HEAD: {e}"))),
        };
        if reference != plan.reference {
            return Err(fail(format!(
                "the interrupted commit was for {}, and HEAD now follows {reference}; switch back to finish it",
                plan.reference
            )));
        }
        let locks = self.locks(plan);
        let last = plan
            .commits
            .last()
            .and_then(|id| gix::ObjectId::from_hex(id.as_bytes()).ok())
            .ok_or_else(|| fail("the plan names no commit".into()))?;
        let head = gix::ObjectId::from_hex(plan.head.as_bytes())
            .map_err(|e| fail(format!("the plan names no valid HEAD: {e}")))?;
        let ours = |lock: &Path, tmp: &Path| same_file(lock, tmp);
        let current = self.reference_target(&plan.reference).map_err(fail)?;
        let remove_ours = || -> Result<(), GitError> {
            for (lock, tmp) in [
                (&locks.ref_lock, &locks.ref_tmp),
                (&locks.index_lock, &locks.index_tmp),
            ] {
                if ours(lock, tmp) {
                    std::fs::remove_file(lock)
                        .map_err(|e| fail(format!("could not remove '{}': {e}", lock.display())))?;
                }
                let _ = std::fs::remove_file(tmp);
            }
            Journal::remove_temporaries(&self.workdir, plan);
            Ok(())
        };
        if current == last {
            // Landed. The index lock, if still ours, holds the finished index.
            if ours(&locks.index_lock, &locks.index_tmp) {
                std::fs::rename(&locks.index_lock, self.repo.index_path())
                    .map_err(|e| fail(format!("could not put the finished index in place: {e}")))?;
            }
            self.append_missing_reflogs(plan, head, last)
                .map_err(|e| fail(format!("could not write the reflog: {e}")))?;
            remove_ours()?;
            return Ok(Recovery::Landed);
        }
        if current != head {
            // Commits were made since. The plan's commits are in history: landed, and what is
            // left of it (an index it wrote long ago) is not put back over newer work.
            remove_ours()?;
            if self.is_ancestor(last, current) {
                return Ok(Recovery::Landed);
            }
            return Ok(Recovery::Diverged {
                head: current.to_string(),
            });
        }
        // Not landed: our locks go, the work tree goes back.
        remove_ours()?;
        let mut changed = Vec::new();
        for file in plan.files.iter().rev() {
            let abs = self.workdir.join(&file.path);
            let now = match std::fs::symlink_metadata(&abs) {
                Ok(m) if m.is_file() => Some(
                    crate::fsutil::read(&abs)
                        .map_err(|e| fail(format!("could not read '{}': {e}", file.path)))?,
                ),
                Ok(_) => {
                    changed.push(file.path.clone());
                    continue;
                }
                Err(_) => None,
            };
            let now_id = now.as_deref().map(|b| blob_id(self, b)).transpose()?;
            if now_id == file.old {
                continue;
            }
            if now_id != file.new {
                changed.push(file.path.clone());
                continue;
            }
            match &file.old {
                Some(old) => {
                    let bytes = self.planned_blob(old).map_err(fail)?;
                    let permissions = file.old_mode.map(permissions_from);
                    write_file_atomic(&abs, &bytes, permissions, &plan.token)
                        .map_err(|e| fail(format!("could not restore '{}': {e}", file.path)))?;
                }
                None => {
                    std::fs::remove_file(&abs)
                        .map_err(|e| fail(format!("could not remove '{}': {e}", file.path)))?;
                    // Directories the plan created and left empty go too.
                    let mut dir = abs.parent();
                    while let Some(d) = dir {
                        if d == self.workdir || std::fs::remove_dir(d).is_err() {
                            break;
                        }
                        dir = d.parent();
                    }
                }
            }
        }
        // A lock that is not ours stays: the next attempt names it, with how to remove it.
        Ok(Recovery::NotLanded { changed })
    }

    /// Where a plan's locks and their temporary twins are.
    fn locks(&self, plan: &Plan) -> PlanLocks {
        let ref_file = if plan.reference == "HEAD" {
            self.repo.git_dir().join("HEAD")
        } else {
            self.repo.common_dir().join(&plan.reference)
        };
        let index_path = self.repo.index_path();
        let with = |p: &Path, suffix: &str| {
            let mut s = p.as_os_str().to_owned();
            s.push(suffix);
            PathBuf::from(s)
        };
        PlanLocks {
            ref_lock: with(&ref_file, ".lock"),
            ref_tmp: self
                .repo
                .common_dir()
                .join(format!("git-skill-{}.ref", plan.token)),
            ref_file,
            index_lock: with(&index_path, ".lock"),
            index_tmp: with(&index_path, &format!(".git-skill-{}", plan.token)),
        }
    }

    /// What `reference` points at now (through packed refs too).
    fn reference_target(&self, reference: &str) -> Result<gix::ObjectId, String> {
        let mut r = self
            .repo
            .find_reference(reference)
            .map_err(|e| format!("could not read {reference}: {e}"))?;
        r.peel_to_id()
            .map(|id| id.detach())
            .map_err(|e| format!("could not read {reference}: {e}"))
    }

    fn planned_blob(&self, id: &str) -> Result<Vec<u8>, String> {
        let id = gix::ObjectId::from_hex(id.as_bytes()).map_err(|e| e.to_string())?;
        self.repo
            .find_object(id)
            .map(|o| o.detach().data)
            .map_err(|e| format!("could not read blob {id}: {e}"))
    }

    /// The reflog files a move of `reference` writes to: its own, and HEAD's when HEAD
    /// points at it. A log that does not exist is created for branches and HEAD unless
    /// `core.logAllRefUpdates` is false.
    fn reflog_paths(&self, reference: &str) -> Vec<PathBuf> {
        let all = self
            .repo
            .config_snapshot()
            .string("core.logAllRefUpdates")
            .map(|v| v.to_string().to_ascii_lowercase());
        let create = !matches!(all.as_deref(), Some("false" | "no" | "off" | "0"));
        let mut out = Vec::new();
        let head_log = self.repo.git_dir().join("logs/HEAD");
        if reference == "HEAD" {
            if create || head_log.exists() {
                out.push(head_log);
            }
            return out;
        }
        let own = self.repo.common_dir().join("logs").join(reference);
        if (create && reference.starts_with("refs/heads/")) || own.exists() {
            out.push(own);
        }
        if create || head_log.exists() {
            out.push(head_log);
        }
        out
    }

    fn append_reflogs(
        &self,
        plan: &Plan,
        old: gix::ObjectId,
        new: gix::ObjectId,
    ) -> std::io::Result<()> {
        self.write_reflog_lines(plan, old, new, &self.reflog_paths(&plan.reference))
    }

    fn write_reflog_lines(
        &self,
        plan: &Plan,
        old: gix::ObjectId,
        new: gix::ObjectId,
        paths: &[PathBuf],
    ) -> std::io::Result<()> {
        let committer = match self.repo.committer() {
            Some(Ok(sig)) => sig,
            _ => return Err(std::io::Error::other("no committer identity")),
        };
        let message: String = plan
            .reflog
            .chars()
            .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
            .collect();
        let line = format!(
            "{old} {new} {} <{}> {}\t{message}\n",
            committer.name.to_str_lossy().trim(),
            committer.email.to_str_lossy().trim(),
            committer.time.trim()
        );
        for path in paths {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let mut file = crate::fsutil::open_append(path)?;
            // One write: a crash leaves the line whole or absent.
            file.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// Appends the reflog entry of the move to `new` to each log that does not end with it
    /// (a crash may have come between two of them).
    fn append_missing_reflogs(
        &self,
        plan: &Plan,
        old: gix::ObjectId,
        new: gix::ObjectId,
    ) -> std::io::Result<()> {
        let needle = format!(" {new} ");
        let missing: Vec<PathBuf> = self
            .reflog_paths(&plan.reference)
            .into_iter()
            .filter(|path| {
                !crate::fsutil::read_to_string(path)
                    .map(|text| text.lines().last().is_some_and(|l| l.contains(&needle)))
                    .unwrap_or(false)
            })
            .collect();
        self.write_reflog_lines(plan, old, new, &missing)
    }

    /// Whether `ancestor` is `commit` or one of its ancestors (looked for among the newest
    /// 100,000 commits).
    fn is_ancestor(&self, ancestor: gix::ObjectId, commit: gix::ObjectId) -> bool {
        let Ok(walk) = self.repo.rev_walk([commit]).all() else {
            return false;
        };
        walk.take(100_000)
            .filter_map(Result::ok)
            .any(|info| info.id == ancestor)
    }
}

/// A plan's lock files and the temporary files they are links of.
struct PlanLocks {
    ref_file: PathBuf,
    ref_lock: PathBuf,
    ref_tmp: PathBuf,
    index_lock: PathBuf,
    index_tmp: PathBuf,
}

/// A git lock file (`<path>.lock`) made as a hard link of a temporary file of ours: it exists
/// whole from its first instant, and proving it ours after a crash is comparing two inodes.
struct Lock {
    tmp: PathBuf,
    lock: PathBuf,
    /// Cleared once the lock was renamed into place (it then no longer exists as a lock).
    held: std::cell::Cell<bool>,
}

impl Lock {
    fn acquire(tmp: &Path, lock: &Path) -> std::io::Result<Lock> {
        // A branch kept only in packed-refs may have no directory for its loose file yet.
        if let Some(dir) = lock.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let _ = std::fs::remove_file(tmp);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(tmp)?;
        if let Err(e) = std::fs::hard_link(tmp, lock) {
            let _ = std::fs::remove_file(tmp);
            return Err(e);
        }
        Ok(Lock {
            tmp: tmp.to_owned(),
            lock: lock.to_owned(),
            held: std::cell::Cell::new(true),
        })
    }

    /// Writes the lock's content (through the temporary name: the same file), synced.
    fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&self.tmp)?;
        file.write_all(bytes)?;
        file.sync_all()
    }

    fn forget_lock(&self) {
        self.held.set(false);
    }

    /// Removes the lock (when still held) and the temporary name.
    fn release(&self) {
        if self.held.get() {
            let _ = std::fs::remove_file(&self.lock);
            self.held.set(false);
        }
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Whether two paths name the same file (a hard link of it).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

fn mode_bits(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0o644
    }
}

fn permissions_from(mode: u32) -> std::fs::Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(mode)
    }
    #[cfg(not(unix))]
    {
        let _ = mode;
        std::fs::metadata(".")
            .map(|m| m.permissions())
            .expect("the current directory")
    }
}

/// The id git gives `bytes` as a blob, without writing it.
fn blob_id(repo: &Repo, bytes: &[u8]) -> Result<String, GitError> {
    gix::objs::compute_hash(repo.repo.object_hash(), gix::objs::Kind::Blob, bytes)
        .map(|id| id.to_string())
        .map_err(|e| GitError::Read {
            path: PathBuf::from("(blob)"),
            message: e.to_string(),
        })
}

fn invalid(path: &str, reason: impl Into<String>) -> GitError {
    GitError::InvalidPath {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

/// `path` as one word for a POSIX shell.
fn shell_quote(path: &str) -> String {
    if !path.is_empty()
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+@".contains(&b))
    {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

fn quote_paths(changes: &[FileChange]) -> String {
    changes
        .iter()
        .map(|c| format!("'{}'", c.path))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The owned signature of `role` (`author`, `committer`), or why there is none.
pub(super) fn signature(
    role: &'static str,
    sig: Option<Result<gix::actor::SignatureRef<'_>, gix::Error>>,
) -> Result<gix::actor::Signature, GitError> {
    identity(role, sig)?
        .to_owned()
        .map_err(|e| GitError::Identity {
            role,
            message: format!("the date is not valid: {e}"),
        })
}

fn identity<'a>(
    role: &'static str,
    sig: Option<Result<gix::actor::SignatureRef<'a>, gix::Error>>,
) -> Result<gix::actor::SignatureRef<'a>, GitError> {
    match sig {
        Some(Ok(sig)) if !sig.name.trim().is_empty() && !sig.email.trim().is_empty() => Ok(sig),
        Some(Ok(_)) => Err(GitError::Identity {
            role,
            message: "the name or email is empty".into(),
        }),
        Some(Err(e)) => Err(GitError::Identity {
            role,
            message: e.to_string(),
        }),
        None => Err(GitError::Identity {
            role,
            message: "user.name or user.email is not set".into(),
        }),
    }
}

fn in_progress_name(state: &gix::state::InProgress) -> &'static str {
    use gix::state::InProgress as P;
    match state {
        P::ApplyMailbox | P::ApplyMailboxRebase => "git am",
        P::Bisect => "bisect",
        P::CherryPick | P::CherryPickSequence => "cherry-pick",
        P::Merge => "merge",
        P::Rebase | P::RebaseInteractive => "rebase",
        P::Revert | P::RevertSequence => "revert",
    }
}

/// git's `--cleanup=whitespace`: trailing whitespace of each line, leading, trailing and repeated
/// blank lines go; the message ends with one newline. `None` when nothing is left. Secrets are
/// masked first: every commit git-skill writes has its message from here, and messages quote
/// what models and people wrote.
pub(super) fn clean_message(message: &str) -> Option<String> {
    let message = crate::redact::redact(message);
    let mut out = String::new();
    let mut blank = false;
    for line in message.lines().map(str::trim_end) {
        if line.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push('\n');
            blank = false;
        }
        out.push_str(line);
        out.push('\n');
    }
    (!out.is_empty()).then_some(out)
}

/// Checks each path's form, duplicates and nesting.
fn validate_changes(changes: &[FileChange]) -> Result<(), GitError> {
    if changes.is_empty() {
        return Err(GitError::NothingToCommit {
            paths: "no paths".into(),
        });
    }
    let mut seen = HashSet::new();
    for change in changes {
        validate_path(&change.path).map_err(|reason| invalid(&change.path, reason))?;
        if !seen.insert(change.path.as_str()) {
            return Err(invalid(&change.path, "it is listed twice"));
        }
    }
    for change in changes {
        let mut prefix = change.path.as_str();
        while let Some((parent, _)) = prefix.rsplit_once('/') {
            if seen.contains(parent) {
                return Err(invalid(
                    &change.path,
                    format!("'{parent}' is listed too, as a file"),
                ));
            }
            prefix = parent;
        }
    }
    Ok(())
}

/// A path relative to the top of the work tree, `/`-separated, staying inside it.
pub(super) fn validate_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    if path.starts_with('/') {
        return Err("it is absolute; paths are relative to the top of the work tree".into());
    }
    if path.contains('\\') {
        return Err("it contains a backslash; use '/' as the separator".into());
    }
    if path.contains('\0') {
        return Err("it contains a NUL byte".into());
    }
    for component in path.split('/') {
        match component {
            "" => return Err("it has an empty component (a doubled or trailing '/')".into()),
            ".." => return Err("it contains '..'; paths must stay inside the work tree".into()),
            "." => return Err("it contains a '.' component".into()),
            c if c.eq_ignore_ascii_case(".git") => {
                return Err("it is inside a .git directory".into())
            }
            _ => {}
        }
    }
    Ok(())
}

/// The path's parents in the work tree must be real directories (or not exist yet); the path
/// itself must not be a directory, nor a symbolic link when it is written.
fn check_worktree_path(workdir: &Path, path: &str, writing: bool) -> Result<(), GitError> {
    let components: Vec<&str> = path.split('/').collect();
    let mut current = workdir.to_path_buf();
    let mut rel = String::new();
    for component in &components[..components.len() - 1] {
        current.push(component);
        if !rel.is_empty() {
            rel.push('/');
        }
        rel.push_str(component);
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(invalid(
                    path,
                    format!("its parent '{rel}' is a symbolic link"),
                ))
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(invalid(
                    path,
                    format!("its parent '{rel}' is a file, not a directory"),
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(invalid(path, format!("could not inspect '{rel}': {e}"))),
        }
    }
    match std::fs::symlink_metadata(workdir.join(path)) {
        Ok(meta) if meta.is_dir() => Err(invalid(path, "it is a directory in the work tree")),
        Ok(meta) if writing && meta.file_type().is_symlink() => Err(invalid(
            path,
            "it is a symbolic link; git-skill does not replace links",
        )),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(invalid(path, format!("could not inspect it: {e}"))),
    }
}

/// No path may be in conflict, have index entries below it, or lie below a file of the index.
fn check_index(index: &gix::index::File, changes: &[FileChange]) -> Result<(), GitError> {
    for change in changes {
        let path: &BStr = change.path.as_bytes().as_bstr();
        if let Some(range) = index.entry_range(path) {
            if index.entries()[range].iter().any(|e| e.stage_raw() != 0) {
                return Err(invalid(
                    &change.path,
                    "it is in conflict in the index; resolve the conflict first",
                ));
            }
        }
        let below = format!("{}/", change.path);
        if index
            .prefixed_entries(below.as_bytes().as_bstr())
            .is_some_and(|entries| !entries.is_empty())
        {
            return Err(invalid(&change.path, "the index has files below it"));
        }
        let mut prefix = change.path.as_str();
        while let Some((parent, _)) = prefix.rsplit_once('/') {
            if index.entry_by_path(parent.as_bytes().as_bstr()).is_some() {
                return Err(invalid(
                    &change.path,
                    format!("'{parent}' is a file in the index"),
                ));
            }
            prefix = parent;
        }
    }
    Ok(())
}

impl Repo {
    /// Whether git-skill may write `path` (relative to the top): its form (no `..`, no `.git`,
    /// no absolute path) and no link or file on the way in the work tree.
    pub fn check_path_for_write(&self, path: &str) -> Result<(), GitError> {
        validate_path(path).map_err(|reason| invalid(path, reason))?;
        check_worktree_path(&self.workdir, path, true)
    }

    /// Writes `changes` into the work tree and the index, like editing the files and running
    /// `git add`/`git rm` on exactly those paths: HEAD does not move, every other index entry
    /// stays. Under git's index lock (made as in [`Repo::apply_plan`]); a failure puts every
    /// file already written back and leaves the index as it was. An existing file keeps its
    /// permissions and its index mode follows them; a new file is 100644.
    ///
    /// Refused before anything changes: the path checks of [`Repo::commit_files`] (form,
    /// duplicates, nesting, links and files on the way, a directory at the path, a conflict in
    /// the index).
    pub fn stage_files(&self, changes: &[FileChange]) -> Result<(), GitError> {
        let paths = quote_paths(changes);
        let fail = |message: String| GitError::Commit {
            paths: paths.clone(),
            message,
        };
        validate_changes(changes)?;
        for change in changes {
            check_worktree_path(&self.workdir, &change.path, change.content.is_some())?;
        }
        let mut blobs = Vec::new();
        for change in changes {
            if let Some(content) = &change.content {
                let id = self
                    .repo
                    .write_blob(content)
                    .map_err(|e| fail(format!("could not store '{}': {e}", change.path)))?
                    .detach();
                blobs.push((change.path.clone(), id));
            }
        }
        let token = format!("stage-{}", process_token());
        let index_path = self.repo.index_path();
        let mut lock_path = index_path.as_os_str().to_owned();
        lock_path.push(".lock");
        let mut tmp_path = index_path.as_os_str().to_owned();
        tmp_path.push(format!(".git-skill-{token}"));
        let lock = Lock::acquire(Path::new(&tmp_path), Path::new(&lock_path)).map_err(|e| {
            fail(format!(
                "could not lock the index (another git command running? if not, remove '{}'): {e}",
                Path::new(&lock_path).display()
            ))
        })?;
        let mut index = match gix::index::File::at_or_default(
            &index_path,
            self.repo.object_hash(),
            true,
            gix::index::decode::Options::default(),
        ) {
            Ok(index) => index,
            Err(e) => {
                lock.release();
                return Err(fail(format!("could not read the index: {e}")));
            }
        };
        if let Err(e) = check_index(&index, changes) {
            lock.release();
            return Err(e);
        }
        let mut journal = Journal::default();
        let staged = (|| -> Result<(), String> {
            let mut written = Vec::new();
            for change in changes {
                journal.apply(
                    &self.workdir,
                    &change.path,
                    change.content.as_deref(),
                    &token,
                    &mut |_| {},
                )?;
                if let Some((_, id)) = blobs.iter().find(|(p, _)| *p == change.path) {
                    let meta = std::fs::symlink_metadata(self.workdir.join(&change.path))
                        .map_err(|e| format!("could not stat '{}': {e}", change.path))?;
                    let executable = mode_bits(&meta) & 0o111 != 0;
                    written.push((change.path.clone(), *id, executable));
                }
            }
            update_index(&mut index, &self.workdir, changes, &written)?;
            let mut bytes = Vec::new();
            index
                .write_to(&mut bytes, gix::index::write::Options::default())
                .map_err(|e| format!("could not write the index: {e}"))?;
            lock.write(&bytes)
                .map_err(|e| format!("could not write the index: {e}"))?;
            std::fs::rename(&lock_path, &index_path)
                .map_err(|e| format!("could not write the index: {e}"))?;
            lock.forget_lock();
            Ok(())
        })();
        lock.release();
        match staged {
            Ok(()) => {
                journal.cleanup_empty_dirs(&self.workdir);
                Ok(())
            }
            Err(message) => Err(journal.undo(paths, message)),
        }
    }
}

/// Replaces the entries of the changed paths: removed, or set to the new blob with the stat data
/// of the file just written.
fn update_index(
    index: &mut gix::index::File,
    workdir: &Path,
    changes: &[FileChange],
    written: &[(String, gix::ObjectId, bool)],
) -> Result<(), String> {
    let changed: HashSet<&[u8]> = changes.iter().map(|c| c.path.as_bytes()).collect();
    index.remove_entries(|_, path, _| changed.contains(path.as_bytes()));
    for (path, id, executable) in written {
        let abs = workdir.join(path);
        let meta = gix::index::fs::Metadata::from_path_no_follow(&abs)
            .map_err(|e| format!("could not stat '{path}': {e}"))?;
        let stat = gix::index::entry::Stat::from_fs(&meta)
            .map_err(|e| format!("could not stat '{path}': {e}"))?;
        let mode = if *executable {
            gix::index::entry::Mode::FILE_EXECUTABLE
        } else {
            gix::index::entry::Mode::FILE
        };
        index.dangerously_push_entry(
            stat,
            *id,
            gix::index::entry::Flags::empty(),
            mode,
            path.as_bytes().as_bstr(),
        );
    }
    index.sort_entries();
    // The cached trees would still describe the old entries; git rebuilds them on demand.
    index.remove_tree();
    Ok(())
}

/// What a path was in the work tree before this commit touched it.
enum Before {
    Absent,
    File {
        bytes: Vec<u8>,
        permissions: std::fs::Permissions,
    },
    /// Only deletions meet links (writing over one is refused).
    Link(PathBuf),
}

/// How to put one path back.
struct Undo {
    path: PathBuf,
    before: Before,
    /// Directories created for it, outermost first.
    created_dirs: Vec<PathBuf>,
    deleted: bool,
}

/// The work-tree changes made so far, to undo them when the commit fails before HEAD moves.
#[derive(Default)]
struct Journal {
    undo: Vec<Undo>,
}

impl Journal {
    /// Writes (`Some`) or deletes (`None`) one file, remembering how to undo it; `points` hears
    /// each step (`mkdir`, `write`, `rename`, `delete` and the path) before it runs.
    fn apply(
        &mut self,
        workdir: &Path,
        rel: &str,
        content: Option<&[u8]>,
        token: &str,
        points: Points<'_>,
    ) -> Result<(), String> {
        let abs = workdir.join(rel);
        let before = match std::fs::symlink_metadata(&abs) {
            Ok(meta) if meta.file_type().is_symlink() => Before::Link(
                std::fs::read_link(&abs).map_err(|e| format!("could not read '{rel}': {e}"))?,
            ),
            Ok(meta) => Before::File {
                bytes: crate::fsutil::read(&abs)
                    .map_err(|e| format!("could not read '{rel}': {e}"))?,
                permissions: meta.permissions(),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Before::Absent,
            Err(e) => return Err(format!("could not inspect '{rel}': {e}")),
        };
        let existed = !matches!(before, Before::Absent);
        let permissions = match &before {
            Before::File { permissions, .. } => Some(permissions.clone()),
            _ => None,
        };
        self.undo.push(Undo {
            path: abs.clone(),
            before,
            created_dirs: Vec::new(),
            deleted: content.is_none(),
        });
        let Some(content) = content else {
            if existed {
                points(&format!("delete {rel}"));
                std::fs::remove_file(&abs).map_err(|e| format!("could not delete '{rel}': {e}"))?;
            }
            return Ok(());
        };
        let mut missing = Vec::new();
        let mut dir = abs.parent();
        while let Some(d) = dir {
            if d == workdir || d.exists() {
                break;
            }
            missing.push(d.to_path_buf());
            dir = d.parent();
        }
        for d in missing.into_iter().rev() {
            points(&format!(
                "mkdir {}",
                d.strip_prefix(workdir).unwrap_or(&d).display()
            ));
            std::fs::create_dir(&d)
                .map_err(|e| format!("could not create '{}': {e}", d.display()))?;
            if let Some(undo) = self.undo.last_mut() {
                undo.created_dirs.push(d);
            }
        }
        points(&format!("write {rel}"));
        let tmp = temp_path(&abs, token);
        write_temp(&tmp, content, permissions).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("could not write '{rel}': {e}")
        })?;
        points(&format!("rename {rel}"));
        std::fs::rename(&tmp, &abs).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("could not write '{rel}': {e}")
        })
    }

    /// Puts every touched path back as it was and builds the error for `message`.
    fn undo(self, paths: String, message: String) -> GitError {
        let mut failures = Vec::new();
        for undo in self.undo.into_iter().rev() {
            let result = match &undo.before {
                Before::File { bytes, permissions } => {
                    write_file_atomic(&undo.path, bytes, Some(permissions.clone()), "restore")
                }
                Before::Link(target) => restore_link(target, &undo.path),
                Before::Absent => match std::fs::remove_file(&undo.path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                    _ => Ok(()),
                },
            };
            if let Err(e) = result {
                failures.push(format!("'{}': {e}", undo.path.display()));
            }
            for dir in undo.created_dirs.iter().rev() {
                let _ = std::fs::remove_dir(dir);
            }
        }
        if failures.is_empty() {
            GitError::Commit { paths, message }
        } else {
            GitError::CommitRestore {
                paths,
                message,
                restore: failures.join("; "),
            }
        }
    }

    /// After a successful commit: directories that deletions left empty go, as with git.
    fn cleanup_empty_dirs(&self, workdir: &Path) {
        for undo in self.undo.iter().filter(|u| u.deleted) {
            let mut dir = undo.path.parent();
            while let Some(d) = dir {
                if d == workdir || !d.starts_with(workdir) || std::fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
    }

    /// Temporary files a crash may have left beside the plan's paths.
    fn remove_temporaries(workdir: &Path, plan: &Plan) {
        for file in &plan.files {
            let abs = workdir.join(&file.path);
            let _ = std::fs::remove_file(temp_path(&abs, &plan.token));
            let _ = std::fs::remove_file(temp_path(&abs, "restore"));
        }
    }
}

#[cfg(unix)]
fn restore_link(target: &Path, link: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(link) {
        Ok(_) => Ok(()),
        Err(_) => std::os::unix::fs::symlink(target, link),
    }
}

#[cfg(not(unix))]
fn restore_link(_target: &Path, link: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(format!(
        "cannot recreate the symbolic link {}",
        link.display()
    )))
}

/// The temporary file beside `path` for an operation: `.<name>.git-skill-<token>.tmp`.
fn temp_path(path: &Path, token: &str) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(".{name}.git-skill-{token}.tmp"))
}

/// Creates `tmp` with `bytes`, gives it `permissions` (an existing file's), and syncs it.
fn write_temp(
    tmp: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(tmp)?;
    file.write_all(bytes)?;
    if let Some(permissions) = permissions {
        file.set_permissions(permissions)?;
    }
    file.sync_all()
}

/// Like [`crate::fsutil::write_atomic`], but the file gets `permissions` (an existing file's)
/// before it replaces the old one. The temporary file is `.<name>.git-skill-<token>.tmp`.
fn write_file_atomic(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
    token: &str,
) -> std::io::Result<()> {
    let tmp = temp_path(path, token);
    let result = write_temp(&tmp, bytes, permissions).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_cleaned_like_git_commit_m() {
        assert_eq!(clean_message("subject").as_deref(), Some("subject\n"));
        assert_eq!(
            clean_message("\n\nsubject  \n\n\n\nbody\t\n\n").as_deref(),
            Some("subject\n\nbody\n")
        );
        assert_eq!(clean_message(" \n\t\n"), None);
    }

    #[test]
    fn paths_must_stay_inside_the_work_tree() {
        assert!(validate_path("skills/a/SKILL.md").is_ok());
        assert!(validate_path(".claude/skills/a/SKILL.md").is_ok());
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a/./b",
            "a//b",
            "a/",
            ".git/config",
            "a/.GIT/x",
            "a\\b",
        ] {
            assert!(validate_path(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn shell_quoting() {
        assert_eq!(shell_quote("skills/a/SKILL.md"), "skills/a/SKILL.md");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn listed_twice_or_nested_is_refused() {
        let twice = [FileChange::write("a", "1"), FileChange::delete("a")];
        assert!(matches!(
            validate_changes(&twice),
            Err(GitError::InvalidPath { .. })
        ));
        let nested = [FileChange::write("a", "1"), FileChange::write("a/b", "2")];
        assert!(matches!(
            validate_changes(&nested),
            Err(GitError::InvalidPath { .. })
        ));
    }
}
