//! Which text rules may match a text, and where, from the literals their matches need
//! (`needs_table.rs`, generated from the patterns by a test).
//!
//! The index is static data that `build.rs` works out from that table
//! (`prefilter_index.rs`). Parsing the patterns and building an Aho-Corasick automaton over
//! their 1,500 literals took 13 ms, which a pre-commit hook paid on every commit; building
//! the index at start-up still cost it 2.4 million instructions. Matching looks up every
//! 3-byte window of the
//! lowercased text in a 64 Kbit filter and verifies the few that pass, which is linear in the
//! text.
//!
//! Most rules match within one line. For those, the clauses of a branch must all be seen on
//! the same line, and the rule's regex then searches those lines only: in a long document,
//! words a rule needs are often all present, far apart, and compiling and running the regex
//! for nothing cost a pre-commit hook most of its time.

use std::ops::Range;

use super::needs_table;
pub use super::prefilter_index::BOUNDARY;
use super::prefilter_index::{filter_slot, literal, TextRule, BUCKET_SHIFT, FILTER_BITS};
use super::rule::{Matcher, Rule};

// The index's arrays, each described at its field of `prefilter_index::Index`; see
// `Prefilter` for their meaning.
include!(concat!(env!("OUT_DIR"), "/prefilter_index.rs"));

/// A text rule that may match, and the spans where it may (`None`: anywhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub rule: usize,
    pub spans: Option<Vec<Range<usize>>>,
    /// Every match of the rule lies on one line (with the breaks at both ends), even when
    /// `spans` is `None` because there were too many lines to list.
    pub line_local: bool,
}

/// The index (static arrays, from `build.rs`):
///
/// - `TRI_FILTER`, `TRI_START`, `TRI`: literals of 3 bytes or more by their rarest 3-byte
///   window: a hashed bit filter, then, by bucket (the filter slot's high bits), the range
///   of `TRI` (indexes of [`needs_table::LITERALS`]) to verify; `TRI_OFFSET`: literal -> how
///   many bytes of it come before the window it is keyed by.
/// - `TWO_FILTER`, `TWO`, `ONE_FILTER`, `ONE`: literals of 2 and 1 bytes: exact bit filters,
///   then sorted (key, literal) pairs.
/// - `RULES`: text rules with a usable need; `ALWAYS`: slots of the table without one.
/// - `TRACKED`: literal -> whether a line-local rule needs it on the line: such literals are
///   verified at every occurrence, the others until first found.
/// - `LONG`: clause -> whether all its literals have 3 bytes or more. Only such clauses are
///   placed on lines: tracking every `(` or `e` would cost more than it saves. A line-local
///   rule's short clauses need only be seen somewhere.
/// - `USERS_START`, `USERS`: clause -> the (index in `RULES`, branch) pairs of line-local
///   rules that need it on the line; `NEEDED_BY_START`, `NEEDED_BY`: the same for all rules.
///
/// What is left to do at run time is to match the table's slots to the registry's rules.
pub struct Prefilter {
    /// Slot of [`needs_table::TEXT`] -> the registry index of its rule (`None`: a rule this
    /// registry lacks, which a stale table could hold; it is never a candidate).
    rule_of: Vec<Option<usize>>,
    /// Text rules the table says nothing usable about: always candidates.
    always: Vec<usize>,
}

/// Past this many lines, a line-local rule is searched everywhere: a list of spans that
/// long saves little over one pass.
const MAX_SPANS: usize = 256;

