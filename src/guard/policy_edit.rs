//! Edits of `.skillguard.yaml` made as text, so that its comments, order and layout stay: the
//! fingerprints `git skill allow --pin` adds to entries, and the pinned entry `git skill allow
//! RULE PATH` appends. Every edit is read back and compared with what was meant; one that does
//! not read back so is refused, never written.

use super::suppress::Policy;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    #[error("allow entry {entry} is written in flow style ({{...}}); write it as a block (one key per line) to pin it")]
    FlowEntry { entry: usize },
    #[error(
        "the `allow:` key holds a flow list ([...]); write its entries as a block list to edit it"
    )]
    FlowList,
    #[error("the edited file does not read back as meant ({0}); nothing was written")]
    ReadBack(String),
}

/// A new entry, pinned to the findings it covers.
#[derive(Debug, Clone)]
pub struct NewEntry {
    pub rule: String,
    pub skill: Option<String>,
    pub path: Option<String>,
    pub reason: String,
    pub expires: Option<String>,
    pub fingerprints: Vec<String>,
}

/// The layout of the `allow:` block: the line of the key, and per entry its first line, the
/// line after its last line of content (comments after it stay after it), and the column its
/// keys start at.
struct Block {
    key: Option<usize>,
    /// The key holds an empty flow list or null (`allow: []`, `allow: ~`).
    empty_value: bool,
    entries: Vec<(usize, usize, usize)>,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

fn block(lines: &[&str]) -> Result<Block, EditError> {
    let Some(key) = lines.iter().position(|l| {
        l.strip_prefix("allow")
            .map(|rest| rest.trim_start().starts_with(':'))
            .unwrap_or(false)
    }) else {
        return Ok(Block {
            key: None,
            empty_value: false,
            entries: Vec::new(),
        });
    };
    let after_colon = lines[key].split_once(':').map(|x| x.1).unwrap_or_default();
    let value = after_colon.split(" #").next().unwrap_or_default().trim();
    let empty_value = matches!(value, "[]" | "~" | "null");
    if !value.is_empty() && !empty_value {
        return Err(EditError::FlowList);
    }
    let mut entries: Vec<(usize, usize, usize)> = Vec::new();
    let mut item_indent = None;
    for (i, line) in lines
        .iter()
        .enumerate()
        .skip(key + 1)
        .filter(|_| !empty_value)
    {
        if is_blank_or_comment(line) {
            // Deeper than the entries' dashes, it is the entry's (a line of a block scalar
            // that starts with `#` is text, not a comment): what follows goes after it.
            let inside = !line.trim().is_empty() && item_indent.is_some_and(|k| indent(line) > k);
            if let (true, Some(last)) = (inside, entries.last_mut()) {
                last.1 = i + 1;
            }
            continue;
        }
        let n = indent(line);
        let rest = &line[n..];
        if n == 0 && !rest.starts_with('-') {
            break;
        }
        let starts_item = (rest.starts_with("- ") || rest.trim_end() == "-")
            && item_indent.is_none_or(|k| k == n);
        if starts_item {
            item_indent = Some(n);
            let body = rest[1..].trim_start_matches(' ');
            if body.starts_with('{') {
                return Err(EditError::FlowEntry {
                    entry: entries.len() + 1,
                });
            }
            let column = if body.trim().is_empty() {
                n + 2
            } else {
                line.len() - body.len()
            };
            entries.push((i, i + 1, column));
        } else if let Some(last) = entries.last_mut() {
            last.1 = i + 1;
        }
    }
    Ok(Block {
        key: Some(key),
        empty_value,
        entries,
    })
}

/// The line ending the file uses (CRLF when any line has it).
fn eol(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

fn fingerprint_lines(column: usize, fps: &[String], eol: &str) -> String {
    let pad = " ".repeat(column);
    let mut s = format!("{pad}fingerprints:{eol}");
    for fp in fps {
        s.push_str(&format!("{pad}  - {fp}{eol}"));
    }
    s
}

/// What a policy says, as a reviewer reads it: its `allow:` entries (those at `unpinned`
/// without their fingerprints) and every other entry and setting.
fn reads(p: &Policy, unpinned: &[usize]) -> (Vec<String>, Vec<String>) {
    let entries = (0..p.entry_count())
        .filter_map(|i| p.entry(i).map(|e| (i, e)))
        .map(|(i, e)| {
            let mut e = e.clone();
            if unpinned.contains(&i) {
                e.fingerprints = None;
            }
            super::suppress::allow_line(&e)
        })
        .collect();
    let rest = p
        .lines()
        .into_iter()
        .filter(|l| !l.starts_with("allow "))
        .collect();
    (entries, rest)
}

fn differs() -> EditError {
    EditError::ReadBack("an entry or setting reads differently".into())
}

/// Adds `fingerprints` to the entries named (0-based index among the `allow:` entries).
pub fn pin(text: &str, pins: &[(usize, Vec<String>)]) -> Result<String, EditError> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let block = block(&lines)?;
    let mut out = String::with_capacity(text.len() + pins.len() * 64);
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        for (n, fps) in pins {
            let Some(&(_, end, column)) = block.entries.get(*n) else {
                return Err(EditError::ReadBack(format!(
                    "there is no allow entry {}",
                    n + 1
                )));
            };
            if end == i + 1 {
                if !out.ends_with('\n') {
                    out.push_str(eol(text));
                }
                out.push_str(&fingerprint_lines(column, fps, eol(text)));
            }
        }
    }
    let back = Policy::parse(&out).map_err(EditError::ReadBack)?;
    let before = Policy::parse(text).map_err(EditError::ReadBack)?;
    let pinned: Vec<usize> = pins.iter().map(|(n, _)| *n).collect();
    if reads(&before, &pinned) != reads(&back, &pinned) {
        return Err(differs());
    }
    for (n, fps) in pins {
        if back.entry(*n).and_then(|e| e.fingerprints.as_ref()) != Some(fps) {
            return Err(EditError::ReadBack(format!(
                "allow entry {} has other fingerprints",
                n + 1
            )));
        }
    }
    Ok(out)
}

