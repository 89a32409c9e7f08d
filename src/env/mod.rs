//! What most commands start from: the current directory, the repository around it (if any),
//! the resolved configuration, HOME and the skill roots. Built from values the binary reads
//! from the process ([`Env::load`] takes them), so that a library operation never reads the
//! process itself; what loading noticed comes back as data ([`Loaded::warnings`]).

mod named;

pub use named::{Allow, NameError};

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::config::{Config, Source};
use crate::git::{self, GitError, Repo};
use crate::guard::suppress::POLICY_FILE;
use crate::skill::discover::{self, PathError};
use crate::skill::{Discovery, Root};

#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    #[error(transparent)]
    Git(#[from] GitError),
    /// A variable git-skill reads holds no UTF-8.
    #[error("{name} is not valid UTF-8")]
    NotUtf8 { name: String },
    /// A command that needs a work tree ran outside one (`what`: the command as typed).
    #[error("{}", needs_work_tree(what, bare.as_deref()))]
    NoWorkTree { what: String, bare: Option<PathBuf> },
    /// A command that checks every skill ran with no repository and no root to look in.
    #[error("{}", nothing_to_check(bare.as_deref()))]
    NothingToCheck {
        command: String,
        bare: Option<PathBuf>,
    },
}

fn needs_work_tree(what: &str, bare: Option<&Path>) -> String {
    match bare {
        Some(path) => format!(
            "`git skill {what}` needs a work tree, and '{}' is a bare repository",
            path.display()
        ),
        None => format!("`git skill {what}` needs a git work tree"),
    }
}

fn nothing_to_check(bare: Option<&Path>) -> String {
    match bare {
        Some(path) => format!(
            "'{}' is a bare repository: there is no work tree to check",
            path.display()
        ),
        None => "not inside a git repository, and no path given".to_owned(),
    }
}

