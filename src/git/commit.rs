//! Commits of given file contents on top of HEAD, like `git commit --only <paths>`, through gix.
//!
//! The new tree is HEAD's tree with the given paths set or removed; the work tree and the index
//! entries of exactly those paths follow, every other index entry is left alone. The steps are
//! ordered like git's own: objects first (harmless when unused), then the locks on HEAD's branch
//! and the index, then the work tree, then HEAD moves, and last the index. A failure before HEAD
//! moves restores the files already written and leaves the repository as it was.
//!
//! git's hooks are not run: the only caller, `git skill optimize`, has already put the content
//! through SkillGuard and the lint (the checks of git-skill's own pre-commit hook), and other
//! hooks (formatters, `commit-msg` rewriting) would change content that the audit trail records
//! by hash.

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gix::bstr::{BStr, ByteSlice};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

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

/// How long to wait for a lock on HEAD's branch (git's default `core.filesRefLockTimeout`).
const REF_LOCK_TIMEOUT: Duration = Duration::from_millis(100);

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
        self.commit_chain_as("commit", commits)
    }

    /// [`Repo::commit_files`] with the reflog's operation name (`commit`, `revert`).
    pub(super) fn commit_files_as(
        &self,
        operation: &str,
        message: &str,
        changes: &[FileChange],
    ) -> Result<gix::ObjectId, GitError> {
        let ids = self.commit_chain_as(operation, &[(message, changes)])?;
        Ok(ids[ids.len() - 1])
    }

    fn commit_chain_as(
        &self,
        operation: &str,
        commits: &[(&str, &[FileChange])],
    ) -> Result<Vec<gix::ObjectId>, GitError> {
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

        // 1. Everything that can be checked without changing anything.
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
        let head = self.head_commit_id()?.ok_or_else(|| GitError::UnbornHead {
            path: self.workdir.clone(),
        })?;
        let author = identity("author", self.repo.author())?;
        let committer = identity("committer", self.repo.committer())?;
        for change in changes {
            check_worktree_path(&self.workdir, &change.path, change.content.is_some())?;
        }

        // 2. Objects: blobs, trees, the commits. Unreferenced until HEAD moves.
        let head_commit = self
            .repo
            .find_commit(head)
            .map_err(|e| fail(format!("could not read HEAD's commit {head}: {e}")))?;
        let mut parent = head;
        let mut parent_tree = head_commit
            .tree_id()
            .map_err(|e| fail(format!("could not read HEAD's tree: {e}")))?
            .detach();
        // (path, blob id, executable) of each written file, for the index.
        let mut written: Vec<(String, gix::ObjectId, bool)> = Vec::new();
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
                        written.push((change.path.clone(), blob, executable));
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
            ids.push(parent);
        }
        let commit_id = parent;
        let message = messages.last().expect("one message at least").clone();
        // 3. Locks: HEAD's branch (checking it still points at `head`), then the index.
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: gix::reference::log::message(
                        operation,
                        message.as_bytes().as_bstr(),
                        1,
                    ),
                },
                expected: PreviousValue::MustExistAndMatch(gix::refs::Target::Object(head)),
                new: gix::refs::Target::Object(commit_id),
            },
            name: "HEAD"
                .try_into()
                .map_err(|e| fail(format!("HEAD is not a valid name: {e}")))?,
            deref: true,
        };
        let transaction = self
            .repo
            .refs
            .transaction()
            .prepare(
                [edit],
                gix::lock::acquire::Fail::AfterDurationWithBackoff(REF_LOCK_TIMEOUT),
                gix::lock::acquire::Fail::AfterDurationWithBackoff(REF_LOCK_TIMEOUT),
            )
            .map_err(|e| {
                fail(format!(
                    "could not lock HEAD (another git command running?): {e}"
                ))
            })?;
        let index_path = self.repo.index_path();
        let mut index_lock = gix::lock::File::acquire_to_update_resource(
            &index_path,
            gix::lock::acquire::Fail::Immediately,
            None,
            0,
        )
        .map_err(|e| {
            fail(format!(
                "could not lock the index (another git command running? if not, remove '{}.lock'): {e}",
                index_path.display()
            ))
        })?;
        let mut index = gix::index::File::at_or_default(
            &index_path,
            self.repo.object_hash(),
            true,
            gix::index::decode::Options::default(),
        )
        .map_err(|e| fail(format!("could not read the index: {e}")))?;
        check_index(&index, changes)?;

        // 4. The work tree, undone on any failure until HEAD has moved.
        let mut journal = Journal::default();
        let staged = (|| -> Result<(), String> {
            for change in changes {
                journal.apply(&self.workdir, change)?;
            }
            update_index(&mut index, &self.workdir, changes, &written)?;
            let mut out = std::io::BufWriter::with_capacity(64 * 1024, &mut index_lock);
            index
                .write_to(&mut out, gix::index::write::Options::default())
                .map_err(|e| format!("could not write the index: {e}"))?;
            out.flush()
                .map_err(|e| format!("could not write the index: {e}"))?;
            Ok(())
        })();
        if let Err(message) = staged {
            return Err(journal.undo(paths, message));
        }

        // 5. HEAD moves: from here on the commit exists.
        if let Err(e) = transaction.commit(Some(committer)) {
            return Err(journal.undo(paths, format!("could not move HEAD: {e}")));
        }
        journal.cleanup_empty_dirs(&self.workdir);
        if let Err(e) = index_lock.commit() {
            return Err(GitError::IndexAfterCommit {
                commit: commit_id,
                paths: changes
                    .iter()
                    .map(|c| shell_quote(&c.path))
                    .collect::<Vec<_>>()
                    .join(" "),
                message: e.error.to_string(),
            });
        }
        Ok(ids)
    }
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
/// blank lines go; the message ends with one newline. `None` when nothing is left.
pub(super) fn clean_message(message: &str) -> Option<String> {
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
    /// Writes or deletes one file, remembering how to undo it.
    fn apply(&mut self, workdir: &Path, change: &FileChange) -> Result<(), String> {
        let abs = workdir.join(&change.path);
        let rel = &change.path;
        let before = match std::fs::symlink_metadata(&abs) {
            Ok(meta) if meta.file_type().is_symlink() => Before::Link(
                std::fs::read_link(&abs).map_err(|e| format!("could not read '{rel}': {e}"))?,
            ),
            Ok(meta) => Before::File {
                bytes: std::fs::read(&abs).map_err(|e| format!("could not read '{rel}': {e}"))?,
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
            deleted: change.content.is_none(),
        });
        let Some(content) = &change.content else {
            if existed {
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
            std::fs::create_dir(&d)
                .map_err(|e| format!("could not create '{}': {e}", d.display()))?;
            if let Some(undo) = self.undo.last_mut() {
                undo.created_dirs.push(d);
            }
        }
        write_file_atomic(&abs, content, permissions, "tmp")
            .map_err(|e| format!("could not write '{rel}': {e}"))
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

/// Like [`crate::fsutil::write_atomic`], but the file gets `permissions` (an existing file's)
/// before it replaces the old one. The temporary file is `.<name>.git-skill-<pid>.<tag>`.
fn write_file_atomic(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
    tag: &str,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.git-skill-{}.{tag}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
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
