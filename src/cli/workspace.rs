//! What most commands start from: the current directory, the repository around it (if any),
//! the resolved configuration and the skill roots.

use std::path::{Component, Path, PathBuf};

use anyhow::Context as _;
use git_skill::config::Config;
use git_skill::git::{self, Repo};
use git_skill::skill::{discover, Discovery, Root};

use super::{CommandError, Ui};

pub struct Workspace {
    pub cwd: PathBuf,
    pub repo: Option<Repo>,
    pub config: Config,
    pub home: Option<PathBuf>,
}

impl Workspace {
    /// Opens the repository around the current directory (if any) and resolves configuration.
    /// Warnings about unknown keys go to stderr.
    pub fn load(ui: &mut Ui) -> Result<Workspace, CommandError> {
        let cwd = std::env::current_dir().context("could not read the current directory")?;
        let repo = Repo::discover(&cwd)?;
        let parameters = std::env::var("GIT_CONFIG_PARAMETERS").ok();
        let entries = match &repo {
            Some(repo) => repo.skill_config(parameters.as_deref())?,
            None => git::global_skill_config(parameters.as_deref())?,
        };
        let config = Config::resolve(&entries, std::env::vars());
        for warning in config.warnings() {
            ui.warn(warning)?;
        }
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        Ok(Workspace {
            cwd,
            repo,
            config,
            home,
        })
    }

    /// Skill roots of the repository, or none outside one.
    pub fn repo_roots(&self) -> Vec<Root> {
        match &self.repo {
            Some(repo) => discover::repo_roots(
                repo.workdir(),
                self.config.roots().as_deref(),
                self.home.as_deref(),
            ),
            None => Vec::new(),
        }
    }

    /// The skills named by `paths`, or every skill of the repository when `paths` is empty.
    /// A path that cannot be read is reported and skipped (the run then exits 2).
    pub fn skills(&self, ui: &mut Ui, paths: &[PathBuf]) -> Result<Discovery, CommandError> {
        let roots = self.repo_roots();
        let mut found = Discovery::default();
        if paths.is_empty() {
            let Some(repo) = &self.repo else {
                return Err(CommandError::new("not inside a git repository, and no path given")
                    .hint("run inside a repository, or name the skills to check: git skill lint path/to/skill"));
            };
            found = discover::discover(&roots, Some(repo.workdir()));
        } else {
            for path in paths {
                match discover::at_path(path, &roots) {
                    Ok(d) if d.skills.is_empty() && d.notes.is_empty() => {
                        ui.error(&CommandError::new(format!("no SKILL.md found in '{}'", path.display()))
                            .hint("a skill is a directory holding SKILL.md; give that directory, its SKILL.md, or a folder of skills"))?;
                    }
                    Ok(d) => {
                        for skill in d.skills {
                            if !found.skills.iter().any(|s| s.dir == skill.dir) {
                                found.skills.push(skill);
                            }
                        }
                        found.notes.extend(d.notes);
                    }
                    Err(e) => ui.error(&CommandError::from(
                        anyhow::Error::new(e)
                            .context(format!("could not read '{}'", path.display())),
                    ))?,
                }
            }
        }
        for note in &found.notes {
            let message = note.render(|p| self.display(p));
            if note.is_error() {
                ui.error(&CommandError::new(message))?;
            } else {
                ui.warn(&message)?;
            }
        }
        Ok(found)
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
