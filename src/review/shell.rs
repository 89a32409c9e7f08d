//! The review's read-only `shell` tool. A command line is split into words the way a POSIX
//! shell would (quotes, backslashes) but never given to a shell: any operator (`|`, `;`, `&`,
//! `>`, `<`, `$`, backticks, `(`, globs...) refuses it. The program must be on a short
//! allow-list, and every option must be one that program is allowed, written out in full
//! (GNU tools and git accept abbreviations and attached values that a deny-list would miss):
//! allowed, not denied. Operands come after a `--` the tool writes itself, so no file name can
//! turn into an option; every path goes through the same checks as `read_file` (inside the
//! repository after links, not `.git`, not ignored by git). git runs with the programs its
//! configuration could start turned off, on a copy of the index (a `git diff` refreshes it), in
//! a process group of its own that a timeout kills whole, with an empty environment, no stdin,
//! and a cap on what it prints.

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::sandbox::{Denied, Sandbox};

/// What one command may print before it is cut.
const MAX_OUTPUT: usize = 64 << 10;
/// A command line longer than this is not looked at.
const MAX_LINE: usize = 4096;

/// What an option's value must be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Val {
    Number,
    Text,
}

/// How the words that are not options are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// Files to read.
    Paths,
    /// A pattern (unless `-e` gave one), then files.
    PatternThenPaths,
    /// git: revisions and paths (paths after `--`, or any word naming a file).
    Git,
    /// git grep: a pattern (unless `-e` gave one), then revisions and paths.
    GitPattern,
}

/// A program's (or git subcommand's) allowed options.
struct Grammar {
    /// Options without a value.
    flags: &'static [&'static str],
    /// Options with a value: `-n 5`, `-n5`, `--max-count=5`, `--max-count 5`.
    valued: &'static [(&'static str, Val)],
    operands: Operands,
    /// Short options may be grouped (`-in`): GNU tools.
    clusters: bool,
    /// Words always added after the subcommand.
    fixed: &'static [&'static str],
}

/// No textconv or external diff driver, and no submodule entered (whose own configuration
/// would start its own programs); on the command line, which `.gitmodules` cannot override.
const NO_PROGRAMS: &[&str] = &["--no-textconv", "--no-ext-diff", "--ignore-submodules=all"];

fn grammar(program: &str) -> Option<Grammar> {
    Some(match program {
        "cat" => Grammar {
            flags: &["-n", "-b", "-s", "-A", "-E", "-T", "-v"],
            valued: &[],
            operands: Operands::Paths,
            clusters: true,
            fixed: &[],
        },
        "head" | "tail" => Grammar {
            flags: &["-q", "-v"],
            valued: &[("-n", Val::Number), ("-c", Val::Number)],
            operands: Operands::Paths,
            clusters: true,
            fixed: &[],
        },
        "wc" => Grammar {
            flags: &["-l", "-w", "-c", "-m", "-L"],
            valued: &[],
            operands: Operands::Paths,
            clusters: true,
            fixed: &[],
        },
        // No recursion: grep -r would read files git ignores (.env).
        "grep" => Grammar {
            flags: &[
                "-i", "-n", "-v", "-c", "-l", "-L", "-w", "-x", "-F", "-E", "-G", "-o", "-h", "-H",
                "-s", "-q",
            ],
            valued: &[
                ("-e", Val::Text),
                ("-m", Val::Number),
                ("-A", Val::Number),
                ("-B", Val::Number),
                ("-C", Val::Number),
            ],
            operands: Operands::PatternThenPaths,
            clusters: true,
            fixed: &[],
        },
        _ => return None,
    })
}

