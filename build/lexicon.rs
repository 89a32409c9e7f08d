//! The prose lexicon's tables (see `src/guard/analysis/prose/lexicon.rs` for how they are
//! read).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

#[allow(dead_code)]
#[path = "../src/guard/analysis/prose/lexicon/shared.rs"]
mod shared;

use shared::{fold, is_cjk, pair_hash, slot, word_hash, Class, Lang, FILES, LISTS};

enum Shape {
    Words(Vec<(String, bool)>),
    Cjk(String),
    Symbol(String),
}

struct Term {
    class: Class,
    lang: Lang,
    shape: Shape,
}

#[derive(Default)]
struct Entry {
    words: Vec<u32>,
    pairs: bool,
    symbols: Vec<u32>,
}

/// The lexicon as `lexicon.rs` reads it, keyed in order so that the output is the same on
/// every build.
struct Tables {
    terms: Vec<Term>,
    by_word: BTreeMap<u64, Entry>,
    by_pair: BTreeMap<u64, Vec<u32>>,
    /// Stems by their first two characters: ASCII pairs (`a * 128 + b`) and others.
    stems_ascii: BTreeMap<usize, Vec<u32>>,
    by_stem: BTreeMap<u64, Vec<u32>>,
    by_char: BTreeMap<u64, Vec<u32>>,
    symbol_ascii: BTreeMap<u8, Vec<u32>>,
    lists: Vec<(String, Vec<String>)>,
}

/// The source of `lexicon_tables.rs`.
pub fn tables() -> Result<String, String> {
    parse().map(|t| emit(&t))
}

fn parse() -> Result<Tables, String> {
    let mut t = Tables {
        terms: Vec::new(),
        by_word: BTreeMap::new(),
        by_pair: BTreeMap::new(),
        stems_ascii: BTreeMap::new(),
        by_stem: BTreeMap::new(),
        by_char: BTreeMap::new(),
        symbol_ascii: BTreeMap::new(),
        lists: Vec::new(),
    };
    #[derive(Clone, Copy)]
    enum Section<'a> {
        Terms(Class),
        List(&'a str),
    }
    for (lang, name, text) in FILES {
        let mut section: Option<Section> = None;
        for (n, line) in text.lines().enumerate() {
            let at = || format!("{name}.txt:{}", n + 1);
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = Some(match Class::from_name(s) {
                    Some(class) => Section::Terms(class),
                    None if LISTS.contains(&s) => Section::List(s),
                    None => return Err(format!("{}: unknown section [{s}]", at())),
                });
                continue;
            }
            let Some(s) = section else {
                return Err(format!("{}: term outside a section", at()));
            };
            for raw in line.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                let term = fold(raw);
                let class = match s {
                    Section::List(list) => {
                        match t.lists.iter_mut().find(|(n, _)| n == list) {
                            Some((_, items)) => items.push(term),
                            None => t.lists.push((list.to_owned(), vec![term])),
                        }
                        continue;
                    }
                    Section::Terms(class) => class,
                };
                let shape = shape(&term).ok_or_else(|| format!("{}: bad term {raw:?}", at()))?;
                add(
                    &mut t,
                    Term {
                        class,
                        lang: *lang,
                        shape,
                    },
                )?;
            }
        }
    }
    Ok(t)
}

fn add(t: &mut Tables, term: Term) -> Result<(), String> {
    let id = u32::try_from(t.terms.len()).map_err(|_| "too many terms".to_owned())?;
    match &term.shape {
        Shape::Words(words) => {
            let (first, stem) = &words[0];
            if *stem {
                let mut c = first.chars();
                let (a, b) = (c.next().unwrap_or(' '), c.next().unwrap_or(' '));
                if a.is_ascii() && b.is_ascii() {
                    let key = a as usize * 128 + b as usize;
                    t.stems_ascii.entry(key).or_default().push(id);
                } else {
                    let key = (u64::from(a) << 32) | u64::from(b);
                    t.by_stem.entry(key).or_default().push(id);
                }
            } else if let Some((second, false)) = words.get(1) {
                let hash = word_hash(first);
                t.by_word.entry(hash).or_default().pairs = true;
                t.by_pair
                    .entry(pair_hash(hash, second))
                    .or_default()
                    .push(id);
            } else {
                t.by_word
                    .entry(word_hash(first))
                    .or_default()
                    .words
                    .push(id);
            }
        }
        Shape::Cjk(s) => {
            let c = s.chars().next().expect("terms are not empty");
            t.by_char.entry(u64::from(c)).or_default().push(id);
        }
        Shape::Symbol(s) => {
            let lead: &str = s
                .split(|c: char| !c.is_alphanumeric() || is_cjk(c))
                .next()
                .unwrap_or("");
            if !lead.is_empty() {
                t.by_word
                    .entry(word_hash(lead))
                    .or_default()
                    .symbols
                    .push(id);
            } else {
                let b = s.as_bytes()[0];
                if !b.is_ascii() {
                    return Err(format!("symbol {s:?} starts with neither a word nor ASCII"));
                }
                t.symbol_ascii.entry(b).or_default().push(id);
            }
        }
    }
    t.terms.push(term);
    Ok(())
}

