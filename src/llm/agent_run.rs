//! An agent CLI run as the agent of an eval case (`git skill eval --runner`): headless, in a
//! directory of its own that holds the case's files and the skill under test, with its tools
//! on (it is doing the task), and its final answer read from its output. Unlike the agent-CLI
//! providers (`agent_cli`), which use the CLI as a plain model with every tool off, this is the
//! agent itself at work; the directory is all it is pointed at.

use std::path::Path;
use std::time::Duration;

use super::agent_cli::{read_answer, AgentCli, Problem};
use super::command::{self, Invocation};
use super::{LlmError, Usage};

/// The longest prompt given as an argument (Linux's limit of one argument is 128 KiB).
const MAX_ARGUMENT: usize = 120 << 10;

/// The agent CLIs an eval can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runner {
    ClaudeCode,
    Codex,
    Gemini,
    Qwen,
    Copilot,
}

impl Runner {
    pub const ALL: [Runner; 5] = [
        Runner::ClaudeCode,
        Runner::Codex,
        Runner::Gemini,
        Runner::Qwen,
        Runner::Copilot,
    ];

    /// The same names as the agent-CLI providers', and `copilot`.
    pub fn as_str(self) -> &'static str {
        self.reader().map_or("copilot", AgentCli::as_str)
    }

    pub fn from_name(name: &str) -> Option<Runner> {
        Runner::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// The program on the PATH (the registry's).
    pub fn program(self) -> &'static str {
        crate::registry::agent(self.as_str())
            .and_then(|a| a.cli)
            .map(|c| c.program)
            .expect("every runner has a program in the registry")
    }

    /// Where this CLI finds a project's skills, relative to its working directory: one of
    /// the registry's skill folders for it, the one the end-to-end tests saw it load.
    pub fn skills_root(self) -> &'static str {
        match self {
            Runner::ClaudeCode => ".claude/skills",
            Runner::Codex | Runner::Gemini | Runner::Qwen => ".agents/skills",
            Runner::Copilot => ".github/skills",
        }
    }

    /// The options of one headless run with the tools the task needs, allowed without asking
    /// (nobody is there to answer), in the working directory `cwd`, with everything the CLI
    /// would load from that folder as a project's (settings, hooks, MCP servers, instruction
    /// files) off where the CLI has a switch for it ([`Runner::env`] has the rest). The prompt
    /// goes on stdin, but for Copilot, which takes it as an argument (`prompt`).
    fn args(self, model: &str, prompt: &str, cwd: &Path) -> Vec<String> {
        let mut args: Vec<String> = match self {
            // Edits accepted, and the tools an agent uses on a task allowed by name (as root,
            // skipping permissions altogether is refused).
            // No hook of any source (the skill's own frontmatter hooks too), only the MCP
            // servers given here (none). `--setting-sources user` would also hide the project
            // skill under test.
            Runner::ClaudeCode => vec![
                "-p",
                "--output-format",
                "json",
                "--no-session-persistence",
                "--permission-mode",
                "acceptEdits",
                "--allowedTools",
                "Read,Write,Edit,Glob,Grep,LS,Bash,Skill",
                "--settings",
                r#"{"disableAllHooks":true}"#,
                "--strict-mcp-config",
            ],
            // Writes confined to the working directory by Codex's own sandbox.
            Runner::Codex => vec![
                "exec",
                "--json",
                "--ephemeral",
                "--skip-git-repo-check",
                "--sandbox",
                "workspace-write",
                // No AGENTS.md read.
                "-c",
                "project_doc_max_bytes=0",
            ],
            // `--skip-trust` trusts the folder only after its settings were read as an
            // untrusted folder's (`GEMINI_CLI_TRUST_WORKSPACE=false`, in `env`).
            Runner::Gemini => vec![
                "--output-format",
                "json",
                "--approval-mode",
                "yolo",
                "--skip-trust",
                "--allowed-mcp-server-names",
                "__none__",
            ],
            Runner::Qwen => vec![
                "--output-format",
                "json",
                "--approval-mode",
                "yolo",
                "--chat-recording",
                "false",
                "--allowed-mcp-server-names",
                "__none__",
            ],
            // Never `--trust-folder`: an untrusted folder's hooks and MCP servers do not run.
            Runner::Copilot => vec![
                "--silent",
                "--allow-all-tools",
                "--no-color",
                "--no-custom-instructions",
            ],
        }
        .into_iter()
        .map(str::to_owned)
        .collect();
        if self == Runner::Codex {
            // The folder untrusted for this run: no project config.toml, hooks or MCP servers
            // (a user's own trust entries are left as they are on disk).
            let path = cwd
                .to_string_lossy()
                .replace('\\', "\\\\")
                .replace('"', "\\\"");
            args.push("-c".into());
            args.push(format!(
                r#"projects={{"{path}"={{trust_level="untrusted"}}}}"#
            ));
        }
        if !model.is_empty() {
            args.push(if self == Runner::ClaudeCode || self == Runner::Copilot {
                "--model".into()
            } else {
                "-m".into()
            });
            args.push(model.to_owned());
        }
        match self {
            Runner::Codex => args.push("-".into()),
            Runner::Gemini | Runner::Qwen => {
                args.extend(["-p".into(), "Do the task above.".into()]);
            }
            Runner::Copilot => args.extend(["-p".into(), prompt.to_owned()]),
            Runner::ClaudeCode => {}
        }
        args
    }

    /// The environment of a run, beside [`Runner::args`]: what turns off, for CLIs that have
    /// no option for it, what they would load from the working folder as a project's. Qwen
    /// Code's switch is a system settings file, written in `private` (a folder of git-skill's
    /// own, outside the agent's): the administrator's (`/etc/qwen-code/settings.json`) with
    /// hooks, MCP servers and instruction files off.
    fn env(self, private: &Path) -> std::io::Result<Vec<(String, Option<String>)>> {
        let set = |k: &str, v: &str| (k.to_owned(), Some(v.to_owned()));
        Ok(match self {
            Runner::ClaudeCode => vec![set("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1")],
            Runner::Codex => Vec::new(),
            Runner::Gemini => vec![set("GEMINI_CLI_TRUST_WORKSPACE", "false")],
            Runner::Qwen => {
                let admin = std::env::var_os("QWEN_CODE_SYSTEM_SETTINGS_PATH")
                    .map(std::path::PathBuf::from)
                    .unwrap_or_else(|| "/etc/qwen-code/settings.json".into());
                let mut settings = crate::fsutil::read_regular(&admin, 1 << 20)
                    .ok()
                    .flatten()
                    .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                    .filter(serde_json::Value::is_object)
                    .unwrap_or_else(|| serde_json::json!({}));
                settings["disableAllHooks"] = true.into();
                settings["mcp"] = serde_json::json!({"allowed": ["__none__"]});
                settings["context"] = serde_json::json!({"fileName": ["__none__.md"]});
                let path = private.join("qwen-system-settings.json");
                std::fs::write(&path, settings.to_string())?;
                vec![set(
                    "QWEN_CODE_SYSTEM_SETTINGS_PATH",
                    &path.to_string_lossy(),
                )]
            }
            Runner::Copilot => vec![("COPILOT_ALLOW_ALL".to_owned(), None)],
        })
    }

    /// The answer reader it shares with the agent-CLI providers (Copilot prints its answer
    /// alone with `--silent`).
    fn reader(self) -> Option<AgentCli> {
        match self {
            Runner::ClaudeCode => Some(AgentCli::ClaudeCode),
            Runner::Codex => Some(AgentCli::Codex),
            Runner::Gemini => Some(AgentCli::Gemini),
            Runner::Qwen => Some(AgentCli::Qwen),
            Runner::Copilot => None,
        }
    }
}

