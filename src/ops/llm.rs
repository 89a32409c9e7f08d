//! `git skill llm ping`: one tiny request through the configured provider, timed.

use serde::Serialize;

use crate::llm::{self, Describe, LlmError, Request, Settings, Usage};

#[derive(Debug, Serialize)]
pub struct Ping {
    pub provider: &'static str,
    pub model: String,
    pub endpoint: String,
    /// Why this provider: a setting, or the variable that selected it.
    pub chosen_because: String,
    pub latency_ms: u64,
    pub attempts: u32,
    pub usage: Usage,
    /// The answer on one line, at most 80 characters.
    pub answer: String,
}

/// Asks the model of `settings` for a one-word answer; `asking` hears who is asked first (a
/// slow or unreachable server is then not a silent wait).
pub fn ping(settings: &Settings, asking: impl FnOnce(&Describe)) -> Result<Ping, LlmError> {
    let provider = llm::provider(settings);
    let describe = provider.describe().clone();
    asking(&describe);
    let mut request = Request::new("Reply with the single word: pong")
        .purpose("ping")
        .system("You are a health check. Answer with one word.");
    request.max_tokens = 16;
    request.temperature = Some(0.0);
    let start = crate::clock::monotonic();
    let completion = provider.complete(&request)?;
    let latency = start.elapsed();
    Ok(Ping {
        provider: describe.provider,
        model: describe.model,
        endpoint: describe.endpoint,
        chosen_because: settings.chosen_because.clone(),
        latency_ms: latency.as_millis() as u64,
        attempts: completion.attempts,
        usage: completion.usage,
        answer: crate::report::one_line(&completion.text, 80),
    })
}
