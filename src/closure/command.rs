//! The files a command line runs (a hook's command, an MCP server's, a task's): what an
//! interpreter runs (`bash x.sh`, `node x.js`, `python -m pkg`, `uv run x.py`), a program
//! named by its path (`.claude/hooks/x.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`), and a
//! local package run by `npx ./tool`. Variables that name the project or the plugin are read
//! as the folders they stand for.

use super::Wanted;

/// One file a command line runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFile {
    pub target: Wanted,
    /// Named from the plugin's folder (`${CLAUDE_PLUGIN_ROOT}/x`).
    pub in_plugin: bool,
    /// The words that run it.
    pub how: String,
}

/// Variables agents set to the project's folder when they run a command.
const PROJECT_VARS: &[&str] = &[
    "CLAUDE_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
    "QWEN_PROJECT_DIR",
    "CURSOR_PROJECT_DIR",
    "workspaceFolder",
    "PWD",
];

/// Variables agents set to a plugin's or an extension's folder.
const PLUGIN_VARS: &[&str] = &["CLAUDE_PLUGIN_ROOT", "extensionPath", "PLUGIN_ROOT"];

/// Programs that run a local package given by its path.
const PACKAGE_RUNNERS: &[&str] = &["npx", "bunx", "pnpx"];

/// The files `line` runs, each once.
pub fn files_run(line: &str) -> Vec<RunFile> {
    let (text, in_plugin) = with_folders(line);
    let mut out: Vec<RunFile> = Vec::new();
    let mut add = |target: Wanted, how: String| {
        if !out.iter().any(|r| r.target == target) {
            out.push(RunFile {
                target,
                in_plugin,
                how,
            });
        }
    };
    for op in crate::guard::runs::operands(&text) {
        let target = if op.module {
            Wanted::Module(op.arg)
        } else {
            Wanted::Path(op.arg)
        };
        add(target, op.instruction);
    }
    for words in commands(&text) {
        let mut i = 0;
        // `X=1 cmd`, `sudo cmd`, `env -i cmd`.
        while i < words.len()
            && (is_assignment(&words[i])
                || crate::guard::runs::WRAPPERS.contains(&words[i].as_str())
                || (i > 0
                    && crate::guard::runs::WRAPPERS.contains(&words[i - 1].as_str())
                    && words[i].starts_with('-')))
        {
            i += 1;
        }
        let Some(program) = words.get(i) else {
            continue;
        };
        if program.contains('/') && !program.starts_with(['-', '$', '~', '/']) {
            add(Wanted::Path(program.clone()), words[i..].join(" "));
        }
        // An interpreter's script, quotes read as the shell reads them (`node 'a b.js'`).
        let name = program.rsplit('/').next().unwrap_or(program);
        // (The programs the run instructions of prose know.)
        if crate::guard::runs::is_program(&name.to_ascii_lowercase()) {
            let mut module = false;
            for arg in &words[i + 1..] {
                match arg.as_str() {
                    "-c" | "-e" | "--eval" | "-p" => break,
                    "-m" => module = true,
                    "run" if matches!(name, "uv" | "deno" | "bun") => {}
                    a if a.starts_with('-') => {}
                    a => {
                        let target = if module {
                            Wanted::Module(format!("{}.py", a.replace('.', "/")))
                        } else {
                            Wanted::Path(a.to_owned())
                        };
                        add(target, format!("{name} {a}"));
                        break;
                    }
                }
            }
        }
        let runner = PACKAGE_RUNNERS.contains(&name)
            || (matches!(name, "pnpm" | "yarn") && words.get(i + 1).is_some_and(|w| w == "dlx"));
        if runner {
            if let Some(package) = words[i + 1..]
                .iter()
                .find(|w| !w.starts_with('-') && *w != "dlx")
                .filter(|w| w.starts_with("./") || w.starts_with("../"))
            {
                add(Wanted::Path(package.clone()), format!("{name} {package}"));
            }
        }
    }
    out
}

/// `line` with the project's and the plugin's variables read as `.` (quotes around them kept
/// out of the way), and whether a plugin's variable was among them.
fn with_folders(line: &str) -> (String, bool) {
    let mut text = line.to_owned();
    let mut in_plugin = false;
    for (vars, plugin) in [(PROJECT_VARS, false), (PLUGIN_VARS, true)] {
        for var in vars {
            for form in [
                format!("\"${{{var}}}\""),
                format!("\"${var}\""),
                format!("${{{var}}}"),
                format!("${var}"),
            ] {
                if text.contains(&form) {
                    in_plugin |= plugin;
                    text = text.replace(&form, ".");
                }
            }
        }
    }
    (text, in_plugin)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// The simple commands of a line, each as its words (quotes removed, a backslash escaping the
/// next character), split at `;`, `&`, `|`, `(`, `)` and line breaks. Bounded: at most 64
/// commands of 64 words.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    let flush = |out: &mut Vec<Vec<String>>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            if let Some(last) = out.last_mut() {
                if last.len() < 64 {
                    last.push(std::mem::take(word));
                }
            }
            word.clear();
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        if out.len() > 64 {
            break;
        }
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                    in_word = true;
                }
            }
            (None, ';' | '&' | '|' | '(' | ')' | '\n' | '`') => {
                flush(&mut out, &mut word, &mut in_word);
                if out.last().is_some_and(|l| !l.is_empty()) {
                    out.push(Vec::new());
                }
            }
            (None, c) if c.is_whitespace() => flush(&mut out, &mut word, &mut in_word),
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    flush(&mut out, &mut word, &mut in_word);
    out.retain(|c| !c.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(line: &str) -> Vec<String> {
        files_run(line)
            .into_iter()
            .map(|r| r.target.text().to_owned())
            .collect()
    }

    #[test]
    fn what_command_lines_run() {
        assert_eq!(
            paths("bash .claude/hooks/format.sh"),
            [".claude/hooks/format.sh"]
        );
        assert_eq!(
            paths("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh --strict"),
            ["./.claude/hooks/check.sh"]
        );
        assert_eq!(paths(".claude/hooks/check.sh"), [".claude/hooks/check.sh"]);
        // (The word before the space is a guess that resolves to nothing.)
        assert!(paths("node 'tools/mcp server.js'").contains(&"tools/mcp server.js".to_owned()));
        assert_eq!(paths("python -m pkg.server"), ["pkg/server.py"]);
        assert_eq!(paths("uv run tools/x.py"), ["tools/x.py"]);
        assert_eq!(paths("npx -y ./tools/local-mcp"), ["./tools/local-mcp"]);
        assert_eq!(
            paths("FOO=1 sudo tools/a.sh && cd x; ./b.sh"),
            ["./b.sh", "tools/a.sh"]
        );
        let plugin = files_run("${CLAUDE_PLUGIN_ROOT}/scripts/x.sh");
        assert!(plugin[0].in_plugin, "{plugin:?}");
        for none in [
            "npx -y @acme/formatter-mcp",
            "cargo fmt",
            "/usr/bin/env true",
            "git diff --staged",
        ] {
            assert!(paths(none).is_empty(), "{none}: {:?}", paths(none));
        }
    }

    #[test]
    fn hostile_lines_are_bounded() {
        let long = "a/b.sh;".repeat(10_000);
        assert!(files_run(&long).len() <= 65);
        assert!(files_run("\"unclosed").is_empty());
        assert_eq!(paths("bash 工具/格式.sh 🦀"), ["工具/格式.sh"]);
    }
}
