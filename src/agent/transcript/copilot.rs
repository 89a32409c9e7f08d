//! Copilot CLI: `$COPILOT_HOME/session-state/<session>/events.jsonl`, one event per line
//! (`session.start`, `user.message`, `assistant.message` with its `toolRequests`,
//! `tool.execution_complete`, `skill.invoked`...). Tool calls are read from the assistant's
//! requests; `tool.execution_start` repeats them.

use serde_json::Value;

use super::{text_of, valid_name, Conversation, Entry};

pub(super) fn read(records: &[(usize, Value)], c: &mut Conversation) -> usize {
    let mut recognised = 0;
    for (_, r) in records {
        let Some(ty) = r["type"].as_str() else {
            continue;
        };
        if !ty.contains('.') {
            continue;
        }
        recognised += 1;
        let d = &r["data"];
        match ty {
            "session.start" | "session.resume" => {
                Conversation::set_once(&mut c.session, d["sessionId"].as_str());
                Conversation::set_once(&mut c.cwd, d["context"]["cwd"].as_str());
                Conversation::set_once(&mut c.model, d["selectedModel"].as_str());
            }
            "user.message" => c.push(Entry::User(text_of(&d["content"]))),
            "assistant.message" => {
                Conversation::set_once(&mut c.model, d["model"].as_str());
                c.push(Entry::Assistant(text_of(&d["content"])));
                for t in d["toolRequests"].as_array().into_iter().flatten() {
                    c.push(Entry::ToolCall {
                        id: t["toolCallId"].as_str().unwrap_or("").to_owned(),
                        name: t["name"].as_str().unwrap_or("?").to_owned(),
                        input: t["arguments"].to_string(),
                    });
                }
            }
            "tool.execution_complete" => c.push(Entry::ToolResult {
                id: d["toolCallId"].as_str().unwrap_or("").to_owned(),
                output: text_of(&d["result"]["content"]),
                is_error: d["success"] == false,
            }),
            "skill.invoked" => {
                if let Some(name) = d["name"].as_str().and_then(valid_name) {
                    c.skills.insert(name);
                }
            }
            _ => {}
        }
    }
    recognised
}
