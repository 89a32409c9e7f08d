//! The only place that touches git: through gix, and the `git` program for a status, a tree
//! merge and a revert (`cli`); nothing prints.

pub mod attributes;
mod cli;
mod commit;
mod config_parameters;
pub mod hooks;
mod log;
mod proposal;
mod revert;
mod status;
mod tree;

pub use commit::{FileChange, Plan, PlannedFile, Recovery};
pub use log::LogEntry;
pub use proposal::{CommitInfo, Merged, TreeChange};
pub use revert::{RevertMethod, RevertOutcome};
pub use tree::{At, Entry, EntryKind, Listing, PathAt, RegularBlob, SubmoduleAt, Unavailable};

pub use config_parameters::{parse_config_parameters, ConfigParameterError};

use std::path::{Path, PathBuf};

/// Errors from the git layer; messages quote the path they concern.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("could not open the git repository at '{path}'")]
    Discover {
        path: PathBuf,
        #[source]
        source: gix::Error,
    },
    #[error("could not read git configuration for '{path}'")]
    Config {
        path: PathBuf,
        #[source]
        source: gix::Error,
    },
    #[error("the repository at '{path}' is bare; git-skill needs a work tree")]
    Bare { path: PathBuf },
    #[error("could not read '{}' from git: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("GIT_CONFIG_PARAMETERS could not be parsed")]
    Parameters(#[from] ConfigParameterError),
    #[error("HEAD in '{}' has no commit yet; make a first commit, then run git-skill again", path.display())]
    UnbornHead { path: PathBuf },
    #[error("no {role} identity is configured ({message}); set one with `git config user.name \"Your Name\"` and `git config user.email you@example.com`")]
    Identity { role: &'static str, message: String },
    #[error("cannot commit '{path}': {reason}")]
    InvalidPath { path: String, reason: String },
    #[error("a {operation} is in progress in '{}'; finish or abort it before git-skill commits", path.display())]
    InProgress { operation: String, path: PathBuf },
    #[error("nothing to commit: HEAD already has this content for {paths}")]
    NothingToCommit { paths: String },
    #[error("could not commit {paths}: {message}; the repository and work tree are as they were")]
    Commit { paths: String, message: String },
    #[error("could not commit {paths}: {message}; restoring the work tree failed too ({restore}), check those files with `git status`")]
    CommitRestore {
        paths: String,
        message: String,
        restore: String,
    },
    #[error("commit {commit} was made, but the index could not be updated ({message}); run `git reset -q -- {paths}` so that `git status` agrees")]
    IndexAfterCommit {
        commit: gix::ObjectId,
        paths: String,
        message: String,
    },
    #[error("could not get the git status of '{path}': {message}")]
    Status { path: String, message: String },
    #[error("cannot revert commit {commit}: {reason}")]
    Revert {
        commit: gix::ObjectId,
        reason: String,
    },
    #[error("commit {commit} cannot be reverted cleanly: '{path}' changed since in a conflicting way; the revert was aborted and nothing changed. To undo it by hand, edit '{path}' (`git show {commit} -- {path}` shows what that commit changed) and commit, or run `git revert {commit}` and resolve the conflict")]
    RevertConflict { commit: gix::ObjectId, path: String },
    #[error("reverting commit {commit} was refused, nothing changed: {reason}")]
    RevertRefused {
        commit: gix::ObjectId,
        reason: String,
    },
    #[error("`{command}` failed: {message}")]
    GitCommand { command: String, message: String },
}

/// A discovered repository with a work tree.
pub struct Repo {
    repo: gix::Repository,
    workdir: PathBuf,
    /// The index, read once (see [`Repo::staged_index`]).
    index: std::cell::OnceCell<gix::index::File>,
    /// Submodules opened to read what their gitlinks record (see [`Repo::staged_under`]).
    modules: std::cell::RefCell<Vec<tree::Module>>,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("workdir", &self.workdir)
            .finish()
    }
}

/// One `skill.*` value read from git configuration, in precedence order (later wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The key below `skill.`, as written (for example `roots` or `autoSkill.enabled`).
    pub key: String,
    pub value: String,
    /// Where it came from: a file path, `GIT_CONFIG_COUNT` or `git -c`.
    pub origin: String,
}

