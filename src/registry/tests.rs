//! The registry's fixtures: for every entry, a path it must classify (made from its pattern)
//! and, per agent, paths that must stay what they are.

use super::*;

/// A path that matches `pattern`: `**` as one folder, `*` as `x`, `{a,b}` as `a`, nested
/// under `pkg/` (agents are started in any folder).
fn sample(pattern: &str) -> String {
    let parts: Vec<String> = pattern
        .split('/')
        .map(|p| {
            let p = match (p.find('{'), p.find('}')) {
                (Some(open), Some(close)) => {
                    let first = p[open + 1..close].split(',').next().unwrap_or("");
                    format!("{}{first}{}", &p[..open], &p[close + 1..])
                }
                _ => p.to_owned(),
            };
            if p == "**" {
                "deep".to_owned()
            } else {
                p.replace('*', "x")
            }
        })
        .collect();
    format!("pkg/{}", parts.join("/"))
}

#[test]
fn every_entry_classifies_its_own_files_for_its_agent() {
    let mut failures = Vec::new();
    for agent in all() {
        for file in agent.files {
            let path = sample(file.pattern);
            if !may_be(path.as_bytes()) {
                failures.push(format!("{}: the cheap test drops {path}", agent.id));
            }
            match classify(&path) {
                None => failures.push(format!("{}: {path} is not classified", agent.id)),
                Some(found) => {
                    if found.kind.strength() < file.kind.strength() {
                        failures.push(format!(
                            "{}: {path} is {:?}, not {:?}",
                            agent.id, found.kind, file.kind
                        ));
                    }
                    if !found.agents.contains(&agent.product) {
                        failures.push(format!(
                            "{}: {path} does not name {}",
                            agent.id, agent.product
                        ));
                    }
                    for key in file.keys {
                        if !found.keys.iter().any(|k| k.path == key.path) {
                            failures.push(format!("{}: {path} lost key {}", agent.id, key.path));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ids_and_folders_are_unique_and_well_formed() {
    let mut ids: Vec<&str> = all().iter().map(|a| a.id).collect();
    ids.sort();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate agent ids");
    for agent in all() {
        assert!(
            agent
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{}",
            agent.id
        );
        assert!(
            !agent.verified.is_empty(),
            "{} says how it was checked",
            agent.id
        );
        for dir in agent.skill_dirs {
            assert!(dir.starts_with('.') && !dir.contains('/'), "{dir}");
            assert!(is_agent_dir(dir), "{dir}");
        }
        for user in agent.user_files {
            assert!(user.starts_with("~/"), "{user}");
        }
    }
    assert!(agent("Claude-Code").is_some());
    assert!(agent("nobody").is_none());
}

/// Paths each agent loads, with what they are read as.
const LOADED: &[(&str, Kind)] = &[
    // Claude Code
    ("CLAUDE.md", Kind::Instructions),
    ("node_modules/pkg/CLAUDE.md", Kind::Instructions),
    ("claude.md", Kind::Instructions),
    (".claude/rules/style.md", Kind::Instructions),
    (".claude/output-styles/team.md", Kind::Instructions),
    (".claude/commands/ops/release.md", Kind::Command),
    (".claude/agents/reviewer.md", Kind::Command),
    (".claude/settings.json", Kind::JsonSettings),
    (".Mcp.json", Kind::JsonSettings),
    ("plugins/x/.claude-plugin/plugin.json", Kind::JsonSettings),
    (".claude-plugin/marketplace.json", Kind::JsonSettings),
    // A plugin's manifest in a skill root: Claude Code loads it there.
    (
        ".claude/skills/kit/.claude-plugin/plugin.json",
        Kind::JsonSettings,
    ),
    // Codex
    ("Agents.md", Kind::Instructions),
    ("AGENTS.override.md", Kind::Instructions),
    (".codex/config.toml", Kind::TomlSettings),
    (".codex/agents/reviewer.toml", Kind::TomlSettings),
    (".agents/plugins/marketplace.json", Kind::JsonSettings),
    // Gemini CLI, Qwen Code
    ("GEMINI.md", Kind::Instructions),
    (".gemini/commands/git/commit.toml", Kind::TomlCommand),
    (".gemini/.env", Kind::EnvFile),
    (".env", Kind::EnvFile),
    (".gemini/system.md", Kind::Instructions),
    ("QWEN.local.md", Kind::Instructions),
    (".qwen/rules/a.md", Kind::Instructions),
    (".qwen/commands/t.md", Kind::Command),
    // Copilot CLI
    (".github/copilot-instructions.md", Kind::Instructions),
    (".github/copilot/settings.json", Kind::JsonSettings),
    (".github/lsp.json", Kind::JsonSettings),
    (".github/hooks/guard.json", Kind::JsonSettings),
    // Cursor
    (".cursor/rules/style.mdc", Kind::Instructions),
    (".cursorrules", Kind::Instructions),
    (".cursor/commands/x.md", Kind::Command),
    (".cursor/hooks.json", Kind::JsonSettings),
    (".cursor/environment.json", Kind::JsonSettings),
    // OpenCode
    ("opencode.json", Kind::JsonSettings),
    ("apps/web/opencode.jsonc", Kind::JsonSettings),
    (".opencode/command/x.md", Kind::Command),
    (".opencode/agent/x.md", Kind::Command),
    (".opencode/plugin/notify.ts", Kind::Script),
    (".opencode/tools/db.js", Kind::Script),
    (".opencode/skills/loose.md", Kind::Instructions),
    (".opencode/package.json", Kind::JsonSettings),
    // Windsurf, Cline, Roo, Kiro, Continue, Aider, Junie, Zed, Amp
    (".windsurf/rules/a.md", Kind::Instructions),
    (".windsurfrules", Kind::Instructions),
    (".windsurf/workflows/ship.md", Kind::Command),
    (".windsurf/hooks.json", Kind::JsonSettings),
    (".clinerules", Kind::Instructions),
    (".clinerules/style.md", Kind::Instructions),
    (".clinerules/hooks/PreToolUse", Kind::Script),
    (".cline/hooks/TaskStart.ps1", Kind::Script),
    (".roo/rules/a.txt", Kind::Instructions),
    (".roo/rules-code/a.md", Kind::Instructions),
    (".roorules-architect", Kind::Instructions),
    (".roomodes", Kind::YamlSettings),
    (".roo/mcp.json", Kind::JsonSettings),
    (".kiro/steering/product.md", Kind::Instructions),
    (".kiro/settings/mcp.json", Kind::JsonSettings),
    (".kiro/hooks/lint.kiro.hook", Kind::JsonSettings),
    (".continue/rules/a.md", Kind::Instructions),
    (".continue/mcpServers/db.yaml", Kind::YamlSettings),
    (".continue/mcpServers/db.json", Kind::JsonSettings),
    (".aider.conf.yml", Kind::YamlSettings),
    (".junie/guidelines.md", Kind::Instructions),
    (".junie/mcp/mcp.json", Kind::JsonSettings),
    (".rules", Kind::Instructions),
    (".zed/settings.json", Kind::JsonSettings),
    ("AGENT.md", Kind::Instructions),
    (".amp/settings.json", Kind::JsonSettings),
    (".vscode/settings.json", Kind::JsonSettings),
    // Workspaces
    (".vscode/tasks.json", Kind::JsonSettings),
    (".vscode/mcp.json", Kind::JsonSettings),
    (".devcontainer/devcontainer.json", Kind::JsonSettings),
    (".devcontainer/py/devcontainer.json", Kind::JsonSettings),
    (".devcontainer.json", Kind::JsonSettings),
    (".envrc", Kind::Script),
];

#[test]
fn what_each_agent_loads() {
    for (path, kind) in LOADED {
        for at in [path.to_string(), format!("packages/web/{path}")] {
            assert_eq!(classify(&at).map(|f| f.kind), Some(*kind), "{at}");
            assert!(may_be(at.as_bytes()), "{at}");
        }
    }
}

#[test]
fn what_no_agent_loads() {
    for path in [
        "README.md",
        "CLAUDE.md.bak",
        "docs/agents.txt",
        ".claude/skills/x/SKILL.md",
        ".claude/skills/x/CLAUDE.md",
        ".claude/skills/SKILL.md",
        ".gemini/skills/loose.md",
        "skills/x/AGENTS.md",
        "skills/loose.md",
        ".claude/settings.yaml",
        ".claude/commands/notes.txt",
        ".github/workflows/ci.yml",
        ".github/hooks/nested/x.json",
        ".github/prompts/plan.md",
        ".git/CLAUDE.md",
        "src/settings.json",
        ".opencode/plugin/README.md",
        ".opencode/node_modules/x/index.js",
        "package.json",
        ".envrc.example",
        "",
        "/",
    ] {
        assert_eq!(classify(path).map(|f| f.kind), None, "{path}");
    }
    assert!(!may_be(b"src/main.rs"));
    assert!(!may_be(b"docs/guide.md"));
}

#[test]
fn shared_files_name_every_agent_and_the_strictest_reading_wins() {
    let found = classify("AGENTS.md").unwrap();
    for agent in ["Codex", "Copilot CLI", "Cursor", "OpenCode", "Amp", "Zed"] {
        assert!(found.agents.contains(&agent), "{agent}: {:?}", found.agents);
    }
    assert!(found.imports.contains(&Import::At));
    // `.claude/settings.json`: Claude Code's keys and Copilot CLI's.
    let found = classify(".claude/settings.json").unwrap();
    assert!(found.keys.iter().any(|k| k.path == "disableAllHooks"));
    assert!(found.agents.contains(&"Copilot CLI"));
    // `.clinerules/workflows/x.md`: a rule folder's file and a workflow; a command wins.
    assert_eq!(
        classify(".clinerules/workflows/ship.md").map(|f| f.kind),
        Some(Kind::Command)
    );
}

#[test]
fn plugin_layout() {
    assert_eq!(
        in_plugin("commands/check.md").map(|f| f.kind),
        Some(Kind::Command)
    );
    assert_eq!(
        in_plugin("hooks/hooks.json").map(|f| f.kind),
        Some(Kind::JsonSettings)
    );
    assert_eq!(
        in_plugin("output-styles/a.md").map(|f| f.kind),
        Some(Kind::Instructions)
    );
    assert!(in_plugin("README.md").is_none());
    assert!(plugin_file(".github/plugin/plugin.json"));
    assert!(plugin_file("x/.Claude-Plugin/Marketplace.json"));
    assert!(!plugin_file("x.claude-plugin/plugin.json"));
    assert!(!plugin_file("não/plugin.json"));
    assert!(classify(".claude/skills/nãoseaplica/SKILL.md").is_none());
}

#[test]
fn skill_roots_come_from_the_registry() {
    let dirs: Vec<&str> = skill_dirs().iter().map(|(d, _)| *d).collect();
    for dir in [
        ".claude",
        ".agents",
        ".qwen",
        ".codex",
        ".gemini",
        ".github",
        ".opencode",
        ".cursor",
    ] {
        assert!(dirs.contains(&dir), "{dir}");
    }
    assert_eq!(skill_dir(".Claude"), Some(".claude"));
    assert_eq!(skill_dir(".vscode"), None);
    let claude = &skill_dirs()
        .iter()
        .find(|(d, _)| *d == ".claude")
        .unwrap()
        .1;
    assert!(claude.contains(&"Claude Code") && claude.contains(&"Copilot CLI"));
}
