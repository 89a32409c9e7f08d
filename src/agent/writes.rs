//! Which files a completed tool call wrote: a file tool's path, or a shell command's write
//! targets (redirections, `tee`, the destination of `cp`/`mv`, `sed -i`, `rm`, `touch`...).
//! The seed skips the review of a session that changed a skill itself (the person or the agent
//! already did the work); this decides "changed a skill". It reads commands the way a person
//! skimming them would, not as a shell would run them: it may see a write that did not happen,
//! which only skips a review.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::event::ToolUse;

/// Tools that write the file named by one of their arguments, across the five agents.
const FILE_TOOLS: &[&str] = &[
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "write_file",
    "edit",
    "replace",
    "create",
    "str_replace",
    "str_replace_editor",
    "apply_patch",
];

/// Tools that run a shell command.
const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "bash",
    "run_shell_command",
    "shell",
    "exec_command",
    "local_shell",
];

/// Paths (as written, relative to `cwd` or absolute) the call wrote.
pub fn targets(tool: &ToolUse, cwd: &Path) -> Vec<PathBuf> {
    let resolve = |p: &str| at(cwd, p);
    let arg = |keys: &[&str]| -> Option<String> {
        keys.iter()
            .find_map(|k| tool.input.get(*k).and_then(Value::as_str))
            .map(str::to_owned)
    };
    if FILE_TOOLS.contains(&tool.name.as_str()) {
        if let Some(p) = arg(&["file_path", "path", "notebook_path", "filePath"]) {
            return vec![resolve(&p)];
        }
        return patch_paths(&arg(&["input", "patch"]).unwrap_or_default(), cwd);
    }
    if let Some(command) = command_text(tool) {
        return shell_targets(&command).iter().map(|p| resolve(p)).collect();
    }
    Vec::new()
}

/// Where the path `p`, as a tool or a shell was given it, is: `~`, `$HOME` and `${HOME}` at
/// its start are the home folder (the agent's: the hook runs with its environment), a relative
/// path is relative to `cwd`.
pub fn at(cwd: &Path, p: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    for prefix in ["~/", "$HOME/", "${HOME}/"] {
        if let (Some(rest), Some(home)) = (p.strip_prefix(prefix), home()) {
            return home.join(rest);
        }
    }
    if matches!(p, "~" | "$HOME" | "${HOME}") {
        if let Some(home) = home() {
            return home;
        }
    }
    let path = Path::new(p);
    if path.is_absolute() {
        path.to_owned()
    } else {
        cwd.join(path)
    }
}

/// The top of the work tree `path` lies in, as the file system resolves it: the nearest folder
/// above it that holds `.git`.
pub fn repository_of(path: &Path) -> Option<PathBuf> {
    let path = crate::fsutil::resolved(path);
    path.ancestors()
        .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok())
        .map(Path::to_owned)
}

/// The folder the hook works in for `event`: the session's working directory, or, for a
/// session that runs outside every repository, the repository the call writes into (the
/// guard of that repository judges it).
pub fn session_top(event: &super::event::Event) -> Option<PathBuf> {
    let cwd = event.cwd.clone().filter(|c| c.is_dir());
    let outside = cwd.as_deref().is_none_or(|c| repository_of(c).is_none());
    if let (true, Some(tool)) = (outside, &event.tool) {
        let from = cwd.clone().unwrap_or_else(|| PathBuf::from("/"));
        if let Some(repo) = targets(tool, &from).iter().find_map(|t| repository_of(t)) {
            return Some(repo);
        }
    }
    cwd
}

/// The files a Codex `apply_patch` body names (`*** Add File: p`, `*** Update File: p`,
/// `*** Delete File: p`, `*** Move to: p`), relative to `cwd` unless absolute.
pub fn patch_paths(patch: &str, cwd: &Path) -> Vec<PathBuf> {
    patch
        .lines()
        .filter_map(|l| {
            [
                "*** Add File: ",
                "*** Update File: ",
                "*** Delete File: ",
                "*** Move to: ",
            ]
            .iter()
            .find_map(|prefix| l.strip_prefix(prefix))
        })
        .map(|p| at(cwd, p.trim()))
        .collect()
}

/// The command line of a shell tool's call.
pub fn command_text(tool: &ToolUse) -> Option<String> {
    if !SHELL_TOOLS.contains(&tool.name.as_str()) {
        return None;
    }
    match tool
        .input
        .get("command")
        .or_else(|| tool.input.get("cmd"))?
    {
        Value::String(s) => Some(s.clone()),
        // Codex's exec may give argv: `["bash", "-lc", "<script>"]`.
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            Some(match words.as_slice() {
                [_, flag, script, ..] if matches!(*flag, "-c" | "-lc") => (*script).to_owned(),
                _ => words.join(" "),
            })
        }
        _ => None,
    }
}

