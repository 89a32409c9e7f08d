//! The unified diff `optimize --dry-run` prints.

/// `old` against `new` as a unified diff with 3 lines of context, paths `a/<path>` and
/// `b/<path>` as git writes them.
pub fn unified(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_changed_line_shows_as_minus_and_plus() {
        let d = super::unified("s/SKILL.md", "a\nb\nc\n", "a\nB\nc\n");
        assert!(d.starts_with("--- a/s/SKILL.md\n+++ b/s/SKILL.md\n"), "{d}");
        assert!(d.contains("\n-b\n+B\n"), "{d}");
        assert_eq!(super::unified("x", "same\n", "same\n"), "");
    }
}
