//! Roo Code.

use crate::registry::{Agent, Effect, File, Key, Kind};

/// `.roomodes` (YAML or JSON): custom modes, whose role and instructions the model reads.
const MODES: &[Key] = &[
    Key::new("customModes.roleDefinition", Effect::Prose),
    Key::new("customModes.customInstructions", Effect::Prose),
    Key::new("customModes.whenToUse", Effect::Prose),
];

pub static AGENT: Agent = Agent {
    id: "roo",
    product: "Roo Code",
    files: &[
        File::new(".roo/rules/**/*", Kind::Instructions),
        File::new(".roo/rules-*/**/*", Kind::Instructions),
        File::new(".roorules", Kind::Instructions),
        File::new(".roorules-*", Kind::Instructions),
        File::new(".clinerules", Kind::Instructions),
        File::new(".clinerules-*", Kind::Instructions),
        File::new("{AGENTS,AGENT,AGENTS.local}.md", Kind::Instructions),
        File::new(".roo/commands/**/*.md", Kind::Command),
        File::new(".roomodes", Kind::YamlSettings).with_keys(MODES),
        File::new(".roo/mcp.json", Kind::JsonSettings).with_keys(super::MCP_SERVERS),
    ],
    skill_dirs: &[".roo", ".agents"],
    bare_skill_files: false,
    user_files: &["~/.roo/rules", "~/.roo/commands"],
    cli: None,
    hooks: None,
    verified: "its source (RooCodeInc/Roo-Code: custom-instructions.ts, CustomModesManager.ts, commands.ts, SkillsManager.ts, McpHub.ts)",
};
