mod render;
mod terminal;

use std::io::IsTerminal as _;

use git_skill::optimize::{self, Decision};
use git_skill::prompt::{self, Prompts};
use git_skill::signal::select;

use terminal::Terminal;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};
use git_skill::env::Allow;

/// Improve a skill from its pending signals: the 8 steps of skill-optimizer (confirm, load
/// signals, triage, deep read, reflect, dry run, gate, update).
///
/// The model clusters the signals and proposes edits to SKILL.md; edits that do not apply are
/// dropped; the candidate must pass SkillGuard, lint, the size budget (skill.maxGrowth), the
/// model gate (one judge per cluster, in parallel, skill.gateThreshold; skill.gateVotes judges
/// each, the majority deciding), a regression check against earlier optimizations and, when
/// the skill has eval cases (evals/evals.json), the replay gate: each case is run on SKILL.md
/// as it is and on the candidate, and a case that passes now and fails with the candidate
/// refuses the change (--allow-regression takes it anyway). On a
/// terminal you then see the diff, the verdicts and both commit messages, and answer
/// `Commit? [y/N/e]` (e edits the candidate, which is checked and judged again); without a
/// terminal and without --yes nothing is committed and the command to commit exactly this
/// change is printed. Accepted, it lands as two commits: `audit(skill): ...`
/// (the signals move to .skillopt/resolved/ with optimization.json) and `optimize(skill): ...`
/// (SKILL.md, and evals/evals.json with a new case for each corrected signal it resolves,
/// unless --no-evals), undone with `git skill rollback`. Each step is checkpointed in
/// .skillopt/work/, so a run that stops resumes where it was. Exit 0 accepted (or a dry run
/// the gate accepted), 1 rejected, nothing to apply, declined or waiting for approval, 2
/// error.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill optimize pdf --dry-run
  git skill optimize pdf --resume
  git skill optimize pdf --yes
  git skill optimize .claude/skills/pdf --resume
  git skill optimize pdf --prefer 20261129T101500Z_pdf_1a2b3c4d --yes --format json")]
pub struct OptimizeArgs {
    /// The skill, by name or directory.
    pub skill: String,

    /// Run every step, print the diff and both commit messages, commit nothing. The
    /// checkpoint is kept: `--resume` then commits exactly this change, with no model call.
    #[arg(long)]
    pub dry_run: bool,

    /// Do not ask: neither before calling the model nor before committing.
    #[arg(short, long)]
    pub yes: bool,

    /// Continue from the checkpoint of an interrupted run (the default for one) or of a dry
    /// run, whose change it commits as it was shown.
    #[arg(long, conflicts_with = "restart")]
    pub resume: bool,

    /// Discard the checkpoint of an earlier run and start again.
    #[arg(long)]
    pub restart: bool,

    /// Use signals of the last N days.
    #[arg(long, default_value_t = select::DEFAULT_DAYS, value_name = "N")]
    pub days: u32,

    /// Use at most M signals (corrected first, newest first).
    #[arg(long, default_value_t = select::DEFAULT_MAX, value_name = "M")]
    pub max_signals: usize,

    /// When triage finds two signals that contradict each other, follow this one
    /// (repeatable; the other stays pending).
    #[arg(long, value_name = "SIGNAL_ID")]
    pub prefer: Vec<String>,

    /// Let the candidate change the frontmatter (name, description, allowed-tools, ...):
    /// confirm that the signals' corrections ask for it. Without it, only the body may change.
    #[arg(long)]
    pub allow_frontmatter: bool,

    /// Let the candidate give the skill new capabilities (tools, hosts, scripts, a broader
    /// description), as `git skill diff` reports them: confirm that the signals ask for them.
    #[arg(long)]
    pub allow_drift: bool,

    /// Take a candidate that fails eval cases SKILL.md passes as it is (the replay gate runs
    /// the skill's evals/evals.json on both before asking). Recorded in optimization.json and
    /// the optimize commit's message.
    #[arg(long)]
    pub allow_regression: bool,

    /// Do not add the corrected signals this change resolves to the skill's eval cases
    /// (evals/evals.json), as skill.evalsFromSignals = false does for every run.
    #[arg(long)]
    pub no_evals: bool,

    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_optimize(ui: &mut Ui, args: OptimizeArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let repo = ws.require_repo("optimize")?;
    let (skill, _) = ws.resolve_skill(&args.skill, Allow::Live)?;
    let skill_rel = repo.relative(&skill.dir).ok_or_else(|| {
        CommandError::new(format!(
            "'{}' is not inside the repository at '{}'",
            skill.dir.display(),
            repo.workdir().display()
        ))
        .hint("optimize commits to the repository that holds the skill; run it there")
    })?;
    let settings = super::llm::settings(&ws)?;
    let provider = git_skill::llm::provider(&settings);
    let dirs = prompt::override_dirs(
        &ws.config,
        Some(repo.workdir()),
        &ws.cwd,
        ws.home.as_deref(),
    );
    let prompts = Prompts::load(&dirs)?;
    let ctx = optimize::Job {
        repo,
        skill_dir: skill.dir.clone(),
        skill_rel,
        skill_name: skill.dir_name.clone(),
        provider: provider.as_ref(),
        prompts: &prompts,
        parallel: settings.parallel,
        gate_threshold: ws.config.gate_threshold()?,
        gate_votes: ws.config.gate_votes()?,
        max_growth: ws.config.max_growth()?,
        fail_on: ws.config.fail_on()?,
        eval_max_calls: ws.config.eval_max_calls()?,
        now: git_skill::clock::now(),
    };
    let options = optimize::Options {
        days: args.days,
        max_signals: args.max_signals,
        dry_run: args.dry_run,
        restart: args.restart,
        resume: args.resume,
        prefer: args.prefer.clone(),
        yes: args.yes,
        allow_frontmatter: args.allow_frontmatter,
        allow_drift: args.allow_drift,
        allow_regression: args.allow_regression,
        record_evals: !args.no_evals && ws.config.evals_from_signals()?,
        failpoint: failpoint(),
    };
    let show = std::io::stderr().is_terminal() && !ui.quiet;
    let mut interact = Terminal {
        ask: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
        steps: super::progress::Steps::new(&mut ui.err, show),
    };
    // The hints name the skill as the user gave it (a path, when the name is ambiguous).
    let report = optimize::run(&ctx, &options, &mut interact).map_err(|mut e| {
        e.skill = args.skill.clone();
        e
    })?;
    match args.format {
        Format::Json => super::output::json(ui, &report)?,
        Format::Text => render::render(&mut ui.out, &report)?,
    }
    Ok(match report.outcome {
        Decision::Accepted | Decision::DryRunAccepted => Outcome::Clean,
        Decision::Rejected
        | Decision::DryRunRejected
        | Decision::NothingToApply
        | Decision::Declined
        | Decision::AwaitingApproval => Outcome::Problems,
    })
}

/// The crash point of optimize's recovery tests (`GIT_SKILL_FAILPOINT`). Only debug builds,
/// which `cargo test` runs, read it: a release binary has no way to be killed on request.
#[cfg(debug_assertions)]
fn failpoint() -> Option<String> {
    std::env::var("GIT_SKILL_FAILPOINT").ok()
}

#[cfg(not(debug_assertions))]
fn failpoint() -> Option<String> {
    None
}