/// git's read-only subcommands, each with the options it may take.
fn git_grammar(sub: &str) -> Option<Grammar> {
    const REVISION_TEXT: &[(&str, Val)] = &[
        ("-n", Val::Number),
        ("--max-count", Val::Number),
        ("--skip", Val::Number),
        ("--since", Val::Text),
        ("--until", Val::Text),
        ("--after", Val::Text),
        ("--before", Val::Text),
        ("--author", Val::Text),
        ("--grep", Val::Text),
        ("--format", Val::Text),
        ("--pretty", Val::Text),
        ("--date", Val::Text),
        ("-S", Val::Text),
        ("-G", Val::Text),
    ];
    Some(match sub {
        "log" => Grammar {
            flags: &[
                "--oneline",
                "--stat",
                "--shortstat",
                "--name-only",
                "--name-status",
                "-p",
                "--patch",
                "--no-patch",
                "--follow",
                "--reverse",
                "--graph",
                "--decorate",
                "--no-decorate",
                "--no-merges",
                "--merges",
                "--first-parent",
                "--all",
                "--no-color",
                "-i",
                "--regexp-ignore-case",
            ],
            valued: REVISION_TEXT,
            operands: Operands::Git,
            clusters: false,
            fixed: NO_PROGRAMS,
        },
        "show" => Grammar {
            flags: &[
                "--stat",
                "--shortstat",
                "--name-only",
                "--name-status",
                "--oneline",
                "-p",
                "--patch",
                "--no-patch",
                "-s",
                "--no-color",
            ],
            valued: &[
                ("--format", Val::Text),
                ("--pretty", Val::Text),
                ("--date", Val::Text),
            ],
            operands: Operands::Git,
            clusters: false,
            fixed: NO_PROGRAMS,
        },
        "diff" => Grammar {
            flags: &[
                "--stat",
                "--shortstat",
                "--name-only",
                "--name-status",
                "--cached",
                "--staged",
                "-w",
                "--ignore-all-space",
                "-b",
                "--word-diff",
                "--no-color",
            ],
            valued: &[("-U", Val::Number), ("--unified", Val::Number)],
            operands: Operands::Git,
            clusters: false,
            fixed: NO_PROGRAMS,
        },
        "status" => Grammar {
            flags: &["--short", "-s", "--branch", "-b", "--porcelain"],
            valued: &[],
            operands: Operands::Git,
            clusters: false,
            fixed: &["--ignore-submodules=all"],
        },
        // Tracked files only: no --others, no --ignored.
        "ls-files" => Grammar {
            flags: &[
                "--cached",
                "-c",
                "--modified",
                "-m",
                "--deleted",
                "-d",
                "--stage",
            ],
            valued: &[],
            operands: Operands::Git,
            clusters: false,
            fixed: &[],
        },
        "grep" => Grammar {
            flags: &[
                "-n",
                "--line-number",
                "-i",
                "--ignore-case",
                "-w",
                "--word-regexp",
                "-l",
                "--files-with-matches",
                "-c",
                "--count",
                "-E",
                "--extended-regexp",
                "-F",
                "--fixed-strings",
                "-I",
                "-h",
                "-H",
                "--cached",
            ],
            valued: &[
                ("-e", Val::Text),
                ("-A", Val::Number),
                ("-B", Val::Number),
                ("-C", Val::Number),
                ("-m", Val::Number),
                ("--max-count", Val::Number),
            ],
            operands: Operands::GitPattern,
            clusters: false,
            fixed: &["--no-textconv"],
        },
        "blame" => Grammar {
            flags: &["-w", "-s", "--porcelain"],
            valued: &[("-L", Val::Text)],
            operands: Operands::Git,
            clusters: false,
            fixed: &["--no-textconv"],
        },
        _ => return None,
    })
}

/// The git subcommands allowed, for messages.
const GIT_SUBCOMMANDS: &str = "log, show, diff, status, ls-files, grep, blame";

/// What a command gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellOutput {
    pub status: Option<i32>,
    pub text: String,
}

