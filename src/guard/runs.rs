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
    /// What names it: `SKILL.md: bash references/notes.md`, or `scripts/setup.sh (a link)`;
    /// empty for the commands of an agent's settings, whose report is the settings file.
    pub by: String,
}

/// At most this many bytes of an instruction's operand are looked at.
const MAX_ARG: usize = 512;

/// One run instruction found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Instruction<'t> {
    /// The program, as named after its folder and `.exe` are dropped and in lower case (`bash`,
    /// `.`, `python3`), or "" for a file run directly (`./x`).
    prog: String,
    /// Its options before the operand (`-u`, `-m`, `run`, `+x`).
    opts: Vec<&'t str>,
    /// The operand: the file it runs.
    arg: &'t str,
    /// From the program (or the file run directly) to the end of the operand.
    span: std::ops::Range<usize>,
}

/// Programs that run a file: the next operand, what `<` feeds them, or what a reader pipes
/// into them (`cat x | sh`).
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
    "rscript",
    "osascript",
    "uv",
    "jupyter",
    "papermill",
    "ipython",
    "chmod",
    "iex",
    "invoke-expression",
];

/// Words that run the command after them.
pub(crate) const WRAPPERS: &[&str] = &["sudo", "exec", "env", "time", "nohup", "command", "xargs"];

/// Commands whose output is a file's text (`cat x | sh`).
const READERS: &[&str] = &[
    "cat",
    "type",
    "less",
    "more",
    "head",
    "tail",
    "get-content",
    "gc",
];

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

/// A command word as the system finds it: `/bin/bash`, `Bash`, `python.exe` are `bash`,
/// `bash`, `python`.
fn program_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let lower = base.to_ascii_lowercase();
    lower
        .strip_suffix(".exe")
        .map(str::to_owned)
        .unwrap_or(lower)
}

