//! The library's [`Env`] for a command: loaded from this process (its directory and
//! environment), its warnings shown, and what a walk passed over rendered.

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;

use anyhow::Context as _;
use git_skill::env::Env;
use git_skill::skill::{Discovery, Note};

use super::{CommandError, Ui};

pub struct Workspace(Env);

impl Deref for Workspace {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.0
    }
}

impl DerefMut for Workspace {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.0
    }
}

impl Workspace {
    /// The environment of this process; warnings about it (unknown keys, a repository owned
    /// by someone else) go to stderr.
    pub fn load(ui: &mut Ui) -> Result<Workspace, CommandError> {
        let cwd = std::env::current_dir().context("could not read the current directory")?;
        let loaded = Env::load(cwd, std::env::vars_os())?;
        for warning in &loaded.warnings {
            ui.warn(warning)?;
        }
        Ok(Workspace(loaded.env))
    }

    /// The skills named by `paths`, or every skill of the roots when `paths` is empty.
    /// A path that cannot be read is reported and skipped (the run then exits 2). `command`
    /// (`lint`, `scan`...) is the subcommand the hints name.
    pub fn skills(
        &self,
        ui: &mut Ui,
        paths: &[PathBuf],
        command: &str,
    ) -> Result<Discovery, CommandError> {
        let named = self.0.skills(paths, command)?;
        for e in named.errors {
            ui.error(&CommandError::from(e))?;
        }
        let found = named.found;
        self.report_notes(ui, &found.notes)?;
        Ok(found)
    }

    /// Shows what a walk for skills passed over, in order.
    pub fn report_skipped(
        &self,
        ui: &mut Ui,
        skipped: Vec<git_skill::ops::Skipped>,
    ) -> Result<(), CommandError> {
        use git_skill::ops::Skipped;
        for s in skipped {
            match s {
                Skipped::Note(note) => self.report_notes(ui, std::slice::from_ref(&note))?,
                Skipped::Path(e) => ui.error(&CommandError::from(e))?,
                Skipped::Unreadable(e) => ui.error(&CommandError::from(e))?,
            }
        }
        Ok(())
    }

    /// Shows what a walk or a git check passed over: errors (the run then exits 2) and
    /// warnings, each with its hint.
    pub fn report_notes(&self, ui: &mut Ui, notes: &[Note]) -> Result<(), CommandError> {
        for note in notes {
            let message = note.render(|p| self.display(p));
            if note.is_error() {
                let mut error = CommandError::new(message);
                if let Some(hint) = note.hint() {
                    error = error.hint(hint);
                }
                ui.error(&error)?;
            } else {
                let hint = note.hint().map(|h| format!(" ({h})")).unwrap_or_default();
                ui.warn(&format!("{message}{hint}"))?;
            }
        }
        Ok(())
    }
}