/// How to run one.
#[derive(Debug, Clone)]
pub struct AgentRun {
    pub runner: Runner,
    /// The program, or a command line (`npx -y @openai/codex`); the options follow it.
    pub program: String,
    /// `-m`/`--model`, when given.
    pub model: String,
    pub timeout: Duration,
    /// The run's budget of requests; each run of the CLI takes one.
    pub budget: Option<std::sync::Arc<super::budget::Budget>>,
}

impl AgentRun {
    pub fn new(runner: Runner) -> AgentRun {
        AgentRun {
            runner,
            program: runner.program().to_owned(),
            model: String::new(),
            timeout: Duration::from_secs(600),
            budget: None,
        }
    }

    /// Runs the agent on `prompt` in `cwd` and returns its final answer. `GIT_SKILL_PURPOSE`
    /// is set, so git-skill's own hooks in the CLI's user settings count no session.
    pub fn run(&self, cwd: &Path, prompt: &str) -> Result<(String, Option<Usage>), LlmError> {
        let provider = self.runner.as_str();
        // What reaches the CLI (stdin or an argument) is masked as a model request is.
        let masked = crate::redact::redact(prompt);
        let prompt = masked.as_str();
        // Copilot takes the prompt as one argument, which Linux caps at 128 KiB.
        if self.runner == Runner::Copilot && prompt.len() > MAX_ARGUMENT {
            return Err(LlmError::Config(format!(
                "the case's prompt is {} bytes; copilot takes it as one argument, at most {MAX_ARGUMENT}",
                prompt.len()
            )));
        }
        if self.runner == Runner::Copilot {
            if let Some(why) = copilot_trusts(cwd) {
                return Err(LlmError::Config(format!(
                    "copilot would load the run's folder as a trusted one: {why}; its hooks and MCP servers would run. Take that folder out of its trusted folders, or set TMPDIR to a folder it does not trust"
                )));
            }
        }
        let args = self.runner.args(&self.model, prompt, cwd);
        let private = super::agent_cli::Place::new("eval-settings").map_err(|e| {
            LlmError::Config(format!(
                "cannot make a folder for {provider}'s settings: {e}"
            ))
        })?;
        let env = self.runner.env(&private.0).map_err(|e| {
            LlmError::Config(format!(
                "cannot write {provider}'s settings for the run: {e}"
            ))
        })?;
        let what = Invocation {
            provider,
            line: &self.program,
            args: &args,
            cwd: Some(cwd),
            // The agent works in its own directory: a caller's GIT_DIR must not lead it back.
            no_git_env: true,
            env: &env,
        };
        let stdin = if self.runner == Runner::Copilot {
            ""
        } else {
            prompt
        };
        let ran = command::run_in(&what, stdin, self.timeout, Some("eval"))?;
        let shown = format!(
            "{} {}",
            self.program,
            args.first().map_or("", String::as_str)
        );
        let failed = |reason: String| LlmError::CommandOutput {
            provider,
            command: shown.clone(),
            reason,
        };
        let stdout = String::from_utf8_lossy(&ran.stdout);
        let answer = match self.runner.reader() {
            Some(cli) => read_answer(cli, &stdout),
            None => Ok((stdout.trim().to_owned(), None)),
        };
        let (text, usage) = match answer {
            Ok(answer) if ran.success => answer,
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
        Ok((text, usage))
    }
}

/// Why Copilot may load the run's folder `cwd` as a trusted one, if it may: a folder of its
/// `trustedFolders` (`trusted_folders` in some versions; `$COPILOT_HOME/config.json`, else
/// `~/.copilot/config.json` and `$XDG_CONFIG_HOME/.copilot/config.json`) holds it, or a config
/// file is there that cannot be read (then it cannot be told). Copilot loads a trusted
/// folder's hooks and MCP servers, and has no switch to refuse them.
fn copilot_trusts(cwd: &Path) -> Option<String> {
    let homes: Vec<std::path::PathBuf> = match std::env::var_os("COPILOT_HOME") {
        Some(home) => vec![home.into()],
        None => [
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".copilot")),
            std::env::var_os("XDG_CONFIG_HOME").map(|x| Path::new(&x).join(".copilot")),
        ]
        .into_iter()
        .flatten()
        .collect(),
    };
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_owned());
    for home in homes {
        let path = home.join("config.json");
        if std::fs::symlink_metadata(&path).is_err() {
            continue;
        }
        let config = crate::fsutil::read_regular_linked(&path, 4 << 20)
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
        let Some(config) = config else {
            return Some(format!(
                "'{}' cannot be read as JSON, so which folders it trusts cannot be told",
                path.display()
            ));
        };
        for key in ["trustedFolders", "trusted_folders"] {
            for folder in config[key].as_array().into_iter().flatten() {
                let Some(folder) = folder.as_str() else {
                    continue;
                };
                let folder = std::path::PathBuf::from(folder);
                let folder = folder.canonicalize().unwrap_or(folder);
                if cwd.starts_with(&folder) {
                    return Some(format!(
                        "it trusts '{}' ({key} in '{}'), which holds the folder the eval runs it in",
                        folder.display(),
                        path.display()
                    ));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runner_runs_headless_with_its_tools_allowed() {
        let here = Path::new("/tmp/x");
        let claude = Runner::ClaudeCode.args("", "p", here);
        assert!(claude
            .windows(2)
            .any(|w| w == ["--permission-mode", "acceptEdits"]));
        assert!(!claude.iter().any(|a| a == "p"), "the prompt goes on stdin");
        let codex = Runner::Codex.args("gpt-5", "p", here);
        assert!(codex
            .windows(2)
            .any(|w| w == ["--sandbox", "workspace-write"]));
        assert_eq!(&codex[codex.len() - 3..], ["-m", "gpt-5", "-"]);
        // The run's folder untrusted: no project config, hooks or MCP servers.
        assert!(codex
            .windows(2)
            .any(|w| w == ["-c", r#"projects={"/tmp/x"={trust_level="untrusted"}}"#]));
        assert!(claude
            .windows(2)
            .any(|w| w == ["--settings", r#"{"disableAllHooks":true}"#]));
        let copilot = Runner::Copilot.args("", "the task", here);
        assert!(copilot.iter().any(|a| a == "--no-custom-instructions"));
        assert_eq!(&copilot[copilot.len() - 2..], ["-p", "the task"]);
        for r in Runner::ALL {
            assert_eq!(Runner::from_name(r.as_str()), Some(r));
            // A folder the registry says this agent loads skills from.
            let spec = crate::registry::agent(r.as_str()).unwrap();
            let dir = r.skills_root().strip_suffix("/skills").unwrap();
            assert!(spec.skill_dirs.contains(&dir), "{}", r.as_str());
            assert_eq!(r.program(), spec.cli.unwrap().program);
        }
        assert_eq!(Runner::from_name("cursor"), None);
    }
}
