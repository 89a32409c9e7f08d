//! What an eval runner's folder may receive: the skill and the case's input files, never what an
//! agent CLI loads as its own configuration. A settings file with hooks, an MCP server list, an
//! instruction file or an `.envrc` placed where the CLI starts would run (or steer) the CLI with
//! the person's rights before the task begins; the skill under test may come from a pull
//! request. The registry says what each agent loads; a path is checked as if the folder it is
//! in were a project's top (agents read some of these at any depth).

/// Why `rel` (a path below the runner's folder, or below the skill's) is not placed: what an
/// agent would load it as. `None` for a file an agent reads only when the task tells it to.
pub fn agent_config(rel: &str) -> Option<String> {
    let lower = rel.to_ascii_lowercase();
    let slashed = format!("/{lower}");
    if crate::registry::PLUGIN_DIRS
        .iter()
        .any(|d| slashed.contains(&format!("/{}/", d.to_ascii_lowercase())))
    {
        return Some("a plugin's manifest folder, which agents load plugins from".into());
    }
    // Files the CLIs read that no switch turns off (Qwen Code's reply language).
    if lower.ends_with(".qwen/output-language.md") {
        return Some("instructions Qwen Code loads into every session".into());
    }
    // Every tail of the path, down to the file's name: the registry leaves what lies in a
    // skill folder to the skill (`skills/x/GEMINI.md`), but a CLI that reads such a name at
    // any depth still loads it.
    let parts: Vec<&str> = rel.split('/').collect();
    let found = (0..parts.len())
        .filter_map(|i| crate::registry::classify(&parts[i..].join("/")))
        .find(|f| f.kind != crate::registry::Kind::Reference)?;
    Some(format!(
        "{} {} loads",
        match found.kind.as_str() {
            "settings" => "settings",
            "environment" => "an environment file",
            "script" => "code",
            "command" => "a command",
            _ => "instructions",
        },
        found.agents.join(", ")
    ))
}

/// Takes out of a skill's folder the files an agent would load as configuration; returns them
/// as `path (why)`.
/// (A folder's files are `(path, bytes, executable)`, as `eval::subject` lists them.)
pub fn without_agent_config(folder: &mut Vec<(String, Vec<u8>, bool)>) -> Vec<String> {
    let mut left_out = Vec::new();
    folder.retain(|(path, _, _)| match agent_config(path) {
        Some(why) => {
            left_out.push(format!("{path} ({why})"));
            false
        }
        None => true,
    });
    left_out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_agents_load_is_never_placed() {
        for path in [
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".mcp.json",
            "CLAUDE.md",
            "AGENTS.md",
            "GEMINI.md",
            "QWEN.md",
            "docs/GEMINI.md",
            ".gemini/settings.json",
            ".gemini/.env",
            ".qwen/settings.json",
            ".qwen/output-language.md",
            ".codex/config.toml",
            ".github/hooks/hooks.json",
            ".github/copilot-instructions.md",
            ".envrc",
            ".env",
            ".claude-plugin/plugin.json",
            ".github/plugin/plugin.json",
            "skills/x/GEMINI.md",
            ".agents/skills/x/AGENTS.md",
            "docs/.Claude/Settings.json",
            "claude.md",
        ] {
            assert!(agent_config(path).is_some(), "{path} must not be placed");
        }
        for path in [
            "evals/files/sales.csv",
            "scripts/report.py",
            "references/api.md",
            "templates/report.md",
            "data/config.json",
        ] {
            assert_eq!(agent_config(path), None, "{path} is an input");
        }
        let mut folder = vec![
            ("scripts/run.py".to_owned(), b"print(1)".to_vec(), true),
            (".claude/settings.json".to_owned(), b"{}".to_vec(), false),
        ];
        let left = without_agent_config(&mut folder);
        assert_eq!(folder.len(), 1);
        assert!(
            left[0].starts_with(".claude/settings.json (settings Claude Code"),
            "{left:?}"
        );
    }
}
