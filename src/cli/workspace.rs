//! What most commands start from: the current directory, the repository around it (if any),
//! the resolved configuration and the skill roots.

use std::path::{Component, Path, PathBuf};

use anyhow::Context as _;
use git_skill::config::{Config, Source};
use git_skill::git::{self, GitError, Repo};
use git_skill::skill::{discover, Discovery, Note, Root};

use super::{CommandError, Ui};

pub struct Workspace {
    pub cwd: PathBuf,
    pub repo: Option<Repo>,
    /// Set when the current directory is in a bare repository (no work tree to check).
    pub bare: Option<PathBuf>,
    pub config: Config,
    pub home: Option<PathBuf>,
}

impl Workspace {
    /// Opens the repository around the current directory (if any) and resolves configuration.
    /// Warnings about unknown keys go to stderr.
    pub fn load(ui: &mut Ui) -> Result<Workspace, CommandError> {
        let cwd = std::env::current_dir().context("could not read the current directory")?;
        let (repo, bare) = match Repo::discover(&cwd) {
            Ok(repo) => (repo, None),
            // Explicit paths still work in a bare repository, like outside any.
            Err(GitError::Bare { path }) => (None, Some(path)),
            Err(e) => return Err(e.into()),
        };
        let parameters = match std::env::var_os("GIT_CONFIG_PARAMETERS") {
            None => None,
            Some(v) => Some(v.into_string().map_err(|_| {
                CommandError::config("GIT_CONFIG_PARAMETERS is not valid UTF-8")
                    .hint("check the values given with `git -c`")
            })?),
        };
        let entries = match &repo {
            Some(repo) => {
                if repo.is_untrusted() {
                    ui.warn(&format!(
                        "'{}' is owned by someone else; its git config is not read (git config --global --add safe.directory <dir> to trust it)",
                        repo.workdir().display()
                    ))?;
                }
                repo.skill_config(parameters.as_deref())
            }
            None => git::global_skill_config(parameters.as_deref()),
        }?;
        let mut env = Vec::new();
        for (name, value) in std::env::vars_os() {
            let Some(name) = name.to_str().filter(|n| n.starts_with("GIT_SKILL_")) else {
                continue;
            };
            let value = value.into_string().map_err(|_| {
                CommandError::config(format!("{name} is not valid UTF-8"))
                    .hint(format!("unset {name} or give it a UTF-8 value"))
            })?;
            env.push((name.to_owned(), value));
        }
        let config = Config::resolve(&entries, env);
        for warning in config.warnings() {
            ui.warn(warning)?;
        }
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        Ok(Workspace {
            cwd,
            repo,
            bare,
            config,
            home,
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

    /// The skill roots of the work tree: [`Workspace::configured_roots`], and, unless `--root`
    /// named them, every agent root below the top that the index holds or that lies on disk
    /// in a folder git tracks (`packages/web/.claude/skills`, a case variant `.Claude/skills`).
    pub fn roots(&self) -> Vec<Root> {
        let mut roots = self.configured_roots();
        let Some(repo) = self.repo.as_ref().filter(|_| !self.roots_from_flag()) else {
            return roots;
        };
        // A work tree whose index cannot be read still has its configured roots; the checks
        // that read the index report the error themselves.
        for found in git_skill::staged::work_tree_roots(repo).unwrap_or_default() {
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
        git_skill::config::USER_ROOTS
            .iter()
            .map(|r| Root {
                path: home.join(r),
                label: format!("~/{r}"),
                explicit: false,
            })
            .collect()
    }

    /// The configured roots inside the work tree, relative to its top, with their labels:
    /// what the staged and range checks compare (they add the agent roots of the trees they
    /// read themselves).
    pub fn repo_relative_roots(&self) -> git_skill::staged::Roots {
        let Some(repo) = &self.repo else {
            return git_skill::staged::Roots::only(Vec::new());
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
            git_skill::staged::Roots::only(named)
        } else {
            git_skill::staged::Roots::with_agents(named)
        }
    }

    /// Whether `--root` named the roots (then they are the only ones, on purpose).
    fn roots_from_flag(&self) -> bool {
        self.config
            .get_all("roots")
            .iter()
            .any(|v| matches!(v.source, Source::Flag(_)))
    }

    /// The skills named by `paths`, or every skill of the roots when `paths` is empty.
    /// A path that cannot be read is reported and skipped (the run then exits 2). `command`
    /// (`lint`, `scan`...) is the subcommand the hints name.
    pub fn skills(
        &self,
        ui: &mut Ui,
        paths: &[PathBuf],
        command: &str,
    ) -> Result<Discovery, CommandError> {
        let roots = self.roots();
        let mut found = Discovery::default();
        if paths.is_empty() {
            if self.repo.is_none() && roots.is_empty() {
                let error = match &self.bare {
                    Some(path) => CommandError::new(format!(
                        "'{}' is a bare repository: there is no work tree to check",
                        path.display()
                    )),
                    None => CommandError::new("not inside a git repository, and no path given"),
                };
                return Err(error.hint(format!("run inside a work tree, or name what to check: git skill {command} path/to/skill (or --root DIR)")));
            }
            found = discover::discover(&roots, self.repo.as_ref().map(|r| r.workdir()));
        } else {
            for path in paths {
                match discover::at_path(path, &roots, self.repo.as_ref().map(|r| r.workdir())) {
                    Ok(d) if d.skills.is_empty() && d.notes.is_empty() => {
                        ui.error(&CommandError::new(format!("no SKILL.md found in '{}'", path.display()))
                            .hint("a skill is a directory holding SKILL.md; give that directory, its SKILL.md, or a folder of skills"))?;
                    }
                    Ok(d) => found.merge(d),
                    Err(e) => ui.error(&CommandError::from(e))?,
                }
            }
        }
        self.report_notes(ui, &found.notes)?;
        Ok(found)
    }

    /// The repository, for a command that needs one (`what`: the command as typed, such as
    /// `optimize` or `scan --from-ref`).
    pub fn require_repo(&self, what: &str) -> Result<&Repo, CommandError> {
        if let Some(repo) = &self.repo {
            return Ok(repo);
        }
        let error = match &self.bare {
            Some(path) => CommandError::new(format!(
                "`git skill {what}` needs a work tree, and '{}' is a bare repository",
                path.display()
            )),
            None => CommandError::new(format!("`git skill {what}` needs a git work tree")),
        };
        Err(error.hint("run it inside the repository that holds the skills"))
    }

    /// Shows what a walk or a git check passed over: errors (the run then exits 2) and
    /// warnings, each with its hint.
    pub fn report_notes(&self, ui: &mut Ui, notes: &[Note]) -> Result<(), CommandError> {
        for note in notes {
            let message = note.render(|p| self.display(p));
            if note.is_error() {
                let mut error = CommandError::new(message);
                if let Some(hint) = note.hint() {
                    error = error.hint(hint);
                }
                ui.error(&error)?;
            } else {
                let hint = note.hint().map(|h| format!(" ({h})")).unwrap_or_default();
                ui.warn(&format!("{message}{hint}"))?;
            }
        }
        Ok(())
    }

    /// Skills read from git, each with its directory as the user should see it.
    pub fn displayed(
        &self,
        repo: &Repo,
        skills: Vec<git_skill::check::Snapshot>,
    ) -> Vec<(git_skill::check::Snapshot, PathBuf)> {
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
    use super::relative;
    use std::path::{Path, PathBuf};

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
}
