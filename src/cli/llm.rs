use std::io::Write as _;

use git_skill::llm::{self, Request, Settings};

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Talk to the configured language model (the one optimize uses).
///
/// The provider comes from skill.provider (openai, anthropic or command), skill.model,
/// skill.baseUrl and skill.command; with nothing configured, ANTHROPIC_API_KEY selects
/// anthropic, OPENAI_API_KEY selects openai, and otherwise an OpenAI-compatible server is tried
/// at Ollama's address (http://localhost:11434/v1). API keys are read from the environment only.
#[derive(Debug, clap::Args)]
pub struct LlmArgs {
    #[command(subcommand)]
    pub command: LlmCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum LlmCommand {
    Ping(PingArgs),
}

/// Send one tiny request through the configured provider and show provider, model, base URL,
/// latency and tokens. Exit 0 when it answers, 2 when it does not.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill llm ping
  git -c skill.provider=openai -c skill.baseUrl=http://localhost:8080/v1 -c skill.model=qwen2.5 skill llm ping
  git -c skill.provider=command -c skill.command='claude -p' skill llm ping --format json")]
pub struct PingArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_llm(ui: &mut Ui, args: LlmArgs) -> Result<Outcome, CommandError> {
    match args.command {
        LlmCommand::Ping(ping) => cmd_ping(ui, ping),
    }
}

/// An LLM error at the edge, with its hint.
/// The settings of the workspace's configuration and the process environment.
pub fn settings(ws: &Workspace) -> Result<Settings, CommandError> {
    Settings::resolve(&ws.config, |name| std::env::var(name).ok()).map_err(|e| {
        CommandError::from(e).hint(
            "see the provider keys with git skill config; examples: git skill llm ping --help",
        )
    })
}

fn cmd_ping(ui: &mut Ui, args: PingArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let settings = settings(&ws)?;
    let provider = llm::provider(&settings);
    let describe = provider.describe().clone();
    ui.status(&format!("asking {describe}…"))?;
    let mut request = Request::new("Reply with the single word: pong")
        .purpose("ping")
        .system("You are a health check. Answer with one word.");
    request.max_tokens = 16;
    request.temperature = Some(0.0);
    let start = git_skill::clock::monotonic();
    let completion = provider.complete(&request)?;
    let latency = start.elapsed();
    let answer = git_skill::report::one_line(&completion.text, 80);
    match args.format {
        Format::Json => {
            #[derive(serde::Serialize)]
            struct Ping<'a, U> {
                provider: &'a str,
                model: &'a str,
                endpoint: &'a str,
                chosen_because: &'a str,
                latency_ms: u64,
                attempts: u32,
                usage: &'a U,
                answer: &'a str,
            }
            let ping = Ping {
                provider: describe.provider,
                model: &describe.model,
                endpoint: &describe.endpoint,
                chosen_because: &settings.chosen_because,
                latency_ms: latency.as_millis() as u64,
                attempts: completion.attempts,
                usage: &completion.usage,
                answer: &answer,
            };
            super::output::json(ui, &ping)?;
        }
        Format::Text => {
            let estimated = if completion.usage.estimated {
                " (estimated)"
            } else {
                ""
            };
            let endpoint_label = if describe.provider == "command" {
                "command"
            } else {
                "base URL"
            };
            let rows = [
                (
                    "provider",
                    format!("{} ({})", describe.provider, settings.chosen_because),
                ),
                ("model", describe.model.clone()),
                (endpoint_label, describe.endpoint.clone()),
                ("latency", format!("{} ms", latency.as_millis())),
                (
                    "tokens",
                    format!(
                        "{} in, {} out{estimated}",
                        completion.usage.input_tokens, completion.usage.output_tokens
                    ),
                ),
                ("attempts", completion.attempts.to_string()),
                ("answer", answer),
            ];
            for (label, value) in rows {
                writeln!(ui.out, "{label:<9} {}", super::ui::safe(&value))?;
            }
        }
    }
    Ok(Outcome::Clean)
}