/// Per-thread working memory of [`Prefilter::candidates`], reused from call to call. A
/// call's marks are those stamped with its epoch, so nothing is cleared between calls:
/// clearing 30 KB of marks cost more than reading a small file.
#[derive(Default)]
struct Scratch {
    epoch: u32,
    /// Clause -> epoch it was last seen anywhere in.
    seen: Vec<u32>,
    /// Literal -> epoch it was last found in.
    found: Vec<u32>,
    /// Clause -> epoch and line (+1) it was last seen on.
    line_of: Vec<(u32, u32)>,
    /// Slot in the rules -> epoch and line (+1) last given a span.
    last_line: Vec<(u32, u32)>,
    /// Filter slot -> epoch in which every literal behind it was found (and none is
    /// tracked by line): a common byte or word then costs one lookup per byte.
    one_dead: Vec<u32>,
    /// The same for pair and trigram slots, as bits cleared at the start of each call (the
    /// words set are listed in `dead_words`): as epochs they were 512 KiB, whose pages a
    /// pre-commit hook scanning a few small files paid for in page faults.
    two_dead: Vec<u64>,
    tri_dead: Vec<u64>,
    /// Words of `two_dead` (below 1,024) and `tri_dead` (1,024 and up) set in this call.
    dead_words: Vec<u16>,
    /// Clauses first seen on the current line.
    touched: Vec<u16>,
    /// Clauses seen anywhere, each once.
    seen_list: Vec<u16>,
    /// (slot in the rules, span) in text order.
    spans: Vec<(u16, Range<usize>)>,
}

impl Scratch {
    /// Starts a call: a new epoch, and room for `rules` rule slots.
    fn begin(&mut self, rules: usize) -> u32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 || self.seen.is_empty() {
            *self = Scratch {
                epoch: 1,
                seen: vec![0; needs_table::CLAUSES],
                found: vec![0; needs_table::LITERALS.len()],
                line_of: vec![(0, 0); needs_table::CLAUSES],
                last_line: vec![(0, 0); rules],
                one_dead: vec![0; 256],
                two_dead: vec![0; (1 << 16) / 64],
                tri_dead: vec![0; (1 << FILTER_BITS) / 64],
                dead_words: Vec::new(),
                touched: Vec::new(),
                seen_list: Vec::new(),
                spans: Vec::new(),
            };
        }
        for &w in &self.dead_words {
            match usize::from(w).checked_sub(self.two_dead.len()) {
                None => self.two_dead[usize::from(w)] = 0,
                Some(t) => self.tri_dead[t] = 0,
            }
        }
        self.dead_words.clear();
        self.touched.clear();
        self.seen_list.clear();
        self.spans.clear();
        self.epoch
    }

    fn is_dead(table: &[u64], slot: usize) -> bool {
        table[slot / 64] & (1 << (slot % 64)) != 0
    }

    fn mark_two_dead(&mut self, slot: usize) {
        let w = slot / 64;
        if self.two_dead[w] == 0 {
            self.dead_words.push(w as u16);
        }
        self.two_dead[w] |= 1 << (slot % 64);
    }

    fn mark_tri_dead(&mut self, slot: usize) {
        let w = slot / 64;
        if self.tri_dead[w] == 0 {
            self.dead_words.push((self.two_dead.len() + w) as u16);
        }
        self.tri_dead[w] |= 1 << (slot % 64);
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// One call of [`Prefilter::candidates`].
struct Scan<'a> {
    s: &'a mut Scratch,
    epoch: u32,
}

