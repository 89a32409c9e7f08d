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
use std::sync::OnceLock;

use regex::Regex;

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

fn instruction() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"(?m)(?:^|[\s`'\x22(\[;&|{=>])",
            r"(?:(?:sudo|exec|env|time|nohup|command|xargs)\s+(?:-\S+\s+)*)?",
            r"(?P<prog>bash|sh|zsh|dash|ksh|fish|source|\.|python(?:[23](?:\.\d+)?)?|py|pypy3?",
            r"|node|nodejs|deno|bun|tsx|ts-node|ruby|perl|php|pwsh|powershell(?:\.exe)?",
            r"|Rscript|osascript|uv|chmod)",
            r"(?P<opts>(?:\s+(?:run|-(?:ExecutionPolicy|ep)\s+\S+|-{1,2}[A-Za-z][\w.=-]*",
            r"|[ugoa]*\+[rwx]*x[rwx]*|[0-7]{3,4}))*)",
            r"\s+(?P<arg>\x22[^\x22\n]{1,512}\x22|'[^'\n]{1,512}'|[^\s`'\x22|;&()<>]{1,512})",
        ))
        .expect("the run instruction pattern compiles")
    })
}

fn direct() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            // Command position only: a line's start (after a `$ ` prompt), inline code, `;`,
            // `&&`, `||` or `$(`. Not `(` or `|` alone: Markdown links and tables put paths
            // there that nothing runs.
            r"(?m)(?:^\s*(?:\$\s+)?|`|;\s*|&&\s*|\|\|\s*|\$\(\s*)",
            r"(?P<arg>(?:\./|\$\{?CLAUDE_SKILL_DIR\}?/|\$\{?SKILL_DIR\}?/|\{baseDir\}/)",
            r"[^\s`'\x22|;&()<>]{1,512})",
        ))
        .expect("the direct run pattern compiles")
    })
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
        let Some(text) = text_of(&entry.path) else {
            continue;
        };
        for caps in instruction().captures_iter(text) {
            let prog = &caps["prog"];
            let opts = caps.name("opts").map_or("", |m| m.as_str());
            // Inline code, not a file.
            if opts
                .split_whitespace()
                .any(|o| o == "-c" || o == "-e" || o == "--eval")
            {
                continue;
            }
            let mut arg = unquote(&caps["arg"]).to_owned();
            if prog.starts_with("python") && opts.split_whitespace().any(|o| o == "-m") {
                arg = format!("{}.py", arg.replace('.', "/"));
            }
            if prog == "chmod" && !grants_execute(opts) {
                continue;
            }
            if let Some(path) = resolve(&arg, dir_name, &exists) {
                // From the program on: the character before it only delimits.
                let start = caps.name("prog").map_or(0, |m| m.start());
                let end = caps.get(0).map_or(start, |m| m.end());
                let what = &text[start..end];
                out.entry(path).or_insert(RunTarget {
                    runner: runner_of(prog),
                    by: format!("{}: {}", entry.path, shorten(what)),
                });
            }
        }
        for caps in direct().captures_iter(text) {
            if let Some(path) = resolve(unquote(&caps["arg"]), dir_name, &exists) {
                out.entry(path).or_insert(RunTarget {
                    runner: Runner::Kernel,
                    by: format!("{}: {}", entry.path, shorten(&caps["arg"])),
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
fn grants_execute(opts: &str) -> bool {
    opts.split_whitespace().any(|o| {
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

fn unquote(arg: &str) -> &str {
    let arg = arg.trim();
    for q in ['"', '\''] {
        if let Some(inner) = arg.strip_prefix(q).and_then(|a| a.strip_suffix(q)) {
            return inner;
        }
    }
    arg
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
    for var in [
        "${CLAUDE_SKILL_DIR}/",
        "$CLAUDE_SKILL_DIR/",
        "${SKILL_DIR}/",
        "$SKILL_DIR/",
        "{baseDir}/",
        "${baseDir}/",
        "$BASE_DIR/",
        "${BASE_DIR}/",
    ] {
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
