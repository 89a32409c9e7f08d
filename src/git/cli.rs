//! The few operations git-skill hands to the `git` program rather than gix: a status of the
//! work tree, a three-way tree merge (of parentless commits `git commit-tree` makes of the
//! trees) and `git revert`. gix can do the first two, but its `status` and `merge` features
//! pull 17 crates (filters, attributes, pathspecs, the work-tree walker, encodings) into every
//! build from source for two rare commands (optimize's clean check, rollback and accepting a
//! proposal); the git they run beside is always there.

use std::process::{Command, Output, Stdio};

use super::{GitError, Repo};

/// A three-way tree merge by `git merge-tree`, read at the paths asked for.
pub(super) enum TreeMerge {
    /// Each path asked for, as the merge left it (`None`: deleted).
    Clean(Vec<(String, Option<MergedFile>)>),
    /// The paths with conflicts, sorted, each once.
    Conflict(Vec<String>),
}

/// A path of a merged tree.
pub(super) struct MergedFile {
    /// A blob (`100644`, `100755`), not a link, a submodule or a folder.
    pub blob: bool,
    pub executable: bool,
    /// The blob's content (empty for what is not a blob).
    pub bytes: Vec<u8>,
}

/// Merges made by this process, for their scratch folders' names.
static MERGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A scratch object directory under the git directory, removed when dropped: what a merge
/// writes (the commits it is given, the merged trees and blobs) goes there, so that nothing
/// dangling is left in the repository's own store.
struct Scratch {
    dir: std::path::PathBuf,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Repo {
    /// Runs `git` at the top of the work tree, never interactively, without the optional
    /// locks that would let a read (`git status`) rewrite the index.
    pub(super) fn run_git(&self, args: &[&str], command: &str) -> Result<Output, GitError> {
        self.run_git_with(args, &[], command)
    }

    /// [`Repo::run_git`] with more variables.
    fn run_git_with(
        &self,
        args: &[&str],
        vars: &[(&str, &str)],
        command: &str,
    ) -> Result<Output, GitError> {
        Command::new("git")
            .args(args)
            .envs(vars.iter().copied())
            .current_dir(&self.workdir)
            .env("GIT_EDITOR", "true")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| GitError::GitCommand {
                command: command.to_owned(),
                message: format!("could not run git: {e}"),
            })
    }

    /// `git ARGS`, an error with its message unless it succeeds.
    pub(super) fn git_ok(&self, args: &[&str], command: &str) -> Result<(), GitError> {
        let out = self.run_git(args, command)?;
        if out.status.success() {
            return Ok(());
        }
        Err(failed(command, &out))
    }

    /// Merges `theirs` into `ours` with `base` as their ancestor (`git merge-tree --write-tree
    /// --merge-base`, git 2.40 or newer) and reads `paths` of the result. Nothing in the
    /// repository changes: no ref, index or work-tree file, and no object (the merge runs on a
    /// scratch object directory that borrows the repository's as an alternate).
    pub(super) fn merge_trees(
        &self,
        base: gix::ObjectId,
        ours: gix::ObjectId,
        theirs: gix::ObjectId,
        paths: &[String],
    ) -> Result<TreeMerge, GitError> {
        let scratch = Scratch {
            dir: self.repo.common_dir().join("skill").join(format!(
                "merge-{}-{}",
                std::process::id(),
                MERGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            )),
        };
        let objects = scratch.dir.join("objects");
        std::fs::create_dir_all(&objects).map_err(|e| GitError::GitCommand {
            command: "git merge-tree".into(),
            message: format!("could not create '{}': {e}", objects.display()),
        })?;
        let own = self.repo.common_dir().join("objects");
        let (objects, own) = (objects.to_string_lossy(), own.to_string_lossy());
        let vars = [
            ("GIT_OBJECT_DIRECTORY", objects.as_ref()),
            ("GIT_ALTERNATE_OBJECT_DIRECTORIES", own.as_ref()),
        ];
        // git takes bare trees there only from 2.45: each tree goes in as a parentless commit
        // of its own.
        let base = self.commit_of(base, &vars)?;
        let ours = self.commit_of(ours, &vars)?;
        let theirs = self.commit_of(theirs, &vars)?;
        let base_arg = format!("--merge-base={base}");
        let command = "git merge-tree --write-tree";
        let out = self.run_git_with(
            &[
                "merge-tree",
                "--write-tree",
                "-z",
                "--name-only",
                "--no-messages",
                &base_arg,
                &ours,
                &theirs,
            ],
            &vars,
            command,
        )?;
        // 0: clean, 1: conflicts; anything else is an error (129 for an unknown option).
        let conflicted = match out.status.code() {
            Some(0) => false,
            Some(1) => true,
            _ => {
                let mut error = failed(command, &out);
                if let GitError::GitCommand { message, .. } = &mut error {
                    if message.contains("merge-base") {
                        message.push_str(" (git 2.40 or newer is needed)");
                    }
                }
                return Err(error);
            }
        };
        let (tree, conflicts) =
            parse_merge_tree(&out.stdout).ok_or_else(|| GitError::GitCommand {
                command: command.to_owned(),
                message: format!(
                    "its output could not be read: {:?}",
                    String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(200)])
                ),
            })?;
        if conflicted {
            return Ok(TreeMerge::Conflict(conflicts));
        }
        let mut files = Vec::new();
        for path in paths {
            files.push((path.clone(), self.merged_file(tree, path, &vars)?));
        }
        Ok(TreeMerge::Clean(files))
    }
}

