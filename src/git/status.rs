//! Which paths below a directory `git status` reports, from `git status` itself.

use super::{GitError, Repo};

impl Repo {
    /// The paths below `dir` (relative to the top of the work tree, `/`-separated; `""` or `.`
    /// for the whole work tree) that `git status --untracked-files=all` reports: staged
    /// changes (HEAD against the index, renames reported as a deletion and an addition),
    /// unstaged modifications, type changes and deletions, conflicts, and untracked files that
    /// `.gitignore`, `.git/info/exclude` and `core.excludesFile` do not ignore. Paths below any
    /// of `ignore_prefixes` (for example `skills/pdf/.skillopt/`, with or without the trailing
    /// `/`) are left out. Sorted, each once; empty when clean. Untracked directories are listed
    /// file by file, not collapsed to `dir/`.
    ///
    /// On an unborn branch every staged file counts as a staged change. The index is not
    /// written (`GIT_OPTIONAL_LOCKS=0`: git does not refresh its stat data).
    pub fn dirty_paths(
        &self,
        dir: &str,
        ignore_prefixes: &[&str],
    ) -> Result<Vec<String>, GitError> {
        let dir = dir.trim_end_matches('/');
        let dir = if dir == "." { "" } else { dir };
        let fail = |message: String| GitError::Status {
            path: if dir.is_empty() {
                ".".into()
            } else {
                dir.into()
            },
            message,
        };
        if !dir.is_empty() {
            super::commit::validate_path(dir).map_err(fail)?;
        }
        let ignored: Vec<&str> = ignore_prefixes
            .iter()
            .map(|p| p.trim_end_matches('/'))
            .filter(|p| !p.is_empty())
            .collect();
        // `top` so that the process's current directory does not matter, `literal` so that
        // directory names with `*` or `?` mean themselves.
        let pathspec = format!(":(top,literal){dir}");
        let mut args = vec![
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
        ];
        if !dir.is_empty() {
            args.extend(["--", pathspec.as_str()]);
        }
        let out = self.run_git(&args, "git status")?;
        if !out.status.success() {
            return Err(fail(super::cli::first_nonempty(
                String::from_utf8_lossy(&out.stderr).trim(),
                "",
            )));
        }
        let mut paths = parse_porcelain(&out.stdout).map_err(fail)?;
        paths.retain(|path| {
            (dir.is_empty() || is_under(path, dir))
                && !ignored.iter().any(|prefix| is_under(path, prefix))
        });
        paths.sort();
        paths.dedup();
        Ok(paths)
    }
}

impl Repo {
    /// The files of the work tree that git does not track and does not ignore (what `git
    /// status` shows as untracked, folder by folder expanded to files), relative to the top,
    /// sorted; at most `limit` of them. Agents load a freshly downloaded `notes/CLAUDE.md` or
    /// `packages/web/.claude/skills/x` whatever git says about it.
    ///
    /// Empty in a repository owned by another user: git refuses to run there, and its
    /// configuration could name programs for git to run (`core.fsmonitor`).
    pub fn untracked_paths(&self, limit: usize) -> Result<Vec<String>, GitError> {
        if self.is_untrusted() {
            return Ok(Vec::new());
        }
        let out = self.run_git(
            &[
                "ls-files",
                "-z",
                "--others",
                "--exclude-standard",
                "--full-name",
            ],
            "git ls-files --others",
        )?;
        if !out.status.success() {
            return Err(GitError::Status {
                path: ".".into(),
                message: super::cli::first_nonempty(
                    String::from_utf8_lossy(&out.stderr).trim(),
                    "",
                ),
            });
        }
        let mut paths: Vec<String> = out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .take(limit + 1)
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        // Past the bound a file an agent loads could be among those not listed: said, not
        // passed over.
        if paths.len() > limit {
            return Err(GitError::Status {
                path: ".".into(),
                message: format!(
                    "more than {limit} untracked files: not all could be checked (add build output to .gitignore, or scan named paths)"
                ),
            });
        }
        paths.sort();
        Ok(paths)
    }
}

/// The paths of `git status --porcelain=v1 -z --no-renames`: `XY PATH\0` per entry.
fn parse_porcelain(out: &[u8]) -> Result<Vec<String>, String> {
    let mut paths = Vec::new();
    for entry in out.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let path = entry
            .get(3..)
            .filter(|p| !p.is_empty() && entry[2] == b' ')
            .ok_or_else(|| {
                format!(
                    "unexpected output of git status: {:?}",
                    String::from_utf8_lossy(entry)
                )
            })?;
        // A name that is not UTF-8 is still a change: reported, as `git status` shows it.
        let path = String::from_utf8_lossy(path);
        paths.push(path.trim_end_matches('/').to_owned());
    }
    Ok(paths)
}

/// `path` is `dir` or below it.
fn is_under(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::{is_under, parse_porcelain};

    #[test]
    fn porcelain_entries_are_read_and_odd_ones_refused() {
        let out = b"M  a/SKILL.md\0 D b.txt\0?? skills/\xe6\x97\xa5\xe6\x9c\xac/x y.md\0UU c\0";
        assert_eq!(
            parse_porcelain(out).unwrap(),
            ["a/SKILL.md", "b.txt", "skills/\u{65e5}\u{672c}/x y.md", "c"]
        );
        assert!(parse_porcelain(b"").unwrap().is_empty());
        assert!(parse_porcelain(b"M\0").is_err());
        assert_eq!(parse_porcelain(b"M  a\xff\0").unwrap(), ["a\u{fffd}"]);
    }

    #[test]
    fn under_means_the_directory_or_below_it() {
        assert!(is_under("a/b", "a"));
        assert!(is_under("a", "a"));
        assert!(!is_under("ab/c", "a"));
        assert!(!is_under("b/a", "a"));
    }
}
