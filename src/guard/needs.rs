//! What every match of a rule's pattern must contain, worked out from the pattern with
//! `regex-syntax`, and the generator of `needs_table.rs`, which holds the result.
//!
//! Only tests run this: parsing the patterns on every start-up cost a pre-commit hook 11 ms,
//! more than the rest of its work. The table is checked against the patterns by
//! `needs_table_is_current`; `GIT_SKILL_BLESS=1 cargo test --lib needs_table` rewrites it.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::rule::{Matcher, Rule};

/// Literals one of which appears in the text (ASCII-lowercased: the index matches ASCII
/// case-insensitively). A [`BOUNDARY`] byte in a literal stands for an ASCII word boundary
/// (`(?-u:\b)`) at that place.
pub type Clause = Vec<Vec<u8>>;

pub use super::prefilter::BOUNDARY;
/// Clauses that must all hold. An empty branch always holds.
pub type Branch = Vec<Clause>;
/// Branches one of which holds for every match.
pub type Need = Vec<Branch>;

/// A clause with more literals than this filters too little for its cost in the index.
const MAX_LITERALS: usize = 400;
/// Sets larger than this are not carried while crossing the parts of a concatenation.
const MAX_EXACT: usize = 64;
/// Alternatives kept apart in a need; past this they are merged into one clause.
const MAX_BRANCHES: usize = 64;

/// The need of a text rule's pattern (as compiled): every literal its matches must contain,
/// short ones included (a 1-byte literal costs the index one lookup per byte until found,
/// and still keeps a rule's regex from being compiled for texts that cannot match).
pub fn text_need(pattern: &str) -> Need {
    // Case-insensitive flags would multiply the literals by their case variants; the index
    // matches ASCII case-insensitively instead, so the exact spelling is parsed.
    match regex_syntax::ParserBuilder::new()
        .build()
        .parse(&without_case_flag(pattern))
    {
        Ok(hir) => Extractor.need(&hir),
        Err(_) => vec![Vec::new()],
    }
}