/// The files a shell command line writes, as far as its words say; relative to where the line
/// started, a `cd DIR` in it followed.
pub fn shell_targets(command: &str) -> Vec<String> {
    let words = words(command);
    let mut out = Vec::new();
    // Where the commands run, relative to the start ("" for the start itself).
    let mut base = String::new();
    let at = |base: &str, t: &str| {
        if base.is_empty() || t.starts_with(['/', '~']) {
            t.to_owned()
        } else {
            format!("{base}/{t}")
        }
    };
    // Commands are split at `;`, `&&`, `||`, `|` and newlines.
    let mut segment: Vec<&str> = Vec::new();
    let flush = |segment: &mut Vec<&str>, base: &mut String, out: &mut Vec<String>| {
        match segment.as_slice() {
            ["cd" | "pushd", dir] if !dir.starts_with(['-', '~']) => *base = at(base, dir),
            _ => {
                let mut found = Vec::new();
                segment_targets(segment, &mut found);
                out.extend(found.iter().map(|t| at(base, t)));
            }
        }
        segment.clear();
    };
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        match w {
            ";" | "&&" | "||" | "|" | "&" | "\n" => flush(&mut segment, &mut base, &mut out),
            ">" | ">>" | ">|" | "&>" | "&>>" | "1>" | "2>" | "1>>" | "2>>" => {
                if let Some(t) = words.get(i + 1) {
                    if !t.starts_with('&') && t != "/dev/null" {
                        out.push(at(&base, t));
                    }
                    i += 1;
                }
            }
            _ => {
                // `>file`, `2>>file`.
                let trimmed = w.trim_start_matches(['1', '2', '&']);
                if let Some(t) = trimmed
                    .strip_prefix(">>")
                    .or_else(|| trimmed.strip_prefix('>'))
                    .filter(|t| !t.is_empty() && !t.starts_with('&'))
                {
                    if t != "/dev/null" {
                        out.push(at(&base, t));
                    }
                } else {
                    segment.push(w);
                }
            }
        }
        i += 1;
    }
    flush(&mut segment, &mut base, &mut out);
    out
}

