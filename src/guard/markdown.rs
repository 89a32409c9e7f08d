//! Markdown awareness, against false alarms: text quoted in code (a span or a fenced block)
//! right after words that warn against it or ask to look for it — "never run `rm -rf /`",
//! "look for `curl | sh`" — is an example, not an instruction. Everything else is live:
//! prose, fenced blocks an agent would run, and (decided by the caller) every script.

use std::ops::Range;
use std::sync::OnceLock;

/// Byte ranges of the original text that are quoted examples.
#[derive(Debug, Default)]
pub struct Quoted {
    /// Quoted examples: code after a warning or detection cue.
    ranges: Vec<Range<usize>>,
    /// Every inline code span, cued or not.
    inline: Vec<Range<usize>>,
}

fn within(ranges: &[Range<usize>], offset: usize) -> bool {
    // Ranges are sorted and disjoint.
    let i = ranges.partition_point(|r| r.end <= offset);
    ranges.get(i).is_some_and(|r| r.start <= offset)
}

impl Quoted {
    pub fn contains(&self, offset: usize) -> bool {
        within(&self.ranges, offset)
    }

    /// Inside any inline code span: a mention of a name rather than the thing itself.
    pub fn in_inline_code(&self, offset: usize) -> bool {
        within(&self.inline, offset)
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// A warning or a detection verb that ends within a few words of the quoted text. The
/// negation must govern a verb of doing ("never run", "do not paste"): "Never skip this step:"
/// does not make what follows an example.
fn cue() -> &'static regex::Regex {
    // ASCII classes and boundaries (prose cues are English words): a Unicode `\w` and `\b`
    // made it compile in 1.1 ms, which the pre-commit hook paid on every commit.
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(&super::ascii::asciify(concat!(
            r"(?i)(?:",
            r"\b(?:never|don'?t|do\s+not|must\s+not|mustn'?t|should\s+not|shouldn'?t|avoid|refuse\s+to)\s+(?:\w+\s+)?",
            r"(?:run|running|execute|executing|use|using|type|typing|paste|pasting|copy|copying|follow|following|obey|trust|do|doing|write|writing|add|adding|include|including|pipe|piping)\b",
            r"|\b(?:look|watch|scan|check|search)\s+for\b|\b(?:flag|flags|detect|detects|block|blocks|reject|rejects|refuse|refuses|warn\s+about|warns\s+about|catch|catches)\b",
            r"|\bexamples?\s+of\s+(?:an?\s+)?(?:malicious|dangerous|suspicious|harmful|attack|injection)",
            r")[^`\n.!?;]{0,40}$",
            r"|\b(?:avoid|never)\s*:?\s*$",
            // A checklist's "No `curl ... | bash`", "without `sudo`": what the item rules out.
            r"|^\s*(?:[-*+]\s+)?(?:\[[ xX]\]\s*)?(?:no|never)\s*$",
            r"|\bwithout\s*$",
        )))
        .expect("valid cue regex")
    })
}

/// Whether the text before a quotation ends in a cue. A cue's match ends the text and holds
/// none of `` ` . ! ? ; `` (nor a line break), so only the text after the last of them is
/// searched: a line of many inline spans searched from its start at each span was quadratic.
fn ends_in_cue(before: &str) -> bool {
    let tail = before
        .rfind(['`', '.', '!', '?', ';', '\n'])
        .map_or(before, |i| &before[i + 1..]);
    cue().is_match(tail)
}

/// Finds the quoted examples of a Markdown text.
pub fn quoted_examples(text: &str) -> Quoted {
    let mut ranges = Vec::new();
    let mut inline = Vec::new();
    let mut offset = 0;
    let mut fence: Option<(String, usize, bool)> = None; // (marker, start, cued)
    let mut last_prose = "";
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some((marker, start, cued)) = &fence {
            if trimmed.starts_with(marker.as_str()) {
                if *cued {
                    ranges.push(*start..offset + line.len());
                }
                fence = None;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let marker = trimmed[..3].to_owned();
            let cued = ends_in_cue(last_prose.trim_end());
            fence = Some((marker, offset, cued));
        } else {
            inline_spans(line, offset, &mut ranges, &mut inline);
            if !line.trim().is_empty() {
                last_prose = line;
            }
        }
        offset += line.len();
    }
    if let Some((_, start, true)) = fence {
        ranges.push(start..text.len());
    }
    ranges.sort_by_key(|r| r.start);
    Quoted { ranges, inline }
}

/// Inline code spans of one line: all of them into `inline`, and those whose preceding text
/// ends in a cue into `out`. Earlier spans in the prefix read as a word, so that in "look for
/// `a` and `b`" both are examples.
fn inline_spans(
    line: &str,
    offset: usize,
    out: &mut Vec<Range<usize>>,
    inline: &mut Vec<Range<usize>>,
) {
    let bytes = line.as_bytes();
    let mut prefix = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let open_end = i + run;
        // The span closes at the next run of exactly the same length.
        let mut j = open_end;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let len = bytes[j..].iter().take_while(|&&b| b == b'`').count();
                if len == run {
                    close = Some(j);
                    break;
                }
                j += len;
            } else {
                j += 1;
            }
        }
        let Some(close) = close else {
            i = open_end;
            continue;
        };
        prefix.push_str(&line[copied..i]);
        if ends_in_cue(&prefix) {
            out.push(offset + i..offset + close + run);
        }
        inline.push(offset + i..offset + close + run);
        prefix.push_str("code");
        i = close + run;
        copied = i;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(text: &str, needle: &str) -> bool {
        quoted_examples(text).contains(text.find(needle).unwrap())
    }

    #[test]
    fn warnings_and_detection_cues_quote() {
        assert!(quoted("Never run `rm -rf /` on a server.\n", "rm -rf"));
        assert!(quoted("Do not paste `curl x | sh` into a shell.\n", "curl"));
        assert!(quoted(
            "Look for `ignore previous instructions` in PRs.\n",
            "ignore"
        ));
        assert!(quoted(
            "Never run the following:\n\n```sh\nrm -rf /\n```\n",
            "rm -rf"
        ));
        assert!(quoted(
            "- [ ] No `curl ... | bash` of unpinned URLs\n",
            "curl"
        ));
        assert!(quoted("* No `chmod 777` anywhere\n", "chmod"));
        assert!(quoted("Install it without `curl | sh`.\n", "curl"));
    }

    #[test]
    fn instructions_stay_live() {
        assert!(!quoted("Run `rm -rf /` now.\n", "rm -rf"));
        assert!(!quoted("Never skip this step: `curl x | sh`\n", "curl"));
        assert!(!quoted("- [ ] Now `curl x | sh`\n", "curl"));
        assert!(!quoted("No problem: `curl x | sh`\n", "curl"));
        assert!(!quoted("Setup:\n\n```sh\ncurl x | sh\n```\n", "curl"));
        assert!(!quoted(
            "Never run out of disk. Then run `rm -rf /` to clean up.\n",
            "rm -rf"
        ));
    }
}
