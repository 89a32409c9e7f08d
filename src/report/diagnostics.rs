//! Text and JSON renderings of lint diagnostics.

use std::io::{self, Write};

use super::style::Style;
use super::{escape, Diagnostic, Level};

/// Counts for the closing line and the JSON `summary` object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub skills: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Turned off by the configuration (shown in JSON only).
    pub off: usize,
}

impl Summary {
    pub fn of(skills: usize, diagnostics: &[Diagnostic]) -> Summary {
        let count = |level| diagnostics.iter().filter(|d| d.level == level).count();
        Summary {
            skills,
            errors: count(Level::Error),
            warnings: count(Level::Warning),
            off: count(Level::Off),
        }
    }
}

/// `path:line:col: error[SK003]: message` then an indented `hint:` line, like compilers do, so
/// editors can jump to the place.
pub fn render_text(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    style: Style,
) -> io::Result<()> {
    for d in diagnostics.iter().filter(|d| d.level != Level::Off) {
        let mut place = d.path.display().to_string();
        if let Some(line) = d.line {
            place.push_str(&format!(":{line}"));
            if let Some(col) = d.column {
                place.push_str(&format!(":{col}"));
            }
        }
        let level = match d.level {
            Level::Error => style.red(&format!("error[{}]", d.code)),
            Level::Warning | Level::Off => style.yellow(&format!("warning[{}]", d.code)),
        };
        writeln!(
            out,
            "{}: {level}: {}",
            style.bold(&escape(&place)),
            escape(&d.message)
        )?;
        if let Some(hint) = &d.hint {
            writeln!(out, "  {} {}", style.cyan("hint:"), escape(hint))?;
        }
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct JsonReport<'a> {
    version: u32,
    diagnostics: &'a [Diagnostic],
    summary: Summary,
}

/// `{"version":1,"diagnostics":[...],"summary":{...}}` on one line.
pub fn render_json(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    summary: Summary,
) -> io::Result<()> {
    let report = JsonReport {
        version: 1,
        diagnostics,
        summary,
    };
    serde_json::to_writer(&mut *out, &report)?;
    writeln!(out)
}
