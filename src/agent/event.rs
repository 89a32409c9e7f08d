//! An agent's hook payload, parsed into one normalised [`Event`]: which agent, which session,
//! where it runs, where its transcript is, and what happened (a tool used, a turn ended, the
//! session ended). The payloads are the CLIs' own (`../shared/agents/README.md` has them all);
//! they are hostile data like any input: capped, typed, and a session id that could not be a
//! file name is refused.

use std::path::PathBuf;

use serde_json::Value;

use super::Agent;

/// The largest payload read (a tool's whole response can be in it).
pub const MAX_PAYLOAD_BYTES: usize = 16 << 20;

/// What an event means for git-skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    SessionStart,
    /// A tool call is about to run (Claude's, Qwen's and Codex's PreToolUse, Gemini's
    /// BeforeTool, Copilot's preToolUse): the pre-write guard may refuse it.
    BeforeTool,
    /// A tool call completed.
    ToolUsed,
    /// A turn ended; the session goes on (Claude's and Codex's Stop, Copilot's agentStop).
    TurnEnd,
    /// The session ended (Qwen's Stop in headless mode, where SessionEnd never fires).
    SessionEnd,
    /// Anything else (prompts, notifications, model calls): nothing to do.
    Other,
}

/// A tool call, as the payload gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUse {
    pub name: String,
    pub input: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub agent: Agent,
    /// The event's name as the agent calls it (`PostToolUse`, `AfterTool`, `postToolUse`).
    pub name: String,
    pub phase: Phase,
    pub session: String,
    pub cwd: Option<PathBuf>,
    pub transcript: Option<PathBuf>,
    pub tool: Option<ToolUse>,
}

#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    #[error("the hook payload has more than {} MiB", MAX_PAYLOAD_BYTES >> 20)]
    TooLarge,
    #[error("the hook payload is not a JSON object: {0}")]
    NotJson(String),
    #[error("the hook payload has no session id (session_id or sessionId)")]
    NoSession,
    #[error("the session id '{0}' is not one git-skill keeps state for (letters, digits, '.', '_', '-', not first '.' or '-', at most 128)")]
    BadSession(String),
    #[error(
        "the hook payload does not say which event it is (hook_event_name), and none was given"
    )]
    NoEvent,
    #[error("cannot tell which agent sent this payload; give --agent")]
    UnknownAgent,
    #[error("the hook payload's {0} is longer than {1} bytes")]
    TooLong(&'static str, usize),
}

/// `GIT_SKILL_*` variables the hook honours: the review's model and schedule, the pinned
/// clock, and the mark of a review's own agent. Any other (`GIT_SKILL_ROOTS`,
/// `GIT_SKILL_FAIL_ON`...) could come from the agent's settings `env` and narrow what the guard
/// looks at; it is ignored here (and CFG013 flags settings that set it).
const HONOURED: &[&str] = &[
    "GIT_SKILL_NOW",
    "GIT_SKILL_PURPOSE",
    "GIT_SKILL_PROVIDER",
    "GIT_SKILL_MODEL",
    "GIT_SKILL_BASE_URL",
    "GIT_SKILL_TIMEOUT",
    "GIT_SKILL_CONNECT_TIMEOUT",
    "GIT_SKILL_RETRIES",
];

/// Whether the agent hook drops the variable `name` before it looks at anything: git-skill's own
/// that it does not honour, and git's that point it at another repository or configuration.
pub fn steers_the_hook(name: &str) -> bool {
    if let Some(key) = name.strip_prefix("GIT_SKILL_") {
        return !HONOURED.contains(&name) && !key.starts_with("AUTO_SKILL_");
    }
    matches!(
        name,
        "GIT_DIR"
            | "GIT_WORK_TREE"
            | "GIT_INDEX_FILE"
            | "GIT_OBJECT_DIRECTORY"
            | "GIT_ALTERNATE_OBJECT_DIRECTORIES"
            | "GIT_COMMON_DIR"
            | "GIT_NAMESPACE"
            | "GIT_CEILING_DIRECTORIES"
            | "GIT_DISCOVERY_ACROSS_FILESYSTEM"
    ) || name.starts_with("GIT_CONFIG")
}

/// The event a payload names (`"hook_event_name": "PostToolUse"`), read from its bytes
/// without parsing them: a payload too large or broken may still say what it is.
fn named_event(bytes: &[u8]) -> Option<String> {
    let key = b"\"hook_event_name\"";
    let at = bytes.windows(key.len()).position(|w| w == key)? + key.len();
    let rest = String::from_utf8_lossy(&bytes[at..bytes.len().min(at + 128)]);
    let rest = rest
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    // Only a whole name counts: one cut short names no event.
    Some(rest.split_once('"')?.0.to_owned())
}

