use std::io::Write as _;

use git_skill::ops::rollback as op;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};
use git_skill::env::Allow;

/// Undo the newest optimization of a skill: revert its `optimize(skill):` commit, and put the
/// signals it resolved back in the pending store, in the same commit.
///
/// The problem those signals describe is back, so they count as pending again for
/// `git skill signals`, the dashboard and the next optimize (`git skill signals <skill>` shows
/// them as returned by the rollback). The audit commit stays, so `git skill log` still shows
/// the optimization, marked rolled back. The revert is a tree edit when SKILL.md has not
/// changed since, a three-way tree merge through gix when it has; a merge that conflicts goes
/// to `git revert` (then the index must be as HEAD has it), and a conflict there is reported
/// with nothing changed. Refused while an optimize of the skill runs.
///
/// Only an optimization git-skill made is reverted: its record must be committed in the
/// skill's `.skillopt/resolved/` folder with the hashes of SKILL.md before and after, and the
/// commit must change nothing else. A commit made by hand with an `optimize(skill):` subject is
/// refused (revert it with `git revert`, which runs your hooks). The skill as the revert leaves
/// it passes the pre-commit hook's gate (SkillGuard at `skill.failOn`, the policy, lint): a
/// revert that would bring back something dangerous is refused with nothing changed.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill rollback pdf\n  git skill rollback .claude/skills/pdf --format json"
)]
pub struct RollbackArgs {
    /// The skill, by name or directory.
    pub skill: String,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_rollback(ui: &mut Ui, args: RollbackArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    ws.require_repo("rollback")?;
    let (skill, _) = ws.resolve_skill(&args.skill, Allow::Live)?;
    let done = op::rollback(&ws, &skill)?;
    match args.format {
        Format::Json => super::output::json(ui, &done)?,
        Format::Text => text(ui, &done)?,
    }
    ui.status("the audit commit stays; git skill log shows the optimization as rolled back")?;
    Ok(Outcome::Clean)
}

fn text(ui: &mut Ui, done: &op::RolledBack) -> std::io::Result<()> {
    writeln!(
        ui.out,
        "reverted {} {}\n   with {} Revert \"{}\"",
        &done.reverted[..7],
        done.subject,
        &done.commit[..7],
        done.subject
    )?;
    match done.returned.len() {
        0 => writeln!(ui.out, "its signals are pending already")?,
        n => writeln!(
            ui.out,
            "{} back in pending, in the same commit: git skill signals {}",
            git_skill::report::plural(n, "signal"),
            done.skill
        )?,
    }
    if done.returned_older_than_window > 0 {
        writeln!(
            ui.out,
            "{} of them older than {} days, which optimize leaves out by default: git skill optimize {} --days N takes them",
            done.returned_older_than_window,
            git_skill::signal::select::DEFAULT_DAYS,
            done.skill
        )?;
    }
    Ok(())
}