impl Scan<'_> {
    fn verify(&mut self, bytes: &[u8], start: usize, lit: u16, line: u32) {
        let n = usize::from(lit);
        if self.s.found[n] == self.epoch && !TRACKED[n] {
            return;
        }
        let (literal, clauses) = literal(n);
        if !literal_at(bytes, start, literal) {
            return;
        }
        self.s.found[n] = self.epoch;
        for &c in clauses {
            let c_n = usize::from(c);
            if self.s.seen[c_n] != self.epoch {
                self.s.seen[c_n] = self.epoch;
                self.s.seen_list.push(c);
            }
            if self.s.line_of[c_n] != (self.epoch, line + 1) {
                self.s.line_of[c_n] = (self.epoch, line + 1);
                self.s.touched.push(c);
            }
        }
    }

    /// Whether every literal behind a filter bit is found and none is tracked by line.
    fn done(&self, mut lits: impl Iterator<Item = u16>) -> bool {
        lits.all(|lit| {
            let n = usize::from(lit);
            self.s.found[n] == self.epoch && !TRACKED[n]
        })
    }

    /// At the end of a line (`line`, bytes `start..end`, its break excluded): the line-local
    /// rules whose branch holds on it get its span, widened by the breaks at both ends.
    fn end_line(&mut self, line: u32, start: usize, end: usize, len: usize) {
        let here = (self.epoch, line + 1);
        for i in 0..self.s.touched.len() {
            let c = usize::from(self.s.touched[i]);
            let users = &USERS[USERS_START[c] as usize..USERS_START[c + 1] as usize];
            for &(slot, branch) in users {
                if self.s.last_line[usize::from(slot)] == here {
                    continue;
                }
                let clauses = RULES[usize::from(slot)].branch(usize::from(branch));
                if clauses
                    .iter()
                    .filter(|&&k| LONG[usize::from(k)])
                    .all(|&k| self.s.line_of[usize::from(k)] == here)
                {
                    self.s.last_line[usize::from(slot)] = here;
                    let span = start.saturating_sub(1)..(end + 1).min(len);
                    self.s.spans.push((slot, span));
                }
            }
        }
        self.s.touched.clear();
    }
}

impl Prefilter {
    pub fn new(all: &[Rule]) -> Prefilter {
        let mut rule_of = vec![None; needs_table::TEXT.len()];
        let mut always = Vec::new();
        let mut table = needs_table::TEXT.iter().enumerate().peekable();
        for (i, rule) in all.iter().enumerate() {
            let Matcher::Text(_) = rule.matcher else {
                continue;
            };
            // The table lists text rules in registry order; a rule it lacks (a stale table,
            // which a test forbids) is always confirmed rather than skipped.
            match table.next_if(|(_, (id, ..))| *id == rule.id) {
                Some((slot, _)) => rule_of[slot] = Some(i),
                None => always.push(i),
            }
        }
        always.extend(ALWAYS.iter().filter_map(|&slot| rule_of[usize::from(slot)]));
        always.sort_unstable();
        Prefilter { rule_of, always }
    }