/// YAML for one scalar, quoted when it must be.
fn scalar(value: &str) -> String {
    serde_yaml::to_string(value)
        .map(|s| s.trim_end().to_owned())
        .unwrap_or_else(|_| format!("{value:?}"))
}

/// Appends `entry` to the `allow:` block (made when there is none).
pub fn append(text: &str, entry: &NewEntry) -> Result<String, EditError> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let block = block(&lines)?;
    let eol = eol(text);
    let column = block.entries.first().map(|e| e.2).unwrap_or(4);
    let pad = " ".repeat(column);
    let mut item = format!("{}- rule: {}{eol}", " ".repeat(column - 2), entry.rule);
    for (key, value) in [
        ("skill", &entry.skill),
        ("path", &entry.path),
        ("expires", &entry.expires),
    ] {
        if let Some(v) = value {
            item.push_str(&format!("{pad}{key}: {}{eol}", scalar(v)));
        }
    }
    item.push_str(&format!("{pad}reason: {}{eol}", scalar(&entry.reason)));
    item.push_str(&fingerprint_lines(column, &entry.fingerprints, eol));
    let mut out = String::new();
    let at = match (block.key, block.entries.last()) {
        (Some(_), Some(&(_, end, _))) => end,
        (Some(key), None) => key + 1,
        (None, _) => lines.len(),
    };
    for (i, line) in lines[..at].iter().enumerate() {
        if Some(i) == block.key && block.empty_value {
            // `allow: []` becomes the block the entry goes in.
            out.push_str(&format!("allow:{eol}"));
        } else {
            out.push_str(line);
        }
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    if block.key.is_none() {
        out.push_str(&format!("allow:{eol}"));
    }
    out.push_str(&item);
    for line in &lines[at..] {
        out.push_str(line);
    }
    let back = Policy::parse(&out).map_err(EditError::ReadBack)?;
    let before = Policy::parse(text).map_err(EditError::ReadBack)?;
    let n = back.entry_count();
    let last = n.checked_sub(1).and_then(|i| back.entry(i));
    if n != before.entry_count() + 1
        || last.and_then(|e| e.fingerprints.as_ref()) != Some(&entry.fingerprints)
    {
        return Err(EditError::ReadBack(
            "the new entry is not the last one".into(),
        ));
    }
    // Everything else reads as it did: the entries before the new one, lint, settings.
    let (mut entries, rest) = reads(&back, &[]);
    entries.pop();
    if (entries, rest) != reads(&before, &[]) {
        return Err(differs());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "0123456789abcdef0123456789abcdef";
    const B: &str = "fedcba9876543210fedcba9876543210";

    #[test]
    fn pinning_keeps_comments_and_layout() {
        let text = "# team policy\nfailOn: dangerous\nallow:\n  # the vendor's installer\n  - rule: SUP001\n    skill: deploy\n    reason: vendor installer, reviewed\n\n  - rule: INJ001 # quoted\n    reason: a test\nroots: [skills]\n";
        let out = pin(text, &[(0, vec![A.into(), B.into()]), (1, vec![B.into()])]).unwrap();
        assert_eq!(
            out,
            format!("# team policy\nfailOn: dangerous\nallow:\n  # the vendor's installer\n  - rule: SUP001\n    skill: deploy\n    reason: vendor installer, reviewed\n    fingerprints:\n      - {A}\n      - {B}\n\n  - rule: INJ001 # quoted\n    reason: a test\n    fingerprints:\n      - {B}\nroots: [skills]\n")
        );
        // Entries at the key's own indent, and a file without a final newline.
        let out = pin(
            "allow:\n- rule: SUP001\n  reason: x",
            &[(0, vec![A.into()])],
        )
        .unwrap();
        assert_eq!(
            out,
            format!("allow:\n- rule: SUP001\n  reason: x\n  fingerprints:\n    - {A}\n")
        );
    }

    #[test]
    fn block_scalars_crlf_and_empty_lists_are_edited_as_they_read() {
        // A reason written as a block scalar whose second line starts with `#`: text, kept.
        let text = "allow:\n  - rule: SUP001\n    reason: |\n      reviewed\n      # ticket OPS-12\n\n  - rule: INJ001\n    reason: x\n";
        let out = pin(text, &[(0, vec![A.into()])]).unwrap();
        let p = Policy::parse(&out).unwrap();
        assert_eq!(p.entry(0).unwrap().reason, "reviewed\n# ticket OPS-12\n");
        assert!(
            out.contains(&format!(
                "      # ticket OPS-12\n    fingerprints:\n      - {A}\n"
            )),
            "{out}"
        );
        // CRLF stays CRLF.
        let out = pin(
            "allow:\r\n  - rule: SUP001\r\n    reason: x\r\n",
            &[(0, vec![A.into()])],
        )
        .unwrap();
        assert_eq!(out, format!("allow:\r\n  - rule: SUP001\r\n    reason: x\r\n    fingerprints:\r\n      - {A}\r\n"));
        // `allow: []` takes a new entry.
        let entry = NewEntry {
            rule: "SUP001".into(),
            skill: None,
            path: None,
            reason: "r".into(),
            expires: None,
            fingerprints: vec![A.into()],
        };
        for empty in ["allow: []\nfailOn: caution\n", "allow: ~\n"] {
            let out = append(empty, &entry).unwrap();
            assert_eq!(Policy::parse(&out).unwrap().entry_count(), 1, "{out}");
        }
    }

    #[test]
    fn what_cannot_be_edited_as_text_is_refused() {
        assert_eq!(
            pin(
                "allow:\n  - {rule: SUP001, reason: x}\n",
                &[(0, vec![A.into()])]
            ),
            Err(EditError::FlowEntry { entry: 1 })
        );
        assert_eq!(
            pin(
                "allow: [{rule: SUP001, reason: x}]\n",
                &[(0, vec![A.into()])]
            ),
            Err(EditError::FlowList)
        );
        assert!(matches!(
            pin(
                "allow:\n  - rule: SUP001\n    reason: x\n",
                &[(3, vec![A.into()])]
            ),
            Err(EditError::ReadBack(_))
        ));
    }

    #[test]
    fn a_new_entry_is_appended_quoted_and_pinned() {
        let entry = NewEntry {
            rule: "SUP001".into(),
            skill: Some("deploy".into()),
            path: Some("scripts/*.sh".into()),
            reason: "vendor: reviewed # by ops, 漢字".into(),
            expires: None,
            fingerprints: vec![A.into()],
        };
        let out = append("failOn: caution\n", &entry).unwrap();
        let p = Policy::parse(&out).unwrap();
        assert_eq!(
            p.entry(0).unwrap().reason,
            "vendor: reviewed # by ops, 漢字"
        );
        assert!(
            out.starts_with("failOn: caution\nallow:\n  - rule: SUP001\n"),
            "{out}"
        );
        let out2 = append(
            &out,
            &NewEntry {
                fingerprints: vec![B.into()],
                ..entry.clone()
            },
        )
        .unwrap();
        let p = Policy::parse(&out2).unwrap();
        assert_eq!(p.entry_count(), 2);
        assert!(out2.starts_with(&out[..out.len() - 1]));
        let out3 = append("allow:\n", &entry).unwrap();
        assert_eq!(Policy::parse(&out3).unwrap().entry_count(), 1);
    }
}