/// Checks `line` and runs it in the repository, or says which rule refuses it.
pub fn run(sandbox: &mut Sandbox, line: &str, limit: Duration) -> Result<ShellOutput, Denied> {
    let words = split(line)?;
    let (program, args) = words
        .split_first()
        .ok_or_else(|| Denied::new("shell-syntax", "the command is empty"))?;
    if program == "git" {
        let (sub, rest) = args
            .split_first()
            .ok_or_else(|| Denied::new("shell-command", "git needs a subcommand"))?;
        let grammar = git_grammar(sub).ok_or_else(|| {
            Denied::new(
                "shell-command",
                format!("git {sub} is not allowed; only the read-only subcommands {GIT_SUBCOMMANDS} are (options such as -c or -C before the subcommand are not)"),
            )
        })?;
        let checked = check_args(sandbox, &format!("git {sub}"), rest, &grammar)?;
        let mut argv: Vec<String> = vec!["--no-pager".into()];
        argv.push(sub.clone());
        argv.extend(grammar.fixed.iter().map(|f| (*f).to_owned()));
        argv.extend(checked);
        return execute(sandbox, "git", &argv, limit);
    }
    let grammar = grammar(program).ok_or_else(|| {
        Denied::new(
            "shell-command",
            format!("'{program}' is not one of the read-only commands (cat, head, tail, wc, grep, and git {GIT_SUBCOMMANDS})"),
        )
    })?;
    let argv = check_args(sandbox, program, args, &grammar)?;
    execute(sandbox, program, &argv, limit)
}

/// Splits a command line into words like a POSIX shell, refusing every operator and
/// expansion: this is a list of words, not a script.
pub fn split(line: &str) -> Result<Vec<String>, Denied> {
    if line.len() > MAX_LINE {
        return Err(Denied::new(
            "shell-syntax",
            format!("the command has {} bytes; at most {MAX_LINE}", line.len()),
        ));
    }
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    let refuse = |c: char| {
        Denied::new(
            "shell-syntax",
            format!("'{c}' is shell syntax (pipes, redirections, substitutions, several commands); run one read-only command with plain arguments"),
        )
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(Denied::new("shell-syntax", "a quote is not closed")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c @ ('$' | '`')) => return Err(refuse(c)),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => {
                                return Err(Denied::new("shell-syntax", "a quote is not closed"))
                            }
                        },
                        Some(c @ ('$' | '`')) => return Err(refuse(c)),
                        Some(c) => word.push(c),
                        None => return Err(Denied::new("shell-syntax", "a quote is not closed")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') | None => {
                        return Err(Denied::new("shell-syntax", "a line continuation"))
                    }
                    Some(c) => word.push(c),
                }
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '\n' | '\r' | '{' | '}' | '*'
            | '?' | '[' | ']' | '~' | '#' | '!' => return Err(refuse(c)),
            c if c.is_control() => {
                return Err(Denied::new(
                    "shell-syntax",
                    "the command holds a control character",
                ))
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The arguments, checked against the grammar and written out again: options as allowed,
/// then `-e PATTERN` when the pattern was an operand, then `--` and the operands (paths
/// checked like `read_file`).
fn check_args(
    sandbox: &mut Sandbox,
    program: &str,
    args: &[String],
    grammar: &Grammar,
) -> Result<Vec<String>, Denied> {
    let option = |why: String| Denied::new("shell-option", format!("{program}: {why}"));
    let mut options: Vec<String> = Vec::new();
    let mut operands: Vec<String> = Vec::new();
    let mut after_dashes: Vec<String> = Vec::new();
    let mut pattern_given = false;
    let mut i = 0;
    let value_of = |flag: &str, value: &str, kind: Val| -> Result<(), Denied> {
        let ok = match kind {
            Val::Number => {
                !value.is_empty() && value.chars().all(|c| c.is_ascii_digit() || c == '+')
            }
            Val::Text => true,
        };
        if ok {
            Ok(())
        } else {
            Err(option(format!("{flag} takes a number, not '{value}'")))
        }
    };
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            after_dashes.extend(args[i..].iter().cloned());
            break;
        }
        if !a.starts_with('-') || a == "-" {
            if a == "-" {
                return Err(option("'-' (stdin) is not readable here".into()));
            }
            operands.push(a.clone());
            continue;
        }
        // `-20`: a count for head, tail and git log.
        if a.len() > 1
            && a[1..].chars().all(|c| c.is_ascii_digit())
            && matches!(program, "head" | "tail" | "git log")
        {
            options.push(a.clone());
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_owned())),
                None => (a.clone(), None),
            };
            if attached.is_none() && grammar.flags.contains(&name.as_str()) {
                options.push(a.clone());
                continue;
            }
            let Some((_, kind)) = grammar.valued.iter().find(|(f, _)| *f == name) else {
                return Err(option(format!(
                    "option '{name}' is not allowed (allowed: {})",
                    allowed(grammar)
                )));
            };
            let value = match attached {
                Some(v) => v,
                None => {
                    let v = args
                        .get(i)
                        .cloned()
                        .ok_or_else(|| option(format!("{name} needs a value")))?;
                    i += 1;
                    v
                }
            };
            value_of(&name, &value, *kind)?;
            options.push(format!("{name}={value}"));
            continue;
        }
        // Short options: one, or a group of them for GNU tools (`-in`), the last of which may
        // take a value (`-n5`, `-in 5`).
        let body: Vec<char> = a[1..].chars().collect();
        let mut k = 0;
        while k < body.len() {
            let flag = format!("-{}", body[k]);
            if grammar.flags.contains(&flag.as_str()) && (grammar.clusters || body.len() == 1) {
                options.push(flag);
                k += 1;
                continue;
            }
            let Some((_, kind)) = grammar.valued.iter().find(|(f, _)| *f == flag) else {
                return Err(option(format!(
                    "option '{a}' is not allowed (allowed: {})",
                    allowed(grammar)
                )));
            };
            if !grammar.clusters && k > 0 {
                return Err(option(format!("option '{a}' is not allowed")));
            }
            let rest: String = body[k + 1..].iter().collect();
            let value = if rest.is_empty() {
                let v = args
                    .get(i)
                    .cloned()
                    .ok_or_else(|| option(format!("{flag} needs a value")))?;
                i += 1;
                v
            } else {
                rest
            };
            value_of(&flag, &value, *kind)?;
            if flag == "-e" {
                pattern_given = true;
            }
            options.push(flag);
            options.push(value);
            break;
        }
    }
    let mut out = options;
    let wants_pattern = matches!(
        grammar.operands,
        Operands::PatternThenPaths | Operands::GitPattern
    );
    if wants_pattern && !pattern_given {
        if operands.is_empty() {
            return Err(option("a pattern is needed".into()));
        }
        let pattern = operands.remove(0);
        out.push("-e".into());
        out.push(pattern);
    }
    match grammar.operands {
        Operands::Paths | Operands::PatternThenPaths => {
            operands.extend(after_dashes);
            if operands.is_empty() {
                return Err(option(
                    "a file to read is needed (there is no stdin here)".into(),
                ));
            }
            out.push("--".into());
            for path in &operands {
                out.push(readable(sandbox, path)?);
            }
        }
        Operands::Git | Operands::GitPattern => {
            // Revisions stay as given (they cannot start with `-`: those were options);
            // a word that names a file, and every path after `--`, is checked.
            for word in &operands {
                if sandbox.top().join(word).symlink_metadata().is_ok() {
                    readable(sandbox, word)?;
                }
                out.push(word.clone());
            }
            if !after_dashes.is_empty() {
                out.push("--".into());
            }
            for path in &after_dashes {
                sandbox.check_pathspec(path)?;
                out.push(path.clone());
            }
        }
    }
    Ok(out)
}

