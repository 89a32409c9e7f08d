//! Providers that reach the model through the coding agent a person is already logged into
//! (`skill.provider = claude-code | codex | gemini | qwen`), as the seed's subagents do with
//! `model: inherit`: the CLI runs headless, once per request, with its tools off, in an empty
//! directory (so that no project instructions, settings or hooks of the repository are read),
//! without keeping a session where it can avoid it, and its JSON output is read.
//!
//! The prompt goes on stdin (no argument length limit, nothing in `ps`). `GIT_SKILL_PURPOSE`
//! is set, so git-skill's own hooks in the CLI's settings recognise a nested run and do
//! nothing. `skill.command` replaces the program (`npx -y @anthropic-ai/claude-code`, a path);
//! the options below follow it.

use std::path::Path;
use std::time::Duration;

use super::command::{self, Invocation};
use super::{Completion, Describe, LlmError, Provider, Request, Settings, Usage};

/// The agent CLIs that can answer as a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentCli {
    ClaudeCode,
    Codex,
    Gemini,
    Qwen,
}

/// Gemini CLI's policy that turns every tool off (its policy engine removes denied tools from
/// what the model is offered).
const GEMINI_DENY_ALL: &str = "[[rule]]\ntoolName = \"*\"\ndecision = \"deny\"\npriority = 999\n";

/// Qwen Code's tools, all excluded (0.15: read-only ones remain in plan mode otherwise).
const QWEN_TOOLS: &str = "tool_search,agent,task_stop,send_message,skill,list_directory,read_file,grep_search,glob,todo_write,ask_user_question,exit_plan_mode,web_fetch,write_file,edit,replace,run_shell_command,save_memory,web_search";

impl AgentCli {
    pub const ALL: [AgentCli; 4] = [
        AgentCli::ClaudeCode,
        AgentCli::Codex,
        AgentCli::Gemini,
        AgentCli::Qwen,
    ];

    /// The `skill.provider` value: the agent's id in the registry.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentCli::ClaudeCode => "claude-code",
            AgentCli::Codex => "codex",
            AgentCli::Gemini => "gemini",
            AgentCli::Qwen => "qwen",
        }
    }

    pub fn from_name(name: &str) -> Option<AgentCli> {
        AgentCli::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// Its entry in the agent registry.
    pub fn spec(self) -> &'static crate::registry::Agent {
        crate::registry::agent(self.as_str()).expect("every agent CLI is in the registry")
    }

    /// The program run when `skill.command` does not name another (the registry's).
    pub fn program(self) -> &'static str {
        self.spec()
            .cli
            .map(|c| c.program)
            .expect("every agent CLI has a program in the registry")
    }

    /// The options of one headless, tool-less run; `policy` is where Gemini's policy file is.
    fn args(self, model: &str, policy: &Path) -> Vec<String> {
        let mut args: Vec<String> = match self {
            // -p with no prompt reads it from stdin.
            AgentCli::ClaudeCode => vec![
                "-p",
                "--output-format",
                "json",
                "--tools",
                "",
                "--no-session-persistence",
            ],
            // `-` reads the prompt from stdin; the shell, image and subagent tools off, and a
            // read-only sandbox for whatever remains.
            AgentCli::Codex => vec![
                "exec",
                "--json",
                "--ephemeral",
                "--skip-git-repo-check",
                "--sandbox",
                "read-only",
                "--disable",
                "shell_tool",
                "--disable",
                "view_image",
                "--disable",
                "multi_agent",
                "-c",
                "web_search=\"disabled\"",
            ],
            // -p is appended to stdin: the prompt is all on stdin, -p only says to answer it.
            AgentCli::Gemini => vec![
                "--output-format",
                "json",
                "--approval-mode",
                "plan",
                "--skip-trust",
                "--policy",
            ],
            AgentCli::Qwen => vec![
                "--output-format",
                "json",
                "--approval-mode",
                "plan",
                "--chat-recording",
                "false",
                "--exclude-tools",
                QWEN_TOOLS,
            ],
        }
        .into_iter()
        .map(str::to_owned)
        .collect();
        if self == AgentCli::Gemini {
            args.push(policy.display().to_string());
        }
        if !model.is_empty() {
            args.push(
                if self == AgentCli::ClaudeCode {
                    "--model"
                } else {
                    "-m"
                }
                .into(),
            );
            args.push(model.to_owned());
        }
        match self {
            AgentCli::Codex => args.push("-".into()),
            AgentCli::Gemini | AgentCli::Qwen => {
                args.extend(["-p".into(), "Answer the request above.".into()])
            }
            AgentCli::ClaudeCode => {}
        }
        args
    }
}

