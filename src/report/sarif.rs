//! SARIF 2.1.0 for code scanning (GitHub accepts it as uploaded by `upload-sarif`): every rule
//! with its description (and, for guard rules, `security-severity`), results with
//! repository-relative URIs, `partialFingerprints` where a problem has one, and suppressions
//! kept visible. Lint and scan reports both come through [`render`].

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use super::problem::{self, Problem, RuleInfo};
use super::scan::SkillReport;

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

/// A path as a URI reference: percent-encoded where a URI cannot carry it as is.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
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

fn rule_object(r: &RuleInfo) -> Value {
    let mut properties = Map::new();
    if let Some(s) = r.security_severity {
        properties.insert("security-severity".into(), s.into());
    }
    properties.insert("tags".into(), json!(r.tags));
    properties.insert("precision".into(), "high".into());
    json!({
        "id": r.id,
        "name": pascal_name(r.summary),
        "shortDescription": { "text": r.summary },
        "fullDescription": { "text": r.explanation },
        "help": { "text": r.explanation, "markdown": format!("**{}** ({}, {})\n\n{}", r.id, r.labels[0], r.labels[1], r.explanation) },
        "defaultConfiguration": { "level": r.loudness.as_str() },
        "properties": properties,
    })
}

fn result_object(p: &Problem, rules: &[RuleInfo]) -> Value {
    let index = rules.iter().position(|r| r.id == p.code).unwrap_or(0);
    let mut physical = json!({
        "artifactLocation": { "uri": uri(&p.file), "uriBaseId": "%SRCROOT%" },
    });
    if let Some(line) = p.line {
        physical["region"] = json!({ "startLine": line, "startColumn": p.column.unwrap_or(1) });
    }
    let mut result = json!({
        "ruleId": p.code,
        "ruleIndex": index,
        "level": p.loudness.as_str(),
        "message": { "text": match &p.hint {
            Some(hint) => format!("{} ({hint})", p.message),
            None => p.message.clone(),
        } },
        "locations": [{ "physicalLocation": physical }],
    });
    if let Some(fingerprint) = &p.fingerprint {
        result["partialFingerprints"] = json!({ "skillguard/v2": fingerprint });
    }
    if !p.properties.is_empty() {
        let properties: Map<String, Value> = p
            .properties
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone().into()))
            .collect();
        result["properties"] = properties.into();
    }
    if let Some(s) = &p.suppressed {
        result["suppressions"] = json!([{
            "kind": if s.in_source { "inSource" } else { "external" },
            "justification": s.reason,
        }]);
    }
    result
}

/// One SARIF run of `problems`, with `rules` as the driver's rule list.
pub fn render(out: &mut dyn Write, rules: &[RuleInfo], problems: &[Problem]) -> io::Result<()> {
    let rule_objects: Vec<Value> = rules.iter().map(rule_object).collect();
    let results: Vec<Value> = problems.iter().map(|p| result_object(p, rules)).collect();
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

/// A scan's findings, with every guard rule.
pub fn render_sarif(out: &mut dyn Write, skills: &[SkillReport]) -> io::Result<()> {
    render(
        out,
        &crate::guard::rules::infos(),
        &problem::from_scan(skills),
    )
}
