//! OpenCode (`opencode-ai`).

use crate::registry::{Agent, Effect, File, Import, Key, Kind};

/// `opencode.json` / `opencode.jsonc` (`{file:path}` anywhere puts a file's text there).
const CONFIG: &[Key] = &[
    // Paths, globs or URLs (fetched when it starts) of instruction files.
    Key::new("instructions", Effect::InstructionFiles),
    // `{"type": "local", "command": ["node", "x.js"], "environment": {...}}` or remote.
    Key::new("mcp", Effect::McpServers),
    Key::new("mcp.servers", Effect::McpServers),
    Key::new("provider.*.options.baseURL", Effect::Endpoint),
    Key::new("provider.*.options.endpoint", Effect::Endpoint),
    // npm packages (installed when it starts) or files, loaded as code.
    Key::new("plugin", Effect::Code),
    Key::new("formatter.*.command", Effect::Argv),
    Key::new("lsp.*.command", Effect::Argv),
    Key::new("formatter.*.environment", Effect::Env),
    Key::new("lsp.*.env", Effect::Env),
    Key::new("agent.*.prompt", Effect::Prose),
    Key::new("mode.*.prompt", Effect::Prose),
    Key::new("command.*.template", Effect::Prose),
    Key::when("permission", Effect::Widens, &["allow"]),
    Key::when("permission.bash", Effect::Widens, &["allow"]),
    Key::when("permission.bash.*", Effect::Widens, &["allow"]),
];

/// `.opencode/package.json`: installed with `bun install` when OpenCode starts, which runs the
/// package's own install scripts.
const PACKAGE: &[Key] = &[
    Key::new("scripts.preinstall", Effect::Shell),
    Key::new("scripts.install", Effect::Shell),
    Key::new("scripts.postinstall", Effect::Shell),
    Key::new("scripts.prepare", Effect::Shell),
];

pub static AGENT: Agent = Agent {
    id: "opencode",
    product: "OpenCode",
    files: &[
        File::new("AGENTS.md", Kind::Instructions),
        File::new("CLAUDE.md", Kind::Instructions),
        File::new("CONTEXT.md", Kind::Instructions),
        File::new("{AGENTS,CLAUDE,CONTEXT}.local.md", Kind::Instructions),
        File::new("opencode.{json,jsonc}", Kind::JsonSettings)
            .with_keys(CONFIG)
            .importing(&[Import::FileBrace]),
        File::new(".opencode/opencode.{json,jsonc}", Kind::JsonSettings)
            .with_keys(CONFIG)
            .importing(&[Import::FileBrace]),
        File::new(".opencode/package.json", Kind::JsonSettings).with_keys(PACKAGE),
        // Commands may run `` !`cmd` `` and attach `@file`.
        File::new(".opencode/{command,commands}/**/*.md", Kind::Command).importing(&[Import::At]),
        File::new(".opencode/{agent,agents,mode,modes}/**/*.md", Kind::Command),
        // Loaded as code when OpenCode starts.
        File::new(
            ".opencode/{plugin,plugins,tool,tools}/**/*.{js,ts,mjs,mts,cjs,cts}",
            Kind::Script,
        ),
    ],
    skill_dirs: &[".opencode", ".claude", ".agents"],
    bare_skill_files: true,
    user_files: &[
        "~/.config/opencode/opencode.json",
        "~/.config/opencode/AGENTS.md",
        "~/.config/opencode/skills",
    ],
    cli: None,
    hooks: None,
    verified: "its source (packages/opencode/src/session/instruction.ts: instruction files and `instructions`) and documentation (opencode.ai/docs: config, MCP servers, commands, agents, plugins, skills)",
};
