//! One pass per view for all rules: a `RegexSet` says which rules match anywhere in the text,
//! then only those rules' regexes find the places. The `regex` crate runs finite automata, so
//! every pass is linear in the input, whatever the input.

use std::sync::OnceLock;

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson::WhichCaptures;

use super::needs_table;
use super::prefilter::Prefilter;
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

/// Inclusive ranges of characters.
type CharRanges = &'static [(char, char)];

pub struct Engine {
    /// Text rules (ASCII Perl classes), for every view: the literals their matches need say
    /// which rules can match at all.
    text: Prefilter,
    /// Raw rules (Unicode classes, a handful), for the raw text only, each with the
    /// non-ASCII characters one of which its matches hold (`None`: no such set; see
    /// [`may_match_raw`]).
    raw: Vec<(usize, Option<CharRanges>)>,
    /// Rule index -> its regex, compiled the first time the rule may match: a skill's files
    /// match few rules, and compiling all of them took longer than the rest of a hook run.
    regexes: Vec<OnceLock<Regex>>,
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
        let raw = all
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r.matcher, Matcher::Raw(_)))
            .map(|(i, r)| {
                let ranges = needs_table::RAW.iter().find(|(id, _)| *id == r.id);
                (i, ranges.map(|(_, ranges)| *ranges))
            })
            .collect();
        Engine {
            text: Prefilter::new(all),
            raw,
            regexes: all.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    fn regex(&self, rule: usize) -> &Regex {
        self.regexes[rule].get_or_init(|| {
            let r = &rules::all()[rule];
            let pattern = compiled_pattern(r).unwrap_or_default();
            // A rule's regex runs only where the prefilter found its literals, so its own
            // literal prefilter would repeat that work, and building it took half of the
            // compile time a pre-commit hook pays per candidate rule. Only the overall match
            // is used: no capture groups.
            let config = meta::Config::new()
                .auto_prefilter(false)
                .which_captures(WhichCaptures::Implicit)
                .nfa_size_limit(Some(SIZE_LIMIT));
            meta::Builder::new()
                .configure(config)
                .build(&pattern)
                .unwrap_or_else(|e| panic!("rule {} has an invalid pattern: {e}", r.id))
        })
    }

    /// Matches on the original text: every rule with a pattern.
    pub fn scan_raw(&self, text: &str, out: &mut Vec<Hit>) {
        self.scan_view(text, |o| o, out);
        // Which of the raw rules' characters the text holds, in one pass over its non-ASCII
        // characters (none for most files).
        let mut holds = vec![false; self.raw.len()];
        if !text.is_ascii() {
            for c in text.chars().filter(|c| !c.is_ascii()) {
                for (slot, (_, ranges)) in self.raw.iter().enumerate() {
                    if let Some(ranges) = ranges {
                        holds[slot] |= ranges.iter().any(|&(a, b)| (a..=b).contains(&c));
                    }
                }
            }
        }
        let all = rules::all();
        let matched: Vec<usize> = self
            .raw
            .iter()
            .zip(holds)
            .filter(|((rule, ranges), holds)| match ranges {
                Some(_) => *holds,
                None => may_match_raw(&all[*rule], text),
            })
            .map(|((rule, _), _)| *rule)
            .collect();
        self.confirm_all(&matched, text, &|o| o, out);
    }

    /// The text rules the prefilter lets through for `text`.
    #[cfg(test)]
    pub(crate) fn text_candidates(&self, text: &str) -> Vec<usize> {
        self.text.candidates(text)
    }

    /// Whether the rule's regex matches `text` anywhere.
    #[cfg(test)]
    pub(crate) fn is_match(&self, rule: usize, text: &str) -> bool {
        self.regex(rule).is_match(text)
    }

    /// Matches on a derived view (normalised, decoded): text rules only. `origin` maps an
    /// offset of the view to the original.
    pub fn scan_view(&self, text: &str, origin: impl Fn(usize) -> usize, out: &mut Vec<Hit>) {
        let candidates = self.text.candidates(text);
        self.confirm_all(&candidates, text, &origin, out);
    }

    fn confirm_all(
        &self,
        rules_to_run: &[usize],
        text: &str,
        origin: &dyn Fn(usize) -> usize,
        out: &mut Vec<Hit>,
    ) {
        let all = rules::all();
        for &rule in rules_to_run {
            // Past this many places, more of the same rule in one view tells nobody anything
            // new, and a file of a million zero-width spaces must not cost a million findings.
            for found in self.regex(rule).find_iter(text).take(MAX_HITS_PER_RULE) {
                let found_text = &text[found.range()];
                if !confirm(&all[rule], found_text) {
                    continue;
                }
                // Patterns often begin by consuming the separator before a command (a newline,
                // a space): the finding points at the first visible character.
                let matched = found_text.trim_start();
                let start = found.start() + (found_text.len() - matched.len());
                out.push(Hit {
                    rule,
                    offset: origin(start),
                    text: matched.to_owned(),
                });
            }
        }
    }
}

/// A necessary condition for a raw rule without required non-ASCII characters to match,
/// cheaper than compiling its regex (counted repetitions make large automata).
fn may_match_raw(rule: &Rule, text: &str) -> bool {
    match rule.id {
        // 200 line breaks, or 400 blanks in a row, before visible text.
        "HID006" => {
            let breaks = text.bytes().filter(|&b| b == b'\n').count();
            let mut run = 0usize;
            let mut longest = 0usize;
            for b in text.bytes() {
                run = if b == b' ' || b == b'\t' { run + 1 } else { 0 };
                longest = longest.max(run);
            }
            breaks >= 200 || longest >= 400
        }
        _ => true,
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
        // Greek letters that do not imitate Latin ones (`μL`, `Δx`, `πr`) are notation, not
        // disguise: a mixed word counts when it holds Cyrillic or a Greek look-alike.
        "HID004" => matched.chars().any(|c| {
            let cyrillic = ('\u{0400}'..='\u{052F}').contains(&c);
            let greek = ('\u{0370}'..='\u{03FF}').contains(&c);
            cyrillic || (greek && super::normalize::fold_confusable(c) != c)
        }),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_rule_has_a_literal_prefilter() {
        let p = Prefilter::new(rules::all());
        let always: Vec<&str> = p.always().iter().map(|&i| rules::all()[i].id).collect();
        assert!(always.is_empty(), "always confirmed: {always:?}");
    }

    #[test]
    fn only_the_blank_run_rule_runs_on_ascii_text() {
        let engine = Engine::get();
        let ids: Vec<&str> = engine
            .raw
            .iter()
            .filter(|(_, ranges)| ranges.is_none())
            .map(|&(i, _)| rules::all()[i].id)
            .collect();
        assert_eq!(ids, ["HID006"]);
    }

    #[test]
    fn prefilter_is_sound_for_every_example() {
        // Every `fires` example must reach its rule through the prefilter.
        let engine = Engine::get();
        for (i, rule) in rules::all().iter().enumerate() {
            if !matches!(rule.matcher, Matcher::Text(_)) {
                continue;
            }
            for text in rule.fires {
                let view = crate::guard::normalize::normalize(text, false);
                let candidates = engine.text.candidates(&view.text);
                let raw_candidates = engine.text.candidates(text);
                assert!(
                    candidates.contains(&i) || raw_candidates.contains(&i),
                    "{}: prefilter drops {text:?}",
                    rule.id
                );
            }
        }
    }
}
