//! The one error type at the edge: `error:` / `caused by:` / `hint:` lines and an exit code.

use std::io::{self, Write};

/// Exit codes, as documented in the README.
pub const EXIT_FAILURE: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

#[derive(Debug)]
pub struct CommandError {
    pub error: anyhow::Error,
    pub hints: Vec<String>,
}

impl CommandError {
    pub fn new(message: impl std::fmt::Display) -> Self {
        CommandError {
            error: anyhow::anyhow!("{message}"),
            hints: Vec::new(),
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// A closed pipe (`git skill list | head -1`) is the reader's choice, not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.error.chain().any(|e| {
            let io_kind = e.downcast_ref::<io::Error>().map(io::Error::kind);
            // serde_json keeps the io::Error inside without exposing it as a source.
            let json_kind = e
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind);
            io_kind.or(json_kind) == Some(io::ErrorKind::BrokenPipe)
        })
    }

    pub fn render(
        &self,
        err: &mut dyn Write,
        style: git_skill::report::style::Style,
    ) -> io::Result<()> {
        let escape = super::ui::safe;
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

impl<E: Into<anyhow::Error>> From<E> for CommandError {
    fn from(error: E) -> Self {
        CommandError {
            error: error.into(),
            hints: Vec::new(),
        }
    }
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
