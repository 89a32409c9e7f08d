//! Continue (the IDE extensions and the `cn` CLI).

use crate::registry::{Agent, Effect, File, Key, Kind};

/// `.continue/mcpServers/x.yaml`: `mcpServers: [{name, command, args, env}]`, or a JSON file in
/// the common shape.
const MCP: &[Key] = &[Key::new("mcpServers", Effect::McpServers)];

/// `.continue/models/*.yaml`: where each model's requests go.
const MODELS: &[Key] = &[Key::new("models.apiBase", Effect::Endpoint)];

pub static AGENT: Agent = Agent {
    id: "continue",
    product: "Continue",
    files: &[
        File::new("{AGENTS,AGENT,CLAUDE}.md", Kind::Instructions),
        File::new(".continue/rules/**/*.md", Kind::Instructions),
        File::new(".continuerules", Kind::Instructions),
        File::new(".continue/prompts/**/*.{prompt,md}", Kind::Command),
        File::new(".continue/mcpServers/*.{yaml,yml}", Kind::YamlSettings).with_keys(MCP),
        File::new(".continue/mcpServers/*.json", Kind::JsonSettings).with_keys(MCP),
        File::new(".continue/{agents,assistants}/*.{yaml,yml}", Kind::YamlSettings)
            .with_keys(MCP),
        File::new(".continue/models/*.{yaml,yml}", Kind::YamlSettings).with_keys(MODELS),
        // The CLI runs hooks in Claude Code's format from these (and from `.claude/`).
        File::new(".continue/{settings,settings.local}.json", Kind::JsonSettings),
        File::new(".continuerc.json", Kind::JsonSettings),
    ],
    skill_dirs: &[".claude"],
    bare_skill_files: false,
    user_files: &["~/.continue/config.yaml", "~/.continue/rules", "~/.continue/settings.json"],
    cli: None,
    hooks: None,
    verified: "its source (continuedev/continue: loadMarkdownRules.ts, workspaceBlocks.ts, loadJsonMcpConfigs.ts, loadRcConfigs.ts, cli hooks/hookConfig.ts)",
};
