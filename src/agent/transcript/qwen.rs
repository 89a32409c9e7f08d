//! Qwen Code: `~/.qwen/projects/<cwd slug>/chats/<session>.jsonl`. Records carry Gemini-style
//! parts: `user` (`text`), `assistant` (`text`, `functionCall`), `tool_result`
//! (`functionResponse`). `system` records (telemetry) repeat calls and text and are skipped.

use serde_json::Value;

use super::{text_of, Conversation, Entry};

pub(super) fn read(records: &[(usize, Value)], c: &mut Conversation) -> usize {
    let mut recognised = 0;
    for (_, r) in records {
        let ty = r["type"].as_str().unwrap_or("");
        if !matches!(ty, "user" | "assistant" | "tool_result" | "system")
            || r.get("message").is_none() && ty != "system"
        {
            continue;
        }
        recognised += 1;
        Conversation::set_once(&mut c.session, r["sessionId"].as_str());
        Conversation::set_once(&mut c.cwd, r["cwd"].as_str());
        let parts = r["message"]["parts"].as_array();
        match ty {
            "user" => {
                for p in parts.into_iter().flatten() {
                    if let Some(t) = p["text"].as_str() {
                        c.push(Entry::User(t.to_owned()));
                    }
                }
            }
            "assistant" => {
                Conversation::set_once(&mut c.model, r["model"].as_str());
                for p in parts.into_iter().flatten() {
                    if p["thought"] == true {
                        continue;
                    }
                    if let Some(t) = p["text"].as_str() {
                        c.push(Entry::Assistant(t.to_owned()));
                    } else if let Some(call) = p.get("functionCall") {
                        c.push(Entry::ToolCall {
                            id: call["id"].as_str().unwrap_or("").to_owned(),
                            name: call["name"].as_str().unwrap_or("?").to_owned(),
                            input: call["args"].to_string(),
                        });
                    }
                }
            }
            "tool_result" => {
                for p in parts.into_iter().flatten() {
                    if let Some(resp) = p.get("functionResponse") {
                        let output = &resp["response"];
                        let text = match output.get("output") {
                            Some(o) => text_of(o),
                            None => text_of(&output["error"]),
                        };
                        c.push(Entry::ToolResult {
                            id: resp["id"].as_str().unwrap_or("").to_owned(),
                            output: text,
                            is_error: output.get("error").is_some()
                                || r["toolCallResult"]["status"]
                                    .as_str()
                                    .is_some_and(|s| s != "success"),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    recognised
}
