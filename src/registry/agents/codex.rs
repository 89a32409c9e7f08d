//! Codex CLI (`@openai/codex`).

use crate::registry::{Agent, Cli, Effect, File, Hooks, Key, Kind};

/// What `.codex/config.toml` keys do (a profile's keys too). Codex reads a project's config
/// only for a trusted project, and recent versions drop its `model_providers` there; both are
/// checked, for the versions that did not.
const CONFIG: &[Key] = &[
    // Run after each turn with a JSON argument.
    Key::new("notify", Effect::Argv),
    Key::new("mcp_servers", Effect::McpServers),
    Key::new("**.base_url", Effect::Endpoint),
    Key::new("openai_base_url", Effect::Endpoint),
    Key::new("project_doc_fallback_filenames", Effect::InstructionNames),
    Key::new("experimental_instructions_file", Effect::InstructionFiles),
    Key::new("model_instructions_file", Effect::InstructionFiles),
    Key::when("**.sandbox_mode", Effect::Widens, &["danger-full-access"]),
    Key::new("shell_environment_policy.set", Effect::Env),
    // Codex runs hooks only with this feature on (what `git skill init` turns on).
    Key::when("features.hooks", Effect::DisablesHooks, &["false"]),
    Key::when("features.codex_hooks", Effect::DisablesHooks, &["false"]),
];

/// A custom agent (`.codex/agents/<name>.toml`).
const AGENT_FILE: &[Key] = &[
    Key::new("developer_instructions", Effect::Prose),
    Key::new("mcp_servers", Effect::McpServers),
    Key::when("sandbox_mode", Effect::Widens, &["danger-full-access"]),
];

pub static AGENT: Agent = Agent {
    id: "codex",
    product: "Codex",
    files: &[
        // Per folder from the top down: the first of these, then the fallback names.
        File::new("AGENTS.override.md", Kind::Instructions),
        File::new("AGENTS.md", Kind::Instructions),
        File::new(".codex/config.toml", Kind::TomlSettings).with_keys(CONFIG),
        File::new(".codex/hooks.json", Kind::JsonSettings),
        File::new(".codex/agents/**/*.toml", Kind::TomlSettings).with_keys(AGENT_FILE),
        File::new(".codex/prompts/**/*.md", Kind::Command),
    ],
    skill_dirs: &[".agents", ".codex"],
    bare_skill_files: false,
    user_files: &[
        "~/.codex/config.toml",
        "~/.codex/hooks.json",
        "~/.codex/AGENTS.md",
        "~/.codex/prompts",
        "~/.agents/skills",
    ],
    cli: Some(Cli {
        program: "codex",
        npm: Some("@openai/codex"),
    }),
    hooks: Some(Hooks {
        project_dir: ".codex",
        user_dir: ".codex",
        file: "hooks.json",
        events: &[
            // Every tool: its shell is `Bash` to its hooks, with `apply_patch` inside it.
            ("PreToolUse", Some("*")),
            ("PostToolUse", Some("*")),
            ("SessionEnd", None),
        ],
    }),
    verified: "the real CLI 0.171.0 offline: skills, hooks.json, config.toml, `project_doc_fallback_filenames` (user config; a project's only once trusted; no imports; test codex_reads_the_instruction_files_the_registry_names); its source (codex-rs); AGENTS.override.md, custom agents, plugins and project-config limits from developers.openai.com/codex (agents-md, config, subagents, plugins) and openai/codex PR #20098",
};
