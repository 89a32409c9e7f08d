//! The word lists of prose analysis: one data file per language under `lexicon/`, parsed once
//! into hash maps, and the matcher that finds their terms in a sentence.
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
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// FNV-1a: the maps are built from the lexicon and looked up once per word of every
/// sentence, where SipHash's cost showed. Their keys are fixed, so flooding is no concern.
#[derive(Default, Clone, Copy)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

macro_rules! classes {
    ($($variant:ident => $name:literal,)*) => {
        /// What a term means to the detectors.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Class {
            $($variant,)*
        }

        impl Class {
            pub const ALL: &'static [Class] = &[$(Class::$variant,)*];

            fn from_name(name: &str) -> Option<Class> {
                match name {
                    $($name => Some(Class::$variant),)*
                    _ => None,
                }
            }

            pub fn name(self) -> &'static str {
                match self {
                    $(Class::$variant => $name,)*
                }
            }
        }
    };
}

classes! {
    Send => "send",
    Collect => "collect",
    Embed => "embed",
    ObjStrong => "object_strong",
    ObjWeak => "object_weak",
    Anaphor => "anaphor",
    Dest => "destination",
    To => "to",
    ToAfter => "to_after",
    From => "from",
    FromAfter => "from_after",
    With => "with",
    Auth => "auth",
    Negation => "negation",
    Affirm => "affirm",
    Describe => "describe",
    UrlTarget => "url_target",
    Download => "download",
    Run => "run",
    Prereq => "prerequisite",
    Terminal => "terminal",
    Password => "password",
    Extract => "extract",
    Archive => "archive",
    PackageManager => "package_manager",
    Override => "override",
    Rules => "rules",
    Demote => "demote",
    Unbound => "unbound",
    ModeEntry => "mode_entry",
    ModeName => "mode_name",
    Stealth => "stealth",
    StealthWeak => "stealth_weak",
    Act => "act",
    Tell => "tell",
    User => "user",
    About => "about",
    Condition => "condition",
    Authority => "authority",
    Untrusted => "untrusted",
    Script => "script",
    Modal => "modal",
    Contrast => "contrast",
}

/// The language a term comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    Common,
    En,
    Es,
    De,
    Fr,
    Pt,
    Ru,
    Zh,
    Ja,
}

impl Lang {
    /// Imperatives put the object after the verb ("send the key to"), so an object before
    /// the verb belongs to another clause. German, Russian, Chinese and Japanese also put it
    /// before the verb.
    pub fn verb_first(self) -> bool {
        matches!(self, Lang::En | Lang::Es | Lang::Fr | Lang::Pt)
    }
}

/// The lexicon files, by language.
pub const FILES: &[(Lang, &str, &str)] = &[
    (Lang::Common, "common", include_str!("lexicon/common.txt")),
    (Lang::En, "en", include_str!("lexicon/en.txt")),
    (Lang::Es, "es", include_str!("lexicon/es.txt")),
    (Lang::De, "de", include_str!("lexicon/de.txt")),
    (Lang::Fr, "fr", include_str!("lexicon/fr.txt")),
    (Lang::Pt, "pt", include_str!("lexicon/pt.txt")),
    (Lang::Ru, "ru", include_str!("lexicon/ru.txt")),
    (Lang::Zh, "zh", include_str!("lexicon/zh.txt")),
    (Lang::Ja, "ja", include_str!("lexicon/ja.txt")),
];

/// Sections of `common.txt` that are plain lists rather than terms.
const LISTS: &[&str] = &[
    "file_host",
    "paste_host",
    "short_host",
    "release_path",
    "executable_ext",
    "archive_ext",
    "tld",
    "secret_name",
    "conversation_name",
];

#[derive(Debug)]
enum Shape {
    /// Words, each with whether it may go on.
    Words(Vec<(String, bool)>),
    Cjk(String),
    Symbol(String),
}

