//! `proposals accept`: a proposal applied to the work tree and the index, or refused (exit 1,
//! nothing changed) for what it holds.

use std::io::Write as _;

use git_skill::ops::proposals as op;
use git_skill::review::proposals::ProposalError;

use crate::cli::output::Format;
use crate::cli::ui::safe;
use crate::cli::{CommandError, Outcome, Ui, Workspace};

pub fn run(
    ui: &mut Ui,
    ws: &Workspace,
    id: &str,
    commit: bool,
    format: Format,
) -> Result<Outcome, CommandError> {
    let options = op::AcceptOptions {
        commit,
        fail_on: ws.config.fail_on()?,
        today: git_skill::clock::today(),
    };
    let report = op::accept(ws, id, &options)?;
    let outcome = match report.ok {
        true => Outcome::Clean,
        false => Outcome::Problems,
    };
    if format == Format::Json {
        crate::cli::output::json(ui, &report)?;
        return Ok(outcome);
    }
    if let Some(e) = &report.refused {
        for line in e.to_string().lines() {
            writeln!(ui.out, "refused: {}", safe(line))?;
        }
        if matches!(e, ProposalError::Conflict { .. }) {
            writeln!(ui.out, "  commit or stash your edits of those files, then accept again; or see it with git skill proposals show {}", report.id)?;
        }
        return Ok(outcome);
    }
    let Some(a) = &report.accepted else {
        return Ok(outcome);
    };
    match &a.commit {
        Some(c) => writeln!(
            ui.out,
            "accepted {} and committed it as {}",
            a.id,
            &c[..12.min(c.len())]
        )?,
        None => writeln!(
            ui.out,
            "accepted {}: staged {} (commit when ready; the pre-commit hook checks it)",
            a.id,
            safe(&a.files.join(", "))
        )?,
    }
    for (dir, verdict) in &a.verdicts {
        writeln!(ui.out, "  {}: {verdict}", safe(dir))?;
    }
    Ok(outcome)
}