/// Whether a payload that could not be read may be a pre-tool event (then the call is refused
/// rather than let through unchecked): it names no other event, in its bytes or on the command
/// line, for `agent`.
pub fn may_be_before_tool(bytes: &[u8], agent: Option<Agent>, event: Option<&str>) -> bool {
    let named = named_event(bytes).or_else(|| event.map(str::to_owned));
    match (named, agent) {
        (Some(name), Some(agent)) => phase(agent, &name) == Phase::BeforeTool,
        _ => true,
    }
}

/// The longest path kept from a payload (Linux's PATH_MAX): a state file stays small.
const MAX_PATH_BYTES: usize = 4096;

/// The longest event name kept.
const MAX_EVENT_BYTES: usize = 64;

/// Parses a hook payload. `agent` and `event` come from the command line when the hook
/// configuration names them; otherwise they are read from the payload (and `env`, the
/// process environment).
pub fn parse(
    bytes: &[u8],
    agent: Option<Agent>,
    event: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Event, PayloadError> {
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(PayloadError::TooLarge);
    }
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| PayloadError::NotJson(e.to_string()))?;
    if !v.is_object() {
        return Err(PayloadError::NotJson("not an object".into()));
    }
    let text = |key: &str| v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let session = text("session_id")
        .or_else(|| text("sessionId"))
        .ok_or(PayloadError::NoSession)?;
    if session.len() > 128
        || !session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        || session.starts_with(['.', '-'])
    {
        return Err(PayloadError::BadSession(crate::report::one_line(
            session, 60,
        )));
    }
    let name = text("hook_event_name")
        .or(event)
        .ok_or(PayloadError::NoEvent)?
        .to_owned();
    if name.len() > MAX_EVENT_BYTES {
        return Err(PayloadError::TooLong("event name", MAX_EVENT_BYTES));
    }
    for key in ["cwd", "transcript_path", "transcriptPath"] {
        if text(key).is_some_and(|p| p.len() > MAX_PATH_BYTES) {
            return Err(PayloadError::TooLong(key, MAX_PATH_BYTES));
        }
    }
    let agent = match agent {
        Some(a) => a,
        None => detect(&v, env).ok_or(PayloadError::UnknownAgent)?,
    };
    let phase = phase(agent, &name);
    let path = |key: &str| text(key).map(PathBuf::from);
    let tool = matches!(phase, Phase::ToolUsed | Phase::BeforeTool).then(|| ToolUse {
        name: text("tool_name")
            .or_else(|| text("toolName"))
            .unwrap_or("")
            .to_owned(),
        input: v
            .get("tool_input")
            .or_else(|| v.get("toolArgs"))
            .cloned()
            .map(|i| match i {
                // Copilot gives its arguments as a JSON string in some versions.
                Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
                other => other,
            })
            .unwrap_or(Value::Null),
    });
    Ok(Event {
        agent,
        name,
        phase,
        session: session.to_owned(),
        cwd: path("cwd"),
        transcript: path("transcript_path").or_else(|| path("transcriptPath")),
        tool,
    })
}

/// What an event name means for `agent`.
pub fn phase(agent: Agent, name: &str) -> Phase {
    match (agent, name) {
        (_, "SessionStart" | "sessionStart") => Phase::SessionStart,
        (_, "PreToolUse" | "BeforeTool" | "preToolUse") => Phase::BeforeTool,
        (_, "PostToolUse" | "AfterTool" | "postToolUse") => Phase::ToolUsed,
        (_, "SessionEnd" | "sessionEnd") => Phase::SessionEnd,
        // Headless Qwen never sends SessionEnd: its Stop ends the session.
        (Agent::Qwen, "Stop") => Phase::SessionEnd,
        (_, "Stop" | "agentStop" | "AfterAgent") => Phase::TurnEnd,
        _ => Phase::Other,
    }
}

