//! What a tool call an agent is about to make would write, told from its arguments before it
//! runs: the file as it would be after a Write (its content), an Edit or a MultiEdit (the
//! current file with each replacement applied, as the tool applies them). A call whose result
//! cannot be told from its arguments (a shell command's redirection, Codex's patches) is
//! [`Intent::Unknown`]: the pre-write guard lets it through and says so in its log, and the
//! pre-commit hook and CI check what it wrote.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::event::ToolUse;

/// The largest file an Edit is applied to here (a skill file is far smaller; a larger one is
/// left to the pre-commit hook).
pub const MAX_EDITED_BYTES: u64 = 4 << 20;

/// One file as a call would leave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposed {
    pub path: PathBuf,
    pub content: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// The call writes no file this can see (a read, a search, an edit that will not apply).
    Nothing,
    Writes(Vec<Proposed>),
    /// It writes `paths` (as far as a reading of it tells), but not what.
    Unknown {
        paths: Vec<PathBuf>,
        why: String,
    },
}

/// Tools that write a whole file from their arguments.
const WRITE_TOOLS: &[&str] = &["Write", "write_file", "create", "create_file"];
/// Tools that replace a string in a file.
const EDIT_TOOLS: &[&str] = &["Edit", "edit", "replace", "str_replace", "edit_file"];

pub fn intent(tool: &ToolUse, cwd: &Path) -> Intent {
    let input = &tool.input;
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
    };
    let path = || {
        text(&["file_path", "path", "filePath", "absolute_path"]).map(|p| {
            let p = Path::new(p);
            if p.is_absolute() {
                p.to_owned()
            } else {
                cwd.join(p)
            }
        })
    };
    let name = tool.name.as_str();
    if WRITE_TOOLS.contains(&name) {
        let (Some(path), Some(content)) = (path(), text(&["content", "file_text", "text"])) else {
            return unknown(
                path(),
                "a write whose path or content is not in its arguments",
            );
        };
        return Intent::Writes(vec![Proposed {
            path,
            content: content.as_bytes().to_vec(),
        }]);
    }
    let edits: Vec<(String, String, bool)> = if EDIT_TOOLS.contains(&name) {
        match (
            text(&["old_string", "old_str", "oldString"]),
            text(&["new_string", "new_str", "newString"]),
        ) {
            (Some(old), Some(new)) => vec![(
                old.to_owned(),
                new.to_owned(),
                input
                    .get("replace_all")
                    .or_else(|| {
                        input
                            .get("expected_replacements")
                            .filter(|v| v.as_u64() != Some(1))
                    })
                    .is_some_and(|v| v.as_bool().unwrap_or(true)),
            )],
            _ => return unknown(path(), "an edit whose strings are not in its arguments"),
        }
    } else if name == "MultiEdit" {
        let Some(list) = input.get("edits").and_then(Value::as_array) else {
            return unknown(path(), "a MultiEdit without its edits");
        };
        let mut out = Vec::new();
        for e in list {
            match (
                e.get("old_string").and_then(Value::as_str),
                e.get("new_string").and_then(Value::as_str),
            ) {
                (Some(old), Some(new)) => out.push((
                    old.to_owned(),
                    new.to_owned(),
                    e.get("replace_all")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                )),
                _ => return unknown(path(), "a MultiEdit edit without its strings"),
            }
        }
        out
    } else {
        let paths = super::writes::targets(tool, cwd);
        if paths.is_empty() {
            return Intent::Nothing;
        }
        // A file written from a here-document (`cat > f <<'EOF' ... EOF`, `tee f <<EOF`): how
        // agents write files with a shell. Its body is the file (an unquoted delimiter's
        // expansions are kept as written: the guard reads what the agent spelt).
        let command = text(&["command", "cmd"]).unwrap_or("");
        let written = heredoc_writes(command, cwd);
        if !written.is_empty() {
            return Intent::Writes(written);
        }
        return Intent::Unknown {
            paths,
            why: format!("what '{name}' writes cannot be told from its arguments"),
        };
    };
    let Some(path) = path() else {
        return unknown(None, "an edit without a path");
    };
    // The file as it is: an Edit of a new file creates it from an empty old string.
    let current = match crate::fsutil::read_regular_linked(&path, MAX_EDITED_BYTES) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => Vec::new(),
        Err(e) => return unknown(Some(path), &format!("the file cannot be read ({e})")),
    };
    let Ok(mut text) = String::from_utf8(current) else {
        return unknown(Some(path), "the file is not UTF-8 text");
    };
    for (old, new, all) in edits {
        if old.is_empty() {
            if text.is_empty() {
                text = new;
                continue;
            }
            return Intent::Nothing;
        }
        if !text.contains(&old) {
            // The tool fails the call: nothing is written.
            return Intent::Nothing;
        }
        text = if all {
            text.replace(&old, &new)
        } else {
            text.replacen(&old, &new, 1)
        };
    }
    Intent::Writes(vec![Proposed {
        path,
        content: text.into_bytes(),
    }])
}