/// The shape of a (folded) term; `None`: not a valid term.
fn shape(term: &str) -> Option<Shape> {
    if term.is_empty() {
        return None;
    }
    if term.chars().any(is_cjk) {
        if term.contains('*') || term.contains(' ') {
            return None;
        }
        return Some(Shape::Cjk(term.to_owned()));
    }
    let wordy = term
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '*' | '\'' | '-'));
    if !wordy {
        // A `*` of a symbol is literal: `*_token` names every token variable.
        return Some(Shape::Symbol(term.to_owned()));
    }
    let mut words = Vec::new();
    for part in term.split([' ', '\'', '-']).filter(|p| !p.is_empty()) {
        let (w, stem) = match part.strip_suffix('*') {
            Some(w) => (w, true),
            None => (part, false),
        };
        // A stem needs two characters: stems are looked up by them.
        if w.is_empty() || w.contains('*') || stem && w.chars().count() < 2 {
            return None;
        }
        words.push((w.to_owned(), stem));
    }
    (!words.is_empty()).then_some(Shape::Words(words))
}

/// The flat arrays the tables point into by range: strings into `TEXT`, id lists into `IDS`.
#[derive(Default)]
struct Arrays {
    text: String,
    strings: HashMap<String, (usize, usize)>,
    ids: Vec<u32>,
}

impl Arrays {
    /// A `Span` literal of `s` in `TEXT`, each distinct string stored once.
    fn text(&mut self, s: &str) -> String {
        let (start, len) = match self.strings.get(s) {
            Some(&span) => span,
            None => {
                let span = (self.text.len(), s.len());
                self.text.push_str(s);
                self.strings.insert(s.to_owned(), span);
                span
            }
        };
        span_literal(start, len)
    }

    /// A `Span` literal of `ids` in `IDS`.
    fn ids(&mut self, ids: &[u32]) -> String {
        let start = self.ids.len();
        self.ids.extend_from_slice(ids);
        span_literal(start, ids.len())
    }
}

fn span_literal(start: usize, len: usize) -> String {
    let start = u32::try_from(start).expect("tables under 4 GiB");
    let len = u32::try_from(len).expect("tables under 4 GiB");
    format!("Span {{ start: {start}, len: {len} }}")
}

/// A `Table` literal: each key at its first free slot from [`slot`], in key order.
fn table<V>(
    keys: &BTreeMap<u64, V>,
    mut value: impl FnMut(&V) -> String,
    ty: &str,
    name: &str,
    out: &mut String,
) -> String {
    let size = (keys.len() * 2).next_power_of_two().max(2);
    let mask = size - 1;
    let mut slots = vec![(0u64, 0u32); size];
    let mut vals = Vec::new();
    for (i, (&key, v)) in keys.iter().enumerate() {
        assert_ne!(key, 0, "a key of 0 would read as an empty slot");
        let mut s = slot(key, mask);
        while slots[s].0 != 0 {
            s = (s + 1) & mask;
        }
        slots[s] = (key, u32::try_from(i).expect("fewer than 2^32 keys"));
        vals.push(value(v));
    }
    let slots: Vec<String> = slots.iter().map(|(k, v)| format!("({k}, {v})")).collect();
    let _ = writeln!(
        out,
        "static {name}_SLOTS: [(u64, u32); {}] = [{}];\nstatic {name}_VALS: [{ty}; {}] = [{}];",
        slots.len(),
        slots.join(", "),
        vals.len(),
        vals.join(", ")
    );
    format!("Table {{ slots: &{name}_SLOTS, vals: &{name}_VALS }}")
}

