//! Secrets never leave git-skill: whatever it writes (the signal store, text sent to a model,
//! run logs, commit messages, reports, the terminal) passes through [`redact`], which masks every
//! secret from its first byte to its last, also where it is spelt with JSON or URL escapes.
//!
//! What counts as a secret: what the guard's credential rules match (`git skill rules`,
//! category credential-exposure), gitleaks' rule set through the one detector
//! ([`crate::secrets`]), any private key block, JSON web tokens and the password of a URL. The match is widened to the whole secret ([`whole`]): a PEM block through its END line,
//! a token through its last character.

mod joined;
mod unescape;
mod whole;
mod writer;

use std::ops::Range;
use std::sync::LazyLock;

use serde_json::Value;

pub use writer::Writer;

use crate::guard::engine::Engine;

/// What a mask keeps of a secret long enough to spare it: enough to recognise which key it was
/// (`ghp_`, `AKIA`, `sk-a`), never enough to use.
const HEAD: usize = 4;

/// Secrets shorter than this keep nothing (four characters of an eight-character password are
/// half of it).
const HEAD_FROM: usize = 16;

/// What every mask ends with.
pub const MASK: &str = "…[redacted]";

/// A secret's mask: `ghp_…[redacted]`.
pub fn mask(secret: &str) -> String {
    let head: String = if secret.chars().count() >= HEAD_FROM {
        secret
            .chars()
            .take(HEAD)
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            .collect()
    } else {
        String::new()
    };
    format!("{head}{MASK}")
}

/// How many masks `bytes` holds: a model shown text masked may copy a mask back, which would
/// replace a skill's own text (optimize's candidate, the review's writes, a proposal).
pub fn masks(bytes: &[u8]) -> usize {
    String::from_utf8_lossy(bytes).matches(MASK).count()
}

/// `text` with every secret in it replaced by its [`mask`].
pub fn redact(text: &str) -> String {
    let spans = secrets(text);
    if spans.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        out.push_str(&text[at..span.start]);
        out.push_str(&mask(&text[span.clone()]));
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Where the secrets of `text` are: each whole, overlapping ones merged, in order.
pub fn secrets(text: &str) -> Vec<Range<usize>> {
    let mut spans = found(text);
    let escaped = unescape::views(text);
    // Pieces are joined in the text as written and in each unescaped view of it.
    let joined: Vec<unescape::View> = joined::view(text)
        .into_iter()
        .chain(
            escaped
                .iter()
                .filter_map(|v| joined::view(&v.text).map(|j| j.through(v))),
        )
        .collect();
    for view in &escaped {
        spans.extend(found(&view.text).into_iter().map(|r| view.origin(r)));
    }
    // Joined, a secret in pieces is a service's token whose match crosses the glue, masked as
    // matched. A name-and-value rule would run a value on into the next key or field
    // (`GITHUB_TOKEN: ghp_…\n  DEPLOY_ENV: x`), as would a whole token widened past the glue
    // (`"ghp_…", "env": "prod"`).
    for view in &joined {
        spans.extend(
            crate::secrets::find(&view.text)
                .into_iter()
                .filter(|f| !f.generic && view.joins(f.secret.clone()))
                .map(|f| view.origin(f.secret)),
        );
    }
    merge(spans)
}

/// Masks secrets in every string inside `value`, object keys included; returns how many
/// strings changed. For JSON that git-skill writes: masking the serialised text could cut
/// across a string's quotes.
pub fn redact_value(value: &mut Value) -> usize {
    match value {
        Value::String(s) => {
            let masked = redact(s);
            if masked != *s {
                *s = masked;
                1
            } else {
                0
            }
        }
        Value::Array(items) => items.iter_mut().map(redact_value).sum(),
        Value::Object(map) => {
            let mut changed = 0;
            if map.keys().any(|k| redact(k) != *k) {
                let old = std::mem::take(map);
                for (key, v) in old {
                    let masked = redact(&key);
                    changed += usize::from(masked != key);
                    map.insert(masked, v);
                }
            }
            for (key, v) in map.iter_mut() {
                // A secret named by its key (`"password": "Hunter2xyz9"`) is one only as a pair.
                if let Value::String(s) = v {
                    let pair = format!("{key}: {s}");
                    if redact(&pair) != pair && redact(s) == *s && redact(key) == *key {
                        *s = mask(s);
                        changed += 1;
                        continue;
                    }
                }
                changed += redact_value(v);
            }
            changed
        }
        _ => 0,
    }
}

/// `value` as pretty JSON with every string in it redacted: for the files git-skill keeps
/// (run logs, `optimization.json`, checkpoints).
pub fn to_json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut value = serde_json::to_value(value)?;
    redact_value(&mut value);
    serde_json::to_vec_pretty(&value)
}

/// The whole secrets that matches in `text` start.
fn found(text: &str) -> Vec<Range<usize>> {
    let mut places = places(text);
    // In order, a match inside a secret already widened is not widened again: a text of
    // many long keys, one a line, would otherwise walk the lines after each one.
    places.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(places.len());
    for place in places {
        if out.last().is_some_and(|last| place.end <= last.end) {
            continue;
        }
        out.push(whole::whole(text, place));
    }
    out
}

/// What the rules match in `text`, not widened.
fn places(text: &str) -> Vec<Range<usize>> {
    let mut places = Engine::get().credentials(text);
    // The maintained rule set the guard's CRD021/CRD022 come from: the secret itself.
    places.extend(crate::secrets::find(text).into_iter().map(|f| f.secret));
    // Each of the patterns needs one of these; most text (a status line) has none, and never
    // compiles them.
    if text.contains("-----BEGIN ") || text.contains("eyJ") || text.contains("://") {
        places.extend(EXTRA.find_iter(text.as_bytes()).map(|m| m.range()));
    }
    places
}

/// Secrets the guard does not flag in a skill (where they are examples or placeholders more
/// often than not) but that output must never show. Byte classes (`(?-u)`): Unicode-aware
/// negated classes compile to automata that cost a short-lived process more than its work.
/// Every match starts and ends at an ASCII character, so at a character boundary.
static EXTRA: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(concat!(
        "(?-u)",
        // Any private key block, whatever its body.
        r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        // JSON web tokens: a header and a payload that are base64url JSON, and a signature.
        r"|(?-u:\b)eyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}",
        // The password of any URL with one, however simple.
        r#"|(?-u:\b)[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@'"<>]{1,256}:[^\s/@'"<>]{1,256}@"#,
    ))
    .expect("the redaction patterns compile")
});

fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match out.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => out.push(span),
        }
    }
    out
}

#[cfg(test)]
mod tests;
