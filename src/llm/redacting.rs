//! Every request leaves with its secrets masked, whoever built it: prompts quote signals,
//! transcripts, files the review read and the model's own earlier answers.

use super::{Completion, Describe, LlmError, Provider, Request};

/// A provider whose requests are redacted before the one it wraps sends them.
pub struct Redacting(pub Box<dyn Provider>);

impl Provider for Redacting {
    fn complete(&self, request: &Request) -> Result<Completion, LlmError> {
        self.0.complete(&redacted(request))
    }

    fn native_tools(&self) -> bool {
        self.0.native_tools()
    }

    fn describe(&self) -> &Describe {
        self.0.describe()
    }
}

fn redacted(request: &Request) -> Request {
    use crate::redact::redact;
    let mut out = request.clone();
    out.system = out.system.as_deref().map(redact);
    for m in &mut out.messages {
        m.content = redact(&m.content);
        for call in &mut m.tool_calls {
            call.arguments = redact_json_text(&call.arguments);
        }
        for result in &mut m.tool_results {
            result.content = redact(&result.content);
        }
    }
    out
}

/// JSON arguments masked value by value, so that they stay JSON; text masked as text.
fn redact_json_text(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(mut v) => {
            if crate::redact::redact_value(&mut v) == 0 {
                return text.to_owned();
            }
            v.to_string()
        }
        Err(_) => crate::redact::redact(text),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::llm::{Message, ToolCall, ToolResult};

    struct Seen(Mutex<Vec<Request>>, Describe);

    impl Provider for Seen {
        fn complete(&self, request: &Request) -> Result<Completion, LlmError> {
            self.0.lock().unwrap().push(request.clone());
            Err(LlmError::BadAnswer {
                provider: "t",
                url: "u".into(),
                reason: "seen".into(),
            })
        }
        fn describe(&self) -> &Describe {
            &self.1
        }
    }

    #[test]
    fn every_text_of_a_request_is_masked() {
        let token = concat!("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        let seen = std::sync::Arc::new(Seen(
            Mutex::new(Vec::new()),
            Describe {
                provider: "t",
                model: "m".into(),
                endpoint: "e".into(),
            },
        ));
        struct Shared(std::sync::Arc<Seen>);
        impl Provider for Shared {
            fn complete(&self, r: &Request) -> Result<Completion, LlmError> {
                self.0.complete(r)
            }
            fn describe(&self) -> &Describe {
                self.0.describe()
            }
        }
        let p = Redacting(Box::new(Shared(seen.clone())));
        let mut request = Request::new(format!("user {token}"));
        request.system = Some(format!("system {token}"));
        let mut assistant = Message::user(String::new());
        assistant.tool_calls.push(ToolCall {
            id: "c".into(),
            name: "read_file".into(),
            arguments: serde_json::json!({"path": token}).to_string(),
        });
        request.messages.push(assistant);
        let mut result = Message::user(String::new());
        result.tool_results.push(ToolResult {
            id: "c".into(),
            content: format!("TOKEN={token}"),
            is_error: false,
        });
        request.messages.push(result);
        let _ = p.complete(&request);
        let sent = format!("{:?}", seen.0.lock().unwrap()[0]);
        assert!(!sent.contains(&token[4..16]), "{sent}");
        let args = &seen.0.lock().unwrap()[0].messages[1].tool_calls[0].arguments;
        assert!(
            serde_json::from_str::<serde_json::Value>(args).is_ok(),
            "{args}"
        );
    }
}
