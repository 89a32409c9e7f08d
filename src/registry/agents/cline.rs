//! Cline.

use crate::registry::{Agent, File, Kind};

pub static AGENT: Agent = Agent {
    id: "cline",
    product: "Cline",
    files: &[
        // A file, or a folder of rule files.
        File::new(".clinerules", Kind::Instructions),
        File::new(".clinerules/**/*.{md,txt}", Kind::Instructions),
        File::new(".cline/rules/**/*.{md,txt}", Kind::Instructions),
        File::new("{.clinerules,.cline}/workflows/**/*.md", Kind::Command),
        File::new(".cline/agents/**/*.md", Kind::Command),
        // Each hook is an executable named after its event (`PreToolUse`, `PreToolUse.ps1`),
        // run with the event's JSON on stdin; plugins are code it loads.
        File::new("{.clinerules,.cline}/hooks/*", Kind::Script),
        File::new(".cline/plugins/**/*.{js,ts,mjs,cjs}", Kind::Script),
        File::new("AGENTS.md", Kind::Instructions),
        File::new(".cursorrules", Kind::Instructions),
        File::new(".windsurfrules", Kind::Instructions),
        File::new(".cursor/rules/**/*.{mdc,md}", Kind::Instructions),
    ],
    skill_dirs: &[".cline", ".clinerules", ".claude"],
    bare_skill_files: false,
    user_files: &[
        "~/Documents/Cline/Rules",
        "~/Documents/Cline/Hooks",
        "~/.cline/data/settings/cline_mcp_settings.json",
    ],
    cli: None,
    hooks: None,
    verified: "its source (cline/cline: core/storage/disk.ts, core/hooks/utils.ts, shared/storage/paths.ts) and documentation (docs.cline.bot: rules, workflows, skills, hooks); its MCP configuration is user-level only",
};
