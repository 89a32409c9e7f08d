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
use std::sync::OnceLock;

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

#[derive(Debug, Default)]
pub struct Lexicon {
    terms: Vec<Term>,
    by_word: HashMap<String, Vec<u32>>,
    by_stem: HashMap<String, Vec<u32>>,
    /// Lengths in characters of the stems, ascending.
    stem_chars: Vec<usize>,
    by_char: HashMap<char, Vec<u32>>,
    symbols: Vec<u32>,
    lists: HashMap<String, Vec<String>>,
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
        for (lang, name, text) in files {
            let mut section: Option<&str> = None;
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    if Class::from_name(s).is_none() && !LISTS.contains(&s) {
                        return Err(format!("{name}.txt:{}: unknown section [{s}]", n + 1));
                    }
                    section = Some(s);
                    continue;
                }
                let Some(s) = section else {
                    return Err(format!("{name}.txt:{}: term outside a section", n + 1));
                };
                for raw in line.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                    let term = fold(raw);
                    if LISTS.contains(&s) {
                        lex.lists.entry(s.to_owned()).or_default().push(term);
                        continue;
                    }
                    let class = Class::from_name(s).expect("checked above");
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
        lex.stem_chars.sort_unstable();
        lex.stem_chars.dedup();
        Ok(lex)
    }

    fn add(&mut self, term: Term) {
        let id = self.terms.len() as u32;
        match &term.shape {
            Shape::Words(words) => {
                let (first, stem) = &words[0];
                if *stem {
                    self.stem_chars.push(first.chars().count());
                    self.by_stem.entry(first.clone()).or_default().push(id);
                } else {
                    self.by_word.entry(first.clone()).or_default().push(id);
                }
            }
            Shape::Cjk(s) => {
                let c = s.chars().next().expect("terms are not empty");
                self.by_char.entry(c).or_default().push(id);
            }
            Shape::Symbol(_) => self.symbols.push(id),
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
        for (i, tok) in tokens.iter().enumerate() {
            if tok.cjk {
                self.find_cjk(text, tok, out);
                continue;
            }
            let word = &text[tok.start..tok.end];
            if word.len() > MAX_WORD_BYTES {
                continue;
            }
            if let Some(ids) = self.by_word.get(word) {
                for &id in ids {
                    self.try_words(id, text, &tokens, i, out);
                }
            }
            let bounds: Vec<usize> = word
                .char_indices()
                .skip(1)
                .map(|(b, _)| b)
                .chain([word.len()])
                .collect();
            for &chars in &self.stem_chars {
                let Some(&b) = bounds.get(chars - 1) else {
                    break;
                };
                if let Some(ids) = self.by_stem.get(&word[..b]) {
                    for &id in ids {
                        self.try_words(id, text, &tokens, i, out);
                    }
                }
            }
        }
        for &id in &self.symbols {
            let term = &self.terms[id as usize];
            let Shape::Symbol(s) = &term.shape else {
                continue;
            };
            for (at, _) in text.match_indices(s.as_str()).take(MAX_SYMBOL_HITS) {
                let end = at + s.len();
                let before = text[..at].chars().next_back();
                let after = text[end..].chars().next();
                let first = s.chars().next().expect("not empty");
                let last = s.chars().next_back().expect("not empty");
                let open = !first.is_alphanumeric() || !before.is_some_and(is_word_char);
                let open = open && !(first == '.' && before.is_some_and(is_word_char));
                let close = !last.is_alphanumeric() || !after.is_some_and(is_word_char);
                if open && close {
                    out.push(Found {
                        class: term.class,
                        lang: term.lang,
                        start: at,
                        end,
                    });
                }
            }
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
            if k > 0 {
                let gap = &text[tokens[i + k - 1].end..tok.start];
                if gap.len() > 3 || !gap.chars().all(|c| matches!(c, ' ' | '-' | '\'' | '_')) {
                    return;
                }
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
        if w.is_empty() || w.contains('*') {
            return None;
        }
        words.push((w.to_owned(), stem));
    }
    (!words.is_empty()).then_some(Shape::Words(words))
}

#[derive(Debug, Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    cjk: bool,
}

/// Runs of letters and digits, a run of CJK characters apart from the letters around it.
fn tokens(text: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let mut open: Option<Token> = None;
    for (i, c) in text.char_indices() {
        let kind = if is_cjk(c) {
            Some(true)
        } else if c.is_alphanumeric() {
            Some(false)
        } else {
            None
        };
        match (open.as_mut(), kind) {
            (Some(t), Some(cjk)) if t.cjk == cjk => t.end = i + c.len_utf8(),
            (_, Some(cjk)) => {
                out.extend(open.take());
                open = Some(Token {
                    start: i,
                    end: i + c.len_utf8(),
                    cjk,
                });
            }
            (_, None) => out.extend(open.take()),
        }
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
