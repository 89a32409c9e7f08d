//! The one error type at the edge: `error:` / `caused by:` / `hint:` lines and an exit code.
//!
//! Every library error reaches it through its own `From` impl (in `hints.rs`), which classifies
//! it and attaches what to do about it, so command bodies are straight-line `?`. There is no
//! blanket conversion: an error type without an impl does not compile.

use std::io::{self, Write};

/// Exit codes, as documented in docs/configuration.md.
pub const EXIT_FAILURE: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

/// What went wrong, broadly: it decides nothing of the message, only how the run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Something the user asked for or has in the repository: a path, a state, an argument.
    User,
    /// The configuration (git config, environment, a policy file) is wrong.
    Config,
    /// git-skill or the system failed: an I/O error, a bug.
    Internal,
    /// The reader of the output went away (`git skill list | head -1`): not a failure.
    BrokenPipe,
}

#[derive(Debug)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub error: anyhow::Error,
    pub hints: Vec<String>,
}

impl CommandError {
    /// A user error with this message.
    pub fn new(message: impl std::fmt::Display) -> Self {
        CommandError::with(ErrorKind::User, anyhow::anyhow!("{message}"))
    }

    /// An error of `kind` wrapping a library error (its sources become `caused by:` lines).
    pub fn with(kind: ErrorKind, error: impl Into<anyhow::Error>) -> Self {
        CommandError {
            kind,
            error: error.into(),
            hints: Vec::new(),
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// A closed pipe is the reader's choice, not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.kind == ErrorKind::BrokenPipe
    }

    pub fn render(
        &self,
        err: &mut dyn Write,
        style: git_skill::report::style::Style,
    ) -> io::Result<()> {
        let escape = git_skill::report::safe;
        writeln!(
            err,
            "{} {}",
            style.red("error:"),
            escape(&self.error.to_string())
        )?;
        for cause in self.error.chain().skip(1) {
            writeln!(
                err,
                "{} {}",
                style.bold("caused by:"),
                escape(&cause.to_string())
            )?;
        }
        for hint in &self.hints {
            writeln!(err, "{} {}", style.cyan("hint:"), escape(hint))?;
        }
        Ok(())
    }
}

/// Whether an error chain ends in a closed pipe.
pub(super) fn broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|e| {
        let io_kind = e.downcast_ref::<io::Error>().map(io::Error::kind);
        // serde_json keeps the io::Error inside without exposing it as a source.
        let json_kind = e
            .downcast_ref::<serde_json::Error>()
            .and_then(serde_json::Error::io_error_kind);
        io_kind.or(json_kind) == Some(io::ErrorKind::BrokenPipe)
    })
}

/// Adds a hint to any error on its way out.
pub trait ResultExt<T> {
    fn hint(self, hint: impl Into<String>) -> Result<T, CommandError>;
}

impl<T, E: Into<CommandError>> ResultExt<T> for Result<T, E> {
    fn hint(self, hint: impl Into<String>) -> Result<T, CommandError> {
        self.map_err(|e| e.into().hint(hint))
    }
}
