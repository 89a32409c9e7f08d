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
    /// Text and raw rules, for the raw view.
    raw_set: RegexSet,
    raw_rules: Vec<usize>,
    /// Text rules only, for normalised and decoded views.
    text_set: RegexSet,
    text_rules: Vec<usize>,
    regexes: Vec<Option<Regex>>,
}

const SIZE_LIMIT: usize = 1 << 26;
/// Matches kept per rule and view of one file.
pub const MAX_HITS_PER_RULE: usize = 1_000;

impl Engine {
    /// The engine over the whole registry, built once.
    pub fn get() -> &'static Engine {
        static ENGINE: OnceLock<Engine> = OnceLock::new();
        ENGINE.get_or_init(|| Engine::new(rules::all()))
    }

    fn new(rules: &[Rule]) -> Engine {
        let pattern = |r: &Rule| match r.matcher {
            Matcher::Text(p) | Matcher::Raw(p) => Some(p),
            Matcher::Structural => None,
        };
        let regexes = rules
            .iter()
            .map(|r| {
                pattern(r).map(|p| {
                    RegexBuilder::new(p)
                        .size_limit(SIZE_LIMIT)
                        .build()
                        .unwrap_or_else(|e| panic!("rule {} has an invalid pattern: {e}", r.id))
                })
            })
            .collect();
        let raw_rules: Vec<usize> = (0..rules.len())
            .filter(|&i| pattern(&rules[i]).is_some())
            .collect();
        let text_rules: Vec<usize> = (0..rules.len())
            .filter(|&i| matches!(rules[i].matcher, Matcher::Text(_)))
            .collect();
        let set = |idx: &[usize]| {
            RegexSetBuilder::new(idx.iter().map(|&i| pattern(&rules[i]).unwrap_or_default()))
                .size_limit(SIZE_LIMIT)
                .dfa_size_limit(SIZE_LIMIT)
                .build()
                .expect("rule patterns compile as a set")
        };
        Engine {
            raw_set: set(&raw_rules),
            text_set: set(&text_rules),
            raw_rules,
            text_rules,
            regexes,
        }
    }

    /// Matches on the original text: every rule with a pattern.
    pub fn scan_raw(&self, text: &str, out: &mut Vec<Hit>) {
        self.scan(&self.raw_set, &self.raw_rules, text, |o| o, out);
    }

    /// Matches on a derived view (normalised, decoded): text rules only. `origin` maps an
    /// offset of the view to the original.
    pub fn scan_view(&self, text: &str, origin: impl Fn(usize) -> usize, out: &mut Vec<Hit>) {
        self.scan(&self.text_set, &self.text_rules, text, origin, out);
    }

    fn scan(
        &self,
        set: &RegexSet,
        idx: &[usize],
        text: &str,
        origin: impl Fn(usize) -> usize,
        out: &mut Vec<Hit>,
    ) {
        let all = rules::all();
        for m in set.matches(text).iter() {
            let rule = idx[m];
            let Some(re) = &self.regexes[rule] else {
                continue;
            };
            // Past this many places, more of the same rule in one view tells nobody anything
            // new, and a file of a million zero-width spaces must not cost a million findings.
            for found in re.find_iter(text).take(MAX_HITS_PER_RULE) {
                if !confirm(&all[rule], found.as_str()) {
                    continue;
                }
                out.push(Hit {
                    rule,
                    offset: origin(found.start()),
                    text: found.as_str().to_owned(),
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
