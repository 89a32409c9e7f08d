//! The language-model layer: one [`Provider`] trait and its providers (`openai` for every
//! OpenAI-compatible server, `anthropic`, `command` for any program, and the agent CLIs a
//! person is logged into: `claude-code`, `codex`, `gemini`, `qwen`), with retries,
//! timeouts, structured JSON answers and a bounded parallel runner. Nothing else in git-skill
//! talks to the network. API keys come from the environment only and never appear in errors.

pub mod agent_cli;
pub mod agent_run;
mod anthropic;
pub mod batch;
pub mod budget;
mod command;
mod http;
pub mod json;
mod openai;
mod redacting;
pub mod retry;
pub mod schema;
pub mod settings;

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

pub use settings::{ProviderKind, Settings};

/// Who speaks in a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// An assistant message's calls of the request's tools.
    pub tool_calls: Vec<ToolCall>,
    /// A user message's answers to the calls of the assistant message before it.
    pub tool_results: Vec<ToolResult>,
}

impl Message {
    pub fn user(content: impl Into<String>) -> Message {
        Message {
            role: Role::User,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Message {
        Message {
            role: Role::Assistant,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
        }
    }
}

/// A tool the model may call: its name, what it does, and the JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// One call of a tool in an answer, as the model gave it: `arguments` is the raw JSON text
/// (hostile: the caller parses and checks it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call (`call_...`, `toolu_...`), echoed with its result.
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// What a tool call gave back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolResult {
    pub id: String,
    pub content: String,
    /// The call was refused or failed; `content` says why.
    pub is_error: bool,
}

/// A JSON schema the answer must follow, for providers that can enforce one.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// `[a-zA-Z0-9_-]`, as OpenAI requires.
    pub name: String,
    pub schema: serde_json::Value,
}

/// What is sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub schema: Option<Schema>,
    pub temperature: Option<f32>,
    pub max_tokens: u32,
    /// What the request is for (`triage`, `reflect`, `gate`, `regression`, `ping`): sent as
    /// the `x-git-skill-purpose` header (HTTP) or `GIT_SKILL_PURPOSE` (a command), for logs,
    /// proxies and scripted test models; the prompt itself never depends on it.
    pub purpose: Option<&'static str>,
    /// Tools the model may call instead of answering (native tool calling: OpenAI
    /// `tools`/`tool_calls`, Anthropic `tools`/`tool_use`). Empty for a plain answer.
    pub tools: Vec<ToolSpec>,
    /// The run's budget every attempt to send this request takes from ([`budget::Budgeted`]).
    pub budget: Option<std::sync::Arc<budget::Budget>>,
}

impl Request {
    /// One user message, no system text, 4,096 tokens at most.
    pub fn new(user: impl Into<String>) -> Request {
        Request {
            system: None,
            messages: vec![Message::user(user)],
            schema: None,
            temperature: None,
            max_tokens: 4096,
            purpose: None,
            tools: Vec::new(),
            budget: None,
        }
    }

    /// The same request, tagged with what it is for.
    pub fn purpose(mut self, purpose: &'static str) -> Request {
        self.purpose = Some(purpose);
        self
    }

    pub fn system(mut self, system: impl Into<String>) -> Request {
        self.system = Some(system.into());
        self
    }
}

/// Tokens spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Counted by git-skill (4 characters a token) because the provider does not say: the
    /// `command` provider.
    pub estimated: bool,
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens + other.input_tokens,
            output_tokens: self.output_tokens + other.output_tokens,
            estimated: self.estimated || other.estimated,
        }
    }
}

impl std::iter::Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Usage {
        iter.fold(Usage::default(), |a, b| a + b)
    }
}

/// What comes back.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub usage: Usage,
    /// Requests sent for this answer, retries included.
    pub attempts: u32,
    /// The field of the request this server refused, and which was dropped from this
    /// request and the rest of the run (`response_format`, `tools`): the answer's schema
    /// was then not enforced by the server.
    pub dropped: Option<&'static str>,
    /// The tools the model called (in order); empty when it answered in `text`.
    pub tool_calls: Vec<ToolCall>,
}

/// Something that answers requests.
pub trait Provider: Send + Sync {
    fn complete(&self, request: &Request) -> Result<Completion, LlmError>;
    /// Whether [`Request::tools`] reach the model as native tool calling; a provider that
    /// cannot (a command) is driven through a JSON protocol in text instead.
    fn native_tools(&self) -> bool {
        false
    }
    /// Provider, model and where it is reached, for messages and `git skill llm ping`.
    fn describe(&self) -> &Describe;
}

