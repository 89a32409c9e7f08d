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
    /// Text rules (ASCII Perl classes), for every view: an Aho-Corasick search over the
    /// literals every match must start (or end) with says which rules can match at all.
    text: Prefilter,
    /// Raw rules (Unicode classes, a handful), for the raw text only, in a set of their own:
    /// mixed with the rest, the Unicode patterns made a lazy DFA thrash on non-Latin input.
    raw: OnceLock<RuleSet>,
    /// Rule index -> its regex, compiled the first time the rule may match: a skill's files
    /// match few rules, and compiling all of them took longer than the rest of a hook run.
    regexes: Vec<OnceLock<Regex>>,
}

/// Which text rules may match a text.
struct Prefilter {
    literals: aho_corasick::AhoCorasick,
    /// Aho-Corasick pattern id -> rule index.
    owner: Vec<usize>,
    /// Rules without a usable literal: one set tells which of them match.
    always: Vec<usize>,
    always_set: OnceLock<RuleSet>,
}

struct RuleSet {
    set: RegexSet,
    /// Set index -> rule index.
    rules: Vec<usize>,
}

const SIZE_LIMIT: usize = 1 << 26;
/// Matches kept per rule and view of one file.
pub const MAX_HITS_PER_RULE: usize = 1_000;
/// A literal set larger than this, or with a literal shorter than [`MIN_LITERAL`], filters
/// too little to be worth it: the rule is always confirmed instead.
const MAX_LITERALS: usize = 400;
const MIN_LITERAL: usize = 3;

/// The pattern as compiled: text rules get ASCII Perl classes (see [`super::ascii`]); raw
/// rules look for Unicode and keep Unicode classes.
fn compiled_pattern(rule: &Rule) -> Option<String> {
    match rule.matcher {
        Matcher::Text(p) => Some(super::ascii::asciify(p)),
        Matcher::Raw(p) => Some(p.to_owned()),
        Matcher::Structural => None,
    }
}

/// Literals every match of `pattern` starts with, or else ends with, when such a set is small
/// and its literals long enough to filter.
fn required_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    // Case-insensitive flags would multiply the literals by their case variants; the
    // automaton matches ASCII case-insensitively instead, so extract from the exact spelling.
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&without_case_flag(pattern))
        .ok()?;
    let mut best: Option<Vec<Vec<u8>>> =
        required_factor(&hir).filter(|lits| lits.len() <= MAX_LITERALS);
    for kind in [ExtractKind::Prefix, ExtractKind::Suffix] {
        let mut seq = Extractor::new().kind(kind).extract(&hir);
        seq.dedup();
        let (Some(lits), Some(min)) = (seq.literals(), seq.min_literal_len()) else {
            continue;
        };
        if min < MIN_LITERAL || lits.is_empty() || lits.len() > MAX_LITERALS {
            continue;
        }
        let candidate: Vec<Vec<u8>> = lits.iter().map(|l| l.as_bytes().to_vec()).collect();
        let better = best.as_ref().is_none_or(|b| score(&candidate) > score(b));
        if better {
            best = Some(candidate);
        }
    }
    best
}