pub(crate) struct AgentCliProvider {
    cli: AgentCli,
    /// The program (or the command line of `skill.command`) the options follow.
    program: String,
    model: String,
    timeout: Duration,
    describe: Describe,
}

impl AgentCliProvider {
    pub fn new(cli: AgentCli, settings: &Settings) -> AgentCliProvider {
        let program = settings
            .command
            .clone()
            .unwrap_or_else(|| cli.program().to_owned());
        AgentCliProvider {
            cli,
            timeout: settings.timeout,
            model: settings.model.clone(),
            describe: Describe {
                provider: cli.as_str(),
                model: if settings.model.is_empty() {
                    "the CLI's default model".into()
                } else {
                    settings.model.clone()
                },
                endpoint: program.clone(),
            },
            program,
        }
    }
}

impl Provider for AgentCliProvider {
    fn complete(&self, request: &Request) -> Result<Completion, LlmError> {
        let provider = self.cli.as_str();
        if !request.tools.is_empty() {
            return Err(LlmError::Config(format!(
                "the {provider} provider has no native tool calling; its caller speaks to it in text"
            )));
        }
        let prompt = command::flatten(request);
        super::budget::take(request)?;
        let place = Place::new("model").map_err(|e| {
            LlmError::Config(format!("cannot make a directory to run {provider} in: {e}"))
        })?;
        let cwd = place.0.join("work");
        let policy = place.0.join("no-tools.toml");
        std::fs::create_dir(&cwd)
            .and_then(|()| match self.cli {
                AgentCli::Gemini => std::fs::write(&policy, GEMINI_DENY_ALL),
                _ => Ok(()),
            })
            .map_err(|e| {
                LlmError::Config(format!("cannot prepare '{}': {e}", place.0.display()))
            })?;
        let args = self.cli.args(&self.model, &policy);
        // As a shell would take it back: empty and spaced arguments quoted.
        let quoted: Vec<String> = args
            .iter()
            .map(|a| {
                if a.is_empty() || a.contains([' ', '"', '\'', '\\', '$', '`']) {
                    format!("'{}'", a.replace('\'', "'\\''"))
                } else {
                    a.clone()
                }
            })
            .collect();
        let shown = format!("{} {}", self.program, quoted.join(" "));
        let what = Invocation {
            provider,
            line: &self.program,
            args: &args,
            cwd: Some(&cwd),
            no_git_env: false,
            env: &[],
        };
        let ran = command::run_in(&what, &prompt, self.timeout, request.purpose)?;
        let stdout = String::from_utf8_lossy(&ran.stdout);
        let answer = read_answer(self.cli, &stdout);
        let failed = |reason: String| LlmError::CommandOutput {
            provider,
            command: shown.clone(),
            reason,
        };
        let (text, usage) = match answer {
            Ok(answer) if ran.success => answer,
            // A failed run says why in its JSON (an API error, a login needed) more often than
            // on stderr.
            Err(Problem::Said(why)) => return Err(failed(why)),
            _ if !ran.success => {
                return Err(LlmError::CommandFailed {
                    provider,
                    command: shown,
                    status: ran.status,
                    stderr: command::tail(&ran.stderr),
                })
            }
            Err(Problem::Unreadable(why)) => return Err(failed(why)),
            Ok(_) => unreachable!("a successful answer was matched first"),
        };
        if text.trim().is_empty() {
            return Err(failed("its answer is empty".into()));
        }
        Ok(command::answered(&prompt, text, usage))
    }

    fn describe(&self) -> &Describe {
        &self.describe
    }
}

/// An empty directory of one run under the user's private temporary directory
/// (`<kind>-<pid>-<n>`), removed when dropped: a CLI's working directory, away from the
/// project.
pub(crate) struct Place(pub std::path::PathBuf);

