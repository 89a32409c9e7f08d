//! `POST {baseUrl}/v1/messages`, Anthropic's API: `x-api-key`, `anthropic-version`, the
//! system text at the top level, `max_tokens` required. A JSON schema goes in as the
//! `input_schema` of one tool the model is made to call (`tool_choice`), whose input is the
//! answer; a server that refuses tools gets the request again without, and is not sent them
//! again.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Value};

use super::http::Http;
use super::{
    display_url, Completion, Describe, LlmError, Provider, Request, Role, Settings, Usage,
};

pub const VERSION: &str = "2023-06-01";

pub(crate) struct Anthropic {
    http: Http,
    url: String,
    key: Option<super::settings::Secret>,
    describe: Describe,
    /// Set once the server has refused `tools`.
    no_tools: AtomicBool,
}

impl Anthropic {
    pub fn new(settings: &Settings) -> Anthropic {
        // `https://api.anthropic.com` and `https://api.anthropic.com/v1` both mean the root.
        let base = settings.base_url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        Anthropic {
            http: Http::new("anthropic", settings),
            url: format!("{base}/v1/messages"),
            key: settings.api_key.clone(),
            describe: Describe {
                provider: "anthropic",
                model: settings.model.clone(),
                endpoint: display_url(base),
            },
            no_tools: AtomicBool::new(false),
        }
    }

    fn body(&self, request: &Request, with_tool: bool) -> Value {
        let messages: Vec<Value> = request
            .messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                if m.tool_calls.is_empty() && m.tool_results.is_empty() {
                    return json!({ "role": role, "content": m.content });
                }
                // Blocks: the results first (Anthropic wants them at the start of the turn
                // that follows the calls), then the text, then the calls.
                let mut blocks: Vec<Value> = m
                    .tool_results
                    .iter()
                    .map(|r| {
                        json!({
                            "type": "tool_result",
                            "tool_use_id": r.id,
                            "content": r.content,
                            "is_error": r.is_error,
                        })
                    })
                    .collect();
                if !m.content.is_empty() {
                    blocks.push(json!({ "type": "text", "text": m.content }));
                }
                for c in &m.tool_calls {
                    // The input must be an object; what the model sent was one when it came
                    // from this API, and anything else is sent as an empty one.
                    let input = serde_json::from_str::<Value>(&c.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    blocks.push(
                        json!({ "type": "tool_use", "id": c.id, "name": c.name, "input": input }),
                    );
                }
                json!({ "role": role, "content": blocks })
            })
            .collect();
        let mut body = json!({
            "model": self.describe.model,
            "max_tokens": request.max_tokens,
            "messages": messages,
        });
        if let Some(system) = &request.system {
            body["system"] = json!(system);
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if with_tool && !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": t.parameters,
                    })
                })
                .collect();
            body["tools"] = json!(tools);
        } else if let (Some(schema), true) = (&request.schema, with_tool) {
            body["tools"] = json!([{
                "name": schema.name,
                "description": "Give your answer through this tool: its input is the JSON object the instructions describe.",
                "input_schema": schema.schema,
            }]);
            body["tool_choice"] = json!({ "type": "tool", "name": schema.name });
        }
        body
    }
}

impl Provider for Anthropic {
    fn complete(&self, request: &Request) -> Result<Completion, LlmError> {
        let key = self.key.as_ref().map(|k| k.expose()).unwrap_or("");
        let mut headers = vec![("x-api-key", key), ("anthropic-version", VERSION)];
        if let Some(purpose) = request.purpose {
            headers.push(("x-git-skill-purpose", purpose));
        }
        let wants_tools = request.schema.is_some() || !request.tools.is_empty();
        let mut with_tool = wants_tools && !self.no_tools.load(Ordering::Relaxed);
        let mut spent = 0;
        let mut dropped = None;
        let answer = loop {
            match self.http.post(
                &self.url,
                &headers,
                &self.body(request, with_tool),
                request.budget.as_deref(),
            ) {
                Err(e) if with_tool && super::refuses(&e, &["tool"]) => {
                    self.no_tools.store(true, Ordering::Relaxed);
                    with_tool = false;
                    dropped = Some("tools");
                    spent += 1;
                }
                other => break other.map_err(|e| super::after_dropping(dropped, e))?,
            }
        };
        let bad = |reason: String| {
            super::after_dropping(
                dropped,
                LlmError::BadAnswer {
                    provider: "anthropic",
                    url: display_url(&self.url),
                    reason,
                },
            )
        };
        let v: Value = serde_json::from_str(&answer.body).map_err(|e| {
            bad(format!(
                "not JSON ({e}): {}",
                super::excerpt(&answer.body, 200)
            ))
        })?;
        let blocks = v["content"].as_array().ok_or_else(|| {
            bad(format!(
                "no content in {}",
                super::excerpt(&answer.body, 200)
            ))
        })?;
        let mut tool_calls = Vec::new();
        if !request.tools.is_empty() {
            for (i, b) in blocks.iter().enumerate() {
                if b["type"] != "tool_use" {
                    continue;
                }
                let name = b["name"].as_str().ok_or_else(|| {
                    bad(format!(
                        "tool_use block {i} has no name: {}",
                        super::excerpt(&b.to_string(), 200)
                    ))
                })?;
                tool_calls.push(super::ToolCall {
                    id: b["id"]
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| format!("toolu_{i}")),
                    name: name.to_owned(),
                    arguments: b["input"].to_string(),
                });
            }
        }
        // The forced tool's input is the answer; without one, the text is.
        let tool_input = request
            .schema
            .as_ref()
            .filter(|_| request.tools.is_empty())
            .and_then(|schema| {
                blocks
                    .iter()
                    .find(|b| b["type"] == "tool_use" && b["name"] == schema.name.as_str())
                    .map(|b| b["input"].to_string())
            });
        let text: String = match tool_input {
            Some(input) => input,
            None => blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect(),
        };
        if v["stop_reason"] == "max_tokens" {
            return Err(bad(format!(
                "the answer was cut off at max_tokens ({}): {}",
                request.max_tokens,
                super::excerpt(&text, 200)
            )));
        }
        let usage = Usage {
            input_tokens: v["usage"]["input_tokens"].as_u64().unwrap_or(0),
            output_tokens: v["usage"]["output_tokens"].as_u64().unwrap_or(0),
            estimated: false,
        };
        if !request.tools.is_empty() && !with_tool && dropped.is_none() {
            dropped = Some("tools");
        }
        Ok(Completion {
            text,
            usage,
            attempts: answer.attempts + spent,
            dropped,
            tool_calls,
        })
    }

    fn native_tools(&self) -> bool {
        !self.no_tools.load(Ordering::Relaxed)
    }

    fn describe(&self) -> &Describe {
        &self.describe
    }
}
