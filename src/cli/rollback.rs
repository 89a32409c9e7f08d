use std::io::Write as _;

use git_skill::optimize::rollback;

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
    let repo = ws.require_repo("rollback")?;
    let (skill, _) = ws.resolve_skill(&args.skill, Allow::Live)?;
    let rel = repo.relative(&skill.dir).ok_or_else(|| {
        CommandError::new(format!(
            "'{}' is not inside the repository",
            skill.dir.display()
        ))
    })?;
    let done = rollback::rollback(
        repo,
        &skill.dir,
        &rel,
        &skill.dir_name,
        git_skill::clock::now(),
    )?;
    let new = done.commit.to_string();
    let via = match done.method {
        git_skill::git::RevertMethod::TreeEdit => "tree-edit",
        git_skill::git::RevertMethod::TreeMerge => "tree-merge",
        git_skill::git::RevertMethod::GitRevert => "git-revert",
    };
    let target = &done.reverted;
    match args.format {
        Format::Json => {
            #[derive(serde::Serialize)]
            struct RolledBack<'a> {
                skill: &'a str,
                reverted: &'a str,
                optimization_id: &'a Option<String>,
                commit: &'a str,
                via: &'a str,
                returned: &'a [String],
                returned_older_than_window: usize,
            }
            let report = RolledBack {
                skill: &skill.dir_name,
                reverted: &target.commit,
                optimization_id: &target.optimization_id,
                commit: &new,
                via,
                returned: &done.returned,
                returned_older_than_window: done.returned_old,
            };
            super::output::json(ui, &report)?;
        }
        Format::Text => {
            writeln!(
                ui.out,
                "reverted {} {}\n   with {} Revert \"{}\"",
                &target.commit[..7],
                target.subject,
                &new[..7],
                target.subject
            )?;
            match done.returned.len() {
                0 if done.no_record => writeln!(
                    ui.out,
                    "no record of the optimization's signals was found: none returned to pending"
                )?,
                0 => writeln!(ui.out, "its signals are pending already")?,
                n => writeln!(
                    ui.out,
                    "{} back in pending, in the same commit: git skill signals {}",
                    git_skill::report::plural(n, "signal"),
                    skill.dir_name
                )?,
            }
            if done.returned_old > 0 {
                writeln!(
                    ui.out,
                    "{} of them older than {} days, which optimize leaves out by default: git skill optimize {} --days N takes them",
                    done.returned_old,
                    git_skill::signal::select::DEFAULT_DAYS,
                    skill.dir_name
                )?;
            }
        }
    }
    ui.status("the audit commit stays; git skill log shows the optimization as rolled back")?;
    Ok(Outcome::Clean)
}
