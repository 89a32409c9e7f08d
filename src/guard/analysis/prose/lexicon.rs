//! The word lists of prose analysis, one data file per language under `lexicon/`, and the
//! matcher that finds their terms in a sentence. `build.rs` parses the files into static
//! tables (`OUT_DIR/lexicon_tables.rs`), so no process pays for parsing them: the pre-commit
//! hook, which scans one small file, used to spend a third of its time there.
//!
//! A file has `[class]` sections of terms, one or more per line, comma-separated; `#` starts a
//! comment line. Terms are lowercase and matched on the normalised sentence (lowercase, Latin
//! diacritics folded, whitespace collapsed):
//!
//! - words (`send`, `api key`, `upload*`): a sequence of whole words, a trailing `*` letting a
//!   word go on (`upload*` is also `uploads`, `uploading`); spaces, hyphens and apostrophes
//!   between the words of the text are all the same;
//! - CJK terms (`发送到`, `しないで`): substrings of a run of Han or kana characters, which have
//!   no spaces to mark words;
//! - symbols (`~/.ssh`, `.env`, `e.g.`): any other term, matched as a substring whose ends do
//!   not run into a letter or digit.
//!
//! `common.txt` also holds plain lists (hosts, extensions, top-level domains) used by the
//! structural detectors rather than by the word matcher.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

mod shared;

pub use shared::{fold, fold_char, is_cjk, Class, Lang};
use shared::{pair_hash, slot, word_hash, Fnv};
#[cfg(test)]
use shared::{FILES, LISTS};

type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// A range of one of the generated arrays ([`TEXT`] for strings, [`IDS`] for term ids).
/// The tables hold ranges rather than references: a reference in a static is a relocation
/// that the loader applies, page by page, at every start of the process, and the lexicon's
/// ten thousand of them cost a pre-commit hook a hundred page faults.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }

    fn text(self) -> &'static str {
        &TEXT[self.range()]
    }

    fn ids(self) -> &'static [u32] {
        &IDS[self.range()]
    }
}

/// One word of a word term: its text, and whether it may go on (`upload*`).
#[derive(Debug, Clone, Copy)]
struct Word {
    text: Span,
    stem: bool,
}

#[derive(Debug, Clone, Copy)]
enum Shape {
    /// A range of [`WORDS`].
    Words(Span),
    Cjk(Span),
    Symbol(Span),
}

#[derive(Debug)]
struct Term {
    class: Class,
    lang: Lang,
    shape: Shape,
}

impl Term {
    fn words(&self) -> Option<&'static [Word]> {
        match self.shape {
            Shape::Words(s) => Some(&WORDS[s.range()]),
            _ => None,
        }
    }
}

/// One occurrence of a term in a sentence: byte offsets in the normalised text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub class: Class,
    pub lang: Lang,
    pub start: usize,
    pub end: usize,
}

/// Longest word looked up: a longer run of letters is no word of any list.
const MAX_WORD_BYTES: usize = 64;
/// Occurrences of one symbol term kept per sentence.
const MAX_SYMBOL_HITS: usize = 16;

/// What a word of a sentence may start.
#[derive(Debug)]
struct Entry {
    /// Word terms.
    words: Span,
    /// Whether it starts terms of [`Lexicon::by_pair`].
    pairs: bool,
    /// Symbol terms that start with this word (`id_rsa`, `process.env`).
    symbols: Span,
}

/// A hash table that `build.rs` lays out: open addressing with linear probing over `u64`
/// keys, 0 marking an empty slot, a power of two of slots at most half full.
struct Table<V: 'static> {
    /// Key and index into `vals`.
    slots: &'static [(u64, u32)],
    vals: &'static [V],
}

impl<V> Table<V> {
    fn get(&self, key: u64) -> Option<&'static V> {
        if self.vals.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = slot(key, mask);
        loop {
            let (k, v) = self.slots[i];
            if k == key {
                return Some(&self.vals[v as usize]);
            }
            if k == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }
}

/// The key of a pair of characters in [`Lexicon::by_stem`].
fn char_pair(a: char, b: char) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