/// The write targets of one simple command.
fn segment_targets(words: &[&str], out: &mut Vec<String>) {
    // Past `sudo`, `env X=y`, `command`: the program.
    let mut start = 0;
    while start < words.len()
        && (matches!(words[start], "sudo" | "env" | "command" | "nohup" | "time")
            || words[start].contains('=') && !words[start].starts_with('-'))
    {
        start += 1;
    }
    let Some(program) = words.get(start) else {
        return;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    let args: Vec<&str> = words[start + 1..].to_vec();
    let operands: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    match program {
        "tee" | "rm" | "rmdir" | "mkdir" | "touch" | "truncate" | "shred" | "unlink" => {
            out.extend(operands.iter().map(|s| s.to_string()))
        }
        "chmod" | "chown" => out.extend(operands.iter().skip(1).map(|s| s.to_string())),
        "cp" | "mv" | "install" | "ln" | "rsync" | "scp" => {
            // `-t DIR` names the destination; otherwise the last operand.
            if let Some(t) = args.iter().position(|a| *a == "-t") {
                if let Some(dir) = args.get(t + 1) {
                    out.push(dir.to_string());
                }
            } else if let Some(last) = operands.last() {
                out.push(last.to_string());
            }
        }
        "sed" | "perl" | "ruby" => {
            // `-i`, `-i.bak`, `-Ei`, `-pi`, `--in-place`.
            let in_place = args.iter().any(|a| {
                a.starts_with("--in-place")
                    || a.starts_with('-') && !a.starts_with("--") && a[1..].contains('i')
            });
            if in_place {
                // Operands past the scripts given with -e/-f (their values are not files);
                // without either, the first operand is the script.
                let mut files = Vec::new();
                let mut scripted = false;
                let mut k = 0;
                while k < args.len() {
                    match args[k] {
                        "-e" | "-f" => {
                            scripted = true;
                            k += 1;
                        }
                        a if a.starts_with('-') => {}
                        a => files.push(a),
                    }
                    k += 1;
                }
                out.extend(
                    files
                        .iter()
                        .skip(usize::from(!scripted))
                        .map(|s| s.to_string()),
                );
            }
        }
        "bash" | "sh" | "zsh" | "dash" => {
            // `bash -c 'script'`: the script's own writes.
            if let Some(at) = args.iter().position(|a| matches!(*a, "-c" | "-lc")) {
                if let Some(script) = args.get(at + 1) {
                    out.extend(shell_targets(script));
                }
            }
        }
        "git" => {
            // Commands that write files named after them.
            if matches!(args.first(), Some(&"mv" | &"rm" | &"checkout" | &"restore")) {
                out.extend(operands.iter().skip(1).map(|s| s.to_string()));
            }
        }
        _ => {}
    }
}

/// A command line's words, quotes removed, operators as words of their own.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut chars = command.chars().peekable();
    let push = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            ' ' | '\t' => push(&mut word, &mut out),
            '\n' | ';' => {
                push(&mut word, &mut out);
                out.push(c.to_string());
            }
            '|' | '&' => {
                push(&mut word, &mut out);
                let mut op = c.to_string();
                if chars.peek() == Some(&c) {
                    op.push(chars.next().unwrap_or(c));
                } else if c == '&' && chars.peek() == Some(&'>') {
                    op.push(chars.next().unwrap_or('>'));
                    if chars.peek() == Some(&'>') {
                        op.push(chars.next().unwrap_or('>'));
                    }
                }
                out.push(op);
            }
            '>' => {
                // `2>`, `1>>`: the digit belongs to the operator.
                let mut op = String::new();
                if word == "1" || word == "2" {
                    op.push_str(&std::mem::take(&mut word));
                } else {
                    push(&mut word, &mut out);
                }
                op.push('>');
                if matches!(chars.peek(), Some('>') | Some('|')) {
                    op.push(chars.next().unwrap_or('>'));
                }
                out.push(op);
            }
            c => word.push(c),
        }
    }
    push(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn t(command: &str) -> Vec<String> {
        shell_targets(command)
    }

    #[test]
    fn shell_writes_are_found() {
        assert_eq!(
            t("echo hi > .claude/skills/x/SKILL.md"),
            [".claude/skills/x/SKILL.md"]
        );
        assert_eq!(t("echo hi >>notes.md"), ["notes.md"]);
        // A `cd` on the line moves what follows; `cd -` and `cd ~` are not followed.
        assert_eq!(
            t("cd .claude/skills/a && sed -i 's/x/y/' SKILL.md; echo > /tmp/x"),
            [".claude/skills/a/SKILL.md", "/tmp/x"]
        );
        assert_eq!(t("cd a; cd b && echo hi > f"), ["a/b/f"]);
        assert_eq!(t("cd /repo/s && touch n"), ["/repo/s/n"]);
        assert_eq!(t("cd - && touch n"), ["n"]);
        assert_eq!(t("cat a | tee -a out.txt log.txt"), ["out.txt", "log.txt"]);
        assert_eq!(t("cp -r src/a 'dest dir/'"), ["dest dir/"]);
        assert_eq!(t("mv a b && rm -f c d"), ["b", "c", "d"]);
        assert_eq!(t("sed -i 's/a/b/' x.md y.md"), ["x.md", "y.md"]);
        assert_eq!(t("sed -i -e 's/a/b/' x.md"), ["x.md"]);
        assert_eq!(t("sudo install -t /opt/bin tool"), ["/opt/bin"]);
        assert_eq!(t("make 2> err.log"), ["err.log"]);
        assert_eq!(t("git mv a b"), ["a", "b"]);
        assert_eq!(t("bash -c 'echo x > f.md'"), ["f.md"]);
        assert!(t("ls -la; cat README.md; grep -r x . 2>&1; echo > /dev/null").is_empty());
        assert!(t("sed 's/a/b/' x.md").is_empty(), "no -i: stdout only");
    }

    #[test]
    fn file_tools_of_each_agent_name_their_target() {
        let cwd = Path::new("/p");
        let use_ = |name: &str, input: Value| {
            targets(
                &ToolUse {
                    name: name.into(),
                    input,
                },
                cwd,
            )
        };
        assert_eq!(
            use_("Write", json!({"file_path": "/p/a.md"})),
            [PathBuf::from("/p/a.md")]
        );
        assert_eq!(
            use_("write_file", json!({"file_path": "b.md"})),
            [PathBuf::from("/p/b.md")]
        );
        assert_eq!(
            use_("edit", json!({"path": "c.md"})),
            [PathBuf::from("/p/c.md")]
        );
        assert_eq!(
            use_(
                "apply_patch",
                json!({"input": "*** Begin Patch\n*** Update File: s/SKILL.md\n@@\n*** End Patch"})
            ),
            [PathBuf::from("/p/s/SKILL.md")]
        );
        assert_eq!(
            use_("Bash", json!({"command": "echo x > d.md"})),
            [PathBuf::from("/p/d.md")]
        );
        assert_eq!(
            use_("exec_command", json!({"cmd": ["bash", "-lc", "touch e"]})),
            [PathBuf::from("/p/e")]
        );
        assert!(use_("Read", json!({"file_path": "/p/a.md"})).is_empty());
        assert!(use_("Bash", json!({"command": 5})).is_empty());
    }
}
