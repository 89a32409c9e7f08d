//! Where output goes: data to stdout, status to stderr, colour only on terminals.

use std::io::{self, IsTerminal, Write};

use git_skill::report::style::Style;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

pub struct Ui {
    pub out: Box<dyn Write>,
    pub err: Box<dyn Write>,
    pub out_style: Style,
    pub err_style: Style,
    pub quiet: bool,
    /// Set when something went wrong that did not stop the run (ripgrep's rule).
    pub had_error: bool,
}

impl Ui {
    pub fn new(color: ColorChoice, quiet: bool) -> Ui {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let enabled = |tty: bool| match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty && !no_color,
        };
        Ui {
            // Every byte for the terminal passes the redaction, whatever wrote it.
            out: Box::new(git_skill::redact::Writer::new(io::BufWriter::new(
                io::stdout(),
            ))),
            err: Box::new(git_skill::redact::Writer::new(io::stderr())),
            out_style: Style {
                enabled: enabled(io::stdout().is_terminal()),
            },
            err_style: Style {
                enabled: enabled(io::stderr().is_terminal()),
            },
            quiet,
            had_error: false,
        }
    }

    /// Status for people; `--quiet` silences it.
    pub fn status(&mut self, message: &str) -> io::Result<()> {
        if self.quiet {
            return Ok(());
        }
        writeln!(self.err, "{}", safe(message))
    }

    pub fn warn(&mut self, message: &str) -> io::Result<()> {
        let message = safe(message);
        writeln!(self.err, "{} {message}", self.err_style.yellow("warning:"))
    }

    /// An error that does not stop the run but makes it exit 2.
    pub fn error(&mut self, error: &super::error::CommandError) -> io::Result<()> {
        self.had_error = true;
        error.render(&mut *self.err, self.err_style)
    }
}

/// A text of many lines (a diff), each line made safe for the terminal (its line ends kept).
/// Secrets are masked in the whole text first: a key's body lines mean nothing alone.
pub fn write_lines(out: &mut dyn std::io::Write, text: &str) -> std::io::Result<()> {
    let masked = git_skill::redact::redact(text);
    for line in masked.lines() {
        writeln!(out, "{}", git_skill::report::escape(line))?;
    }
    Ok(())
}

pub use git_skill::report::safe;
