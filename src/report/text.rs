//! Small text helpers every report uses: one line of at most so many characters, and counts
//! with their noun.

/// `text` on one line (control characters and runs of white space become one space) of at most
/// `max` characters, ending in `…` when it was cut, every secret in it masked before the cut.
pub fn one_line(text: &str, max: usize) -> String {
    // Masked whole before anything is cut: a cut token no longer looks like one, and would
    // show most of itself.
    let masked = crate::redact::redact(text);
    let visible: String = masked
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let joined = visible.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        return joined;
    }
    let mut cut: String = joined.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// `n` and the noun, plural when `n` is not 1: `1 skill`, `3 skills`.
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cut_at_characters_not_bytes() {
        assert_eq!(one_line("a\n b\tc", 10), "a b c");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(one_line("日本語のテキスト", 4), "日本語…");
        assert_eq!(one_line("\u{1b}[31mred", 20), "[31mred");
        assert_eq!(plural(1, "skill"), "1 skill");
        assert_eq!(plural(0, "skill"), "0 skills");
    }

    #[test]
    fn a_secret_is_masked_before_the_line_is_cut() {
        let token = concat!("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d");
        let line = one_line(&format!("use {token} to log in"), 24);
        assert_eq!(line, "use ghp_…[redacted] to …");
        let cut = one_line(&format!("token: {token}"), 30);
        assert!(!cut.contains("u8jzPde0"), "{cut}");
    }
}