/// Non-ASCII character ranges one of which every match of a raw rule's pattern holds, so
/// that the rule's regex is compiled only for texts with such a character.
pub fn raw_ranges(pattern: &str) -> Option<Vec<(char, char)>> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let mut ranges = required_ranges(&hir)?;
    ranges.sort_unstable();
    let mut merged: Vec<(char, char)> = Vec::new();
    for (a, b) in ranges {
        match merged.last_mut() {
            Some(last) if a as u32 <= last.1 as u32 + 1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    Some(merged)
}

fn required_ranges(hir: &Hir) -> Option<Vec<(char, char)>> {
    let width =
        |r: &Vec<(char, char)>| -> u32 { r.iter().map(|(a, b)| *b as u32 - *a as u32 + 1).sum() };
    match hir.kind() {
        HirKind::Literal(lit) => {
            let c = std::str::from_utf8(&lit.0)
                .ok()?
                .chars()
                .find(|c| !c.is_ascii())?;
            Some(vec![(c, c)])
        }
        HirKind::Class(Class::Unicode(class)) => {
            let ranges: Vec<(char, char)> = class.iter().map(|r| (r.start(), r.end())).collect();
            ranges.iter().all(|(a, _)| !a.is_ascii()).then_some(ranges)
        }
        HirKind::Capture(cap) => required_ranges(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => required_ranges(&rep.sub),
        HirKind::Concat(parts) => parts.iter().filter_map(required_ranges).min_by_key(width),
        HirKind::Alternation(branches) => {
            let mut all = Vec::new();
            for branch in branches {
                all.extend(required_ranges(branch)?);
            }
            Some(all)
        }
        _ => None,
    }
}

struct Extractor;

impl Extractor {
    fn need(&self, hir: &Hir) -> Need {
        match hir.kind() {
            HirKind::Literal(_) | HirKind::Class(_) => {
                branch_of(exact(hir).and_then(|set| self.usable(set)))
            }
            HirKind::Capture(cap) => self.need(&cap.sub),
            HirKind::Repetition(rep) if rep.min >= 1 => self.need(&rep.sub),
            HirKind::Concat(parts) => self.conjunction(parts),
            HirKind::Alternation(branches) => {
                let mut all = Vec::new();
                for branch in branches {
                    let need = self.need(branch);
                    if need.iter().any(Vec::is_empty) {
                        return vec![Vec::new()];
                    }
                    all.extend(need);
                }
                if all.len() > MAX_BRANCHES {
                    return branch_of(self.merge(&all));
                }
                all
            }
            HirKind::Empty | HirKind::Look(_) | HirKind::Repetition(_) => vec![Vec::new()],
        }
    }

    /// Everything a concatenation needs: a run of parts with few exact strings needs their
    /// product (a repetition of at least one closes a run with one copy of its body), and
    /// every other part needs what it needs.
    fn conjunction(&self, parts: &[Hir]) -> Need {
        let mut clauses: Branch = Vec::new();
        let mut split: Option<Need> = None;
        // The run so far, and the exact parts it is made of.
        let mut run: Vec<Vec<u8>> = vec![Vec::new()];
        let mut pieces: Vec<Vec<Vec<u8>>> = Vec::new();
        for part in parts {
            if let Some(set) = exact(part) {
                match cross(&run, &set) {
                    Some(joined) => {
                        run = joined;
                        pieces.push(set);
                    }
                    None => {
                        self.close(&mut clauses, &run, &pieces);
                        run = set.clone();
                        pieces = vec![set];
                    }
                }
                continue;
            }
            let body = match part.kind() {
                HirKind::Repetition(rep) if rep.min >= 1 => exact(&rep.sub),
                HirKind::Capture(cap) => match cap.sub.kind() {
                    HirKind::Repetition(rep) if rep.min >= 1 => exact(&rep.sub),
                    _ => None,
                },
                _ => None,
            };
            match body.as_ref().and_then(|b| cross(&run, b)) {
                Some(closed) => {
                    let mut with_body = pieces.clone();
                    with_body.extend(body.clone());
                    self.close(&mut clauses, &closed, &with_body);
                }
                None => self.close(&mut clauses, &run, &pieces),
            }
            let need = self.need(part);
            match (need.len(), split.take()) {
                (0, kept) => split = kept,
                (1, kept) => {
                    clauses.extend(need.into_iter().flatten());
                    split = kept;
                }
                (_, None) => split = Some(need),
                // Both alternatives kept apart while their product stays small.
                (n, Some(kept)) if n * kept.len() <= MAX_BRANCHES => {
                    let product = kept
                        .iter()
                        .flat_map(|a| need.iter().map(move |b| [a.clone(), b.clone()].concat()))
                        .collect();
                    split = Some(product);
                }
                (_, Some(kept)) => {
                    clauses.extend(self.merge(&need));
                    split = Some(kept);
                }
            }
            // After at least one copy of the body, its last copy precedes the next part.
            pieces = body.iter().cloned().collect();
            run = body.unwrap_or_else(|| vec![Vec::new()]);
        }
        self.close(&mut clauses, &run, &pieces);
        clauses.sort();
        clauses.dedup();
        match split {
            None => vec![clauses],
            Some(alternatives) => alternatives
                .into_iter()
                .map(|mut branch| {
                    branch.extend(clauses.iter().cloned());
                    branch.sort();
                    branch.dedup();
                    branch
                })
                .collect(),
        }
    }

    /// Adds the best clause a closed run offers: the run itself or one of its parts (a part
    /// alone may filter as well with fewer literals).
    fn close(&self, clauses: &mut Branch, run: &[Vec<u8>], pieces: &[Vec<Vec<u8>>]) {
        let best = std::iter::once(run.to_vec())
            .chain(pieces.iter().cloned())
            .filter_map(|set| self.usable(set))
            .max_by_key(score);
        clauses.extend(best);
    }

    /// One clause every branch implies: the best clause of each, united.
    fn merge(&self, need: &Need) -> Option<Clause> {
        let mut all = Vec::new();
        for branch in need {
            all.extend(branch.iter().max_by_key(|c| score(c))?.iter().cloned());
        }
        self.usable(all)
    }

    /// `lits` lowercased and deduplicated, if they can filter: none empty, none with a
    /// non-ASCII byte (case-insensitive matching of those is not ASCII), not more
    /// than [`MAX_LITERALS`].
    fn usable(&self, lits: Vec<Vec<u8>>) -> Option<Clause> {
        let mut lits: Vec<Vec<u8>> = lits
            .into_iter()
            .map(|l| {
                let mut l = l.to_ascii_lowercase();
                // Two boundaries in a row are one.
                l.dedup_by(|a, b| *a == BOUNDARY && *b == BOUNDARY);
                // A literal of one or two bytes is looked up by itself and never verified
                // again once found; a boundary would make it verified at every occurrence
                // of those bytes that is not the one.
                if real_len(&l) < 3 {
                    l.retain(|&b| b != BOUNDARY);
                }
                l
            })
            .collect();
        lits.sort();
        lits.dedup();
        // A literal that contains another adds nothing: the shorter one is found wherever
        // the longer one is.
        let all = lits.clone();
        lits.retain(|l| !all.iter().any(|o| o.len() < l.len() && contains(l, o)));
        let ok = !lits.is_empty()
            && lits.len() <= MAX_LITERALS
            && lits.iter().all(|l| real_len(l) >= 1 && l.is_ascii());
        ok.then_some(lits)
    }
}

/// A literal's length without its boundary marks.
pub fn real_len(lit: &[u8]) -> usize {
    lit.iter().filter(|&&b| b != BOUNDARY).count()
}

fn branch_of(clause: Option<Clause>) -> Need {
    vec![clause.into_iter().collect()]
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// How well a literal set filters: longer shortest literal first (up to a word's length:
/// past it, fewer literals matter more), then fewer literals, then longer ones.
fn score(lits: &Clause) -> (usize, std::cmp::Reverse<usize>, usize) {
    let min = lits.iter().map(|l| real_len(l)).min().unwrap_or(0);
    // At equal counts, longer literals (boundary marks included) are stricter.
    let total = lits.iter().map(Vec::len).sum();
    (min.min(4), std::cmp::Reverse(lits.len()), total)
}

/// Every string `hir` matches, when they are few (a literal, a small class, an alternation
/// of those, a fixed repetition); zero-width assertions match the empty string.
fn exact(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let set = match hir.kind() {
        HirKind::Look(regex_syntax::hir::Look::WordAscii) => vec![vec![BOUNDARY]],
        HirKind::Empty | HirKind::Look(_) => vec![Vec::new()],
        HirKind::Literal(lit) => vec![lit.0.to_vec()],
        HirKind::Capture(cap) => exact(&cap.sub)?,
        HirKind::Class(Class::Unicode(class)) => {
            let mut set = Vec::new();
            for range in class.iter() {
                for c in range.start()..=range.end() {
                    set.push(c.to_string().into_bytes());
                    if set.len() > MAX_EXACT {
                        return None;
                    }
                }
            }
            set
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut set = Vec::new();
            for range in class.iter() {
                for b in range.start()..=range.end() {
                    set.push(vec![b]);
                    if set.len() > MAX_EXACT {
                        return None;
                    }
                }
            }
            set
        }
        HirKind::Concat(parts) => {
            let mut set = vec![Vec::new()];
            for part in parts {
                set = cross(&set, &exact(part)?)?;
            }
            set
        }
        HirKind::Alternation(branches) => {
            let mut set = Vec::new();
            for branch in branches {
                set.extend(exact(branch)?);
                if set.len() > MAX_EXACT {
                    return None;
                }
            }
            set
        }
        HirKind::Repetition(rep) if Some(rep.min) == rep.max && rep.min <= 8 => {
            let sub = exact(&rep.sub)?;
            let mut set = vec![Vec::new()];
            for _ in 0..rep.min {
                set = cross(&set, &sub)?;
            }
            set
        }
        HirKind::Repetition(_) => return None,
    };
    Some(set)
}

/// Every `a` followed by every `b`, case-folded and deduplicated; `None` past [`MAX_EXACT`].
fn cross(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if a.len().saturating_mul(b.len()) > MAX_EXACT * 4 {
        return None;
    }
    let mut out: Vec<Vec<u8>> = a
        .iter()
        .flat_map(|x| {
            b.iter()
                .map(move |y| [x.as_slice(), y].concat().to_ascii_lowercase())
        })
        .collect();
    out.sort();
    out.dedup();
    (out.len() <= MAX_EXACT).then_some(out)
}

/// `pattern` with the `i` flag removed from its flag groups (`(?i)`, `(?im)`, `(?i:...)`,
/// `(?-i:...)`). Matching ASCII case-insensitively afterwards keeps the literals a superset.
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
                    let mut flags: String =
                        pattern[i + 2..end].chars().filter(|&c| c != 'i').collect();
                    if flags.ends_with('-') {
                        // `(?m-i)` -> `(?m)`, `(?-i:` -> `(?:`.
                        flags.pop();
                    }
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

/// Where a line break can appear in the matches of a node.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// Every match is empty.
    zero: bool,
    /// No match holds a line break.
    free: bool,
    /// A line break only as a match's first character.
    lead: bool,
    /// A line break only as a match's last character.
    trail: bool,
    /// A line break only as the first or the last character.
    edge: bool,
}

fn shape(hir: &Hir) -> Shape {
    let fixed = |free: bool, lead: bool, trail: bool, edge: bool| Shape {
        zero: false,
        free,
        lead: free || lead,
        trail: free || trail,
        edge: free || edge,
    };
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Shape {
            zero: true,
            free: true,
            lead: true,
            trail: true,
            edge: true,
        },
        HirKind::Literal(lit) => {
            let b = &lit.0;
            let inner = b.len() > 2 && b[1..b.len() - 1].contains(&b'\n');
            let first = b.first() == Some(&b'\n');
            let last = b.last() == Some(&b'\n');
            let free = !b.contains(&b'\n');
            let only_first = first && !b[1..].contains(&b'\n');
            let only_last = last && !b[..b.len() - 1].contains(&b'\n');
            fixed(free, only_first, only_last, !inner)
        }
        HirKind::Class(class) => {
            let nl = match class {
                Class::Unicode(c) => c.iter().any(|r| (r.start()..=r.end()).contains(&'\n')),
                Class::Bytes(c) => c.iter().any(|r| (r.start()..=r.end()).contains(&b'\n')),
            };
            fixed(!nl, true, true, true)
        }
        HirKind::Capture(cap) => shape(&cap.sub),
        HirKind::Repetition(rep) => {
            let sub = shape(&rep.sub);
            if sub.free || rep.max == Some(0) {
                Shape {
                    zero: sub.zero || rep.max == Some(0),
                    ..sub
                }
            } else if rep.max == Some(1) {
                Shape { zero: false, ..sub }
            } else {
                fixed(false, false, false, false)
            }
        }
        HirKind::Alternation(branches) => {
            let shapes: Vec<Shape> = branches.iter().map(shape).collect();
            Shape {
                zero: shapes.iter().all(|s| s.zero),
                free: shapes.iter().all(|s| s.free),
                lead: shapes.iter().all(|s| s.lead),
                trail: shapes.iter().all(|s| s.trail),
                edge: shapes.iter().all(|s| s.edge),
            }
        }
        HirKind::Concat(parts) => {
            let shapes: Vec<Shape> = parts.iter().map(shape).filter(|s| !s.zero).collect();
            let free = shapes.iter().all(|s| s.free);
            let Some((first, rest)) = shapes.split_first() else {
                return shape(&Hir::empty());
            };
            let Some((last, middle)) = rest.split_last() else {
                return *first;
            };
            let middle_free = middle.iter().all(|s| s.free);
            Shape {
                zero: false,
                free,
                lead: first.lead && rest.iter().all(|s| s.free),
                trail: last.trail && first.free && middle_free,
                edge: first.lead && middle_free && last.trail,
            }
        }
    }
}

/// Whether every match of `pattern` lies within one line, give or take the line breaks at
/// its two ends; `^` and `$` must be the multi-line ones (a line's search span sees them as
/// the whole text would).
pub fn line_local(pattern: &str) -> bool {
    let Ok(hir) = regex_syntax::ParserBuilder::new().build().parse(pattern) else {
        return false;
    };
    shape(&hir).edge && !has_text_anchor(&hir)
}

fn has_text_anchor(hir: &Hir) -> bool {
    use regex_syntax::hir::Look;
    match hir.kind() {
        HirKind::Look(look) => matches!(look, Look::Start | Look::End),
        HirKind::Capture(cap) => has_text_anchor(&cap.sub),
        HirKind::Repetition(rep) => has_text_anchor(&rep.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => parts.iter().any(has_text_anchor),
        _ => false,
    }
}

/// The source of `needs_table.rs` for `rules`.
pub fn generate(rules: &[Rule]) -> String {
    use std::collections::BTreeMap;
    let mut clause_ids: BTreeMap<Clause, usize> = BTreeMap::new();
    let mut text_rules = Vec::new();
    for rule in rules {
        let Matcher::Text(pattern) = rule.matcher else {
            continue;
        };
        let pattern = super::ascii::asciify(pattern);
        let need = text_need(&pattern);
        // A clause of line breaks alone cannot be placed on one line.
        let lone_break = need
            .iter()
            .flatten()
            .flatten()
            .any(|lit| lit.iter().all(|&b| b == b'\n' || b == BOUNDARY));
        let local = line_local(&pattern) && !lone_break;
        let branches: Vec<Vec<usize>> = need
            .into_iter()
            .map(|branch| {
                let mut ids: Vec<usize> = branch
                    .into_iter()
                    .map(|clause| {
                        let next = clause_ids.len();
                        *clause_ids.entry(clause).or_insert(next)
                    })
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                ids
            })
            .collect();
        text_rules.push((rule.id, local, branches));
    }
    let mut literals: BTreeMap<&[u8], Vec<usize>> = BTreeMap::new();
    for (clause, &id) in &clause_ids {
        for lit in clause {
            literals.entry(lit).or_default().push(id);
        }
    }
    let mut out = String::from(
        "//! @generated by the `needs_table_is_current` test from the rule patterns (see\n\
         //! `needs.rs`); `GIT_SKILL_BLESS=1 cargo test --lib needs_table` rewrites it. Do not edit.\n\n",
    );
    out.push_str(&format!(
        "/// How many distinct clauses (sets of literals one of which a match contains) there are.\n\
         pub(super) const CLAUSES: usize = {};\n\n",
        clause_ids.len()
    ));
    // Flat arrays of numbers and one string, not slices of slices: every pointer in a static
    // is a relocation the loader applies at each start, and 8,000 of them cost a pre-commit
    // hook 0.3 ms.
    let mut text = String::new();
    let mut entries = Vec::new();
    let mut literal_clauses = Vec::new();
    for (lit, ids) in &literals {
        let piece = String::from_utf8(lit.to_vec()).expect("literals are ASCII");
        entries.push(format!(
            "({}, {}, {}, {}), // {:?}",
            text.len(),
            lit.len(),
            literal_clauses.len(),
            ids.len(),
            piece
        ));
        text.push_str(&piece);
        literal_clauses.extend(ids.iter().copied());
    }
    out.push_str(
        "/// Every literal, one after another (ASCII-lowercased; `\\x01` is a word boundary).\n\
         #[rustfmt::skip]\npub(super) static LITERAL_TEXT: &str = concat!(\n",
    );
    for lit in literals.keys() {
        out.push_str(&format!("    {:?},\n", String::from_utf8_lossy(lit)));
    }
    out.push_str(&format!(
        ");\n\n/// Literal -> its place in `LITERAL_TEXT` (start, length) and the clauses it\n\
         /// satisfies (start in `LITERAL_CLAUSES`, count).\n\
         #[rustfmt::skip]\npub(super) static LITERALS: [(u32, u16, u32, u16); {}] = [\n",
        entries.len()
    ));
    for entry in &entries {
        out.push_str(&format!("    {entry}\n"));
    }
    out.push_str("];\n\n");
    push_numbers(&mut out, "LITERAL_CLAUSES", &literal_clauses);

    let mut branches = Vec::new();
    let mut branch_clauses = Vec::new();
    out.push_str(&format!(
        "/// Every text rule, in registry order: whether each of its matches lies on one line\n\
         /// (give or take the line breaks at its ends), and what its matches need: branches\n\
         /// (first in `BRANCHES`, count), one of which holds.\n\
         #[rustfmt::skip]\npub(super) static TEXT: [(&str, bool, u32, u16); {}] = [\n",
        text_rules.len()
    ));
    for (id, local, rule_branches) in &text_rules {
        out.push_str(&format!(
            "    ({id:?}, {local}, {}, {}),\n",
            branches.len(),
            rule_branches.len()
        ));
        for branch in rule_branches {
            branches.push(format!("({}, {})", branch_clauses.len(), branch.len()));
            branch_clauses.extend(branch.iter().copied());
        }
    }
    out.push_str(&format!(
        "];\n\n/// Branch -> the clauses that must all hold (start in `BRANCH_CLAUSES`, count).\n\
         #[rustfmt::skip]\npub(super) static BRANCHES: [(u32, u16); {}] = [\n",
        branches.len()
    ));
    for chunk in branches.chunks(8) {
        out.push_str(&format!("    {},\n", chunk.join(", ")));
    }
    out.push_str("];\n\n");
    push_numbers(&mut out, "BRANCH_CLAUSES", &branch_clauses);
    out.push_str(
        "/// Raw rules whose every match holds a character of these ranges.\n\
         #[rustfmt::skip]\npub(super) static RAW: &[(&str, &[(char, char)])] = &[\n",
    );
    for rule in rules {
        let Matcher::Raw(pattern) = rule.matcher else {
            continue;
        };
        if let Some(ranges) = raw_ranges(pattern) {
            let ranges: Vec<String> = ranges
                .iter()
                .map(|(a, b)| format!("('\\u{{{:x}}}', '\\u{{{:x}}}')", *a as u32, *b as u32))
                .collect();
            out.push_str(&format!("    ({:?}, &[{}]),\n", rule.id, ranges.join(", ")));
        }
    }
    out.push_str("];\n");
    out
}

/// `pub(super) static NAME: [u16; N] = [...];`, 16 numbers a line.
fn push_numbers(out: &mut String, name: &str, numbers: &[usize]) {
    out.push_str(&format!(
        "#[rustfmt::skip]\npub(super) static {name}: [u16; {}] = [\n",
        numbers.len()
    ));
    for chunk in numbers.chunks(16) {
        let line: Vec<String> = chunk.iter().map(usize::to_string).collect();
        out.push_str(&format!("    {},\n", line.join(", ")));
    }
    out.push_str("];\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_table_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/guard/needs_table.rs");
        let fresh = generate(super::super::rules::all());
        let current = std::fs::read_to_string(path).unwrap_or_default();
        if std::env::var_os("GIT_SKILL_BLESS").is_some() {
            std::fs::write(path, &fresh).unwrap();
            return;
        }
        assert!(
            current == fresh,
            "src/guard/needs_table.rs is stale: run `GIT_SKILL_BLESS=1 cargo test --lib needs_table`"
        );
    }

    #[test]
    fn case_flags_are_removed() {
        assert_eq!(without_case_flag(r"(?i)curl"), "curl");
        assert_eq!(without_case_flag(r"(?im)a(?i:b)\(?i)"), r"(?m)a(?:b)\(?i)");
        assert_eq!(
            without_case_flag(r"(?-i:SYSTEM)(?m-i)x"),
            r"(?:SYSTEM)(?m)x"
        );
    }

    fn lits(need: &Need) -> Vec<Vec<Vec<&str>>> {
        need.iter()
            .map(|b| {
                b.iter()
                    .map(|c| c.iter().map(|l| std::str::from_utf8(l).unwrap()).collect())
                    .collect()
            })
            .collect()
    }

    fn need_of(pattern: &str) -> Need {
        text_need(&crate::guard::ascii::asciify(pattern))
    }

    #[test]
    fn a_concatenation_needs_each_of_its_words() {
        // `\b` is kept as a boundary mark (`\x01`): `curl` must be a word.
        let need = need_of(r"(?i)\bcurl\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b");
        assert_eq!(
            lits(&need),
            vec![vec![vec!["\x01curl\x01"], vec!["sh"], vec!["|"]]]
        );
        let need = need_of(r"(?i)\bcurl\b[^\n]*https?://[^\n]*\bTOKEN\b");
        assert_eq!(
            lits(&need),
            vec![vec![
                vec!["\x01curl\x01"],
                vec!["\x01token\x01"],
                vec!["://"],
                vec!["http"]
            ]]
        );
    }

    #[test]
    fn short_words_are_joined_with_what_follows() {
        // `rm` alone is short; one copy of the blank after it makes a longer literal. The
        // blanks may repeat, so `-rf` is joined with the last one, in a clause of its own.
        let need = need_of(r"rm[ \t]+-rf");
        assert_eq!(
            lits(&need),
            vec![vec![
                vec!["\t", " "],
                vec!["\t-rf", " -rf"],
                vec!["rm\t", "rm "]
            ]]
        );
        let need = need_of(r"[0-9]{2}\.x");
        assert_eq!(lits(&need)[0][0].len(), 10, "{:?}", lits(&need));
    }

    #[test]
    fn alternatives_stay_apart() {
        let need = need_of(r"(?:socat[^\n]*exec|mkfifo[^\n]*\bnc\b)");
        assert_eq!(
            lits(&need),
            vec![
                vec![vec!["exec"], vec!["socat"]],
                vec![vec!["mkfifo"], vec!["nc"]]
            ]
        );
    }

    #[test]
    fn a_branch_without_long_literals_keeps_its_short_ones() {
        let need = need_of(r"curl|a.b");
        assert_eq!(
            lits(&need),
            vec![vec![vec!["curl"]], vec![vec!["a"], vec!["b"]]]
        );
    }

    #[test]
    fn optional_parts_need_nothing() {
        let need = text_need(r"(?:curl)?x");
        assert_eq!(lits(&need), vec![vec![vec!["x"]]]);
    }

    #[test]
    fn line_local_patterns_are_recognised() {
        let local = |p: &str| line_local(&crate::guard::ascii::asciify(p));
        assert!(local(r"(?i)\bcurl\b[^\n|]*\|[ \t]*sh\b"));
        // A separator before and after a command may be a line break.
        assert!(local(r#"(?m)(?:^|[^"'\w-])rm[ \t]+-rf[ \t]+/(?:\s|$)"#));
        assert!(!local(r"ignore\s+previous\s+instructions"));
        assert!(!local(r"a[^x]*b"));
        assert!(!local(r"(?:\n[ \t]*){2}x"));
        // `^` without `m` is the start of the text, which a line's span would not see.
        assert!(!local(r"^curl"));
        assert!(local(r"(?m)^curl$"));
    }

    #[test]
    fn raw_patterns_need_their_non_ascii_characters() {
        let r = |c: char| (c, c);
        assert_eq!(
            raw_ranges(r"[\x{202A}-\x{202E}\x{2066}]"),
            Some(vec![('\u{202A}', '\u{202E}'), r('\u{2066}')])
        );
        assert_eq!(
            raw_ranges(r"a[\x{200B}]|[\x{200C}]b"),
            Some(vec![('\u{200B}', '\u{200C}')])
        );
        // Of a concatenation, the narrowest part: one character rather than a script.
        assert_eq!(raw_ranges(r"\p{Greek}\x{200D}"), Some(vec![r('\u{200D}')]));
        assert_eq!(raw_ranges(r"(?:\r?\n[ \t]*){200}[^\s]"), None);
        assert_eq!(raw_ranges(r"a|[\x{200B}]"), None);
    }
}
