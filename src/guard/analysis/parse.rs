//! One tree-sitter parser per grammar and thread, and a bound on the time parsing may take.
//!
//! Parsers are fast on code (1-5 MB/s) but their error recovery is not: random printable text
//! named `x.py` parses at about 0.15 MB/s, `x.js` at 0.3 MB/s. Parser operations do not show
//! it (tree-sitter reports progress every 100 of them, and junk makes as many reports per KiB
//! as code, each far slower), so the bound is a deadline: parsing one file's code may take
//! [`FILE_PARSE_TIME`] in all, and a parse still running then is abandoned, its text left
//! to the line rules as text past [`super::MAX_PARSED_BYTES`] is. Real code never comes
//! near it (a megabyte of shell parses in about 0.25 s, four times that on a loaded
//! machine); only hostile or random input does,
//! and on such input which regions past the deadline get a tree may differ from machine to
//! machine.

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    Bash,
    Python,
    JavaScript,
    PowerShell,
}

impl Grammar {
    fn index(self) -> usize {
        self as usize
    }

    fn language(self) -> tree_sitter::Language {
        match self {
            Grammar::Bash => tree_sitter_bash::LANGUAGE.into(),
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::PowerShell => tree_sitter_powershell::LANGUAGE.into(),
        }
    }
}

/// Parse time allowed per file, all its code regions together.
pub const FILE_PARSE_TIME: Duration = Duration::from_secs(2);

thread_local! {
    static PARSERS: RefCell<[Option<Parser>; 4]> = const { RefCell::new([None, None, None, None]) };
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    static ABANDONED: Cell<u64> = const { Cell::new(0) };
}

/// How many parses this thread has abandoned at a deadline: findings made after one depend on
/// the machine's speed, so the scan cache does not keep them.
pub fn abandoned() -> u64 {
    ABANDONED.with(Cell::get)
}

fn note_abandoned() {
    ABANDONED.with(|a| a.set(a.get() + 1));
}

/// Runs `f` (the analysis of one file) with parsing bounded by [`FILE_PARSE_TIME`].
pub fn with_file_deadline<T>(f: impl FnOnce() -> T) -> T {
    with_deadline(crate::clock::monotonic() + FILE_PARSE_TIME, f)
}

fn with_deadline<T>(deadline: Instant, f: impl FnOnce() -> T) -> T {
    /// Puts the outer deadline back even when `f` panics (a contained panic must not leave a
    /// spent deadline for the next file of the thread).
    struct Restore(Option<Instant>);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEADLINE.with(|d| d.set(self.0));
        }
    }
    let _restore = Restore(DEADLINE.with(|d| d.replace(Some(deadline))));
    f()
}

/// `text` as tree-sitter-bash 0.25.1's scanner can take it. Its brace-expansion check calls
/// C's `isdigit` on the code point after `{`, after the digits that follow it and after `..`
/// (`src/scanner.c`, `brace_start`): above U+00FF that reads outside glibc's table, and `{𱡀`
/// crashes the process (tree-sitter/tree-sitter-bash#337, fix not released). Such a character,
/// after `{`, `.` or an ASCII digit, is replaced here by as many `_` as it has bytes: a word
/// character by a word character, so the tree has the same shape and every byte offset still
/// points into the original text, which the analyses read.
fn bash_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let risky = |prev: char, c: char| c as u32 > 0xff && matches!(prev, '{' | '.' | '0'..='9');
    let mut prev = ' ';
    if !text.chars().any(|c| {
        let hit = risky(prev, c);
        prev = c;
        hit
    }) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut prev = ' ';
    for c in text.chars() {
        if risky(prev, c) {
            out.extend(std::iter::repeat_n('_', c.len_utf8()));
        } else {
            out.push(c);
        }
        prev = c;
    }
    std::borrow::Cow::Owned(out)
}

/// The syntax tree of `text`, or `None` when the grammar cannot be loaded or the file's
/// parse time ran out.
pub fn parse(grammar: Grammar, text: &str) -> Option<Tree> {
    let safe;
    let text = if grammar == Grammar::Bash {
        safe = bash_safe(text);
        safe.as_ref()
    } else {
        text
    };
    let deadline = DEADLINE.with(Cell::get);
    if deadline.is_some_and(|d| crate::clock::monotonic() >= d) {
        note_abandoned();
        return None;
    }
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let slot = &mut parsers[grammar.index()];
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&grammar.language()).ok()?;
            *slot = Some(p);
        }
        let parser = slot.as_mut()?;
        parser.reset();
        let bytes = text.as_bytes();
        // `true` stops the parse; called every 100 parser operations.
        let mut progress =
            |_: &ParseState| deadline.is_some_and(|d| crate::clock::monotonic() >= d);
        let tree = parser.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        if tree.is_none() {
            // An abandoned parse leaves state behind for the next one.
            parser.reset();
            note_abandoned();
        }
        tree
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_parses_in_every_grammar_and_a_spent_deadline_parses_nothing() {
        for g in [
            Grammar::Bash,
            Grammar::Python,
            Grammar::JavaScript,
            Grammar::PowerShell,
        ] {
            assert!(parse(g, "x = 1\n").is_some(), "{g:?}");
            let spent = crate::clock::monotonic() - Duration::from_millis(1);
            let before = abandoned();
            assert!(
                with_deadline(spent, || parse(g, "x = 1\n")).is_none(),
                "{g:?}"
            );
            assert_eq!(abandoned(), before + 1, "{g:?}");
            // The deadline is the file's: the next file starts with its own.
            assert!(
                with_file_deadline(|| parse(g, "x = 1\n")).is_some(),
                "{g:?}"
            );
        }
    }

    #[test]
    fn a_wide_character_after_a_brace_does_not_crash_the_bash_scanner() {
        // Each crashed the process (SIGSEGV) before the input was made safe.
        for text in [
            "{\u{31860}",
            "{1\u{10FFFF}",
            "x={1..\u{B213E}",
            "echo \"{{\u{B213E}\"",
            "a.\u{CF960}",
        ] {
            let tree = parse(Grammar::Bash, text).unwrap();
            assert_eq!(tree.root_node().end_byte(), text.len(), "{text:?}");
        }
        // Offsets stay those of the original text.
        let text = "echo {\u{31860}} \u{1F50D} $x";
        let safe = bash_safe(text);
        assert_eq!(safe.len(), text.len());
        assert_eq!(&safe[..6], "echo {");
        assert!(safe.ends_with("} \u{1F50D} $x"), "{safe}");
        assert!(matches!(
            bash_safe("echo 🔍 搜索"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_parse_stopped_midway_leaves_the_parser_usable() {
        let text = "x = [1, 2, (3, {4: 5})]\n".repeat(100_000);
        // A deadline that passes during the parse.
        let soon = crate::clock::monotonic() + Duration::from_micros(200);
        let _ = with_deadline(soon, || parse(Grammar::Python, &text));
        let tree = parse(Grammar::Python, "def f(a):\n    return a\n").unwrap();
        assert!(!tree.root_node().has_error());
    }
}