fn allowed(grammar: &Grammar) -> String {
    let mut all: Vec<&str> = grammar.flags.to_vec();
    all.extend(grammar.valued.iter().map(|(f, _)| *f));
    all.join(" ")
}

/// A path operand, checked as `read_file` checks it on disk, given to the program relative to
/// the top (where it runs). Files of a skill this review changed are only in its copy:
/// `read_file` shows them.
fn readable(sandbox: &mut Sandbox, path: &str) -> Result<String, Denied> {
    if let Some(skill) = sandbox.changed_skill_at(path)? {
        return Err(Denied::new(
            "shell-overlay",
            format!("'{skill}' was changed in this review and the shell sees only the work tree; use read_file"),
        ));
    }
    let (abs, rel) = sandbox.resolve_on_disk(path)?;
    // What read_file refuses, the shell does too: a FIFO would hang the command until its
    // timeout, a hard link would show another file.
    if let Ok(meta) = std::fs::metadata(&abs) {
        if !meta.is_file() && !meta.is_dir() {
            return Err(Denied::new(
                "not-a-file",
                format!(
                    "'{path}' is a {}, not a file",
                    crate::fsutil::file_type_name(&meta.file_type())
                ),
            ));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if meta.is_file() && meta.nlink() > 1 {
                return Err(Denied::new(
                    "not-a-file",
                    format!("'{path}' has {} hard links; it is not read", meta.nlink()),
                ));
            }
        }
    }
    Ok(if rel.is_empty() { ".".into() } else { rel })
}

