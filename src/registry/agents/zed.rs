//! Zed's agent panel.

use crate::registry::{Agent, Effect, File, Key, Kind};

/// `.zed/settings.json` (JSON with comments; read once the worktree is trusted).
const SETTINGS: &[Key] = &[
    // `{"command": "node", "args": [...], "env": {...}}`, an older
    // `{"command": {"path": ..., "args": ..., "env": ...}}`, or `{"url": ..., "headers": ...}`.
    Key::new("context_servers", Effect::McpServers),
    Key::new("context_servers.*.command.path", Effect::Argv),
    Key::new("context_servers.*.command.env", Effect::Env),
    // Language servers it starts.
    Key::new("lsp.*.binary.path", Effect::Argv),
    Key::new("lsp.*.binary.env", Effect::Env),
    Key::when("agent.always_allow_tool_actions", Effect::Widens, &["true"]),
];

pub static AGENT: Agent = Agent {
    id: "zed",
    product: "Zed",
    files: &[
        // The first of these at a worktree's top is its rules file.
        File::new(".rules", Kind::Instructions),
        File::new(".cursorrules", Kind::Instructions),
        File::new(".windsurfrules", Kind::Instructions),
        File::new(".clinerules", Kind::Instructions),
        File::new(".github/copilot-instructions.md", Kind::Instructions),
        File::new("{AGENT,AGENTS,CLAUDE,GEMINI}.md", Kind::Instructions),
        File::new(".zed/settings.json", Kind::JsonSettings).with_keys(SETTINGS),
    ],
    skill_dirs: &[],
    bare_skill_files: false,
    user_files: &["~/.config/zed/settings.json"],
    cli: None,
    hooks: None,
    verified: "its documentation (zed.dev/docs: AI rules, MCP, worktree trust)",
};