/// `pattern` with the `i` flag removed from its flag groups (`(?i)`, `(?im)`, `(?i:...)`).
fn without_case_flag(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let bytes = pattern.as_bytes();
    let mut i = 0;
    while i < pattern.len() {
        if bytes[i] == b'\\' {
            let len = pattern[i + 1..].chars().next().map_or(0, char::len_utf8);
            out.push_str(&pattern[i..i + 1 + len]);
            i += 1 + len;
            continue;
        }
        if pattern[i..].starts_with("(?") {
            let flags_end = pattern[i + 2..]
                .find(|c: char| !(c.is_ascii_alphabetic() || c == '-'))
                .map(|n| i + 2 + n);
            if let Some(end) = flags_end {
                if matches!(bytes[end], b')' | b':') {
                    let flags: String = pattern[i + 2..end].chars().filter(|&c| c != 'i').collect();
                    if flags.is_empty() && bytes[end] == b')' {
                        // `(?i)` alone: nothing left to say.
                        i = end + 1;
                    } else {
                        out.push_str("(?");
                        out.push_str(&flags);
                        i = end;
                    }
                    continue;
                }
            }
        }
        let c = pattern[i..].chars().next().unwrap_or_default();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// How well a literal set filters: longer shortest literal first, then fewer literals.
fn score(lits: &[Vec<u8>]) -> (usize, std::cmp::Reverse<usize>) {
    let min = lits.iter().map(Vec::len).min().unwrap_or(0);
    (min.min(8), std::cmp::Reverse(lits.len()))
}

/// Literals one of which every match contains somewhere, found by walking the pattern: a
/// concatenation needs what any one of its parts needs (the best part is kept), an
/// alternation needs one of what each branch needs, a repetition of at least one needs what
/// its body needs. `None` when no such set of literals of [`MIN_LITERAL`] bytes exists.
fn required_factor(hir: &regex_syntax::hir::Hir) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(lit) => (lit.0.len() >= MIN_LITERAL).then(|| vec![lit.0.to_vec()]),
        HirKind::Capture(cap) => required_factor(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => required_factor(&rep.sub),
        HirKind::Concat(parts) => parts
            .iter()
            .filter_map(required_factor)
            .filter(|lits| lits.len() <= MAX_LITERALS)
            .max_by_key(|lits| score(lits)),
        HirKind::Alternation(branches) => {
            let mut all = Vec::new();
            for branch in branches {
                all.extend(required_factor(branch)?);
                if all.len() > MAX_LITERALS {
                    return None;
                }
            }
            all.sort();
            all.dedup();
            Some(all)
        }
        _ => None,
    }
}

impl Prefilter {
    fn new(all: &[Rule]) -> Prefilter {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut owner = Vec::new();
        let mut always = Vec::new();
        for (i, rule) in all.iter().enumerate() {
            let Matcher::Text(_) = rule.matcher else {
                continue;
            };
            let pattern = compiled_pattern(rule).unwrap_or_default();
            match required_literals(&pattern) {
                Some(lits) => {
                    for lit in lits {
                        patterns.push(lit);
                        owner.push(i);
                    }
                }
                None => always.push(i),
            }
        }
        // A contiguous NFA builds in a fraction of a DFA's time, and start-up is what a
        // pre-commit hook pays on every commit.
        let literals = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .ascii_case_insensitive(true)
            .build(&patterns)
            .expect("rule literals build an automaton");
        Prefilter {
            literals,
            owner,
            always,
            always_set: OnceLock::new(),
        }
    }

    /// The text rules that may match `text`, in rule order.
    fn candidates(&self, text: &str) -> Vec<usize> {
        let mut seen = vec![false; self.owner.len().max(1)];
        let always = self.always_set.get_or_init(|| {
            let keep: std::collections::HashSet<usize> = self.always.iter().copied().collect();
            let all = rules::all();
            RuleSet::new(all, |r| {
                let i = all.iter().position(|x| x.id == r.id).unwrap_or(usize::MAX);
                keep.contains(&i)
            })
        });
        let mut rules: Vec<usize> = always
            .set
            .matches(text)
            .iter()
            .map(|m| always.rules[m])
            .collect();
        for m in self.literals.find_overlapping_iter(text) {
            let id = m.pattern().as_usize();
            if !seen[id] {
                seen[id] = true;
                rules.push(self.owner[id]);
            }
        }
        rules.sort_unstable();
        rules.dedup();
        rules
    }
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

impl Engine {
    /// The engine over the whole registry, built once.
    pub fn get() -> &'static Engine {
        static ENGINE: OnceLock<Engine> = OnceLock::new();
        ENGINE.get_or_init(|| Engine::new(rules::all()))
    }

    fn new(all: &[Rule]) -> Engine {
        Engine {
            text: Prefilter::new(all),
            raw: OnceLock::new(),
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
        self.scan_view(text, |o| o, out);
        let raw = self
            .raw
            .get_or_init(|| RuleSet::new(rules::all(), |r| matches!(r.matcher, Matcher::Raw(_))));
        let matched: Vec<usize> = raw.set.matches(text).iter().map(|m| raw.rules[m]).collect();
        self.confirm_all(&matched, text, &|o| o, out);
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
    fn case_flags_are_removed() {
        assert_eq!(without_case_flag(r"(?i)curl"), "curl");
        assert_eq!(without_case_flag(r"(?im)a(?i:b)\(?i)"), r"(?m)a(?:b)\(?i)");
    }

    #[test]
    fn most_text_rules_have_a_literal_prefilter() {
        let p = Prefilter::new(rules::all());
        let text_rules = rules::all()
            .iter()
            .filter(|r| matches!(r.matcher, Matcher::Text(_)))
            .count();
        assert!(
            p.always.len() * 4 < text_rules,
            "{} of {text_rules} rules always run",
            p.always.len()
        );
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
