//! One pass per view for all rules: the prefilter ([`super::prefilter`]) says which text rules
//! may match and on which lines, then only those rules' regexes, compiled the first time they
//! are needed, search there. The raw rules (hidden Unicode) run only on texts holding their
//! characters. `regex-automata` runs finite automata, so every pass is linear in the input,
//! whatever the input.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::Input;

use super::needs_table;
use super::prefilter::{Candidate, Prefilter};
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
    /// the rule's `prefilter`).
    raw: Vec<(usize, Option<CharRanges>)>,
    /// Rule index -> its regex, compiled the first time the rule may match: a skill's files
    /// match few rules, and compiling all of them took longer than the rest of a hook run.
    regexes: Vec<OnceLock<Regex>>,
    /// Rule index -> the same pattern for `regex-lite` (text rules), for small texts.
    lite: Vec<OnceLock<Option<regex_lite::Regex>>>,
    /// Rule index -> how many times `lite` was chosen.
    lite_uses: Vec<AtomicU32>,
}

/// Searches of one rule with `regex-lite` before the full engine is compiled for it.
const LITE_USES: u32 = 8;

/// Texts up to this size are searched with `regex-lite`, whose regexes compile five times
/// faster (40 µs against 220 µs for a rule here) and search slower (16 MB/s): in a pre-commit
/// hook, a short skill's files trigger a dozen rules, and compiling them was most of its
/// time. The two engines find the same matches on these patterns (ASCII Perl classes and
/// word boundaries; a test compares them on every example).
const LITE_MAX: usize = 4 * 1024;

const SIZE_LIMIT: usize = 1 << 26;
/// Matches kept per rule and view of one file.
pub const MAX_HITS_PER_RULE: usize = 1_000;

