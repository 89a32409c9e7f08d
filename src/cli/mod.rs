//! Argument parsing and dispatch: one file per subcommand, one enum to route them.

mod allow;
mod baseline;
mod completions;
mod config;
mod diff;
mod doctor;
mod error;
mod eval;
mod hints;
mod hook;
mod init;
mod lint;
mod list;
mod llm;
mod log;
mod man;
mod manage;
mod optimize;
mod output;
mod progress;
mod prompt;
mod proposals;
mod quarantine;
mod record;
mod review;
mod rollback;
mod rules;
mod scan;
mod sessions;
mod signals;
mod table;
mod ui;
mod workspace;

use std::io::Write as _;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub use error::{CommandError, ResultExt, EXIT_ERROR, EXIT_FAILURE};
pub use ui::{ColorChoice, Ui};
pub use workspace::Workspace;

/// Make AI-agent skills evolve safely inside git.
///
/// git-skill keeps skills (directories holding a SKILL.md that agents load) valid and safe as
/// they change. `lint` and `list` check them where they live; `scan` (SkillGuard), the
/// pre-commit `hook` and `diff` guard them at commit time and in CI; `record` and `signals`
/// collect feedback about them, and `optimize` turns it into a reviewed change of two commits
/// that `rollback` and `log` follow. `review` reads an agent's session and proposes the skills
/// it taught as a commit that `proposals` shows, accepts or rejects; `manage` writes a skill,
/// checked, for a person or an agent; `init` sets the agents' hooks up so that a busy session
/// starts that review by itself (`hook agent`, `sessions`). Exit status: 0 clean, 1 problems found, 2 usage,
/// configuration or I/O error (a check never passes by not looking).
#[derive(Debug, Parser)]
#[command(
    name = "git-skill",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_help = "Configuration: git config skill.<key>, or GIT_SKILL_<KEY>; see `git skill config`.\nDocs: `git help skill` once the man page is installed (`git skill man --install`)."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,

    /// When to colour output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,

    /// Print nothing on stderr but errors and warnings.
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    Lint(lint::LintArgs),
    List(list::ListArgs),
    Config(config::ConfigArgs),
    Completions(completions::CompletionsArgs),
    Man(man::ManArgs),
    Diff(diff::DiffArgs),
    Hook(hook::HookArgs),
    Scan(scan::ScanArgs),
    Allow(allow::AllowArgs),
    Baseline(baseline::BaselineArgs),
    Rules(rules::RulesArgs),
    Record(record::RecordArgs),
    Signals(signals::SignalsArgs),
    Llm(llm::LlmArgs),
    Optimize(optimize::OptimizeArgs),
    Rollback(rollback::RollbackArgs),
    Log(log::LogArgs),
    Prompt(prompt::PromptArgs),
    Manage(manage::ManageArgs),
    Review(review::ReviewArgs),
    Proposals(proposals::ProposalsArgs),
    Quarantine(quarantine::QuarantineArgs),
    Sessions(sessions::SessionsArgs),
    Init(init::InitArgs),
    Doctor(doctor::DoctorArgs),
    Eval(eval::EvalArgs),
}

/// This very binary, by its absolute path with links resolved: what the agents' hooks run.
pub fn this_binary() -> Result<std::path::PathBuf, CommandError> {
    let exe = std::env::current_exe()
        .map_err(|e| CommandError::new(format!("cannot tell where git-skill is: {e}")))?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

/// How a command ended when it did not fail with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Clean,
    /// Exit 1: problems found at or above the fail level.
    Problems,
    /// Exit 2: an agent's tool call refused (the status the agents read as a refusal).
    Refused,
}

pub fn main() -> ExitCode {
    // An agent's hook runs this on every tool call: its arguments go through the small clap
    // command of `hook agent` alone, not the whole CLI's (building that is a seventh of the
    // hook's instructions). Anything it does not take goes to the full parser below.
    if let Some(args) = hook::agent::fast_args(std::env::args_os().collect()) {
        let mut ui = Ui::new(ColorChoice::Auto, false);
        let result = hook::agent::cmd_agent_hook(&mut ui, args);
        return finish(&mut ui, result);
    }
    // Usage lines say `git skill`, the way people type it; completions and man pages are built
    // from `command()` and keep the binary's own name.
    let matches = command().bin_name("git skill").get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let mut ui = Ui::new(cli.color, cli.quiet);
    // A pinned clock that is no time stops a command before it runs; the agent's hook logs it
    // instead (it never fails the agent).
    let agent_hook = matches!(
        &cli.command,
        Command::Hook(hook::HookArgs {
            action: hook::HookAction::Agent(_),
            ..
        })
    );
    if let (Err(e), false) = (git_skill::clock::check(), agent_hook) {
        let error = CommandError::new(e.to_string())
            .hint("unset it, or give a time like 2026-11-30T09:00:00Z");
        return finish(&mut ui, Err(error));
    }
    let result = match cli.command {
        Command::Lint(args) => lint::cmd_lint(&mut ui, args),
        Command::List(args) => list::cmd_list(&mut ui, args),
        Command::Config(args) => config::cmd_config(&mut ui, args),
        Command::Completions(args) => completions::cmd_completions(&mut ui, args),
        Command::Man(args) => man::cmd_man(&mut ui, args),
        Command::Diff(args) => diff::cmd_diff(&mut ui, args),
        Command::Hook(args) => hook::cmd_hook(&mut ui, args),
        Command::Scan(args) => scan::cmd_scan(&mut ui, args),
        Command::Allow(args) => allow::cmd_allow(&mut ui, args),
        Command::Baseline(args) => baseline::cmd_baseline(&mut ui, args),
        Command::Rules(args) => rules::cmd_rules(&mut ui, args),
        Command::Record(args) => record::cmd_record(&mut ui, args),
        Command::Signals(args) => signals::cmd_signals(&mut ui, args),
        Command::Llm(args) => llm::cmd_llm(&mut ui, args),
        Command::Optimize(args) => optimize::cmd_optimize(&mut ui, args),
        Command::Rollback(args) => rollback::cmd_rollback(&mut ui, args),
        Command::Log(args) => log::cmd_log(&mut ui, args),
        Command::Prompt(args) => prompt::cmd_prompt(&mut ui, args),
        Command::Manage(args) => manage::cmd_manage(&mut ui, args),
        Command::Review(args) => review::cmd_review(&mut ui, args),
        Command::Proposals(args) => proposals::cmd_proposals(&mut ui, args),
        Command::Quarantine(args) => quarantine::cmd_quarantine(&mut ui, args),
        Command::Sessions(args) => sessions::cmd_sessions(&mut ui, args),
        Command::Init(args) => init::cmd_init(&mut ui, args),
        Command::Doctor(args) => doctor::cmd_doctor(&mut ui, args),
        Command::Eval(args) => eval::cmd_eval(&mut ui, args),
    };
    finish(&mut ui, result)
}

/// The exit status of a command's result, its error rendered.
fn finish(ui: &mut Ui, result: Result<Outcome, CommandError>) -> ExitCode {
    let result = result.and_then(|outcome| {
        ui.out.flush()?;
        Ok(outcome)
    });
    match result {
        Ok(_) if ui.had_error => ExitCode::from(EXIT_ERROR),
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Problems) => ExitCode::from(EXIT_FAILURE),
        Ok(Outcome::Refused) => ExitCode::from(EXIT_ERROR),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = ui.out.flush();
            let style = ui.err_style;
            let _ = e.render(&mut ui.err, style);
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// The full clap command, for completions and man pages.
pub fn command() -> clap::Command {
    Cli::command()
}
