//! `git skill init`: the plan that sets a repository up for skills that learn from agent
//! sessions (each agent's hook entries and recorder skill, `.skillopt/.gitignore` where it is
//! missing), and carrying it out (the files, the commit hooks, `skill.autoSkill.enabled`).

use std::path::{Path, PathBuf};

use crate::agent::settings::{self, FileEdit, Places, Scope, SettingsError};
use crate::agent::Agent;
use crate::env::{Env, EnvError};
use crate::git::hooks::{self, HookError, Installed};
use crate::git::GitError;
use crate::skill::layout;

/// The recorder skill `init` installs in each agent's skill root.
pub const RECORDER_SKILL: &str = include_str!("../../templates/skills/skill-recorder/SKILL.md");

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error("no agent's settings directory was found")]
    NoAgent,
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Hook(#[from] HookError),
    #[error("cannot write '{}'", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub struct Options {
    /// The agents to set up; none: those whose settings directory exists in `scope`.
    pub agents: Vec<Agent>,
    pub scope: Scope,
    pub uninstall: bool,
    /// `CODEX_HOME` and `COPILOT_HOME`, when set.
    pub codex_home: Option<PathBuf>,
    pub copilot_home: Option<PathBuf>,
    /// The git-skill binary the hooks run (this one, by its absolute path).
    pub bin: PathBuf,
}

/// What `init` would do.
pub struct Plan {
    pub agents: Vec<Agent>,
    pub scope: Scope,
    pub uninstall: bool,
    /// Every file considered; [`FileEdit::changes`] says which change.
    pub edits: Vec<FileEdit>,
    /// Whether `skill.autoSkill.enabled` is on already.
    pub enabled: bool,
    /// Whether `init` turned it on (then `--uninstall` turns it off).
    pub enabled_by_init: bool,
    /// Whether the commit hooks are installed and current already.
    pub hooks_current: bool,
}

impl Plan {
    pub fn changed(&self) -> impl Iterator<Item = &FileEdit> {
        self.edits.iter().filter(|e| e.changes())
    }
}

/// Where an agent looks first for a repository's skills (the registry's first skill folder:
/// `.claude/skills`, `.agents/skills` for Codex).
pub fn skill_root(agent: Agent) -> String {
    let dir = agent
        .spec()
        .skill_dirs
        .first()
        .copied()
        .unwrap_or(".agents");
    format!("{dir}/{}", crate::registry::SKILLS)
}

/// The directory whose presence says an agent is in use: where its user settings live
/// (`.claude`, `.copilot`), below the repository's top or HOME.
fn marker_dir(agent: Agent) -> &'static str {
    agent.hooks().user_dir
}

/// The mark `init` leaves when it turned `skill.autoSkill.enabled` on.
fn enabled_mark(env: &Env) -> Option<PathBuf> {
    env.repo
        .as_ref()
        .map(|r| r.git_dir().join("skill").join("init-enabled"))
}

