//! Kiro.

use crate::registry::{Agent, Effect, File, Import, Key, Kind};

/// `.kiro/hooks/*.kiro.hook` (the IDE's): `{"when": {...}, "then": {"type": "askAgent",
/// "prompt": ...}}` or `{"type": "runCommand", "command": ...}`.
const HOOK: &[Key] = &[
    Key::new("then.prompt", Effect::Prose),
    Key::new("then.command", Effect::Shell),
];

/// A custom agent (`.kiro/agents/*.json`): its prompt, servers and hooks.
const AGENT_FILE: &[Key] = &[
    Key::new("mcpServers", Effect::McpServers),
    Key::new("prompt", Effect::Prose),
];

pub static AGENT: Agent = Agent {
    id: "kiro",
    product: "Kiro",
    files: &[
        // `#[[file:path]]` brings a file of the project in.
        File::new(".kiro/steering/**/*.md", Kind::Instructions).importing(&[Import::KiroFile]),
        File::new(".kiro/specs/**/*.md", Kind::Instructions).importing(&[Import::KiroFile]),
        File::new(".kiro/agents/**/*.md", Kind::Command).importing(&[Import::KiroFile]),
        File::new(".kiro/agents/**/*.json", Kind::JsonSettings).with_keys(AGENT_FILE),
        File::new("AGENTS.md", Kind::Instructions),
        File::new(".kiro/settings/mcp.json", Kind::JsonSettings).with_keys(super::MCP_SERVERS),
        File::new(".kiro/hooks/*.kiro.hook", Kind::JsonSettings).with_keys(HOOK),
        // The CLI's hooks: `{"hooks": [{"action": {"type": "command", "command": ...}}]}`.
        File::new(".kiro/hooks/*.json", Kind::JsonSettings),
    ],
    skill_dirs: &[],
    bare_skill_files: false,
    user_files: &["~/.kiro/steering", "~/.kiro/settings/mcp.json"],
    cli: None,
    hooks: None,
    verified: "its documentation (kiro.dev/docs: steering, MCP configuration, hooks, CLI hooks); `#[[file:]]` and agent files from published examples (marked in docs/agents.md)",
};
