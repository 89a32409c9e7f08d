//! What a skill runs: the files a run instruction names (`bash references/notes.md`,
//! `python3 scripts/x.py`, `source lib.sh`, `chmod +x tool && ./tool`, in SKILL.md, a
//! reference or a script), and the files links under `scripts/` lead to. Such a file is judged
//! as code, without the demotions that describe rather than do (a quoted example, security
//! guidance, a vendor's installer, a test fixture): "this only describes an attack" means
//! nothing about a file that `bash` runs, whatever folder it sits in.
//!
//! A false match costs nothing but demotions (a file is judged strictly); a missed one lets a
//! described attack run, so the patterns are generous and the names are resolved every way an
//! agent would: relative to the skill, after `./`, after the variables agents set for a
//! skill's directory, or after a path that ends in the skill's own folder.

use std::collections::BTreeMap;

use super::analysis::regions::Lang;
use crate::skill::{FileKind, SkillFiles};

/// What runs a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// An interpreter this scanner parses.
    Lang(Lang),
    /// The kernel (`./x`, `chmod +x x`): the shebang decides, else the shell.
    Kernel,
    /// An interpreter this scanner has no grammar for (ruby, perl, php...).
    Other,
}

/// One file that runs, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunTarget {
    pub runner: Runner,
    /// What names it: `SKILL.md: bash references/notes.md`, or `scripts/setup.sh (a link)`.
    pub by: String,
}

/// At most this many bytes of an instruction's operand are looked at.
const MAX_ARG: usize = 512;

/// One run instruction found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Instruction<'t> {
    /// The program (`bash`, `.`, `python3`), or "" for a file run directly (`./x`).
    prog: &'t str,
    /// Its options before the operand (`-u`, `-m`, `run`, `+x`).
    opts: Vec<&'t str>,
    /// The operand: the file it runs.
    arg: &'t str,
    /// From the program (or the file run directly) to the end of the operand.
    span: std::ops::Range<usize>,
}

/// Programs that run the next operand as a file.
const PROGRAMS: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "source",
    ".",
    "py",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "tsx",
    "ts-node",
    "ruby",
    "perl",
    "php",
    "pwsh",
    "powershell",
    "powershell.exe",
    "Rscript",
    "osascript",
    "uv",
    "chmod",
];

/// Words that run the command after them.
const WRAPPERS: &[&str] = &["sudo", "exec", "env", "time", "nohup", "command", "xargs"];

/// Prefixes of a path that mean the skill's own folder.
const SKILL_DIR_VARS: &[&str] = &[
    "${CLAUDE_SKILL_DIR}/",
    "$CLAUDE_SKILL_DIR/",
    "${SKILL_DIR}/",
    "$SKILL_DIR/",
    "{baseDir}/",
    "${baseDir}/",
    "$BASE_DIR/",
    "${BASE_DIR}/",
];

fn is_program(word: &str) -> bool {
    if PROGRAMS.contains(&word) {
        return true;
    }
    // python, python3, python3.12
    word.strip_prefix("python")
        .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// Whether `word` is one of a program's options before its operand.
fn is_option(prog: &str, word: &str) -> bool {
    if word.starts_with('-') && word.len() > 1 {
        return true;
    }
    match prog {
        "uv" | "deno" | "bun" => word == "run",
        "chmod" => {
            word.bytes().all(|b| b.is_ascii_digit()) || word.contains('+') || word.contains('=')
        }
        _ => false,
    }
}

/// A byte that ends a word: white space, quotes, and what shells and Markdown put around
/// commands.
fn delimits(b: u8) -> bool {
    b.is_ascii_whitespace() || b"`'\"()[];&|<>,".contains(&b)
}

/// The words of `text` with their byte ranges, and whether each is in command position: at
/// a line's start (after a `$ ` prompt), in inline code, or after `;`, `&&`, `||` or `$(`
/// (not after `(` or `|` alone: Markdown links and tables put paths there that nothing runs).
fn words(text: &str) -> Vec<(std::ops::Range<usize>, bool)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut command = true;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            command = true;
            i += 1;
            continue;
        }
        if delimits(b) {
            let next = bytes.get(i + 1).copied();
            match b {
                b'`' | b';' => command = true,
                b'&' | b'|' if next == Some(b) => {
                    command = true;
                    i += 1;
                }
                b'(' if i > 0 && bytes[i - 1] == b'$' => command = true,
                _ if b.is_ascii_whitespace() => {}
                _ => command = false,
            }
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !delimits(bytes[i]) {
            i += 1;
        }
        let word = &text[start..i];
        if word == "$" && command {
            // A prompt: the command follows.
            continue;
        }
        if word.ends_with('$') && i < bytes.len() && bytes[i] == b'(' {
            // `x=$(`: the `$` is the substitution's, the word before it is not a command.
            out.push((start..i - 1, false));
            command = false;
            continue;
        }
        out.push((start..i, command));
        command = false;
    }
    out
}

