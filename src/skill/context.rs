//! The agent context beside skills: files an agent loads into every session (instructions,
//! rules), runs on request (slash commands, subagents, workflows) or runs without the model
//! deciding (hook commands, MCP servers, plugins, workspace tasks). A line in any of them
//! reaches the agent with the rights a skill has, so SkillGuard checks them as it checks
//! skills, each file as what it is. Which files those are, per agent, is the registry's
//! ([`crate::registry`]); this module applies it to the paths of a tree and to the work tree's
//! folders. Files inside a skill root belong to their skill and are scanned with it.

pub use crate::registry::{Found as Context, Kind};

/// A cheap test before [`classify`], for every path of an index: a context file has a
/// component that starts with a dot, a name the registry lists, or could be a plugin's.
pub fn may_be(path: &[u8]) -> bool {
    crate::registry::may_be(path) || plugin_part(path)
}

/// A path that could be a plugin's command, agent, output style or hooks file
/// (`<plugin>/commands/x.md`).
fn plugin_part(path: &[u8]) -> bool {
    // What the plugin layout holds ends in `.md` or is a hooks or language-server file: the
    // suffix first, for every path of an index.
    let md = path.len() >= 3 && path[path.len() - 3..].eq_ignore_ascii_case(b".md");
    if !md {
        return path.ends_with(b"hooks/hooks.json") || path.ends_with(b".lsp.json");
    }
    let has = |needle: &[u8]| path.windows(needle.len()).any(|w| w == needle);
    has(b"commands/") || has(b"agents/") || has(b"output-styles/")
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

/// [`classify`], and a plugin's own commands, agents, output styles and hooks (the registry's
/// plugin layout) for each plugin folder of `plugins` (see [`plugins`]).
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
    crate::registry::in_plugin(rest)
}

/// What the file at `path` (relative to the top, `/`-separated) is to agents, if anything
/// ([`crate::registry::classify`]), and a bare Markdown file at a skill root, which some
/// agents load as a skill of its own.
pub fn classify(path: &str) -> Option<Context> {
    crate::registry::classify(path)
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
            } else if kind.is_dir() && crate::registry::is_agent_dir(&name) {
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
        } else if kind.is_dir() && name.eq_ignore_ascii_case(super::loader::SKILLS) {
            // Skills are discovery's; only a bare file at the root is context.
            bare_files(top, &path, out);
        } else if kind.is_dir() && depth < MAX_WALK_DEPTH && !SKIPPED.contains(&name.as_str()) {
            walk(top, &path, depth + 1, out);
        }
    }
}

/// The files directly in the skill root `rel` that the registry classifies.
fn bare_files(top: &std::path::Path, rel: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(top.join(rel)) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let path = join(rel, &name);
        if entry
            .file_type()
            .is_ok_and(|k| k.is_file() || k.is_symlink())
            && classify(&path).is_some()
            && out.len() < MAX_FOUND
        {
            out.push(path);
        }
    }
}

/// Folders not walked inside an agent folder: git's own, and dependencies (an agent folder's
/// own `node_modules`, as OpenCode installs its plugins' packages).
const SKIPPED: &[&str] = &[".git", "node_modules"];

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// (The registry's own tests hold what each agent's files are; these, how plugins are found.)
#[cfg(test)]
mod tests {
    use super::*;

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
}