impl Repo {
    /// A parentless commit of `tree`, with a fixed author and date (the same tree gives the same
    /// commit), for commands that take commits.
    fn commit_of(&self, tree: gix::ObjectId, vars: &[(&str, &str)]) -> Result<String, GitError> {
        let tree = tree.to_string();
        let command = "git commit-tree";
        let mut who = vec![
            ("GIT_AUTHOR_NAME", "git-skill"),
            ("GIT_AUTHOR_EMAIL", "git-skill@localhost"),
            ("GIT_AUTHOR_DATE", "@0 +0000"),
            ("GIT_COMMITTER_NAME", "git-skill"),
            ("GIT_COMMITTER_EMAIL", "git-skill@localhost"),
            ("GIT_COMMITTER_DATE", "@0 +0000"),
        ];
        who.extend_from_slice(vars);
        let out = self.run_git_with(
            &[
                "commit-tree",
                "--no-gpg-sign",
                &tree,
                "-m",
                "git-skill: a side of a merge",
            ],
            &who,
            command,
        )?;
        let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if !out.status.success() || gix::ObjectId::from_hex(id.as_bytes()).is_err() {
            return Err(failed(command, &out));
        }
        Ok(id)
    }

    /// `path` in the merged `tree` (`git ls-tree`, then `git cat-file` for a blob).
    fn merged_file(
        &self,
        tree: gix::ObjectId,
        path: &str,
        vars: &[(&str, &str)],
    ) -> Result<Option<MergedFile>, GitError> {
        let (tree, command) = (tree.to_string(), "git ls-tree");
        let spec = format!(":(literal){path}");
        let out = self.run_git_with(&["ls-tree", "-z", &tree, "--", &spec], vars, command)?;
        if !out.status.success() {
            return Err(failed(command, &out));
        }
        // `<mode> <type> <id>\t<path>\0`, nothing when the path is not there.
        let line = String::from_utf8_lossy(&out.stdout);
        let Some((meta, _)) = line.split_once('\t') else {
            return Ok(None);
        };
        let mut parts = meta.split(' ');
        let (mode, kind, id) = (parts.next(), parts.next(), parts.next());
        let blob = kind == Some("blob") && matches!(mode, Some("100644" | "100755"));
        let mut file = MergedFile {
            blob,
            executable: mode == Some("100755"),
            bytes: Vec::new(),
        };
        if blob {
            let id = id.unwrap_or_default();
            let out = self.run_git_with(&["cat-file", "blob", id], vars, "git cat-file")?;
            if !out.status.success() {
                return Err(failed("git cat-file", &out));
            }
            file.bytes = out.stdout;
        }
        Ok(Some(file))
    }
}

/// `<tree>\0` then, after a conflict, `<path>\0` for each conflicted path and an empty field.
fn parse_merge_tree(out: &[u8]) -> Option<(gix::ObjectId, Vec<String>)> {
    let mut fields = out.split(|b| *b == 0);
    let tree = std::str::from_utf8(fields.next()?).ok()?;
    let tree = gix::ObjectId::from_hex(tree.trim().as_bytes()).ok()?;
    let mut paths: Vec<String> = fields
        .take_while(|f| !f.is_empty())
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    paths.sort();
    paths.dedup();
    Some((tree, paths))
}

/// The error of a git command that ran and failed, with what it said.
pub(super) fn failed(command: &str, out: &Output) -> GitError {
    GitError::GitCommand {
        command: command.to_owned(),
        message: first_nonempty(
            String::from_utf8_lossy(&out.stderr).trim(),
            String::from_utf8_lossy(&out.stdout).trim(),
        ),
    }
}

pub(super) fn first_nonempty(a: &str, b: &str) -> String {
    let text = if a.is_empty() { b } else { a };
    if text.is_empty() {
        "it failed without a message".into()
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::parse_merge_tree;

    #[test]
    fn merge_tree_output_is_read_with_its_conflicts() {
        let tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        let (id, paths) = parse_merge_tree(format!("{tree}\0").as_bytes()).unwrap();
        assert_eq!(id.to_string(), tree);
        assert!(paths.is_empty());
        let out = format!("{tree}\0b/SKILL.md\0a.txt\0a.txt\0\0Auto-merging a.txt\0");
        let (_, paths) = parse_merge_tree(out.as_bytes()).unwrap();
        assert_eq!(paths, ["a.txt", "b/SKILL.md"]);
        assert!(parse_merge_tree(b"not a tree\0").is_none());
        assert!(parse_merge_tree(b"").is_none());
    }
}