fn execute(
    sandbox: &Sandbox,
    program: &str,
    args: &[String],
    limit: Duration,
) -> Result<ShellOutput, Denied> {
    let failed = |e: std::io::Error| {
        Denied::new(
            "shell-failed",
            format!("'{program}' could not be started: {e}"),
        )
    };
    let mut cmd = if program == "git" {
        super::git_env::git(sandbox.top())
    } else {
        let mut cmd = Command::new(program);
        cmd.current_dir(sandbox.top())
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LC_ALL", "C");
        cmd
    };
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // git may refresh the index it reads (`git diff` does, whatever GIT_OPTIONAL_LOCKS says):
    // it gets a copy, removed afterwards.
    let index_copy = if program == "git" {
        let copy = std::env::temp_dir().join(format!(
            "git-skill-review-index-{}-{}",
            std::process::id(),
            COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let index = sandbox.git_dir().join("index");
        if index.exists() {
            std::fs::copy(&index, &copy).map_err(failed)?;
        }
        cmd.env("GIT_INDEX_FILE", &copy);
        Some(copy)
    } else {
        None
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // Its own process group: a timeout kills whatever it started too.
        cmd.process_group(0);
    }
    let spawned = cmd.spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            if let Some(copy) = &index_copy {
                let _ = std::fs::remove_file(copy);
            }
            return Err(failed(e));
        }
    };
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stdout)
            .take(MAX_OUTPUT as u64 + 1)
            .read_to_end(&mut buf);
        // Drain the rest so the program is not blocked on a full pipe.
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut stderr).take(8 << 10).read_to_end(&mut buf);
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        buf
    });
    let started = crate::clock::monotonic();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= limit => {
                kill_group(&mut child);
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(_) => {
                kill_group(&mut child);
                break None;
            }
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if let Some(copy) = &index_copy {
        let _ = std::fs::remove_file(copy);
    }
    let mut text = String::from_utf8_lossy(&out[..out.len().min(MAX_OUTPUT)]).into_owned();
    if out.len() > MAX_OUTPUT {
        text.push_str(&format!("\n[output cut at {MAX_OUTPUT} bytes]"));
    }
    if !err.is_empty() {
        text.push_str("\n[stderr]\n");
        text.push_str(&String::from_utf8_lossy(&err));
    }
    let Some(status) = status else {
        return Err(Denied::new(
            "shell-timeout",
            format!(
                "'{program}' ran longer than {} s and was stopped",
                limit.as_secs()
            ),
        ));
    };
    Ok(ShellOutput {
        status: status.code(),
        text,
    })
}

/// Index copies made by this process, for unique names.
static COPIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Kills the child's whole process group (the child itself elsewhere).
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // The child leads its own group (process_group(0)), so its pid is the group id.
        let pgid = child.id() as libc::pid_t;
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_split_like_a_shell_would() {
        assert_eq!(
            split(r#"grep -n "a b" 'c d' e\ f"#).unwrap(),
            ["grep", "-n", "a b", "c d", "e f"]
        );
        assert_eq!(split("  cat   x  ").unwrap(), ["cat", "x"]);
    }

    #[test]
    fn every_operator_is_refused() {
        for line in [
            "cat x | sh",
            "cat x; rm -rf /",
            "cat x && rm y",
            "cat x > y",
            "cat < /etc/passwd",
            "cat $(whoami)",
            "cat `id`",
            "cat \"$HOME/x\"",
            "cat ~/.ssh/id_rsa",
            "cat x\nrm y",
            "cat *",
            "(cat x)",
            "cat 'unclosed",
        ] {
            let d = split(line).unwrap_err();
            assert_eq!(d.rule, "shell-syntax", "{line}");
        }
    }
}
