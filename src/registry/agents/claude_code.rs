//! Claude Code (`@anthropic-ai/claude-code`).

use crate::registry::{Agent, Cli, Effect, File, Hooks, Import, Key, Kind};

/// What `.claude/settings.json` and `.claude/settings.local.json` keys do.
const SETTINGS: &[Key] = &[
    Key::new("env", Effect::Env),
    Key::when(
        "permissions.defaultMode",
        Effect::Widens,
        &["bypassPermissions"],
    ),
    // A rule that allows every shell command, or every tool.
    Key::when(
        "permissions.allow",
        Effect::Widens,
        &["Bash", "Bash(*)", "Bash(:*)", "Bash(**)", "*"],
    ),
    Key::when("enableAllProjectMcpServers", Effect::Widens, &["true"]),
    Key::when("disableAllHooks", Effect::DisablesHooks, &["true"]),
    // Helpers Claude Code runs: the first prints the API key it uses.
    Key::new("apiKeyHelper", Effect::Shell),
    Key::new("awsAuthRefresh", Effect::Shell),
    Key::new("awsCredentialExport", Effect::Shell),
    Key::new("otelHeadersHelper", Effect::Shell),
    Key::new("outputStyle", Effect::OutputStyle),
    Key::new("extraKnownMarketplaces", Effect::Marketplaces),
    Key::new("additionalMarketplaces", Effect::Marketplaces),
    Key::new("enabledPlugins", Effect::Plugins),
    Key::new("mcpServers", Effect::McpServers),
];

/// A plugin's manifest: its own paths for commands, agents, hooks and servers (strings or
/// arrays, relative to the plugin), or the hooks and servers inline.
pub const PLUGIN_MANIFEST: &[Key] = &[
    Key::new("commands", Effect::PluginPaths(Kind::Command)),
    Key::new("agents", Effect::PluginPaths(Kind::Command)),
    Key::new("outputStyles", Effect::PluginPaths(Kind::Instructions)),
    Key::new("hooks", Effect::PluginPaths(Kind::JsonSettings)),
    Key::new("mcpServers", Effect::PluginPaths(Kind::JsonSettings)),
    Key::new("lspServers", Effect::PluginPaths(Kind::JsonSettings)),
    Key::new("mcpServers", Effect::McpServers),
];

/// A marketplace: its plugins, each a folder (`source`); an entry with `strict: false` is the
/// plugin's manifest itself.
pub const MARKETPLACE: &[Key] = &[
    Key::new("plugins", Effect::MarketplacePlugins),
    Key::new("plugins.mcpServers", Effect::McpServers),
];

/// The folders that hold a plugin's manifest (`<dir>/plugin.json`) or a marketplace
/// (`<dir>/marketplace.json`): Claude Code's, which Codex, Copilot CLI and Cursor read in their
/// own folders too.
pub const PLUGIN_DIRS: &[&str] = &[
    ".claude-plugin",
    ".codex-plugin",
    ".cursor-plugin",
    ".github/plugin",
    ".plugin",
];

/// The files of a plugin, relative to its folder (the one holding `.claude-plugin/`), besides
/// its `skills/` (a skill root) and `.mcp.json` (found anywhere).
pub const PLUGIN_LAYOUT: &[File] = &[
    File::new("commands/**/*.md", Kind::Command).importing(&[Import::At]),
    File::new("agents/**/*.md", Kind::Command),
    File::new("output-styles/**/*.md", Kind::Instructions),
    File::new("hooks/hooks.json", Kind::JsonSettings),
    // Language servers the plugin starts.
    File::new(".lsp.json", Kind::JsonSettings),
];

pub static AGENT: Agent = Agent {
    id: "claude-code",
    product: "Claude Code",
    files: &[
        // Read from the folder it starts in and each above; below it once a file there is
        // read (a committed `node_modules/pkg/CLAUDE.md` too). `@path` imports relative to the
        // importing file, four hops deep (2.1.197), never from code.
        File::new("CLAUDE.md", Kind::Instructions).importing(&[Import::At]),
        File::new("CLAUDE.local.md", Kind::Instructions).importing(&[Import::At]),
        File::new(".claude/rules/**/*.md", Kind::Instructions).importing(&[Import::At]),
        File::new(".claude/output-styles/**/*.md", Kind::Instructions),
        File::new(".claude/commands/**/*.md", Kind::Command).importing(&[Import::At]),
        // Subagents; their frontmatter may hold hooks and MCP servers of their own.
        File::new(".claude/agents/**/*.md", Kind::Command),
        File::new(".claude/workflows/**/*.md", Kind::Command),
        File::new(".claude/workflows/**/*.{js,mjs,cjs,ts}", Kind::Script),
        File::new(".claude/settings.json", Kind::JsonSettings).with_keys(SETTINGS),
        File::new(".claude/settings.local.json", Kind::JsonSettings).with_keys(SETTINGS),
        File::new(".mcp.json", Kind::JsonSettings).with_keys(super::MCP_SERVERS),
        File::new(
            "{.claude-plugin,.codex-plugin,.cursor-plugin,.plugin}/plugin.json",
            Kind::JsonSettings,
        )
        .with_keys(PLUGIN_MANIFEST),
        File::new(".github/plugin/plugin.json", Kind::JsonSettings).with_keys(PLUGIN_MANIFEST),
        File::new(
            "{.claude-plugin,.codex-plugin,.cursor-plugin,.plugin}/marketplace.json",
            Kind::JsonSettings,
        )
        .with_keys(MARKETPLACE),
        File::new(".github/plugin/marketplace.json", Kind::JsonSettings).with_keys(MARKETPLACE),
        File::new(".agents/plugins/marketplace.json", Kind::JsonSettings).with_keys(MARKETPLACE),
    ],
    skill_dirs: &[".claude"],
    bare_skill_files: false,
    user_files: &[
        "~/.claude/settings.json",
        "~/.claude/CLAUDE.md",
        "~/.claude.json",
        "~/.claude/skills",
    ],
    cli: Some(Cli {
        program: "claude",
        npm: Some("@anthropic-ai/claude-code"),
    }),
    hooks: Some(Hooks {
        project_dir: ".claude",
        user_dir: ".claude",
        file: "settings.json",
        events: &[
            // PreToolUse on every tool (NotebookEdit, MCP tools that write): the watch and the
            // pre-write guard decide what they look at.
            ("PreToolUse", Some("*")),
            ("PostToolUse", Some("*")),
            ("SessionEnd", None),
        ],
    }),
    verified: "the real CLI 2.1.197 offline: skills, CLAUDE.md, settings hooks, .mcp.json, and `@path` imports (four hops, relative to the importing file, not in code; test claude_code_reads_the_imports_the_registry_names); rules, output styles, workflows, plugins and marketplaces from its documentation (code.claude.com/docs: memory, settings, plugins reference) and CHANGELOG.md",
};
