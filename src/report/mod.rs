//! One message model for everything git-skill reports, and renderers that write it out.
//! Renderers take a writer; the library never prints on its own.

mod diagnostics;
pub mod github;
pub mod junit;
pub mod problem;
pub mod sarif;
pub mod scan;
pub mod style;
pub mod text;

pub use diagnostics::{render_json, render_text, Summary};
pub use text::{one_line, plural};

use std::borrow::Cow;
use std::path::PathBuf;

/// A message as it may be shown: secrets masked, control characters escaped. Messages quote
/// paths, store lines and server answers, any of which may hold either.
pub fn safe(message: &str) -> String {
    escape(&crate::redact::redact(message)).into_owned()
}

/// Control characters and invisible format characters (zero-width, bidi controls, Unicode
/// tags) written as `\u{..}`, so that a file named with a newline or an ANSI escape cannot
/// forge lines in a terminal or a CI log, and an excerpt of hidden text shows what is hidden.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unprintable) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if unprintable(c) {
                    format!("\\u{{{:x}}}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// Whether `c` is shown escaped: a control character, or one that renders as nothing and
/// changes what text means (zero-width, soft hyphen, bidi controls, Unicode tags).
fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}'
            | '\u{E0000}'..='\u{E007F}')
}

/// How bad a lint diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Turned off by the repository's lint configuration or an inline allow: kept in JSON
    /// with its reason, not printed, never counted.
    Off,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// `error`, `warning` or `off`, as the lint configuration spells them.
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "off" => Some(Level::Off),
            "warning" => Some(Level::Warning),
            "error" => Some(Level::Error),
            _ => None,
        }
    }
}

/// Where a diagnostic's level was set other than by git-skill's defaults.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Setting {
    /// `policy` (the `lint:` section of `.skillguard.yaml`) or `inline` (a
    /// `git-skill:allow-lint` comment in SKILL.md).
    pub kind: &'static str,
    pub reason: String,
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
    /// Set when the configuration changed the level.
    pub setting: Option<Setting>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_control_characters() {
        assert_eq!(super::escape("a\nb\x1b[31m"), "a\\u{a}b\\u{1b}[31m");
        assert_eq!(super::escape("ig\u{200B}nore"), "ig\\u{200b}nore");
        assert!(matches!(
            super::escape("plain ü"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