#[derive(Debug)]
struct Term {
    class: Class,
    lang: Lang,
    shape: Shape,
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
#[derive(Debug, Default)]
struct Entry {
    /// Word terms.
    words: Vec<u32>,
    /// Whether it starts terms of [`Lexicon::by_pair`].
    pairs: bool,
    /// Symbol terms that start with this word (`id_rsa`, `process.env`).
    symbols: Vec<u32>,
}

#[derive(Debug, Default)]
pub struct Lexicon {
    terms: Vec<Term>,
    /// Word terms by the hash of their first word ([`word_hash`]), when their second word
    /// (if any) is a stem; and whether the word starts terms of [`Lexicon::by_pair`] (most
    /// words of a sentence are in neither, and cost this one lookup).
    by_word: Map<u64, Entry>,
    /// Word terms by the hash of their first two words: "the webhook" is tried only where
    /// "the" is followed by "webhook", not at every "the".
    by_pair: Map<u64, Vec<u32>>,
    /// Word terms whose first word is a stem, by the stem's first two characters: a table
    /// for ASCII pairs (indices into `stems`), a map for the others.
    stem_ascii: Vec<u16>,
    stems: Vec<Vec<u32>>,
    by_stem: Map<(char, char), Vec<u32>>,
    /// CJK terms by their first character.
    by_char: Map<char, Vec<u32>>,
    /// Symbol terms that start with punctuation (`~/.ssh`, `.env`, `$env`), by that ASCII
    /// byte; those that start with a word are in [`Entry::symbols`].
    symbol_ascii: Vec<Vec<u32>>,
    lists: Map<String, Vec<String>>,
}

/// Han ideographs, kana and Hangul: scripts written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F | 0x20000..=0x2FA1F)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

impl Lexicon {
    /// The lexicon of every language, parsed on first use.
    pub fn get() -> &'static Lexicon {
        static LEXICON: OnceLock<Lexicon> = OnceLock::new();
        LEXICON.get_or_init(|| Lexicon::parse(FILES).expect("the prose lexicons parse"))
    }

