//! One message model for everything git-skill reports, and renderers that write it out.
//! Renderers take a writer; the library never prints on its own.

mod diagnostics;
pub mod sarif;
pub mod scan;
pub mod style;
pub mod text;

pub use diagnostics::{render_json, render_text, Summary};
pub use text::{one_line, plural};

use std::borrow::Cow;
use std::path::PathBuf;

/// Control characters written as `\u{..}`, so that a file named with a newline or an ANSI
/// escape cannot forge lines in a terminal or a CI log.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if c.is_control() {
                    format!("\\u{{{:x}}}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

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

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_control_characters() {
        assert_eq!(super::escape("a\nb\x1b[31m"), "a\\u{a}b\\u{1b}[31m");
        assert!(matches!(
            super::escape("plain ü"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
