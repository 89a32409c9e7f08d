//! Which text rules may match a text, from the literals their matches need
//! (`needs_table.rs`, generated from the patterns by a test).
//!
//! The index builds in microseconds from that static table. Parsing the patterns and
//! building an Aho-Corasick automaton over their 1,500 literals took 13 ms, which a
//! pre-commit hook paid on every commit. Matching looks up every 3-byte window of the
//! lowercased text in a 64 Kbit filter and verifies the few that pass, which is linear in the
//! text.

use super::needs_table;
use super::rule::{Matcher, Rule};

pub struct Prefilter {
    /// Literals of 3 bytes or more by their first three: a hashed bit filter, then, by
    /// bucket (the filter slot's high bits), the range of `tri` (indexes of
    /// [`needs_table::LITERALS`]) to verify.
    tri_filter: Box<[u64]>,
    tri_start: Vec<u32>,
    tri: Vec<u16>,
    /// Literals of 2 and 1 bytes: exact bit filters, then sorted (key, literal) pairs.
    two_filter: Box<[u64]>,
    two: Vec<(u16, u16)>,
    one_filter: [bool; 256],
    one: Vec<(u8, u16)>,
    /// Text rule -> its branches (clause ids that must all be seen), from the table.
    rules: Vec<(usize, &'static [&'static [u16]])>,
    /// Text rules the table says nothing about: always candidates.
    always: Vec<usize>,
}

/// Marks an ASCII word boundary inside a literal: `\bsu\b` needs `su` as a word, which
/// `such` and `sure` do not have.
pub const BOUNDARY: u8 = 0x01;

const FILTER_BITS: u32 = 16;
const BUCKET_SHIFT: u32 = 4;

fn filter_slot(key: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B1) >> (32 - FILTER_BITS)) as usize
}

impl Prefilter {
    pub fn new(all: &[Rule]) -> Prefilter {
        let mut rules = Vec::new();
        let mut always = Vec::new();
        let mut table = needs_table::TEXT.iter().peekable();
        for (i, rule) in all.iter().enumerate() {
            let Matcher::Text(_) = rule.matcher else {
                continue;
            };
            // The table lists text rules in registry order; a rule it lacks (a stale table,
            // which a test forbids) is always confirmed rather than skipped.
            match table.next_if(|(id, _)| *id == rule.id) {
                Some((_, branches)) if branches.iter().all(|b| !b.is_empty()) => {
                    rules.push((i, *branches));
                }
                _ => always.push(i),
            }
        }
        let mut tri_filter = vec![0u64; (1 << FILTER_BITS) / 64].into_boxed_slice();
        let mut two_filter = vec![0u64; (1 << 16) / 64].into_boxed_slice();
        let mut one_filter = [false; 256];
        let (mut tri, mut two, mut one) = (Vec::new(), Vec::new(), Vec::new());
        for (n, (lit, _)) in needs_table::LITERALS.iter().enumerate() {
            let n = n as u16;
            let mut real = lit.iter().copied().filter(|&b| b != BOUNDARY);
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
                    tri.push(((slot >> BUCKET_SHIFT) as u32, n));
                }
                (None, _, _) => {}
            }
        }
        // Bucket the literals (a counting sort).
        let mut tri_start = vec![0u32; (1 << (FILTER_BITS - BUCKET_SHIFT)) + 1];
        for &(bucket, _) in &tri {
            tri_start[bucket as usize + 1] += 1;
        }
        for i in 1..tri_start.len() {
            tri_start[i] += tri_start[i - 1];
        }
        let mut next = tri_start.clone();
        let mut bucketed = vec![0u16; tri.len()];
        for &(bucket, lit) in &tri {
            bucketed[next[bucket as usize] as usize] = lit;
            next[bucket as usize] += 1;
        }
        two.sort_unstable();
        one.sort_unstable();
        Prefilter {
            tri_filter,
            tri_start,
            tri: bucketed,
            two_filter,
            two,
            one_filter,
            one,
            rules,
            always,
        }
    }

    /// The text rules that may match `text`, in rule order.
    pub fn candidates(&self, text: &str) -> Vec<usize> {
        let bytes = text.as_bytes();
        let mut seen = vec![false; needs_table::CLAUSES];
        let mut found = vec![false; needs_table::LITERALS.len()];
        let mut verify = |found: &mut [bool], start: usize, lit: u16| {
            let (literal, clauses) = needs_table::LITERALS[usize::from(lit)];
            if !found[usize::from(lit)] && literal_at(bytes, start, literal) {
                found[usize::from(lit)] = true;
                for &c in clauses {
                    seen[usize::from(c)] = true;
                }
            }
        };
        // Once every literal behind a filter bit is found, the bit is cleared, so that a
        // common byte (`(`, a letter) or word costs one lookup per byte afterwards.
        let mut one_live = self.one_filter;
        let mut two_live = if self.two.is_empty() {
            None
        } else {
            Some(self.two_filter.clone())
        };
        let mut tri_live = self.tri_filter.clone();
        let mut key = 0u32;
        for (i, &b) in bytes.iter().enumerate() {
            let b = b.to_ascii_lowercase();
            key = ((key << 8) | u32::from(b)) & 0x00FF_FFFF;
            if one_live[usize::from(b)] {
                let entries = equal_range(&self.one, b);
                for &(_, lit) in entries {
                    verify(&mut found, i, lit);
                }
                if entries.iter().all(|&(_, lit)| found[usize::from(lit)]) {
                    one_live[usize::from(b)] = false;
                }
            }
            if let (Some(live), true) = (two_live.as_mut(), i >= 1) {
                let pair = key as u16;
                let (word, bit) = (usize::from(pair) / 64, 1u64 << (pair % 64));
                if live[word] & bit != 0 {
                    let entries = equal_range(&self.two, pair);
                    for &(_, lit) in entries {
                        verify(&mut found, i - 1, lit);
                    }
                    if entries.iter().all(|&(_, lit)| found[usize::from(lit)]) {
                        live[word] &= !bit;
                    }
                }
            }
            if i >= 2 {
                let slot = filter_slot(key);
                let (word, bit) = (slot / 64, 1u64 << (slot % 64));
                if tri_live[word] & bit != 0 {
                    let b = slot >> BUCKET_SHIFT;
                    let bucket =
                        &self.tri[self.tri_start[b] as usize..self.tri_start[b + 1] as usize];
                    for &lit in bucket {
                        verify(&mut found, i - 2, lit);
                    }
                    // A common word among the literals stops costing anything once found.
                    if bucket.iter().all(|&lit| found[usize::from(lit)]) {
                        tri_live[word] &= !bit;
                    }
                }
            }
        }
        let mut out = self.always.clone();
        for (rule, branches) in &self.rules {
            if branches
                .iter()
                .any(|branch| branch.iter().all(|&c| seen[usize::from(c)]))
            {
                out.push(*rule);
            }
        }
        out.sort_unstable();
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

    /// Rules whose regex matches `text` but which the prefilter drops.
    fn dropped(text: &str) -> Vec<&'static str> {
        let engine = Engine::get();
        let candidates = engine.text_candidates(text);
        rules::all()
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                matches!(r.matcher, Matcher::Text(_))
                    && !candidates.contains(i)
                    && engine.is_match(*i, text)
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
        let pieces: Vec<String> = needs_table::LITERALS
            .iter()
            .map(|(lit, _)| {
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
        }
    }
}
