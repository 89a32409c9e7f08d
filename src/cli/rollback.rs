use std::io::Write as _;

use git_skill::optimize::history;

use super::output::Format;
use git_skill::skill::layout;

use super::skill_arg::{self, Allow};
use super::{CommandError, Outcome, ResultExt as _, Ui, Workspace};

/// Undo the newest optimization of a skill: revert its `optimize(skill):` commit.
///
/// Only the SKILL.md change is reverted; the audit commit (the archived signals and
/// optimization.json) stays, so `git skill log` still shows the optimization, marked rolled
/// back. The revert is a tree edit when SKILL.md has not changed since, a three-way tree merge
/// through gix when it has; a merge that conflicts goes to `git revert`, and a conflict there
/// is reported with nothing changed.
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
    let (skill, _) = skill_arg::resolve(&ws, ui, &args.skill, Allow::Live)?;
    let rel = repo.relative(&skill.dir).ok_or_else(|| {
        CommandError::new(format!(
            "'{}' is not inside the repository",
            skill.dir.display()
        ))
    })?;
    let ignore = format!("{}/", layout::rel(&rel, layout::DIR));
    let dirty = repo.dirty_paths(&rel, &[ignore.as_str()])?;
    if !dirty.is_empty() {
        return Err(CommandError::new(format!(
            "{} has uncommitted changes: {}",
            skill.dir_name,
            dirty.join(", ")
        ))
        .hint("commit or stash them first; a rollback must not mix with work in progress"));
    }
    let optimizations = history::optimizations(repo, &rel)?;
    let Some(target) = optimizations.iter().find(|o| o.reverted_by.is_none()) else {
        let why = if optimizations.is_empty() {
            format!("no optimize(skill) commit touched {rel}/SKILL.md")
        } else {
            "every optimization of it is rolled back already".to_owned()
        };
        return Err(CommandError::new(format!(
            "nothing to roll back for {}: {why}",
            skill.dir_name
        ))
        .hint(format!("see its history: git skill log {}", skill.dir_name)));
    };
    let commit = gix_id(&target.commit)?;
    let outcome = repo
        .revert_path_commit(commit, &format!("{rel}/SKILL.md"))
        .hint("nothing was changed; resolve by hand with git revert, then commit")?;
    let new = outcome.commit.to_string();
    let via = match outcome.method {
        git_skill::git::RevertMethod::TreeEdit => "tree-edit",
        git_skill::git::RevertMethod::TreeMerge => "tree-merge",
        git_skill::git::RevertMethod::GitRevert => "git-revert",
    };
    match args.format {
        Format::Json => {
            super::output::json(
                ui,
                serde_json::json!({ "skill": skill.dir_name,
                    "reverted": target.commit,
                    "optimization_id": target.optimization_id,
                    "commit": new,
                    "via": via }),
            )?;
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
        }
    }
    ui.status("the audit commit stays; git skill log shows the optimization as rolled back")?;
    Ok(Outcome::Clean)
}

fn gix_id(hex: &str) -> Result<gix::ObjectId, CommandError> {
    gix::ObjectId::from_hex(hex.as_bytes())
        .map_err(|e| CommandError::new(format!("bad commit id {hex}: {e}")))
}
