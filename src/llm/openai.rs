//! `POST {baseUrl}/chat/completions`: OpenAI, and every server that copies its API (Ollama,
//! vLLM, llama.cpp's server, LM Studio). A JSON schema goes in `response_format`; a server that
//! refuses that field gets the request again without it, and is not sent it again.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Value};

use super::http::Http;
use super::{
    display_url, Completion, Describe, LlmError, Provider, Request, Role, Settings, ToolCall, Usage,
};

pub(crate) struct OpenAi {
    http: Http,
    url: String,
    key: Option<super::settings::Secret>,
    describe: Describe,
    /// Set once the server has refused `response_format`.
    no_schema: AtomicBool,
    /// Set once the server has asked for `max_completion_tokens` instead of `max_tokens`
    /// (OpenAI's reasoning models).
    completion_tokens: AtomicBool,
    /// Set once the server has refused `temperature` (reasoning models take only the default).
    no_temperature: AtomicBool,
    /// Set once the server has refused `tools` (a model without tool calling).
    no_tools: AtomicBool,
}

impl OpenAi {
    pub fn new(settings: &Settings) -> OpenAi {
        let base = settings.base_url.trim_end_matches('/');
        OpenAi {
            http: Http::new("openai", settings),
            url: format!("{base}/chat/completions"),
            key: settings.api_key.clone(),
            describe: Describe {
                provider: "openai",
                model: settings.model.clone(),
                endpoint: display_url(base),
            },
            no_schema: AtomicBool::new(false),
            completion_tokens: AtomicBool::new(false),
            no_temperature: AtomicBool::new(false),
            no_tools: AtomicBool::new(false),
        }
    }

    fn body(&self, request: &Request, with_schema: bool, with_tools: bool) -> Value {
        let mut messages = Vec::new();
        if let Some(system) = &request.system {
            messages.push(json!({ "role": "system", "content": system }));
        }
        for m in &request.messages {
            // Tool results are messages of their own, right after the calls they answer.
            for r in &m.tool_results {
                messages
                    .push(json!({ "role": "tool", "tool_call_id": r.id, "content": r.content }));
            }
            match m.role {
                Role::Assistant if !m.tool_calls.is_empty() => {
                    let calls: Vec<Value> = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": { "name": c.name, "arguments": c.arguments },
                            })
                        })
                        .collect();
                    // "" rather than null: servers such as llama-cpp-python refuse a null
                    // content beside tool calls; the OpenAI API takes either.
                    let content = json!(m.content);
                    messages.push(
                        json!({ "role": "assistant", "content": content, "tool_calls": calls }),
                    );
                }
                Role::User if !m.tool_results.is_empty() && m.content.is_empty() => {}
                Role::User => messages.push(json!({ "role": "user", "content": m.content })),
                Role::Assistant => {
                    messages.push(json!({ "role": "assistant", "content": m.content }))
                }
            }
        }
        let mut body = json!({
            "model": self.describe.model,
            "messages": messages,
        });
        let tokens = if self.completion_tokens.load(Ordering::Relaxed) {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[tokens] = json!(request.max_tokens);
        if let (Some(t), false) = (
            request.temperature,
            self.no_temperature.load(Ordering::Relaxed),
        ) {
            body["temperature"] = json!(t);
        }
        if let (Some(schema), true) = (&request.schema, with_schema) {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": { "name": schema.name, "schema": schema.schema, "strict": true },
            });
        }
        if with_tools && !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": t.parameters,
                        },
                    })
                })
                .collect();
            body["tools"] = json!(tools);
            body["tool_choice"] = json!("auto");
        }
        body
    }

    fn send(
        &self,
        request: &Request,
        with_schema: bool,
        with_tools: bool,
    ) -> Result<(String, u32), LlmError> {
        let auth = self.key.as_ref().map(|k| format!("Bearer {}", k.expose()));
        let mut headers: Vec<(&str, &str)> = auth
            .as_deref()
            .map(|a| vec![("authorization", a)])
            .unwrap_or_default();
        if let Some(purpose) = request.purpose {
            headers.push(("x-git-skill-purpose", purpose));
        }
        let answer = self.http.post(
            &self.url,
            &headers,
            &self.body(request, with_schema, with_tools),
            request.budget.as_deref(),
        )?;
        Ok((answer.body, answer.attempts))
    }

    fn parse(&self, body: &str) -> Result<(String, Vec<ToolCall>, Usage), LlmError> {
        let bad = |reason: String| LlmError::BadAnswer {
            provider: "openai",
            url: display_url(&self.url),
            reason,
        };
        let v: Value = serde_json::from_str(body)
            .map_err(|e| bad(format!("not JSON ({e}): {}", super::excerpt(body, 200))))?;
        let choice = &v["choices"][0];
        let mut calls = Vec::new();
        if let Some(list) = choice["message"]["tool_calls"].as_array() {
            for (i, c) in list.iter().enumerate() {
                let name = c["function"]["name"].as_str().ok_or_else(|| {
                    bad(format!(
                        "tool call {i} has no function.name: {}",
                        super::excerpt(&c.to_string(), 200)
                    ))
                })?;
                // Arguments are a JSON string by the protocol; some servers send the object.
                let arguments = match &c["function"]["arguments"] {
                    Value::String(s) => s.clone(),
                    Value::Null => "{}".to_owned(),
                    other => other.to_string(),
                };
                calls.push(ToolCall {
                    id: c["id"]
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| format!("call_{i}")),
                    name: name.to_owned(),
                    arguments,
                });
            }
        }
        let text = match &choice["message"]["content"] {
            Value::String(s) => s.clone(),
            Value::Null if !calls.is_empty() => String::new(),
            Value::Null if choice["message"]["refusal"].is_string() => {
                return Err(bad(format!(
                    "the model refused: {}",
                    super::excerpt(choice["message"]["refusal"].as_str().unwrap_or(""), 300)
                )))
            }
            _ => {
                return Err(bad(format!(
                    "no choices[0].message.content in {}",
                    super::excerpt(body, 200)
                )))
            }
        };
        if choice["finish_reason"] == "length" {
            return Err(bad(format!(
                "the answer was cut off at the token limit: {}",
                super::excerpt(&text, 200)
            )));
        }
        let usage = Usage {
            input_tokens: v["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
            output_tokens: v["usage"]["completion_tokens"].as_u64().unwrap_or(0),
            estimated: false,
        };
        Ok((text, calls, usage))
    }
}

