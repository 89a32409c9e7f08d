use std::io::Write as _;

use git_skill::llm::Settings;
use git_skill::ops::llm as op;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Talk to the configured language model (the one optimize uses).
///
/// The provider comes from skill.provider (openai, anthropic, command, or the coding agent you
/// are logged into: claude-code, codex, gemini, qwen), skill.model, skill.baseUrl and
/// skill.command; with nothing configured, ANTHROPIC_API_KEY selects
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
    let mut asked = Ok(());
    let ping = op::ping(&settings, |d| asked = ui.status(&format!("asking {d}…")))?;
    asked?;
    match args.format {
        Format::Json => super::output::json(ui, &ping)?,
        Format::Text => {
            let estimated = if ping.usage.estimated {
                " (estimated)"
            } else {
                ""
            };
            let endpoint_label = match ping.provider {
                "command" => "command",
                _ => "base URL",
            };
            let rows = [
                (
                    "provider",
                    format!("{} ({})", ping.provider, ping.chosen_because),
                ),
                ("model", ping.model.clone()),
                (endpoint_label, ping.endpoint.clone()),
                ("latency", format!("{} ms", ping.latency_ms)),
                (
                    "tokens",
                    format!(
                        "{} in, {} out{estimated}",
                        ping.usage.input_tokens, ping.usage.output_tokens
                    ),
                ),
                ("attempts", ping.attempts.to_string()),
                ("answer", ping.answer.clone()),
            ];
            for (label, value) in rows {
                writeln!(ui.out, "{label:<9} {}", super::ui::safe(&value))?;
            }
        }
    }
    Ok(Outcome::Clean)
}
