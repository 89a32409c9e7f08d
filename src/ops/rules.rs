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

/// `docs/rules.md`: every SkillGuard rule and every lint code, from the registries, so that
/// the reference never disagrees with the binary (a test compares the file with this).
pub fn markdown() -> String {
    let rules = list().rules;
    let codes = crate::skill::codes::CODES;
    let mut out = String::from("# Rules\n\n");
    out.push_str(&format!(
        "Generated from the registries by `cargo test --lib docs_rules` (`GIT_SKILL_BLESS=1` rewrites it): {} SkillGuard rules and {} lint codes. `git skill rules explain ID` and `git skill lint --explain CODE` print the same explanations.\n\n",
        rules.len(),
        codes.len()
    ));
    out.push_str("## SkillGuard rules\n\n");
    out.push_str("Severity: `critical` makes a skill `dangerous`, `high` makes it `caution` (the severity that counts can be lower when a match is a quoted example, a scanner's test fixture, security guidance or documentation; `scan --strict` weighs every finding at its rule's severity).\n\n");
    out.push_str(
        "| id | category | severity | how it matches | finding |\n|---|---|---|---|---|\n",
    );
    for r in &rules {
        out.push_str(&format!(
            "| [{}](#{}) | {} | {} | {} | {} |\n",
            r.id,
            r.id.to_lowercase(),
            r.category,
            r.severity,
            r.kind,
            cell(r.message)
        ));
    }
    out.push('\n');
    for r in &rules {
        out.push_str(&format!(
            "### {}\n\n{} ({}, {}).\n\n{}\n\n",
            r.id,
            r.message.trim_end_matches('.'),
            r.category,
            r.severity,
            r.explanation.trim()
        ));
    }
    out.push_str("## Lint codes\n\n| code | name | level | problem |\n|---|---|---|---|\n");
    for c in codes {
        out.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            c.code,
            c.name,
            c.level.as_str(),
            cell(c.summary)
        ));
    }
    out
}

/// Text in a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    /// `docs/rules.md` is what [`super::markdown`] makes of the registries;
    /// `GIT_SKILL_BLESS=1 cargo test --lib docs_rules` writes it again.
    #[test]
    fn docs_rules_md_is_the_registry() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
        let want = super::markdown();
        if std::env::var_os("GIT_SKILL_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/rules.md is not the registry's: GIT_SKILL_BLESS=1 cargo test --lib docs_rules"
        );
    }
}
