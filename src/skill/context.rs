//! The agent context beside skills: files an agent CLI loads into every session (instructions),
//! runs on request (slash commands, subagents) or runs without the model deciding (hook
//! commands, MCP servers started as commands). A line in any of them reaches the agent with the
//! rights a skill has, so SkillGuard checks them as it checks skills, each file as what it is.
//!
//! | file (at any depth, as agents are started in any folder) | kind | agents |
//! |---|---|---|
//! | `CLAUDE.md`, `CLAUDE.local.md` | instructions | Claude Code |
//! | `AGENTS.md`, `AGENTS.override.md` | instructions | Codex, Copilot CLI, Cursor, OpenCode, Qwen Code |
//! | `GEMINI.md` | instructions | Gemini CLI |
//! | `QWEN.md` | instructions | Qwen Code |
//! | `.github/copilot-instructions.md`, `.github/instructions/**/*.instructions.md` | instructions | Copilot CLI |
//! | `.cursor/rules/**/*.mdc`, `.cursorrules` | instructions | Cursor |
//! | `.claude/commands/**/*.md`, `.claude/agents/**/*.md` | command | Claude Code |
//! | `.codex/prompts/**/*.md` | command | Codex |
//! | `.qwen/commands/**/*.md` | command | Qwen Code |
//! | `.github/prompts/**/*.prompt.md`, `.github/agents/**/*.md` | command | Copilot CLI |
//! | `.gemini/commands/**/*.toml`, `.qwen/commands/**/*.toml` | command (TOML) | Gemini CLI, Qwen Code |
//! | `.claude/settings.json`, `.claude/settings.local.json` | settings | Claude Code |
//! | `.gemini/settings.json` | settings | Gemini CLI |
//! | `.qwen/settings.json` | settings | Qwen Code |
//! | `.codex/hooks.json` | settings | Codex |
//! | `.github/hooks/*.json` | settings | Copilot CLI |
//! | `.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json` | settings (MCP servers) | Claude Code, Cursor, Copilot |
//! | `.codex/config.toml` | settings (TOML) | Codex |
//!
//! Files inside a skill root belong to their skill and are scanned with it.

/// What a context file is, which decides how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Markdown loaded into every session: read as a SKILL.md is.
    Instructions,
    /// A slash command or subagent in Markdown: read as a SKILL.md is.
    Command,
    /// A slash command in TOML (`prompt`, `description`): its prompt read as Markdown, the
    /// shell it runs (`!{...}`) as shell.
    TomlCommand,
    /// JSON settings with hook commands and MCP servers: each command read as shell, each
    /// prompt and description as Markdown.
    JsonSettings,
    /// Codex's `config.toml`: its MCP servers' commands and `notify` read as shell.
    TomlSettings,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Instructions => "instructions",
            Kind::Command => "command",
            Kind::TomlCommand => "command",
            Kind::JsonSettings | Kind::TomlSettings => "settings",
        }
    }
}

/// One context file's kind and the agents that read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    pub kind: Kind,
    pub agents: &'static [&'static str],
}

const CLAUDE: &[&str] = &["Claude Code"];
const CODEX: &[&str] = &["Codex"];
const GEMINI: &[&str] = &["Gemini CLI"];
const QWEN: &[&str] = &["Qwen Code"];
const COPILOT: &[&str] = &["Copilot CLI"];
const CURSOR: &[&str] = &["Cursor"];
const AGENTS_MD: &[&str] = &["Codex", "Copilot CLI", "Cursor", "OpenCode", "Qwen Code"];
const GEMINI_QWEN: &[&str] = &["Gemini CLI", "Qwen Code"];
const MCP: &[&str] = &["Claude Code", "Cursor", "Copilot CLI"];
/// Plugins: Claude Code, and Codex, which reads the same layout.
const PLUGIN: &[&str] = &["Claude Code", "Codex"];

/// Folders no agent context is looked for in: dependencies and git's own.
const SKIPPED: &[&str] = &[".git", "node_modules"];

/// A cheap test before [`classify`], for every path of an index: a context file has a
/// component that starts with a dot, or is named like an instruction file.
pub fn may_be(path: &[u8]) -> bool {
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    matches!(name.first(), Some(b'C' | b'A' | b'G' | b'Q'))
        || path.first() == Some(&b'.')
        || path.windows(2).any(|w| w == b"/.")
        || plugin_part(path)
}

