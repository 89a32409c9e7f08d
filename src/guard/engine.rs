//! One pass per view for all rules: a `RegexSet` says which rules match anywhere in the text,
//! then only those rules' regexes find the places. The `regex` crate runs finite automata, so
//! every pass is linear in the input, whatever the input.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

use super::rule::{Matcher, Rule};
use super::rules;

/// A match in some view, already mapped back to the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Index into [`rules::all`].
    pub rule: usize,
    /// Byte offset in the original text.
    pub offset: usize,
    /// What matched, as the view saw it.
    pub text: String,
}

pub struct Engine {
    /// Text rules (ASCII Perl classes): one set, for every view.
    text: RuleSet,
    /// Raw rules (Unicode classes, a handful): a set of their own, for the raw text only.
    /// Together in one set, the Unicode patterns made the lazy DFA thrash on non-Latin input
    /// (seconds for a megabyte of Cyrillic).
    raw: RuleSet,
    /// Rule index -> its regex, compiled the first time a set says it matched somewhere:
    /// most files match few rules, and compiling all of them up front doubled the start-up.
    regexes: Vec<OnceLock<Regex>>,
}

struct RuleSet {
    set: RegexSet,
    /// Set index -> rule index.
    rules: Vec<usize>,
}

impl RuleSet {
    fn new(all: &[Rule], keep: impl Fn(&Rule) -> bool) -> RuleSet {
        let mut patterns = Vec::new();
        let mut rules = Vec::new();
        for (i, rule) in all.iter().enumerate() {
            if let (true, Some(p)) = (keep(rule), compiled_pattern(rule)) {
                patterns.push(p);
                rules.push(i);
            }
        }
        let set = RegexSetBuilder::new(&patterns)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(SIZE_LIMIT)
            .build()
            .unwrap_or_else(|e| panic!("rule patterns do not compile as a set: {e}"));
        RuleSet { set, rules }
    }
}

const SIZE_LIMIT: usize = 1 << 26;
/// Matches kept per rule and view of one file.
pub const MAX_HITS_PER_RULE: usize = 1_000;

/// The pattern as compiled: text rules get ASCII Perl classes (see [`super::ascii`]); raw
/// rules look for Unicode and keep Unicode classes.
fn compiled_pattern(rule: &Rule) -> Option<String> {
    match rule.matcher {
        Matcher::Text(p) => Some(super::ascii::asciify(p)),
        Matcher::Raw(p) => Some(p.to_owned()),
        Matcher::Structural => None,
    }
}

impl Engine {
    /// The engine over the whole registry, built once.
    pub fn get() -> &'static Engine {
        static ENGINE: OnceLock<Engine> = OnceLock::new();
        ENGINE.get_or_init(|| Engine::new(rules::all()))
    }

    fn new(all: &[Rule]) -> Engine {
        Engine {
            text: RuleSet::new(all, |r| matches!(r.matcher, Matcher::Text(_))),
            raw: RuleSet::new(all, |r| matches!(r.matcher, Matcher::Raw(_))),
            regexes: all.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    fn regex(&self, rule: usize) -> &Regex {
        self.regexes[rule].get_or_init(|| {
            let r = &rules::all()[rule];
            let pattern = compiled_pattern(r).unwrap_or_default();
            RegexBuilder::new(&pattern)
                .size_limit(SIZE_LIMIT)
                .build()
                .unwrap_or_else(|e| panic!("rule {} has an invalid pattern: {e}", r.id))
        })
    }

    /// Matches on the original text: every rule with a pattern.
    pub fn scan_raw(&self, text: &str, out: &mut Vec<Hit>) {
        self.scan(&self.text, text, |o| o, out);
        self.scan(&self.raw, text, |o| o, out);
    }

    /// Matches on a derived view (normalised, decoded): text rules only. `origin` maps an
    /// offset of the view to the original.
    pub fn scan_view(&self, text: &str, origin: impl Fn(usize) -> usize, out: &mut Vec<Hit>) {
        self.scan(&self.text, text, origin, out);
    }

    fn scan(&self, set: &RuleSet, text: &str, origin: impl Fn(usize) -> usize, out: &mut Vec<Hit>) {
        let all = rules::all();
        for m in set.set.matches(text).iter() {
            let rule = set.rules[m];
            // Past this many places, more of the same rule in one view tells nobody anything
            // new, and a file of a million zero-width spaces must not cost a million findings.
            for found in self.regex(rule).find_iter(text).take(MAX_HITS_PER_RULE) {
                if !confirm(&all[rule], found.as_str()) {
                    continue;
                }
                // Patterns often begin by consuming the separator before a command (a newline,
                // a space): the finding points at the first visible character.
                let matched = found.as_str().trim_start();
                let start = found.start() + (found.as_str().len() - matched.len());
                out.push(Hit {
                    rule,
                    offset: origin(start),
                    text: matched.to_owned(),
                });
            }
        }
    }
}

/// Checks a regex cannot express without look-around.
fn confirm(rule: &Rule, matched: &str) -> bool {
    match rule.id {
        // A subdivision flag: the black flag, a few tag letters, the cancel tag.
        "HID001" => {
            let tags = matched
                .chars()
                .filter(|c| ('\u{E0000}'..='\u{E007F}').contains(c))
                .count();
            !(matched.starts_with('\u{1F3F4}') && matched.ends_with('\u{E007F}') && tags <= 7)
        }
        _ => true,
    }
}
