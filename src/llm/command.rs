//! The `command` provider: an agent CLI (`claude -p`, `codex exec`, `gemini -p`, `qwen -p`,
//! `llm -m MODEL`) run through `sh -c` with the prompt on stdin and the answer on stdout. It
//! runs in its own process group, so that a timeout kills whatever it started too.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{Completion, Describe, LlmError, Provider, Request, Role, Settings, Usage};

/// The most of stdout kept, and of stderr quoted.
const MAX_STDOUT: u64 = 16 << 20;
const STDERR_TAIL: usize = 2000;
/// How much of stderr is held while the command runs.
const STDERR_KEPT: usize = 64 << 10;

pub(crate) struct CommandProvider {
    command: String,
    timeout: Duration,
    describe: Describe,
}

impl CommandProvider {
    pub fn new(settings: &Settings) -> CommandProvider {
        let command = settings.command.clone().unwrap_or_default();
        CommandProvider {
            timeout: settings.timeout,
            describe: Describe {
                provider: "command",
                model: if settings.model.is_empty() {
                    "(the command's own)".into()
                } else {
                    settings.model.clone()
                },
                endpoint: command.clone(),
            },
            command,
        }
    }
}

/// The whole conversation as one text: agent CLIs take a single prompt.
pub(crate) fn flatten(request: &Request) -> String {
    let mut out = String::new();
    if let Some(system) = &request.system {
        out.push_str(system);
        out.push_str("\n\n");
    }
    let several = request.messages.len() > 1;
    for m in &request.messages {
        if several {
            out.push_str(match m.role {
                Role::User => "## User\n\n",
                Role::Assistant => "## Your earlier answer\n\n",
            });
        }
        out.push_str(&m.content);
        out.push_str("\n\n");
    }
    // Agent CLIs take no schema parameter: it goes in the prompt, and the answer is checked
    // against it all the same.
    if let Some(schema) = &request.schema {
        out.push_str(
            "Answer with one JSON object that follows this JSON schema (a field that may be null may be left out):\n\n```json\n",
        );
        out.push_str(&serde_json::to_string(&schema.schema).expect("a schema serialises"));
        out.push_str("\n```\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

impl Provider for CommandProvider {
    fn complete(&self, request: &Request) -> Result<Completion, LlmError> {
        if !request.tools.is_empty() {
            return Err(LlmError::Config(
                "the command provider has no native tool calling; its caller speaks to it in text"
                    .into(),
            ));
        }
        let prompt = flatten(request);
        super::budget::take(request)?;
        let (stdout, _stderr) = run(&self.command, &prompt, self.timeout, request.purpose)?;
        let text = String::from_utf8(stdout).map_err(|_| LlmError::CommandOutput {
            provider: "command",
            command: self.command.clone(),
            reason: "its answer is not UTF-8".into(),
        })?;
        if text.trim().is_empty() {
            return Err(LlmError::CommandOutput {
                provider: "command",
                command: self.command.clone(),
                reason: "it printed nothing on stdout".into(),
            });
        }
        Ok(answered(&prompt, text, None))
    }

    fn describe(&self) -> &Describe {
        &self.describe
    }
}

/// The completion of a program's answer: one attempt, the program's token counts or an
/// estimate (4 characters a token).
pub(crate) fn answered(prompt: &str, text: String, usage: Option<Usage>) -> Completion {
    let usage = usage.unwrap_or(Usage {
        input_tokens: (prompt.chars().count() / 4) as u64,
        output_tokens: (text.chars().count() / 4) as u64,
        estimated: true,
    });
    Completion {
        text,
        usage,
        attempts: 1,
        dropped: None,
        tool_calls: Vec::new(),
    }
}

/// Runs `command` with `input` on stdin; returns stdout and stderr, or an error for a
/// non-zero exit (with the tail of stderr) or a timeout (after killing the process group).
pub(crate) fn run(
    command: &str,
    input: &str,
    timeout: Duration,
    purpose: Option<&str>,
) -> Result<(Vec<u8>, String), LlmError> {
    let ran = run_in(&Invocation::shell(command), input, timeout, purpose)?;
    if !ran.success {
        return Err(LlmError::CommandFailed {
            provider: "command",
            command: command.to_owned(),
            status: ran.status,
            stderr: tail(&ran.stderr),
        });
    }
    Ok((ran.stdout, ran.stderr))
}

/// What to run: a shell command line, followed by arguments that reach it as `"$@"` (never
/// parsed by the shell), in a working directory.
pub(crate) struct Invocation<'a> {
    /// The provider, for messages.
    pub provider: &'static str,
    pub line: &'a str,
    pub args: &'a [String],
    pub cwd: Option<&'a std::path::Path>,
    /// Run without the `GIT_*` variables of the caller (`GIT_DIR`, `GIT_WORK_TREE`,
    /// `GIT_INDEX_FILE` set by a hook would point the command's git at the person's
    /// repository).
    pub no_git_env: bool,
    /// Variables set (`Some`) or removed (`None`) for the command.
    pub env: &'a [(String, Option<String>)],
}

impl<'a> Invocation<'a> {
    pub fn shell(line: &'a str) -> Invocation<'a> {
        Invocation {
            provider: "command",
            line,
            args: &[],
            cwd: None,
            no_git_env: false,
            env: &[],
        }
    }
}

/// A command that ran to its end (whatever its exit status) within the time allowed.
pub(crate) struct Ran {
    pub success: bool,
    /// The exit status as people read it (`exit status: 1`).
    pub status: String,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// Runs `what` with `input` on stdin. An error only for a command that cannot be started,
/// that runs past `timeout` (its process group is killed), or whose answer is too large.
pub(crate) fn run_in(
    what: &Invocation<'_>,
    input: &str,
    timeout: Duration,
    purpose: Option<&str>,
) -> Result<Ran, LlmError> {
    let command = what.line;
    let mut cmd = Command::new("sh");
    if let Some(purpose) = purpose {
        cmd.env("GIT_SKILL_PURPOSE", purpose);
    }
    if let Some(cwd) = what.cwd {
        cmd.current_dir(cwd);
    }
    if what.no_git_env {
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("GIT_") && name != "GIT_SKILL_PURPOSE" {
                cmd.env_remove(&name);
            }
        }
    }
    for (name, value) in what.env {
        match value {
            Some(v) => cmd.env(name, v),
            None => cmd.env_remove(name),
        };
    }
    cmd.arg("-c");
    if what.args.is_empty() {
        cmd.arg(command);
    } else {
        cmd.arg(format!("{command} \"$@\""))
            .arg("git-skill")
            .args(what.args);
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|source| LlmError::Spawn {
        provider: what.provider,
        command: command.to_owned(),
        source,
    })?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_owned();
    // Writer and readers on their own threads: a command that answers before reading all of
    // its input, or fills a pipe, must not block the others. None is joined: a process the
    // command left behind may hold a pipe open for ever, and the deadline must still hold.
    std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let (out_tx, out_rx) = std::sync::mpsc::channel();
    let mut out = child.stdout.take().expect("stdout is piped");
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut out).take(MAX_STDOUT + 1).read_to_end(&mut buf);
        let too_large = buf.len() as u64 > MAX_STDOUT;
        // Drain the rest so that the command is not stopped by a full pipe.
        let _ = std::io::copy(&mut out, &mut std::io::sink());
        let _ = out_tx.send((buf, too_large));
    });
    let (err_tx, err_rx) = std::sync::mpsc::channel();
    let mut err = child.stderr.take().expect("stderr is piped");
    std::thread::spawn(move || {
        // Only the end is ever quoted: keep a rolling tail, not the whole stream.
        let mut kept: Vec<u8> = Vec::new();
        let mut chunk = [0u8; 8192];
        while let Ok(n) = err.read(&mut chunk) {
            if n == 0 {
                break;
            }
            kept.extend_from_slice(&chunk[..n]);
            if kept.len() > 2 * STDERR_KEPT {
                kept.drain(..kept.len() - STDERR_KEPT);
            }
        }
        let _ = err_tx.send(kept);
    });
    let deadline = crate::clock::monotonic() + timeout;
    let timed_out = |child: &mut std::process::Child| {
        kill_group(child);
        let _ = child.wait();
        LlmError::CommandTimeout {
            provider: what.provider,
            command: command.to_owned(),
            after: timeout,
        }
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if crate::clock::monotonic() >= deadline => return Err(timed_out(&mut child)),
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(source) => {
                kill_group(&mut child);
                return Err(LlmError::Spawn {
                    provider: what.provider,
                    command: command.to_owned(),
                    source,
                });
            }
        }
    };
    let left = deadline.saturating_duration_since(crate::clock::monotonic());
    // The command has exited; its output is complete once every process it started has let
    // go of the pipes, which must happen before the deadline too.
    let Ok((stdout, too_large)) = out_rx.recv_timeout(left) else {
        kill_group(&mut child);
        return Err(LlmError::CommandTimeout {
            provider: what.provider,
            command: command.to_owned(),
            after: timeout,
        });
    };
    let left = deadline.saturating_duration_since(crate::clock::monotonic());
    let stderr = err_rx
        .recv_timeout(left.max(Duration::from_millis(100)))
        .unwrap_or_default();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    if too_large {
        return Err(LlmError::CommandOutput {
            provider: what.provider,
            command: command.to_owned(),
            reason: format!("its answer is larger than {} MiB", MAX_STDOUT >> 20),
        });
    }
    Ok(Ran {
        success: status.success(),
        status: status.to_string(),
        stdout,
        stderr,
    })
}

/// The last lines of `stderr`, at most [`STDERR_TAIL`] bytes, credentials masked.
pub(crate) fn tail(stderr: &str) -> String {
    let trimmed = stderr.trim_end();
    let mut start = trimmed.len().saturating_sub(STDERR_TAIL);
    while !trimmed.is_char_boundary(start) {
        start += 1;
    }
    crate::redact::redact(&trimmed[start..])
}

#[cfg(unix)]
fn kill_group(child: &mut std::process::Child) {
    // The child leads its own group (process_group(0)), so its pid is the group id.
    let pgid = child.id() as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    let _ = child.kill();
}

#[cfg(not(unix))]
fn kill_group(child: &mut std::process::Child) {
    let _ = child.kill();
}
