//! Gemini CLI: `~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`, a log of changes to
//! a conversation: header lines, `$set` patches (skipped: on resume they restate the history
//! in another shape), and messages upserted by `id` (the last line of an id wins: a message
//! that calls tools is written again with its `toolCalls`).

use std::collections::HashMap;

use serde_json::Value;

use super::{text_of, Conversation, Entry};

pub(super) fn read(records: &[(usize, Value)], c: &mut Conversation) -> usize {
    let mut recognised = 0;
    let mut order: Vec<String> = Vec::new();
    let mut latest: HashMap<String, &Value> = HashMap::new();
    for (_, r) in records {
        if r.get("$set").is_some() {
            recognised += 1;
            continue;
        }
        if r.get("sessionId").is_some() && r.get("type").is_none() {
            recognised += 1;
            Conversation::set_once(&mut c.session, r["sessionId"].as_str());
            continue;
        }
        let (Some(id), Some(ty)) = (r["id"].as_str(), r["type"].as_str()) else {
            continue;
        };
        if !matches!(ty, "user" | "gemini" | "info" | "error" | "warning") {
            continue;
        }
        recognised += 1;
        if !latest.contains_key(id) {
            order.push(id.to_owned());
        }
        latest.insert(id.to_owned(), r);
    }
    for id in order {
        let m = latest[&id];
        match m["type"].as_str() {
            Some("user") => match &m["content"] {
                Value::String(s) => c.push(Entry::User(s.clone())),
                Value::Array(parts) => {
                    for p in parts {
                        // Tool results echoed as user turns are read from `toolCalls`.
                        if let Some(t) = p["text"].as_str() {
                            c.push(Entry::User(t.to_owned()));
                        }
                    }
                }
                _ => {}
            },
            Some("gemini") => {
                Conversation::set_once(&mut c.model, m["model"].as_str());
                c.push(Entry::Assistant(text_of(&m["content"])));
                for call in m["toolCalls"].as_array().into_iter().flatten() {
                    let id = call["id"].as_str().unwrap_or("").to_owned();
                    c.push(Entry::ToolCall {
                        id: id.clone(),
                        name: call["name"].as_str().unwrap_or("?").to_owned(),
                        input: call["args"].to_string(),
                    });
                    let output = call["result"]
                        .as_array()
                        .and_then(|r| r.first())
                        .map(|r| &r["functionResponse"]["response"])
                        .map(|resp| match resp.get("output") {
                            Some(o) => text_of(o),
                            None => text_of(&resp["error"]),
                        })
                        .unwrap_or_else(|| text_of(&call["resultDisplay"]));
                    c.push(Entry::ToolResult {
                        id,
                        output,
                        is_error: call["status"].as_str().is_some_and(|s| s != "success"),
                    });
                }
            }
            _ => {}
        }
    }
    recognised
}
