use std::io::Write as _;

use git_skill::ops::quarantine as op;

use crate::cli::output::Format;
use crate::cli::ui::safe;
use crate::cli::{CommandError, Outcome, Ui, Workspace};

pub fn run(ui: &mut Ui, ws: &Workspace, id: &str, format: Format) -> Result<Outcome, CommandError> {
    let shown = op::show(ws, id)?;
    if format == Format::Json {
        crate::cli::output::json(ui, &shown)?;
        return Ok(Outcome::Clean);
    }
    let e = &shown.entry;
    writeln!(ui.out, "id:      {}", safe(&e.id))?;
    writeln!(ui.out, "path:    {}", safe(&e.shown()))?;
    writeln!(
        ui.out,
        "agent:   {} (session {})",
        safe(&e.agent),
        safe(&e.session)
    )?;
    writeln!(ui.out, "at:      {}", safe(&e.at))?;
    writeln!(ui.out, "why:     {}", safe(&e.reason))?;
    if let Some(target) = &e.link {
        writeln!(ui.out, "link to: {}", safe(target))?;
    }
    if e.too_large {
        writeln!(ui.out, "content: too large to keep; only its name was")?;
    }
    if shown.binary {
        writeln!(ui.out, "content: not UTF-8 text; not shown")?;
    }
    if let Some(text) = &shown.content {
        writeln!(ui.out, "---")?;
        // Control characters are shown escaped: the file is hostile data.
        for line in text.lines() {
            writeln!(ui.out, "{}", safe(line))?;
        }
        if shown.masked > 0 {
            ui.status(&format!(
                "{} masked (the quarantined file keeps them)",
                git_skill::report::plural(shown.masked, "secret")
            ))?;
        }
    }
    Ok(Outcome::Clean)
}
