//! GitHub Copilot CLI (`@github/copilot`).

use crate::registry::{Agent, Cli, Effect, File, Hooks, Import, Key, Kind};

/// `.github/copilot/settings.json`: the repository's configuration (marketplaces, plugins,
/// hooks).
const SETTINGS: &[Key] = &[
    Key::new("extraKnownMarketplaces", Effect::Marketplaces),
    Key::new("enabledPlugins", Effect::Plugins),
    Key::when("disableAllHooks", Effect::DisablesHooks, &["true"]),
];

pub static AGENT: Agent = Agent {
    id: "copilot",
    product: "Copilot CLI",
    files: &[
        // `@path` imports in these (eight hops from AGENTS.md, relative to the importing file),
        // not in the scoped `.instructions.md` files or GEMINI.md, which it reads as they are.
        File::new(".github/copilot-instructions.md", Kind::Instructions).importing(&[Import::At]),
        File::new(".github/instructions/**/*.instructions.md", Kind::Instructions),
        File::new("AGENTS.md", Kind::Instructions).importing(&[Import::At]),
        File::new("CLAUDE.md", Kind::Instructions).importing(&[Import::At]),
        File::new("GEMINI.md", Kind::Instructions),
        File::new(".github/prompts/**/*.prompt.md", Kind::Command),
        File::new(".github/agents/**/*.md", Kind::Command),
        File::new(".claude/agents/**/*.md", Kind::Command),
        File::new(".claude/commands/**/*.md", Kind::Command),
        File::new(".github/hooks/*.json", Kind::JsonSettings),
        File::new(".github/copilot/{settings,settings.local,config}.json", Kind::JsonSettings)
            .with_keys(SETTINGS),
        // It reads Claude Code's project settings as its own (hooks, marketplaces).
        File::new(".claude/{settings,settings.local}.json", Kind::JsonSettings).with_keys(SETTINGS),
        File::new(".mcp.json", Kind::JsonSettings).with_keys(super::MCP_SERVERS),
        File::new(".github/mcp.json", Kind::JsonSettings).with_keys(super::MCP_SERVERS),
        // Language servers it starts.
        File::new(".github/lsp.json", Kind::JsonSettings),
    ],
    skill_dirs: &[".github", ".claude", ".agents"],
    bare_skill_files: false,
    user_files: &[
        "~/.copilot/config.json",
        "~/.copilot/mcp-config.json",
        "~/.copilot/hooks",
        "~/.copilot/skills",
    ],
    cli: Some(Cli {
        program: "copilot",
        npm: Some("@github/copilot"),
    }),
    hooks: Some(Hooks {
        project_dir: ".github",
        user_dir: ".copilot",
        file: "hooks/git-skill.json",
        events: &[
            ("preToolUse", None),
            ("postToolUse", None),
            ("agentStop", None),
            ("sessionEnd", None),
        ],
    }),
    verified: "the real CLI 1.0.102 offline: skills, hooks in .github/hooks and ~/.copilot/hooks, instructions, `@path` imports in AGENTS.md, CLAUDE.md and copilot-instructions.md (eight hops; none in GEMINI.md or .instructions.md; test copilot_cli_reads_the_imports_the_registry_names); repository settings, plugins, marketplaces, MCP and LSP files from docs.github.com (Copilot CLI reference, plugin reference, hooks reference) and github/copilot-cli's changelog",
};