pub(crate) fn is_program(name: &str) -> bool {
    if PROGRAMS.contains(&name) {
        return true;
    }
    // python, python3, python3.12
    name.strip_prefix("python")
        .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// Whether `word` is one of a program's options before its operand.
fn is_option(prog: &str, word: &str) -> bool {
    if word.len() > 1 && (word.starts_with('-') || (prog.ends_with("sh") && word.starts_with('+')))
    {
        return true;
    }
    match prog {
        "uv" | "deno" | "bun" => word == "run",
        // `jupyter nbconvert --execute x.ipynb`, `jupyter execute x.ipynb`.
        "jupyter" => matches!(word, "nbconvert" | "execute" | "run"),
        "chmod" => {
            word.bytes().all(|b| b.is_ascii_digit()) || word.contains('+') || word.contains('=')
        }
        _ => false,
    }
}

/// Whether a program's option takes the next word as its value (`bash -o pipefail x`).
fn takes_value(prog: &str, opt: &str) -> bool {
    match prog {
        "bash" | "sh" | "zsh" | "dash" | "ksh" => matches!(opt, "-o" | "+o" | "-O" | "+O"),
        "node" | "nodejs" => matches!(opt, "-r" | "--require" | "--import" | "--loader"),
        "pwsh" | "powershell" => matches!(
            opt.to_ascii_lowercase().as_str(),
            "-executionpolicy" | "-ep" | "-workingdirectory" | "-wd"
        ),
        "jupyter" => matches!(opt, "--to" | "--output" | "--output-dir"),
        "papermill" => matches!(opt, "-p" | "-k" | "--kernel" | "-r"),
        p if p.starts_with("py") => matches!(opt, "-X" | "-W"),
        _ => false,
    }
}

/// Whether a program's option means the code is on the command line, not in a file.
fn inline_code(prog: &str, opt: &str) -> bool {
    let opt = opt.to_ascii_lowercase();
    match prog {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" => opt == "-c",
        "node" | "nodejs" | "deno" | "bun" => {
            matches!(opt.as_str(), "-e" | "--eval" | "-p" | "--print")
        }
        "ruby" | "perl" => matches!(opt.as_str(), "-e" | "-E"),
        "pwsh" | "powershell" => {
            matches!(
                opt.as_str(),
                "-command" | "-c" | "-encodedcommand" | "-ec" | "-e"
            )
        }
        p if p.starts_with("py") => opt == "-c",
        _ => false,
    }
}

/// A byte that ends a word: white space, quotes, and what shells and Markdown put around
/// commands.
fn delimits(b: u8) -> bool {
    b.is_ascii_whitespace() || b"`'\"()[];&|<>,".contains(&b)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    /// `|`: what follows reads what precedes.
    Pipe,
    /// `<`: the next word is fed to the command.
    Input,
}

#[derive(Debug, Clone)]
struct Token {
    range: std::ops::Range<usize>,
    kind: Kind,
    /// A word in command position: at a line's start (after a `$ ` prompt), in inline code,
    /// or after `;`, `&`, `&&`, `||`, `|` or `$(` (not after `(` alone: Markdown links put
    /// paths there that nothing runs).
    command: bool,
    /// Its line; a backslash before a line break continues the line.
    line: usize,
}

/// The words and operators of `text`, in one pass.
fn tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut command) = (0, 0, true);
    let continuation = |i: usize| {
        bytes[i] == b'\\'
            && (bytes.get(i + 1) == Some(&b'\n')
                || (bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n')))
    };
    while i < bytes.len() {
        let b = bytes[i];
        if continuation(i) {
            i += if bytes[i + 1] == b'\r' { 3 } else { 2 };
            continue;
        }
        if b == b'\n' {
            line += 1;
            command = true;
            i += 1;
            continue;
        }
        if delimits(b) {
            let next = bytes.get(i + 1).copied();
            match b {
                b'|' if next == Some(b'|') => {
                    command = true;
                    i += 1;
                }
                b'|' => {
                    out.push(Token {
                        range: i..i + 1,
                        kind: Kind::Pipe,
                        command: false,
                        line,
                    });
                    command = true;
                }
                b'<' if next == Some(b'<') => {
                    command = false;
                    i += 1;
                }
                b'<' => {
                    out.push(Token {
                        range: i..i + 1,
                        kind: Kind::Input,
                        command: false,
                        line,
                    });
                    command = false;
                }
                b'`' | b';' | b'&' => command = true,
                b'(' if i > 0 && bytes[i - 1] == b'$' => command = true,
                // Quotes around a word leave its position as it was.
                b'"' | b'\'' => {}
                _ if b.is_ascii_whitespace() => {}
                _ => command = false,
            }
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !delimits(bytes[i]) && !continuation(i) {
            i += 1;
        }
        let word = &text[start..i];
        if word == "$" && command {
            // A prompt: the command follows.
            continue;
        }
        if word.ends_with('$') && bytes.get(i) == Some(&b'(') {
            // `x=$(`: the `$` is the substitution's; the word before it is no command.
            out.push(Token {
                range: start..i - 1,
                kind: Kind::Word,
                command: false,
                line,
            });
            command = false;
            continue;
        }
        out.push(Token {
            range: start..i,
            kind: Kind::Word,
            command,
            line,
        });
        command = false;
    }
    out
}

/// Whether a word runs the file it names by where it is (`./x`, `.\x.ps1`, `$SKILL_DIR/x`).
fn runs_directly(word: &str) -> bool {
    let word = word.replace('\\', "/");
    word.starts_with("./") || SKILL_DIR_VARS.iter().any(|v| word.starts_with(v))
}

/// The run instructions of `text`, in order, in linear time.
fn instructions(text: &str) -> Vec<Instruction<'_>> {
    let toks = tokens(text);
    let word = |k: usize| &text[toks[k].range.clone()];
    let is_word = |k: usize| toks.get(k).is_some_and(|t| t.kind == Kind::Word);
    let mut out = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        if !is_word(k) {
            k += 1;
            continue;
        }
        // Not after a single `|`: Markdown tables put paths there that nothing runs.
        let after_pipe = k > 0 && toks[k - 1].kind == Kind::Pipe;
        if toks[k].command && !after_pipe && runs_directly(word(k)) {
            out.push(Instruction {
                prog: String::new(),
                opts: Vec::new(),
                arg: word(k),
                span: toks[k].range.clone(),
            });
            k += 1;
            continue;
        }
        // Wrappers, then a program, its options, its operand; all on one line.
        let line = toks[k].line;
        let on_line = |m: usize| toks.get(m).is_some_and(|t| t.line == line);
        let mut j = k;
        while is_word(j) && on_line(j) && WRAPPERS.contains(&program_name(word(j)).as_str()) {
            j += 1;
            while is_word(j) && on_line(j) && word(j).starts_with('-') {
                j += 1;
            }
        }
        let prog = if is_word(j) && on_line(j) {
            program_name(word(j))
        } else {
            String::new()
        };
        if !is_program(&prog) {
            // Whatever `k..j` held were wrappers: none starts an instruction of its own.
            k = j.max(k + 1);
            continue;
        }
        let mut opts = Vec::new();
        let mut inline = false;
        let mut m = j + 1;
        while is_word(m) && on_line(m) && is_option(&prog, word(m)) {
            let opt = word(m);
            inline |= inline_code(&prog, opt);
            opts.push(opt);
            m += 1;
            if takes_value(&prog, opt) && is_word(m) && on_line(m) {
                if prog.starts_with("node") {
                    // A module required before the script runs too.
                    out.push(Instruction {
                        prog: prog.clone(),
                        opts: Vec::new(),
                        arg: word(m),
                        span: toks[j].range.start..toks[m].range.end,
                    });
                }
                m += 1;
            }
        }
        let operand = match toks.get(m) {
            _ if inline => None,
            Some(t) if t.line == line && t.kind == Kind::Word => Some(m),
            Some(t)
                if t.line == line && t.kind == Kind::Input && is_word(m + 1) && on_line(m + 1) =>
            {
                Some(m + 1)
            }
            // Nothing to run on the line: what a reader pipes in (`cat x | sh`).
            _ => piped_file(&toks, text, k),
        };
        if let Some(a) = operand {
            let (from, to) = (
                toks[j].range.start.min(toks[a].range.start),
                toks[a].range.end.max(toks[j].range.end),
            );
            out.push(Instruction {
                prog,
                opts,
                arg: word(a),
                span: from..to,
            });
        }
        k = m.max(k + 1);
    }
    out
}