/// The files a shell command writes from here-documents, each as it would be after the
/// command: `cat > PATH <<TAG`, `cat <<TAG > PATH`, `cat >> PATH <<TAG` (appended to the file
/// as it is), `tee [-a] PATH <<TAG`, `<<-TAG` (leading tabs dropped). Read line by line, the
/// way the shell finds a here-document's end; anything else is left to the caller.
fn heredoc_writes(command: &str, cwd: &Path) -> Vec<Proposed> {
    let mut out = Vec::new();
    let lines: Vec<&str> = command.split('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let Some(at) = line.find("<<") else { continue };
        let after = &line[at + 2..];
        if after.starts_with('<') {
            continue; // a here-string
        }
        let strip_tabs = after.starts_with('-');
        let after = after.trim_start_matches('-').trim_start();
        let tag: String = after
            .trim_start_matches(['\'', '"'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if tag.is_empty() {
            continue;
        }
        // The statement the here-document belongs to: this line, up to the last `&&`, `;`
        // or `|` before `<<`.
        let start = line[..at].rfind(['&', ';', '|']).map_or(0, |j| j + 1);
        let statement = format!(
            "{}{}",
            &line[start..at],
            &after[after.find(&tag).map_or(0, |j| j + tag.len())..]
        );
        let words: Vec<&str> = statement.split_whitespace().collect();
        let mut body = Vec::new();
        while i < lines.len() {
            let l = if strip_tabs {
                lines[i].trim_start_matches('\t')
            } else {
                lines[i]
            };
            i += 1;
            if l == tag {
                break;
            }
            body.push(l);
        }
        let mut content = body.join("\n");
        if !body.is_empty() {
            content.push('\n');
        }
        let Some((target, append)) = heredoc_target(&words) else {
            continue;
        };
        let target = target.trim_matches(['\'', '"']);
        let path = if Path::new(target).is_absolute() {
            PathBuf::from(target)
        } else {
            cwd.join(target)
        };
        let mut bytes = Vec::new();
        if append {
            if let Ok(Some(current)) = crate::fsutil::read_regular_linked(&path, MAX_EDITED_BYTES) {
                bytes = current;
            }
        }
        bytes.extend_from_slice(content.as_bytes());
        out.push(Proposed {
            path,
            content: bytes,
        });
    }
    out
}

/// Where `cat`'s redirection or `tee`'s operand sends a here-document, and whether it appends.
fn heredoc_target<'w>(words: &[&'w str]) -> Option<(&'w str, bool)> {
    match words.first().copied()? {
        "cat" => {
            for (k, w) in words.iter().enumerate() {
                for (op, append) in [(">>", true), (">", false)] {
                    if let Some(rest) = w.strip_prefix(op) {
                        if !rest.is_empty() && !rest.starts_with('>') {
                            return Some((rest, append));
                        }
                        if rest.is_empty() {
                            return words.get(k + 1).map(|t| (*t, append));
                        }
                    }
                }
            }
            None
        }
        "tee" => {
            let append = words.iter().any(|w| *w == "-a" || *w == "--append");
            words[1..]
                .iter()
                .find(|w| !w.starts_with('-') && !w.starts_with('>'))
                .map(|t| (*t, append))
        }
        _ => None,
    }
}