pub fn plan(env: &Env, options: &Options) -> Result<Plan, InitError> {
    let repo = env.require_repo("init")?;
    let scope = options.scope;
    let places = Places {
        top: repo.workdir().to_owned(),
        bin: options.bin.clone(),
        home: env.home.clone(),
        codex_home: options.codex_home.clone(),
        copilot_home: options.copilot_home.clone(),
    };
    let mut agents = options.agents.clone();
    agents.sort();
    agents.dedup();
    let base = match scope {
        Scope::Project => Some(repo.workdir().to_owned()),
        Scope::User => env.home.clone(),
    };
    if agents.is_empty() {
        agents = Agent::ALL
            .into_iter()
            .filter(|a| {
                base.as_ref().is_some_and(|b| {
                    b.join(marker_dir(*a)).is_dir()
                        || (scope == Scope::Project && b.join(skill_root(*a)).is_dir())
                })
            })
            .collect();
        if agents.is_empty() {
            return Err(InitError::NoAgent);
        }
    }
    let mut edits: Vec<FileEdit> = Vec::new();
    for agent in &agents {
        edits.extend(settings::plan(*agent, scope, &places, options.uninstall)?);
    }
    // The recorder skill, in each agent's skill root.
    for agent in &agents {
        let Some(base) = &base else { continue };
        let path = base
            .join(skill_root(*agent))
            .join("skill-recorder/SKILL.md");
        let before = crate::fsutil::read_to_string(&path).ok();
        let after = match (&before, options.uninstall) {
            (None, false) => Some(RECORDER_SKILL.to_owned()),
            // Taken out only when it is still ours, unchanged.
            (Some(b), true) if b == RECORDER_SKILL => None,
            _ => before.clone(),
        };
        if !edits.iter().any(|e| e.path == path) {
            edits.push(FileEdit {
                path,
                before,
                after,
            });
        }
    }
    // `.skillopt/.gitignore` where a skill has records but not the file.
    if !options.uninstall {
        for root in env.roots() {
            for skill in skillopt_dirs(&root.path) {
                let path = skill.join(layout::GITIGNORE);
                if !path.exists() {
                    edits.push(FileEdit {
                        path,
                        before: None,
                        after: Some(String::from_utf8_lossy(layout::GITIGNORE_TEXT).into_owned()),
                    });
                }
            }
        }
    }
    let edits = settings::resolve_links(edits, scope, repo.workdir())?;
    Ok(Plan {
        agents,
        scope,
        uninstall: options.uninstall,
        edits,
        enabled: env.config.auto_skill_enabled().unwrap_or(false),
        enabled_by_init: enabled_mark(env).is_some_and(|m| m.exists()),
        hooks_current: hooks::current(&repo.hooks_dir(env.home.as_deref())),
    })
}

/// What carrying out a plan did to `skill.autoSkill.enabled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoSkill {
    Set,
    Unset,
    /// `--uninstall` left it on: it was set before `init`.
    StaysOn,
    Unchanged,
}

/// What `init` did.
pub struct Applied {
    /// The commit hooks newly installed or updated.
    pub hooks: Vec<&'static str>,
    pub auto_skill: AutoSkill,
}

/// Writes the plan's files, then (installing) the commit hooks and `skill.autoSkill.enabled`,
/// or (uninstalling) unsets what `init` set.
pub fn apply(env: &Env, plan: &Plan) -> Result<Applied, InitError> {
    let repo = env.require_repo("init")?;
    settings::write(&plan.edits)?;
    let mark = enabled_mark(env).expect("a repository");
    if plan.uninstall {
        let auto_skill = if plan.enabled_by_init {
            repo.set_local_config("skill.autoSkill.enabled", None)?;
            let _ = std::fs::remove_file(&mark);
            AutoSkill::Unset
        } else if plan.enabled {
            AutoSkill::StaysOn
        } else {
            AutoSkill::Unchanged
        };
        return Ok(Applied {
            hooks: Vec::new(),
            auto_skill,
        });
    }
    let mut installed = Vec::new();
    for (hook, outcome) in hooks::install(&repo.hooks_dir(env.home.as_deref()), false)? {
        if outcome != Installed::AlreadyInstalled {
            installed.push(hook.name());
        }
    }
    let mut auto_skill = AutoSkill::Unchanged;
    if !plan.enabled {
        repo.set_local_config("skill.autoSkill.enabled", Some("true"))?;
        let write = |source| InitError::Write {
            path: mark.clone(),
            source,
        };
        if let Some(dir) = mark.parent() {
            crate::fsutil::private_dir(dir).map_err(write)?;
        }
        std::fs::write(&mark, b"").map_err(write)?;
        auto_skill = AutoSkill::Set;
    }
    Ok(Applied {
        hooks: installed,
        auto_skill,
    })
}

/// Skills under `root` holding a `.skillopt/` directory.
fn skillopt_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_owned(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if !t.is_dir() {
                continue;
            }
            let path = e.path();
            if e.file_name() == layout::DIR {
                out.push(dir.clone());
            } else if depth < 3 && e.file_name() != "node_modules" {
                stack.push((path, depth + 1));
            }
        }
    }
    out.sort();
    out
}
