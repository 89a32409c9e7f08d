//! Windsurf (Cascade).

use crate::registry::{Agent, Effect, File, Key, Kind};

/// `.windsurf/hooks.json`: `{"hooks": {"pre_run_command": [{"command": ...}]}}`.
const HOOKS: &[Key] = &[Key::new("hooks.*.command", Effect::Shell)];

pub static AGENT: Agent = Agent {
    id: "windsurf",
    product: "Windsurf",
    files: &[
        File::new(".windsurf/rules/**/*.md", Kind::Instructions),
        File::new(".windsurfrules", Kind::Instructions),
        File::new("AGENTS.md", Kind::Instructions),
        File::new(".windsurf/workflows/**/*.md", Kind::Command),
        File::new(".windsurf/hooks.json", Kind::JsonSettings).with_keys(HOOKS),
    ],
    skill_dirs: &[".windsurf"],
    bare_skill_files: false,
    user_files: &[
        "~/.codeium/windsurf/memories/global_rules.md",
        "~/.codeium/windsurf/mcp_config.json",
        "~/.codeium/windsurf/hooks.json",
    ],
    cli: None,
    hooks: None,
    verified: "its documentation (docs.windsurf.com: memories and rules, AGENTS.md, workflows, Cascade hooks); its MCP configuration is user-level only",
};
