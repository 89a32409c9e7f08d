//! The few operations git-skill hands to the `git` program rather than gix: a status of the
//! work tree, a three-way tree merge and `git revert`. gix can do the first two, but its
//! `status` and `merge` features pull 17 crates (filters, attributes, pathspecs, the work-tree
//! walker, encodings) into every build from source for two rare commands (optimize's clean
//! check, rollback and accepting a proposal); the git they run beside is always there.

use std::process::{Command, Output, Stdio};

use super::{GitError, Repo};

/// A three-way tree merge by `git merge-tree`.
pub(super) enum TreeMerge {
    /// The merged tree, written to the object database.
    Clean(gix::ObjectId),
    /// The paths with conflicts, sorted, each once.
    Conflict(Vec<String>),
}

impl Repo {
    /// Runs `git` at the top of the work tree, never interactively, without the optional
    /// locks that would let a read (`git status`) rewrite the index.
    pub(super) fn run_git(&self, args: &[&str], command: &str) -> Result<Output, GitError> {
        Command::new("git")
            .args(args)
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
    /// --merge-base`, git 2.40 or newer: trees are enough, no commits are made). The merged
    /// tree is written; nothing else changes (no ref, index or work-tree file).
    pub(super) fn merge_trees(
        &self,
        base: gix::ObjectId,
        ours: gix::ObjectId,
        theirs: gix::ObjectId,
    ) -> Result<TreeMerge, GitError> {
        let base_arg = format!("--merge-base={base}");
        let (ours, theirs) = (ours.to_string(), theirs.to_string());
        let command = "git merge-tree --write-tree";
        let out = self.run_git(
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
        let (tree, paths) = parse_merge_tree(&out.stdout).ok_or_else(|| GitError::GitCommand {
            command: command.to_owned(),
            message: format!(
                "its output could not be read: {:?}",
                String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(200)])
            ),
        })?;
        if conflicted {
            return Ok(TreeMerge::Conflict(paths));
        }
        Ok(TreeMerge::Clean(tree))
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
