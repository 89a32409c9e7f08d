//! One findings model for every report: a lint diagnostic and a guard finding are both a
//! [`Problem`] (code, level, where, message, hint, suppression), described by a [`RuleInfo`].
//! SARIF and JUnit render problems, whichever command found them, so `lint` and `scan` share
//! one rendering for code scanning and CI dashboards.

use std::path::Path;

use super::scan::SkillReport;
use super::{Diagnostic, Level};
use crate::guard::Severity;

/// How loud a problem is, on SARIF's scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loudness {
    Error,
    Warning,
    Note,
}

impl Loudness {
    pub fn as_str(self) -> &'static str {
        match self {
            Loudness::Error => "error",
            Loudness::Warning => "warning",
            Loudness::Note => "note",
        }
    }

    pub fn of_severity(s: Severity) -> Loudness {
        match s {
            Severity::Critical | Severity::High => Loudness::Error,
            Severity::Medium => Loudness::Warning,
            Severity::Low => Loudness::Note,
        }
    }

    pub fn of_level(l: Level) -> Loudness {
        match l {
            Level::Error => Loudness::Error,
            Level::Warning => Loudness::Warning,
            Level::Off => Loudness::Note,
        }
    }
}

/// Why a problem does not count, and who said so.
#[derive(Debug, Clone)]
pub struct Suppressed {
    /// In the file itself (an allow comment), or outside it (a policy, a baseline).
    pub in_source: bool,
    pub reason: String,
}

/// One problem at one place.
#[derive(Debug, Clone)]
pub struct Problem {
    pub code: String,
    pub loudness: Loudness,
    /// The file relative to the top of the repository, `/`-separated (a URI's path).
    pub file: String,
    /// 1-based; none for a problem about a whole skill.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    pub hint: Option<String>,
    pub suppressed: Option<Suppressed>,
    /// Stable across edits elsewhere, for code scanning to follow a problem.
    pub fingerprint: Option<String>,
    /// Further facts as `(name, value)`: a finding's severity, category, context, excerpt.
    pub properties: Vec<(&'static str, String)>,
}

/// What a code means, for the rule list of a SARIF run.
#[derive(Debug, Clone)]
pub struct RuleInfo {
    pub id: &'static str,
    pub summary: &'static str,
    pub explanation: &'static str,
    /// Shown as the help's title: `(category, severity)` or `(name, level)`.
    pub labels: [&'static str; 2],
    pub loudness: Loudness,
    /// GitHub's `security-severity`, for guard rules.
    pub security_severity: Option<&'static str>,
    pub tags: Vec<&'static str>,
}

fn join(dir: &str, file: &str) -> String {
    match (dir, file) {
        ("" | ".", f) => f.to_owned(),
        (d, "" | ".") => d.to_owned(),
        (d, f) => format!("{d}/{f}"),
    }
}

/// The findings of scanned skills.
pub fn from_scan(skills: &[SkillReport]) -> Vec<Problem> {
    let mut out = Vec::new();
    for skill in skills {
        for f in &skill.findings {
            out.push(Problem {
                code: f.rule.to_owned(),
                loudness: Loudness::of_severity(f.severity),
                file: join(&skill.repo_path, &f.file),
                line: (f.line > 0).then_some(f.line),
                column: (f.line > 0).then_some(f.column.max(1)),
                message: format!(
                    "{} (skill {}, verdict {})",
                    f.message,
                    skill.name,
                    skill.verdict.as_str()
                ),
                hint: None,
                suppressed: f.suppressed.as_ref().map(|s| Suppressed {
                    in_source: s.kind == "inline",
                    reason: s.reason.clone(),
                }),
                fingerprint: Some(f.fingerprint.clone()),
                properties: vec![
                    ("severity", f.severity.as_str().to_owned()),
                    ("category", f.category.as_str().to_owned()),
                    ("context", context(f.context)),
                    ("excerpt", f.excerpt.clone()),
                ],
            });
        }
    }
    out
}

/// Lint diagnostics; `relative` turns a diagnostic's path (as shown) into the path relative to
/// the top of the repository. A diagnostic a setting turned off is kept, suppressed with its
/// reason.
pub fn from_lint(diagnostics: &[Diagnostic], relative: &dyn Fn(&Path) -> String) -> Vec<Problem> {
    diagnostics
        .iter()
        .map(|d| Problem {
            code: d.code.to_owned(),
            loudness: Loudness::of_level(d.level),
            file: relative(&d.path),
            line: d.line,
            column: d.line.map(|_| d.column.unwrap_or(1)),
            message: d.message.clone(),
            hint: d.hint.clone(),
            suppressed: match (&d.setting, d.level) {
                (Some(s), Level::Off) => Some(Suppressed {
                    in_source: s.kind == "inline",
                    reason: s.reason.clone(),
                }),
                _ => None,
            },
            fingerprint: None,
            properties: d
                .setting
                .as_ref()
                .map(|s| vec![("level-set-by", s.kind.to_owned())])
                .unwrap_or_default(),
        })
        .collect()
}

/// A finding's context as its JSON spells it (`live`, `quoted`...).
fn context(c: crate::guard::Context) -> String {
    serde_json::to_value(c)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