    /// The text rules that may match `text`, in rule order, each with the spans of `text`
    /// its matches must lie in.
    pub fn candidates(&self, text: &str) -> Vec<Candidate> {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.candidates_with(text, &mut scratch),
            // Not reentrant in practice; a fresh scratch keeps it correct if it ever is.
            Err(_) => self.candidates_with(text, &mut Scratch::default()),
        })
    }

    fn candidates_with(&self, text: &str, scratch: &mut Scratch) -> Vec<Candidate> {
        let bytes = text.as_bytes();
        let epoch = scratch.begin(RULES.len());
        let mut scan = Scan { s: scratch, epoch };
        let mut key = 0u32;
        let mut line = 0u32;
        let mut line_start = 0usize;
        for (i, &b) in bytes.iter().enumerate() {
            let b = b.to_ascii_lowercase();
            key = ((key << 8) | u32::from(b)) & 0x00FF_FFFF;
            if ONE_FILTER[usize::from(b)] && scan.s.one_dead[usize::from(b)] != epoch {
                let entries = equal_range(&ONE, b);
                for &(_, lit) in entries {
                    scan.verify(bytes, i, lit, line);
                }
                if scan.done(entries.iter().map(|&(_, lit)| lit)) {
                    scan.s.one_dead[usize::from(b)] = epoch;
                }
            }
            let pair = key as u16;
            if i >= 1
                && TWO_FILTER[usize::from(pair) / 64] & (1 << (pair % 64)) != 0
                && !Scratch::is_dead(&scan.s.two_dead, usize::from(pair))
            {
                let entries = equal_range(&TWO, pair);
                for &(_, lit) in entries {
                    scan.verify(bytes, i - 1, lit, line);
                }
                if scan.done(entries.iter().map(|&(_, lit)| lit)) {
                    scan.s.mark_two_dead(usize::from(pair));
                }
            }
            if i >= 2 {
                let slot = filter_slot(key);
                if TRI_FILTER[slot / 64] & (1 << (slot % 64)) != 0
                    && !Scratch::is_dead(&scan.s.tri_dead, slot)
                {
                    let b = slot >> BUCKET_SHIFT;
                    let bucket = &TRI[TRI_START[b] as usize..TRI_START[b + 1] as usize];
                    for &lit in bucket {
                        let before = usize::from(TRI_OFFSET[usize::from(lit)]);
                        if let Some(start) = (i - 2).checked_sub(before) {
                            scan.verify(bytes, start, lit, line);
                        }
                    }
                    if scan.done(bucket.iter().copied()) {
                        scan.s.mark_tri_dead(slot);
                    }
                }
            }
            // A line break belongs to the line it ends: literals that end with one are on
            // that line, literals that start with one on the next (their key ends there).
            if b == b'\n' {
                if !scan.s.touched.is_empty() {
                    scan.end_line(line, line_start, i, bytes.len());
                }
                line += 1;
                line_start = i + 1;
            }
        }
        if !scan.s.touched.is_empty() {
            scan.end_line(line, line_start, bytes.len(), bytes.len());
        }

        let mut spans: Vec<Vec<Range<usize>>> = vec![Vec::new(); RULES.len()];
        for (slot, span) in scan.s.spans.drain(..) {
            spans[usize::from(slot)].push(span);
        }
        let mut out: Vec<Candidate> = self
            .always
            .iter()
            .map(|&rule| Candidate {
                rule,
                spans: None,
                line_local: false,
            })
            .collect();
        // The rules one of whose branches holds, found from the clauses seen (a few) rather
        // than by trying every branch of every rule.
        let mut holds = vec![false; RULES.len()];
        for &c in &scan.s.seen_list {
            let c = usize::from(c);
            let needed_by =
                &NEEDED_BY[NEEDED_BY_START[c] as usize..NEEDED_BY_START[c + 1] as usize];
            for &(slot, branch) in needed_by {
                let slot = usize::from(slot);
                if !holds[slot] {
                    holds[slot] = RULES[slot]
                        .branch(usize::from(branch))
                        .iter()
                        .all(|&k| scan.s.seen[usize::from(k)] == epoch);
                }
            }
        }
        for (
            slot,
            &TextRule {
                slot: at, local, ..
            },
        ) in RULES.iter().enumerate()
        {
            let Some(rule) = self.rule_of[usize::from(at)] else {
                continue;
            };
            if !holds[slot] {
                continue;
            }
            let spans = std::mem::take(&mut spans[slot]);
            if !local {
                out.push(Candidate {
                    rule,
                    spans: None,
                    line_local: false,
                });
            } else if !spans.is_empty() {
                // (Spans of a branch whose short clauses are seen nowhere are kept: a wider
                // search is only slower.)
                let spans = (spans.len() <= MAX_SPANS).then_some(spans);
                out.push(Candidate {
                    rule,
                    spans,
                    line_local: true,
                });
            }
        }
        out.sort_unstable_by_key(|c| c.rule);
        out
    }

    /// Text rules that are candidates for every text.
    #[cfg(test)]
    pub fn always(&self) -> &[usize] {
        &self.always
    }
}

/// Whether `literal` (lowercase, with [`BOUNDARY`] marks) occurs in `text` at `start`.
fn literal_at(text: &[u8], start: usize, literal: &[u8]) -> bool {
    let mut pos = start;
    for &b in literal {
        if b == BOUNDARY {
            if !boundary_at(text, pos) {
                return false;
            }
            continue;
        }
        if text.get(pos).map(u8::to_ascii_lowercase) != Some(b) {
            return false;
        }
        pos += 1;
    }
    true
}

