use std::io::Write as _;

use git_skill::ops::quarantine as op;

use crate::cli::ui::safe;
use crate::cli::{CommandError, Outcome, Ui, Workspace};

pub fn run(ui: &mut Ui, ws: &Workspace, id: &str, force: bool) -> Result<Outcome, CommandError> {
    let e = op::release(ws, id, force)?;
    writeln!(
        ui.out,
        "released {}: {} is back; the agent hooks let this content be (the pre-commit hook still checks it)",
        safe(&e.id),
        safe(&e.shown())
    )?;
    Ok(Outcome::Clean)
}