/// How a provider presents itself; never holds a key.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Describe {
    pub provider: &'static str,
    pub model: String,
    /// The API root (without credentials or query), or the command line.
    pub endpoint: String,
}

impl fmt::Display for Describe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}, {})", self.provider, self.model, self.endpoint)
    }
}

/// Everything that can go wrong; each message names the provider and where it was reached.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("{provider} at {url}: HTTP {status} after {}: {answer}", attempts_text(*.attempts))]
    Status {
        provider: &'static str,
        url: String,
        status: u16,
        attempts: u32,
        /// The start of the server's answer, credentials masked.
        answer: String,
        /// The request fields the whole answer names, one bit per [`REQUEST_FIELDS`] entry:
        /// what a server that refuses one of them says, wherever in a long answer it says it.
        named: u16,
    },
    #[error("{provider} at {url}: could not connect after {}: {reason}", attempts_text(*.attempts))]
    Connect {
        provider: &'static str,
        url: String,
        attempts: u32,
        reason: String,
    },
    #[error("{provider} at {url}: no answer within {} after {}", secs(*.after), attempts_text(*.attempts))]
    Timeout {
        provider: &'static str,
        url: String,
        after: Duration,
        attempts: u32,
    },
    #[error("{provider} at {url}: the answer could not be read: {reason}")]
    BadAnswer {
        provider: &'static str,
        url: String,
        reason: String,
    },
    #[error("{provider} at {url}: the server asks to wait {} before retrying, longer than git-skill waits ({})", secs(*.wait), secs(*.limit))]
    WaitTooLong {
        provider: &'static str,
        url: String,
        wait: Duration,
        limit: Duration,
    },
    #[error("{provider} provider: cannot run `{command}`: {source}")]
    Spawn {
        provider: &'static str,
        command: String,
        source: std::io::Error,
    },
    #[error("{provider} provider: `{command}` gave no answer within {} and was killed", secs(*.after))]
    CommandTimeout {
        provider: &'static str,
        command: String,
        after: Duration,
    },
    #[error("{provider} provider: `{command}` failed ({status}){}", stderr_tail(.stderr))]
    CommandFailed {
        provider: &'static str,
        command: String,
        status: String,
        stderr: String,
    },
    #[error("{provider} provider: `{command}`: {reason}")]
    CommandOutput {
        provider: &'static str,
        command: String,
        reason: String,
    },
    #[error("the model's answer is not usable JSON after a repair request: {reason}; its answers are in '{}'", .raw.display())]
    Json { reason: String, raw: PathBuf },
    /// A server refused a field of the request (see [`Completion::dropped`]) and the request
    /// sent again without it failed too: both are said.
    #[error("{source} (the request was sent again without `{field}`, which the server refused)")]
    AfterDropping {
        field: &'static str,
        source: Box<LlmError>,
    },
    #[error("the run's budget of {limit} model requests is spent ({setting}); retries and repair requests count")]
    Budget { limit: u32, setting: &'static str },
    #[error("{0}")]
    Config(String),
}

impl LlmError {
    /// A hint for the user: what to set or check.
    pub fn hint(&self) -> Option<String> {
        match self {
            LlmError::AfterDropping { source, .. } => source.hint(),
            LlmError::Status { status: 401 | 403, provider, .. } => Some(match *provider {
                "anthropic" => "check ANTHROPIC_API_KEY (it is read from the environment only)".into(),
                _ => "check OPENAI_API_KEY (it is read from the environment only), or the server's own key".into(),
            }),
            LlmError::Status { status: 404, .. } => Some(
                "check skill.baseUrl (for openai-compatible servers it includes /v1) and skill.model (for Ollama: ollama pull <model>)".into(),
            ),
            LlmError::Status { status: 429, .. } => {
                Some("the provider's rate limit or quota: wait, or check your plan".into())
            }
            LlmError::Connect { .. } => Some(
                "is the server running? Set skill.provider, skill.model and skill.baseUrl (git skill config), or ANTHROPIC_API_KEY / OPENAI_API_KEY; with nothing set, git-skill tries Ollama at http://localhost:11434/v1".into(),
            ),
            LlmError::Timeout { .. } | LlmError::CommandTimeout { .. } => {
                Some("raise skill.timeout (local models can be slow): git config skill.timeout 10m".into())
            }
            LlmError::Spawn { provider, .. } => Some(program_missing(provider)),
            // sh exits 127 when it cannot find the program.
            LlmError::CommandFailed { provider, status, .. } if status.ends_with(" 127") => {
                Some(program_missing(provider))
            }
            _ => None,
        }
    }
}