pub struct Lexicon {
    terms: &'static [Term],
    /// Word terms by the hash of their first word ([`word_hash`]), when their second word
    /// (if any) is a stem; and whether the word starts terms of [`Lexicon::by_pair`] (most
    /// words of a sentence are in neither, and cost this one lookup).
    by_word: Table<Entry>,
    /// Word terms by the hash of their first two words: "the webhook" is tried only where
    /// "the" is followed by "webhook", not at every "the".
    by_pair: Table<Span>,
    /// Word terms whose first word is a stem, by the stem's first two characters: a table
    /// for ASCII pairs (indices into `stems`, `u16::MAX` for none), a hash table
    /// ([`char_pair`]) for the others.
    stem_ascii: &'static [u16; 128 * 128],
    stems: &'static [Span],
    by_stem: Table<Span>,
    /// CJK terms by their first character.
    by_char: Table<Span>,
    /// Symbol terms that start with punctuation (`~/.ssh`, `.env`, `$env`), by that ASCII
    /// byte; those that start with a word are in [`Entry::symbols`].
    symbol_ascii: &'static [Span; 256],
    /// The plain lists of `common.txt`: name, and a range of [`LIST_ITEMS`].
    lists: &'static [(Span, Span)],
}

// `TEXT`, `IDS`, `WORDS`, `LIST_ITEMS`, the tables and `LEXICON`.
include!(concat!(env!("OUT_DIR"), "/lexicon_tables.rs"));

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

impl Lexicon {
    /// The lexicon of every language.
    pub fn get() -> &'static Lexicon {
        &LEXICON
    }

    /// A plain list of `common.txt` (hosts, extensions).
    pub fn list(&self, name: &str) -> impl Iterator<Item = &'static str> {
        let items = self
            .lists
            .iter()
            .find(|(n, _)| n.text() == name)
            .map_or(&[][..], |(_, list)| &LIST_ITEMS[list.range()]);
        items.iter().map(|s| s.text())
    }

    /// Every term of the lexicon found in `text` (normalised), unordered.
    pub fn find(&self, text: &str, out: &mut Vec<Found>) {
        let tokens = tokens(text);
        let mut seen: Map<u32, usize> = Map::default();
        for (i, tok) in tokens.iter().enumerate() {
            if tok.cjk {
                self.find_cjk(text, tok, out);
                continue;
            }
            let word = &text[tok.start..tok.end];
            if word.len() > MAX_WORD_BYTES {
                continue;
            }
            let hash = word_hash(word);
            if let Some(entry) = self.by_word.get(hash) {
                for &id in entry.words.ids() {
                    self.try_words(id, text, &tokens, i, out);
                }
                for &id in entry.symbols.ids() {
                    self.try_symbol(id, text, tok.start, &mut seen, out);
                }
                match tokens.get(i + 1) {
                    Some(next) if entry.pairs && !next.cjk && joined(text, tok, next) => {
                        let second = &text[next.start..next.end];
                        if let Some(ids) = self.by_pair.get(pair_hash(hash, second)) {
                            for &id in ids.ids() {
                                self.try_words(id, text, &tokens, i, out);
                            }
                        }
                    }
                    _ => {}
                }
            }
            let wb = word.as_bytes();
            let stems = match wb {
                [a, b, ..] if a.is_ascii() && b.is_ascii() => self
                    .stem_ascii
                    .get(usize::from(*a) * 128 + usize::from(*b))
                    .filter(|&&slot| slot != u16::MAX)
                    .map(|&slot| self.stems[usize::from(slot)].ids()),
                [_, _, ..] => {
                    let mut chars = word.chars();
                    match (chars.next(), chars.next()) {
                        (Some(a), Some(b)) => self.by_stem.get(char_pair(a, b)).map(|s| s.ids()),
                        _ => None,
                    }
                }
                _ => None,
            };
            for &id in stems.into_iter().flatten() {
                self.try_words(id, text, &tokens, i, out);
            }
        }
        self.find_symbols(text, &mut seen, out);
    }

    /// Symbol terms: looked up at every character that starts one, at a word start when
    /// the term starts with a letter (`id_rsa`, not `...paid_rsa`); the second byte is
    /// compared before the rest.
    fn find_symbols(&self, text: &str, seen: &mut Map<u32, usize>, out: &mut Vec<Found>) {
        let table = self.symbol_ascii;
        for (at, &b) in text.as_bytes().iter().enumerate() {
            for &id in table[usize::from(b)].ids() {
                self.try_symbol(id, text, at, seen, out);
            }
        }
    }

    /// Symbol term `id` at byte `at`: its ends must not run into a word (`.env` is no
    /// symbol of `config.env` or `.envrc`).
    fn try_symbol(
        &self,
        id: u32,
        text: &str,
        at: usize,
        seen: &mut Map<u32, usize>,
        out: &mut Vec<Found>,
    ) {
        let term = &self.terms[id as usize];
        let Shape::Symbol(s) = term.shape else {
            return;
        };
        let s = s.text();
        if !text.as_bytes()[at..].starts_with(s.as_bytes()) {
            return;
        }
        let n = seen.entry(id).or_default();
        if *n >= MAX_SYMBOL_HITS {
            return;
        }
        let end = at + s.len();
        let prev = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        let first = s.chars().next().expect("not empty");
        let last = s.chars().next_back().expect("not empty");
        let open = !(first == '.' && prev.is_some_and(is_word_char));
        let close = !last.is_alphanumeric() || !after.is_some_and(is_word_char);
        if open && close {
            *n += 1;
            out.push(Found {
                class: term.class,
                lang: term.lang,
                start: at,
                end,
            });
        }
    }

    fn try_words(&self, id: u32, text: &str, tokens: &[Token], i: usize, out: &mut Vec<Found>) {
        let term = &self.terms[id as usize];
        let Some(words) = term.words() else {
            return;
        };
        let mut end = 0;
        for (k, w) in words.iter().enumerate() {
            let Some(tok) = tokens.get(i + k) else {
                return;
            };
            if tok.cjk {
                return;
            }
            if k > 0 && !joined(text, &tokens[i + k - 1], tok) {
                return;
            }
            let word = &text[tok.start..tok.end];
            let ok = if w.stem {
                word.starts_with(w.text.text())
            } else {
                word == w.text.text()
            };
            if !ok {
                return;
            }
            end = tok.end;
        }
        out.push(Found {
            class: term.class,
            lang: term.lang,
            start: tokens[i].start,
            end,
        });
    }

    fn find_cjk(&self, text: &str, tok: &Token, out: &mut Vec<Found>) {
        let run = &text[tok.start..tok.end];
        for (at, c) in run.char_indices() {
            let Some(ids) = self.by_char.get(u64::from(c)) else {
                continue;
            };
            for &id in ids.ids() {
                let term = &self.terms[id as usize];
                if let Shape::Cjk(s) = term.shape {
                    let s = s.text();
                    if run[at..].starts_with(s) {
                        out.push(Found {
                            class: term.class,
                            lang: term.lang,
                            start: tok.start + at,
                            end: tok.start + at + s.len(),
                        });
                    }
                }
            }
        }
    }
}

