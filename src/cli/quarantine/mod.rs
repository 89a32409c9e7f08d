mod list;
mod release;
mod show;

use std::io::Write as _;

use git_skill::ops::quarantine as op;

use super::output::Format;
use super::ui::safe;
use super::{CommandError, Outcome, Ui, Workspace};

/// See, release or drop what the agent hooks took out of agents' reach.
///
/// After every tool call of an agent set up by `git skill init`, the hook looks at what changed
/// where agents load skills, instructions and settings, however it was written (a shell
/// command, a script, an archive unpacked). A change that leaves a skill or a context file
/// dangerous is moved to $GIT_DIR/skill/quarantine/<agent>-<session>/ and what was there before
/// is put back (a new file is removed); the agent is told why. `list` shows what is held,
/// `show` one file (secrets masked), `release` puts it back where it was (and the hooks let
/// that content be from then on), `drop` deletes it. Without a subcommand, `list`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill quarantine
  git skill quarantine show claude-3f9c1a/1
  git skill quarantine release claude-3f9c1a/1
  git skill quarantine drop claude-3f9c1a/1")]
pub struct QuarantineArgs {
    #[command(subcommand)]
    pub action: Option<Action>,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// List the quarantined files, by session, oldest first.
    List {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Show a quarantined file: where it was, why, and its content (secrets masked).
    Show {
        /// The entry's id, as `list` shows it (`<agent>-<session>/<n>`).
        id: String,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Put a quarantined file back where it was; the agent hooks let that content be.
    Release {
        id: String,
        /// Overwrite what is at the path now, if it is not what the quarantine left there.
        #[arg(long)]
        force: bool,
    },
    /// Delete a quarantined file for good.
    Drop { id: String },
}

pub fn cmd_quarantine(ui: &mut Ui, args: QuarantineArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    match args.action.unwrap_or(Action::List {
        format: Format::Text,
    }) {
        Action::List { format } => list::run(ui, &ws, format),
        Action::Show { id, format } => show::run(ui, &ws, &id, format),
        Action::Release { id, force } => release::run(ui, &ws, &id, force),
        Action::Drop { id } => {
            let e = op::drop(&ws, &id)?;
            writeln!(ui.out, "dropped {} ({})", safe(&e.id), safe(&e.path))?;
            Ok(Outcome::Clean)
        }
    }
}
