use std::io::Write as _;
use std::path::{Path, PathBuf};

use git_skill::agent::settings::{self, FileEdit, Places, Scope};
use git_skill::agent::Agent;
use git_skill::git::hooks;
use git_skill::skill::layout;

use super::{CommandError, Outcome, Ui, Workspace};

/// Set a repository up for skills that learn from agent sessions.
///
/// For each agent (Claude Code, Qwen Code, Codex, Gemini CLI, Copilot CLI): writes the hook
/// entries that run `git-skill hook agent` on completed tool calls and at the session's end
/// into the agent's settings, merged into what is there (other keys and hooks kept, a backup
/// `<file>.git-skill.bak` beside the file the first time, idempotent); installs the recorder
/// skill in the agent's skill root. Then: installs the pre-commit and pre-merge-commit hooks,
/// writes `.skillopt/.gitignore` where a skill lacks it, and sets skill.autoSkill.enabled=true in the repository's git config.
/// `--dry-run` prints every change as a diff and writes nothing; `--uninstall` takes out what
/// init added (the commit hooks stay: `git skill hook uninstall`). git-skill must be on the
/// PATH the agents run hooks with; Codex, Gemini CLI and Copilot CLI run a repository's hooks only
/// once you trusted it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill init --agent claude
  git skill init --agent all --dry-run
  git skill init --agent codex --scope user
  git skill init --agent claude --uninstall")]
pub struct InitArgs {
    /// The agents to set up (repeatable, or `all`) [default: those whose settings directory
    /// exists in the chosen scope].
    #[arg(long, value_parser = parse_agents, value_name = "AGENT")]
    pub agent: Vec<Vec<Agent>>,

    /// Where the agent settings go: the repository's (shared through git) or your own.
    #[arg(long, value_enum, default_value_t = ScopeArg::Project)]
    pub scope: ScopeArg,

    /// Print the changes as a diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Take out what init added.
    #[arg(long)]
    pub uninstall: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeArg {
    Project,
    User,
}

fn parse_agents(s: &str) -> Result<Vec<Agent>, String> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(Agent::ALL.to_vec());
    }
    Agent::parse(s)
        .map(|a| vec![a])
        .ok_or_else(|| "expected claude, qwen, codex, gemini, copilot or all".to_owned())
}

/// Where each agent looks for a repository's skills.
fn skill_root(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => ".claude/skills",
        Agent::Qwen => ".qwen/skills",
        Agent::Codex => ".agents/skills",
        Agent::Gemini => ".gemini/skills",
        Agent::Copilot => ".github/skills",
    }
}

/// The directory whose presence says an agent is in use.
fn marker_dir(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => ".claude",
        Agent::Qwen => ".qwen",
        Agent::Codex => ".codex",
        Agent::Gemini => ".gemini",
        Agent::Copilot => ".copilot",
    }
}