impl Repo {
    /// Finds the repository that contains `dir`. `Ok(None)` when `dir` is in no repository.
    pub fn discover(dir: &Path) -> Result<Option<Repo>, GitError> {
        // With environment overrides, so that GIT_DIR and friends set by git for hooks count.
        // (GIT_DIR without GIT_WORK_TREE: git takes the current directory as the top, gix the
        // repository's own; hooks run at the top, where both agree.)
        let mut repo = match gix::discover_with_environment_overrides(dir) {
            Ok(repo) => repo,
            Err(err) if is_no_repository(&err) => return Ok(None),
            Err(source) => {
                return Err(GitError::Discover {
                    path: dir.to_owned(),
                    source,
                })
            }
        };
        // The trees near the top (the root tree, `packages/`) are read once for each skill
        // root below them: kept, not inflated again for each.
        repo.object_cache_size_if_unset(1 << 20);
        let Some(workdir) = repo.workdir() else {
            return Err(GitError::Bare {
                path: repo.git_dir().to_owned(),
            });
        };
        // Canonical so that paths computed from it compare with canonicalised walk results.
        let workdir = dunce_canonical(workdir);
        Ok(Some(Repo {
            repo,
            workdir,
            index: std::cell::OnceCell::new(),
            modules: Default::default(),
        }))
    }

    /// The top of the work tree, canonicalised.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// `dir` relative to the top of the work tree, `/`-separated, when it lies below it.
    pub fn relative(&self, dir: &Path) -> Option<String> {
        let dir = dir.canonicalize().ok()?;
        let rel = dir.strip_prefix(&self.workdir).ok()?;
        let rel = rel.to_string_lossy().replace('\\', "/");
        (!rel.is_empty()).then_some(rel)
    }

    pub fn git_dir(&self) -> &Path {
        self.repo.git_dir()
    }

    /// Where git-skill keeps findings between scans (`guard::cache`): in the common git
    /// directory, so that a repository's linked worktrees share them.
    pub fn scan_cache_dir(&self) -> PathBuf {
        crate::guard::cache::repo_dir(self.repo.common_dir())
    }

    /// Where Git LFS keeps the objects of this repository (shared by its linked worktrees):
    /// `lfs/objects` of the common git directory.
    pub fn lfs_objects(&self) -> PathBuf {
        self.repo.common_dir().join("lfs").join("objects")
    }

    /// Every `skill.*` entry of the repository's configuration (system, global, local, worktree,
    /// `GIT_CONFIG_COUNT`), followed by `git -c` values from `GIT_CONFIG_PARAMETERS`.
    pub fn skill_config(&self, parameters: Option<&str>) -> Result<Vec<ConfigEntry>, GitError> {
        // The repository's own snapshot knows linked worktrees, includes and the environment.
        let snapshot = self.repo.config_snapshot();
        let mut entries = skill_entries(snapshot.plumbing());
        entries.extend(parameter_entries(parameters)?);
        Ok(entries)
    }

    /// Where git runs hooks from: `core.hooksPath` (relative to the top of the work tree, `~/`
    /// for HOME), or `hooks/` in the common git directory, shared by linked worktrees.
    pub fn hooks_dir(&self, home: Option<&Path>) -> PathBuf {
        let configured = self
            .repo
            .config_snapshot()
            .string("core.hooksPath")
            .map(|v| v.to_string());
        match configured {
            Some(p) if !p.is_empty() => {
                let p = PathBuf::from(p);
                match (p.strip_prefix("~"), home) {
                    (Ok(rest), Some(home)) => home.join(rest),
                    _ => self.workdir.join(p),
                }
            }
            _ => self.repo.common_dir().join("hooks"),
        }
    }

    /// The tree a revision names (`main`, `HEAD~2`, a commit id, `origin/main`).
    pub fn tree_of(&self, spec: &str) -> Result<gix::ObjectId, GitError> {
        let bad = |message: String| GitError::Read {
            path: PathBuf::from(spec),
            message,
        };
        let id = self
            .repo
            .rev_parse_single(spec)
            .map_err(|e| bad(format!("not a revision: {e}")))?;
        let tree = id
            .object()
            .map_err(|e| bad(e.to_string()))?
            .peel_to_tree()
            .map_err(|e| bad(format!("does not name a tree: {e}")))?;
        Ok(tree.id)
    }

    /// A file's content in the tree a revision names; `None` when it has no such file.
    pub fn file_at(&self, spec: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let tree = self.tree_of(spec)?;
        let tree = self.repo.find_tree(tree).map_err(|e| GitError::Read {
            path: PathBuf::from(spec),
            message: e.to_string(),
        })?;
        match tree.lookup_entry_by_path(path) {
            Ok(Some(entry)) if entry.mode().is_blob() => {
                self.blob(entry.object_id(), path).map(Some)
            }
            Ok(_) => Ok(None),
            Err(e) => Err(GitError::Read {
                path: PathBuf::from(path),
                message: e.to_string(),
            }),
        }
    }