/// The run instructions of `text`, in order.
fn instructions(text: &str) -> Vec<Instruction<'_>> {
    let words = words(text);
    let word = |k: usize| &text[words[k].0.clone()];
    let mut out = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let (range, command) = words[k].clone();
        let first = word(k);
        // A file run directly, by a path that says where it is.
        if command
            && (first.starts_with("./") || SKILL_DIR_VARS.iter().any(|v| first.starts_with(v)))
        {
            out.push(Instruction {
                prog: "",
                opts: Vec::new(),
                arg: first,
                span: range.clone(),
            });
            k += 1;
            continue;
        }
        // Wrappers, then a program, its options, its operand; each on the same line.
        let mut j = k;
        let same_line = |a: usize, b: usize| !text[words[a].0.end..words[b].0.start].contains('\n');
        while j < words.len() && WRAPPERS.contains(&word(j)) {
            j += 1;
            while j < words.len() && word(j).starts_with('-') {
                j += 1;
            }
        }
        if j >= words.len() || !is_program(word(j)) || (j > k && !same_line(k, j)) {
            k += 1;
            continue;
        }
        let prog = word(j);
        let mut opts = Vec::new();
        let mut m = j + 1;
        while m < words.len() && same_line(j, m) && is_option(prog, word(m)) {
            let w = word(m);
            opts.push(w);
            m += 1;
            // PowerShell's execution policy takes a value.
            if (w.eq_ignore_ascii_case("-ExecutionPolicy") || w.eq_ignore_ascii_case("-ep"))
                && m < words.len()
            {
                m += 1;
            }
        }
        if m < words.len() && same_line(j, m) {
            out.push(Instruction {
                prog,
                opts,
                arg: word(m),
                span: words[j].0.start..words[m].0.end,
            });
        }
        k = j + 1;
    }
    out
}

fn runner_of(prog: &str) -> Runner {
    match prog {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" | "source" | "." => {
            Runner::Lang(Lang::Shell)
        }
        "node" | "nodejs" | "deno" | "bun" | "tsx" | "ts-node" => Runner::Lang(Lang::JavaScript),
        "pwsh" | "powershell" | "powershell.exe" => Runner::Lang(Lang::PowerShell),
        "chmod" => Runner::Kernel,
        p if p.starts_with("python") || p.starts_with("pypy") || p == "py" || p == "uv" => {
            Runner::Lang(Lang::Python)
        }
        _ => Runner::Other,
    }
}

