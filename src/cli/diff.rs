use git_skill::drift::SkillDrift;
use git_skill::ops::diff as op;
use git_skill::report::escape;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Show capability drift: what each changed skill can do now that it could not before.
///
/// Compares --from-ref (default HEAD) with --to-ref (default: the staged state, the index).
/// Reported per skill: tools added to `allowed-tools` (and tools whose scope was removed, such
/// as `Bash` without a pattern), new hosts in URLs, new scripts and newly executable files, new
/// binary or support files, a description that now claims more, a skill newly marked
/// `source: auto-skill` or losing that mark.
///
/// Exit status: 0, or 1 with --fail-on-drift when some skill gained a capability; 2 on error.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill diff\n  git skill diff --from-ref origin/main --to-ref HEAD --format json\n  git skill diff --from-ref main --to-ref HEAD --fail-on-drift"
)]
pub struct DiffArgs {
    /// The revision before [default: HEAD].
    #[arg(long, value_name = "REV", default_value = "HEAD")]
    pub from_ref: String,

    /// The revision after [default: the staged state].
    #[arg(long, value_name = "REV")]
    pub to_ref: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Exit 1 when any skill gained a capability.
    #[arg(long)]
    pub fail_on_drift: bool,
}

/// `path: N new capabilities` then `  + kind: detail` lines.
pub fn render_text(out: &mut dyn std::io::Write, drifts: &[SkillDrift]) -> std::io::Result<()> {
    for d in drifts {
        let n = d.capabilities.len();
        let new = match (d.new_skill, d.context) {
            (false, _) => "",
            (true, None) => " (new skill)",
            (true, Some(_)) => " (new file)",
        };
        writeln!(
            out,
            "{}{new}: {n} new capabilit{}",
            escape(&d.path),
            if n == 1 { "y" } else { "ies" }
        )?;
        for c in &d.capabilities {
            writeln!(out, "  + {}: {}", c.kind, escape(&c.detail))?;
        }
    }
    Ok(())
}

pub fn cmd_diff(ui: &mut Ui, args: DiffArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let drift = op::diff(&ws, &args.from_ref, args.to_ref.as_deref())?;
    ws.report_notes(ui, &drift.notes)?;
    match args.format {
        Format::Json => super::output::json(ui, &drift)?,
        Format::Text => {
            render_text(&mut ui.out, &drift.skills)?;
            if !drift.any() {
                ui.status("no capability drift")?;
            }
        }
    }
    Ok(if args.fail_on_drift && drift.any() {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}
