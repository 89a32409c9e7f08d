//! The globs of the policy file (`path:` of `allow:` and `lint:` entries): `*`, `**`, `?`,
//! classes and alternatives, checked when the policy is read and matched linearly.

use std::sync::OnceLock;

use regex::Regex;

/// A glob as a regex: `*` within a path segment, `**` across segments (`**/` also matches
/// nothing), `?` one character, `[abc]`, `[a-z]` and `[!abc]` one character of a class,
/// `{a,b}` one of the alternatives (not nested). Anything unbalanced is an error, so that a
/// pattern never means something other than what it looks like. The regex engine keeps
/// matching linear.
pub fn glob_regex(pattern: &str) -> Result<Regex, String> {
    let source = glob_source(pattern)?;
    Regex::new(&source).map_err(|_| invalid_glob(pattern, "not a pattern this tool can read"))
}

fn invalid_glob(pattern: &str, why: &str) -> String {
    let shown: String = pattern.chars().take(100).collect();
    format!("invalid glob '{shown}': {why}")
}

/// A policy's glob, checked when the policy is read and compiled the first time something is
/// matched against it: a policy of hundreds of entries costs a scan what it matches, not a
/// regex compilation per entry (about 70 µs each) in every process that reads it.
#[derive(Debug)]
pub struct Glob {
    source: String,
    compiled: OnceLock<Option<Regex>>,
}

impl Clone for Glob {
    fn clone(&self) -> Glob {
        Glob {
            source: self.source.clone(),
            compiled: OnceLock::new(),
        }
    }
}

impl Glob {
    pub fn new(pattern: &str) -> Result<Glob, String> {
        let source = glob_source(pattern)?;
        // Parsed (cheap) to refuse what would not compile; compiled when first used.
        regex_syntax::Parser::new()
            .parse(&source)
            .map_err(|_| invalid_glob(pattern, "not a pattern this tool can read"))?;
        Ok(Glob {
            source,
            compiled: OnceLock::new(),
        })
    }

    /// Whether `path` matches; a pattern the engine refuses (over its size limit) matches
    /// nothing, so that it suppresses nothing.
    pub fn is_match(&self, path: &str) -> bool {
        self.compiled
            .get_or_init(|| Regex::new(&self.source).ok())
            .as_ref()
            .is_some_and(|re| re.is_match(path))
    }
}

/// The regex source of a glob ([`glob_regex`]), its syntax checked.
fn glob_source(pattern: &str) -> Result<String, String> {
    let shown: String = pattern.chars().take(100).collect();
    let bad = |why: &str| format!("invalid glob '{shown}': {why}");
    let mut re = String::from("^");
    let mut chars = pattern.chars().peekable();
    let mut in_braces = false;
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    re.push_str("(?:.*/)?");
                } else {
                    re.push_str(".*");
                }
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            '[' => {
                let negated = matches!(chars.peek(), Some('!') | Some('^'));
                if negated {
                    chars.next();
                }
                // Items one by one: each character escaped, a range only as `a-b`, so that the
                // regex syntax of classes (`--`, `&&`, nested `[`) can never come through.
                let mut items: Vec<(char, Option<char>)> = Vec::new();
                let mut closed = false;
                while let Some(c) = chars.next() {
                    if c == ']' && !items.is_empty() {
                        closed = true;
                        break;
                    }
                    if c == '/' {
                        return Err(bad("a '[...]' class cannot hold '/'"));
                    }
                    let mut ahead = chars.clone();
                    match (ahead.next(), ahead.next()) {
                        (Some('-'), Some(end)) if end != ']' => {
                            if end == '/' || end < c {
                                return Err(bad("a range in '[...]' runs backwards or over '/'"));
                            }
                            chars.next();
                            chars.next();
                            items.push((c, Some(end)));
                        }
                        _ => items.push((c, None)),
                    }
                }
                if !closed {
                    return Err(bad("'[' is never closed"));
                }
                let mut class = String::new();
                for (start, end) in items {
                    class.push_str(&regex::escape(&start.to_string()));
                    if let Some(end) = end {
                        class.push('-');
                        class.push_str(&regex::escape(&end.to_string()));
                    }
                }
                // Never '/': a class matches within one path segment, like `*`.
                if negated {
                    re.push_str(&format!("[^/{class}]"));
                } else {
                    re.push_str(&format!("[{class}&&[^/]]"));
                }
            }
            ']' => return Err(bad("']' without a '['")),
            '{' if in_braces => return Err(bad("'{' inside '{...}' is not supported")),
            '{' => {
                in_braces = true;
                re.push_str("(?:");
            }
            ',' if in_braces => re.push('|'),
            '}' if in_braces => {
                in_braces = false;
                re.push(')');
            }
            '}' => return Err(bad("'}' without a '{'")),
            '\\' => match chars.next() {
                Some(c) => re.push_str(&regex::escape(&c.to_string())),
                None => return Err(bad("it ends with a lone '\\'")),
            },
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    if in_braces {
        return Err(bad("'{' is never closed"));
    }
    re.push('$');
    Ok(re)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob_match(pattern: &str, path: &str) -> bool {
        glob_regex(pattern).unwrap().is_match(path)
    }

    #[test]
    fn globs() {
        assert!(glob_match("scripts/*.sh", "scripts/run.sh"));
        assert!(!glob_match("scripts/*.sh", "scripts/sub/run.sh"));
        assert!(glob_match("scripts/**", "scripts/sub/run.sh"));
        assert!(glob_match("**/*.md", "SKILL.md"));
        assert!(glob_match("**/*.md", "references/a/b.md"));
        assert!(glob_match("?KILL.md", "SKILL.md"));
        assert!(!glob_match("*.md", "references/a.md"));
        assert!(glob_match("scripts/[ab].sh", "scripts/a.sh"));
        assert!(!glob_match("scripts/[!ab].sh", "scripts/a.sh"));
        assert!(glob_match("scripts/[a-c]x", "scripts/bx"));
        assert!(glob_match("**/*.{sh,py}", "scripts/x.py"));
        assert!(!glob_match("**/*.{sh,py}", "scripts/x.rb"));
        assert!(glob_match("a\\*b", "a*b"));
        assert!(!glob_match("a\\*b", "axb"));
        // A range never spans '/', and class syntax of the regex engine does not leak through.
        assert!(!glob_match("a[+-0]b", "a/b"));
        assert!(glob_match("a[+-0]b", "a.b"));
        assert!(glob_match("a[-x]b", "a-b"));
        assert!(glob_match("a[a\\-]b", "a-b"));
        assert!(!glob_match("[!a]", "/"));
        for bad in [
            "[[[[", "a]", "[]", "{a,b", "a}", "{a,{b}}", "x\\", "[a/b]", "[z-a]", "[a-/]",
        ] {
            assert!(glob_regex(bad).is_err(), "{bad:?} must be refused");
        }
        // No exponential blow-up on hostile patterns.
        let p = "*a".repeat(50) + "b";
        assert!(!glob_match(&p, &"a".repeat(5000)));
    }
}