pub struct Env {
    pub cwd: PathBuf,
    pub repo: Option<Repo>,
    /// Set when the current directory is in a bare repository (no work tree to check).
    pub bare: Option<PathBuf>,
    pub config: Config,
    pub home: Option<PathBuf>,
    /// `XDG_CACHE_HOME`, when set: where the scan cache of skills outside a repository goes.
    pub cache_home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME`, when set: where the scan cache's key is kept (outside any
    /// repository, so that what can write a repository cannot sign a cache entry).
    pub config_home: Option<PathBuf>,
}

/// An [`Env`] and what loading it noticed (a repository owned by someone else, unknown
/// configuration keys), for the caller to show.
pub struct Loaded {
    pub env: Env,
    pub warnings: Vec<String>,
}

/// Skills named on the command line, and the paths that named none.
#[derive(Default)]
pub struct Named {
    pub found: Discovery,
    pub errors: Vec<PathError>,
}

impl Env {
    /// Opens the repository around `cwd` (if any) and resolves configuration from git's and
    /// the variables in `vars` (the process's environment, for the binary).
    pub fn load(
        cwd: PathBuf,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Result<Loaded, EnvError> {
        let (repo, bare) = match Repo::discover(&cwd) {
            Ok(repo) => (repo, None),
            // Explicit paths still work in a bare repository, like outside any.
            Err(GitError::Bare { path }) => (None, Some(path)),
            Err(e) => return Err(e.into()),
        };
        let mut parameters = None;
        let mut home = None;
        let mut cache_home = None;
        let mut config_home = None;
        let mut skill_vars = Vec::new();
        for (name, value) in vars {
            let Some(name) = name.to_str() else { continue };
            let text = || {
                value.clone().into_string().map_err(|_| EnvError::NotUtf8 {
                    name: name.to_owned(),
                })
            };
            match name {
                "GIT_CONFIG_PARAMETERS" => parameters = Some(text()?),
                "HOME" if !value.is_empty() => home = Some(PathBuf::from(&value)),
                "XDG_CACHE_HOME" if !value.is_empty() => cache_home = Some(PathBuf::from(&value)),
                "XDG_CONFIG_HOME" if !value.is_empty() => config_home = Some(PathBuf::from(&value)),
                _ if name.starts_with("GIT_SKILL_") => skill_vars.push((name.to_owned(), text()?)),
                _ => {}
            }
        }
        let mut warnings = Vec::new();
        let entries = match &repo {
            Some(repo) => {
                if repo.is_untrusted() {
                    warnings.push(format!(
                        "'{}' is owned by someone else; its git config is not read (git config --global --add safe.directory <dir> to trust it)",
                        repo.workdir().display()
                    ));
                }
                repo.skill_config(parameters.as_deref())
            }
            None => git::global_skill_config(parameters.as_deref()),
        }?;
        let mut config = Config::resolve(&entries, skill_vars);
        warnings.extend(config.warnings().iter().map(|w| w.to_string()));
        // The team's settings in the work tree's policy file, under every other layer (the
        // hook and range scans put the staged or base revision's in their place). A file that
        // cannot be read is reported by what reads the policy (scan, the hook, lint, config).
        if let Some(repo) = &repo {
            let path = repo.workdir().join(POLICY_FILE);
            if let Ok(Some(policy)) = crate::guard::suppress::Policy::load(&path) {
                config.set_repo(policy.settings(), POLICY_FILE);
            }
        }
        Ok(Loaded {
            env: Env {
                cwd,
                repo,
                bare,
                config,
                home,
                cache_home,
                config_home,
            },
            warnings,
        })
    }

    /// The skill roots named or implied by configuration: `--root` flags (relative to the
    /// current directory) alone; otherwise the agents' roots at the top of the work tree,
    /// with `GIT_SKILL_ROOTS` and `skill.roots` (relative to the top) in place of the
    /// conventional `skills/` and `agents/skills/`; none outside a repository unless named.
    /// What agents load cannot be configured away: `skill.roots` adds to it.
    pub fn configured_roots(&self) -> Vec<Root> {
        match (self.config.roots(), &self.repo) {
            (Some(roots), _) if self.roots_from_flag() => {
                discover::explicit_roots(&self.cwd, &roots, self.home.as_deref())
            }
            (Some(roots), Some(repo)) => {
                let mut all =
                    discover::explicit_roots(repo.workdir(), &roots, self.home.as_deref());
                for root in discover::agent_roots(repo.workdir()) {
                    if !all.iter().any(|r| r.path == root.path) {
                        all.push(root);
                    }
                }
                all
            }
            (Some(roots), None) => {
                discover::explicit_roots(&self.cwd, &roots, self.home.as_deref())
            }
            (None, Some(repo)) => discover::default_roots(repo.workdir()),
            (None, None) => Vec::new(),
        }
    }

    /// The skill roots of the work tree: [`Env::configured_roots`], and, unless `--root`
    /// named them, every agent root below the top that the index holds or that lies on disk
    /// in a folder git tracks (`packages/web/.claude/skills`, a case variant `.Claude/skills`).
    pub fn roots(&self) -> Vec<Root> {
        let mut roots = self.configured_roots();
        let Some(repo) = self.repo.as_ref().filter(|_| !self.roots_from_flag()) else {
            return roots;
        };
        // A work tree whose index cannot be read still has its configured roots; the checks
        // that read the index report the error themselves.
        for found in crate::staged::work_tree_roots(repo).unwrap_or_default() {
            let path = repo.workdir().join(&found.path);
            if !roots.iter().any(|r| r.path == path) {
                roots.push(Root {
                    path,
                    label: found.path,
                    explicit: false,
                });
            }
        }
        roots
    }

    /// The user-level roots below HOME (`~/.claude/skills`, ...); none without HOME.
    pub fn user_roots(&self) -> Vec<Root> {
        let Some(home) = &self.home else {
            return Vec::new();
        };
        crate::config::user_roots()
            .into_iter()
            .map(|r| Root {
                path: home.join(&r),
                label: format!("~/{r}"),
                explicit: false,
            })
            .collect()
    }

    /// The configured roots inside the work tree, relative to its top, with their labels:
    /// what the staged and range checks compare (they add the agent roots of the trees they
    /// read themselves).
    pub fn repo_relative_roots(&self) -> crate::staged::Roots {
        let Some(repo) = &self.repo else {
            return crate::staged::Roots::only(Vec::new());
        };
        let named = self
            .configured_roots()
            .into_iter()
            .filter_map(|r| {
                let rel = r.path.strip_prefix(repo.workdir()).ok()?;
                let rel = rel.to_string_lossy().replace('\\', "/");
                // The top itself (`skill.roots = .`) is the root "": everything in the tree.
                Some((rel.trim_end_matches('/').to_owned(), r.label.clone()))
            })
            .collect();
        if self.roots_from_flag() {
            crate::staged::Roots::only(named)
        } else {
            crate::staged::Roots::with_agents(named)
        }
    }

    /// Whether `--root` named the roots (then they are the only ones, on purpose).
    fn roots_from_flag(&self) -> bool {
        self.config
            .get_all("roots")
            .iter()
            .any(|v| matches!(v.source, Source::Flag(_)))
    }

    /// Every skill of the roots. `command` (`lint`, `scan`...) is the subcommand an error
    /// about having nothing to check names.
    pub fn all_skills(&self, command: &str) -> Result<Discovery, EnvError> {
        let roots = self.roots();
        if self.repo.is_none() && roots.is_empty() {
            return Err(EnvError::NothingToCheck {
                command: command.to_owned(),
                bare: self.bare.clone(),
            });
        }
        Ok(discover::discover(
            &roots,
            self.repo.as_ref().map(|r| r.workdir()),
        ))
    }

    /// The skills named by `paths`; a path that names none, or cannot be read, is an error
    /// of its own and the others are still found.
    pub fn named_skills(&self, paths: &[PathBuf]) -> Named {
        let roots = self.roots();
        let mut out = Named::default();
        for path in paths {
            match discover::at_path(path, &roots, self.repo.as_ref().map(|r| r.workdir())) {
                Ok(d) if d.skills.is_empty() && d.notes.is_empty() => {
                    out.errors.push(PathError::NoSkill { path: path.clone() })
                }
                Ok(d) => out.found.merge(d),
                Err(e) => out.errors.push(e),
            }
        }
        out
    }

    /// The skills named by `paths` ([`Env::named_skills`]), or every skill of the roots when
    /// `paths` is empty ([`Env::all_skills`]).
    pub fn skills(&self, paths: &[PathBuf], command: &str) -> Result<Named, EnvError> {
        if paths.is_empty() {
            return Ok(Named {
                found: self.all_skills(command)?,
                errors: Vec::new(),
            });
        }
        Ok(self.named_skills(paths))
    }

    /// The repository, for a command that needs one (`what`: the command as typed, such as
    /// `optimize` or `scan --from-ref`).
    pub fn require_repo(&self, what: &str) -> Result<&Repo, EnvError> {
        self.repo.as_ref().ok_or_else(|| EnvError::NoWorkTree {
            what: what.to_owned(),
            bare: self.bare.clone(),
        })
    }

    /// Skills read from git, each with its directory as the user should see it.
    pub fn displayed(
        &self,
        repo: &Repo,
        skills: Vec<crate::check::Snapshot>,
    ) -> Vec<(crate::check::Snapshot, PathBuf)> {
        skills
            .into_iter()
            .map(|skill| {
                let display = self.display(&repo.workdir().join(&skill.dir));
                (skill, display)
            })
            .collect()
    }

    /// `path` as the user should see it: relative to the current directory when possible.
    pub fn display(&self, path: &Path) -> PathBuf {
        relative(path, &self.cwd)
    }
}

/// `path` relative to `base` (both absolute), with `..` where needed; `path` itself when they
/// share nothing but the root.
pub fn relative(path: &Path, base: &Path) -> PathBuf {
    if let Ok(rest) = path.strip_prefix(base) {
        return if rest.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            rest.to_owned()
        };
    }
    let p: Vec<Component> = path.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common <= 1 {
        return path.to_owned();
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/r/a/b"), Path::new("/r")),
            PathBuf::from("a/b")
        );
        assert_eq!(
            relative(Path::new("/r/a/b"), Path::new("/r/c")),
            PathBuf::from("../a/b")
        );
        assert_eq!(
            relative(Path::new("/x/a"), Path::new("/y")),
            PathBuf::from("/x/a")
        );
        assert_eq!(
            relative(Path::new("/r"), Path::new("/r")),
            PathBuf::from(".")
        );
    }

    #[test]
    fn variables_that_are_no_utf8_are_refused_by_name_and_others_ignored() {
        use std::os::unix::ffi::OsStringExt;
        let dir = tempfile::tempdir().unwrap();
        let bad = OsString::from_vec(vec![0xff, 0xfe]);
        let load =
            |name: &str| Env::load(dir.path().to_owned(), [(OsString::from(name), bad.clone())]);
        for name in ["GIT_SKILL_ROOTS", "GIT_CONFIG_PARAMETERS"] {
            match load(name) {
                Err(EnvError::NotUtf8 { name: n }) => assert_eq!(n, name),
                Err(e) => panic!("{name}: {e}"),
                Ok(_) => panic!("{name}: loaded"),
            }
        }
        let loaded = load("SOMETHING_ELSE").map_err(|e| e.to_string()).unwrap();
        assert!(
            loaded.env.home.is_none(),
            "HOME comes from the variables given, not the process"
        );
    }
}