    fn parse(files: &[(Lang, &str, &str)]) -> Result<Lexicon, String> {
        let mut lex = Lexicon::default();
        /// A section: a class of terms or a plain list.
        #[derive(Clone, Copy)]
        enum Section<'a> {
            Terms(Class),
            List(&'a str),
        }
        for (lang, name, text) in files {
            let mut section: Option<Section> = None;
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    section = Some(match Class::from_name(s) {
                        Some(class) => Section::Terms(class),
                        None if LISTS.contains(&s) => Section::List(s),
                        None => return Err(format!("{name}.txt:{}: unknown section [{s}]", n + 1)),
                    });
                    continue;
                }
                let Some(s) = section else {
                    return Err(format!("{name}.txt:{}: term outside a section", n + 1));
                };
                for raw in line.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                    let term = if raw.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
                        raw.to_owned()
                    } else {
                        fold(raw)
                    };
                    let class = match s {
                        Section::List(list) => {
                            lex.lists.entry(list.to_owned()).or_default().push(term);
                            continue;
                        }
                        Section::Terms(class) => class,
                    };
                    let shape = shape(&term)
                        .ok_or_else(|| format!("{name}.txt:{}: bad term {raw:?}", n + 1))?;
                    lex.add(Term {
                        class,
                        lang: *lang,
                        shape,
                    });
                }
            }
        }
        Ok(lex)
    }

    fn add(&mut self, term: Term) {
        let id = self.terms.len() as u32;
        match &term.shape {
            Shape::Words(words) => {
                let (first, stem) = &words[0];
                if *stem {
                    let mut c = first.chars();
                    let key = (c.next().unwrap_or(' '), c.next().unwrap_or(' '));
                    if key.0.is_ascii() && key.1.is_ascii() {
                        if self.stem_ascii.is_empty() {
                            self.stem_ascii = vec![u16::MAX; 128 * 128];
                        }
                        let slot = &mut self.stem_ascii[key.0 as usize * 128 + key.1 as usize];
                        if *slot == u16::MAX {
                            *slot = self.stems.len() as u16;
                            self.stems.push(Vec::new());
                        }
                        self.stems[*slot as usize].push(id);
                    } else {
                        self.by_stem.entry(key).or_default().push(id);
                    }
                } else if let Some((second, false)) = words.get(1) {
                    let hash = word_hash(first);
                    self.by_word.entry(hash).or_default().pairs = true;
                    self.by_pair
                        .entry(pair_hash(hash, second))
                        .or_default()
                        .push(id);
                } else {
                    self.by_word
                        .entry(word_hash(first))
                        .or_default()
                        .words
                        .push(id);
                }
            }
            Shape::Cjk(s) => {
                let c = s.chars().next().expect("terms are not empty");
                self.by_char.entry(c).or_default().push(id);
            }
            Shape::Symbol(s) => {
                let lead: &str = s
                    .split(|c: char| !c.is_alphanumeric() || is_cjk(c))
                    .next()
                    .unwrap_or("");
                if !lead.is_empty() {
                    self.by_word
                        .entry(word_hash(lead))
                        .or_default()
                        .symbols
                        .push(id);
                } else {
                    let b = s.as_bytes()[0];
                    if self.symbol_ascii.is_empty() {
                        self.symbol_ascii = vec![Vec::new(); 256];
                    }
                    self.symbol_ascii[usize::from(b)].push(id);
                }
            }
        }
        self.terms.push(term);
    }

    /// A plain list of `common.txt` (hosts, extensions).
    pub fn list(&self, name: &str) -> &[String] {
        self.lists.get(name).map(Vec::as_slice).unwrap_or(&[])
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
            if let Some(entry) = self.by_word.get(&hash) {
                for &id in &entry.words {
                    self.try_words(id, text, &tokens, i, out);
                }
                for &id in &entry.symbols {
                    self.try_symbol(id, text, tok.start, &mut seen, out);
                }
                match tokens.get(i + 1) {
                    Some(next) if entry.pairs && !next.cjk && joined(text, tok, next) => {
                        let second = &text[next.start..next.end];
                        if let Some(ids) = self.by_pair.get(&pair_hash(hash, second)) {
                            for &id in ids {
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
                    .map(|&slot| &self.stems[usize::from(slot)]),
                [_, _, ..] if !self.by_stem.is_empty() => {
                    let mut chars = word.chars();
                    match (chars.next(), chars.next()) {
                        (Some(a), Some(b)) => self.by_stem.get(&(a, b)),
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
        let table = &self.symbol_ascii;
        if table.is_empty() {
            return;
        }
        for (at, &b) in text.as_bytes().iter().enumerate() {
            for &id in &table[usize::from(b)] {
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
        let Shape::Symbol(s) = &term.shape else {
            return;
        };
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
        let Shape::Words(words) = &term.shape else {
            return;
        };
        let mut end = 0;
        for (k, (w, stem)) in words.iter().enumerate() {
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
            let ok = if *stem {
                word.starts_with(w.as_str())
            } else {
                word == w
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
            let Some(ids) = self.by_char.get(&c) else {
                continue;
            };
            for &id in ids {
                let term = &self.terms[id as usize];
                if let Shape::Cjk(s) = &term.shape {
                    if run[at..].starts_with(s.as_str()) {
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

/// FNV-1a of a word: the key of [`Lexicon::by_word`].
fn word_hash(word: &str) -> u64 {
    let mut h = Fnv::default();
    h.write(word.as_bytes());
    h.finish()
}

/// The key of [`Lexicon::by_pair`]: the first word's hash continued over a separator and
/// the second word.
fn pair_hash(first: u64, second: &str) -> u64 {
    let mut h = Fnv(first);
    h.write(&[1]);
    h.write(second.as_bytes());
    h.finish()
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

/// Lowercase, Latin diacritics folded (`é` to `e`, `ß` to `ss`), `ё` to `е`: the form both
/// terms and sentences are matched in.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        fold_char(c, &mut out);
    }
    out
}

/// Appends the folded form of one character.
pub fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    for l in c.to_lowercase() {
        let plain = match l {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
            'ç' | 'ć' | 'č' => 'c',
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => 'e',
            'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' => 'i',
            'ñ' | 'ń' | 'ň' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => 'o',
            'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => 'u',
            'ý' | 'ÿ' => 'y',
            'ś' | 'š' | 'ş' => 's',
            'ź' | 'ż' | 'ž' => 'z',
            'ł' => 'l',
            'ё' => 'е',
            'ß' => {
                out.push_str("ss");
                continue;
            }
            'œ' => {
                out.push_str("oe");
                continue;
            }
            'æ' => {
                out.push_str("ae");
                continue;
            }
            other => other,
        };
        out.push(plain);
    }
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
    fn every_file_parses_with_known_sections_and_lowercase_terms() {
        let lex = Lexicon::parse(FILES).unwrap();
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
            assert!(!lex.list(list).is_empty(), "common.txt has [{list}]");
        }
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
