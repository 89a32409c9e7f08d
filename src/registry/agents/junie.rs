//! JetBrains Junie.

use crate::registry::{Agent, File, Kind};

pub static AGENT: Agent = Agent {
    id: "junie",
    product: "Junie",
    files: &[
        File::new(".junie/guidelines.md", Kind::Instructions),
        File::new(".junie/guidelines/**/*.md", Kind::Instructions),
        File::new("AGENTS.md", Kind::Instructions),
        File::new(".junie/mcp/mcp.json", Kind::JsonSettings).with_keys(super::MCP_SERVERS),
        File::new(".junie/{commands,agents}/**/*.md", Kind::Command),
    ],
    skill_dirs: &[],
    bare_skill_files: false,
    user_files: &["~/.junie/mcp/mcp.json"],
    cli: None,
    hooks: None,
    verified: "its documentation (jetbrains.com/help/junie: project settings, MCP); `.junie/mcp/mcp.json`, commands, agents and skills from third-party references (marked in docs/agents.md)",
};
