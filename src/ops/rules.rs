//! `git skill rules`: SkillGuard's rule registry, as data.

use serde::Serialize;

use crate::guard::{rules, Matcher, Rule};

#[derive(Debug, Serialize)]
pub struct Rules {
    pub rules: Vec<Row>,
}

/// One rule.
#[derive(Debug, Serialize)]
pub struct Row {
    pub id: &'static str,
    pub category: &'static str,
    pub severity: &'static str,
    pub message: &'static str,
    pub explanation: &'static str,
    /// How it matches: `text`, `raw`, `structural` or `analysis`.
    pub kind: &'static str,
}

#[derive(Debug, thiserror::Error)]
#[error("unknown rule '{0}'")]
pub struct UnknownRule(pub String);

pub fn list() -> Rules {
    let rules = rules::all()
        .iter()
        .map(|r| Row {
            id: r.id,
            category: r.category.as_str(),
            severity: r.severity.as_str(),
            message: r.message,
            explanation: r.explanation,
            kind: match r.matcher {
                Matcher::Text(_) => "text",
                Matcher::Raw(_) => "raw",
                Matcher::Structural => "structural",
                Matcher::Analysis => "analysis",
            },
        })
        .collect();
    Rules { rules }
}

pub fn explain(id: &str) -> Result<&'static Rule, UnknownRule> {
    rules::find(id).ok_or_else(|| UnknownRule(id.to_owned()))
}