pub fn cmd_init(ui: &mut Ui, args: InitArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let repo = ws.require_repo("init")?;
    let scope = match args.scope {
        ScopeArg::Project => Scope::Project,
        ScopeArg::User => Scope::User,
    };
    let env = |k: &str| {
        std::env::var(k)
            .ok()
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let places = Places {
        top: repo.workdir().to_owned(),
        home: ws.home.clone(),
        codex_home: env("CODEX_HOME"),
        copilot_home: env("COPILOT_HOME"),
    };
    let mut agents: Vec<Agent> = args.agent.iter().flatten().copied().collect();
    agents.sort();
    agents.dedup();
    if agents.is_empty() {
        let base = match scope {
            Scope::Project => Some(repo.workdir().to_owned()),
            Scope::User => ws.home.clone(),
        };
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
            return Err(CommandError::new("no agent's settings directory was found")
                .hint("name the agents: git skill init --agent claude (or --agent all)"));
        }
    }
    let mut edits: Vec<FileEdit> = Vec::new();
    for agent in &agents {
        edits.extend(
            settings::plan(*agent, scope, &places, args.uninstall).map_err(CommandError::new)?,
        );
    }
    // The recorder skill, in each agent's skill root.
    let recorder = super::record::RECORDER_SKILL;
    for agent in &agents {
        let base = match scope {
            Scope::Project => repo.workdir().to_owned(),
            Scope::User => match &ws.home {
                Some(h) => h.clone(),
                None => continue,
            },
        };
        let path = base
            .join(skill_root(*agent))
            .join("skill-recorder/SKILL.md");
        let before = git_skill::fsutil::read_to_string(&path).ok();
        let after = match (&before, args.uninstall) {
            (None, false) => Some(recorder.to_owned()),
            // Taken out only when it is still ours, unchanged.
            (Some(b), true) if b == recorder => None,
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
    if !args.uninstall {
        for root in ws.roots() {
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
    let edits = settings::resolve_links(edits, scope, repo.workdir()).map_err(CommandError::new)?;
    let enabled = ws.config.auto_skill_enabled().unwrap_or(false);
    // Whether init turned skill.autoSkill.enabled on (uninstall turns off only that).
    let enabled_by_init = repo.git_dir().join("skill").join("init-enabled");
    let changed: Vec<&FileEdit> = edits.iter().filter(|e| e.changes()).collect();
    if args.dry_run {
        for e in &changed {
            let shown = shown(&e.path, repo.workdir());
            let diff = similar::TextDiff::from_lines(
                e.before.as_deref().unwrap_or(""),
                e.after.as_deref().unwrap_or(""),
            )
            .unified_diff()
            .header(
                &if e.before.is_some() {
                    format!("a/{shown}")
                } else {
                    "/dev/null".into()
                },
                &if e.after.is_some() {
                    format!("b/{shown}")
                } else {
                    "/dev/null".into()
                },
            )
            .to_string();
            super::ui::write_lines(&mut ui.out, &diff)?;
        }
        if !args.uninstall {
            writeln!(
                ui.out,
                "# would install the pre-commit and pre-merge-commit hooks (git skill hook install)"
            )?;
        }
        if (args.uninstall && enabled_by_init.exists()) || (!args.uninstall && !enabled) {
            writeln!(
                ui.out,
                "# would {} skill.autoSkill.enabled in .git/config",
                if args.uninstall { "unset" } else { "set" }
            )?;
        }
        return Ok(Outcome::Clean);
    }
    settings::write(&edits).map_err(CommandError::new)?;
    for e in &changed {
        let verb = match (&e.before, &e.after) {
            (None, _) => "created",
            (_, None) => "removed",
            _ => "updated",
        };
        ui.status(&format!("{verb} {}", shown(&e.path, repo.workdir())))?;
    }
    if args.uninstall {
        if enabled_by_init.exists() {
            repo.set_local_config("skill.autoSkill.enabled", None)?;
            let _ = std::fs::remove_file(&enabled_by_init);
            ui.status("unset skill.autoSkill.enabled")?;
        } else if enabled {
            ui.status("skill.autoSkill.enabled stays on: it was set before init")?;
        }
        ui.status("the commit hooks stay (git skill hook uninstall removes them)")?;
        return Ok(Outcome::Clean);
    }
    for (hook, outcome) in hooks::install(&repo.hooks_dir(ws.home.as_deref()), false)? {
        if outcome != hooks::Installed::AlreadyInstalled {
            ui.status(&format!("installed the {} hook", hook.name()))?;
        }
    }
    if !enabled {
        repo.set_local_config("skill.autoSkill.enabled", Some("true"))?;
        if let Some(dir) = enabled_by_init.parent() {
            git_skill::fsutil::private_dir(dir)?;
        }
        std::fs::write(&enabled_by_init, b"")?;
        ui.status("set skill.autoSkill.enabled=true in .git/config")?;
    }
    if changed.is_empty() {
        ui.status("already set up: nothing changed")?;
    } else if scope == Scope::Project {
        ui.status("commit the agents' settings to share the hooks with your team")?;
    }
    for agent in &agents {
        match agent {
            Agent::Codex => {
                ui.status("Codex runs only the hooks you trust: open codex, run /hooks and trust git-skill's (automation: codex exec --dangerously-bypass-hook-trust)")?;
                if scope == Scope::Project {
                    ui.status("Codex reads a project's .codex/ only when you trusted the project: say so when it asks")?;
                }
            }
            Agent::Gemini if scope == Scope::Project => ui.status("Gemini CLI runs project hooks only in a trusted folder: trust this one when it asks")?,
            Agent::Copilot if scope == Scope::Project => ui.status("Copilot CLI loads .github/hooks only in a folder you trusted: trust this one when it asks")?,
            _ => {}
        }
    }
    let threshold = ws.config.auto_skill_threshold().unwrap_or(20);
    ui.status(&format!(
        "next: a session of {threshold} tool calls or more ends in a review; see git skill sessions, then git skill proposals list"
    ))?;
    Ok(Outcome::Clean)
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

fn shown(path: &Path, top: &Path) -> String {
    path.strip_prefix(top)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}
