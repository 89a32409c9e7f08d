//! Amp (Sourcegraph).

use crate::registry::{Agent, Effect, File, Import, Key, Kind};

/// Amp's keys in `.amp/settings.json` or `.vscode/settings.json`.
const SETTINGS: &[Key] = &[
    Key::new("amp.mcpServers", Effect::McpServers),
    // Commands it runs without asking.
    Key::new("amp.commands.allowlist", Effect::Widens),
    Key::when("amp.dangerouslyAllowAll", Effect::Widens, &["true"]),
];

pub static AGENT: Agent = Agent {
    id: "amp",
    product: "Amp",
    files: &[
        // `@doc/file.md` (globs allowed) brings files in.
        File::new("{AGENTS,AGENT,CLAUDE}.md", Kind::Instructions).importing(&[Import::At]),
        File::new(".agents/commands/**/*", Kind::Command),
        File::new(".amp/settings.{json,jsonc}", Kind::JsonSettings).with_keys(SETTINGS),
        File::new(".vscode/settings.json", Kind::JsonSettings).with_keys(SETTINGS),
        File::new(".amp/plugins/**/*.{js,ts,mjs}", Kind::Script),
    ],
    skill_dirs: &[".agents"],
    bare_skill_files: false,
    user_files: &["~/.config/amp/settings.json", "~/.config/amp/AGENTS.md"],
    cli: None,
    hooks: None,
    verified: "its documentation (ampcode.com/manual: AGENTS.md, mentions, settings, MCP) and third-party references for permissions, commands and plugins (marked in docs/agents.md)",
};
