//! The long-skill rule of optimize step 5: a SKILL.md over about 3,000 tokens is shown to the
//! model with only the sections that the signals are about; every other section becomes an
//! `<omit reason="..." section="..."/>` line naming its heading.
//!
//! - Tokens are estimated as characters / 4 (rounded up), counting each Chinese, Japanese or
//!   Korean character as a token of its own: close enough for prose and Markdown, and it
//!   needs no tokenizer. At or under [`LONG_SKILL_TOKENS`] the text is
//!   returned unchanged.
//! - Sections start at `#`, `##` and `###` headings (ATX, up to 3 spaces of indent); `####`
//!   and deeper stay inside their section. Lines inside fenced code blocks (``` or ~~~) are
//!   never headings.
//! - Always kept: the frontmatter, the text before the first heading, and the first section
//!   when its heading is a `#` title (the title and the introduction).
//! - Words are runs of letters and digits, lowercased, of 3 or more characters, not in a
//!   short list of English stop words, with one final `s` dropped (`pdfs` = `pdf`). Chinese,
//!   Japanese and Korean text, written without spaces, is compared by pairs of adjacent
//!   characters instead.
//! - A section matches a signal when its heading shares a word with the signal, or the whole
//!   section (heading and text) shares at least two. A signal's words come from its
//!   scenario, correction, friction detail and context. Sections matching any signal are
//!   kept in full, with the deeper sections below them (a kept `##` keeps its `###`s).
//! - When no section matches, the text is returned unchanged: a reflect that sees none of
//!   the skill's sections could propose no edit whose target exists, so the full text costs
//!   less than a wasted run.

use std::collections::HashSet;

use crate::signal::Signal;
use crate::skill::frontmatter;

/// The size above which sections are selected.
pub const LONG_SKILL_TOKENS: usize = 3_000;

/// The reason written in every `<omit/>` marker.
pub const OMIT_REASON: &str = "not related to these signals";

/// The text to show the model, and what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Focus {
    pub text: String,
    /// The headings of the omitted sections, as written (`## Setup`), in order. Empty when
    /// the text is unchanged.
    pub omitted: Vec<String>,
}

/// Tokens of `text`: characters / 4, rounded up, plus one per CJK character (which
/// tokenizers split about one a token).
pub fn estimate_tokens(text: &str) -> usize {
    let (mut cjk, mut other) = (0usize, 0usize);
    for c in text.chars() {
        if is_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

/// [`focus`] with the texts of `signals`.
pub fn focus_for_signals(skill_md: &str, signals: &[Signal]) -> Focus {
    let queries: Vec<String> = signals.iter().map(signal_text).collect();
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    focus(skill_md, &queries)
}

/// The sections of `skill_md` that `queries` (one text per signal) are about; see the
/// module documentation for the rule.
pub fn focus(skill_md: &str, queries: &[&str]) -> Focus {
    let unchanged = || Focus {
        text: skill_md.to_owned(),
        omitted: Vec::new(),
    };
    if estimate_tokens(skill_md) <= LONG_SKILL_TOKENS {
        return unchanged();
    }
    let (head, body) = split_head(skill_md);
    let mut sections = sections(body);
    // The preamble, and a `#` title opening the body, are the introduction.
    let intro_len = match sections.first() {
        Some(s) if s.heading.is_none() => {
            if matches!(sections.get(1), Some(t) if t.level == 1) {
                2
            } else {
                1
            }
        }
        Some(s) if s.level == 1 => 1,
        _ => 0,
    };
    let query_words: Vec<HashSet<String>> = queries.iter().map(|q| words(q)).collect();
    let mut any = false;
    for section in sections.iter_mut().skip(intro_len) {
        let heading = words(section.heading.unwrap_or(""));
        let all = words(section.text);
        section.keep = query_words.iter().any(|q| {
            q.intersection(&heading).next().is_some() || q.intersection(&all).nth(1).is_some()
        });
        any |= section.keep;
    }
    // A kept section keeps the deeper ones below it: its `###` details are what an edit needs.
    let mut keeping_below: Option<usize> = None;
    for section in sections.iter_mut().skip(intro_len) {
        match keeping_below {
            Some(level) if section.level > level => section.keep = true,
            _ => keeping_below = section.keep.then_some(section.level),
        }
    }
    let rest = &sections[intro_len.min(sections.len())..];
    if !any || rest.iter().all(|s| s.keep) {
        return unchanged();
    }
    let mut text = String::with_capacity(skill_md.len());
    text.push_str(head);
    let mut omitted = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        if i < intro_len || section.keep {
            text.push_str(section.text);
            continue;
        }
        let heading = section.heading.unwrap_or("").trim();
        text.push_str(&format!(
            "<omit reason=\"{OMIT_REASON}\" section=\"{}\"/>\n",
            escape_attr(heading)
        ));
        omitted.push(heading.to_owned());
    }
    Focus { text, omitted }
}

/// Everything a signal says about what went wrong, as one text.
fn signal_text(s: &Signal) -> String {
    [
        s.scenario.as_str(),
        &s.correction,
        &s.friction_detail,
        &s.context.user_intent,
        &s.context.problem_turn,
        &s.context.user_correction,
    ]
    .join("\n")
}

/// The frontmatter (with its `---` lines and any byte order mark) and the body.
fn split_head(text: &str) -> (&str, &str) {
    let without_bom = frontmatter::strip_bom(text);
    match frontmatter::split(without_bom) {
        Ok(split) => text.split_at(text.len() - split.body.len()),
        Err(_) => ("", text),
    }
}

struct Section<'a> {
    /// The heading line, `None` for the text before the first heading.
    heading: Option<&'a str>,
    level: usize,
    /// The heading line and everything up to the next section, line ends included.
    text: &'a str,
    keep: bool,
}