fn unknown(path: Option<PathBuf>, why: &str) -> Intent {
    Intent::Unknown {
        paths: path.into_iter().collect(),
        why: why.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, input: Value) -> ToolUse {
        ToolUse {
            name: name.to_owned(),
            input,
        }
    }

    #[test]
    fn writes_and_edits_as_they_would_land() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        std::fs::write(cwd.join("a.md"), "one two two\n").unwrap();
        let got = intent(
            &tool(
                "Write",
                json!({"file_path": "n.md", "content": "hi 漢字 🦀"}),
            ),
            cwd,
        );
        assert_eq!(
            got,
            Intent::Writes(vec![Proposed {
                path: cwd.join("n.md"),
                content: "hi 漢字 🦀".into()
            }])
        );
        let edit = |input: Value| match intent(&tool("Edit", input), cwd) {
            Intent::Writes(w) => String::from_utf8(w[0].content.clone()).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            edit(json!({"file_path": "a.md", "old_string": "two", "new_string": "2"})),
            "one 2 two\n"
        );
        assert_eq!(
            edit(
                json!({"file_path": "a.md", "old_string": "two", "new_string": "2", "replace_all": true})
            ),
            "one 2 2\n"
        );
        let multi = intent(
            &tool(
                "MultiEdit",
                json!({"file_path": "a.md", "edits": [{"old_string": "one", "new_string": "1"}, {"old_string": "1 two", "new_string": "x"}]}),
            ),
            cwd,
        );
        assert!(
            matches!(multi, Intent::Writes(ref w) if w[0].content == b"x two\n"),
            "{multi:?}"
        );
        // An edit that will not apply writes nothing.
        assert_eq!(
            intent(
                &tool(
                    "Edit",
                    json!({"file_path": "a.md", "old_string": "zzz", "new_string": "y"})
                ),
                cwd
            ),
            Intent::Nothing
        );
        assert_eq!(
            intent(&tool("Read", json!({"file_path": "a.md"})), cwd),
            Intent::Nothing
        );
    }

    #[test]
    fn here_documents_are_files_written_by_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        std::fs::write(cwd.join("old.md"), "first\n").unwrap();
        let bash = |command: &str| match intent(&tool("Bash", json!({ "command": command })), cwd) {
            Intent::Writes(w) => w
                .into_iter()
                .map(|p| {
                    (
                        p.path.strip_prefix(cwd).unwrap().display().to_string(),
                        String::from_utf8(p.content).unwrap(),
                    )
                })
                .collect::<Vec<_>>(),
            other => panic!("{command}: {other:?}"),
        };
        assert_eq!(
            bash("mkdir -p s && cat > s/SKILL.md <<'EOF'\n---\nname: s\n---\ncurl x | sh\nEOF"),
            [(
                "s/SKILL.md".to_owned(),
                "---\nname: s\n---\ncurl x | sh\n".to_owned()
            )]
        );
        assert_eq!(
            bash("cat <<EOF >a.md\nhi $HOME 漢字\nEOF\n"),
            [("a.md".to_owned(), "hi $HOME 漢字\n".to_owned())]
        );
        assert_eq!(
            bash("cat >> old.md << \"END\"\nsecond\nEND"),
            [("old.md".to_owned(), "first\nsecond\n".to_owned())]
        );
        assert_eq!(
            bash("tee -a old.md > /dev/null <<-X\n\t\tthird\n\tX"),
            [("old.md".to_owned(), "first\nthird\n".to_owned())]
        );
        assert_eq!(
            bash("cat > a <<A\n1\nA\ncat > b <<B\n2\nB"),
            [
                ("a".to_owned(), "1\n".to_owned()),
                ("b".to_owned(), "2\n".to_owned())
            ]
        );
        // An unterminated here-document runs to the end, as the shell reads it.
        assert_eq!(
            bash("cat > c <<EOF\nx"),
            [("c".to_owned(), "x\n".to_owned())]
        );
        assert!(matches!(
            intent(
                &tool("Bash", json!({"command": "grep x <<< \"$y\" > out"})),
                cwd
            ),
            Intent::Unknown { .. }
        ));
    }

    #[test]
    fn what_cannot_be_told_is_unknown_never_a_guess() {
        let cwd = Path::new("/tmp");
        assert!(matches!(
            intent(&tool("Bash", json!({"command": "echo x > .claude/skills/s/SKILL.md"})), cwd),
            Intent::Unknown { ref paths, .. } if paths.len() == 1
        ));
        assert!(matches!(
            intent(&tool("Write", json!({"file_path": "x"})), cwd),
            Intent::Unknown { .. }
        ));
        assert!(matches!(
            intent(&tool("Edit", json!({"file_path": 3})), cwd),
            Intent::Unknown { .. }
        ));
        assert!(matches!(
            intent(
                &tool("MultiEdit", json!({"file_path": "x", "edits": "no"})),
                cwd
            ),
            Intent::Unknown { .. }
        ));
        assert_eq!(
            intent(&tool("Bash", json!({"command": "ls"})), cwd),
            Intent::Nothing
        );
    }
}
