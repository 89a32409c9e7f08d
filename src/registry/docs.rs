//! The registry as people read it: the per-agent table of `docs/agents.md`, generated so that
//! the page and the data cannot drift (a test holds the page to it; `GIT_SKILL_BLESS=1`
//! rewrites it).

use super::{all, Effect, Import, Kind};

/// Where the generated table sits in `docs/agents.md`.
pub const BEGIN: &str = "<!-- registry table: generated from src/registry by `GIT_SKILL_BLESS=1 cargo test --lib registry_docs` -->";
pub const END: &str = "<!-- end of the registry table -->";

/// The table: one row per agent.
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str("| agent | what it loads or runs, read as | how those bring in more | settings keys read for their meaning | skill folders | hooks `init` installs | how the entry was checked |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for agent in all() {
        let files = group(agent.files.iter().map(|f| (f.kind, f.pattern)));
        let mut imports: Vec<&str> = Vec::new();
        for f in agent.files {
            for i in f.imports {
                let word = match i {
                    Import::At => "`@path` imports",
                    Import::AtBrace => "`@{path}` in command prompts",
                    Import::KiroFile => "`#[[file:path]]`",
                    Import::FileBrace => "`{file:path}` in values",
                };
                if !imports.contains(&word) {
                    imports.push(word);
                }
            }
        }
        if agent.files.iter().any(|f| f.kind.is_settings()) {
            imports.push("commands' scripts, MCP servers' code");
        }
        let mut keys: Vec<String> = Vec::new();
        for f in agent.files {
            for k in f.keys {
                let when = if k.when.is_empty() {
                    String::new()
                } else {
                    format!(" = {}", k.when.join(" / "))
                };
                let line = format!("`{}`{when}: {}", k.path, effect(k.effect));
                if !keys.contains(&line) {
                    keys.push(line);
                }
            }
        }
        let dirs: Vec<String> = agent
            .skill_dirs
            .iter()
            .map(|d| format!("`{d}/skills`"))
            .chain(
                agent
                    .bare_skill_files
                    .then(|| "bare `.md` at a root".to_owned()),
            )
            .collect();
        let hooks = match &agent.hooks {
            Some(h) => format!(
                "`{}/{}`: {}",
                h.project_dir,
                h.file,
                h.events
                    .iter()
                    .map(|(e, _)| *e)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "none".to_owned(),
        };
        let cli = agent
            .cli
            .and_then(|c| c.npm)
            .map(|n| format!(" (`{n}`)"))
            .unwrap_or_default();
        out.push_str(&format!(
            "| {}{cli} | {} | {} | {} | {} | {hooks} | {} |\n",
            agent.product,
            files,
            or_none(&imports.join(", ")),
            or_none(&keys.join("; ")),
            or_none(&dirs.join(", ")),
            agent.verified.replace('|', "\\|"),
        ));
    }
    out
}

fn or_none(s: &str) -> &str {
    if s.is_empty() {
        "none"
    } else {
        s
    }
}

/// Patterns grouped by what they are read as: `instructions: \`CLAUDE.md\`, ...`.
fn group<'a>(files: impl Iterator<Item = (Kind, &'a str)>) -> String {
    let mut groups: Vec<(Kind, Vec<&str>)> = Vec::new();
    for (kind, pattern) in files {
        match groups.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, list)) => {
                if !list.contains(&pattern) {
                    list.push(pattern)
                }
            }
            None => groups.push((kind, vec![pattern])),
        }
    }
    groups
        .iter()
        .map(|(kind, list)| {
            let name = match kind {
                Kind::TomlCommand => "commands (TOML)",
                Kind::JsonSettings => "settings (JSON)",
                Kind::TomlSettings => "settings (TOML)",
                Kind::YamlSettings => "settings (YAML)",
                Kind::EnvFile => "environment",
                Kind::Script => "code",
                Kind::Command => "commands",
                other => other.as_str(),
            };
            let items: Vec<String> = list
                .iter()
                .map(|p| format!("`{}`", p.replace('|', "\\|")))
                .collect();
            format!("{name}: {}", items.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn effect(e: Effect) -> &'static str {
    match e {
        Effect::Shell => "runs (shell)",
        Effect::PowerShell => "runs (PowerShell)",
        Effect::Argv => "runs (program and arguments)",
        Effect::Prose => "read by the model",
        Effect::Env => "environment",
        Effect::EnvFiles => "env files",
        Effect::Endpoint => "model endpoint",
        Effect::InstructionFiles => "instruction files",
        Effect::InstructionNames => "instruction file names",
        Effect::OutputStyle => "output style",
        Effect::McpServers | Effect::McpServer => "MCP servers",
        Effect::Widens => "widens permissions",
        Effect::DisablesHooks => "turns hooks off",
        Effect::Marketplaces => "adds marketplaces",
        Effect::Plugins => "enables plugins",
        Effect::Code => "loads code",
        Effect::PluginPaths(_) => "plugin's own paths",
        Effect::MarketplacePlugins => "plugins (folders)",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn registry_docs_table_is_the_registry() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agents.md");
        let page = std::fs::read_to_string(&path).unwrap();
        let start = page
            .find(super::BEGIN)
            .expect("docs/agents.md has the table's markers");
        let end = page
            .find(super::END)
            .expect("docs/agents.md has the table's end marker");
        let want = format!("{}\n\n{}\n", super::BEGIN, super::markdown());
        if page[start..end] != want {
            if std::env::var_os("GIT_SKILL_BLESS").is_some() {
                let new = format!("{}{want}{}", &page[..start], &page[end..]);
                std::fs::write(&path, new).unwrap();
                return;
            }
            panic!("docs/agents.md's table is not the registry's: GIT_SKILL_BLESS=1 cargo test --lib registry_docs");
        }
    }
}
