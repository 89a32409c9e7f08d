//! gitleaks' default rule set (`build/gitleaks/gitleaks.toml`, MIT, its notice beside it) as
//! static tables: `gitleaks_rules.rs`, included by `src/secrets/rules.rs`. The file is taken
//! as gitleaks publishes it (`build/gitleaks/VERSION` says which release); updating the rule set
//! is replacing the three files. Its regular expressions are Go's (RE2): the few constructs
//! Rust's `regex` reads otherwise are rewritten here, and a test compiles every one.

use std::fmt::Write as _;

pub const CONFIG: &str = "build/gitleaks/gitleaks.toml";
pub const VERSION: &str = "build/gitleaks/VERSION";

/// The generated Rust source.
pub fn tables() -> Result<String, String> {
    let text = std::fs::read_to_string(CONFIG).map_err(|e| format!("{CONFIG}: {e}"))?;
    let version = std::fs::read_to_string(VERSION).map_err(|e| format!("{VERSION}: {e}"))?;
    let tag = version
        .lines()
        .find_map(|l| l.strip_prefix("tag "))
        .ok_or(format!("{VERSION}: no `tag` line"))?
        .trim()
        .to_owned();
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("{CONFIG}: {e}"))?;
    let mut out = String::new();
    writeln!(out, "/// The gitleaks release the rules come from.").unwrap();
    writeln!(out, "pub const VERSION: &str = {tag:?};").unwrap();
    let global = doc
        .get("allowlist")
        .and_then(|g| g.as_table())
        .ok_or(format!("{CONFIG}: no [allowlist]"))?;
    writeln!(
        out,
        "pub static GLOBAL: Allowlist = {};",
        allowlist(global)?
    )
    .unwrap();
    writeln!(out, "pub static RULES: &[Rule] = &[").unwrap();
    let rules = doc
        .get("rules")
        .and_then(|r| r.as_array_of_tables())
        .ok_or(format!("{CONFIG}: no [[rules]]"))?;
    for rule in rules.iter() {
        let id = string(rule, "id")?.ok_or(format!("{CONFIG}: a rule without an id"))?;
        let at = |e: String| format!("{CONFIG}: rule {id}: {e}");
        let regex = string(rule, "regex").map_err(at)?.map(|r| rust_regex(&r));
        let path = string(rule, "path").map_err(at)?.map(|r| rust_regex(&r));
        let entropy = match rule.get("entropy") {
            None => 0.0,
            Some(v) => v
                .as_float()
                .or_else(|| v.as_integer().map(|i| i as f64))
                .ok_or_else(|| at("`entropy` is not a number".into()))?,
        };
        let group = rule
            .get("secretGroup")
            .map(|v| {
                v.as_integer()
                    .ok_or_else(|| at("`secretGroup` is not a number".into()))
            })
            .transpose()?
            .unwrap_or(0);
        let keywords: Vec<String> = strings(rule, "keywords")
            .map_err(at)?
            .into_iter()
            .map(|k| k.to_ascii_lowercase())
            .collect();
        let mut lists = Vec::new();
        if let Some(tables) = rule.get("allowlists").and_then(|a| a.as_array_of_tables()) {
            for t in tables.iter() {
                lists.push(allowlist(t).map_err(at)?);
            }
        }
        writeln!(
            out,
            "    Rule {{ id: {id:?}, description: {:?}, regex: {:?}, path: {:?}, secret_group: {group}, entropy: {entropy:?}, keywords: &{keywords:?}, allowlists: &[{}] }},",
            string(rule, "description").map_err(at)?.unwrap_or_default(),
            regex.unwrap_or_default(),
            path.unwrap_or_default(),
            lists.join(", ")
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    Ok(out)
}

fn allowlist(t: &toml_edit::Table) -> Result<String, String> {
    let target = match string(t, "regexTarget")?.as_deref() {
        None | Some("secret") => "Target::Secret",
        Some("match") => "Target::Match",
        Some("line") => "Target::Line",
        Some(other) => return Err(format!("unknown regexTarget {other:?}")),
    };
    let and = matches!(string(t, "condition")?.as_deref(), Some("AND"));
    let regexes: Vec<String> = strings(t, "regexes")?
        .iter()
        .map(|r| rust_regex(r))
        .collect();
    let stopwords: Vec<String> = strings(t, "stopwords")?
        .into_iter()
        .map(|s| s.to_ascii_lowercase())
        .collect();
    let paths: Vec<String> = strings(t, "paths")?.iter().map(|r| rust_regex(r)).collect();
    Ok(format!(
        "Allowlist {{ target: {target}, and: {and}, regexes: &{regexes:?}, stopwords: &{stopwords:?}, paths: &{paths:?} }}"
    ))
}

fn string(t: &toml_edit::Table, key: &str) -> Result<Option<String>, String> {
    match t.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(|s| Some(s.to_owned()))
            .ok_or(format!("`{key}` is not a string")),
    }
}

fn strings(t: &toml_edit::Table, key: &str) -> Result<Vec<String>, String> {
    match t.get(key) {
        None => Ok(Vec::new()),
        Some(v) => v
            .as_array()
            .ok_or(format!("`{key}` is not a list"))?
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_owned)
                    .ok_or(format!("`{key}` holds a non-string"))
            })
            .collect(),
    }
}

/// A Go regular expression as Rust's `regex` reads it the same way: a `{` that does not start
/// a repetition (`{n}`, `{n,}`, `{n,m}`) is a literal brace in Go and an error in Rust.
pub fn rust_regex(go: &str) -> String {
    let bytes = go.as_bytes();
    let mut out = String::with_capacity(go.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\\' => {
                // An escape and what it escapes, as they are.
                let next = go[i + 1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&go[i..i + 1 + next]);
                i += 1 + next;
                continue;
            }
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'{' if !in_class && !repetition(&go[i..]) => {
                out.push_str("\\{");
                i += 1;
                continue;
            }
            _ => {}
        }
        let len = go[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&go[i..i + len]);
        i += len;
    }
    out
}

/// Whether `rest` starts with `{n}`, `{n,}` or `{n,m}`.
fn repetition(rest: &str) -> bool {
    let Some(end) = rest.find('}') else {
        return false;
    };
    let inner = &rest[1..end];
    let (a, b) = match inner.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (inner, None),
    };
    !a.is_empty()
        && a.bytes().all(|c| c.is_ascii_digit())
        && b.is_none_or(|b| b.bytes().all(|c| c.is_ascii_digit()))
}
