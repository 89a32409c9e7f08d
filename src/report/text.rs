//! Small text helpers every report uses: one line of at most so many characters, and counts
//! with their noun.

/// `text` on one line (control characters and runs of white space become one space) of at most
/// `max` characters, ending in `…` when it was cut.
pub fn one_line(text: &str, max: usize) -> String {
    let visible: String = text
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
}