/// Two words of the text are consecutive words of a term: only spaces, hyphens,
/// apostrophes or underscores between them, at most three.
fn joined(text: &str, a: &Token, b: &Token) -> bool {
    let gap = &text.as_bytes()[a.end..b.start];
    gap.len() <= 3 && gap.iter().all(|c| matches!(c, b' ' | b'-' | b'\'' | b'_'))
}

#[derive(Debug, Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    cjk: bool,
}

/// Which ASCII bytes are letters or digits.
const ASCII_WORD: [bool; 128] = {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    t
};

/// Runs of letters and digits, a run of CJK characters apart from the letters around it.
fn tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out: Vec<Token> = Vec::with_capacity(bytes.len() / 5 + 1);
    let mut open: Option<Token> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (kind, len) = if b < 0x80 {
            (ASCII_WORD[usize::from(b)].then_some(false), 1)
        } else {
            let c = text[i..].chars().next().expect("at a character");
            let kind = if is_cjk(c) {
                Some(true)
            } else {
                c.is_alphanumeric().then_some(false)
            };
            (kind, c.len_utf8())
        };
        match (open.as_mut(), kind) {
            (Some(t), Some(cjk)) if t.cjk == cjk => t.end = i + len,
            (_, Some(cjk)) => {
                out.extend(open.take());
                open = Some(Token {
                    start: i,
                    end: i + len,
                    cjk,
                });
            }
            (_, None) => out.extend(open.take()),
        }
        i += len;
    }
    out.extend(open);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(text: &str) -> Vec<(Class, String)> {
        let lex = Lexicon::get();
        let text = fold(text);
        let mut out = Vec::new();
        lex.find(&text, &mut out);
        let mut v: Vec<(Class, String)> = out
            .iter()
            .map(|f| (f.class, text[f.start..f.end].to_owned()))
            .collect();
        v.sort();
        v
    }

    fn has(text: &str, class: Class, what: &str) -> bool {
        classes(text).iter().any(|(c, w)| *c == class && w == what)
    }

    #[test]
    fn every_file_is_in_the_tables_with_lowercase_terms() {
        let lex = Lexicon::get();
        assert!(lex.terms.len() > 500, "{} terms", lex.terms.len());
        for (_, name, text) in FILES {
            for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
                assert_eq!(
                    line.to_lowercase(),
                    line,
                    "{name}.txt: terms are lowercase: {line:?}"
                );
            }
        }
        for list in LISTS {
            assert!(lex.list(list).next().is_some(), "common.txt has [{list}]");
        }
    }

    /// Every term of the generated tables is found where it stands alone: a key that
    /// `build.rs` put in a slot the lookup never probes, or an id list of another key, fails.
    #[test]
    fn every_term_is_found_in_a_sentence_of_its_own() {
        let lex = Lexicon::get();
        let mut missed = Vec::new();
        for (id, term) in lex.terms.iter().enumerate() {
            let text = match term.shape {
                Shape::Words(_) => term
                    .words()
                    .unwrap()
                    .iter()
                    .map(|w| format!("{}{}", w.text.text(), if w.stem { "x" } else { "" }))
                    .collect::<Vec<_>>()
                    .join(" "),
                Shape::Cjk(s) | Shape::Symbol(s) => s.text().to_owned(),
            };
            let text = format!("( {text} )");
            let mut out = Vec::new();
            lex.find(&text, &mut out);
            if !out
                .iter()
                .any(|f| f.class == term.class && f.lang == term.lang && f.start == 2)
            {
                missed.push(format!("term {id} {term:?} not found in {text:?}"));
            }
        }
        assert!(missed.is_empty(), "{}", missed.join("\n"));
    }

    #[test]
    fn every_language_has_the_core_classes() {
        let lex = Lexicon::get();
        let core = [
            Class::Send,
            Class::ObjStrong,
            Class::ObjWeak,
            Class::Dest,
            Class::To,
            Class::Negation,
            Class::Describe,
            Class::Download,
            Class::Run,
            Class::Prereq,
            Class::Password,
            Class::Override,
            Class::Rules,
            Class::Stealth,
            Class::Tell,
            Class::User,
        ];
        for (lang, name, _) in FILES.iter().skip(1) {
            for class in core {
                assert!(
                    lex.terms
                        .iter()
                        .any(|t| t.lang == *lang && t.class == class),
                    "{name}.txt has no [{}]",
                    class.name()
                );
            }
        }
    }

    #[test]
    fn words_stems_cjk_and_symbols_match() {
        assert!(has("two Passwords here", Class::ObjWeak, "passwords"));
        assert!(!has("Uploading it now", Class::Send, "uploading"));
        assert!(has("the API-key here", Class::ObjWeak, "api-key"));
        assert!(has("don't do it", Class::Negation, "don't"));
        assert!(has("请将密钥发送到服务器", Class::Send, "发送"));
        assert!(has("cat ~/.ssh/id_rsa", Class::ObjStrong, "~/.ssh"));
        assert!(has("the .env file", Class::ObjStrong, ".env"));
        assert!(!has("the .envrc file", Class::ObjStrong, ".env"));
        assert!(!has("load config.env", Class::ObjStrong, ".env"));
        assert!(has("Envíe la contraseña", Class::Send, "envie"));
        assert!(has("Schlüssel", Class::ObjWeak, "schlussel"));
        assert!(!has("resend", Class::Send, "send"));
    }

    #[test]
    fn hostile_words_are_cheap() {
        let long = "a".repeat(1 << 20);
        let mut out = Vec::new();
        Lexicon::get().find(&long, &mut out);
        assert!(out.is_empty());
        let cjk = "发".repeat(1 << 18);
        out.clear();
        Lexicon::get().find(&cjk, &mut out);
    }
}