/// The files of the skill that run. `text_of` gives a file's text (decoded), `None` for one
/// that is not text or was not read; `dir_name` is the skill's folder name.
pub fn run_targets<'t>(
    files: &SkillFiles,
    dir_name: &str,
    text_of: &dyn Fn(&str) -> Option<&'t str>,
) -> BTreeMap<String, RunTarget> {
    let mut out: BTreeMap<String, RunTarget> = BTreeMap::new();
    let exists = |p: &str| files.entry(p).is_some() || record(files, p);
    for entry in files.entries.iter().chain(&files.records) {
        let Some(body) = text_of(&entry.path) else {
            continue;
        };
        for found in instructions(body) {
            // Inline code, not a file.
            if found
                .opts
                .iter()
                .any(|o| *o == "-c" || *o == "-e" || *o == "--eval")
            {
                continue;
            }
            let mut arg = found.arg.to_owned();
            if found.prog.starts_with("python") && found.opts.contains(&"-m") {
                arg = format!("{}.py", arg.replace('.', "/"));
            }
            if found.prog == "chmod" && !grants_execute(&found.opts) {
                continue;
            }
            if let Some(path) = resolve(&arg, dir_name, &exists) {
                let runner = match found.prog {
                    "" => Runner::Kernel,
                    prog => runner_of(prog),
                };
                out.entry(path).or_insert(RunTarget {
                    runner,
                    by: format!("{}: {}", entry.path, shorten(&body[found.span])),
                });
            }
        }
    }
    // Links: what a link under scripts/ (or a link that runs) leads to runs, as the link's
    // own name says. Chains are followed up to the number of links.
    let links: Vec<(&str, String)> = files
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            FileKind::Symlink { .. } => files.link_target(&e.path).map(|t| (e.path.as_str(), t)),
            _ => None,
        })
        .collect();
    for _ in 0..=links.len() {
        let mut grew = false;
        for (link, target) in &links {
            let runs = link.starts_with("scripts/") || out.contains_key(*link);
            if runs && !out.contains_key(target) {
                let runner = match out.get(*link) {
                    Some(t) => t.runner,
                    None => super::analysis::regions::file_lang(link, "")
                        .map_or(Runner::Kernel, Runner::Lang),
                };
                out.insert(
                    target.clone(),
                    RunTarget {
                        runner,
                        by: format!("{link} (a link to it)"),
                    },
                );
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    out
}

/// Whether chmod's mode (`+x`, `u+rwx`, `755`) lets someone execute the file.
fn grants_execute(opts: &[&str]) -> bool {
    opts.iter().any(|o| {
        if o.bytes().all(|b| b.is_ascii_digit()) {
            o.bytes().rev().take(3).any(|b| (b - b'0') & 1 == 1)
        } else {
            o.split_once('+')
                .is_some_and(|(_, perms)| perms.contains('x'))
        }
    })
}

fn record(files: &SkillFiles, path: &str) -> bool {
    files
        .records
        .binary_search_by(|e| e.path.as_str().cmp(path))
        .is_ok()
}

fn shorten(text: &str) -> String {
    crate::report::one_line(text, 80)
}

/// The path of the skill's file that `arg` names, if any.
fn resolve(arg: &str, dir_name: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    if arg.is_empty() || arg.len() > MAX_ARG {
        return None;
    }
    let mut rest = arg.replace('\\', "/");
    for var in SKILL_DIR_VARS {
        if let Some(r) = rest.strip_prefix(var) {
            rest = r.to_owned();
            break;
        }
    }
    // `.claude/skills/<name>/scripts/x.sh`, `~/.agents/skills/<name>/x`, `/abs/<name>/x`:
    // what follows the skill's own folder.
    if !dir_name.is_empty() {
        let marker = format!("/{dir_name}/");
        if let Some(i) = rest.rfind(&marker) {
            rest = rest[i + marker.len()..].to_owned();
        } else if let Some(r) = rest.strip_prefix(&format!("{dir_name}/")) {
            rest = r.to_owned();
        }
    }
    if let Some(path) = lexical(&rest).filter(|p| exists(p)) {
        return Some(path);
    }
    // A path relative to somewhere else that ends in one of the skill's own
    // (`../x/references/a.md`): the longest tail of two or more parts the skill holds.
    let parts: Vec<&str> = rest
        .split('/')
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    (1..parts.len().saturating_sub(1))
        .map(|i| parts[i..].join("/"))
        .find(|tail| exists(tail))
}

/// `path` with `.` and `..` resolved by text alone, relative; `None` when it climbs out.
fn lexical(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::FileEntry;

    fn skill(paths: &[&str], links: &[(&str, &str)]) -> SkillFiles {
        let mut entries: Vec<FileEntry> = paths
            .iter()
            .map(|p| FileEntry {
                path: (*p).to_owned(),
                kind: FileKind::File {
                    size: 1,
                    executable: false,
                },
            })
            .chain(links.iter().map(|(p, t)| FileEntry {
                path: (*p).to_owned(),
                kind: FileKind::Symlink {
                    target: (*t).into(),
                },
            }))
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        SkillFiles {
            entries,
            records: vec![FileEntry {
                path: ".skillopt/pending/signal.json".into(),
                kind: FileKind::File {
                    size: 1,
                    executable: false,
                },
            }],
            ..SkillFiles::default()
        }
    }

    fn targets(files: &SkillFiles, skill_md: &str) -> Vec<(String, Runner)> {
        run_targets(files, "demo", &|p| (p == "SKILL.md").then_some(skill_md))
            .into_iter()
            .map(|(p, t)| (p, t.runner))
            .collect()
    }

    #[test]
    fn run_instructions_name_files_every_way_an_agent_writes_them() {
        let files = skill(
            &[
                "SKILL.md",
                "references/notes.md",
                "references/example.md",
                "scripts/tool",
                "scripts/run.py",
                "lib/helpers.sh",
                "assets/x.ps1",
            ],
            &[],
        );
        let cases = [
            (
                "Then run `bash references/notes.md`.",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "sh ./references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "source lib/helpers.sh",
                "lib/helpers.sh",
                Runner::Lang(Lang::Shell),
            ),
            (
                ". lib/helpers.sh",
                "lib/helpers.sh",
                Runner::Lang(Lang::Shell),
            ),
            (
                "python3 -u \"${CLAUDE_SKILL_DIR}/scripts/run.py\"",
                "scripts/run.py",
                Runner::Lang(Lang::Python),
            ),
            (
                "python -m scripts.run",
                "scripts/run.py",
                Runner::Lang(Lang::Python),
            ),
            (
                "node {baseDir}/references/example.md",
                "references/example.md",
                Runner::Lang(Lang::JavaScript),
            ),
            (
                "pwsh -ExecutionPolicy Bypass -File assets/x.ps1",
                "assets/x.ps1",
                Runner::Lang(Lang::PowerShell),
            ),
            ("chmod +x scripts/tool", "scripts/tool", Runner::Kernel),
            (
                "chmod 755 references/notes.md",
                "references/notes.md",
                Runner::Kernel,
            ),
            (
                "`./references/example.md`",
                "references/example.md",
                Runner::Kernel,
            ),
            (
                "$ ./references/example.md --now",
                "references/example.md",
                Runner::Kernel,
            ),
            (
                "make && ./references/example.md",
                "references/example.md",
                Runner::Kernel,
            ),
            (
                "x=$(./references/example.md)",
                "references/example.md",
                Runner::Kernel,
            ),
            (
                "sudo bash .claude/skills/demo/references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "bash ~/.agents/skills/demo/lib/helpers.sh",
                "lib/helpers.sh",
                Runner::Lang(Lang::Shell),
            ),
            (
                "bash ../other/references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "bash .skillopt/pending/signal.json",
                ".skillopt/pending/signal.json",
                Runner::Lang(Lang::Shell),
            ),
            (
                "ruby references/notes.md",
                "references/notes.md",
                Runner::Other,
            ),
            (
                "$ bash references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "sudo -E env bash references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "| Setup | `bash references/notes.md` |",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "uv run scripts/run.py",
                "scripts/run.py",
                Runner::Lang(Lang::Python),
            ),
            (
                "python3.12 scripts/run.py",
                "scripts/run.py",
                Runner::Lang(Lang::Python),
            ),
            (
                "chmod u+x scripts/tool && ./scripts/tool",
                "scripts/tool",
                Runner::Kernel,
            ),
        ];
        for (text, path, runner) in cases {
            assert_eq!(targets(&files, text), [(path.to_owned(), runner)], "{text}");
        }
        for text in [
            "Read references/notes.md for details.",
            "cat references/example.md",
            "python -c 'import references'",
            "bash references/missing.md",
            "bash /etc/passwd",
            "bash ../../../../x",
            "chmod 644 references/notes.md",
            "See the example. references/notes.md explains it.",
            "See [notes](./references/notes.md) for more.",
            "| F | [{baseDir}/references/notes.md]({baseDir}/references/notes.md) |",
            "| ./references/notes.md | the notes |",
            "Run bash\nreferences/notes.md",
            "pythonic references/notes.md",
            "bash -c 'references/notes.md'",
        ] {
            assert!(targets(&files, text).is_empty(), "{text}");
        }
    }

    #[test]
    fn links_under_scripts_run_their_targets_through_chains() {
        let files = skill(
            &["SKILL.md", "references/example.md", "references/other.md"],
            &[
                ("scripts/setup.sh", "../references/example.md"),
                ("references/hop", "other.md"),
                ("scripts/next", "../references/hop"),
                ("references/not-run", "example.md"),
            ],
        );
        let found = targets(&files, "nothing here");
        assert_eq!(
            found,
            [
                (
                    "references/example.md".to_owned(),
                    Runner::Lang(Lang::Shell)
                ),
                ("references/other.md".to_owned(), Runner::Kernel),
            ]
        );
    }

    #[test]
    fn hostile_text_is_bounded() {
        let files = skill(&["SKILL.md"], &[]);
        let text = format!(
            "bash {}\n{}",
            "a/".repeat(100_000),
            "bash -x ".repeat(50_000)
        );
        assert!(targets(&files, &text).is_empty());
    }
}
