//! Gemini CLI (`@google/gemini-cli`).

use crate::registry::{Agent, Cli, Effect, File, Hooks, Import, Key, Kind};

/// What `.gemini/settings.json` keys do; Qwen Code, its fork, reads the same (and more).
/// (An untrusted folder's settings, `.env` and commands are not loaded; a trusted one's are.)
pub const SETTINGS: &[Key] = &[
    Key::new("mcpServers", Effect::McpServers),
    Key::new("context.fileName", Effect::InstructionNames),
    Key::new("contextFileName", Effect::InstructionNames),
    // Run to list tools, to call one of them, to start MCP servers.
    Key::new("tools.discoveryCommand", Effect::Shell),
    Key::new("tools.callCommand", Effect::Shell),
    Key::new("toolDiscoveryCommand", Effect::Shell),
    Key::new("toolCallCommand", Effect::Shell),
    Key::new("mcp.serverCommand", Effect::Shell),
    Key::when("tools.autoAccept", Effect::Widens, &["true"]),
    Key::when("autoAccept", Effect::Widens, &["true"]),
    // A tool allowed here runs without a confirmation: the whole shell, unrestricted.
    Key::when(
        "tools.allowed",
        Effect::Widens,
        &["run_shell_command", "ShellTool"],
    ),
    Key::when("general.defaultApprovalMode", Effect::Widens, &["yolo"]),
    Key::when("hooksConfig.enabled", Effect::DisablesHooks, &["false"]),
    Key::when("hooks.enabled", Effect::DisablesHooks, &["false"]),
    Key::new("hooksConfig.disabled", Effect::DisablesHooks),
];

pub static AGENT: Agent = Agent {
    id: "gemini",
    product: "Gemini CLI",
    files: &[
        // `@./file.md` (and `@file.md`) imports relative to the importing file, five levels,
        // not inside code; `context.fileName` adds names (GEMINI.md is still read).
        File::new("GEMINI.md", Kind::Instructions).importing(&[Import::At]),
        File::new(".gemini/settings.json", Kind::JsonSettings).with_keys(SETTINGS),
        // `!{...}` runs a shell command, `@{path}` puts a file (or a folder) into the prompt.
        File::new(".gemini/commands/**/*.toml", Kind::TomlCommand).importing(&[Import::AtBrace]),
        File::new(".gemini/agents/**/*.md", Kind::Command),
        // Loaded into its environment (the first `.gemini/.env` or `.env` from the working
        // folder up): `GOOGLE_GEMINI_BASE_URL` there takes the API key elsewhere,
        // `GEMINI_SYSTEM_MD` replaces its system prompt.
        File::new(".gemini/.env", Kind::EnvFile),
        File::new(".env", Kind::EnvFile),
        File::new(".gemini/system.md", Kind::Instructions),
    ],
    skill_dirs: &[".gemini", ".agents"],
    bare_skill_files: false,
    user_files: &[
        "~/.gemini/settings.json",
        "~/.gemini/GEMINI.md",
        "~/.gemini/.env",
        "~/.gemini/extensions",
        "~/.gemini/skills",
    ],
    cli: Some(Cli {
        program: "gemini",
        npm: Some("@google/gemini-cli"),
    }),
    hooks: Some(Hooks {
        project_dir: ".gemini",
        user_dir: ".gemini",
        file: "settings.json",
        events: &[
            ("BeforeTool", Some(".*")),
            ("AfterTool", Some(".*")),
            ("SessionEnd", None),
        ],
    }),
    verified: "the real CLI 0.61.0 offline: skills, GEMINI.md, settings hooks, `@./file.md` imports (five levels) and `context.fileName` (test gemini_cli_reads_the_imports_the_registry_names); its source (google-gemini/gemini-cli: custom commands, findEnvFile, trusted folders, configuration reference); extensions are user-level only",
};
