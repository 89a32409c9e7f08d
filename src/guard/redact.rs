//! Secrets never reach output: excerpts pass through the credential rules, and whatever they
//! match is cut to a short prefix.

use super::engine::Engine;

/// Keeps the first four characters of a secret, enough to recognise which key it is.
pub fn mask(secret: &str) -> String {
    let head: String = secret.chars().take(4).collect();
    format!("{head}…[redacted]")
}

/// Replaces every credential in `text` (what a credential rule matches) with its mask.
pub fn redact(text: &str) -> String {
    // The engine's prefilter and compiled rules: compiling the credential patterns anew for
    // redaction cost a pre-commit hook more than its whole scan.
    let mut places = Engine::get().credentials(text);
    places.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for place in places {
        if place.start < at {
            // Inside a secret already masked; a longer overlap extends nothing shown.
            continue;
        }
        out.push_str(&text[at..place.start]);
        out.push_str(&mask(&text[place.clone()]));
        at = place.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_and_the_rest_kept() {
        let key = concat!("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        let text = format!("curl -H 'Authorization: token {key}' https://api.github.com");
        let out = redact(&text);
        assert!(!out.contains(key), "{out}");
        assert!(out.starts_with("curl -H"), "{out}");
        assert!(out.contains("…[redacted]"), "{out}");
    }

    #[test]
    fn text_without_secrets_is_unchanged() {
        let text = "rm -rf / # no secret here";
        assert_eq!(redact(text), text);
    }
}