/// The pattern as compiled: text rules get ASCII Perl classes (see [`super::ascii`]); raw
/// rules look for Unicode and keep Unicode classes.
fn compiled_pattern(rule: &Rule) -> Option<String> {
    match rule.matcher {
        Matcher::Text(p) => Some(super::ascii::asciify(p)),
        Matcher::Raw(p) => Some(p.to_owned()),
        Matcher::Structural | Matcher::Analysis => None,
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
            lite: all.iter().map(|_| OnceLock::new()).collect(),
            lite_uses: all.iter().map(|_| AtomicU32::new(0)).collect(),
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

    /// The rule's `regex-lite` regex: text rules only (the raw ones use Unicode classes).
    fn lite(&self, rule: usize) -> Option<&regex_lite::Regex> {
        self.lite[rule]
            .get_or_init(|| {
                let Matcher::Text(pattern) = rules::all()[rule].matcher else {
                    return None;
                };
                // `regex-lite`'s word boundary is the ASCII one already.
                let pattern = super::ascii::asciify(pattern)
                    .replace(r"(?-u:\b)", r"\b")
                    .replace(r"(?-u:\B)", r"\B");
                regex_lite::RegexBuilder::new(&pattern)
                    .size_limit(SIZE_LIMIT)
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// Where credential rules match `text`.
    pub fn credentials(&self, text: &str) -> Vec<Range<usize>> {
        let all = rules::all();
        self.text
            .candidates(text)
            .iter()
            .filter(|c| all[c.rule].category == super::rule::Category::CredentialExposure)
            .flat_map(|c| self.find(c.rule, text, c.spans.as_deref()))
            .collect()
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
        let matched: Vec<Candidate> = self
            .raw
            .iter()
            .zip(holds)
            // A rule's own prefilter is checked once, in `confirm_all`.
            .filter(|((_, ranges), holds)| ranges.is_none() || *holds)
            .map(|((rule, _), _)| Candidate {
                rule: *rule,
                spans: None,
                line_local: false,
            })
            .collect();
        self.confirm_all(&matched, text, &|o| o, out);
    }

    /// The text rules the prefilter lets through for `text`, with their spans.
    #[cfg(test)]
    pub(crate) fn text_candidates(&self, text: &str) -> Vec<Candidate> {
        self.text.candidates(text)
    }

    /// Where the rule's regex matches `text` (the full engine, the whole text).
    #[cfg(test)]
    pub(crate) fn matches(&self, rule: usize, text: &str) -> Vec<Range<usize>> {
        self.regex(rule)
            .find_iter(text)
            .map(|m| m.range())
            .collect()
    }

    /// `regex-lite`'s matches within `spans` (see [`lite_in_spans`]).
    #[cfg(test)]
    pub(crate) fn lite_matches_in(
        &self,
        rule: usize,
        text: &str,
        spans: &[Range<usize>],
    ) -> Option<Vec<Range<usize>>> {
        lite_in_spans(self.lite(rule)?, text, spans)
    }

    /// Where the rule's `regex-lite` regex matches `text`; `None` for rules it cannot take.
    #[cfg(test)]
    pub(crate) fn lite_matches(&self, rule: usize, text: &str) -> Option<Vec<Range<usize>>> {
        Some(
            self.lite(rule)?
                .find_iter(text)
                .map(|m| m.range())
                .collect(),
        )
    }

    /// Matches on a derived view (normalised, decoded): text rules only. `origin` maps an
    /// offset of the view to the original.
    pub fn scan_view(&self, text: &str, origin: impl Fn(usize) -> usize, out: &mut Vec<Hit>) {
        let candidates = self.text.candidates(text);
        self.confirm_all(&candidates, text, &origin, out);
    }

    /// Matches on a derived view whose lines outside `changed` are lines of a text already
    /// scanned with [`Engine::scan_raw`], with the same breaks around them: rules that match
    /// within a line search only the changed lines, since on the others they would find what
    /// that scan found. `changed` is sorted (from [`View::changed_lines`]).
    ///
    /// [`View::changed_lines`]: super::normalize::View::changed_lines
    pub fn scan_changed(
        &self,
        text: &str,
        changed: &[Range<usize>],
        origin: impl Fn(usize) -> usize,
        out: &mut Vec<Hit>,
    ) {
        let mut candidates = self.text.candidates(text);
        candidates.retain_mut(|c| {
            if !c.line_local {
                return true;
            }
            let spans = match c.spans.take() {
                Some(spans) => overlapping(&spans, changed),
                None => changed
                    .iter()
                    .map(|r| r.start.saturating_sub(1)..(r.end + 1).min(text.len()))
                    .collect(),
            };
            c.spans = Some(spans);
            c.spans.as_ref().is_some_and(|s| !s.is_empty())
        });
        self.confirm_all(&candidates, text, &origin, out);
    }

    /// Where the rule matches `text`, within `spans` (`None`: anywhere), at most
    /// [`MAX_HITS_PER_RULE`] places.
    pub(crate) fn find(
        &self,
        rule: usize,
        text: &str,
        spans: Option<&[Range<usize>]>,
    ) -> Vec<Range<usize>> {
        // `regex-lite` while the rule has been needed a few times on small texts only: past
        // that (a scan of many skills), compiling the full engine once pays for itself.
        let lite_wanted = text.len() <= LITE_MAX
            && self.regexes[rule].get().is_none()
            && self.lite_uses[rule].fetch_add(1, Ordering::Relaxed) < LITE_USES;
        if lite_wanted {
            if let Some(lite) = self.lite(rule) {
                let found = match spans {
                    None => Some(
                        lite.find_iter(text)
                            .take(MAX_HITS_PER_RULE)
                            .map(|m| m.range())
                            .collect(),
                    ),
                    Some(spans) => lite_in_spans(lite, text, spans),
                };
                if let Some(found) = found {
                    return found;
                }
            }
        }
        let whole = 0..text.len();
        let spans = spans.unwrap_or(std::slice::from_ref(&whole));
        // The search is confined to each span, but look-around (`^`, `\b`) still sees the
        // text around it, as a search of the whole text would.
        let regex = self.regex(rule);
        let mut last_end = 0;
        spans
            .iter()
            .flat_map(|span| regex.find_iter(Input::new(text).range(span.clone())))
            .filter(|found| {
                // Spans of neighbouring lines share a line break.
                let fresh = found.start() >= last_end || found.start() == 0;
                last_end = last_end.max(found.end());
                fresh
            })
            // Past this many places, more of the same rule in one view tells nobody anything
            // new, and a file of a million zero-width spaces must not cost a million findings.
            .take(MAX_HITS_PER_RULE)
            .map(|m| m.range())
            .collect()
    }

    fn confirm_all(
        &self,
        candidates: &[Candidate],
        text: &str,
        origin: &dyn Fn(usize) -> usize,
        out: &mut Vec<Hit>,
    ) {
        let all = rules::all();
        for candidate in candidates {
            let rule = candidate.rule;
            if !all[rule].prefilter.is_none_or(|may| may(text)) {
                continue;
            }
            for found in self.find(rule, text, candidate.spans.as_deref()) {
                let found_text = &text[found.clone()];
                if !all[rule].confirm.is_none_or(|holds| holds(found_text)) {
                    continue;
                }
                // Patterns often begin by consuming the separator before a command (a newline,
                // a space): the finding points at the first visible character.
                let matched = found_text.trim_start();
                let start = found.start + (found_text.len() - matched.len());
                out.push(Hit {
                    rule,
                    offset: origin(start),
                    text: matched.to_owned(),
                });
            }
        }
    }
}

/// The spans (sorted) that overlap one of `ranges` (sorted).
fn overlapping(spans: &[Range<usize>], ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut r = ranges.iter().peekable();
    for span in spans {
        while r.next_if(|x| x.end <= span.start).is_some() {}
        if r.peek().is_some_and(|x| x.start < span.end) {
            out.push(span.clone());
        }
    }
    out
}

/// `regex-lite`'s matches within `spans`, as the full engine finds them there; `None` when a
/// match reaches past its span, where the text the search was cut to (the span's end and
/// one character, for look-around) might have decided it: the full engine then searches.
fn lite_in_spans(
    lite: &regex_lite::Regex,
    text: &str,
    spans: &[Range<usize>],
) -> Option<Vec<Range<usize>>> {
    let mut out = Vec::new();
    let mut last_end = 0;
    for span in spans {
        let cut = text[span.end..]
            .chars()
            .next()
            .map_or(span.end, |c| span.end + c.len_utf8());
        let haystack = &text[..cut];
        let mut at = span.start;
        while at <= span.end {
            let Some(m) = lite.find_at(haystack, at) else {
                break;
            };
            if m.start() >= span.end && m.start() > span.start {
                break;
            }
            if m.end() > span.end {
                return None;
            }
            // Spans of neighbouring lines share a line break.
            if m.start() >= last_end || m.start() == 0 {
                out.push(m.range());
                if out.len() == MAX_HITS_PER_RULE {
                    return Some(out);
                }
            }
            last_end = last_end.max(m.end());
            at = if m.end() > m.start() {
                m.end()
            } else {
                // An empty match: step over one character, as iterators do.
                match text[m.end()..].chars().next() {
                    Some(c) => m.end() + c.len_utf8(),
                    None => break,
                }
            };
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // One span, one match: not the ranges-of-numbers mistake this lint looks for.
    #[allow(clippy::single_range_in_vec_init)]
    #[test]
    fn lite_searches_in_spans_see_the_text_after_them() {
        // `$` right after the line break: the next line is not empty, so no match, although
        // the span ends there.
        let re = regex_lite::Regex::new(r"(?m)a\n$").unwrap();
        assert_eq!(lite_in_spans(&re, "a\nb", &[0..2]), Some(vec![]));
        let re = regex_lite::Regex::new(r"(?m)a\n$").unwrap();
        assert_eq!(lite_in_spans(&re, "a\n\n", &[0..2]), Some(vec![0..2]));
    }

    #[allow(clippy::single_range_in_vec_init)]
    #[test]
    fn a_lite_match_past_its_span_defers_to_the_full_engine() {
        let re = regex_lite::Regex::new(r"a[^x]*").unwrap();
        assert_eq!(lite_in_spans(&re, "a\nbb", &[0..2]), None);
        assert_eq!(lite_in_spans(&re, "xa\n", &[0..3]), Some(vec![1..3]));
    }

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
                let has = |text: &str| engine.text.candidates(text).iter().any(|c| c.rule == i);
                assert!(
                    has(&view.text) || has(text),
                    "{}: prefilter drops {text:?}",
                    rule.id
                );
            }
        }
    }

    /// Texts around the shapes the rules with a hand-written prefilter match: each shape's
    /// tokens joined by random blanks (now and then a line break, for near misses), between
    /// random pieces.
    fn pieces() -> impl Strategy<Value = String> {
        const SHAPES: &[&[&str]] = &[
            &[":", "(", ")", "{", ":", "|", ":", "&", "}", ";", ":"],
            &["bomb", "(", ")", "{", "bomb", "|", "bomb", "&", "}"],
            &["while", "True", ":", "os.fork()"],
            &[
                "eval", "(", "function", "(", "p", ",", "a", ",", "c", ",", "k", ",", "e", ",",
                "d", ")",
            ],
            &["_0x1a2b", "_0x3c4d", "_0x5e6f", "_0x7a8b", "_0x9c0d"],
            &["alias", "sudo", "="],
            &["alias", "gpg", "="],
            &["function", "ssh", "(", ")", "{"],
            &["su", "(", ")", "{"],
            &[";", "doas", "(", ")", "{"],
        ];
        let blank = prop::sample::select(vec!["", "", " ", "\t", "  ", "\n"]);
        let piece = prop::sample::select(vec![
            "x",
            " ",
            "\n",
            "(",
            ")",
            "[]()!+[]()!+[]()!+[]()!+",
            "+",
            "&",
            "}",
            "é",
            "\u{a0}",
        ]);
        (
            prop::collection::vec(piece.clone(), 0..8),
            prop::sample::select(SHAPES),
            prop::collection::vec(blank, 16),
            prop::collection::vec(piece, 0..8),
        )
            .prop_map(|(before, shape, blanks, after)| {
                let mut text = before.concat();
                for (token, blank) in shape.iter().zip(blanks) {
                    text.push_str(token);
                    text.push_str(blank);
                }
                text + &after.concat()
            })
    }

    #[test]
    fn a_jsfuck_run_is_seen_wherever_it_starts() {
        let packed = rules::obfuscation::may_be_packed;
        for lead in 0..=80 {
            let text = format!("{}{}x", "a".repeat(lead), "+".repeat(80));
            assert!(packed(&text), "run after {lead} bytes");
            let short = format!("{}{}x", "a".repeat(lead), "+".repeat(79));
            assert!(!packed(&short), "79 after {lead} bytes");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        /// A rule's prefilter says no only where its regex finds nothing.
        #[test]
        fn rule_prefilters_never_hide_a_match(text in pieces()) {
            let engine = Engine::get();
            for (i, rule) in rules::all().iter().enumerate() {
                let Some(may) = rule.prefilter else { continue };
                if !may(&text) {
                    prop_assert!(engine.matches(i, &text).is_empty(), "{}: {text:?}", rule.id);
                }
            }
        }
    }
}
