//! Which paths below a directory `git status` would report, through gix's status.

use gix::bstr::ByteSlice;

use super::{GitError, Repo};

impl Repo {
    /// The paths below `dir` (relative to the top of the work tree, `/`-separated; `""` or `.`
    /// for the whole work tree) that `git status --untracked-files=all` would report: staged
    /// changes (HEAD against the index, renames reported as a deletion and an addition),
    /// unstaged modifications, type changes and deletions, conflicts, and untracked files that
    /// `.gitignore`, `.git/info/exclude` and `core.excludesFile` do not ignore. Paths below any
    /// of `ignore_prefixes` (for example `skills/pdf/.skillopt/`, with or without the trailing
    /// `/`) are left out. Sorted, each once; empty when clean. Untracked directories are listed
    /// file by file, not collapsed to `dir/` as `git status` does by default.
    ///
    /// On an unborn branch every staged file counts as a staged change. The index is not written
    /// (unlike `git status`, which refreshes its stat data). Work-tree filters (`core.autocrlf`,
    /// `text`/`eol`/`filter` attributes) are applied as gix applies them, which may differ from
    /// git for files whose committed content is not in canonical form.
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
        let patterns: Vec<gix::bstr::BString> = if dir.is_empty() {
            Vec::new()
        } else {
            vec![format!(":(top,literal){dir}").into()]
        };
        let iter = self
            .repo
            .status(gix::progress::Discard)
            .map_err(|e| fail(e.to_string()))?
            .untracked_files(gix::status::UntrackedFiles::Files)
            .index_worktree_rewrites(None)
            .tree_index_track_renames(gix::status::tree_index::TrackRenames::Disabled)
            .into_iter(patterns)
            .map_err(|e| fail(e.to_string()))?;
        let mut out = Vec::new();
        for item in iter {
            let item = item.map_err(|e| fail(e.to_string()))?;
            let path = match &item {
                gix::status::Item::IndexWorktree(change) => {
                    if change.summary().is_none() {
                        continue;
                    }
                    change.rela_path()
                }
                gix::status::Item::TreeIndex(change) => change.location(),
            };
            let path = path.to_str_lossy().into_owned();
            if !dir.is_empty() && !is_under(&path, dir) {
                continue;
            }
            if ignored.iter().any(|prefix| is_under(&path, prefix)) {
                continue;
            }
            out.push(path);
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

/// `path` is `dir` or below it.
fn is_under(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::is_under;

    #[test]
    fn under_means_the_directory_or_below_it() {
        assert!(is_under("a/b", "a"));
        assert!(is_under("a", "a"));
        assert!(!is_under("ab/c", "a"));
        assert!(!is_under("b/a", "a"));
    }
}
