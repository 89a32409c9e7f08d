use std::io::Write as _;

use git_skill::ops::quarantine as op;

use crate::cli::output::Format;
use crate::cli::ui::safe;
use crate::cli::{CommandError, Outcome, Ui, Workspace};

pub fn run(ui: &mut Ui, ws: &Workspace, format: Format) -> Result<Outcome, CommandError> {
    let listing = op::list(ws)?;
    if format == Format::Json {
        crate::cli::output::json(ui, &listing)?;
        return Ok(Outcome::Clean);
    }
    if listing.entries.is_empty() {
        ui.status("nothing in quarantine")?;
    }
    for e in &listing.entries {
        let action = if e.action == "restored" {
            "previous content put back"
        } else {
            "removed"
        };
        writeln!(
            ui.out,
            "{}  {}  {}  {action}\n    {}",
            safe(&e.id),
            safe(&e.at),
            safe(&e.shown()),
            safe(&e.reason)
        )?;
    }
    Ok(Outcome::Clean)
}
