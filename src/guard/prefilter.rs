//! Which text rules may match a text, and where, from the literals their matches need
//! (`needs_table.rs`, generated from the patterns by a test).
//!
//! The index builds in microseconds from that static table. Parsing the patterns and
//! building an Aho-Corasick automaton over their 1,500 literals took 13 ms, which a
//! pre-commit hook paid on every commit. Matching looks up every 3-byte window of the
//! lowercased text in a 64 Kbit filter and verifies the few that pass, which is linear in the
//! text.
//!
//! Most rules match within one line. For those, the clauses of a branch must all be seen on
//! the same line, and the rule's regex then searches those lines only: in a long document,
//! words a rule needs are often all present, far apart, and compiling and running the regex
//! for nothing cost a pre-commit hook most of its time.

use std::ops::Range;

use super::needs_table;
use super::rule::{Matcher, Rule};

/// A text rule that may match, and the spans where it may (`None`: anywhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub rule: usize,
    pub spans: Option<Vec<Range<usize>>>,
    /// Every match of the rule lies on one line (with the breaks at both ends), even when
    /// `spans` is `None` because there were too many lines to list.
    pub line_local: bool,
}

pub struct Prefilter {
    /// Literal -> its bytes and the clauses it satisfies (the table's flat arrays, as slices).
    literals: Vec<(&'static [u8], &'static [u16])>,
    /// Literals of 3 bytes or more by their first three: a hashed bit filter, then, by
    /// bucket (the filter slot's high bits), the range of `tri` (indexes of
    /// [`needs_table::LITERALS`]) to verify.
    tri_filter: Box<[u64]>,
    tri_start: Vec<u32>,
    tri: Vec<u16>,
    /// Literal -> how many bytes of it come before the window it is keyed by.
    tri_offset: Vec<u16>,
    /// Literals of 2 and 1 bytes: exact bit filters, then sorted (key, literal) pairs.
    two_filter: Box<[u64]>,
    two: Vec<(u16, u16)>,
    one_filter: [bool; 256],
    one: Vec<(u8, u16)>,
    /// Text rules with a need in the table: rule index, whether it is line-local, branches
    /// (clause ids that must all be seen).
    rules: Vec<(usize, bool, Vec<&'static [u16]>)>,
    /// Literal -> whether a line-local rule needs it on the line: such literals are verified
    /// at every occurrence, the others until first found.
    tracked: Vec<bool>,
    /// Clause -> whether all its literals have 3 bytes or more. Only such clauses are placed
    /// on lines: tracking every `(` or `e` would cost more than it saves. A line-local rule's
    /// short clauses need only be seen somewhere.
    long: Vec<bool>,
    /// Clause -> the (slot in `rules`, branch) pairs of line-local rules that need it on the
    /// line, as ranges of `users`.
    users_start: Vec<u32>,
    users: Vec<(u16, u16)>,
    /// Clause -> the (slot in `rules`, branch) pairs of all rules that need it.
    needed_by_start: Vec<u32>,
    needed_by: Vec<(u16, u16)>,
    /// Text rules the table says nothing about: always candidates.
    always: Vec<usize>,
}

/// Marks an ASCII word boundary inside a literal: `\bsu\b` needs `su` as a word, which
/// `such` and `sure` do not have.
pub const BOUNDARY: u8 = 0x01;

const FILTER_BITS: u32 = 16;
const BUCKET_SHIFT: u32 = 4;
/// Past this many lines, a line-local rule is searched everywhere: a list of spans that
/// long saves little over one pass.
const MAX_SPANS: usize = 256;

fn filter_slot(key: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B1) >> (32 - FILTER_BITS)) as usize
}

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
    two_dead: Vec<u32>,
    tri_dead: Vec<u32>,
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
                two_dead: vec![0; 1 << 16],
                tri_dead: vec![0; 1 << FILTER_BITS],
                touched: Vec::new(),
                seen_list: Vec::new(),
                spans: Vec::new(),
            };
        }
        self.touched.clear();
        self.seen_list.clear();
        self.spans.clear();
        self.epoch
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// One call of [`Prefilter::candidates`].
struct Scan<'a> {
    prefilter: &'a Prefilter,
    s: &'a mut Scratch,
    epoch: u32,
}