/// `(?-u:\b)` at `pos`: a word byte on one side only (outside the text counts as non-word).
fn boundary_at(text: &[u8], pos: usize) -> bool {
    let word = |i: Option<usize>| {
        i.and_then(|i| text.get(i))
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    };
    word(pos.checked_sub(1)) != word(Some(pos))
}

/// The entries of a list sorted by key whose key is `key`.
fn equal_range<K: Ord + Copy>(sorted: &[(K, u16)], key: K) -> &[(K, u16)] {
    let start = sorted.partition_point(|(k, _)| *k < key);
    let len = sorted[start..].partition_point(|(k, _)| *k == key);
    &sorted[start..start + len]
}

#[cfg(test)]
mod tests {
    //! The prefilter must be sound: whenever a rule's regex matches a text, the rule is
    //! among the text's candidates. (Precision is measured by the benchmarks, not here.)

    use proptest::prelude::*;

    use super::super::engine::Engine;
    use super::super::rule::Matcher;
    use super::super::rules;
    use super::*;

    /// The arrays `build.rs` wrote are the index built from the compiled table.
    #[test]
    fn the_static_index_is_the_built_one() {
        let built = super::super::prefilter_index::build();
        let statics = super::super::prefilter_index::Index {
            tri_filter: TRI_FILTER.to_vec(),
            tri_start: TRI_START.to_vec(),
            tri: TRI.to_vec(),
            tri_offset: TRI_OFFSET.to_vec(),
            two_filter: TWO_FILTER.to_vec(),
            two: TWO.to_vec(),
            one_filter: ONE_FILTER.to_vec(),
            one: ONE.to_vec(),
            rules: RULES.to_vec(),
            always: ALWAYS.to_vec(),
            tracked: TRACKED.to_vec(),
            long: LONG.to_vec(),
            users_start: USERS_START.to_vec(),
            users: USERS.to_vec(),
            needed_by_start: NEEDED_BY_START.to_vec(),
            needed_by: NEEDED_BY.to_vec(),
        };
        assert!(statics == built);
        assert!(!RULES.is_empty() && TRI.len() > 1000);
    }

    /// Every text rule of the registry is a candidate somewhere, through its slot or always,
    /// and no slot names another rule.
    #[test]
    fn every_slot_is_its_rule() {
        let all = rules::all();
        let p = Prefilter::new(all);
        for (slot, rule) in p.rule_of.iter().enumerate() {
            let rule = rule.expect("the table is current: every slot has its rule");
            assert_eq!(all[rule].id, needs_table::TEXT[slot].0);
        }
        let text_rules = all
            .iter()
            .filter(|r| matches!(r.matcher, Matcher::Text(_)))
            .count();
        assert_eq!(p.rule_of.len(), text_rules);
    }

    #[test]
    fn literals_are_keyed_by_their_rarest_window() {
        use super::super::prefilter_index::rare_window;
        fn at(lit: &str) -> &str {
            let k = rare_window(lit.as_bytes());
            &lit[k..k + 3.min(lit.len())]
        }
        assert_eq!(at("curl"), "cur");
        assert_eq!(at("the following"), "fol");
        assert_eq!(at("xmrig"), "xmr");
        // A line break keeps the literal keyed at its start, and short literals have one window.
        assert_eq!(rare_window(b"a b\nxyz"), 0);
        assert_eq!(rare_window(b"ab"), 0);
    }

