mod accept;
mod list;
mod show;

use std::io::Write as _;

use git_skill::ops::proposals as op;

use super::output::Format;
use super::ui::safe;
use super::{CommandError, Outcome, Ui, Workspace};

/// See, accept or reject what the review agent proposed.
///
/// Each `git skill review` that saved something left a commit under refs/skill-proposals/<id>
/// whose parent is HEAD when the review started. `list` shows them (and whether HEAD moved
/// since), `show` the diff, `accept` applies one to the work tree and the index with a
/// three-way merge (your uncommitted edits are kept; a conflict refuses and changes nothing),
/// after checking the skills it touches as the pre-commit hook does; `--commit` also commits it
/// with the proposal's message. `reject` deletes it, `prune` deletes old ones. An id may be
/// shortened to any unique prefix. Without a subcommand, `list`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill proposals list
  git skill proposals show 20261202T101500Z-3fa9c1
  git skill proposals accept 20261202T1015 --commit
  git skill proposals prune --older-than 30d")]
pub struct ProposalsArgs {
    #[command(subcommand)]
    pub action: Option<Action>,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// List the proposals, oldest first.
    List {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Show a proposal: its message and its diff.
    Show {
        /// The proposal's id (or a unique prefix).
        id: String,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Apply a proposal to the work tree and the index.
    Accept {
        id: String,
        /// Also commit it on the current branch, with the proposal's message.
        #[arg(long)]
        commit: bool,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Delete a proposal.
    Reject { id: String },
    /// Delete proposals older than an age (12h, 7d, 2w) or a date.
    Prune {
        #[arg(long, value_name = "AGE", default_value = "30d")]
        older_than: String,
        /// Show what would be deleted.
        #[arg(long)]
        dry_run: bool,
    },
}

pub fn cmd_proposals(ui: &mut Ui, args: ProposalsArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let action = args.action.unwrap_or(Action::List {
        format: Format::Text,
    });
    match action {
        Action::List { format } => list::run(ui, &ws, format),
        Action::Show { id, format } => show::run(ui, &ws, &id, format),
        Action::Accept { id, commit, format } => accept::run(ui, &ws, &id, commit, format),
        Action::Reject { id } => {
            let p = op::reject(&ws, &id)?;
            writeln!(ui.out, "rejected {} ({})", p.id, safe(&p.facts.summary))?;
            Ok(Outcome::Clean)
        }
        Action::Prune {
            older_than,
            dry_run,
        } => {
            let pruned = op::prune(&ws, &older_than, git_skill::clock::now(), dry_run)?;
            for p in &pruned {
                let verb = if dry_run { "would prune" } else { "pruned" };
                writeln!(ui.out, "{verb} {} ({})", p.id, p.date)?;
            }
            if pruned.is_empty() {
                ui.status(&format!("no proposal older than {older_than}"))?;
            }
            Ok(Outcome::Clean)
        }
    }
}