impl Place {
    pub fn new(kind: &str) -> std::io::Result<Place> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = super::json::private_temp_dir()?;
        let dir = base.join(format!(
            "{kind}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        // A leftover of an earlier process with the same id is not reused.
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir(&dir)?;
        Ok(Place(dir))
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Why no answer could be read from a CLI's output.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// The CLI reported an error in its output: its message.
    Said(String),
    /// The output is not what the CLI prints.
    Unreadable(String),
}

/// The answer's text and, when the CLI counts them, the tokens spent.
pub(crate) fn read_answer(cli: AgentCli, stdout: &str) -> Result<(String, Option<Usage>), Problem> {
    match cli {
        AgentCli::ClaudeCode | AgentCli::Qwen => read_result(stdout),
        AgentCli::Codex => read_codex(stdout),
        AgentCli::Gemini => read_gemini(stdout),
    }
}

fn unreadable(what: &str, stdout: &str) -> Problem {
    if stdout.trim().is_empty() {
        Problem::Unreadable("it printed nothing on stdout".into())
    } else {
        Problem::Unreadable(format!(
            "{what}; it printed: {}",
            super::excerpt(stdout, 300)
        ))
    }
}

/// Claude Code's `--output-format json` (one `result` object) and Qwen Code's (an array of
/// events whose last `result` holds the answer).
fn read_result(stdout: &str) -> Result<(String, Option<Usage>), Problem> {
    let value: serde_json::Value = serde_json::from_str(stdout.trim())
        .map_err(|_| unreadable("its output is not one JSON value", stdout))?;
    let result = match &value {
        serde_json::Value::Array(events) => events
            .iter()
            .rev()
            .find(|e| e["type"] == "result")
            .ok_or_else(|| unreadable("its events hold no result", stdout))?,
        object if object["type"] == "result" => object,
        _ => return Err(unreadable("its output is not a result", stdout)),
    };
    let text = result["result"].as_str();
    if result["is_error"] == true || result["subtype"].as_str().is_some_and(|s| s != "success") {
        let why = text
            .filter(|t| !t.trim().is_empty())
            .or(result["subtype"].as_str())
            .unwrap_or("it reported an error");
        return Err(Problem::Said(crate::redact::redact(&super::excerpt(
            why, 500,
        ))));
    }
    let text = text.ok_or_else(|| unreadable("its result holds no text", stdout))?;
    let usage = &result["usage"];
    let usage = usage["input_tokens"].as_u64().map(|input| Usage {
        input_tokens: input
            + usage["cache_read_input_tokens"].as_u64().unwrap_or(0)
            + usage["cache_creation_input_tokens"].as_u64().unwrap_or(0),
        output_tokens: usage["output_tokens"].as_u64().unwrap_or(0),
        estimated: false,
    });
    Ok((text.to_owned(), usage))
}

/// Codex's `exec --json`: JSON lines; the last `agent_message` item is the answer, a
/// `turn.failed` or `error` event a failure.
fn read_codex(stdout: &str) -> Result<(String, Option<Usage>), Problem> {
    let mut text = None;
    let mut usage = None;
    let mut events = 0;
    let mut error = None;
    let mut completed = false;
    let said = |event: &serde_json::Value| {
        let why = event["error"]["message"]
            .as_str()
            .or(event["message"].as_str())
            .unwrap_or("it reported an error");
        Problem::Said(crate::redact::redact(&super::excerpt(why, 500)))
    };
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line) else {
            // Codex prints only JSON lines on stdout; anything else is not a Codex answer.
            return Err(unreadable("a line of its output is not JSON", stdout));
        };
        events += 1;
        match event["type"].as_str() {
            Some("item.completed") if event["item"]["type"] == "agent_message" => {
                text = event["item"]["text"].as_str().map(str::to_owned);
            }
            Some("turn.completed") => {
                completed = true;
                error = None;
                let u = &event["usage"];
                usage = u["input_tokens"].as_u64().map(|input| Usage {
                    input_tokens: input,
                    output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
                    estimated: false,
                });
            }
            Some("turn.failed") => return Err(said(&event)),
            // A stream that dropped and reconnected says so with an `error` and goes on: it
            // fails the run only when no completed turn follows.
            Some("error") => error = Some(said(&event)),
            _ => {}
        }
    }
    if let (Some(problem), false) = (error, completed) {
        return Err(problem);
    }
    match text {
        Some(text) => Ok((text, usage)),
        None if events == 0 => Err(unreadable("no event", stdout)),
        None => Err(Problem::Unreadable("its events hold no answer".into())),
    }
}