/// The file a reader feeds into the command that starts at token `k` through a pipe
/// (`cat x | sh`, `Get-Content x | iex`): the reader's last operand.
fn piped_file(toks: &[Token], text: &str, k: usize) -> Option<usize> {
    let pipe = k.checked_sub(1)?;
    if toks[pipe].kind != Kind::Pipe {
        return None;
    }
    let line = toks[pipe].line;
    // Back to the start of the reader's command (a word in command position, or an operator).
    let mut start = pipe;
    while start > 0 && toks[start - 1].kind == Kind::Word && toks[start - 1].line == line {
        start -= 1;
        if toks[start].command {
            break;
        }
    }
    let reader = program_name(&text[toks.get(start)?.range.clone()]);
    if start >= pipe || !READERS.contains(&reader.as_str()) {
        return None;
    }
    (start + 1..pipe)
        .rev()
        .find(|&a| !text[toks[a].range.clone()].starts_with('-'))
}

fn runner_of(prog: &str) -> Runner {
    match prog {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" | "source" | "." => {
            Runner::Lang(Lang::Shell)
        }
        "node" | "nodejs" | "deno" | "bun" | "tsx" | "ts-node" => Runner::Lang(Lang::JavaScript),
        "pwsh" | "powershell" | "iex" | "invoke-expression" => Runner::Lang(Lang::PowerShell),
        "chmod" => Runner::Kernel,
        p if p.starts_with("python")
            || p.starts_with("pypy")
            || matches!(p, "py" | "uv" | "jupyter" | "papermill" | "ipython") =>
        {
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
    let names: Vec<&str> = files
        .entries
        .iter()
        .chain(&files.records)
        .map(|e| e.path.as_str())
        .collect();
    let named = NameFinder::new(&names);
    // The skill's own files name what runs; a record does once it runs itself (a chain of
    // sourced records is followed).
    let mut sources: Vec<&str> = files.entries.iter().map(|e| e.path.as_str()).collect();
    let mut read: std::collections::HashSet<String> = std::collections::HashSet::new();
    while let Some(source) = sources.pop() {
        if !read.insert(source.to_owned()) {
            continue;
        }
        let Some(body) = text_of(source) else {
            continue;
        };
        if !named.in_text(body) {
            continue;
        }
        for found in instructions(body) {
            let mut arg = found.arg.to_owned();
            if found.prog.starts_with("py") && found.opts.contains(&"-m") {
                arg = format!("{}.py", arg.replace('.', "/"));
            }
            if found.prog == "chmod" && !grants_execute(&found.opts) {
                continue;
            }
            let Some(path) = resolve(&arg, dir_name, &names) else {
                continue;
            };
            let runner = match found.prog.as_str() {
                "" => Runner::Kernel,
                prog => runner_of(prog),
            };
            if let std::collections::btree_map::Entry::Vacant(slot) = out.entry(path) {
                if record(files, slot.key()) {
                    if let Some(name) = names.iter().find(|n| **n == slot.key().as_str()) {
                        sources.push(name);
                    }
                }
                slot.insert(RunTarget {
                    runner,
                    by: format!("{source}: {}", shorten(&body[found.span])),
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

/// A file a text's run instruction names, as written (`tools/fmt.sh`; a module run with
/// `python -m pkg.mod` as `pkg/mod.py`), and what runs it: for the closure of what agents run,
/// which resolves it against the repository rather than the skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operand {
    pub arg: String,
    pub runner: Runner,
    /// A module (`python -m`): also `<arg without .py>/__main__.py`.
    pub module: bool,
    /// The instruction, shortened (`bash tools/fmt.sh`).
    pub instruction: String,
}

/// Whether `text` could hold a run instruction: it names a program that runs a file, runs one
/// by its path (`./x`, a skill folder's variable), or pipes a reader into one. A cheap test
/// before tokenizing: most texts the closure reads hold none.
pub fn may_run(text: &str) -> bool {
    static WORDS: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::OnceLock::new();
    let finder = WORDS.get_or_init(|| {
        let words = PROGRAMS.iter().copied().filter(|p| p.len() > 1).chain([
            "python",
            "./",
            ".\\",
            "$",
            "{basedir}",
            ". ",
        ]);
        // An automaton cheap to build: it is built once a run, for a few small texts.
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
            .build(words)
            .ok()
    });
    finder.as_ref().is_none_or(|f| f.is_match(text))
}

/// The files the run instructions of `text` name, in order, in linear time.
pub fn operands(text: &str) -> Vec<Operand> {
    if !may_run(text) {
        return Vec::new();
    }
    instructions(text)
        .into_iter()
        .filter(|found| found.prog != "chmod" || grants_execute(&found.opts))
        .map(|found| {
            let module = found.prog.starts_with("py") && found.opts.contains(&"-m");
            let arg = if module {
                format!("{}.py", found.arg.replace('.', "/"))
            } else {
                found.arg.to_owned()
            };
            Operand {
                arg,
                runner: match found.prog.as_str() {
                    "" => Runner::Kernel,
                    prog => runner_of(prog),
                },
                module,
                instruction: shorten(&text[found.span]),
            }
        })
        .collect()
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

/// The path of the skill's file (among `names`) that `arg` names, if any: as written,
/// through a path that ends in one of the skill's (`../x/references/a.md`), in another case (a
/// case-insensitive file system finds it), or by its name alone when one file has it (`cd
/// references && bash notes.md`).
/// Whether a text names any of a skill's files: an instruction's operand resolves to a file
/// only through the file's name, compared without case ([`resolve`]), and a module run with
/// `-m` is named by its stem, so a text without any file's stem names nothing that runs.
/// Tokenizing every text for instructions was a fifth of a scan of code-heavy skills.
struct NameFinder(Option<aho_corasick::AhoCorasick>);

impl NameFinder {
    fn new(names: &[&str]) -> NameFinder {
        let stems: Vec<&str> = names
            .iter()
            .map(|n| {
                let base = n.rsplit('/').next().unwrap_or(n);
                match base.rsplit_once('.') {
                    Some((stem, _)) if !stem.is_empty() => stem,
                    _ => base,
                }
            })
            .collect();
        NameFinder(
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(stems)
                .ok(),
        )
    }

    /// True also when the names could not be searched for (read every text then).
    fn in_text(&self, text: &str) -> bool {
        self.0.as_ref().is_none_or(|ac| ac.is_match(text))
    }
}

fn resolve(arg: &str, dir_name: &str, names: &[&str]) -> Option<String> {
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
    let find = |candidate: &str| -> Option<String> {
        names
            .iter()
            .find(|n| **n == candidate)
            .or_else(|| names.iter().find(|n| n.eq_ignore_ascii_case(candidate)))
            .map(|n| (*n).to_owned())
    };
    if let Some(path) = lexical(&rest).and_then(|p| find(&p)) {
        return Some(path);
    }
    let parts: Vec<&str> = rest
        .split('/')
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    if let Some(path) = (1..parts.len().saturating_sub(1))
        .map(|i| parts[i..].join("/"))
        .find_map(|tail| find(&tail))
    {
        return Some(path);
    }
    // Its name alone, when exactly one file of the skill has that name.
    let name = parts.last()?;
    let mut same = names.iter().filter(|n| {
        n.rsplit('/')
            .next()
            .is_some_and(|base| base.eq_ignore_ascii_case(name))
    });
    match (same.next(), same.next()) {
        (Some(only), None) if parts.len() == 1 || rest.starts_with("..") => {
            Some((*only).to_owned())
        }
        _ => None,
    }
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
            // What a first review found missing.
            (
                "bash -e references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "cat references/notes.md | bash",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "cat -v references/notes.md | sudo sh -s",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "bash < references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "bash \\\n  references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "/bin/bash references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "Bash references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "python.exe scripts/run.py",
                "scripts/run.py",
                Runner::Lang(Lang::Python),
            ),
            (
                "bash -o pipefail references/notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "python3 -X utf8 scripts/run.py",
                "scripts/run.py",
                Runner::Lang(Lang::Python),
            ),
            (
                "\"${CLAUDE_SKILL_DIR}/references/example.md\"",
                "references/example.md",
                Runner::Kernel,
            ),
            ("& .\\assets\\x.ps1", "assets/x.ps1", Runner::Kernel),
            (".\\assets\\x.ps1", "assets/x.ps1", Runner::Kernel),
            (
                "Get-Content assets/x.ps1 | iex",
                "assets/x.ps1",
                Runner::Lang(Lang::PowerShell),
            ),
            (
                "cd references && bash notes.md",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "bash REFERENCES/NOTES.MD",
                "references/notes.md",
                Runner::Lang(Lang::Shell),
            ),
            (
                "node -r ./references/example.md app.js",
                "references/example.md",
                Runner::Lang(Lang::JavaScript),
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
            "cat references/notes.md",
            "cat references/notes.md | grep x",
            "node -e references/notes.md",
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
    fn records_that_run_are_followed() {
        let mut files = skill(&["SKILL.md"], &[]);
        for r in [".skillopt/work/a.sh", ".skillopt/work/b.sh"] {
            files.records.push(crate::skill::FileEntry {
                path: r.into(),
                kind: FileKind::File {
                    size: 1,
                    executable: false,
                },
            });
        }
        files.records.sort_by(|a, b| a.path.cmp(&b.path));
        let texts = |p: &str| match p {
            "SKILL.md" => Some("bash .skillopt/work/a.sh"),
            ".skillopt/work/a.sh" => Some("source .skillopt/work/b.sh"),
            _ => None,
        };
        let found: Vec<String> = run_targets(&files, "demo", &texts).into_keys().collect();
        assert_eq!(found, [".skillopt/work/a.sh", ".skillopt/work/b.sh"]);
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
        // Runs of wrappers, options and pipes: linear, not quadratic (the first two were, in
        // a first draft, which did not end here).
        assert!(targets(&files, &"env\n".repeat(250_000)).is_empty());
        assert!(targets(&files, &format!("bash {}", "-x ".repeat(300_000))).is_empty());
        assert!(targets(&files, &"cat a | ".repeat(100_000)).is_empty());
    }
}
