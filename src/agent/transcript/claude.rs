//! Claude Code: `~/.claude/projects/<cwd slug>/<session>.jsonl`. `user` records hold the
//! prompt (a string), tool results (`tool_result` blocks) or an injected skill body
//! (`isMeta`); `assistant` records hold one Anthropic message each (`text`, `tool_use`).
//! Queue operations and `last-prompt` repeat the prompt and are skipped.

use serde_json::Value;

use super::{text_of, valid_name, Conversation, Entry};

pub(super) fn read(records: &[(usize, Value)], c: &mut Conversation) -> usize {
    let mut recognised = 0;
    for (_, r) in records {
        let ty = r["type"].as_str().unwrap_or("");
        match ty {
            "user" | "assistant" => {}
            "queue-operation" | "attachment" | "last-prompt" | "mode" | "summary" => {
                recognised += 1;
                continue;
            }
            _ => continue,
        }
        if r["isSidechain"] == true {
            // A subagent's own conversation: not the session the person had.
            recognised += 1;
            continue;
        }
        recognised += 1;
        Conversation::set_once(&mut c.session, r["sessionId"].as_str());
        Conversation::set_once(&mut c.cwd, r["cwd"].as_str());
        let content = &r["message"]["content"];
        if ty == "assistant" {
            Conversation::set_once(&mut c.model, r["message"]["model"].as_str());
            for block in content.as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("text") => c.push(Entry::Assistant(text_of(&block["text"]))),
                    Some("tool_use") => c.push(Entry::ToolCall {
                        id: block["id"].as_str().unwrap_or("").to_owned(),
                        name: block["name"].as_str().unwrap_or("?").to_owned(),
                        input: block["input"].to_string(),
                    }),
                    _ => {}
                }
            }
            if let Some(skill) = r["attributionSkill"].as_str().and_then(valid_name) {
                c.skills.insert(skill);
            }
            continue;
        }
        if r["isMeta"] == true {
            // The body of a skill the agent loaded: "Base directory for this skill: <dir>".
            let text = text_of(content);
            if let Some(dir) = text
                .strip_prefix("Base directory for this skill: ")
                .and_then(|rest| rest.lines().next())
            {
                if let Some(name) = dir
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .and_then(valid_name)
                {
                    c.skills.insert(name);
                }
            }
            continue;
        }
        match content {
            Value::String(prompt) => {
                if let Some(command) = slash_command(prompt) {
                    if let Some(name) = valid_name(&command.0) {
                        c.skills.insert(name);
                    }
                    c.push(Entry::User(format!("/{} {}", command.0, command.1)));
                } else {
                    c.push(Entry::User(prompt.clone()));
                }
            }
            Value::Array(blocks) => {
                for block in blocks {
                    match block["type"].as_str() {
                        Some("tool_result") => c.push(Entry::ToolResult {
                            id: block["tool_use_id"].as_str().unwrap_or("").to_owned(),
                            output: text_of(&block["content"]),
                            is_error: block["is_error"] == true,
                        }),
                        Some("text") => c.push(Entry::User(text_of(&block["text"]))),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    recognised
}

/// `(name, args)` of a prompt that is a slash command
/// (`<command-name>/deploy-notes</command-name>...<command-args>staging</command-args>`).
fn slash_command(prompt: &str) -> Option<(String, String)> {
    let between = |open: &str, close: &str| -> Option<String> {
        let start = prompt.find(open)? + open.len();
        let end = prompt[start..].find(close)? + start;
        Some(prompt[start..end].to_owned())
    };
    let name = between("<command-name>", "</command-name>")?;
    let args = between("<command-args>", "</command-args>").unwrap_or_default();
    Some((name.trim_start_matches('/').to_owned(), args))
}
