use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;

use git_skill::agent::Agent;
use git_skill::ops::review as op;
use git_skill::review::{self, Outcome as ReviewOutcome, Report};

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Review an agent session and propose the skills it taught, in a sandbox.
///
/// Reads the session's transcript (Claude Code, Qwen Code, Codex, Gemini CLI or Copilot CLI;
/// detected from its records), then lets the configured model work with tools for at most
/// skill.autoSkill.maxRounds rounds and skill.autoSkill.timeout: skill_list, read_file and ls
/// (inside the repository, never .git or ignored files), a read-only shell, and skill_manage
/// (create, edit, patch, write_file; never delete). Every write goes to an in-memory copy of
/// the skills as HEAD holds them, under rules that each refusal names: no overwrite, changes
/// only to skills marked `source: auto-skill` (or, in a proposal, to skills the session
/// linked), a skill read before it is changed, no near-duplicate, at most
/// skill.autoSkill.maxNew new skills, every write checked by SkillGuard and lint.
///
/// The work tree is never touched: the result is a commit under refs/skill-proposals/<id>
/// (see `git skill proposals`), or, with skill.autoSkill.apply=stage|commit, the change staged
/// or committed at once when the review finished and those files are clean. Each run's log is
/// kept in $GIT_DIR/skill/reviews/<id>.json. Exit status: 0 proposed (or nothing to save),
/// 1 a stage or commit kept as a proposal, 2 an error (nothing proposed).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill review --transcript ~/.claude/projects/-home-me-app/3f2c….jsonl
  git skill review --transcript session.jsonl --agent codex --dry-run
  git skill proposals list && git skill proposals show <id> && git skill proposals accept <id>")]
pub struct ReviewArgs {
    /// The session's transcript (JSON Lines, as the agent wrote it).
    #[arg(long, value_name = "FILE")]
    pub transcript: PathBuf,

    /// The agent that wrote it [default: detected].
    #[arg(long, value_parser = parse_agent, value_name = "AGENT")]
    pub agent: Option<Agent>,

    /// The session id the transcript must hold.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Run the review and show what it would propose; write no proposal.
    #[arg(long)]
    pub dry_run: bool,

    /// Wait up to this many seconds for the transcript to exist and stop growing (the agent
    /// hooks use it: some agents write their transcript after their session-end hook).
    #[arg(long, value_name = "SECS", default_value_t = 0)]
    pub wait_for_transcript: u64,

    /// Output format of the report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

fn parse_agent(s: &str) -> Result<Agent, String> {
    Agent::parse(s).ok_or_else(|| "expected claude, qwen, codex, gemini or copilot".to_owned())
}

pub fn cmd_review(ui: &mut Ui, args: ReviewArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let options = op::Options {
        transcript: args.transcript.clone(),
        agent: args.agent,
        session: args.session.clone(),
        dry_run: args.dry_run,
        wait_for_transcript: std::time::Duration::from_secs(args.wait_for_transcript),
        settings: super::llm::settings(&ws)?,
        now: git_skill::clock::now(),
    };
    let show = std::io::stderr().is_terminal() && !ui.quiet;
    let mut progress = super::progress::Steps::new(&mut ui.err, show);
    let report = op::review(&ws, options, &mut progress)?;
    match args.format {
        Format::Json => super::output::json(ui, &report)?,
        Format::Text => render(ui, &report)?,
    }
    Ok(match report.outcome {
        ReviewOutcome::KeptAsProposal { .. } => Outcome::Problems,
        _ => Outcome::Clean,
    })
}

fn render(ui: &mut Ui, r: &Report) -> std::io::Result<()> {
    let safe = super::ui::safe;
    let session = r.session.as_deref().unwrap_or("(no id)");
    writeln!(
        ui.out,
        "review {} of {} session {} with {}: {} of {} rounds, {} tool calls ({} denied), {}",
        r.id,
        r.agent.product(),
        safe(session),
        r.model,
        r.rounds,
        r.max_rounds,
        r.tool_calls,
        r.denied,
        match r.stopped {
            review::turns::Stop::Finished => "finished",
            review::turns::Stop::Rounds => "stopped: out of rounds",
            review::turns::Stop::Timeout => "stopped: out of time",
        }
    )?;
    for s in &r.skills {
        writeln!(
            ui.out,
            "  {} {} ({}): {}",
            s.change,
            safe(&s.path),
            s.verdict,
            safe(&s.files.join(", "))
        )?;
    }
    match &r.outcome {
        ReviewOutcome::NothingToSave => writeln!(ui.out, "Nothing to save.")?,
        ReviewOutcome::DryRun => {
            writeln!(ui.out, "dry run: would propose \"{}\"", safe(&r.summary))?;
        }
        ReviewOutcome::Proposed { refname, .. } => {
            let id = review::id_of(refname);
            writeln!(ui.out, "proposed: {} ({})", safe(&r.summary), refname)?;
            writeln!(
                ui.out,
                "  see it: git skill proposals show {id}\n  accept: git skill proposals accept {id}\n  reject: git skill proposals reject {id}"
            )?;
        }
        ReviewOutcome::Staged { .. } => writeln!(
            ui.out,
            "staged: {} (skill.autoSkill.apply=stage; git diff --cached shows it)",
            safe(&r.summary)
        )?,
        ReviewOutcome::Committed { commit } => writeln!(
            ui.out,
            "committed {}: {} (skill.autoSkill.apply=commit)",
            &commit[..12.min(commit.len())],
            safe(&r.summary)
        )?,
        ReviewOutcome::KeptAsProposal {
            refname, reason, ..
        } => {
            writeln!(
                ui.out,
                "not applied ({}); kept as a proposal: {}",
                safe(reason),
                refname
            )?;
            writeln!(
                ui.out,
                "  git skill proposals show {0}, then git skill proposals accept {0}",
                review::id_of(refname)
            )?;
        }
    }
    writeln!(ui.out, "log: {}", r.log.display())?;
    Ok(())
}
