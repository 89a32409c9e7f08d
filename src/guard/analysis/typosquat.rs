//! Names one typo away from a common word: `reqeusts-helper`, `webbapp-testing`,
//! `npx claw-diagnotsics`. Registries and skill marketplaces are squatted with misspellings
//! of popular names, so that a hurried install or a model's guess lands on the attacker's
//! package. A name's tokens are compared with a vocabulary of words that skill and package
//! names are made of (`data/vocabulary.txt`): a token that is not itself a word (or an
//! inflection of one) but is one of the typos people make of a word — two neighbours
//! swapped, a letter doubled, a letter dropped, a vowel for another — is reported.
//!
//! Made-up words far from every entry (`scanpy`, `pymatgen`) are never reported; tokens of
//! fewer than five letters are too short to tell a typo from an abbreviation.

/// Shorter tokens are abbreviations as often as typos (`cfg`, `conf`, `util`).
const MIN_LEN: usize = 5;
/// Endings that make another correct form of a word.
const SUFFIXES: &[&str] = &["s", "es", "ed", "d", "ing", "er", "ers"];
const VOWELS: &[u8] = b"aeiou";

/// A sorted list of words, as ranges of [`TEXT`].
struct Words(&'static [(u32, u8)]);

impl Words {
    fn word(&self, i: usize) -> &'static str {
        let (at, len) = self.0[i];
        &TEXT[at as usize..at as usize + usize::from(len)]
    }

    fn get(&self, word: &str) -> Option<&'static str> {
        let i = self
            .0
            .binary_search_by(|&(at, len)| {
                TEXT[at as usize..at as usize + usize::from(len)].cmp(word)
            })
            .ok()?;
        Some(self.word(i))
    }

    fn contains(&self, word: &str) -> bool {
        self.get(word).is_some()
    }

    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        (0..self.0.len()).map(|i| self.word(i))
    }
}

struct Tables {
    /// Every correct spelling: the vocabulary and its near neighbours.
    words: Words,
    /// The vocabulary, whose typos are looked for.
    sources: Words,
}

// `SOURCES` (`data/vocabulary.txt`) and `WORDS` (with `data/not_typos.txt`), sorted by
// `build.rs`, and `TEXT` they are ranges of: a hash set of them cost every process half a
// million instructions.
include!(concat!(env!("OUT_DIR"), "/typosquat_words.rs"));

fn tables() -> &'static Tables {
    static T: Tables = Tables {
        words: Words(&WORDS),
        sources: Words(&SOURCES),
    };
    &T
}

/// The vocabulary word `token` is a typo of, worked back from the token: every edit that
/// undoes a typo shape (swap neighbours back, drop a doubled letter, put a dropped letter
/// back) gives a candidate, and a candidate counts when it is a vocabulary word whose typos
/// (see [`typos_of`]) include the token. A few hundred set lookups per token, and no table
/// of all typos to build at start-up; the smallest word wins when several do.
fn typo_of(t: &Tables, token: &str) -> Option<&'static str> {
    let b = token.as_bytes();
    let mut best: Option<&'static str> = None;
    let mut consider = |candidate: Vec<u8>| {
        let Ok(c) = std::str::from_utf8(&candidate) else {
            return;
        };
        if let Some(w) = t.sources.get(c) {
            if w.len() >= MIN_LEN && typos_of(w).iter().any(|x| x == token) {
                best = Some(best.map_or(w, |b| b.min(w)));
            }
        }
    };
    for i in 0..b.len().saturating_sub(1) {
        let mut v = b.to_vec();
        v.swap(i, i + 1);
        consider(v);
    }
    for i in 1..b.len() {
        if b[i] == b[i - 1] {
            let mut v = b.to_vec();
            v.remove(i);
            consider(v);
        }
    }
    for i in 1..=b.len() {
        for c in b'a'..=b'z' {
            let mut v = b.to_vec();
            v.insert(i, c);
            consider(v);
        }
    }
    best
}

/// Whether `t` is a word or an inflection of one (`validated`, `parsing`, `tests`).
fn known(words: &Words, t: &str) -> bool {
    words.contains(t)
        || SUFFIXES.iter().any(|s| {
            t.strip_suffix(s).is_some_and(|stem| {
                words.contains(stem)
                    || matches!(*s, "ed" | "ing" | "er" | "ers")
                        && words.contains(format!("{stem}e").as_str())
            })
        })
}

/// The typos of `w` that people make: never in the first letter, which readers check. A vowel
/// for another (`model` -> `modal`, `block` -> `black`) makes real words too often to count,
/// except in `-ator` (see [`misspelling`]).
fn typos_of(w: &str) -> Vec<String> {
    let b = w.as_bytes();
    let mut out = Vec::new();
    let mut push = |v: Vec<u8>| {
        if let Ok(s) = String::from_utf8(v) {
            if s != w {
                out.push(s);
            }
        }
    };
    for i in 1..b.len() {
        if i + 1 < b.len() && b[i] != b[i + 1] {
            let mut v = b.to_vec();
            v.swap(i, i + 1);
            push(v);
        }
        // Not the last letter: `licensee`, `scoped` -> `scopedd` are words or noise.
        if i + 1 < b.len() {
            let mut v = b.to_vec();
            v.insert(i, b[i]);
            push(v);
        }
        // A dropped letter reads as a typo when it leaves what English does not spell:
        // three consonants in a row (`confg`), or one letter of a pair (`comit`). Other drops
        // make words as often as typos (`status` -> `stats`, `crypto` -> `crypt`).
        if b.len() > MIN_LEN {
            let mut v = b.to_vec();
            v.remove(i);
            let pair = b[i] == b[i - 1] || b.get(i + 1) == Some(&b[i]);
            if pair || consonant_run(&v) >= 3 && consonant_run(&v) > consonant_run(b) {
                push(v);
            }
        }
    }
    out
}

