//! How commands write their results: one format choice for all of them, and one JSON envelope
//! (`"version": 1` beside the command's own fields) so that every JSON output is versioned the
//! same way.

use std::io::Write as _;

use super::{CommandError, Ui};

/// `--format` of every listing (`lint` and `scan` add SARIF and JUnit, see [`ReportFormat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// `--format` of the commands that report problems (`lint`, `scan`): the same four renderings
/// of one findings model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// JUnit XML, one test case per skill.
    Junit,
    /// GitHub Actions workflow commands: an annotation per finding, on its file and line.
    Github,
}

/// Writes `body`, a JSON object, with `"version": 1` added, then a newline, to stdout.
/// Secrets are masked value by value first, so that the terminal's masking (of text) finds
/// nothing left to cut across a string's quotes.
pub fn json(ui: &mut Ui, body: impl serde::Serialize) -> Result<(), CommandError> {
    let mut body = serde_json::to_value(body)?;
    git_skill::redact::redact_value(&mut body);
    if let serde_json::Value::Object(map) = &mut body {
        map.insert("version".into(), 1.into());
    }
    serde_json::to_writer(&mut ui.out, &body)?;
    writeln!(ui.out)?;
    Ok(())
}
