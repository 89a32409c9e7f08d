use std::io::Write as _;

use git_skill::ops::doctor::{self as op, Status};

use super::output::Format;
use super::ui::safe;
use super::{CommandError, Outcome, Ui, Workspace};

/// Check what a team's setup lacks, and say what to do about each.
///
/// git-skill and git on PATH (the PATH the hooks run with), the commit hooks installed and
/// current, the skill roots and their skills, the model the review and optimize need (asked
/// one tiny question unless --no-ping), each agent's hooks installed and the folder trusted
/// where the agent asks for that (Codex, Copilot CLI, Gemini CLI), locks left in the git
/// directory, the scan cache.
///
/// Exit status: 0 when nothing is a problem (warnings are listed), 1 when something git-skill
/// promises does not work here, each with its fix.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  git skill doctor\n  git skill doctor --no-ping --format json")]
pub struct DoctorArgs {
    /// Do not ask the model (no request leaves the machine).
    #[arg(long)]
    pub no_ping: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_doctor(ui: &mut Ui, args: DoctorArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let mut asked = Ok(());
    let model = op::check_model(
        &ws.config,
        |name| std::env::var(name).ok(),
        !args.no_ping,
        |d| asked = ui.status(&format!("asking {d}…")),
    );
    asked?;
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let options = op::Options {
        path: var("PATH"),
        codex_home: var("CODEX_HOME").map(Into::into),
        copilot_home: var("COPILOT_HOME").map(Into::into),
        model,
        bin: crate::cli::this_binary()?,
    };
    let doctor = op::doctor(&ws, &options);
    match args.format {
        Format::Json => super::output::json(ui, &doctor)?,
        Format::Text => {
            for c in &doctor.checks {
                let mark = match c.status {
                    Status::Ok => ui.out_style.cyan("ok     "),
                    Status::Warn => ui.out_style.yellow("warn   "),
                    Status::Problem => ui.out_style.red("problem"),
                };
                writeln!(ui.out, "{mark} {}: {}", c.name, safe(&c.detail))?;
                if let Some(fix) = &c.fix {
                    writeln!(ui.out, "        -> {}", safe(fix))?;
                }
            }
        }
    }
    ui.out.flush()?;
    Ok(match doctor.problems() {
        0 => Outcome::Clean,
        _ => Outcome::Problems,
    })
}