/// Gemini CLI's `--output-format json`: `{response, stats, error?}`.
fn read_gemini(stdout: &str) -> Result<(String, Option<Usage>), Problem> {
    // Gemini may print notices before its JSON: the object starts at the first line that
    // opens one.
    let start = stdout
        .match_indices('{')
        .map(|(i, _)| i)
        .find(|&i| i == 0 || stdout[..i].ends_with('\n'))
        .ok_or_else(|| unreadable("its output holds no JSON object", stdout))?;
    let value: serde_json::Value = serde_json::from_str(stdout[start..].trim())
        .map_err(|_| unreadable("its output is not one JSON object", stdout))?;
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        let why = error["message"].as_str().unwrap_or("it reported an error");
        return Err(Problem::Said(crate::redact::redact(&super::excerpt(
            why, 500,
        ))));
    }
    let text = value["response"]
        .as_str()
        .ok_or_else(|| unreadable("its output holds no response", stdout))?;
    let models = value["stats"]["models"].as_object();
    let usage = models.filter(|m| !m.is_empty()).map(|models| {
        let sum = |field: &str| {
            models
                .values()
                .map(|m| m["tokens"][field].as_u64().unwrap_or(0))
                .sum()
        };
        Usage {
            input_tokens: sum("prompt"),
            output_tokens: sum("candidates"),
            estimated: false,
        }
    });
    Ok((text.to_owned(), usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_none() {
        for cli in AgentCli::ALL {
            assert_eq!(AgentCli::from_name(cli.as_str()), Some(cli));
        }
        assert_eq!(AgentCli::from_name("claude"), None);
        assert_eq!(AgentCli::from_name("Codex"), None);
    }

    #[test]
    fn every_cli_runs_headless_with_the_prompt_on_stdin_and_its_model_when_one_is_set() {
        let policy = Path::new("/tmp/p/no-tools.toml");
        let claude = AgentCli::ClaudeCode.args("", policy);
        assert_eq!(claude[..3], ["-p", "--output-format", "json"]);
        assert!(
            claude.windows(2).any(|w| w == ["--tools", ""]),
            "{claude:?}"
        );
        let codex = AgentCli::Codex.args("gpt-5", policy);
        assert_eq!(codex.first().map(String::as_str), Some("exec"));
        assert_eq!(codex.last().map(String::as_str), Some("-"), "stdin");
        assert!(codex.windows(2).any(|w| w == ["-m", "gpt-5"]), "{codex:?}");
        assert!(codex.windows(2).any(|w| w == ["--sandbox", "read-only"]));
        let gemini = AgentCli::Gemini.args("", policy);
        assert!(gemini
            .windows(2)
            .any(|w| w == ["--policy", "/tmp/p/no-tools.toml"]));
        assert!(
            !gemini.contains(&"-m".to_owned()),
            "no model: the CLI's own"
        );
        let qwen = AgentCli::Qwen.args("qwen3", policy);
        assert!(qwen
            .windows(2)
            .any(|w| w[0] == "--exclude-tools" && w[1].contains("run_shell_command")));
        assert!(AgentCli::ClaudeCode
            .args("opus", policy)
            .windows(2)
            .any(|w| w == ["--model", "opus"]));
    }

    #[test]
    fn claude_code_results_are_read_with_their_usage() {
        let out = r#"{"type":"result","subtype":"success","is_error":false,"result":"{\"ok\": \"日本語 🎉\"}","usage":{"input_tokens":100,"cache_read_input_tokens":5,"output_tokens":20}}"#;
        let (text, usage) = read_answer(AgentCli::ClaudeCode, out).unwrap();
        assert_eq!(text, "{\"ok\": \"日本語 🎉\"}");
        assert_eq!(
            usage,
            Some(Usage {
                input_tokens: 105,
                output_tokens: 20,
                estimated: false
            })
        );
        let no_usage = r#"{"type":"result","subtype":"success","is_error":false,"result":"x"}"#;
        assert_eq!(read_answer(AgentCli::ClaudeCode, no_usage).unwrap().1, None);
    }

    #[test]
    fn a_reported_error_is_its_message_masked() {
        let out = r#"{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA · Please run /login"}"#;
        let Err(Problem::Said(why)) = read_answer(AgentCli::ClaudeCode, out) else {
            panic!("an error")
        };
        assert!(why.contains("Invalid API key"), "{why}");
        assert!(!why.contains("AAAAAAAAAAAAAAAA"), "{why}");
        let limit = r#"{"type":"result","subtype":"error_max_turns","is_error":false}"#;
        assert_eq!(
            read_answer(AgentCli::ClaudeCode, limit),
            Err(Problem::Said("error_max_turns".into()))
        );
        let codex = "{\"type\":\"thread.started\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"unexpected status 401 Unauthorized\"}}\n";
        assert_eq!(
            read_answer(AgentCli::Codex, codex),
            Err(Problem::Said("unexpected status 401 Unauthorized".into()))
        );
        let gemini =
            r#"{"session_id":"s","error":{"type":"Error","message":"quota exceeded","code":429}}"#;
        assert_eq!(
            read_answer(AgentCli::Gemini, gemini),
            Err(Problem::Said("quota exceeded".into()))
        );
    }

    #[test]
    fn qwen_events_end_in_a_result() {
        let out = r#"[{"type":"system","subtype":"init"},{"type":"assistant","message":{"content":[{"type":"text","text":"partial"}]}},{"type":"result","subtype":"success","is_error":false,"result":"final","usage":{"input_tokens":200,"output_tokens":40}}]"#;
        let (text, usage) = read_answer(AgentCli::Qwen, out).unwrap();
        assert_eq!((text.as_str(), usage.unwrap().output_tokens), ("final", 40));
        let no_result = r#"[{"type":"system","subtype":"init"}]"#;
        assert!(matches!(
            read_answer(AgentCli::Qwen, no_result),
            Err(Problem::Unreadable(why)) if why.contains("no result")
        ));
    }

    #[test]
    fn codex_takes_the_last_agent_message_and_skips_warnings() {
        let out = concat!(
            "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n",
            "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"error\",\"message\":\"Model metadata not found\"}}\n",
            "{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"first\"}}\n",
            "{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"{\\\"a\\\": 1}\"}}\n",
            "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":7,\"output_tokens\":3}}\n",
        );
        let (text, usage) = read_answer(AgentCli::Codex, out).unwrap();
        assert_eq!(text, "{\"a\": 1}");
        assert_eq!(usage.unwrap().input_tokens, 7);
        // A dropped stream that reconnected: its error is not the run's.
        let reconnected = concat!(
            "{\"type\":\"error\",\"message\":\"Reconnecting... 1/5\"}\n",
            "{\"type\":\"item.completed\",\"item\":{\"type\":\"agent_message\",\"text\":\"done\"}}\n",
            "{\"type\":\"turn.completed\",\"usage\":{}}\n",
        );
        assert_eq!(read_answer(AgentCli::Codex, reconnected).unwrap().0, "done");
        let gave_up = "{\"type\":\"error\",\"message\":\"stream disconnected\"}\n";
        assert_eq!(
            read_answer(AgentCli::Codex, gave_up),
            Err(Problem::Said("stream disconnected".into()))
        );
        let silent = "{\"type\":\"thread.started\"}\n{\"type\":\"turn.completed\",\"usage\":{}}\n";
        assert_eq!(
            read_answer(AgentCli::Codex, silent),
            Err(Problem::Unreadable("its events hold no answer".into()))
        );
    }

    #[test]
    fn gemini_notices_before_the_json_are_skipped_and_tokens_summed() {
        let out = "Loaded cached credentials.\n{\n  \"response\": \"答え\",\n  \"stats\": {\"models\": {\"a\": {\"tokens\": {\"prompt\": 10, \"candidates\": 2}}, \"b\": {\"tokens\": {\"prompt\": 5, \"candidates\": 1}}}}\n}";
        let (text, usage) = read_answer(AgentCli::Gemini, out).unwrap();
        assert_eq!(text, "答え");
        assert_eq!(
            usage.map(|u| (u.input_tokens, u.output_tokens)),
            Some((15, 3))
        );
    }

    #[test]
    fn malformed_hostile_and_empty_output_is_unreadable_never_a_panic() {
        let huge = "{".repeat(200_000);
        let utf16 = String::from_utf8_lossy(&[0xff, 0xfe, b'{', 0, b'}', 0]).into_owned();
        for cli in AgentCli::ALL {
            for out in [
                "",
                "   \n",
                "not json",
                "[1, 2",
                "null",
                "{\"type\":\"result\"}",
                "{\"response\": 5}",
                huge.as_str(),
                utf16.as_str(),
                "\u{1F600}\u{202E}",
            ] {
                match read_answer(cli, out) {
                    Err(Problem::Unreadable(why)) => {
                        assert!(why.len() < 1000, "{cli:?} {why}")
                    }
                    other => panic!("{cli:?} on {:?}: {other:?}", &out[..out.len().min(40)]),
                }
            }
        }
        let Err(Problem::Unreadable(why)) = read_answer(AgentCli::Codex, "") else {
            panic!()
        };
        assert_eq!(why, "it printed nothing on stdout");
    }
}
