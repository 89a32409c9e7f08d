//! Cursor (the editor's agent and `cursor-agent`).

use crate::registry::{Agent, Effect, File, Import, Key, Kind};

/// `.cursor/hooks.json`: `{"version": 1, "hooks": {"beforeShellExecution": [{"command": ...}]}}`,
/// commands relative to the file's folder.
const HOOKS: &[Key] = &[Key::new("hooks.*.command", Effect::Shell)];

/// `.cursor/environment.json` (cloud agents): commands run in the agent's machine.
const ENVIRONMENT: &[Key] = &[
    Key::new("install", Effect::Shell),
    Key::new("start", Effect::Shell),
    Key::new("terminals.command", Effect::Shell),
];

/// `.cursor/cli.json`: the CLI's permissions.
const CLI: &[Key] = &[Key::when(
    "permissions.allow",
    Effect::Widens,
    &["Shell(*)", "Shell(**)", "*"],
)];

pub static AGENT: Agent = Agent {
    id: "cursor",
    product: "Cursor",
    files: &[
        // A rule's `@file` attaches that file when the rule applies.
        File::new(".cursor/rules/**/*.{mdc,md}", Kind::Instructions).importing(&[Import::At]),
        File::new(".cursorrules", Kind::Instructions),
        File::new("AGENTS.md", Kind::Instructions),
        File::new(".cursor/commands/**/*.md", Kind::Command),
        File::new(".cursor/agents/**/*.md", Kind::Command),
        File::new(".cursor/hooks.json", Kind::JsonSettings).with_keys(HOOKS),
        File::new(".cursor/mcp.json", Kind::JsonSettings).with_keys(super::MCP_SERVERS),
        File::new(".cursor/environment.json", Kind::JsonSettings).with_keys(ENVIRONMENT),
        File::new(".cursor/cli.json", Kind::JsonSettings).with_keys(CLI),
    ],
    skill_dirs: &[".cursor", ".agents", ".claude", ".codex"],
    bare_skill_files: false,
    user_files: &[
        "~/.cursor/mcp.json",
        "~/.cursor/hooks.json",
        "~/.cursor/cli-config.json",
    ],
    cli: None,
    hooks: None,
    verified: "its documentation (cursor.com/docs: rules, skills, cloud agent environment) and third-party references for hooks.json, commands and cli.json (marked in docs/agents.md)",
};
