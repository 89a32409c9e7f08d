//! The readers against transcripts recorded from the real CLIs (`tests/fixtures/transcripts`),
//! and against malformed, hostile and huge input.

use std::path::{Path, PathBuf};

use super::*;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(rel)
}

fn users(c: &Conversation) -> Vec<&str> {
    c.entries
        .iter()
        .filter_map(|e| match e {
            Entry::User(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn last_agent_text(c: &Conversation) -> &str {
    c.entries
        .iter()
        .rev()
        .find_map(|e| match e {
            Entry::Assistant(t) => Some(t.as_str()),
            _ => None,
        })
        .unwrap()
}

const PROMPT: &str =
    "Deploy the staging service using the deploy-notes skill, then tell me what you did.";
const CORRECTION: &str = "No, use --dry-run first next time.";

#[test]
fn every_agent_is_detected_and_read_the_same_way() {
    for agent in Agent::ALL {
        let dir = agent.as_str();
        let one = read(&fixture(&format!("{dir}/session.jsonl")), None).unwrap();
        assert_eq!(one.agent, agent, "{dir} detected");
        assert_eq!(
            users(&one),
            [PROMPT],
            "{dir}: the prompt once, nothing synthetic"
        );
        assert!(
            last_agent_text(&one).starts_with("I followed the deploy-notes skill"),
            "{dir}: {:?}",
            last_agent_text(&one)
        );
        assert_eq!(one.tool_calls(), 2, "{dir}: read SKILL.md, cat README.md");
        let results = one
            .entries
            .iter()
            .filter(|e| matches!(e, Entry::ToolResult { .. }))
            .count();
        assert_eq!(results, 2, "{dir}: each call has its result");
        assert!(
            one.skills.contains("deploy-notes"),
            "{dir}: {:?}",
            one.skills
        );
        assert!(one.session.is_some(), "{dir}: a session id");
        assert!(one.model.is_some(), "{dir}: a model");
        // The call ids tie each result to its call.
        let ids: Vec<&str> = one
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::ToolCall { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        for e in &one.entries {
            if let Entry::ToolResult { id, .. } = e {
                assert!(ids.contains(&id.as_str()), "{dir}: result {id} has a call");
            }
        }

        let two = read(&fixture(&format!("{dir}/two-turns.jsonl")), None).unwrap();
        assert_eq!(users(&two), [PROMPT, CORRECTION], "{dir}: both turns");
        assert!(last_agent_text(&two).starts_with("Understood"), "{dir}");
        assert_eq!(two.session, one.session, "{dir}: one session");
        // Read as the wrong agent: a clear error.
        let other = Agent::ALL.into_iter().find(|a| *a != agent).unwrap();
        if let Ok(c) = read(&fixture(&format!("{dir}/session.jsonl")), Some(other)) {
            assert!(
                users(&c).is_empty() || c.tool_calls() == 0,
                "{dir} read as {other} found a conversation"
            );
        }
    }
}

#[test]
fn skills_loaded_by_each_agents_own_way_are_seen() {
    for rel in [
        "claude/skill-tool.jsonl",
        "claude/slash-command.jsonl",
        "qwen/skill-tool.jsonl",
        "codex/skill-mention.jsonl",
        "gemini/skill-tool.jsonl",
        "copilot/skill-tool.jsonl",
    ] {
        let c = read(&fixture(rel), None).unwrap();
        assert!(c.skills.contains("deploy-notes"), "{rel}: {:?}", c.skills);
        assert_eq!(c.skills.len(), 1, "{rel}: {:?}", c.skills);
    }
}

#[test]
fn malformed_input_is_a_clear_error() {
    let p = Path::new("t.jsonl");
    let err = |bytes: &[u8]| parse(p, bytes, None).unwrap_err().to_string();
    assert!(err(b"").contains("is empty"));
    assert!(err(b"\n\n").contains("is empty"));
    assert!(err(b"{\"type\":\"user\"}\nnot json\n").contains("t.jsonl:2: not JSON"));
    assert!(err(b"[1,2]\n").contains("t.jsonl:1: not a JSON object"));
    assert!(err(b"{\"a\":1}\n").contains("not a transcript of any agent"));
    assert!(
        err(b"{\"type\":\"user\",\"message\":{\"content\":\"x\"}}\n\xff\n")
            .contains("t.jsonl:2: not UTF-8")
    );
    // Cut in the middle of its last line, as a live session file can be.
    let whole = std::fs::read(fixture("claude/session.jsonl")).unwrap();
    let cut = &whole[..whole.len() - 40];
    let e = err(cut);
    assert!(e.contains("ends in the middle of line 11"), "{e}");
    // Deeply nested JSON is refused by the parser's depth limit, not a stack overflow.
    let deep = format!("{}{}\n", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    assert!(err(deep.as_bytes()).contains("t.jsonl:1"));
    // The wrong agent named by hand.
    let e = parse(p, &whole, Some(Agent::Codex))
        .unwrap_err()
        .to_string();
    assert!(e.contains("is not a Codex transcript"), "{e}");
}

#[test]
fn huge_entries_are_capped_and_rendering_keeps_the_newest() {
    let big = "x".repeat(1 << 20);
    let mut lines = String::new();
    for i in 0..200 {
        lines.push_str(
            &serde_json::json!({"type":"user","sessionId":"s","message":{"role":"user","content":format!("prompt {i}")}})
                .to_string(),
        );
        lines.push('\n');
        lines.push_str(
            &serde_json::json!({"type":"assistant","sessionId":"s","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":format!("t{i}"),"name":"Bash","input":{"command":"cat big"}}]}})
                .to_string(),
        );
        lines.push('\n');
        lines.push_str(
            &serde_json::json!({"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":format!("t{i}"),"content":if i % 50 == 0 { big.clone() } else { "ok".into() }}]}})
                .to_string(),
        );
        lines.push('\n');
    }
    let c = parse(Path::new("big.jsonl"), lines.as_bytes(), None).unwrap();
    assert_eq!(c.tool_calls(), 200);
    for e in &c.entries {
        if let Entry::ToolResult { output, .. } = e {
            assert!(output.len() <= MAX_ENTRY_CHARS + 40);
        }
    }
    let text = render(&c, 20_000);
    assert!(text.len() < 24_000, "{}", text.len());
    assert!(text.contains("prompt 199"), "the newest turn is kept");
    assert!(text.contains("earlier entries of the session are left out"));
    assert!(!text.contains("prompt 0\n"), "the oldest is left out");
}

