use std::io::Write as _;
use std::path::{Path, PathBuf};

use git_skill::agent::settings::{FileEdit, Scope};
use git_skill::agent::Agent;
use git_skill::ops::init::{self as op, AutoSkill};

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

pub fn cmd_init(ui: &mut Ui, args: InitArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let var = |k: &str| {
        std::env::var(k)
            .ok()
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let options = op::Options {
        agents: args.agent.iter().flatten().copied().collect(),
        scope: match args.scope {
            ScopeArg::Project => Scope::Project,
            ScopeArg::User => Scope::User,
        },
        uninstall: args.uninstall,
        codex_home: var("CODEX_HOME"),
        copilot_home: var("COPILOT_HOME"),
        bin: crate::cli::this_binary()?,
    };
    let plan = op::plan(&ws, &options)?;
    let top = ws.require_repo("init")?.workdir().to_owned();
    if args.dry_run {
        return dry_run(ui, &plan, &top);
    }
    let applied = op::apply(&ws, &plan)?;
    let changed: Vec<&FileEdit> = plan.changed().collect();
    for e in &changed {
        let verb = match (&e.before, &e.after) {
            (None, _) => "created",
            (_, None) => "removed",
            _ => "updated",
        };
        ui.status(&format!("{verb} {}", shown(&e.path, &top)))?;
    }
    for hook in &applied.hooks {
        ui.status(&format!("installed the {hook} hook"))?;
    }
    match applied.auto_skill {
        AutoSkill::Set => ui.status("set skill.autoSkill.enabled=true in .git/config")?,
        AutoSkill::Unset => ui.status("unset skill.autoSkill.enabled")?,
        AutoSkill::StaysOn => {
            ui.status("skill.autoSkill.enabled stays on: it was set before init")?
        }
        AutoSkill::Unchanged => {}
    }
    if plan.uninstall {
        ui.status("the commit hooks stay (git skill hook uninstall removes them)")?;
        return Ok(Outcome::Clean);
    }
    if changed.is_empty() {
        ui.status("already set up: nothing changed")?;
    } else if plan.scope == Scope::Project {
        ui.status("commit the agents' settings to share the hooks with your team")?;
    }
    trust_notes(ui, &plan)?;
    // The reviews just turned on need a model: without one each busy session's review fails.
    if !git_skill::ops::doctor::model_configured(&ws.config, |name| std::env::var(name).ok()) {
        ui.warn("no model is configured: the review at the end of a busy session will fail until one is (git config skill.provider ... and skill.model ...; git skill doctor checks it and asks it)")?;
    }
    let threshold = ws.config.auto_skill_threshold().unwrap_or(20);
    ui.status(&format!(
        "next: a session of {threshold} tool calls or more ends in a review; see git skill sessions, then git skill proposals list"
    ))?;
    Ok(Outcome::Clean)
}

/// Every change as a diff, and what else would be done; nothing written.
fn dry_run(ui: &mut Ui, plan: &op::Plan, top: &Path) -> Result<Outcome, CommandError> {
    for e in plan.changed() {
        let shown = shown(&e.path, top);
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
    if !plan.uninstall && !plan.hooks_current {
        writeln!(
            ui.out,
            "# would install the pre-commit and pre-merge-commit hooks (git skill hook install)"
        )?;
    }
    if (plan.uninstall && plan.enabled_by_init) || (!plan.uninstall && !plan.enabled) {
        writeln!(
            ui.out,
            "# would {} skill.autoSkill.enabled in .git/config",
            if plan.uninstall { "unset" } else { "set" }
        )?;
    }
    Ok(Outcome::Clean)
}

/// What each agent needs before it runs a repository's hooks.
fn trust_notes(ui: &mut Ui, plan: &op::Plan) -> Result<(), CommandError> {
    let project = plan.scope == Scope::Project;
    for agent in &plan.agents {
        match agent {
            Agent::Codex => {
                ui.status("Codex runs only the hooks you trust: open codex, run /hooks and trust git-skill's (automation: codex exec --dangerously-bypass-hook-trust)")?;
                if project {
                    ui.status("Codex reads a project's .codex/ only when you trusted the project: say so when it asks")?;
                }
            }
            Agent::Gemini if project => ui.status("Gemini CLI runs project hooks only in a trusted folder: trust this one when it asks")?,
            Agent::Copilot if project => ui.status("Copilot CLI loads .github/hooks only in a folder you trusted: trust this one when it asks")?,
            _ => {}
        }
    }
    Ok(())
}

fn shown(path: &Path, top: &Path) -> String {
    path.strip_prefix(top)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}