impl Scan<'_> {
    fn verify(&mut self, bytes: &[u8], start: usize, lit: u16, line: u32) {
        let n = usize::from(lit);
        if self.s.found[n] == self.epoch && !self.prefilter.tracked[n] {
            return;
        }
        let (literal, clauses) = self.prefilter.literals[n];
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
            self.s.found[n] == self.epoch && !self.prefilter.tracked[n]
        })
    }

    /// At the end of a line (`line`, bytes `start..end`, its break excluded): the line-local
    /// rules whose branch holds on it get its span, widened by the breaks at both ends.
    fn end_line(&mut self, line: u32, start: usize, end: usize, len: usize) {
        let p = self.prefilter;
        let here = (self.epoch, line + 1);
        for i in 0..self.s.touched.len() {
            let c = usize::from(self.s.touched[i]);
            let users = &p.users[p.users_start[c] as usize..p.users_start[c + 1] as usize];
            for &(slot, branch) in users {
                if self.s.last_line[usize::from(slot)] == here {
                    continue;
                }
                let clauses = p.rules[usize::from(slot)].2[usize::from(branch)];
                if clauses
                    .iter()
                    .filter(|&&k| p.long[usize::from(k)])
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
        let literals: Vec<_> = (0..needs_table::LITERALS.len()).map(literal).collect();
        let mut rules = Vec::new();
        let mut always = Vec::new();
        let mut table = needs_table::TEXT.iter().peekable();
        for (i, rule) in all.iter().enumerate() {
            let Matcher::Text(_) = rule.matcher else {
                continue;
            };
            // The table lists text rules in registry order; a rule it lacks (a stale table,
            // which a test forbids) is always confirmed rather than skipped.
            let Some(&(_, local, first, count)) = table.next_if(|(id, ..)| *id == rule.id) else {
                always.push(i);
                continue;
            };
            let branches: Vec<&'static [u16]> = (first..first + u32::from(count))
                .map(|b| {
                    let (start, len) = needs_table::BRANCHES[b as usize];
                    &needs_table::BRANCH_CLAUSES[start as usize..start as usize + usize::from(len)]
                })
                .collect();
            if branches.is_empty() || branches.iter().any(|b| b.is_empty()) {
                always.push(i);
            } else {
                rules.push((i, local, branches));
            }
        }
        let mut long = vec![true; needs_table::CLAUSES];
        for n in 0..needs_table::LITERALS.len() {
            let (lit, clauses) = literal(n);
            if lit.iter().filter(|&&b| b != BOUNDARY).count() < 3 {
                for &c in clauses.iter() {
                    long[usize::from(c)] = false;
                }
            }
        }
        // A rule is placed on lines when each of its branches has a long clause.
        for rule in rules.iter_mut() {
            rule.1 &= rule
                .2
                .iter()
                .all(|b| b.iter().any(|&c| long[usize::from(c)]));
        }
        // Long clause -> its line-local users; clause -> every rule branch that needs it.
        let mut local_pairs = Vec::new();
        let mut all_pairs = Vec::new();
        for (slot, (_, local, branches)) in rules.iter().enumerate() {
            for (b, branch) in branches.iter().enumerate() {
                for &c in branch.iter() {
                    let pair = (usize::from(c), (slot as u16, b as u16));
                    if *local && long[usize::from(c)] {
                        local_pairs.push(pair);
                    }
                    all_pairs.push(pair);
                }
            }
        }
        let (users_start, users) = group_by_key(needs_table::CLAUSES, local_pairs);
        let (needed_by_start, needed_by) = group_by_key(needs_table::CLAUSES, all_pairs);
        let tracked = (0..needs_table::LITERALS.len())
            .map(|n| {
                literal(n)
                    .1
                    .iter()
                    .any(|&c| users_start[usize::from(c)] < users_start[usize::from(c) + 1])
            })
            .collect();

        let mut tri_filter = vec![0u64; (1 << FILTER_BITS) / 64].into_boxed_slice();
        let mut two_filter = vec![0u64; (1 << 16) / 64].into_boxed_slice();
        let mut one_filter = [false; 256];
        let (mut tri, mut two, mut one) = (Vec::new(), Vec::new(), Vec::new());
        let mut tri_offset = vec![0u16; needs_table::LITERALS.len()];
        for (n, offset) in tri_offset.iter_mut().enumerate() {
            let lit = literal(n).0;
            let real: Vec<u8> = lit.iter().copied().filter(|&b| b != BOUNDARY).collect();
            let k = rare_window(&real);
            *offset = u16::try_from(k).expect("rare_window keeps offsets within u16");
            let n = n as u16;
            let mut real = real[k..].iter().copied();
            match (real.next(), real.next(), real.next()) {
                (Some(a), None, _) => {
                    one_filter[usize::from(a)] = true;
                    one.push((a, n));
                }
                (Some(a), Some(b), None) => {
                    let key = u16::from_be_bytes([a, b]);
                    two_filter[usize::from(key) / 64] |= 1 << (key % 64);
                    two.push((key, n));
                }
                (Some(a), Some(b), Some(c)) => {
                    let slot = filter_slot(u32::from_be_bytes([0, a, b, c]));
                    tri_filter[slot / 64] |= 1 << (slot % 64);
                    tri.push((slot >> BUCKET_SHIFT, n));
                }
                (None, _, _) => {}
            }
        }
        let tri_buckets = 1 << (FILTER_BITS - BUCKET_SHIFT);
        let (tri_start, bucketed) = group_by_key(tri_buckets, tri);
        two.sort_unstable();
        one.sort_unstable();
        Prefilter {
            literals,
            tri_filter,
            tri_start,
            tri: bucketed,
            tri_offset,
            two_filter,
            two,
            one_filter,
            one,
            rules,
            tracked,
            long,
            users_start,
            users,
            needed_by_start,
            needed_by,
            always,
        }
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
        let epoch = scratch.begin(self.rules.len());
        let mut scan = Scan {
            prefilter: self,
            s: scratch,
            epoch,
        };
        let mut key = 0u32;
        let mut line = 0u32;
        let mut line_start = 0usize;
        for (i, &b) in bytes.iter().enumerate() {
            let b = b.to_ascii_lowercase();
            key = ((key << 8) | u32::from(b)) & 0x00FF_FFFF;
            if self.one_filter[usize::from(b)] && scan.s.one_dead[usize::from(b)] != epoch {
                let entries = equal_range(&self.one, b);
                for &(_, lit) in entries {
                    scan.verify(bytes, i, lit, line);
                }
                if scan.done(entries.iter().map(|&(_, lit)| lit)) {
                    scan.s.one_dead[usize::from(b)] = epoch;
                }
            }
            let pair = key as u16;
            if i >= 1
                && self.two_filter[usize::from(pair) / 64] & (1 << (pair % 64)) != 0
                && scan.s.two_dead[usize::from(pair)] != epoch
            {
                let entries = equal_range(&self.two, pair);
                for &(_, lit) in entries {
                    scan.verify(bytes, i - 1, lit, line);
                }
                if scan.done(entries.iter().map(|&(_, lit)| lit)) {
                    scan.s.two_dead[usize::from(pair)] = epoch;
                }
            }
            if i >= 2 {
                let slot = filter_slot(key);
                if self.tri_filter[slot / 64] & (1 << (slot % 64)) != 0
                    && scan.s.tri_dead[slot] != epoch
                {
                    let b = slot >> BUCKET_SHIFT;
                    let bucket =
                        &self.tri[self.tri_start[b] as usize..self.tri_start[b + 1] as usize];
                    for &lit in bucket {
                        let before = usize::from(self.tri_offset[usize::from(lit)]);
                        if let Some(start) = (i - 2).checked_sub(before) {
                            scan.verify(bytes, start, lit, line);
                        }
                    }
                    if scan.done(bucket.iter().copied()) {
                        scan.s.tri_dead[slot] = epoch;
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

        let mut spans: Vec<Vec<Range<usize>>> = vec![Vec::new(); self.rules.len()];
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
        let mut holds = vec![false; self.rules.len()];
        for &c in &scan.s.seen_list {
            let c = usize::from(c);
            let needed_by = &self.needed_by
                [self.needed_by_start[c] as usize..self.needed_by_start[c + 1] as usize];
            for &(slot, branch) in needed_by {
                let slot = usize::from(slot);
                if !holds[slot] {
                    holds[slot] = self.rules[slot].2[usize::from(branch)]
                        .iter()
                        .all(|&k| scan.s.seen[usize::from(k)] == epoch);
                }
            }
        }
        for (slot, &(rule, local, _)) in self.rules.iter().enumerate() {
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

/// Where, among the bytes of a literal of 3 or more (its word-boundary marks left out), the
/// 3-byte window to key it by starts: the one of the rarest bytes in text, so that "the
/// following" is looked up at "fol", not at every "the". A literal holding a line break is
/// keyed at its start, where the line it is on is counted from. Literals under 3 bytes: 0.
fn rare_window(real: &[u8]) -> usize {
    if real.len() < 3 || real.len() > usize::from(u16::MAX) || real.contains(&b'\n') {
        return 0;
    }
    // How common a byte is in prose and code, roughly: letters by their English frequency,
    // spaces and the separators of paths and names most of all.
    let common = |b: u8| -> u32 {
        match b {
            b' ' => 12,
            b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' | b'h' => 8,
            b'l' | b'd' | b'c' | b'u' | b'm' | b'p' | b'f' | b'g' | b'w' | b'y' => 5,
            b'.' | b',' | b'-' | b'/' | b'_' | b'"' | b'\'' | b'(' | b')' | b'=' | b':' => 5,
            b'b' | b'v' | b'k' | b'0'..=b'9' => 3,
            _ => 1,
        }
    };
    (0..=real.len() - 3)
        .min_by_key(|&k| real[k..k + 3].iter().map(|&b| common(b)).sum::<u32>())
        .unwrap_or(0)
}

/// `pairs` grouped by key (below `keys`), in one array: the values of key `k` are
/// `values[start[k]..start[k + 1]]` (a counting sort; each group keeps its input order).
fn group_by_key<V: Copy + Default>(keys: usize, pairs: Vec<(usize, V)>) -> (Vec<u32>, Vec<V>) {
    let mut start = vec![0u32; keys + 1];
    for &(k, _) in &pairs {
        start[k + 1] += 1;
    }
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
    let mut next = start.clone();
    let mut values = vec![V::default(); pairs.len()];
    for (k, v) in pairs {
        values[next[k] as usize] = v;
        next[k] += 1;
    }
    (start, values)
}

/// Literal `n` of the table: its bytes, and the clauses it satisfies.
fn literal(n: usize) -> (&'static [u8], &'static [u16]) {
    let (start, len, first, count) = needs_table::LITERALS[n];
    let bytes = &needs_table::LITERAL_TEXT.as_bytes()[start as usize..][..usize::from(len)];
    let clauses = &needs_table::LITERAL_CLAUSES[first as usize..][..usize::from(count)];
    (bytes, clauses)
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

    #[test]
    fn literals_are_keyed_by_their_rarest_window() {
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
