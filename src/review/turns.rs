//! The bounded tool loop: at most `max_rounds` model requests and `timeout` of wall clock,
//! at most [`MAX_CALLS_PER_ROUND`] tool calls a round. Providers with native tool calling get
//! the tools as such; the others (a command) read them in the system prompt and call them
//! with a JSON answer (`{"tool_calls": [...]}`), and any other answer ends the review. A
//! server that refuses tools mid-run is spoken to in text from then on.

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::tools::{self, ToolContext};
use crate::llm::{LlmError, Message, Provider, Request, ToolCall, ToolResult, Usage};
use crate::progress::Progress;

/// Tool calls carried out per round; more are refused (the model is told).
pub const MAX_CALLS_PER_ROUND: usize = 16;
/// What a round's answer may take.
const MAX_TOKENS: u32 = 8192;
/// The most of a call's arguments and result kept in the run log.
const LOG_CHARS: usize = 4000;
/// How long one shell command may run.
const SHELL_LIMIT: Duration = Duration::from_secs(10);

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The model answered without calling a tool.
    Finished,
    /// The rounds were used up.
    Rounds,
    /// The wall-clock limit passed.
    Timeout,
}

/// One tool call, as the run log keeps it.
#[derive(Debug, Clone, Serialize)]
pub struct CallLog {
    pub name: String,
    /// Masked and cut.
    pub arguments: String,
    pub result: String,
    /// The rule that refused it.
    pub denied: Option<&'static str>,
}

/// One model request and what came of it.
#[derive(Debug, Clone, Serialize)]
pub struct RoundLog {
    pub round: u32,
    /// `native` or `text`.
    pub mode: &'static str,
    /// Characters sent (system and messages).
    pub sent_chars: usize,
    pub usage: Usage,
    pub elapsed_ms: u128,
    /// The model's text, masked and cut.
    pub answer: String,
    pub calls: Vec<CallLog>,
}

/// What the loop did.
#[derive(Debug, Clone, Serialize)]
pub struct LoopEnd {
    pub stop: Stop,
    /// The last answer's text (the summary when the model finished).
    pub final_text: String,
    pub rounds: Vec<RoundLog>,
}

impl LoopEnd {
    pub fn usage(&self) -> Usage {
        self.rounds.iter().map(|r| r.usage).sum()
    }

    pub fn calls(&self) -> usize {
        self.rounds.iter().map(|r| r.calls.len()).sum()
    }

    pub fn denied(&self) -> usize {
        self.rounds
            .iter()
            .flat_map(|r| &r.calls)
            .filter(|c| c.denied.is_some())
            .count()
    }
}

/// An error that ended the loop, with what happened before it.
#[derive(Debug)]
pub struct LoopError {
    pub error: LlmError,
    pub partial: LoopEnd,
}

/// The prompts of both modes: a run may start native and go on in text.
pub struct Prompts {
    pub system_native: String,
    pub system_text: String,
    pub user: String,
}

pub struct Limits {
    pub max_rounds: u32,
    pub deadline: Instant,
}