fn program_missing(provider: &str) -> String {
    if provider == "command" {
        "check skill.command: the program must be on PATH".into()
    } else {
        "is the agent CLI installed, on PATH, and logged in? skill.command names another program to run in its place (a path, or npx -y <package>)".into()
    }
}

/// `error`, saying which refused field was dropped before it, if one was.
pub(crate) fn after_dropping(dropped: Option<&'static str>, error: LlmError) -> LlmError {
    match dropped {
        Some(field) => LlmError::AfterDropping {
            field,
            source: Box::new(error),
        },
        None => error,
    }
}

/// Request fields a server may refuse (a schema, tools, a parameter its model does not take).
pub(crate) const REQUEST_FIELDS: &[&str] = &[
    "response_format",
    "json_schema",
    "tool_choice",
    "tools",
    "tool",
    "function",
    "max_completion_tokens",
    "temperature",
];

/// The [`REQUEST_FIELDS`] an error answer names, one bit each.
pub(crate) fn named_fields(answer: &str) -> u16 {
    let a = answer.to_ascii_lowercase();
    REQUEST_FIELDS
        .iter()
        .enumerate()
        .filter(|(_, w)| a.contains(*w))
        .fold(0, |bits, (i, _)| bits | 1 << i)
}

/// A 400, 422 or 500 whose answer names one of `words`: the server refuses that field of the
/// request. Some servers (llama-cpp-python) answer a schema they do not take with a 500.
pub(crate) fn refuses(e: &LlmError, words: &[&str]) -> bool {
    match e {
        LlmError::Status {
            status: 400 | 422 | 500,
            named,
            ..
        } => REQUEST_FIELDS
            .iter()
            .enumerate()
            .any(|(i, f)| named & (1 << i) != 0 && words.contains(f)),
        _ => false,
    }
}

/// `1 attempt`, `3 attempts`.
pub(crate) fn attempts_text(n: u32) -> String {
    crate::report::plural(n as usize, "attempt")
}

fn secs(d: Duration) -> String {
    if d.as_millis() < 10_000 && d.subsec_millis() != 0 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", d.as_secs())
    }
}

fn stderr_tail(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", stderr.trim())
    }
}

/// The first `max` characters of `text` on one line, credentials masked: what an error may
/// quote of a server's or a program's answer.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    crate::report::one_line(text, max + 1)
}

/// `url` without user information or query, so that a key put there never shows.
pub fn display_url(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, url),
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (host, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let host = host.rsplit('@').next().unwrap_or(host);
    match scheme {
        Some(s) => format!("{s}://{host}{path}"),
        None => format!("{host}{path}"),
    }
}

/// Builds the provider the settings describe.
/// Builds the provider the settings describe; its requests go out with secrets masked.
pub fn provider(settings: &Settings) -> Box<dyn Provider> {
    let inner: Box<dyn Provider> = match settings.kind {
        ProviderKind::OpenAi => Box::new(openai::OpenAi::new(settings)),
        ProviderKind::Anthropic => Box::new(anthropic::Anthropic::new(settings)),
        ProviderKind::Command => Box::new(command::CommandProvider::new(settings)),
        ProviderKind::Agent(cli) => Box::new(agent_cli::AgentCliProvider::new(cli, settings)),
    };
    Box::new(redacting::Redacting(inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_credentials_and_queries() {
        assert_eq!(
            display_url("https://user:sk-secret@api.example.com/v1?key=sk-1#x"),
            "https://api.example.com/v1"
        );
        assert_eq!(
            display_url("http://localhost:11434/v1"),
            "http://localhost:11434/v1"
        );
        assert_eq!(display_url("localhost:8080"), "localhost:8080");
        assert_eq!(display_url("http://a@b@host/p"), "http://host/p");
    }

    #[test]
    fn excerpts_are_short_single_line_and_masked() {
        let key = concat!(
            "sk-ant-api03-",
            "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6a7B8c9D0e1F2g3H4-AbCdEf"
        );
        let text = format!("line one\nkey {key}\n{}", "x".repeat(500));
        let e = excerpt(&text, 200);
        assert!(!e.contains('\n'));
        assert!(!e.contains(key), "{e}");
        assert!(e.chars().count() <= 230);
    }
}