/// The longest run of consonants (`y` counts as a vowel).
fn consonant_run(b: &[u8]) -> usize {
    let mut best = 0;
    let mut run = 0;
    for c in b {
        run = if VOWELS.contains(c) || *c == b'y' {
            0
        } else {
            run + 1
        };
        best = best.max(run);
    }
    best
}

/// A token of a name that misspells a common word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misspelling {
    /// Byte range of the token in the name.
    pub start: usize,
    pub end: usize,
    pub word: &'static str,
}

/// The first token of `name` (split at anything but ASCII letters and digits) that is a typo
/// of a vocabulary word.
pub fn misspelling(name: &str) -> Option<Misspelling> {
    let t = tables();
    let mut start = 0;
    for token in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let end = start + token.len();
        let lower = token.to_ascii_lowercase();
        // `validater`: an -er agent noun of `validate` in form, but the word is `validator`.
        if let Some(stem) = lower.strip_suffix("ater") {
            if let Some(word) = t.words.get(format!("{stem}ator").as_str()) {
                return Some(Misspelling { start, end, word });
            }
        }
        if lower.len() >= MIN_LEN
            && lower.bytes().all(|c| c.is_ascii_lowercase())
            && !known(&t.words, &lower)
        {
            if let Some(word) = typo_of(t, &lower) {
                return Some(Misspelling { start, end, word });
            }
        }
        start = end + 1;
    }
    None
}

/// The `name:` of a SKILL.md front matter and its byte range, when it is a plain scalar on
/// its own line (as the lint requires of a published skill).
pub fn front_matter_name(text: &str) -> Option<(usize, &str)> {
    let body = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut at = text.len() - body.len();
    for line in body.split_inclusive('\n') {
        let l = line.trim_end();
        if l == "---" || l == "..." {
            break;
        }
        if let Some(v) = l.strip_prefix("name:") {
            let value = v.trim().trim_matches(['"', '\'']);
            let offset = at + l.find(value).unwrap_or(0);
            return (!value.is_empty()).then_some((offset, value));
        }
        at += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typos_of_squatters_are_found() {
        for (name, word) in [
            ("webbapp-testing", "webapp"),
            ("json-parsre", "parser"),
            ("reqeusts-helper", "requests"),
            ("confg-validator", "config"),
            ("claw-diagnotsics", "diagnostics"),
            ("claw-validater", "validator"),
        ] {
            assert_eq!(misspelling(name).map(|m| m.word), Some(word), "{name}");
        }
        let m = misspelling("my-reqeusts").unwrap();
        assert_eq!(&"my-reqeusts"[m.start..m.end], "reqeusts");
    }

    #[test]
    fn words_their_forms_and_made_up_names_pass() {
        for name in [
            "webapp-testing",
            "validated-parsing",
            "scanpy",
            "pymatgen",
            "skill-creator",
            "mcp-builder",
            "statsmodels",
            "docx",
            "superpowers",
            "brainstorming",
            "writing-plans",
            "",
            "----",
            "ÄÖÜ-größe",
            "a1b2c3d4e5",
            "stats",
            "black",
            "modal",
            "compile-db",
            "caution",
            "crypt",
        ] {
            assert_eq!(misspelling(name), None, "{name}");
        }
    }

    #[test]
    fn every_typo_shape_of_every_word_is_worked_back_and_no_word_is_a_typo() {
        let t = tables();
        for w in t.sources.iter() {
            assert_eq!(misspelling(w), None, "{w}");
            if w.len() < MIN_LEN {
                continue;
            }
            for typo in typos_of(w) {
                if !known(&t.words, &typo) {
                    assert!(typo_of(t, &typo).is_some(), "{typo} of {w}");
                }
            }
        }
    }

    /// The generated lists are sorted, so that every word of the files is found.
    #[test]
    fn the_lists_are_sorted_and_every_word_is_found() {
        let t = tables();
        for list in [&t.sources, &t.words] {
            let words: Vec<&str> = list.iter().collect();
            assert!(words.windows(2).all(|w| w[0] < w[1]));
        }
        for text in [
            include_str!("data/vocabulary.txt"),
            include_str!("data/not_typos.txt"),
        ] {
            for w in text
                .lines()
                .filter(|l| !l.starts_with('#'))
                .flat_map(str::split_whitespace)
            {
                assert_eq!(t.words.get(w), Some(w));
            }
        }
        assert!(t.sources.contains("request") && !t.sources.contains("instal"));
        assert!(t.words.contains("instal") && !t.words.contains("reqeust"));
    }

    #[test]
    fn the_front_matter_name_is_found_where_it_is() {
        let text = "---\ndescription: x\nname: \"json-parsre\"\n---\nname: other\n";
        let (at, name) = front_matter_name(text).unwrap();
        assert_eq!(name, "json-parsre");
        assert_eq!(&text[at..at + name.len()], name);
        assert_eq!(front_matter_name("no front matter\nname: x\n"), None);
        assert_eq!(front_matter_name("---\nname:\n---\n"), None);
        assert_eq!(front_matter_name("---\ntitle: x\n---\nname: y\n"), None);
    }

    #[test]
    fn a_huge_name_is_linear() {
        let name = "reqeustz-".repeat(100_000);
        assert_eq!(misspelling(&name), None);
    }
}
