//! The prefilter's lookup tables, worked out from the literals and branches of
//! `needs_table.rs` alone. `build.rs` includes this file and `needs_table.rs` by path and
//! writes the result as static arrays (`OUT_DIR/prefilter_index.rs`): building them cost
//! every process 2.4 million instructions and 40 page faults, a third of a pre-commit hook's
//! own work on a small change. The library's tests build them again and compare. Only `std`
//! and the table here.

use super::needs_table;

/// Marks an ASCII word boundary inside a literal: `\bsu\b` needs `su` as a word, which
/// `such` and `sure` do not have.
pub const BOUNDARY: u8 = 0x01;

pub const FILTER_BITS: u32 = 16;
pub const BUCKET_SHIFT: u32 = 4;

pub fn filter_slot(key: u32) -> usize {
    (key.wrapping_mul(0x9E37_79B1) >> (32 - FILTER_BITS)) as usize
}

/// A text rule of the table with a usable need: its slot in [`needs_table::TEXT`], whether
/// its matches lie on one line, and its branches (`count` entries of
/// [`needs_table::BRANCHES`] from `first`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRule {
    pub slot: u16,
    pub local: bool,
    pub first: u32,
    pub count: u16,
}

impl TextRule {
    /// Branch `b`: the clause ids that must all be seen.
    pub fn branch(&self, b: usize) -> &'static [u16] {
        let (start, len) = needs_table::BRANCHES[self.first as usize + b];
        &needs_table::BRANCH_CLAUSES[start as usize..start as usize + usize::from(len)]
    }
}

/// The tables (see `Prefilter` for what each holds).
// `build.rs` builds the index; the library only in its tests.
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Debug, PartialEq, Eq)]
pub struct Index {
    pub tri_filter: Vec<u64>,
    pub tri_start: Vec<u32>,
    pub tri: Vec<u16>,
    pub tri_offset: Vec<u16>,
    pub two_filter: Vec<u64>,
    pub two: Vec<(u16, u16)>,
    pub one_filter: Vec<bool>,
    pub one: Vec<(u8, u16)>,
    pub rules: Vec<TextRule>,
    /// Slots of [`needs_table::TEXT`] whose need is empty: always candidates.
    pub always: Vec<u16>,
    pub tracked: Vec<bool>,
    pub long: Vec<bool>,
    pub users_start: Vec<u32>,
    pub users: Vec<(u16, u16)>,
    pub needed_by_start: Vec<u32>,
    pub needed_by: Vec<(u16, u16)>,
}

#[cfg_attr(not(test), allow(dead_code))]
pub fn build() -> Index {
    let n_literals = needs_table::LITERALS.len();
    let mut rules = Vec::with_capacity(needs_table::TEXT.len());
    let mut always = Vec::new();
    for (slot, &(_, local, first, count)) in needs_table::TEXT.iter().enumerate() {
        let slot = u16::try_from(slot).expect("fewer than 65,536 text rules");
        let r = TextRule {
            slot,
            local,
            first,
            count,
        };
        if count == 0 || (0..usize::from(count)).any(|b| r.branch(b).is_empty()) {
            always.push(slot);
        } else {
            rules.push(r);
        }
    }
    let mut long = vec![true; needs_table::CLAUSES];
    for n in 0..n_literals {
        let (lit, clauses) = literal(n);
        if lit.iter().filter(|&&b| b != BOUNDARY).count() < 3 {
            for &c in clauses.iter() {
                long[usize::from(c)] = false;
            }
        }
    }
    // A rule is placed on lines when each of its branches has a long clause.
    for rule in rules.iter_mut() {
        rule.local &= (0..usize::from(rule.count))
            .all(|b| rule.branch(b).iter().any(|&c| long[usize::from(c)]));
    }
    // Long clause -> its line-local users; clause -> every rule branch that needs it.
    let mut local_pairs = Vec::new();
    let mut all_pairs = Vec::new();
    for (slot, rule) in rules.iter().enumerate() {
        for b in 0..usize::from(rule.count) {
            for &c in rule.branch(b) {
                let pair = (usize::from(c), (slot as u16, b as u16));
                if rule.local && long[usize::from(c)] {
                    local_pairs.push(pair);
                }
                all_pairs.push(pair);
            }
        }
    }
    let (users_start, users) = group_by_key(needs_table::CLAUSES, local_pairs);
    let (needed_by_start, needed_by) = group_by_key(needs_table::CLAUSES, all_pairs);
    let tracked = (0..n_literals)
        .map(|n| {
            literal(n)
                .1
                .iter()
                .any(|&c| users_start[usize::from(c)] < users_start[usize::from(c) + 1])
        })
        .collect();

    let mut tri_filter = vec![0u64; (1 << FILTER_BITS) / 64];
    let mut two_filter = vec![0u64; (1 << 16) / 64];
    let mut one_filter = vec![false; 256];
    let (mut tri, mut two, mut one) = (Vec::new(), Vec::new(), Vec::new());
    let mut tri_offset = vec![0u16; n_literals];
    for (n, offset) in tri_offset.iter_mut().enumerate() {
        let real: Vec<u8> = literal(n)
            .0
            .iter()
            .copied()
            .filter(|&b| b != BOUNDARY)
            .collect();
        let k = rare_window(&real);
        *offset = u16::try_from(k).expect("rare_window keeps offsets within u16");
        let n = n as u16;
        let mut rest = real[k..].iter().copied();
        match (rest.next(), rest.next(), rest.next()) {
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
    let (tri_start, tri) = group_by_key(tri_buckets, tri);
    two.sort_unstable();
    one.sort_unstable();
    Index {
        tri_filter,
        tri_start,
        tri,
        tri_offset,
        two_filter,
        two,
        one_filter,
        one,
        rules,
        always,
        tracked,
        long,
        users_start,
        users,
        needed_by_start,
        needed_by,
    }
}

#[cfg_attr(not(test), allow(dead_code))]
/// Where, among the bytes of a literal of 3 or more (its word-boundary marks left out), the
/// 3-byte window to key it by starts: the one of the rarest bytes in text, so that "the
/// following" is looked up at "fol", not at every "the". A literal holding a line break is
/// keyed at its start, where the line it is on is counted from. Literals under 3 bytes: 0.
pub fn rare_window(real: &[u8]) -> usize {
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

#[cfg_attr(not(test), allow(dead_code))]
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
pub fn literal(n: usize) -> (&'static [u8], &'static [u16]) {
    let (start, len, first, count) = needs_table::LITERALS[n];
    let bytes = &needs_table::LITERAL_TEXT.as_bytes()[start as usize..][..usize::from(len)];
    let clauses = &needs_table::LITERAL_CLAUSES[first as usize..][..usize::from(count)];
    (bytes, clauses)
}
