//! What the keys of agents' settings files do. A key is named by its path of object keys
//! (array items add no part): `permissions.defaultMode`, `mcpServers.*` (`*` one key, `**` any
//! number of keys). Each has an [`Effect`], and [`Key::when`] limits it to some values
//! (`bypassPermissions`).

/// What a settings value does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// A string a shell runs (a hook command, a helper).
    Shell,
    /// A string PowerShell runs.
    PowerShell,
    /// A program and its arguments (an array, or a string then `args`).
    Argv,
    /// Text the model reads (a prompt, a description, a mode's instructions).
    Prose,
    /// An object of environment variables the agent, its hooks or a server runs with (or a list
    /// of `NAME=value`).
    Env,
    /// Env files the agent loads into its environment.
    EnvFiles,
    /// A URL the agent sends its model requests to, with its API key.
    Endpoint,
    /// Paths or globs of files read as instructions (relative to the settings' project).
    InstructionFiles,
    /// File names read as instructions wherever the agent looks for its own (Codex's
    /// `project_doc_fallback_filenames`, Gemini CLI's `context.fileName`).
    InstructionNames,
    /// The name of an output style (`.claude/output-styles/<name>.md`).
    OutputStyle,
    /// An object of MCP servers: each local one's command, arguments and environment, each
    /// remote one's URL and the credentials sent to it.
    McpServers,
    /// One MCP server (a file that holds one, `.continue/mcpServers/*.yaml` items).
    McpServer,
    /// Gives the agent more rights than it asks a person for (the values in `when`).
    Widens,
    /// Turns the agent's hooks off (git-skill's guard among them).
    DisablesHooks,
    /// Adds plugin marketplaces.
    Marketplaces,
    /// Enables plugins (`name@marketplace`).
    Plugins,
    /// Paths or packages loaded as code into the agent (OpenCode's `plugin`).
    Code,
    /// A plugin's own files at paths of its choosing (a manifest's `commands`, `hooks`...),
    /// read as the [`super::Kind`] given.
    PluginPaths(super::Kind),
    /// Plugins listed by a marketplace: each entry's `source` folder is a plugin.
    MarketplacePlugins,
}

/// One key of a settings file and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// Its path of object keys (`permissions.defaultMode`, `**.command`).
    pub path: &'static str,
    pub effect: Effect,
    /// The values (ASCII case ignored; `true`/`false` for booleans; any item of an array)
    /// that have the effect; empty: every value.
    pub when: &'static [&'static str],
}

impl Key {
    pub const fn new(path: &'static str, effect: Effect) -> Key {
        Key {
            path,
            effect,
            when: &[],
        }
    }

    pub const fn when(path: &'static str, effect: Effect, when: &'static [&'static str]) -> Key {
        Key { path, effect, when }
    }

    /// Whether the key at `path` (its object keys, outermost first) is this one. A key that
    /// holds dots (VS Code's flat `"amp.dangerouslyAllowAll"`) is read as its parts.
    pub fn matches(&self, path: &[&str]) -> bool {
        let pattern: Vec<&str> = self.path.split('.').collect();
        if path.iter().any(|p| p.contains('.')) {
            let parts: Vec<&str> = path.iter().flat_map(|p| p.split('.')).collect();
            return match_keys(&pattern, &parts);
        }
        match_keys(&pattern, path)
    }

    /// Whether `value` (a scalar, as text) has the effect.
    pub fn applies_to(&self, value: &str) -> bool {
        // YAML 1.1, as PyYAML reads it (Aider): `yes`, `on` and `y` are true.
        let lower = value.to_ascii_lowercase();
        let value = match lower.as_str() {
            "yes" | "on" | "y" => "true",
            "no" | "off" | "n" => "false",
            _ => value,
        };
        self.when.is_empty() || self.when.iter().any(|w| w.eq_ignore_ascii_case(value))
    }
}

fn match_keys(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| match_keys(rest, &path[skip..])),
        Some((p, rest)) => match path.split_first() {
            Some((first, more)) => (*p == "*" || p == first) && match_keys(rest, more),
            None => false,
        },
    }
}

/// Keys every settings file is read for, whoever reads it: anything named like a command runs,
/// anything named like a prompt is read by the model. Generous on purpose: a key an agent
/// adds tomorrow under the same name is checked today.
pub const GENERIC: &[Key] = &[
    Key::new("**.command", Effect::Shell),
    Key::new("**.bash", Effect::Shell),
    Key::new("**.powershell", Effect::PowerShell),
    Key::new("**.prompt", Effect::Prose),
    Key::new("**.description", Effect::Prose),
    // An MCP server's helper that prints the headers it sends.
    Key::new("**.headersHelper", Effect::Shell),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths() {
        let k = Key::new("permissions.defaultMode", Effect::Widens);
        assert!(k.matches(&["permissions", "defaultMode"]));
        assert!(!k.matches(&["x", "permissions", "defaultMode"]));
        assert!(!k.matches(&["permissions"]));
        let k = Key::new("**.command", Effect::Shell);
        assert!(k.matches(&["command"]));
        assert!(k.matches(&["hooks", "Stop", "hooks", "command"]));
        assert!(!k.matches(&["hooks", "commands"]));
        let k = Key::new("mcpServers.*", Effect::McpServer);
        assert!(k.matches(&["mcpServers", "fs"]));
        assert!(!k.matches(&["mcpServers"]));
        let w = Key::when("a", Effect::Widens, &["bypassPermissions"]);
        assert!(w.applies_to("BYPASSPERMISSIONS"));
        assert!(!w.applies_to("default"));
        assert!(Key::new("a", Effect::Env).applies_to("anything"));
        let yes = Key::when("yes-always", Effect::Widens, &["true"]);
        assert!(yes.applies_to("yes") && yes.applies_to("On") && !yes.applies_to("no"));
        let amp = Key::when("amp.dangerouslyAllowAll", Effect::Widens, &["true"]);
        assert!(amp.matches(&["amp.dangerouslyAllowAll"]));
        assert!(amp.matches(&["amp", "dangerouslyAllowAll"]));
    }
}