fn emit(t: &Tables) -> String {
    let mut a = Arrays::default();
    let mut out = String::from("// Generated by build.rs from the lexicon files. Do not edit.\n\n");
    let mut words = Vec::new();
    let mut terms = Vec::new();
    for term in &t.terms {
        let shape = match &term.shape {
            Shape::Words(list) => {
                let start = words.len();
                for (w, stem) in list {
                    words.push(format!("Word {{ text: {}, stem: {stem} }}", a.text(w)));
                }
                format!("Shape::Words({})", span_literal(start, list.len()))
            }
            Shape::Cjk(s) => format!("Shape::Cjk({})", a.text(s)),
            Shape::Symbol(s) => format!("Shape::Symbol({})", a.text(s)),
        };
        terms.push(format!(
            "Term {{ class: Class::{}, lang: Lang::{:?}, shape: {shape} }}",
            term.class.ident(),
            term.lang
        ));
    }
    let _ = writeln!(
        out,
        "static TERMS: [Term; {}] = [\n    {}\n];\nstatic WORDS: [Word; {}] = [{}];",
        terms.len(),
        terms.join(",\n    "),
        words.len(),
        words.join(", ")
    );

    let by_word = table(
        &t.by_word,
        |e| {
            format!(
                "Entry {{ words: {}, pairs: {}, symbols: {} }}",
                a.ids(&e.words),
                e.pairs,
                a.ids(&e.symbols)
            )
        },
        "Entry",
        "BY_WORD",
        &mut out,
    );
    let mut a_ids = |v: &Vec<u32>| a.ids(v);
    let by_pair = table(&t.by_pair, &mut a_ids, "Span", "BY_PAIR", &mut out);
    let by_stem = table(&t.by_stem, &mut a_ids, "Span", "BY_STEM", &mut out);
    let by_char = table(&t.by_char, &mut a_ids, "Span", "BY_CHAR", &mut out);

    let mut stem_slots = String::new();
    let mut stems = Vec::new();
    for (i, (key, list)) in t.stems_ascii.iter().enumerate() {
        let _ = write!(stem_slots, "t[{key}] = {i}; ");
        stems.push(a.ids(list));
    }
    let mut symbols = vec![span_literal(0, 0); 256];
    for (&b, list) in &t.symbol_ascii {
        symbols[usize::from(b)] = a.ids(list);
    }
    let mut items = Vec::new();
    let mut lists = Vec::new();
    for (name, list) in &t.lists {
        let start = items.len();
        for item in list {
            items.push(a.text(item));
        }
        lists.push(format!(
            "({}, {})",
            a.text(name),
            span_literal(start, list.len())
        ));
    }
    let ids: Vec<String> = a.ids.iter().map(u32::to_string).collect();
    let _ = writeln!(
        out,
        "static TEXT: &str = {:?};\nstatic IDS: [u32; {}] = [{}];\nstatic LIST_ITEMS: [Span; {}] = [{}];\nstatic STEM_ASCII: [u16; 128 * 128] = {{ let mut t = [u16::MAX; 128 * 128]; {stem_slots}t }};\nstatic STEMS: [Span; {}] = [{}];\nstatic SYMBOL_ASCII: [Span; 256] = [{}];\nstatic LIST_NAMES: [(Span, Span); {}] = [{}];\n",
        a.text,
        ids.len(),
        ids.join(", "),
        items.len(),
        items.join(", "),
        stems.len(),
        stems.join(", "),
        symbols.join(", "),
        lists.len(),
        lists.join(", "),
    );
    let _ = writeln!(
        out,
        "static LEXICON: Lexicon = Lexicon {{\n    terms: &TERMS,\n    by_word: {by_word},\n    by_pair: {by_pair},\n    stem_ascii: &STEM_ASCII,\n    stems: &STEMS,\n    by_stem: {by_stem},\n    by_char: {by_char},\n    symbol_ascii: &SYMBOL_ASCII,\n    lists: &LIST_NAMES,\n}};"
    );
    out
}