/// The agent, from the environment it sets for hooks and the payload's shape.
fn detect(v: &Value, env: &dyn Fn(&str) -> Option<String>) -> Option<Agent> {
    // Variables each CLI sets for its hooks (Qwen, Gemini and Copilot set CLAUDE_PROJECT_DIR
    // too, for hooks written for Claude: it says nothing).
    for (var, agent) in [
        ("CLAUDE_CODE_SESSION_ID", Agent::Claude),
        ("GEMINI_SESSION_ID", Agent::Gemini),
        ("QWEN_PROJECT_DIR", Agent::Qwen),
        ("COPILOT_HOOK_DIR", Agent::Copilot),
    ] {
        if env(var).is_some() {
            return Some(agent);
        }
    }
    if v.get("sessionId").is_some() {
        return Some(Agent::Copilot);
    }
    let transcript = v
        .get("transcript_path")
        .and_then(Value::as_str)
        .unwrap_or("");
    for (marker, agent) in [
        ("/.claude/", Agent::Claude),
        ("/.qwen/", Agent::Qwen),
        ("/.codex/", Agent::Codex),
        ("/sessions/", Agent::Codex),
        ("/.gemini/", Agent::Gemini),
        ("/.copilot/", Agent::Copilot),
        ("/session-state/", Agent::Copilot),
    ] {
        if transcript.contains(marker) {
            return Some(agent);
        }
    }
    if v.get("turn_id").is_some() {
        return Some(Agent::Codex);
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn fixture(rel: &str) -> Vec<u8> {
        std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/agent")
                .join(rel),
        )
        .unwrap()
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    /// Every recorded payload parses, is attributed to its agent without `--agent` (Copilot's
    /// native ones need their event name, which the hook configuration gives), and means what
    /// it should.
    #[test]
    fn every_recorded_payload_parses_to_its_meaning() {
        let cases: &[(&str, Option<&str>, Agent, Phase)] = &[
            (
                "claude/SessionStart.json",
                None,
                Agent::Claude,
                Phase::SessionStart,
            ),
            (
                "claude/PostToolUse.json",
                None,
                Agent::Claude,
                Phase::ToolUsed,
            ),
            (
                "claude/PreToolUse.json",
                None,
                Agent::Claude,
                Phase::BeforeTool,
            ),
            ("claude/Stop.json", None, Agent::Claude, Phase::TurnEnd),
            (
                "claude/SessionEnd.json",
                None,
                Agent::Claude,
                Phase::SessionEnd,
            ),
            ("qwen/PostToolUse.json", None, Agent::Qwen, Phase::ToolUsed),
            (
                "qwen/UserPromptSubmit.json",
                None,
                Agent::Qwen,
                Phase::Other,
            ),
            ("qwen/Stop.json", None, Agent::Qwen, Phase::SessionEnd),
            (
                "codex/PostToolUse.json",
                None,
                Agent::Codex,
                Phase::ToolUsed,
            ),
            ("codex/Stop.json", None, Agent::Codex, Phase::TurnEnd),
            (
                "codex/SessionEnd.json",
                None,
                Agent::Codex,
                Phase::SessionEnd,
            ),
            (
                "gemini/AfterTool.json",
                None,
                Agent::Gemini,
                Phase::ToolUsed,
            ),
            (
                "gemini/BeforeTool.json",
                None,
                Agent::Gemini,
                Phase::BeforeTool,
            ),
            (
                "gemini/SessionEnd.json",
                None,
                Agent::Gemini,
                Phase::SessionEnd,
            ),
            (
                "copilot/postToolUse.json",
                Some("postToolUse"),
                Agent::Copilot,
                Phase::ToolUsed,
            ),
            (
                "copilot/agentStop.json",
                Some("agentStop"),
                Agent::Copilot,
                Phase::TurnEnd,
            ),
            (
                "copilot/sessionEnd.json",
                Some("sessionEnd"),
                Agent::Copilot,
                Phase::SessionEnd,
            ),
        ];
        for (rel, event, agent, phase) in cases {
            let e = parse(&fixture(rel), None, *event, &no_env)
                .unwrap_or_else(|e| panic!("{rel}: {e}"));
            assert_eq!((e.agent, e.phase), (*agent, *phase), "{rel}");
            assert!(!e.session.is_empty() && e.cwd.is_some(), "{rel}");
            if matches!(e.phase, Phase::ToolUsed | Phase::BeforeTool) {
                let tool = e.tool.as_ref().unwrap();
                assert!(
                    !tool.name.is_empty() && tool.input.is_object(),
                    "{rel}: {tool:?}"
                );
            }
        }
        // Copilot's Claude-style payloads carry no mark of Copilot: the hook names the agent.
        let e = parse(
            &fixture("copilot/claude-style/PostToolUse.json"),
            Some(Agent::Copilot),
            None,
            &no_env,
        )
        .unwrap();
        assert_eq!(e.phase, Phase::ToolUsed);
        let end = parse(&fixture("claude/SessionEnd.json"), None, None, &no_env).unwrap();
        assert!(end
            .transcript
            .unwrap()
            .to_string_lossy()
            .ends_with(".jsonl"));
        let stop = parse(
            &fixture("copilot/agentStop.json"),
            None,
            Some("agentStop"),
            &no_env,
        )
        .unwrap();
        assert!(stop.transcript.unwrap().ends_with("events.jsonl"));
    }

    #[test]
    fn hostile_payloads_are_refused_with_a_reason() {
        let p = |s: &str| {
            parse(
                s.as_bytes(),
                Some(Agent::Claude),
                Some("PostToolUse"),
                &no_env,
            )
        };
        assert!(matches!(p("[1]"), Err(PayloadError::NotJson(_))));
        assert!(matches!(p("{"), Err(PayloadError::NotJson(_))));
        assert!(matches!(p("{}"), Err(PayloadError::NoSession)));
        assert!(matches!(
            p(r#"{"session_id": 7}"#),
            Err(PayloadError::NoSession)
        ));
        for bad in ["../../etc/x", "a/b", ".hidden", "x y", &"a".repeat(200)] {
            let body = serde_json::json!({"session_id": bad}).to_string();
            assert!(
                matches!(p(&body), Err(PayloadError::BadSession(_))),
                "{bad}"
            );
        }
        let huge = format!(
            r#"{{"session_id":"s","x":"{}"}}"#,
            "x".repeat(MAX_PAYLOAD_BYTES)
        );
        assert!(matches!(p(&huge), Err(PayloadError::TooLarge)));
        // Wrong types are tolerated as absent, never a panic.
        let e =
            p(r#"{"session_id":"s","cwd":5,"tool_name":["x"],"tool_input":"not json"}"#).unwrap();
        assert_eq!(e.cwd, None);
        assert_eq!(e.tool.unwrap().input, Value::String("not json".into()));
        assert!(matches!(
            parse(br#"{"session_id":"s"}"#, None, Some("PostToolUse"), &no_env),
            Err(PayloadError::UnknownAgent)
        ));
        assert!(matches!(
            parse(br#"{"session_id":"s"}"#, Some(Agent::Gemini), None, &no_env),
            Err(PayloadError::NoEvent)
        ));
    }

    #[test]
    fn what_steers_the_hook_is_dropped_and_the_review_settings_are_kept() {
        for name in [
            "GIT_SKILL_ROOTS",
            "GIT_SKILL_FAIL_ON",
            "GIT_DIR",
            "GIT_CONFIG_COUNT",
            "GIT_CONFIG_KEY_0",
            "GIT_WORK_TREE",
        ] {
            assert!(steers_the_hook(name), "{name}");
        }
        for name in [
            "GIT_SKILL_NOW",
            "GIT_SKILL_PROVIDER",
            "GIT_SKILL_AUTO_SKILL_THRESHOLD",
            "GIT_AUTHOR_NAME",
            "PATH",
            "HOME",
        ] {
            assert!(!steers_the_hook(name), "{name}");
        }
    }

    #[test]
    fn a_payload_it_cannot_read_may_be_a_pre_tool_event_unless_it_names_another() {
        let post = br#"{"session_id": "../x", "hook_event_name" :  "PostToolUse", "x": "\u00e9"}"#;
        assert_eq!(named_event(post).as_deref(), Some("PostToolUse"));
        assert!(!may_be_before_tool(post, Some(Agent::Claude), None));
        assert!(may_be_before_tool(b"not json", Some(Agent::Claude), None));
        assert!(may_be_before_tool(
            br#"{"hook_event_name": "PreToolUse""#,
            Some(Agent::Claude),
            None
        ));
        // Copilot names its event on the command line.
        assert!(!may_be_before_tool(
            b"",
            Some(Agent::Copilot),
            Some("postToolUse")
        ));
        assert!(may_be_before_tool(
            b"",
            Some(Agent::Copilot),
            Some("preToolUse")
        ));
        // Cut in the middle of a character, or of the name: no panic, no name.
        let mut cut = br#"{"hook_event_name": "Pre"#.to_vec();
        cut.push(0xe6);
        assert!(may_be_before_tool(&cut, Some(Agent::Claude), None));
        assert_eq!(named_event(br#"{"hook_event_name""#), None);
    }
}