#[test]
fn secrets_in_a_session_are_masked_when_rendered() {
    let key = concat!("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    let line = serde_json::json!({"type":"user","sessionId":"s","message":{"role":"user","content":format!("my token is {key}")}});
    let c = parse(Path::new("s.jsonl"), format!("{line}\n").as_bytes(), None).unwrap();
    let text = render(&c, 10_000);
    assert!(!text.contains(key), "{text}");
}

#[test]
fn a_skill_counts_as_loaded_only_when_its_call_worked() {
    let lines = [
        serde_json::json!({"type":"assistant","sessionId":"s","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/.claude/skills/failed/SKILL.md"}}]}}),
        serde_json::json!({"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"File does not exist.","is_error":true}]}}),
        serde_json::json!({"type":"assistant","sessionId":"s","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/p/.claude/skills/worked/SKILL.md"}}]}}),
        serde_json::json!({"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"---\nname: worked\n---"}]}}),
        serde_json::json!({"type":"assistant","sessionId":"s","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/p/.claude/skills/unanswered/SKILL.md"}}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let c = parse(Path::new("s.jsonl"), text.as_bytes(), None).unwrap();
    assert_eq!(c.skills.iter().collect::<Vec<_>>(), ["worked"]);
}

#[test]
fn a_transcript_over_the_limit_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.jsonl");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(MAX_TRANSCRIPT_BYTES + 1).unwrap();
    let e = read(&path, None).unwrap_err().to_string();
    assert!(e.contains("more than 64 MiB"), "{e}");
    let e = read(dir.path(), None).unwrap_err().to_string();
    assert!(e.contains("cannot read the transcript"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_link_or_a_fifo_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(fixture("claude/session.jsonl"), &link).unwrap();
    let e = read(&link, None).unwrap_err().to_string();
    assert!(e.contains("symbolic link"), "{e}");
    let fifo = dir.path().join("fifo.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = read(&fifo, None).unwrap_err().to_string();
    assert!(e.contains("not a regular file (a FIFO)"), "{e}");
    assert!(read(&fixture("claude/session.jsonl"), None).is_ok());
}