/// The body cut at `#`..`###` headings outside fenced code.
fn sections(body: &str) -> Vec<Section<'_>> {
    let mut out: Vec<Section<'_>> = Vec::new();
    let mut start = 0;
    let mut current: (Option<&str>, usize) = (None, 0);
    let mut fence: Option<(u8, usize)> = None;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let here = offset;
        offset += line.len();
        if let Some(open) = fence {
            if closes_fence(line, open) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = opens_fence(line) {
            fence = Some(open);
            continue;
        }
        let Some(level) = heading_level(line) else {
            continue;
        };
        if here > start || current.0.is_some() {
            out.push(Section {
                heading: current.0,
                level: current.1,
                text: &body[start..here],
                keep: false,
            });
        }
        start = here;
        current = (Some(line.trim_end_matches(['\n', '\r'])), level);
    }
    if offset > start || current.0.is_some() {
        out.push(Section {
            heading: current.0,
            level: current.1,
            text: &body[start..],
            keep: false,
        });
    }
    out
}

/// Up to three spaces of indent, then the rest of the line.
fn unindent(line: &str) -> Option<&str> {
    let spaces = line.bytes().take_while(|b| *b == b' ').count();
    (spaces <= 3).then(|| &line[spaces..])
}

/// 1 to 3 `#` followed by a space, a tab or the end of the line.
fn heading_level(line: &str) -> Option<usize> {
    let rest = unindent(line)?;
    let hashes = rest.bytes().take_while(|b| *b == b'#').count();
    let after = rest[hashes..].bytes().next();
    let ends = matches!(after, None | Some(b' ' | b'\t' | b'\n' | b'\r'));
    ((1..=3).contains(&hashes) && ends).then_some(hashes)
}

/// The fence character and length of a line opening a fenced code block.
fn opens_fence(line: &str) -> Option<(u8, usize)> {
    let rest = unindent(line)?;
    let c = *rest.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|b| *b == c).count();
    // A backtick fence's info string may not hold backticks (it would be inline code).
    let info_ok = c == b'~' || !rest[n..].contains('`');
    (n >= 3 && info_ok).then_some((c, n))
}

fn closes_fence(line: &str, (c, n): (u8, usize)) -> bool {
    let Some(rest) = unindent(line) else {
        return false;
    };
    let run = rest.bytes().take_while(|b| *b == c).count();
    run >= n && rest[run..].trim().is_empty()
}

/// Words too common to say what a text is about.
const STOP_WORDS: &[&str] = &[
    "about", "after", "again", "all", "also", "and", "any", "are", "because", "been", "before",
    "being", "but", "can", "could", "did", "does", "doing", "done", "each", "for", "from", "get",
    "got", "had", "has", "have", "her", "here", "his", "how", "into", "its", "just", "like",
    "make", "may", "more", "most", "much", "must", "not", "now", "off", "once", "one", "only",
    "other", "our", "out", "over", "own", "same", "she", "should", "some", "such", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "too", "under",
    "use", "used", "using", "very", "via", "was", "were", "what", "when", "where", "which",
    "while", "who", "why", "will", "with", "would", "you", "your", "agent", "skill", "user",
];

