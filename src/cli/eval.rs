use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;

use git_skill::env::Allow;
use git_skill::ops::eval::{self as op, Against, Report};

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Run a skill's eval cases (`evals/evals.json`): each case with the skill and without it (or
/// against another version of it), the answers graded by a judge model that does not know
/// which is which. Prints the pass rates side by side; keeps the answers, grades and
/// benchmark.json under the git directory (`.git/skill/evals/`), never in the work tree. A run
/// of the same comparison (skill versions, cases, model) uses what an earlier one kept, so an
/// interrupted run resumes without repeating a call. Exit 0 when every case was graded, 2 when
/// a call failed.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill eval pdf\n  git skill eval pdf --against HEAD~1\n  git skill eval pdf --candidate /tmp/SKILL.md --format json\n  git skill eval pdf --fresh\n  git skill eval pdf --runner claude-code"
)]
pub struct EvalArgs {
    /// The skill, by name or directory.
    pub skill: String,

    /// Compare the skill in the work tree with the skill at this revision, instead of with no
    /// skill.
    #[arg(long, value_name = "REV", conflicts_with = "candidate")]
    pub against: Option<String>,

    /// Compare this SKILL.md (a file) with the skill in the work tree, instead of the skill
    /// with no skill.
    #[arg(long, value_name = "FILE")]
    pub candidate: Option<PathBuf>,

    /// Have this agent CLI do each case, headless, in a temporary directory that holds the
    /// case's files and the skill where that CLI finds skills (with its tools allowed there);
    /// its final answer and the files it left are graded by the configured model. Without it,
    /// the configured model answers, given the skill as an agent would see it.
    #[arg(long, value_name = "CLI", value_parser = ["claude-code", "codex", "gemini", "qwen", "copilot"])]
    pub runner: Option<String>,

    /// The model the --runner CLI uses (its own -m/--model) [default: the CLI's own].
    #[arg(long, value_name = "MODEL", requires = "runner")]
    pub runner_model: Option<String>,

    /// Let --runner do the cases of a skill SkillGuard calls dangerous (your own skill, read
    /// first: the agent runs it with your rights). Refused for a skill an agent wrote.
    #[arg(long, requires = "runner")]
    pub allow_dangerous: bool,

    /// Ask again: forget the answers and grades an earlier run of the same comparison kept.
    #[arg(long)]
    pub fresh: bool,

    /// Cases run at once [default: skill.parallel].
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_eval(ui: &mut Ui, args: EvalArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    ws.require_repo("eval")?;
    let (skill, _) = ws.resolve_skill(&args.skill, Allow::Live)?;
    let settings = super::llm::settings(&ws)?;
    let against = match (&args.against, &args.candidate) {
        (Some(rev), _) => Against::Revision(rev.clone()),
        (None, Some(file)) => Against::Candidate(file.clone()),
        (None, None) => Against::Nothing,
    };
    let options = op::Options {
        against,
        jobs: args.jobs.unwrap_or(settings.parallel).max(1),
        settings,
        fresh: args.fresh,
        max_calls: ws.config.eval_max_calls()?,
        runner: args
            .runner
            .as_deref()
            .and_then(git_skill::llm::agent_run::Runner::from_name)
            .map(|r| {
                let mut run = git_skill::llm::agent_run::AgentRun::new(r);
                run.model = args.runner_model.clone().unwrap_or_default();
                run
            }),
        allow_dangerous: args.allow_dangerous,
    };
    let show = std::io::stderr().is_terminal() && !ui.quiet;
    let mut progress = super::progress::Steps::new(&mut ui.err, show);
    let report = op::eval(&ws, &skill, &options, &mut progress)?;
    match args.format {
        Format::Json => super::output::json(ui, &report)?,
        Format::Text => render(ui, &report)?,
    }
    for row in &report.cases {
        for cell in &row.results {
            if let Some(error) = &cell.error {
                ui.error(&CommandError::new(format!(
                    "case {} ({}): {error}",
                    row.id, cell.condition
                )))?;
            }
        }
    }
    // A case that could not be graded was reported as an error above: the run exits 2.
    Ok(Outcome::Clean)
}

fn mark(passed: Option<bool>) -> &'static str {
    match passed {
        Some(true) => "pass",
        Some(false) => "FAIL",
        None => "error",
    }
}

/// A condition's column header.
fn header(name: &str) -> &'static str {
    match name {
        "with_skill" => "WITH SKILL",
        "without_skill" => "WITHOUT",
        "new_skill" => "NEW",
        "old_skill" => "OLD",
        _ => "RESULT",
    }
}

fn render(ui: &mut Ui, r: &Report) -> std::io::Result<()> {
    let safe = super::ui::safe;
    let names: Vec<&str> = r.conditions.iter().map(|c| c.name.as_str()).collect();
    let mut head = vec!["CASE"];
    head.extend(names.iter().map(|n| header(n)));
    head.push("SOURCE");
    head.push("PROMPT");
    let mut table = super::table::Table::new(&head);
    for case in &r.cases {
        let mut row = vec![case.id.to_string()];
        let mut first_failed = false;
        for (i, name) in names.iter().enumerate() {
            let passed = case
                .results
                .iter()
                .find(|c| c.condition == *name)
                .and_then(|c| c.passed);
            first_failed |= i == 0 && passed != Some(true);
            row.push(mark(passed).to_owned());
        }
        // Masked whole, then cut (`one_line`): a cut secret would no longer be recognised.
        let source = git_skill::report::one_line(case.source.as_deref().unwrap_or("-"), 48);
        row.push(safe(&source));
        row.push(safe(&git_skill::report::one_line(&case.prompt, 61)));
        table.row(row, first_failed);
    }
    table.write(&mut ui.out, ui.out_style)?;
    writeln!(ui.out)?;
    for c in &r.conditions {
        let rate = c
            .pass_rate
            .map_or("-".to_owned(), |p| format!("{:.0}%", p * 100.0));
        writeln!(
            ui.out,
            "{}: {}/{} passed ({rate}) — {}",
            c.name,
            c.passed,
            c.graded,
            safe(&c.label)
        )?;
    }
    if let Some(delta) = r.delta {
        writeln!(ui.out, "difference: {:+.0} points", delta * 100.0)?;
    }
    // What failed, so that a person sees why without opening the files.
    for case in &r.cases {
        for cell in case.results.iter().filter(|c| c.passed == Some(false)) {
            writeln!(
                ui.out,
                "\ncase {} ({}) failed: {}",
                safe(&case.id.to_string()),
                cell.condition,
                safe(&cell.reason)
            )?;
            for f in &cell.failed {
                writeln!(ui.out, "  not true: {}", safe(f))?;
            }
        }
    }
    let reused: usize = r
        .cases
        .iter()
        .flat_map(|c| &c.results)
        .filter(|c| c.reused)
        .count();
    writeln!(
        ui.out,
        "\n{} model calls in {:.1} s ({} kept from an earlier run); {}; results in {}",
        r.calls,
        r.seconds,
        reused,
        safe(&r.model),
        r.benchmark.display()
    )?;
    ui.out.flush()
}