/// A path that could be a plugin's command, agent or hooks file (`<plugin>/commands/x.md`).
fn plugin_part(path: &[u8]) -> bool {
    let has = |needle: &[u8]| path.windows(needle.len()).any(|w| w == needle);
    has(b"commands/") || has(b"agents/") || path.ends_with(b"hooks/hooks.json")
}

/// The plugins among `paths`: each folder holding a `.claude-plugin/plugin.json`.
pub fn plugins<'a>(paths: impl IntoIterator<Item = &'a str>) -> std::collections::BTreeSet<String> {
    paths
        .into_iter()
        .filter_map(super::loader::plugin_root)
        .map(|root| {
            root.path
                .strip_suffix(super::loader::SKILLS)
                .unwrap_or("")
                .trim_end_matches('/')
                .to_owned()
        })
        .collect()
}

/// [`classify`], and a plugin's own commands, agents and hooks: `<plugin>/commands/**/*.md`,
/// `<plugin>/agents/**/*.md` and `<plugin>/hooks/hooks.json` for each plugin folder of
/// `plugins` (see [`plugins`]).
pub fn classify_in(path: &str, plugins: &std::collections::BTreeSet<String>) -> Option<Context> {
    if let Some(c) = classify(path) {
        return Some(c);
    }
    if plugins.is_empty() || !plugin_part(path.as_bytes()) {
        return None;
    }
    // The innermost plugin folder the path lies in (`""`: a plugin at the top).
    let mut dir = path;
    let rest = loop {
        match dir.rsplit_once('/') {
            Some((up, _)) => {
                dir = up;
                if plugins.contains(dir) {
                    break &path[dir.len() + 1..];
                }
            }
            None if plugins.contains("") => break path,
            None => return None,
        }
    };
    let kind = match rest.split('/').next() {
        Some("commands" | "agents") if rest.to_ascii_lowercase().ends_with(".md") => Kind::Command,
        _ if rest == "hooks/hooks.json" => Kind::JsonSettings,
        _ => return None,
    };
    Some(Context {
        kind,
        agents: PLUGIN,
    })
}

/// What the file at `path` (relative to the top, `/`-separated) is to agents, if anything.
/// Agent folders match without case (`.Claude/settings.json` is Claude Code's on macOS and
/// Windows); file names as the agents spell them.
pub fn classify(path: &str) -> Option<Context> {
    let parts: Vec<&str> = path.split('/').collect();
    let (name, dirs) = parts.split_last()?;
    if dirs.iter().any(|d| SKIPPED.contains(d)) || name.is_empty() || in_skill_root(dirs) {
        return None;
    }
    let context = |kind, agents| Some(Context { kind, agents });
    match *name {
        "CLAUDE.md" | "CLAUDE.local.md" => return context(Kind::Instructions, CLAUDE),
        "AGENTS.md" | "AGENTS.override.md" => return context(Kind::Instructions, AGENTS_MD),
        "GEMINI.md" => return context(Kind::Instructions, GEMINI),
        "QWEN.md" => return context(Kind::Instructions, QWEN),
        ".cursorrules" => return context(Kind::Instructions, CURSOR),
        ".mcp.json" => return context(Kind::JsonSettings, CLAUDE),
        // A plugin's manifest may declare its hooks and MCP servers inline, and so may each
        // plugin entry of a marketplace (Claude Code's `strict: false` entries).
        "plugin.json" | "marketplace.json" if dirs.last() == Some(&".claude-plugin") => {
            return context(Kind::JsonSettings, PLUGIN)
        }
        _ => {}
    }
    // The innermost agent folder the path lies in, and what follows it.
    let at = dirs.iter().rposition(|d| {
        super::loader::agent_dir(d).is_some() || d.eq_ignore_ascii_case(".vscode")
    })?;
    let agent = dirs[at].to_ascii_lowercase();
    let inner: Vec<&str> = dirs[at + 1..].to_vec();
    let first = inner.first().map(|d| d.to_ascii_lowercase());
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    let md = ext.as_deref() == Some("md");
    match (agent.as_str(), first.as_deref(), inner.len()) {
        // Skills are their own.
        (_, Some("skills"), _) => None,
        (".claude", None, _) if matches!(*name, "settings.json" | "settings.local.json") => {
            context(Kind::JsonSettings, CLAUDE)
        }
        (".claude", Some("commands" | "agents"), _) if md => context(Kind::Command, CLAUDE),
        (".gemini", None, _) if *name == "settings.json" => context(Kind::JsonSettings, GEMINI),
        (".qwen", None, _) if *name == "settings.json" => context(Kind::JsonSettings, QWEN),
        (".gemini" | ".qwen", Some("commands"), _) if ext.as_deref() == Some("toml") => {
            context(Kind::TomlCommand, GEMINI_QWEN)
        }
        (".qwen", Some("commands"), _) if md => context(Kind::Command, QWEN),
        (".codex", None, _) if *name == "hooks.json" => context(Kind::JsonSettings, CODEX),
        (".codex", None, _) if *name == "config.toml" => context(Kind::TomlSettings, CODEX),
        (".codex", Some("prompts"), _) if md => context(Kind::Command, CODEX),
        (".github", None, _) if *name == "copilot-instructions.md" => {
            context(Kind::Instructions, COPILOT)
        }
        (".github", Some("instructions"), _) if name.ends_with(".instructions.md") => {
            context(Kind::Instructions, COPILOT)
        }
        (".github", Some("prompts"), _) if name.ends_with(".prompt.md") => {
            context(Kind::Command, COPILOT)
        }
        (".github", Some("agents"), _) if md => context(Kind::Command, COPILOT),
        (".github", Some("hooks"), 1) if ext.as_deref() == Some("json") => {
            context(Kind::JsonSettings, COPILOT)
        }
        (".cursor", Some("rules"), _) if matches!(ext.as_deref(), Some("mdc" | "md")) => {
            context(Kind::Instructions, CURSOR)
        }
        (".cursor" | ".vscode", None, _) if *name == "mcp.json" => context(Kind::JsonSettings, MCP),
        _ => None,
    }
}

