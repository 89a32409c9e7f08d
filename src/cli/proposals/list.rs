//! `proposals list`: each proposal's id, date, summary, session, agent and skills.

use std::io::Write as _;

use git_skill::ops::proposals as op;

use crate::cli::output::Format;
use crate::cli::ui::safe;
use crate::cli::{CommandError, Outcome, Ui, Workspace};

pub fn run(ui: &mut Ui, ws: &Workspace, format: Format) -> Result<Outcome, CommandError> {
    let listing = op::list(ws)?;
    for why in &listing.skipped {
        ui.warn(&format!("skipped: {why}"))?;
    }
    if format == Format::Json {
        crate::cli::output::json(ui, &listing)?;
        return Ok(Outcome::Clean);
    }
    if listing.proposals.is_empty() {
        ui.status("no proposals")?;
    }
    for p in &listing.proposals {
        let skills: Vec<String> = p
            .facts
            .skills
            .iter()
            .map(|s| format!("{} {} ({})", s.change, s.path, s.verdict))
            .collect();
        let moved = if p.head_moved {
            "  [HEAD moved since]"
        } else {
            ""
        };
        writeln!(
            ui.out,
            "{}  {}  {}{moved}",
            p.id,
            p.date,
            safe(&p.facts.summary)
        )?;
        writeln!(
            ui.out,
            "    session {} ({}): {}",
            safe(&p.facts.session),
            safe(&p.facts.agent),
            safe(&skills.join("; "))
        )?;
    }
    Ok(Outcome::Clean)
}
