//! Which provider to use, from the configuration (`skill.provider`, `skill.model`,
//! `skill.baseUrl`, `skill.command`, `skill.timeout`, ...) and, when nothing is configured, from
//! the API keys in the environment: `ANTHROPIC_API_KEY` means anthropic, `OPENAI_API_KEY`
//! means openai, and otherwise an OpenAI-compatible server at Ollama's default address.

use std::fmt;
use std::time::Duration;

use super::agent_cli::AgentCli;
use super::retry::Retry;
use super::LlmError;
use crate::config::Config;

pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
pub const OLLAMA_BASE_URL: &str = "http://localhost:11434/v1";
pub const ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
pub const OPENAI_MODEL: &str = "gpt-4.1-mini";
pub const OLLAMA_MODEL: &str = "llama3.2";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    OpenAi,
    Anthropic,
    Command,
    /// A coding agent's CLI, run headless as the model.
    Agent(AgentCli),
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Command => "command",
            ProviderKind::Agent(cli) => cli.as_str(),
        }
    }

    /// Whether the provider is a program git-skill runs (no URL, no key).
    pub fn runs_a_program(self) -> bool {
        matches!(self, ProviderKind::Command | ProviderKind::Agent(_))
    }
}

/// An API key: shown nowhere, not even in `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(key: String) -> Secret {
        Secret(key)
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// Everything a provider needs.
#[derive(Debug, Clone)]
pub struct Settings {
    pub kind: ProviderKind,
    pub model: String,
    /// API root for the HTTP providers; empty for `command`.
    pub base_url: String,
    /// The command line of the `command` provider, run by `sh -c`; for an agent CLI, the
    /// program run in place of its own (its options follow).
    pub command: Option<String>,
    pub api_key: Option<Secret>,
    /// Per attempt, from the request to the last byte of the answer.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub retry: Retry,
    /// Requests sent at once by the batch runner.
    pub parallel: usize,
    /// Why this provider: shown by `git skill llm ping`.
    pub chosen_because: String,
}

