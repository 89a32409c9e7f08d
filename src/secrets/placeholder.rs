//! Values that stand for a secret without being one (`$TOKEN`, `<token>`, `YOUR_TOKEN`): what
//! every rule of the detector, the set's and the extra ones, leaves alone.

use std::sync::LazyLock;

use regex::bytes::Regex;

/// Whether a found value stands for a secret rather than being one, whatever the rule: a
/// variable (`$TOKEN`, `${TOKEN}`, `%TOKEN%`, `<token>`, `{{ token }}`), an elided example
/// (`eyJhbGciOi...`, `xxxx`, `****`), a name in capitals (`YOUR_TOKEN`, `API_KEY_HERE`) or one
/// that says it is yours to fill in (`your-api-key`).
pub fn placeholder(value: &[u8]) -> bool {
    static SHAPES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?i-u)^(?:[$<{%]|.*(?:xxx|\*\*\*|\.\.\.|…)",
            r"|(?-i:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+):?$",
            r"|(?-i:[a-z]+(?:_[a-z]+)+):?$",
            r"|.*[_-]here\b",
            r"|(?:your|my|insert|replace|put|enter)[_-]?)",
        ))
        .expect("the placeholder pattern compiles")
    });
    let quotes: &[u8] = b"\"'`";
    let mut v = value.trim_ascii();
    while let [first, rest @ ..] = v {
        if !quotes.contains(first) {
            break;
        }
        v = rest;
    }
    while let [rest @ .., last] = v {
        if !quotes.contains(last) {
            break;
        }
        v = rest;
    }
    SHAPES.is_match(v)
}
