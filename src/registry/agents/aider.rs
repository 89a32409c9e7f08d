//! Aider.

use crate::registry::{Agent, Effect, File, Key, Kind};

/// `.aider.conf.yml`: its options as YAML keys (loaded from HOME, the repository's top and the
/// working folder; nothing asks before it is used).
const CONFIG: &[Key] = &[
    Key::new("lint-cmd", Effect::Shell),
    Key::new("test-cmd", Effect::Shell),
    Key::new("notifications-command", Effect::Shell),
    Key::new("editor", Effect::Shell),
    // Files it reads as read-only context (`CONVENTIONS.md` by convention), and a file of
    // /commands it runs when it starts (`/run` among them).
    Key::new("read", Effect::InstructionFiles),
    Key::new("load", Effect::InstructionFiles),
    Key::new("openai-api-base", Effect::Endpoint),
    Key::new("anthropic-api-base", Effect::Endpoint),
    Key::new("set-env", Effect::Env),
    Key::when("yes-always", Effect::Widens, &["true"]),
    Key::new("env-file", Effect::EnvFiles),
];

/// `.aider.model.settings.yml`: per-model settings, requests' base URL among them.
const MODEL_SETTINGS: &[Key] = &[Key::new("**.api_base", Effect::Endpoint)];

pub static AGENT: Agent = Agent {
    id: "aider",
    product: "Aider",
    files: &[
        File::new(".aider.conf.{yml,yaml}", Kind::YamlSettings).with_keys(CONFIG),
        File::new(".aider.model.settings.{yml,yaml}", Kind::YamlSettings)
            .with_keys(MODEL_SETTINGS),
        // Loaded into its environment; any `AIDER_*` option can be set there.
        File::new(".env", Kind::EnvFile),
    ],
    skill_dirs: &[],
    bare_skill_files: false,
    user_files: &["~/.aider.conf.yml", "~/.env"],
    cli: None,
    hooks: None,
    verified: "its documentation and source (Aider-AI/aider: docs/config/aider_conf.md, options.md, dotenv.md, adv-model-settings.md)",
};
