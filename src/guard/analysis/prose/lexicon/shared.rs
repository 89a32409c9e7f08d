//! What the lexicon's build script (`build.rs`, which includes this file by path) and its
//! matcher share: the classes and languages, the files, the folding that terms and sentences
//! both go through, and the hashes and slots of the generated tables. Only `std` here.

use std::hash::Hasher;

/// FNV-1a: the tables are keyed by it and looked up once per word of every sentence, where
/// SipHash's cost showed. Their keys are fixed, so flooding is no concern.
#[derive(Default, Clone, Copy)]
pub struct Fnv(pub u64);

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

macro_rules! classes {
    ($($variant:ident => $name:literal,)*) => {
        /// What a term means to the detectors.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Class {
            $($variant,)*
        }

        impl Class {
            pub const ALL: &'static [Class] = &[$(Class::$variant,)*];

            pub fn from_name(name: &str) -> Option<Class> {
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

            /// The variant's Rust name, for the generated tables.
            pub fn ident(self) -> &'static str {
                match self {
                    $(Class::$variant => stringify!($variant),)*
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

// The build script reads the files and lists; the library's tests check them.
/// The lexicon files, by language.
#[cfg_attr(not(test), allow(dead_code))]
pub const FILES: &[(Lang, &str, &str)] = &[
    (Lang::Common, "common", include_str!("common.txt")),
    (Lang::En, "en", include_str!("en.txt")),
    (Lang::Es, "es", include_str!("es.txt")),
    (Lang::De, "de", include_str!("de.txt")),
    (Lang::Fr, "fr", include_str!("fr.txt")),
    (Lang::Pt, "pt", include_str!("pt.txt")),
    (Lang::Ru, "ru", include_str!("ru.txt")),
    (Lang::Zh, "zh", include_str!("zh.txt")),
    (Lang::Ja, "ja", include_str!("ja.txt")),
];

/// Sections of `common.txt` that are plain lists rather than terms.
#[cfg_attr(not(test), allow(dead_code))]
pub const LISTS: &[&str] = &[
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

/// Han ideographs, kana and Hangul: scripts written without spaces between words. The
/// iteration and closing marks (`々`, `〆`, `〇`) belong to the words they stand in
/// (`我々`).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005..=0x3007 | 0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F | 0x20000..=0x2FA1F)
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

/// FNV-1a of a word: the key of the table of first words.
pub fn word_hash(word: &str) -> u64 {
    let mut h = Fnv::default();
    h.write(word.as_bytes());
    h.finish()
}

/// The key of the table of word pairs: the first word's hash continued over a separator and
/// the second word.
pub fn pair_hash(first: u64, second: &str) -> u64 {
    let mut h = Fnv(first);
    h.write(&[1]);
    h.write(second.as_bytes());
    h.finish()
}

/// The first slot of `key` in a generated table of `mask + 1` slots (a power of two). The
/// keys are FNV hashes or characters, whose low bits alone cluster; the multiply spreads
/// them.
pub fn slot(key: u64, mask: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}