impl Provider for OpenAi {
    fn complete(&self, request: &Request) -> Result<Completion, LlmError> {
        let mut with_schema = request.schema.is_some() && !self.no_schema.load(Ordering::Relaxed);
        let mut with_tools = !request.tools.is_empty() && !self.no_tools.load(Ordering::Relaxed);
        let mut spent = 0;
        let mut dropped = None;
        // At most one resend for each field a server may refuse.
        let (body, attempts) = loop {
            match self.send(request, with_schema, with_tools) {
                Err(e)
                    if with_schema && super::refuses(&e, &["response_format", "json_schema"]) =>
                {
                    self.no_schema.store(true, Ordering::Relaxed);
                    with_schema = false;
                    dropped = Some("response_format");
                    spent += 1;
                }
                Err(e) if with_tools && super::refuses(&e, &["tool", "function"]) => {
                    self.no_tools.store(true, Ordering::Relaxed);
                    with_tools = false;
                    dropped = Some("tools");
                    spent += 1;
                }
                Err(e)
                    if !self.completion_tokens.load(Ordering::Relaxed)
                        && super::refuses(&e, &["max_completion_tokens"]) =>
                {
                    self.completion_tokens.store(true, Ordering::Relaxed);
                    spent += 1;
                }
                Err(e)
                    if request.temperature.is_some()
                        && !self.no_temperature.load(Ordering::Relaxed)
                        && super::refuses(&e, &["temperature"]) =>
                {
                    self.no_temperature.store(true, Ordering::Relaxed);
                    spent += 1;
                }
                Ok((body, attempts)) => break (body, attempts + spent),
                Err(e) => return Err(super::after_dropping(dropped, e)),
            }
        };
        let (text, tool_calls, usage) = self
            .parse(&body)
            .map_err(|e| super::after_dropping(dropped, e))?;
        if !request.tools.is_empty() && !with_tools && dropped.is_none() {
            // Refused earlier in this run: the caller must know its tools were not sent.
            dropped = Some("tools");
        }
        Ok(Completion {
            text,
            usage,
            attempts,
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
