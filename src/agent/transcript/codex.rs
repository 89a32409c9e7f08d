//! Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session>.jsonl`. Everything
//! appears twice, as the `response_item` the model saw and as an `event_msg`; only the
//! `response_item`s are read. A user message is the prompt only when its
//! `content_item_kinds` says `user.text` (others are the environment or an injected skill).

use serde_json::Value;

use super::{text_of, valid_name, Conversation, Entry};

pub(super) fn read(records: &[(usize, Value)], c: &mut Conversation) -> usize {
    let mut recognised = 0;
    for (_, r) in records {
        let p = &r["payload"];
        match r["type"].as_str().unwrap_or("") {
            "session_meta" => {
                recognised += 1;
                Conversation::set_once(
                    &mut c.session,
                    p["id"].as_str().or(p["session_id"].as_str()),
                );
                Conversation::set_once(&mut c.cwd, p["cwd"].as_str());
            }
            "turn_context" => {
                recognised += 1;
                Conversation::set_once(&mut c.model, p["model"].as_str());
                Conversation::set_once(&mut c.cwd, p["cwd"].as_str());
            }
            "event_msg" | "token_usage_record" | "world_state" => recognised += 1,
            "response_item" => {
                recognised += 1;
                item(p, c);
            }
            _ => {}
        }
    }
    recognised
}

fn item(p: &Value, c: &mut Conversation) {
    let text = |content: &Value| -> String {
        content
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    match p["type"].as_str().unwrap_or("") {
        "message" => {
            let kinds: Vec<&str> = p["internal_chat_message_metadata_passthrough"]
                ["content_item_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let body = text(&p["content"]);
            match p["role"].as_str().unwrap_or("") {
                "assistant" => c.push(Entry::Assistant(body)),
                "user" if kinds.contains(&"skills.selected_skill_instructions") => {
                    if let Some(name) =
                        between(&body, "<name>", "</name>").and_then(|n| valid_name(&n))
                    {
                        c.skills.insert(name);
                    }
                }
                "user" if kinds.contains(&"user.text") => c.push(Entry::User(body)),
                // Without the metadata: everything but the synthetic context.
                "user" if kinds.is_empty() && !body.trim_start().starts_with('<') => {
                    c.push(Entry::User(body))
                }
                _ => {}
            }
        }
        "function_call" | "custom_tool_call" | "local_shell_call" => {
            let input = match (&p["arguments"], &p["input"], &p["action"]) {
                (Value::String(s), _, _) => s.clone(),
                (Value::Null, Value::String(s), _) => serde_json::json!({ "input": s }).to_string(),
                (Value::Null, Value::Null, action) if !action.is_null() => action.to_string(),
                (other, _, _) => other.to_string(),
            };
            c.push(Entry::ToolCall {
                id: p["call_id"].as_str().unwrap_or("").to_owned(),
                name: p["name"].as_str().unwrap_or("shell").to_owned(),
                input,
            });
        }
        "function_call_output" | "custom_tool_call_output" => {
            let output = match &p["output"] {
                Value::Object(o) => text_of(o.get("content").unwrap_or(&Value::Null)),
                other => text_of(other),
            };
            c.push(Entry::ToolResult {
                id: p["call_id"].as_str().unwrap_or("").to_owned(),
                output,
                is_error: false,
            });
        }
        _ => {}
    }
}

fn between(text: &str, open: &str, close: &str) -> Option<String> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(text[start..end].trim().to_owned())
}
