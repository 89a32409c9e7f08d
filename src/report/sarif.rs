//! SARIF 2.1.0 for code scanning (GitHub accepts it as uploaded by `upload-sarif`): every rule
//! with its description and `security-severity`, results with repository-relative URIs,
//! `partialFingerprints`, and suppressions kept visible.

use std::io::{self, Write};

use serde_json::{json, Value};

use super::scan::SkillReport;
use crate::guard::{rules, Severity};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
    }
}

/// GitHub's scale: over 9 critical, 7 to 8.9 high, 4 to 6.9 medium, under 4 low.
fn security_severity(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "2.0",
    }
}

/// SARIF wants a rule's friendly name as one Pascal-case identifier: the message's words.
fn pascal_name(message: &str) -> String {
    message
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(8)
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn uri(dir: &str, file: &str) -> String {
    let joined = match (dir, file) {
        ("" | ".", f) => f.to_owned(),
        (d, "" | ".") => d.to_owned(),
        (d, f) => format!("{d}/{f}"),
    };
    // Percent-encode what a URI reference cannot carry as is.
    let mut out = String::with_capacity(joined.len());
    for b in joined.bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'/'
            | b'@'
            | b'+'
            | b'='
            | b','
            | b'!'
            | b'('
            | b')' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub fn render_sarif(out: &mut dyn Write, skills: &[SkillReport]) -> io::Result<()> {
    let all = rules::all();
    let rule_objects: Vec<Value> = all
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": pascal_name(r.message),
                "shortDescription": { "text": r.message },
                "fullDescription": { "text": r.explanation },
                "help": { "text": r.explanation, "markdown": format!("**{}** ({}, {})\n\n{}", r.id, r.category.as_str(), r.severity, r.explanation) },
                "defaultConfiguration": { "level": level(r.severity) },
                "properties": {
                    "security-severity": security_severity(r.severity),
                    "tags": ["security", r.category.as_str()],
                    "precision": "high",
                },
            })
        })
        .collect();
    let mut results = Vec::new();
    for skill in skills {
        for f in &skill.findings {
            let index = all.iter().position(|r| r.id == f.rule).unwrap_or(0);
            let mut physical = json!({
                "artifactLocation": { "uri": uri(&skill.repo_path, &f.file), "uriBaseId": "%SRCROOT%" },
            });
            if f.line > 0 {
                physical["region"] = json!({ "startLine": f.line, "startColumn": f.column.max(1) });
            }
            let mut result = json!({
                "ruleId": f.rule,
                "ruleIndex": index,
                "level": level(f.severity),
                "message": { "text": format!("{} (skill {}, verdict {})", f.message, skill.name, skill.verdict.as_str()) },
                "locations": [{ "physicalLocation": physical }],
                "partialFingerprints": { "skillguard/v1": f.fingerprint },
                "properties": {
                    "severity": f.severity.as_str(),
                    "category": f.category.as_str(),
                    "context": f.context,
                    "excerpt": f.excerpt,
                },
            });
            if let Some(s) = &f.suppressed {
                result["suppressions"] = json!([{
                    "kind": if s.kind == "inline" { "inSource" } else { "external" },
                    "justification": s.reason,
                }]);
            }
            results.push(result);
        }
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "git-skill",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rule_objects,
                }
            },
            "originalUriBaseIds": { "%SRCROOT%": { "description": { "text": "The top of the repository's work tree." } } },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    serde_json::to_writer(&mut *out, &doc)?;
    writeln!(out)
}
