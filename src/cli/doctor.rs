use std::io::Write as _;

use git_skill::llm::{Describe, Settings};
use git_skill::ops::doctor::{self as op, Model, Status};

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
    let model = model(ui, &ws, !args.no_ping)?;
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let options = op::Options {
        path: var("PATH"),
        codex_home: var("CODEX_HOME").map(Into::into),
        copilot_home: var("COPILOT_HOME").map(Into::into),
        model,
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

/// The model check: the configured provider, asked one tiny question when `ask`.
fn model(ui: &mut Ui, ws: &Workspace, ask: bool) -> Result<Model, CommandError> {
    let var = |name: &str| std::env::var(name).ok();
    if !op::model_chosen(&ws.config, var) {
        return Ok(Model::Unset);
    }
    let settings = match Settings::resolve(&ws.config, var) {
        Ok(s) => s,
        Err(e) => {
            return Ok(Model::Failed {
                describe: "the configured provider".into(),
                error: e.to_string(),
            })
        }
    };
    let describe = |d: &Describe| format!("{} {} at {}", d.provider, d.model, d.endpoint);
    if !ask {
        let provider = git_skill::llm::provider(&settings);
        return Ok(Model::NotAsked {
            describe: describe(provider.describe()),
        });
    }
    let mut shown = String::new();
    let mut asked = Ok(());
    let ping = git_skill::ops::llm::ping(&settings, |d| {
        shown = describe(d);
        asked = ui.status(&format!("asking {d}…"));
    });
    asked?;
    Ok(match ping {
        Ok(p) => Model::Answered {
            describe: shown,
            latency_ms: p.latency_ms,
        },
        Err(e) => Model::Failed {
            describe: shown,
            error: e.to_string(),
        },
    })
}