/// Runs the review's conversation with the model until it stops.
pub fn drive(
    provider: Arc<dyn Provider>,
    prompts: &Prompts,
    limits: &Limits,
    ctx_sandbox: &mut super::sandbox::Sandbox,
    progress: &mut dyn Progress,
) -> Result<LoopEnd, Box<LoopError>> {
    let mut native = provider.native_tools();
    let specs = tools::specs();
    // The conversation, provider-neutral: native messages keep calls and results as such;
    // in text mode they are written out as text.
    let mut history: Vec<Message> = vec![Message::user(prompts.user.clone())];
    let mut end = LoopEnd {
        stop: Stop::Rounds,
        final_text: String::new(),
        rounds: Vec::new(),
    };
    let mut round = 0;
    while round < limits.max_rounds {
        let now = crate::clock::monotonic();
        if now >= limits.deadline {
            end.stop = Stop::Timeout;
            return Ok(end);
        }
        round += 1;
        progress.progress(
            round.min(255) as u8,
            limits.max_rounds.min(255) as u8,
            "review",
            "asking the model",
        );
        let request = Request {
            system: Some(if native {
                prompts.system_native.clone()
            } else {
                prompts.system_text.clone()
            }),
            messages: if native {
                history.clone()
            } else {
                as_text(&history)
            },
            schema: None,
            temperature: None,
            max_tokens: MAX_TOKENS,
            purpose: Some("review"),
            tools: if native { specs.clone() } else { Vec::new() },
            budget: None,
        };
        let sent_chars = request.system.as_ref().map_or(0, String::len)
            + request
                .messages
                .iter()
                .map(|m| m.content.len())
                .sum::<usize>();
        let started = crate::clock::monotonic();
        let answer = match ask(&provider, request, limits.deadline) {
            Asked::Answer(Ok(c)) => c,
            Asked::Answer(Err(error)) => {
                return Err(Box::new(LoopError {
                    error,
                    partial: end,
                }))
            }
            Asked::TimedOut => {
                end.stop = Stop::Timeout;
                return Ok(end);
            }
        };
        if native && answer.dropped == Some("tools") {
            // The server takes no tools: the same round again, in text.
            progress.warn(
                "the model server refuses tool calling; going on with tools described in text",
            );
            native = false;
            round -= 1;
            continue;
        }
        let mut log = RoundLog {
            round,
            mode: if native { "native" } else { "text" },
            sent_chars,
            usage: answer.usage,
            elapsed_ms: started.elapsed().as_millis(),
            answer: cut(&crate::redact::redact(&answer.text), LOG_CHARS),
            calls: Vec::new(),
        };
        let calls = if native {
            answer.tool_calls.clone()
        } else {
            match text_calls(&answer.text, round) {
                Ok(calls) => calls,
                Err(reason) => {
                    // A call that does not parse: said to the model, and the round counts.
                    log.calls.push(CallLog {
                        name: "(malformed)".into(),
                        arguments: cut(&crate::redact::redact(&answer.text), LOG_CHARS),
                        result: reason.clone(),
                        denied: Some("bad-arguments"),
                    });
                    end.rounds.push(log);
                    history.push(Message::assistant(cut(
                        &answer.text,
                        tools::MAX_ARGUMENT_BYTES,
                    )));
                    history.push(Message::user(format!(
                        "Your answer looks like a tool call but is not one: {reason}. Answer with only {{\"tool_calls\": [{{\"name\": ..., \"arguments\": {{...}}}}]}}, or with plain text when you are done."
                    )));
                    continue;
                }
            }
        };
        if calls.is_empty() && answer.text.trim().is_empty() && end.rounds.is_empty() {
            // Nothing said and nothing done: a server or model fault, not "nothing to save".
            let shown = provider.describe();
            return Err(Box::new(LoopError {
                error: LlmError::BadAnswer {
                    provider: shown.provider,
                    url: shown.endpoint.clone(),
                    reason: "its answer is empty: no text and no tool call".into(),
                },
                partial: end,
            }));
        }
        if calls.is_empty() {
            end.final_text = answer.text.clone();
            end.stop = Stop::Finished;
            end.rounds.push(log);
            return Ok(end);
        }
        // A flood of calls is cut: the first MAX_CALLS_PER_ROUND are answered, the rest are
        // dropped from the conversation (and counted in the log).
        let dropped = calls.len().saturating_sub(MAX_CALLS_PER_ROUND);
        let calls: Vec<ToolCall> = calls.into_iter().take(MAX_CALLS_PER_ROUND).collect();
        if dropped > 0 {
            log.calls.push(CallLog {
                name: format!("({dropped} more calls)"),
                arguments: String::new(),
                result: format!("dropped: at most {MAX_CALLS_PER_ROUND} tool calls a round"),
                denied: Some("too-many-calls"),
            });
        }
        let mut assistant = Message::assistant(answer.text.clone());
        // Refused oversized arguments are not sent back with every later round.
        assistant.tool_calls = calls
            .iter()
            .map(|c| ToolCall {
                arguments: if c.arguments.len() > tools::MAX_ARGUMENT_BYTES {
                    serde_json::json!({ "omitted": format!("{} bytes", c.arguments.len()) })
                        .to_string()
                } else {
                    c.arguments.clone()
                },
                ..c.clone()
            })
            .collect();
        if !native && answer.text.len() > tools::MAX_ARGUMENT_BYTES {
            assistant.content = "(an answer too large to repeat)".into();
        }
        let mut results = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let remaining = limits
                .deadline
                .saturating_duration_since(crate::clock::monotonic());
            let mut outcome = if remaining.is_zero() {
                tools::CallResult {
                    content: "denied (timeout): the review's time is up".into(),
                    denied: Some("timeout"),
                }
            } else {
                let mut ctx = ToolContext {
                    sandbox: ctx_sandbox,
                    shell_limit: SHELL_LIMIT.min(remaining),
                };
                tools::call(&mut ctx, &call.name, &call.arguments)
            };
            if dropped > 0 && i + 1 == calls.len() {
                outcome.content.push_str(&format!(
                    "\n[{dropped} more calls of this answer were dropped: at most {MAX_CALLS_PER_ROUND} a round]"
                ));
            }
            log.calls.push(CallLog {
                name: cut(&crate::redact::redact(&call.name), 80),
                arguments: cut(&crate::redact::redact(&call.arguments), LOG_CHARS),
                result: cut(&crate::redact::redact(&outcome.content), LOG_CHARS),
                denied: outcome.denied,
            });
            results.push(ToolResult {
                id: call.id.clone(),
                content: outcome.content,
                is_error: outcome.denied.is_some(),
            });
        }
        end.final_text = answer.text.clone();
        end.rounds.push(log);
        history.push(assistant);
        let mut user = Message::user(String::new());
        user.tool_results = results;
        history.push(user);
    }
    end.stop = Stop::Rounds;
    Ok(end)
}

enum Asked {
    Answer(Result<crate::llm::Completion, LlmError>),
    TimedOut,
}