    /// Rules whose matches in `text`, as the scan looks for them (prefilter, spans, engine),
    /// differ from the full engine's in the whole text.
    fn dropped(text: &str) -> Vec<&'static str> {
        let engine = Engine::get();
        let candidates = engine.text_candidates(text);
        rules::all()
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                if !matches!(r.matcher, Matcher::Text(_)) {
                    return false;
                }
                let found = engine.matches(*i, text);
                match candidates.iter().find(|c| c.rule == *i) {
                    None => !found.is_empty(),
                    // What the scan finds (either engine, within the spans) must be what the
                    // full engine finds in the whole text.
                    Some(c) => {
                        let lite_differs = match &c.spans {
                            Some(spans) => engine
                                .lite_matches_in(c.rule, text, spans)
                                .is_some_and(|lite| lite != found),
                            None => false,
                        };
                        lite_differs || engine.find(c.rule, text, c.spans.as_deref()) != found
                    }
                }
            })
            .map(|(_, r)| r.id)
            .collect()
    }

    /// Every rule example, and variants of it that move literals next to other words,
    /// line breaks and the ends of the text.
    fn texts() -> Vec<String> {
        let mut base: Vec<String> = Vec::new();
        for rule in rules::all() {
            base.extend(rule.fires.iter().map(|s| s.to_string()));
            base.extend(rule.passes.iter().map(|s| s.to_string()));
        }
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/scan");
        let mut stack = vec![std::path::PathBuf::from(fixtures)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    base.push(text);
                }
            }
        }
        let mut out = Vec::new();
        for text in &base {
            out.push(text.clone());
            out.push(text.to_uppercase());
            out.push(format!("x{text}_"));
            out.push(format!("\n\n{text}\n"));
            out.push(text.replace(' ', "\n"));
            out.push(text.replace(' ', "\t"));
        }
        for pair in base.windows(2) {
            out.push(format!("{} {}", pair[0], pair[1]));
        }
        out
    }

    #[test]
    fn both_engines_find_the_same_matches() {
        let engine = Engine::get();
        let text_rules: Vec<usize> = rules::all()
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r.matcher, Matcher::Text(_)))
            .map(|(i, _)| i)
            .collect();
        // On the texts `regex-lite` is used for.
        for text in texts().into_iter().filter(|t| t.len() <= 4 * 1024) {
            for view in [
                text.clone(),
                crate::guard::normalize::normalize(&text, false).text,
            ] {
                for &rule in &text_rules {
                    let lite = engine.lite_matches(rule, &view);
                    let lite =
                        lite.unwrap_or_else(|| panic!("{}: no lite regex", rules::all()[rule].id));
                    assert_eq!(
                        lite,
                        engine.matches(rule, &view),
                        "{} on {view:?}",
                        rules::all()[rule].id
                    );
                }
            }
        }
    }

    #[test]
    fn no_rule_that_matches_is_dropped() {
        for text in texts() {
            for view in [
                text.clone(),
                crate::guard::normalize::normalize(&text, false).text,
            ] {
                let dropped = dropped(&view);
                assert!(dropped.is_empty(), "{dropped:?} dropped for {view:?}");
            }
        }
    }

    /// Pieces of the table's literals, glued with separators: texts that hold many
    /// literals, often cut at their edges.
    fn glued() -> impl Strategy<Value = String> {
        let pieces: Vec<String> = (0..needs_table::LITERALS.len())
            .map(|n| {
                let lit = literal(n).0;
                let real: Vec<u8> = lit.iter().copied().filter(|&b| b != BOUNDARY).collect();
                String::from_utf8_lossy(&real).into_owned()
            })
            .collect();
        let token = prop_oneof![
            4 => proptest::sample::select(pieces),
            1 => proptest::sample::select(vec![
                " ", "\n", "\t", "_", "x", "|", "$(", ")", "\"", "'", "=", "/", "-", ":", "."
            ]).prop_map(str::to_owned),
            1 => "[ -~]{1,4}",
        ];
        proptest::collection::vec(token, 1..24).prop_map(|t| t.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn glued_literals_never_lose_a_match(text in glued()) {
            let dropped = dropped(&text);
            prop_assert!(dropped.is_empty(), "{:?} dropped for {:?}", dropped, text);
            let engine = Engine::get();
            for (rule, r) in rules::all().iter().enumerate() {
                if matches!(r.matcher, Matcher::Text(_)) {
                    prop_assert_eq!(engine.lite_matches(rule, &text), Some(engine.matches(rule, &text)), "{}", r.id);
                }
            }
        }
    }
}
