pub mod agent;

use std::io::Write as _;
use std::path::PathBuf;

use git_skill::git::hooks::{self, Installed, Uninstalled};
use git_skill::ops::pre_commit as op;
use git_skill::report::scan::{self as render, SkillReport};
use git_skill::report::{self, Diagnostic};

use super::{CommandError, Outcome, Ui, Workspace};

/// Install, remove or run the git commit hooks; run an agent's hook.
///
/// `install` puts the pre-commit and pre-merge-commit hooks where git runs them
/// (core.hooksPath, or the hooks directory shared by all worktrees): git runs pre-merge-commit
/// instead of pre-commit for the commit `git merge` makes by itself, so a merge is checked like
/// any commit. A hook already there is kept and runs first; with --force it is set aside
/// instead. `uninstall` removes git-skill's hooks and puts the previous ones back.
///
/// `pre-commit` is what the hook runs: it checks every skill the commit touches at its staged
/// state (the index, never the work tree), with the linter and the scanner, and exits 1 to block
/// the commit on a lint error it introduces (errors the skill already had at HEAD are summed up,
/// not blocking) or a verdict at `skill.failOn` (default dangerous). Any internal error also
/// blocks (exit 2). Skip a check with `git commit --no-verify` or SKIP=git-skill.
///
/// `agent` is what the hooks of Claude Code, Qwen Code, Codex, Gemini CLI and Copilot CLI run
/// once `git skill init` has set them up: it refuses a dangerous write before it runs, takes out
/// (quarantines) what a call wrote that makes a skill or an agent file dangerous, and never lets
/// a call through unchecked.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill hook install\n  git skill hook install --force\n  git skill hook uninstall\n  SKIP=git-skill git commit -m wip"
)]
pub struct HookArgs {
    #[command(subcommand)]
    pub action: HookAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum HookAction {
    /// Install the pre-commit and pre-merge-commit hooks (idempotent).
    Install {
        /// Set an existing foreign pre-commit hook aside instead of running it first.
        #[arg(long)]
        force: bool,
    },
    /// Remove the hooks and restore what was there before.
    Uninstall,
    /// Check the staged skills (what the hook runs).
    PreCommit,
    /// What an agent's hook runs: guard writes, take out dangerous ones, review busy sessions
    ///
    /// See `git skill init`. Before every tool call it refuses a call whose write would make a
    /// skill or an agent's instructions or settings dangerous, or that would switch the guard
    /// off (exit 2 with the reason on stderr; for Copilot a `deny` decision on stdout). After
    /// every call it looks at what changed where agents load, however it was written, and moves
    /// a dangerous result into quarantine (`git skill quarantine`), telling the model why; it
    /// counts the session's tool calls and starts a review of a busy session when it ends. Reads
    /// the hook payload on stdin. Before a tool call a problem refuses the call; after one it is
    /// logged and the agent goes on.
    Agent(agent::AgentHookArgs),
}

pub fn cmd_hook(ui: &mut Ui, args: HookArgs) -> Result<Outcome, CommandError> {
    match args.action {
        HookAction::Install { force } => install(ui, force),
        HookAction::Uninstall => uninstall(ui),
        HookAction::Agent(args) => agent::cmd_agent_hook(ui, args),
        HookAction::PreCommit => pre_commit(ui).map_err(|e| {
            // Fail closed, and say how to get past it on purpose.
            e.hint(format!(
                "the commit is blocked because the check could not run; fix the cause, or {}",
                skip_once()
            ))
        }),
    }
}

fn hooks_dir(ui: &mut Ui) -> Result<PathBuf, CommandError> {
    let ws = Workspace::load(ui)?;
    Ok(ws.require_repo("hook")?.hooks_dir(ws.home.as_deref()))
}

fn install(ui: &mut Ui, force: bool) -> Result<Outcome, CommandError> {
    let dir = hooks_dir(ui)?;
    for (hook, outcome) in hooks::install(&dir, force)? {
        let (name, path) = (hook.name(), dir.join(hook.name()));
        let message = match outcome {
            Installed::Fresh => format!("installed the {name} hook at '{}'", path.display()),
            Installed::AlreadyInstalled => {
                format!("the {name} hook at '{}' is already installed", path.display())
            }
            Installed::Updated => format!("updated the {name} hook at '{}'", path.display()),
            Installed::Chained(saved) => format!(
                "installed the {name} hook at '{}'; the hook that was there moved to '{}' and runs first",
                path.display(),
                saved.display()
            ),
            Installed::Replaced(saved) => format!(
                "installed the {name} hook at '{}'; the hook that was there was set aside as '{}' and no longer runs",
                path.display(),
                saved.display()
            ),
        };
        ui.status(&message)?;
    }
    Ok(Outcome::Clean)
}

fn uninstall(ui: &mut Ui) -> Result<Outcome, CommandError> {
    let dir = hooks_dir(ui)?;
    for (hook, outcome) in hooks::uninstall(&dir)? {
        let name = hook.name();
        let message = match outcome {
            Uninstalled::Removed => format!("removed the {name} hook"),
            Uninstalled::Restored(path) => format!(
                "removed the {name} hook and restored the previous one at '{}'",
                path.display()
            ),
            Uninstalled::NotInstalled => format!("no {name} hook was installed"),
        };
        ui.status(&message)?;
    }
    Ok(Outcome::Clean)
}

fn pre_commit(ui: &mut Ui) -> Result<Outcome, CommandError> {
    if std::env::var("SKIP").is_ok_and(|s| s.split(',').any(|n| n.trim() == "git-skill")) {
        ui.status("git-skill: skipped (SKIP=git-skill)")?;
        return Ok(Outcome::Clean);
    }
    let mut ws = Workspace::load(ui)?;
    let options = op::Options {
        fail_on: None,
        today: git_skill::clock::today(),
        jobs: git_skill::parallel::default_jobs(),
        cache: ws.config.scan_cache()?,
    };
    let found = op::pre_commit(&mut ws, &options)?;
    if !found.weakened.is_empty() {
        ui.warn(&format!(
            "the staged .skillguard.yaml weakens the check: {}. This commit is judged with it here, but CI judges a pull request with the base branch's settings, so it fails there until the policy change is merged on its own",
            found.weakened.join("; ")
        ))?;
    }
    // Links and submodules the commit brings that no skill check covers block it (exit 2).
    ws.report_notes(ui, &found.notes)?;
    let Some(decision) = found.decision else {
        return unchecked(ui);
    };
    for j in &decision.skills {
        for e in &j.check.report.errors {
            ui.error(&CommandError::new(format!("{}: {e}", j.check.report.path)))?;
        }
    }
    let fail_on = decision.fail_on;
    let introduced: Vec<&Diagnostic> = decision.skills.iter().flat_map(|j| &j.introduced).collect();
    let kept: usize = decision.skills.iter().map(|j| j.kept).sum();
    let kept_in: Vec<&str> = decision
        .skills
        .iter()
        .filter(|j| j.kept > 0)
        .map(|j| j.check.report.path.as_str())
        .collect();
    let kept_line = (kept > 0).then(|| {
        format!(
            "git-skill: {} that HEAD already has {} not blocking (see them with git skill lint {})",
            report::plural(kept, "lint error"),
            if kept == 1 { "is" } else { "are" },
            kept_in.join(" ")
        )
    });
    if !decision.blocked() {
        if ui.had_error {
            return unchecked(ui);
        }
        let s = render::summarize(decision.skills.iter().map(|j| &j.check.report));
        ui.status(&format!(
            "git-skill: {} checked: {} safe, {} caution",
            s.checked("staged skill"),
            s.safe,
            s.caution
        ))?;
        if let Some(line) = kept_line {
            ui.status(&line)?;
        }
        if !found.new_suppressions.is_empty() {
            ui.warn(&format!(
                "this commit passes through {} it brings: {}. CI reads suppressions from the base branch, so a pull request with {} fails there until {} merged: land {} in a change of its own first, or have a maintainer do it",
                if found.new_suppressions.len() == 1 { "a suppression" } else { "suppressions" },
                found.new_suppressions.join(", "),
                if found.new_suppressions.len() == 1 { "it" } else { "them" },
                if found.new_suppressions.len() == 1 { "it is" } else { "they are" },
                if found.new_suppressions.len() == 1 { "it" } else { "them" },
            ))?;
        }
        return Ok(Outcome::Clean);
    }
    let blocked: Vec<SkillReport> = decision
        .skills
        .iter()
        .filter(|j| j.verdict_blocks(fail_on))
        .map(|j| j.check.report.clone())
        .collect();
    blocked_report(ui, &introduced, &blocked, kept_line.as_deref(), fail_on)?;
    Ok(Outcome::Problems)
}

/// Why the commit is blocked, on stderr with git's own messages about the failed commit.
fn blocked_report(
    ui: &mut Ui,
    introduced: &[&Diagnostic],
    shown: &[SkillReport],
    kept_line: Option<&str>,
    fail_on: git_skill::config::FailOn,
) -> Result<(), CommandError> {
    let style = ui.err_style;
    if !introduced.is_empty() {
        let n = introduced.len().min(MAX_SHOWN);
        let first: Vec<Diagnostic> = introduced[..n].iter().map(|d| (*d).clone()).collect();
        report::render_text(&mut ui.err, &first, style)?;
        if introduced.len() > n {
            writeln!(
                ui.err,
                "... and {} more (git skill lint shows them all)",
                introduced.len() - n
            )?;
        }
    }
    render::render_text(&mut ui.err, shown, style)?;
    if let Some(line) = kept_line {
        writeln!(ui.err, "{line}")?;
    }
    // Skills and agent context files, each named as what it is.
    let context = shown.iter().filter(|r| r.context.is_some()).count();
    let blocked = match (shown.len() - context, context) {
        (_, 0) => report::plural(shown.len(), "skill"),
        (0, n) => report::plural(n, "agent context file"),
        (s, n) => format!(
            "{} and {}",
            report::plural(s, "skill"),
            report::plural(n, "agent context file")
        ),
    };
    let reason = match (introduced.is_empty(), shown.is_empty()) {
        (false, true) => format!("it adds {}", report::plural(introduced.len(), "lint error")),
        (false, false) => format!(
            "it adds {}, and {blocked} at or above the fail level ({})",
            report::plural(introduced.len(), "lint error"),
            fail_on.as_str()
        ),
        _ => format!(
            "{blocked} at or above the fail level ({})",
            fail_on.as_str()
        ),
    };
    let skip = skip_once();
    let lint = "set a code's level with a `lint:` entry in .skillguard.yaml (code, level, reason) or a <!-- git-skill:allow-lint CODE -- reason --> comment in SKILL.md";
    let suppress = "suppress a finding with a reason (# git-skill:allow ID -- reason, or an `allow:` entry in .skillguard.yaml; CI honours a suppression once it is on the base branch, so land it in a change of its own first, or have a maintainer do it)";
    let ways = match (introduced.is_empty(), shown.is_empty()) {
        (false, true) => format!("Fix the staged files (git add them again), {lint}, or {skip}."),
        (false, false) => {
            format!("Fix the staged files (git add them again), {lint}, {suppress}, or {skip}.")
        }
        _ => format!("Fix the staged files (git add them again), {suppress}, or {skip}."),
    };
    writeln!(ui.err, "git-skill: commit blocked: {reason}. {ways}")?;
    Ok(())
}

/// How to skip the check once: the pre-commit framework's `SKIP=<hook id>` when it runs the
/// hook (it sets `PRE_COMMIT`), else git-skill's own `SKIP=git-skill`; `--no-verify` skips every
/// hook, and is named as such.
fn skip_once() -> &'static str {
    if std::env::var_os("PRE_COMMIT").is_some() {
        "skip this hook once with SKIP=git-skill-guard git commit (SKIP=git-skill-guard-system for the system hook)"
    } else {
        "skip the check once with SKIP=git-skill git commit (git commit --no-verify skips every hook)"
    }
}

/// Lint errors printed when a commit is blocked; the rest are counted.
const MAX_SHOWN: usize = 20;

/// The end of a hook run whose errors (already shown) mean that something was not checked.
fn unchecked(ui: &mut Ui) -> Result<Outcome, CommandError> {
    if ui.had_error {
        writeln!(
            ui.err,
            "git-skill: commit blocked: some of what it adds could not be checked (see above). Fix the cause, or {}.",
            skip_once()
        )?;
    }
    Ok(Outcome::Clean)
}