impl Settings {
    /// Resolves the provider from `config`; `env` reads environment variables (the API keys).
    pub fn resolve(
        config: &Config,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Settings, LlmError> {
        let bad = |e: crate::config::ConfigError| LlmError::Config(e.to_string());
        let key = |name: &str| env(name).filter(|v| !v.trim().is_empty()).map(Secret::new);
        let configured = config.provider().map_err(bad)?;
        let text = |k: &str| {
            config
                .get(k)
                .map(|v| v.text.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let (kind, chosen_because) = match configured.as_deref() {
            Some("anthropic") => (ProviderKind::Anthropic, source_of(config, "provider")),
            Some("openai") => (ProviderKind::OpenAi, source_of(config, "provider")),
            Some(name) => (
                AgentCli::from_name(name).map_or(ProviderKind::Command, ProviderKind::Agent),
                source_of(config, "provider"),
            ),
            None if text("command").is_some() => (
                ProviderKind::Command,
                format!("skill.command is set ({})", source_of(config, "command")),
            ),
            None if key("ANTHROPIC_API_KEY").is_some() => (
                ProviderKind::Anthropic,
                "ANTHROPIC_API_KEY is set".to_owned(),
            ),
            None if key("OPENAI_API_KEY").is_some() => {
                (ProviderKind::OpenAi, "OPENAI_API_KEY is set".to_owned())
            }
            None => (
                ProviderKind::OpenAi,
                "nothing configured: trying Ollama's default address".to_owned(),
            ),
        };
        let local_default =
            configured.is_none() && kind == ProviderKind::OpenAi && key("OPENAI_API_KEY").is_none();
        let base_url = match kind {
            ProviderKind::Command | ProviderKind::Agent(_) => String::new(),
            _ => text("baseUrl").unwrap_or_else(|| {
                match kind {
                    ProviderKind::Anthropic => ANTHROPIC_BASE_URL,
                    _ if local_default => OLLAMA_BASE_URL,
                    _ => OPENAI_BASE_URL,
                }
                .to_owned()
            }),
        };
        let web = base_url.starts_with("http://") || base_url.starts_with("https://");
        if !base_url.is_empty() && !web {
            return Err(LlmError::Config(format!(
                "skill.baseUrl '{}' must start with http:// or https://",
                super::display_url(&base_url)
            )));
        }
        let model = text("model").unwrap_or_else(|| {
            match kind {
                ProviderKind::Anthropic => ANTHROPIC_MODEL,
                ProviderKind::OpenAi if base_url == OLLAMA_BASE_URL || local_default => {
                    OLLAMA_MODEL
                }
                ProviderKind::OpenAi => OPENAI_MODEL,
                ProviderKind::Command | ProviderKind::Agent(_) => "",
            }
            .to_owned()
        });
        let command = text("command");
        if kind == ProviderKind::Command && command.is_none() {
            return Err(LlmError::Config(
                "skill.provider is command, but skill.command is not set (for example: git config skill.command 'claude -p')".into(),
            ));
        }
        let api_key = match kind {
            ProviderKind::Anthropic => key("ANTHROPIC_API_KEY"),
            ProviderKind::OpenAi => key("OPENAI_API_KEY"),
            ProviderKind::Command | ProviderKind::Agent(_) => None,
        };
        if api_key.is_some() && base_url.starts_with("http://") && !loopback(&base_url) {
            let var = match kind {
                ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
                _ => "OPENAI_API_KEY",
            };
            return Err(LlmError::Config(format!(
                "refusing to send {var} over plain http to {}: use https, or unset {var} for a server that needs no key",
                super::display_url(&base_url)
            )));
        }
        if kind == ProviderKind::Anthropic && api_key.is_none() {
            return Err(LlmError::Config(
                "the anthropic provider needs ANTHROPIC_API_KEY in the environment (it is never read from git config)".into(),
            ));
        }
        Ok(Settings {
            kind,
            model,
            base_url,
            command,
            api_key,
            timeout: config.timeout().map_err(bad)?,
            connect_timeout: config.connect_timeout().map_err(bad)?,
            retry: Retry {
                retries: config.retries().map_err(bad)?,
                ..Retry::default()
            },
            parallel: config.parallel().map_err(bad)?,
            chosen_because,
        })
    }
}

/// Whether an http URL points at this machine, where a key in clear text stays local.
fn loopback(url: &str) -> bool {
    let shown = super::display_url(url);
    let rest = shown.split_once("://").map_or(shown.as_str(), |(_, r)| r);
    let host_port = rest.split('/').next().unwrap_or("");
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn source_of(config: &Config, key: &str) -> String {
    match config.get(key) {
        Some(v) => format!("skill.{key} = {} from {}", v.text.trim(), v.source),
        None => format!("skill.{key}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::ConfigEntry;

    fn config(entries: &[(&str, &str)]) -> Config {
        let entries: Vec<ConfigEntry> = entries
            .iter()
            .map(|(k, v)| ConfigEntry {
                key: (*k).into(),
                value: (*v).into(),
                origin: "test".into(),
            })
            .collect();
        Config::resolve(&entries, Vec::<(String, String)>::new())
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn nothing_configured_falls_back_by_key_then_to_ollama() {
        let s = Settings::resolve(&config(&[]), env(&[])).unwrap();
        assert_eq!(
            (s.kind, s.base_url.as_str(), s.model.as_str()),
            (ProviderKind::OpenAi, OLLAMA_BASE_URL, OLLAMA_MODEL)
        );
        assert!(s.api_key.is_none());
        let s = Settings::resolve(&config(&[]), env(&[("OPENAI_API_KEY", "sk-x")])).unwrap();
        assert_eq!(
            (s.kind, s.base_url.as_str()),
            (ProviderKind::OpenAi, OPENAI_BASE_URL)
        );
        assert_eq!(s.chosen_because, "OPENAI_API_KEY is set");
        let s = Settings::resolve(
            &config(&[]),
            env(&[
                ("OPENAI_API_KEY", "sk-x"),
                ("ANTHROPIC_API_KEY", "sk-ant-x"),
            ]),
        )
        .unwrap();
        assert_eq!(s.kind, ProviderKind::Anthropic);
        assert_eq!(s.base_url, ANTHROPIC_BASE_URL);
        assert!(
            !format!("{s:?}").contains("sk-ant-x"),
            "Debug never shows the key"
        );
    }

    #[test]
    fn configuration_wins_and_is_checked() {
        let s = Settings::resolve(
            &config(&[
                ("provider", "openai"),
                ("baseUrl", "http://127.0.0.1:8080/v1"),
                ("model", "qwen"),
                ("timeout", "10m"),
                ("parallel", "8"),
            ]),
            env(&[("ANTHROPIC_API_KEY", "k")]),
        )
        .unwrap();
        assert_eq!((s.kind, s.model.as_str()), (ProviderKind::OpenAi, "qwen"));
        assert_eq!(s.timeout, Duration::from_secs(600));
        assert_eq!(s.parallel, 8);
        assert!(
            s.chosen_because.contains("skill.provider = openai"),
            "{}",
            s.chosen_because
        );
        let e = Settings::resolve(&config(&[("provider", "command")]), env(&[])).unwrap_err();
        assert!(e.to_string().contains("skill.command is not set"), "{e}");
        let s = Settings::resolve(&config(&[("command", "claude -p")]), env(&[])).unwrap();
        assert_eq!(s.kind, ProviderKind::Command);
        let e = Settings::resolve(&config(&[("provider", "anthropic")]), env(&[])).unwrap_err();
        assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");
        let e = Settings::resolve(&config(&[("provider", "gemini-cli")]), env(&[])).unwrap_err();
        assert!(
            e.to_string().contains(
                "expected openai, anthropic, command, claude-code, codex, gemini or qwen"
            ),
            "{e}"
        );
        // The agent CLIs need neither a command nor a key; skill.command replaces the program.
        for cli in AgentCli::ALL {
            let s = Settings::resolve(&config(&[("provider", cli.as_str())]), env(&[])).unwrap();
            assert_eq!(
                (s.kind, s.model.as_str(), s.command),
                (ProviderKind::Agent(cli), "", None)
            );
            assert!(s.kind.runs_a_program());
        }
        let s = Settings::resolve(
            &config(&[
                ("provider", "claude-code"),
                ("command", "npx -y @anthropic-ai/claude-code"),
                ("model", "opus"),
            ]),
            env(&[("ANTHROPIC_API_KEY", "k")]),
        )
        .unwrap();
        assert_eq!(
            s.command.as_deref(),
            Some("npx -y @anthropic-ai/claude-code")
        );
        assert!(s.api_key.is_none(), "the CLI logs in by itself");
        let e =
            Settings::resolve(&config(&[("baseUrl", "localhost:11434")]), env(&[])).unwrap_err();
        assert!(e.to_string().contains("http://"), "{e}");
        // A key never travels in clear text off this machine.
        let e = Settings::resolve(
            &config(&[("baseUrl", "http://models.example.com/v1")]),
            env(&[("OPENAI_API_KEY", "sk-x")]),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("refusing to send OPENAI_API_KEY over plain http"),
            "{e}"
        );
        for local in [
            "http://localhost:8000/v1",
            "http://127.0.0.1:8000/v1",
            "http://[::1]:8000/v1",
        ] {
            Settings::resolve(
                &config(&[("baseUrl", local)]),
                env(&[("OPENAI_API_KEY", "sk-x")]),
            )
            .unwrap_or_else(|e| panic!("{local}: {e}"));
        }
        let e = Settings::resolve(&config(&[("retries", "99")]), env(&[])).unwrap_err();
        assert!(e.to_string().contains("skill.retries"), "{e}");
    }
}
