//! The repository, the configuration, the environment and the paths a command is given.

use super::{listing, Advice, Advise, Kind};
use crate::config::ConfigError;
use crate::env::{EnvError, NameError};
use crate::git::hooks::HookError;
use crate::git::GitError;
use crate::guard::suppress::PolicyError;
use crate::skill::discover::PathError;
use crate::skill::files::ReadError;

/// A lock git-skill cannot prove is its own is named in the message of a failed commit.
pub(super) const FOREIGN_LOCK: &str = "a lock that git-skill cannot prove is its own is left alone; remove it as the message says once no git command is running";

impl Advise for GitError {
    fn advice(&self) -> Advice {
        use GitError as G;
        match self {
            G::Parameters(_) => Advice::new(
                Kind::Config,
                "check the values given with `git -c key=value`",
            ),
            G::Bare { .. } => Advice::user(
                "run it in a work tree (a clone or `git worktree add`), or name a path",
            ),
            // These say what to do in their message already.
            G::UnbornHead { .. }
            | G::Identity { .. }
            | G::InProgress { .. }
            | G::InvalidPath { .. }
            | G::NothingToCommit { .. }
            | G::Revert { .. }
            | G::RevertConflict { .. } => Advice::bare(Kind::User),
            G::Commit { message, .. } if message.contains("if not, remove") => {
                Advice::user(FOREIGN_LOCK)
            }
            G::Discover { .. } | G::Config { .. } => {
                Advice::user("check the repository: git status")
            }
            _ => Advice::bare(Kind::Internal),
        }
    }
}

impl Advise for ConfigError {
    fn advice(&self) -> Advice {
        Advice::new(
            Kind::Config,
            "see git skill config for every value and where it comes from",
        )
    }
}

impl Advise for PolicyError {
    fn advice(&self) -> Advice {
        match self {
            PolicyError::Refused { .. } => Advice::new(
                Kind::Config,
                "it must be a regular file of at most 1 MiB, committed at the top of the repository; replace it with one",
            ),
            PolicyError::Invalid { .. } => Advice::new(
                Kind::Config,
                "fix it: every entry needs a known rule (git skill rules) and a reason; see git skill scan --help",
            ),
            PolicyError::Read { .. } => Advice::user("check that it exists and can be read"),
        }
    }
}

impl Advise for HookError {
    fn advice(&self) -> Advice {
        Advice::user(match self {
            HookError::SavedExists { .. } => {
                "remove or rename the saved hook first, or run git skill hook uninstall"
            }
            HookError::Foreign { .. } => "remove it by hand if it should go",
            HookError::Io { .. } => "check the hooks directory's permissions",
        })
    }
}

impl Advise for EnvError {
    fn advice(&self) -> Advice {
        match self {
            EnvError::Git(e) => e.advice(),
            EnvError::NotUtf8 { name } => Advice::new(
                Kind::Config,
                match name.as_str() {
                    "GIT_CONFIG_PARAMETERS" => "check the values given with `git -c`".to_owned(),
                    _ => format!("unset {name} or give it a UTF-8 value"),
                },
            ),
            EnvError::NoWorkTree { .. } => {
                Advice::user("run it inside the repository that holds the skills")
            }
            EnvError::NothingToCheck { command, .. } => Advice::user(format!(
                "run inside a work tree, or name what to check: git skill {command} path/to/skill (or --root DIR)"
            )),
        }
    }
}

impl Advise for NameError {
    fn advice(&self) -> Advice {
        const BY_PATH: &str =
            "a skill is a directory holding SKILL.md; give that directory or its SKILL.md";
        const A_PATH_WORKS: &str = "a path works too: .claude/skills/<name>";
        match self {
            NameError::NotFound { known, .. } if known.is_empty() => Advice::user(
                "no skills found in the repository or the user-level roots",
            )
            .and(A_PATH_WORKS),
            NameError::NotFound { arg, known } => {
                match super::nearest::nearest(arg, known).as_slice() {
                    [] => Advice::user(format!("known skills: {}", listing(known))),
                    close => Advice::user(format!(
                        "did you mean {}? (known skills: {})",
                        close
                            .iter()
                            .map(|c| format!("'{c}'"))
                            .collect::<Vec<_>>()
                            .join(" or "),
                        listing(known)
                    )),
                }
                .and(A_PATH_WORKS)
            }
            NameError::Ambiguous { paths, .. } => {
                let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                Advice::user(format!("name one by its path: {}", listing(&paths)))
            }
            NameError::NoDirectory { .. } | NameError::NoSkillMd { .. } => Advice::user(BY_PATH),
            NameError::LinkOut { .. } => Advice::user("git-skill does not follow links out of where skills live; give the real path, or add its folder to skill.roots"),
            NameError::Path(e) => e.advice(),
            NameError::Read { .. } => Advice::bare(Kind::Internal),
        }
    }
}

impl Advise for PathError {
    fn advice(&self) -> Advice {
        Advice::user(match self {
            PathError::NoSkill { .. } => "a skill is a directory holding SKILL.md; give that directory, its SKILL.md, or a folder of skills",
            PathError::NotSkillMd { .. } => {
                "give a skill directory, its SKILL.md, or a folder of skills"
            }
            PathError::Io { .. } => "check the path; it must exist and be readable",
        })
    }
}

impl Advise for ReadError {
    fn advice(&self) -> Advice {
        Advice::user("fix the permissions, or move it out of the skill")
    }
}
