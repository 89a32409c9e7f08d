//! One message model for everything git-skill reports, and renderers that write it out.
//! Renderers take a writer; the library never prints on its own.

mod diagnostics;
pub mod scan;
pub mod style;

pub use diagnostics::{render_json, render_text, Summary};

use std::path::PathBuf;

/// How bad a lint diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// One problem at one place.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    pub level: Level,
    /// The file (or skill directory) as the user should see it.
    pub path: PathBuf,
    /// 1-based, when known.
    pub line: Option<usize>,
    /// 1-based, in characters, when known.
    pub column: Option<usize>,
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}
