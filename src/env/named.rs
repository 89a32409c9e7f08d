//! A skill named on the command line: by path (`.claude/skills/pdf`, `./pdf/SKILL.md`) or by
//! name (`pdf`), looked up in the repository's roots first, then in the user-level ones.

use std::path::{Path, PathBuf};

use super::Env;
use crate::skill::discover::{self, Discovery, PathError, Skill};

/// What a lookup may return besides a live skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allow {
    Live,
    /// Also a directory whose SKILL.md is gone but whose signals remain.
    Deleted,
}

#[derive(Debug, thiserror::Error)]
pub enum NameError {
    #[error("skill '{arg}' not found")]
    NotFound {
        arg: String,
        /// The names of every skill found, sorted, for the hint.
        known: Vec<String>,
    },
    #[error("skill name '{arg}' is ambiguous: {} skills have it", .paths.len())]
    Ambiguous {
        arg: String,
        /// Where each candidate is, as the user should see it.
        paths: Vec<PathBuf>,
    },
    #[error("no skill at '{arg}': no such directory")]
    NoDirectory { arg: String },
    #[error("no SKILL.md in '{arg}'")]
    NoSkillMd { arg: String },
    /// The path reaches its skill through a link to a place skills do not live.
    #[error("'{arg}' leads through a symbolic link to '{}', outside the repository and the skill roots", .target.display())]
    LinkOut { arg: String, target: PathBuf },
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("could not read '{arg}'")]
    Read {
        arg: String,
        #[source]
        source: std::io::Error,
    },
}

impl Env {
    /// The one skill `arg` names, and whether its SKILL.md is gone. A name is looked up
    /// everywhere a skill may live (the repository's roots, the user-level roots, a directory
    /// of that name here); none, or more than one, is an error naming the candidates.
    pub fn resolve_skill(&self, arg: &str, allow: Allow) -> Result<(Skill, bool), NameError> {
        if looks_like_path(arg) {
            return self.by_path(arg, allow);
        }
        // Notes about other skills (an unreadable directory, a link out of a root) are for
        // `lint` and `list`: they must not fail a command aimed at one skill.
        let mut everything =
            discover::discover(&self.roots(), self.repo.as_ref().map(|r| r.workdir()));
        everything.merge(discover::discover(&self.user_roots(), None));
        let mut candidates: Vec<(Skill, bool)> = named(&everything, arg, allow);
        if Path::new(arg).join("SKILL.md").is_file() {
            let (local, deleted) = self.by_path(arg, allow)?;
            let same = |s: &Skill| s.dir.canonicalize().ok() == local.dir.canonicalize().ok();
            if !candidates.iter().any(|(s, _)| same(s)) {
                candidates.push((local, deleted));
            }
        }
        match candidates.len() {
            1 => Ok(candidates.remove(0)),
            0 => {
                let mut known: Vec<String> =
                    everything.skills.into_iter().map(|s| s.dir_name).collect();
                known.sort_unstable();
                known.dedup();
                Err(NameError::NotFound {
                    arg: arg.to_owned(),
                    known,
                })
            }
            _ => Err(NameError::Ambiguous {
                arg: arg.to_owned(),
                paths: candidates
                    .iter()
                    .map(|(s, _)| self.display(&s.dir))
                    .collect(),
            }),
        }
    }

    fn by_path(&self, arg: &str, allow: Allow) -> Result<(Skill, bool), NameError> {
        let path = self.cwd.join(arg);
        let dir = if path.file_name().is_some_and(|n| n == "SKILL.md") {
            path.parent().unwrap_or(&path).to_owned()
        } else {
            path
        };
        if !dir.is_dir() {
            return Err(NameError::NoDirectory {
                arg: arg.to_owned(),
            });
        }
        let has_skill_md = std::fs::symlink_metadata(dir.join("SKILL.md")).is_ok();
        let deleted = !has_skill_md && dir.join(discover::PENDING_SIGNALS).is_file();
        let usable = has_skill_md || (deleted && allow == Allow::Deleted);
        if !usable {
            return Err(NameError::NoSkillMd {
                arg: arg.to_owned(),
            });
        }
        self.refuse_escaping_link(arg, &dir)?;
        let found = if has_skill_md {
            discover::at_path(&dir, &self.roots(), self.repo.as_ref().map(|r| r.workdir()))?
        } else {
            Discovery::default()
        };
        let skill = match found.skills.into_iter().next() {
            Some(skill) => skill,
            None => {
                let dir = dir.canonicalize().map_err(|source| NameError::Read {
                    arg: arg.to_owned(),
                    source,
                })?;
                Skill {
                    dir_name: dir
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    root: discover::Root {
                        path: dir.parent().unwrap_or(&dir).to_owned(),
                        label: arg.to_owned(),
                        explicit: true,
                    },
                    dir,
                    category: None,
                }
            }
        };
        Ok((skill, deleted))
    }

    /// A path that reaches its skill through a symbolic link must stay where skills are
    /// looked for: the work tree, a skill root or a user-level root. Writing through a link
    /// elsewhere would put files outside what the command owns.
    fn refuse_escaping_link(&self, arg: &str, dir: &Path) -> Result<(), NameError> {
        let Ok(canonical) = dir.canonicalize() else {
            return Ok(());
        };
        // Only the components the user typed count: a current directory reached through a
        // link (macOS's /tmp) is not the argument's doing.
        let mut at = if Path::new(arg).is_absolute() {
            PathBuf::new()
        } else {
            self.cwd.clone()
        };
        let mut through_link = false;
        for part in Path::new(arg).components() {
            at.push(part);
            through_link |= crate::fsutil::is_link(&at);
        }
        if !through_link {
            return Ok(());
        }
        let mut allowed: Vec<PathBuf> = self
            .roots()
            .iter()
            .chain(self.user_roots().iter())
            .filter_map(|r| r.path.canonicalize().ok())
            .collect();
        if let Some(repo) = &self.repo {
            allowed.extend(repo.workdir().canonicalize().ok());
        }
        if allowed.iter().any(|a| canonical.starts_with(a)) {
            return Ok(());
        }
        Err(NameError::LinkOut {
            arg: arg.to_owned(),
            target: canonical,
        })
    }
}

fn named(found: &Discovery, name: &str, allow: Allow) -> Vec<(Skill, bool)> {
    let live = found
        .skills
        .iter()
        .filter(|s| s.dir_name == name)
        .map(|s| (s.clone(), false));
    let deleted = found
        .deleted
        .iter()
        .filter(|s| allow == Allow::Deleted && s.dir_name == name)
        .map(|s| (s.clone(), true));
    live.chain(deleted).collect()
}

fn looks_like_path(arg: &str) -> bool {
    arg.contains('/')
        || arg.contains(std::path::MAIN_SEPARATOR)
        || arg == "."
        || arg == ".."
        || arg == "SKILL.md"
}
