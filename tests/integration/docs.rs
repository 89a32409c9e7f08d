//! The documentation as a newcomer reads it: every link between the repository's Markdown files
//! resolves (the file, and the heading an anchor names, as GitHub makes anchors), and every
//! `git skill ...` command line of a code block parses (the subcommand's `--help` accepts its
//! flags and values), so that the README and `docs/` cannot drift from the binary.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::common::BIN;

fn top() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files a reader follows links through.
fn markdown_files() -> Vec<PathBuf> {
    let top = top();
    let mut files = vec![
        top.join("README.md"),
        top.join("CHANGELOG.md"),
        top.join("benches/README.md"),
        top.join("tests/agents/README.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(top.join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_` dropped,
/// spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines outside fenced code blocks, and the fenced blocks with their language.
fn split(text: &str) -> (Vec<&str>, Vec<(String, Vec<&str>)>) {
    let mut prose = Vec::new();
    let mut blocks = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match (&mut open, fence) {
            (None, true) => {
                open = Some((
                    line.trim_start().trim_start_matches('`').trim().to_owned(),
                    Vec::new(),
                ))
            }
            (Some(_), true) => blocks.push(open.take().expect("open")),
            (Some((_, lines)), false) => lines.push(line),
            (None, false) => prose.push(line),
        }
    }
    (prose, blocks)
}

/// Anchors of a Markdown file, with GitHub's `-1`, `-2` for repeated headings, and those of
/// explicit `<a id>`/`name` tags.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    let (prose, _) = split(text);
    for line in prose {
        if line.starts_with('#') {
            let base = slug(line);
            let mut a = base.clone();
            let mut n = 0;
            while !seen.insert(a.clone()) {
                n += 1;
                a = format!("{base}-{n}");
            }
        }
    }
    seen
}

/// The link targets of the prose (not of code blocks or inline code).
fn links(text: &str) -> Vec<String> {
    let (prose, _) = split(text);
    let re = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut out = Vec::new();
    for line in prose {
        // Inline code spans hold examples, not links.
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        for c in re.captures_iter(&plain) {
            out.push(c[1].to_owned());
        }
    }
    out
}

#[test]
fn every_link_between_the_documents_resolves() {
    let mut broken = Vec::new();
    let mut anchored = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file.parent().unwrap();
        for link in links(&text) {
            anchored += usize::from(link.contains('#'));
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            let shown = file.strip_prefix(top()).unwrap().display().to_string();
            if !target.exists() {
                broken.push(format!("{shown}: {link}: no such file"));
                continue;
            }
            if !anchor.is_empty() && target.extension().is_some_and(|x| x == "md") {
                let there = std::fs::read_to_string(&target).unwrap();
                if !anchors(&there).contains(anchor) {
                    broken.push(format!("{shown}: {link}: no such heading"));
                }
            }
        }
    }
    assert!(
        anchored > 100,
        "only {anchored} links to headings were found"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// `git skill ...` command lines of the shell blocks, as words: each command of a line
/// (split at `&&`, `;` and `|`), up to a redirection or a comment; lines with `...` are left
/// out.
fn command_lines(text: &str) -> Vec<Vec<String>> {
    let (_, blocks) = split(text);
    let mut out = Vec::new();
    for (lang, lines) in blocks {
        if !matches!(lang.as_str(), "sh" | "bash" | "console" | "shell" | "") {
            continue;
        }
        // A line that ends with `\` goes on on the next.
        let mut joined: Vec<String> = Vec::new();
        let mut pending = String::new();
        for line in lines {
            match line.trim_end().strip_suffix('\\') {
                Some(head) => {
                    pending.push_str(head);
                    pending.push(' ');
                }
                None => {
                    pending.push_str(line);
                    joined.push(std::mem::take(&mut pending));
                }
            }
        }
        for line in &joined {
            let line = line.trim().trim_start_matches("$ ");
            for command in line
                .split("&&")
                .flat_map(|c| c.split(';'))
                .flat_map(|c| c.split(" | "))
            {
                let command = command.trim();
                // A placeholder (`<SKILL>`) ends the words like a redirection: the rest parses.
                if !command.starts_with("git skill ") || command.contains("...") {
                    continue;
                }
                if let Some(words) = words(command) {
                    out.push(words);
                }
            }
        }
    }
    out
}

/// Shell words of a simple command, quotes taken off; `None` for what this does not read
/// (a substitution).
fn words(command: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, '#') if word.is_empty() => break,
            (None, '<' | '>') if word.is_empty() => break,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() || any {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, '`') => return None,
            (None, c) => word.push(c),
        }
    }
    if !word.is_empty() || any {
        out.push(word);
    }
    if out.iter().any(|w| w.contains("$(")) {
        return None;
    }
    Some(out)
}

#[test]
fn every_git_skill_command_line_in_the_documents_parses() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for words in command_lines(&text) {
            seen += 1;
            // `git skill X ARGS` -> `git-skill X ARGS --help`: clap checks every flag and value
            // before it prints the help.
            let args: Vec<&str> = words[2..].iter().map(String::as_str).collect();
            let out = std::process::Command::new(BIN)
                .args(&args)
                .arg("--help")
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            if !out.status.success() {
                let shown = file.strip_prefix(top()).unwrap().display().to_string();
                let why = String::from_utf8_lossy(&out.stderr);
                bad.push(format!(
                    "{shown}: git skill {}: {}",
                    args.join(" "),
                    why.lines().next().unwrap_or("")
                ));
            }
        }
    }
    assert!(seen > 30, "only {seen} command lines found");
    assert!(
        bad.is_empty(),
        "command lines that do not parse:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_readme_is_short_and_has_its_two_commands_near_the_top() {
    let readme = std::fs::read_to_string(top().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; the reference goes to docs/"
    );
    let head: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    assert!(head.contains("cargo install --locked --path ."), "{head}");
    assert!(head.contains("cargo test --locked"), "{head}");
    for doc in [
        "docs/commands.md",
        "docs/guard.md",
        "docs/rules.md",
        "docs/configuration.md",
    ] {
        assert!(readme.contains(doc), "the README links {doc}");
    }
}

#[test]
fn the_anchor_and_word_readers_read_markdown_as_github_does() {
    assert_eq!(
        slug("## `git skill init [--agent claude|qwen] [--dry-run]`"),
        "git-skill-init---agent-claudeqwen---dry-run"
    );
    assert_eq!(
        slug("### Secrets never leave git-skill"),
        "secrets-never-leave-git-skill"
    );
    let a = anchors("# A\n## B\n## B\n```sh\n# not a heading\n```\n");
    assert!(a.contains("b") && a.contains("b-1") && !a.contains("not-a-heading"));
    assert_eq!(
        words("git skill scan --fail-on 'caution' \"a b\" # note").unwrap(),
        ["git", "skill", "scan", "--fail-on", "caution", "a b"]
    );
    assert_eq!(
        words("git skill record pdf --stdin < x.json").unwrap(),
        ["git", "skill", "record", "pdf", "--stdin"]
    );
    assert!(words("git skill scan $(ls)").is_none());
}