/// One request, given up at `deadline`: the request goes on in its thread (a provider's own
/// timeout ends it) but the review does not wait for it.
fn ask(provider: &Arc<dyn Provider>, request: Request, deadline: Instant) -> Asked {
    let (tx, rx) = mpsc::channel();
    let provider = Arc::clone(provider);
    std::thread::spawn(move || {
        let _ = tx.send(provider.complete(&request));
    });
    let wait = deadline.saturating_duration_since(crate::clock::monotonic());
    match rx.recv_timeout(wait) {
        Ok(answer) => Asked::Answer(answer),
        Err(_) => Asked::TimedOut,
    }
}

/// The conversation for a provider without tool calling: calls as the JSON the model wrote,
/// results as text.
fn as_text(history: &[Message]) -> Vec<Message> {
    history
        .iter()
        .map(|m| {
            if m.tool_results.is_empty() && m.tool_calls.is_empty() {
                return m.clone();
            }
            if !m.tool_calls.is_empty() && !m.content.is_empty() {
                return Message::assistant(m.content.clone());
            }
            if !m.tool_calls.is_empty() {
                let calls: Vec<Value> = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        serde_json::json!({
                            "name": c.name,
                            "arguments": serde_json::from_str::<Value>(&c.arguments).unwrap_or(Value::Null),
                        })
                    })
                    .collect();
                return Message::assistant(serde_json::json!({ "tool_calls": calls }).to_string());
            }
            let mut text = String::from("The results of your tool calls, in order:\n");
            for (i, r) in m.tool_results.iter().enumerate() {
                text.push_str(&format!(
                    "\n<result call=\"{}\">\n{}\n</result>\n",
                    i + 1,
                    r.content
                ));
            }
            Message::user(text)
        })
        .collect()
}

/// The calls in a text answer: `{"tool_calls": [{"name", "arguments"}]}`, bare or in a code
/// fence. Plain text is the final answer (`Ok` of nothing); an answer that starts like the
/// protocol's object but is not one is an error the model is told about.
fn text_calls(text: &str, round: u32) -> Result<Vec<ToolCall>, String> {
    let trimmed = text.trim();
    let body = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .unwrap_or(trimmed)
        .trim();
    if !body.starts_with('{') || !body.contains("tool_calls") {
        return Ok(Vec::new());
    }
    let v: Value = serde_json::from_str(body).map_err(|e| format!("not valid JSON ({e})"))?;
    let list = v
        .get("tool_calls")
        .and_then(Value::as_array)
        .ok_or("`tool_calls` is not a list")?;
    list.iter()
        .enumerate()
        .map(|(i, c)| {
            let name = c["name"]
                .as_str()
                .ok_or_else(|| format!("call {} has no `name`", i + 1))?;
            Ok(ToolCall {
                id: format!("r{round}c{}", i + 1),
                name: name.to_owned(),
                arguments: match &c["arguments"] {
                    Value::String(s) => s.clone(),
                    Value::Null => "{}".into(),
                    other => other.to_string(),
                },
            })
        })
        .collect()
}

fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}[... {} more bytes]", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_answers_call_tools_only_in_the_protocols_form() {
        let calls = text_calls(
            "```json\n{\"tool_calls\": [{\"name\": \"ls\", \"arguments\": {\"path\": \"\"}}, {\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\":\\\"a\\\"}\"}]}\n```",
            3,
        )
        .unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "ls");
        assert_eq!(calls[0].arguments, "{\"path\":\"\"}");
        assert_eq!(calls[1].arguments, "{\"path\":\"a\"}");
        assert_eq!(calls[0].id, "r3c1");
        for final_answer in [
            "Nothing to save.",
            "{\"summary\": \"x\"}",
            "Saved a skill: {\"tool_calls\": []} was my plan",
            "{not json",
        ] {
            assert!(
                text_calls(final_answer, 1).unwrap().is_empty(),
                "{final_answer}"
            );
        }
        for malformed in [
            "{\"tool_calls\": [{\"name\": \"ls\", \"arguments\": {\"path\": \"a\nb\"}}]}",
            "{\"tool_calls\": {\"name\": \"ls\"}}",
            "{\"tool_calls\": [{\"arguments\": {}}]}",
        ] {
            assert!(text_calls(malformed, 1).is_err(), "{malformed}");
        }
    }

    #[test]
    fn a_text_conversation_writes_calls_and_results_out() {
        let mut a = Message::assistant("");
        a.tool_calls = vec![ToolCall {
            id: "1".into(),
            name: "ls".into(),
            arguments: "{}".into(),
        }];
        let mut u = Message::user("");
        u.tool_results = vec![ToolResult {
            id: "1".into(),
            content: "SKILL.md".into(),
            is_error: false,
        }];
        let text = as_text(&[Message::user("review"), a, u]);
        assert_eq!(
            text[1].content,
            "{\"tool_calls\":[{\"name\":\"ls\",\"arguments\":{}}]}"
        );
        assert!(text[2]
            .content
            .contains("<result call=\"1\">\nSKILL.md\n</result>"));
        assert!(text
            .iter()
            .all(|m| m.tool_calls.is_empty() && m.tool_results.is_empty()));
    }
}
