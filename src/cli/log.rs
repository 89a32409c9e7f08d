use std::io::Write as _;

use git_skill::ops::log as op;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};
use git_skill::env::Allow;

/// Show how a skill evolved: each optimization, newest first, with its date, mode, the
/// signals it resolved, the gate results (and the replay gate's eval pass rates, before and
/// after), its commit, and whether it was rolled back.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  git skill log pdf\n  git skill log pdf --format json")]
pub struct LogArgs {
    /// The skill, by name or directory.
    pub skill: String,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_log(ui: &mut Ui, args: LogArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    ws.require_repo("log")?;
    let (skill, _) = ws.resolve_skill(&args.skill, Allow::Deleted)?;
    let log = op::log(&ws, &skill)?;
    for p in &log.skipped {
        ui.warn(&format!("skipped an unreadable record: {p}"))?;
    }
    let rows = &log.optimizations;
    match args.format {
        Format::Json => {
            super::output::json(ui, &log)?;
        }
        Format::Text => {
            for r in rows {
                let gate = if r.gate_skipped {
                    "gate skipped (friction only)".to_owned()
                } else {
                    format!("gate {}/{}", r.gate_passed, r.gate_total)
                };
                let evals = r.evals.as_ref().map_or(String::new(), |e| {
                    format!(
                        ", evals {} -> {}{}",
                        e.before,
                        e.after,
                        if e.allowed {
                            " (regression allowed)"
                        } else {
                            ""
                        }
                    )
                });
                let commit = r.commit.as_deref().map_or("-", |c| &c[..c.len().min(7)]);
                let state = match &r.reverted_by {
                    Some(by) => format!("  ROLLED BACK by {}", &by[..by.len().min(7)]),
                    None => String::new(),
                };
                writeln!(
                    ui.out,
                    "{commit} {} {} {}, {}, {gate}{evals}{state}",
                    r.timestamp.get(..10).unwrap_or(&r.timestamp),
                    r.mode,
                    git_skill::report::plural(r.signals_resolved, "signal"),
                    git_skill::report::plural(r.clusters, "cluster"),
                )?;
                writeln!(ui.out, "    {}", super::ui::safe(&r.summary))?;
                if !r.eval_cases.is_empty() {
                    let ids: Vec<String> = r.eval_cases.iter().map(|c| c.to_string()).collect();
                    writeln!(
                        ui.out,
                        "    eval cases added from its signals: {}",
                        ids.join(", ")
                    )?;
                }
            }
            if rows.is_empty() {
                ui.status(&format!("{} has not been optimized yet", skill.dir_name))?;
            }
        }
    }
    Ok(Outcome::Clean)
}
