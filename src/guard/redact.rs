//! Secrets never reach output: excerpts pass through the credential rules, and whatever they
//! match is cut to a short prefix.

use std::sync::OnceLock;

use regex::Regex;

use super::rule::{Category, Matcher};
use super::rules;

fn secret_patterns() -> &'static [Regex] {
    static RE: OnceLock<Vec<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        rules::all()
            .iter()
            .filter(|r| r.category == Category::CredentialExposure)
            .filter_map(|r| match r.matcher {
                Matcher::Text(p) | Matcher::Raw(p) => Regex::new(p).ok(),
                Matcher::Structural => None,
            })
            .collect()
    })
}

/// Keeps the first four characters of a secret, enough to recognise which key it is.
pub fn mask(secret: &str) -> String {
    let head: String = secret.chars().take(4).collect();
    format!("{head}…[redacted]")
}

/// Replaces every credential in `text`.
pub fn redact(text: &str) -> String {
    let mut out = text.to_owned();
    for re in secret_patterns() {
        if re.is_match(&out) {
            out = re
                .replace_all(&out, |c: &regex::Captures<'_>| mask(&c[0]))
                .into_owned();
        }
    }
    out
}
