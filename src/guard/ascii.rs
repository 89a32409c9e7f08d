//! Rules are written for text already normalised to ASCII look-alikes, so their Perl classes
//! (`\w`, `\d`, `\s`, `\b`) need not be Unicode-aware. Unicode `\w` alone is hundreds of
//! ranges, and compiling 130 rules with it took a quarter of a second: too slow for a
//! pre-commit hook. This rewrites those classes to their ASCII forms before compiling.

/// Rewrites `\w \d \s \b \W \D \S \B` to ASCII equivalents, inside and outside brackets.
/// Other escapes and everything else are copied unchanged.
pub fn asciify(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut class_depth = 0usize;
    // Just after `[` or `[^`, a `]` is a literal.
    let mut class_start = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let inside = class_depth > 0;
                let replacement = match (next, inside) {
                    ('w', false) => Some("[0-9A-Za-z_]"),
                    ('d', false) => Some("[0-9]"),
                    ('s', false) => Some(r"[\t\n\x0B\x0C\r ]"),
                    ('W', false) => Some("[^0-9A-Za-z_]"),
                    ('D', false) => Some("[^0-9]"),
                    ('S', false) => Some(r"[^\t\n\x0B\x0C\r ]"),
                    ('b', false) => Some(r"(?-u:\b)"),
                    ('B', false) => Some(r"(?-u:\B)"),
                    ('w', true) => Some("0-9A-Za-z_"),
                    ('d', true) => Some("0-9"),
                    ('s', true) => Some(r"\t\n\x0B\x0C\r "),
                    _ => None,
                };
                match replacement {
                    Some(r) => out.push_str(r),
                    None => {
                        out.push('\\');
                        out.push(next);
                    }
                }
                class_start = false;
            }
            '[' => {
                out.push('[');
                class_depth += 1;
                class_start = true;
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
                // A POSIX class such as `[:alpha:]` inside brackets is not a new class.
                if class_depth > 1 && chars.peek() == Some(&':') {
                    class_depth -= 1;
                }
            }
            ']' if class_depth > 0 && !class_start => {
                out.push(']');
                class_depth -= 1;
            }
            c => {
                out.push(c);
                class_start = false;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::asciify;

    #[test]
    fn perl_classes_become_ascii() {
        assert_eq!(
            asciify(r"\bcurl\s+\w+"),
            r"(?-u:\b)curl[\t\n\x0B\x0C\r ]+[0-9A-Za-z_]+"
        );
        assert_eq!(asciify(r"[\w-]{3}"), r"[0-9A-Za-z_-]{3}");
        assert_eq!(asciify(r"[^\w.]"), r"[^0-9A-Za-z_.]");
        assert_eq!(asciify(r"\\w"), r"\\w", "an escaped backslash stays");
        assert_eq!(asciify(r"[]\w]"), r"[]0-9A-Za-z_]");
        assert_eq!(asciify(r"\p{Latin}\x{200B}"), r"\p{Latin}\x{200B}");
    }

    #[test]
    fn every_rule_keeps_compiling() {
        for rule in crate::guard::rules::all() {
            if let crate::guard::Matcher::Text(p) | crate::guard::Matcher::Raw(p) = rule.matcher {
                regex::Regex::new(&asciify(p)).unwrap_or_else(|e| panic!("{}: {e}", rule.id));
            }
        }
    }
}
