//! The review's read-only `shell` tool. A command line is split into words the way a POSIX
//! shell would (quotes, backslashes) but never given to a shell: any operator (`|`, `;`, `&`,
//! `>`, `<`, `$`, backticks, `(`...) refuses it. The program must be on a short allow-list,
//! each option must be one that program takes without writing or running anything, and every
//! path it names must pass the same checks as `read_file`. It runs with an empty environment,
//! no stdin, a time limit and a cap on what it prints.

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::sandbox::{Denied, Resolved, Sandbox};

/// What one command may print before it is cut.
const MAX_OUTPUT: usize = 64 << 10;
/// A command line longer than this is not looked at.
const MAX_LINE: usize = 4096;

/// The programs, and how their arguments are read.
fn grammar(program: &str) -> Option<Grammar> {
    Some(match program {
        "cat" => Grammar {
            flags: &["-n", "-b", "-s", "-A", "-E", "-T", "-v"],
            valued: &[],
            first_is_pattern: false,
        },
        "head" | "tail" => Grammar {
            flags: &["-q", "-v"],
            valued: &["-n", "-c"],
            first_is_pattern: false,
        },
        "wc" => Grammar {
            flags: &["-l", "-w", "-c", "-m", "-L"],
            valued: &[],
            first_is_pattern: false,
        },
        // No recursion: grep -r would read files git ignores (.env).
        "grep" => Grammar {
            flags: &[
                "-i", "-n", "-v", "-c", "-l", "-L", "-w", "-x", "-F", "-E", "-G", "-o", "-h", "-H",
                "-s", "-q",
            ],
            valued: &["-e", "-m", "-A", "-B", "-C"],
            first_is_pattern: true,
        },
        _ => return None,
    })
}

struct Grammar {
    /// Options without a value (combinable: `-in`).
    flags: &'static [&'static str],
    /// Options with a value (`-n 5`, `-n5`).
    valued: &'static [&'static str],
    /// The first operand is a pattern, not a path (unless `-e` gave one).
    first_is_pattern: bool,
}

/// `git` subcommands that only read.
const GIT_SUBCOMMANDS: &[&str] = &[
    "log",
    "show",
    "diff",
    "status",
    "ls-files",
    "grep",
    "blame",
    "shortlog",
    "rev-parse",
];

/// git options refused anywhere: they write files, run programs, or read outside the
/// repository or git's ignore rules.
const GIT_DENIED: &[&str] = &[
    "--output",
    "-O",
    "--open-files-in-pager",
    "--ext-diff",
    "--textconv",
    "--no-index",
    "--no-exclude-standard",
    "--ignored",
    "--exec",
    "--upload-pack",
    "--git-dir",
    "--work-tree",
    "--exec-path",
    "--paginate",
];

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
    let mut argv: Vec<String> = Vec::new();
    if program == "git" {
        check_git(sandbox, args)?;
        argv.extend(["--no-pager".to_owned()]);
        argv.extend(args.iter().cloned());
    } else {
        let grammar = grammar(program).ok_or_else(|| {
            Denied::new(
                "shell-command",
                format!("'{program}' is not one of the read-only commands (cat, head, tail, wc, grep, and git {})", GIT_SUBCOMMANDS.join(", ")),
            )
        })?;
        argv = check_args(sandbox, program, args, &grammar)?;
    }
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

