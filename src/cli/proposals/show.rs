//! `proposals show`: a proposal's message and its diff.

use std::io::Write as _;

use git_skill::ops::proposals as op;

use crate::cli::output::Format;
use crate::cli::ui::safe;
use crate::cli::{CommandError, Outcome, Ui, Workspace};

pub fn run(ui: &mut Ui, ws: &Workspace, id: &str, format: Format) -> Result<Outcome, CommandError> {
    let shown = op::show(ws, id)?;
    if format == Format::Json {
        crate::cli::output::json(ui, &shown)?;
        return Ok(Outcome::Clean);
    }
    let p = &shown.proposal;
    writeln!(ui.out, "proposal {} (commit {})", p.id, p.commit)?;
    if p.head_moved {
        writeln!(
            ui.out,
            "HEAD moved since the review (its base was {}); accept merges it onto the work tree",
            &p.base[..12.min(p.base.len())]
        )?;
    }
    writeln!(ui.out)?;
    for line in shown.message.lines() {
        writeln!(ui.out, "    {}", safe(line))?;
    }
    writeln!(ui.out)?;
    crate::cli::ui::write_lines(&mut ui.out, &shown.diff)?;
    Ok(Outcome::Clean)
}