/// Files agents could read as context in the folders `dirs` of the work tree at `top` (relative
/// to it, `""` the top): the fixed names in each folder, and in each agent folder there its
/// settings and what its command, prompt, rule and hook folders hold (walked to
/// [`MAX_WALK_DEPTH`] levels, at most [`MAX_FOUND`] files, links not followed). With the
/// index's paths (each folder the index knows), this finds what an agent wrote and nobody
/// staged yet.
pub fn on_disk<'a>(top: &std::path::Path, dirs: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(top.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let rel = join(dir, &name);
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if (kind.is_file() || kind.is_symlink()) && classify(&rel).is_some() {
                out.push(rel);
            } else if kind.is_dir()
                && (super::loader::agent_dir(&name).is_some()
                    || name.eq_ignore_ascii_case(".vscode"))
            {
                walk(top, &rel, 0, &mut out);
            }
            if out.len() >= MAX_FOUND {
                return out;
            }
        }
    }
    out
}

/// Levels walked below an agent folder.
pub const MAX_WALK_DEPTH: usize = 6;
/// Context files found on disk, at most.
pub const MAX_FOUND: usize = 10_000;

fn walk(top: &std::path::Path, rel: &str, depth: usize, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(top.join(rel)) else {
        return;
    };
    for entry in entries.flatten() {
        if out.len() >= MAX_FOUND {
            return;
        }
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let path = join(rel, &name);
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_file() || kind.is_symlink() {
            if classify(&path).is_some() {
                out.push(path);
            }
        } else if kind.is_dir()
            && depth < MAX_WALK_DEPTH
            && !name.eq_ignore_ascii_case(super::loader::SKILLS)
            && !SKIPPED.contains(&name.as_str())
        {
            walk(top, &path, depth + 1, out);
        }
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// Whether folders `dirs` lie in a skill root (an agent folder's `skills/`, or `skills/` and
/// `agents/skills/` at the top): a file there belongs to its skill.
fn in_skill_root(dirs: &[&str]) -> bool {
    matches!(dirs, ["skills", _, ..] | ["agents", "skills", _, ..])
        || dirs.windows(2).any(|w| {
            super::loader::agent_dir(w[0]).is_some()
                && w[1].eq_ignore_ascii_case(super::loader::SKILLS)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(path: &str) -> Option<Kind> {
        classify(path).map(|c| c.kind)
    }

    #[test]
    fn each_agents_files_at_any_depth() {
        for (path, want) in [
            ("CLAUDE.md", Kind::Instructions),
            ("packages/api/AGENTS.md", Kind::Instructions),
            ("GEMINI.md", Kind::Instructions),
            ("docs/QWEN.md", Kind::Instructions),
            (".github/copilot-instructions.md", Kind::Instructions),
            (
                ".github/instructions/rust.instructions.md",
                Kind::Instructions,
            ),
            (".cursor/rules/style.mdc", Kind::Instructions),
            (".cursorrules", Kind::Instructions),
            (".claude/commands/deploy.md", Kind::Command),
            (".claude/commands/ops/release.md", Kind::Command),
            (".claude/agents/reviewer.md", Kind::Command),
            ("app/.Claude/commands/x.md", Kind::Command),
            (".codex/prompts/fix.md", Kind::Command),
            (".github/prompts/plan.prompt.md", Kind::Command),
            (".gemini/commands/git/commit.toml", Kind::TomlCommand),
            (".qwen/commands/t.toml", Kind::TomlCommand),
            (".claude/settings.json", Kind::JsonSettings),
            ("web/.claude/settings.local.json", Kind::JsonSettings),
            (".gemini/settings.json", Kind::JsonSettings),
            (".qwen/settings.json", Kind::JsonSettings),
            (".codex/hooks.json", Kind::JsonSettings),
            (".github/hooks/guard.json", Kind::JsonSettings),
            (".mcp.json", Kind::JsonSettings),
            (".cursor/mcp.json", Kind::JsonSettings),
            (".vscode/mcp.json", Kind::JsonSettings),
            (".codex/config.toml", Kind::TomlSettings),
        ] {
            assert_eq!(kind(path), Some(want), "{path}");
        }
    }

    #[test]
    fn a_plugins_commands_agents_and_hooks() {
        let paths = [
            "plugins/audit/.claude-plugin/plugin.json",
            "plugins/audit/commands/check.md",
            "plugins/audit/agents/judge.md",
            "plugins/audit/hooks/hooks.json",
            "plugins/audit/skills/x/SKILL.md",
            "plugins/audit/README.md",
            "other/commands/x.md",
            "commands/top.md",
        ];
        let found = plugins(paths);
        assert_eq!(found.iter().collect::<Vec<_>>(), ["plugins/audit"]);
        let kinds: Vec<Option<Kind>> = paths
            .iter()
            .map(|p| classify_in(p, &found).map(|c| c.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                Some(Kind::JsonSettings),
                Some(Kind::Command),
                Some(Kind::Command),
                Some(Kind::JsonSettings),
                None,
                None,
                None,
                None,
            ]
        );
        for p in &paths[..4] {
            assert!(may_be(p.as_bytes()), "{p}");
        }
        let top = plugins([".claude-plugin/plugin.json"]);
        assert_eq!(
            classify_in("commands/top.md", &top).map(|c| c.kind),
            Some(Kind::Command)
        );
    }

    #[test]
    fn the_cheap_test_keeps_every_context_file() {
        for path in [
            "CLAUDE.md",
            "a/AGENTS.md",
            "GEMINI.md",
            "QWEN.md",
            ".cursorrules",
            ".mcp.json",
            "x/.claude/settings.json",
            ".claude/settings.json",
            ".github/hooks/h.json",
        ] {
            assert!(may_be(path.as_bytes()), "{path}");
        }
        assert!(!may_be(b"src/main.rs"));
    }

    #[test]
    fn other_files_skills_and_dependencies_are_not_context() {
        for path in [
            "README.md",
            "claude.md.bak",
            ".claude/skills/x/SKILL.md",
            ".claude/skills/x/CLAUDE.md",
            "skills/x/AGENTS.md",
            "app/.agents/skills/y/commands/GEMINI.md",
            ".claude/settings.yaml",
            ".claude/commands/notes.txt",
            ".github/workflows/ci.yml",
            ".github/hooks/nested/x.json",
            ".github/prompts/plan.md",
            "node_modules/pkg/AGENTS.md",
            ".git/CLAUDE.md",
            ".vscode/settings.json",
            "src/settings.json",
            "",
            "/",
        ] {
            assert_eq!(kind(path), None, "{path}");
        }
    }
}