/// The arguments of a non-git program, checked against its grammar; paths are checked like
/// `read_file` and given as the resolved paths relative to the top.
fn check_args(
    sandbox: &mut Sandbox,
    program: &str,
    args: &[String],
    grammar: &Grammar,
) -> Result<Vec<String>, Denied> {
    let mut out = Vec::new();
    let mut pattern_given = false;
    let mut operands_only = false;
    let mut i = 0;
    let mut operands = 0;
    let mut paths = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if !operands_only && a == "--" {
            operands_only = true;
            out.push(a.clone());
            continue;
        }
        if !operands_only && a.starts_with('-') && a.len() > 1 {
            if a.starts_with("--") {
                return Err(Denied::new(
                    "shell-option",
                    format!(
                        "{program}: long options such as '{a}' are not allowed; use the short ones"
                    ),
                ));
            }
            out.push(a.clone());
            // `-20`: head's and tail's count.
            if (program == "head" || program == "tail")
                && a[1..].chars().all(|c| c.is_ascii_digit())
            {
                continue;
            }
            let body: Vec<char> = a[1..].chars().collect();
            let mut k = 0;
            while k < body.len() {
                let flag = format!("-{}", body[k]);
                if grammar.flags.contains(&flag.as_str()) {
                    k += 1;
                    continue;
                }
                if !grammar.valued.contains(&flag.as_str()) {
                    return Err(Denied::new(
                        "shell-option",
                        format!(
                            "{program}: option {flag} is not allowed (allowed: {} {})",
                            grammar.flags.join(" "),
                            grammar.valued.join(" ")
                        ),
                    ));
                }
                let rest: String = body[k + 1..].iter().collect();
                let value = if rest.is_empty() {
                    let v = args.get(i).cloned().ok_or_else(|| {
                        Denied::new("shell-option", format!("{program}: {flag} needs a value"))
                    })?;
                    i += 1;
                    out.push(v.clone());
                    v
                } else {
                    rest
                };
                if flag == "-e" {
                    pattern_given = true;
                } else if value.is_empty()
                    || !value
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '+' || c == '-')
                {
                    return Err(Denied::new(
                        "shell-option",
                        format!("{program}: {flag} takes a number, not '{value}'"),
                    ));
                }
                break;
            }
            continue;
        }
        operands += 1;
        if grammar.first_is_pattern && !pattern_given && operands == 1 {
            out.push(a.clone());
            continue;
        }
        let rel = readable_path(sandbox, a)?;
        paths += 1;
        out.push(rel);
    }
    if paths == 0 {
        return Err(Denied::new(
            "shell-option",
            format!("{program} needs a file to read (it has no stdin here)"),
        ));
    }
    Ok(out)
}

/// A path operand: readable as `read_file` would read it, given to the program as the path
/// relative to the top of the work tree (where it runs).
fn readable_path(sandbox: &mut Sandbox, path: &str) -> Result<String, Denied> {
    match sandbox.resolve_read(path)? {
        Resolved::Tree(_, rel) => Ok(if rel.is_empty() { ".".into() } else { rel }),
        Resolved::Skill(i, _) => {
            let s = &sandbox.skills[i];
            if s.changed.is_empty() {
                // Unchanged skills are on disk as HEAD has them, or close: read them there.
                let joined = sandbox.top().join(path);
                match std::fs::canonicalize(&joined) {
                    Ok(real) if real.starts_with(sandbox.top()) => Ok(real
                        .strip_prefix(sandbox.top())
                        .unwrap_or(&real)
                        .to_string_lossy()
                        .into_owned()),
                    _ => Err(Denied::new("not-found", format!("'{path}' cannot be read"))),
                }
            } else {
                Err(Denied::new(
                    "shell-overlay",
                    format!("'{}' was changed in this review and the shell sees only the work tree; use read_file", s.name),
                ))
            }
        }
    }
}

fn check_git(sandbox: &mut Sandbox, args: &[String]) -> Result<(), Denied> {
    let Some(sub) = args.first() else {
        return Err(Denied::new("shell-command", "git needs a subcommand"));
    };
    if !GIT_SUBCOMMANDS.contains(&sub.as_str()) {
        return Err(Denied::new(
            "shell-command",
            format!(
                "git {sub} is not allowed; only the read-only subcommands {} are",
                GIT_SUBCOMMANDS.join(", ")
            ),
        ));
    }
    for a in &args[1..] {
        let name = a.split('=').next().unwrap_or(a);
        if GIT_DENIED.contains(&name)
            || (sub == "ls-files" && (a == "-i" || a.starts_with("--ignored")))
            || (name.starts_with("--output"))
        {
            return Err(Denied::new(
                "shell-option",
                format!("git {sub}: '{a}' is not allowed (it writes, runs a program or reads what the review may not)"),
            ));
        }
        // A path after `--` or an operand that names a file must be readable.
        if !a.starts_with('-')
            && (a.contains('/') || sandbox.top().join(a).exists())
            && !a.contains(':')
        {
            if let Err(d) = sandbox.resolve_read(a) {
                if d.rule != "not-found" {
                    return Err(d);
                }
            }
        }
    }
    Ok(())
}

fn execute(
    sandbox: &Sandbox,
    program: &str,
    args: &[String],
    limit: Duration,
) -> Result<ShellOutput, Denied> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(sandbox.top())
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LC_ALL", "C")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_PAGER", "cat")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(home) = std::env::var_os("HOME") {
        // git reads the user's identity and safe.directory from there; nothing is written.
        cmd.env("HOME", home);
    }
    let mut child = cmd.spawn().map_err(|e| {
        Denied::new(
            "shell-failed",
            format!("'{program}' could not be started: {e}"),
        )
    })?;
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
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(_) => break None,
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
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