    /// The index git would commit (`GIT_INDEX_FILE` included), empty when there is none yet.
    /// Like git, and unlike `gix`'s default, its trailing checksum is not verified: hashing a
    /// 10,000-entry index was a third of a pre-commit hook's time, and git itself only
    /// verifies it in `git fsck`.
    pub fn staged_index(&self) -> Result<&gix::index::File, GitError> {
        if let Some(index) = self.index.get() {
            return Ok(index);
        }
        let path = self.repo.index_path();
        let options = gix::index::decode::Options {
            thread_limit: Some(1),
            ..Default::default()
        };
        let index = gix::index::File::at_or_default(&path, self.repo.object_hash(), true, options)
            .map_err(|e| GitError::Read {
                path,
                message: e.to_string(),
            })?;
        Ok(self.index.get_or_init(|| index))
    }

    /// A file's staged content (stage 0), by path relative to the top; `None` when not staged.
    pub fn staged_blob(&self, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let index = self.staged_index()?;
        match index.entry_by_path(path.as_bytes().into()) {
            Some(entry) => self.blob(entry.id, path).map(Some),
            None => Ok(None),
        }
    }

    /// Whether git would refuse this repository as owned by someone else ("dubious
    /// ownership"); its own configuration is then not read.
    pub fn is_untrusted(&self) -> bool {
        self.repo.git_dir_trust() != gix::sec::Trust::Full
    }
}

/// `skill.*` configuration when there is no repository: system and global files, then the
/// environment overrides, then `git -c`.
pub fn global_skill_config(parameters: Option<&str>) -> Result<Vec<ConfigEntry>, GitError> {
    let to_err = |source: gix::Error| GitError::Config {
        path: PathBuf::from("~/.gitconfig"),
        source,
    };
    let mut file = gix::config::File::from_globals().map_err(to_err)?;
    file.append(gix::config::File::from_environment_overrides().map_err(to_err)?)
        .map_err(to_err)?;
    let mut entries = skill_entries(&file);
    entries.extend(parameter_entries(parameters)?);
    Ok(entries)
}

fn skill_entries(file: &gix::config::File) -> Vec<ConfigEntry> {
    let mut out = Vec::new();
    let Some(sections) = file.sections_by_name("skill") else {
        return out;
    };
    // Configuration of a repository owned by someone else is not ours to obey (git refuses
    // such repositories too); later keys name commands and template directories.
    for section in sections.filter(|s| s.meta().trust == gix::sec::Trust::Full) {
        let sub = section.header().subsection_name().map(|s| s.to_string());
        let origin = match &section.meta().path {
            Some(path) => path.display().to_string(),
            None if section.meta().source == gix::config::Source::Env => {
                "GIT_CONFIG_COUNT".to_owned()
            }
            None => format!("{:?}", section.meta().source),
        };
        let mut seen: Vec<String> = Vec::new();
        for name in section.body().value_names() {
            if seen.iter().any(|s| s.eq_ignore_ascii_case(&name)) {
                continue;
            }
            for value in section.body().values(&name) {
                let key = match &sub {
                    Some(sub) => format!("{sub}.{name}"),
                    None => name.clone(),
                };
                out.push(ConfigEntry {
                    key,
                    value: value.to_string(),
                    origin: origin.clone(),
                });
            }
            seen.push(name);
        }
    }
    out
}

fn parameter_entries(parameters: Option<&str>) -> Result<Vec<ConfigEntry>, GitError> {
    let Some(parameters) = parameters else {
        return Ok(Vec::new());
    };
    Ok(parse_config_parameters(parameters)?
        .into_iter()
        .filter_map(|(key, value)| {
            let rest = strip_prefix_ignore_case(&key, "skill.")?;
            Some(ConfigEntry {
                key: rest.to_owned(),
                // `git -c skill.x` without `=` means true, as for any git boolean.
                value: value.unwrap_or_else(|| "true".to_owned()),
                origin: "git -c".to_owned(),
            })
        })
        .collect())
}

fn is_no_repository(err: &gix::Error) -> bool {
    use gix::discover::upwards::Error as E;
    matches!(
        err.downcast_any_ref::<E>(),
        Some(E::NoGitRepository { .. })
            | Some(E::NoGitRepositoryWithinCeiling { .. })
            | Some(E::NoGitRepositoryWithinFs { .. })
    )
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

fn dunce_canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}
