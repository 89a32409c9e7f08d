//! Qwen Code (`@qwen-code/qwen-code`), a fork of Gemini CLI.

use crate::registry::{Agent, Cli, Effect, File, Hooks, Import, Key, Kind};

/// Its own settings besides Gemini CLI's.
const SETTINGS: &[Key] = &[
    Key::new("modelProviders.**.baseUrl", Effect::Endpoint),
    Key::when("tools.approvalMode", Effect::Widens, &["yolo"]),
    Key::when("disableAllHooks", Effect::DisablesHooks, &["true"]),
    Key::new("general.outputStyle", Effect::OutputStyle),
];

pub static AGENT: Agent = Agent {
    id: "qwen",
    product: "Qwen Code",
    files: &[
        // `@path` imports, relative to the file.
        File::new("QWEN.md", Kind::Instructions).importing(&[Import::At]),
        File::new("QWEN.local.md", Kind::Instructions).importing(&[Import::At]),
        File::new("AGENTS.md", Kind::Instructions).importing(&[Import::At]),
        File::new(".qwen/rules/**/*.md", Kind::Instructions).importing(&[Import::At]),
        File::new(".qwen/output-styles/**/*.md", Kind::Instructions),
        // Opt-in team memory, loaded into sessions.
        File::new(".qwen/team-memory/**/*.md", Kind::Instructions),
        File::new(".qwen/settings.json", Kind::JsonSettings).with_keys(super::gemini::SETTINGS),
        File::new(".qwen/settings.json", Kind::JsonSettings).with_keys(SETTINGS),
        File::new(".qwen/commands/**/*.toml", Kind::TomlCommand).importing(&[Import::AtBrace]),
        File::new(".qwen/commands/**/*.md", Kind::Command),
        File::new(".qwen/agents/**/*.md", Kind::Command),
        File::new(".qwen/.env", Kind::EnvFile),
        File::new(".env", Kind::EnvFile),
    ],
    skill_dirs: &[".qwen", ".agents"],
    bare_skill_files: false,
    user_files: &[
        "~/.qwen/settings.json",
        "~/.qwen/QWEN.md",
        "~/.qwen/.env",
        "~/.qwen/skills",
    ],
    cli: Some(Cli {
        program: "qwen",
        npm: Some("@qwen-code/qwen-code"),
    }),
    hooks: Some(Hooks {
        project_dir: ".qwen",
        user_dir: ".qwen",
        file: "settings.json",
        events: &[
            ("PreToolUse", Some("*")),
            ("PostToolUse", Some("*")),
            // Headless Qwen ends with Stop; SessionEnd fires in its ACP mode.
            ("Stop", None),
            ("SessionEnd", None),
        ],
    }),
    verified: "the real CLI 0.15.10 offline: skills, QWEN.md, settings hooks, commands, `@file.md` imports in QWEN.md and AGENTS.md (five levels; test qwen_code_reads_the_imports_the_registry_names); its documentation and source (QwenLM/qwen-code: memory, rules, output styles, hooks, settings)",
};