/// The comparable words of `text` (see the module documentation).
fn words(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut HashSet<String>| {
        if word.chars().count() >= 3 && !STOP_WORDS.contains(&word.as_str()) {
            let stem = match word.strip_suffix('s') {
                Some(stem) if !stem.ends_with('s') && stem.chars().count() >= 3 => stem,
                _ => word.as_str(),
            };
            out.insert(stem.to_owned());
        }
        word.clear();
    };
    let flush_cjk = |cjk: &mut Vec<char>, out: &mut HashSet<String>| {
        for pair in cjk.windows(2) {
            out.insert(pair.iter().collect());
        }
        cjk.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, &mut out);
            word.extend(c.to_lowercase());
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk, &mut out);
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0x20000..=0x2FFFF // CJK extensions B and later
    )
}

fn escape_attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section about `topic`, long enough (about 1,200 tokens with its filler) that three
    /// of them make a long skill. The filler shares no word with the test queries.
    fn section(heading: &str, topic: &str) -> String {
        let filler = "Lorem ipsum dolor sit amet consectetur adipiscing elit. ".repeat(80);
        format!("{heading}\n\n{topic}\n\n{filler}\n\n")
    }

    fn long_skill() -> String {
        let mut s = String::from("---\nname: pdf\ndescription: Fill and merge PDF forms.\n---\n");
        s.push_str("# PDF\n\nWork with PDF files.\n\n");
        s.push_str(&section(
            "## Filling forms",
            "Fill fields by their field names.",
        ));
        s.push_str(&section(
            "## Merging",
            "Merge documents with scripts/merge.py in page order.",
        ));
        s.push_str(&section("## Rotating pages", "Rotate pages by 90 degrees."));
        s.push_str(&section(
            "### Rotation angles",
            "Angles are multiples of ninety.",
        ));
        s
    }

    #[test]
    fn short_skill_is_unchanged() {
        let text = "---\nname: a\ndescription: b\n---\n# A\n\n## One\nx\n## Two\ny\n";
        let f = focus(text, &["merge two documents"]);
        assert_eq!(f.text, text);
        assert!(f.omitted.is_empty());
        assert!(estimate_tokens(text) <= LONG_SKILL_TOKENS);
    }

    #[test]
    fn long_skill_keeps_matched_sections_and_omits_the_others() {
        let skill = long_skill();
        assert!(estimate_tokens(&skill) > LONG_SKILL_TOKENS);
        let f = focus(
            &skill,
            &["merge two PDFs; had to guess which script merges"],
        );
        assert!(f.text.starts_with("---\nname: pdf\ndescription: Fill and merge PDF forms.\n---\n# PDF\n\nWork with PDF files.\n\n"));
        assert!(f.text.contains(&section(
            "## Merging",
            "Merge documents with scripts/merge.py in page order."
        )));
        assert!(f.text.contains(
            "<omit reason=\"not related to these signals\" section=\"## Filling forms\"/>\n"
        ));
        assert!(f.text.contains(
            "<omit reason=\"not related to these signals\" section=\"### Rotation angles\"/>\n"
        ));
        assert!(!f.text.contains("Fill fields by their field names."));
        assert_eq!(
            f.omitted,
            [
                "## Filling forms",
                "## Rotating pages",
                "### Rotation angles"
            ]
        );
        assert!(estimate_tokens(&f.text) < estimate_tokens(&skill) / 2);
    }

    #[test]
    fn a_kept_section_keeps_its_subsections() {
        let f = focus(&long_skill(), &["rotate the pages of a scan"]);
        assert_eq!(f.omitted, ["## Filling forms", "## Merging"]);
        assert!(f
            .text
            .contains("## Rotating pages\n\nRotate pages by 90 degrees."));
        assert!(f
            .text
            .contains("### Rotation angles\n\nAngles are multiples of ninety."));
    }

    #[test]
    fn cjk_text_counts_a_token_per_character() {
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("填写表单"), 4);
        assert_eq!(estimate_tokens("填写 PDF"), 3);
        // A Chinese skill of 3,500 characters is long, as a tokenizer would say.
        assert!(estimate_tokens(&"用字段名填写".repeat(600)) > LONG_SKILL_TOKENS);
    }

    #[test]
    fn a_heading_word_is_enough_and_subsections_match_on_their_own() {
        let f = focus(&long_skill(), &["the rotation went wrong"]);
        assert_eq!(
            f.omitted,
            ["## Filling forms", "## Merging", "## Rotating pages"]
        );
        assert!(f
            .text
            .contains("### Rotation angles\n\nAngles are multiples of ninety."));
    }

    #[test]
    fn headings_inside_code_fences_are_not_sections() {
        let mut skill = long_skill();
        skill.push_str("## Examples\n\n````markdown\n## Merging inside a fence\n```\n# not a title\n```\n````\n\n~~~\n### Merging tilde\n~~~\n");
        let f = focus(&skill, &["fill the form fields"]);
        assert_eq!(
            f.omitted,
            [
                "## Merging",
                "## Rotating pages",
                "### Rotation angles",
                "## Examples"
            ]
        );
        assert!(!f.text.contains("inside a fence"));
        let all = sections(frontmatter::split(&skill).unwrap().body);
        let headings: Vec<_> = all.iter().filter_map(|s| s.heading).collect();
        assert_eq!(
            headings,
            [
                "# PDF",
                "## Filling forms",
                "## Merging",
                "## Rotating pages",
                "### Rotation angles",
                "## Examples"
            ]
        );
    }

    #[test]
    fn no_match_keeps_everything() {
        let skill = long_skill();
        let f = focus(&skill, &["quantum chromodynamics"]);
        assert_eq!(f.text, skill);
        assert!(f.omitted.is_empty());
        assert_eq!(focus(&skill, &[]).text, skill);
    }

    #[test]
    fn unicode_text_does_not_panic_and_matches_by_character_pairs() {
        let filler = "这是一段很长的说明文字，用来填充章节的内容。".repeat(200);
        let skill = format!(
            "---\nname: zh\ndescription: 中文技能\n---\n# 技能\n\n简介。\n\n## 合并文件\n\n使用脚本合并。\n{filler}\n## 旋转页面\n\n旋转角度。\n{filler}\n## Émoji 🎉 section\n\n{filler}\n"
        );
        assert!(estimate_tokens(&skill) > LONG_SKILL_TOKENS);
        let f = focus(&skill, &["合并两个文件时猜错了脚本"]);
        assert_eq!(f.omitted, ["## 旋转页面", "## Émoji 🎉 section"]);
        assert!(f.text.contains("## 合并文件\n\n使用脚本合并。"));
        // Odd inputs: only a BOM and multibyte characters, headings without text, no body.
        for odd in [
            format!("\u{feff}{}", "é🎉".repeat(7_000)),
            format!("#\n##\n###\n{}", "ü".repeat(13_000)),
            format!("---\nname: x\n---\n{}", "# 見出し\n".repeat(3_000)),
            format!("---\nunclosed\n{}", "ß".repeat(12_001)),
        ] {
            let _ = focus(&odd, &["見出し ü é"]);
        }
    }

    #[test]
    fn words_rule() {
        let w = words("Merging the PDFs, merge-pdf; to a ФАЙЛ файлы");
        for expected in ["merging", "pdf", "merge", "файл", "файлы"] {
            assert!(w.contains(expected), "{expected} in {w:?}");
        }
        assert!(!w.contains("the") && !w.contains("to"));
        assert!(words("process").contains("process"));
        assert!(words("中文技能").contains("技能"));
    }

    #[test]
    fn signal_fields_all_count() {
        let signal: Signal = serde_json::from_value(serde_json::json!({
            "signal_id": "20261130T000000Z_pdf_00000000",
            "skill": "pdf",
            "type": "friction",
            "scenario": "a task",
            "friction_detail": "the rotation flag was unclear",
            "skill_version_hash": "0".repeat(64),
            "timestamp": "2026-11-30T00:00:00Z"
        }))
        .unwrap();
        let f = focus_for_signals(&long_skill(), &[signal]);
        assert!(!f.omitted.contains(&"### Rotation angles".to_owned()));
    }
}
