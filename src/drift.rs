//! Capability drift: what a changed skill can do now that it could not before. This is what a
//! reviewer of a skill pull request wants to see first.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;

use crate::check::Snapshot as StagedSkill;
use crate::skill::meta;
use crate::skill::FileKind;
use crate::staged::SkillChange;

/// The drift of one changed skill.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SkillDrift {
    pub name: String,
    /// The skill directory: relative to the top from [`report`]; callers may show it relative
    /// to where the user is.
    pub path: String,
    pub new_skill: bool,
    /// Not a skill but an agent context file, and what kind (`settings`, `instructions`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<&'static str>,
    pub capabilities: Vec<Capability>,
}

/// Drift of every skill changed between `from` and `to` (the index when `None`) that gained a
/// capability, and the notes about links and submodules that could not be compared.
pub fn report(
    repo: &crate::git::Repo,
    from: &str,
    to: Option<&str>,
    roots: &crate::staged::Roots,
) -> Result<(Vec<SkillDrift>, Vec<crate::skill::Note>), crate::git::GitError> {
    let (changes, notes) = crate::staged::changes(repo, from, to, roots, None)?;
    Ok((of_changes(&changes), notes))
}

/// Drift of each changed skill that gained a capability (paths relative to the top): for a
/// caller that has the range's changes already (the range scan).
pub fn of_changes(changes: &[SkillChange]) -> Vec<SkillDrift> {
    changes
        .iter()
        .map(|c| SkillDrift {
            name: c.after.name(),
            path: c.after.dir.clone(),
            new_skill: c.before.is_none(),
            context: c.after.context.map(|k| k.as_str()),
            capabilities: capabilities(c),
        })
        .filter(|d| !d.capabilities.is_empty())
        .collect()
}

/// One new capability.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Capability {
    /// `allowed-tools`, `host`, `script`, `executable`, `binary`, `file`, `description`,
    /// `auto-skill`, `submodule`.
    pub kind: &'static str,
    pub detail: String,
}

/// The tools a skill's frontmatter allows, as written (`Bash(git:*)`, `Read`).
fn allowed_tools(skill: &StagedSkill) -> BTreeSet<String> {
    let Some(Ok((_, map))) = skill.files.skill_md.as_deref().map(meta::parse) else {
        return BTreeSet::new();
    };
    let mut out = BTreeSet::new();
    match map.get("allowed-tools") {
        Some(serde_yaml::Value::String(s)) => {
            // Space- or comma-separated, with scopes in parentheses that may hold spaces.
            let mut depth = 0;
            let mut current = String::new();
            for c in s.chars() {
                match c {
                    '(' => {
                        depth += 1;
                        current.push(c);
                    }
                    ')' => {
                        depth -= 1;
                        current.push(c);
                    }
                    ' ' | ',' | '\t' if depth == 0 => {
                        if !current.is_empty() {
                            out.insert(std::mem::take(&mut current));
                        }
                    }
                    c => current.push(c),
                }
            }
            if !current.is_empty() {
                out.insert(current);
            }
        }
        Some(serde_yaml::Value::Sequence(items)) => {
            out.extend(
                items
                    .iter()
                    .filter_map(|v| v.as_str())
                    .map(|s| s.trim().to_owned()),
            );
        }
        _ => {}
    }
    out
}

fn url_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:https?|wss?|ftp)://([a-z0-9.-]+)(?::([a-z0-9]+))?")
            .expect("valid url regex")
    })
}

/// Hosts named in URLs anywhere in the skill's text files.
fn hosts(skill: &StagedSkill) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in &skill.files.entries {
        if let Ok(bytes) = skill.read(&entry.path) {
            let text = String::from_utf8_lossy(&bytes);
            for c in url_regex().captures_iter(&text) {
                let host = c[1].to_ascii_lowercase().trim_end_matches('.').to_owned();
                let port = c.get(2).map(|m| m.as_str());
                if !placeholder(&host, port) {
                    out.insert(host);
                }
            }
        }
    }
    out
}

/// Words documentation writes where a host goes (`http://host:port`, `https://HOSTNAME/...`).
const PLACEHOLDER_HOSTS: &[&str] = &[
    "host",
    "hostname",
    "your-host",
    "yourhost",
    "my-host",
    "myhost",
    "server",
    "your-server",
    "yourserver",
    "domain",
    "your-domain",
    "yourdomain",
    "ip",
    "address",
    "url",
    "endpoint",
];

/// A URL of documentation rather than a destination: a placeholder word as the host, or a
/// single-label host with a port that is a word (`http://myapp:PORT`). A real host keeps its
/// place whatever its port (`http://exfil.example:PORT/` is filled in later), and so does a
/// single-label one with a numeric port or none (`http://intranet/`).
fn placeholder(host: &str, port: Option<&str>) -> bool {
    let word_port = port.is_some_and(|p| !p.chars().all(|c| c.is_ascii_digit()));
    PLACEHOLDER_HOSTS.contains(&host) || (word_port && !host.contains('.'))
}

fn is_script(path: &str, executable: bool, skill: &StagedSkill) -> bool {
    executable
        || path.starts_with("scripts/")
        || skill.read(path).is_ok_and(|b| b.starts_with(b"#!"))
}

fn description(skill: &StagedSkill) -> Option<String> {
    skill.meta().and_then(|m| m.description)
}

fn auto_skill(skill: &StagedSkill) -> bool {
    skill.meta().is_some_and(|m| m.auto_skill)
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// What `change.after` can do that `change.before` could not.
pub fn capabilities(change: &SkillChange) -> Vec<Capability> {
    let after = &change.after;
    let mut out = Vec::new();
    let mut push = |kind: &'static str, detail: String| out.push(Capability { kind, detail });

    let old_tools = change
        .before
        .as_ref()
        .map(allowed_tools)
        .unwrap_or_default();
    for tool in allowed_tools(after).difference(&old_tools) {
        let unscoped = !tool.contains('(')
            && matches!(tool.as_str(), "Bash" | "Write" | "Edit" | "WebFetch" | "*");
        let widened = old_tools.iter().any(|t| t.starts_with(&format!("{tool}(")));
        let detail = match (unscoped, widened) {
            (true, true) => format!("{tool} (widened: the scope was removed)"),
            (true, false) => format!("{tool} (no scope: any use of the tool)"),
            _ => tool.clone(),
        };
        push("allowed-tools", detail);
    }

    let old_hosts = change.before.as_ref().map(hosts).unwrap_or_default();
    for host in hosts(after).difference(&old_hosts) {
        push("host", host.clone());
    }

    for entry in &after.files.entries {
        let before = change
            .before
            .as_ref()
            .and_then(|b| b.files.entry(&entry.path));
        match (&entry.kind, before.map(|e| &e.kind)) {
            (FileKind::File { executable, .. }, None) => {
                let binary = after
                    .read(&entry.path)
                    .is_ok_and(|b| b[..b.len().min(8192)].contains(&0));
                if binary {
                    push("binary", entry.path.clone());
                } else if is_script(&entry.path, *executable, after) {
                    push("script", entry.path.clone());
                } else if entry.path != "SKILL.md" {
                    push("file", entry.path.clone());
                }
            }
            (
                FileKind::File {
                    executable: true, ..
                },
                Some(FileKind::File {
                    executable: false, ..
                }),
            ) => {
                push("executable", format!("{} became executable", entry.path));
            }
            (FileKind::Symlink { target }, None) => push(
                "file",
                format!("{} (symlink to {})", entry.path, target.display()),
            ),
            _ => {}
        }
    }

    // Content read from another repository: what lands is whatever that commit holds.
    let old_modules = change
        .before
        .as_ref()
        .map(|b| b.submodules.clone())
        .unwrap_or_default();
    for module in &after.submodules {
        match old_modules.iter().find(|m| m.path == module.path) {
            Some(old) if old.commit == module.commit => {}
            Some(old) => push(
                "submodule",
                format!(
                    "{} moved from {} to {}",
                    module.path,
                    short(&old.commit),
                    short(&module.commit)
                ),
            ),
            None => push(
                "submodule",
                format!("{} at {} (new)", module.path, short(&module.commit)),
            ),
        }
    }

    let old_description = change.before.as_ref().and_then(description);
    if let Some(new) = description(after) {
        let words = |s: &str| s.split_whitespace().count();
        match &old_description {
            Some(old) if old != &new && words(&new) > words(old) => push(
                "description",
                format!(
                    "claims more: {} -> {} words: \"{}\"",
                    words(old),
                    words(&new),
                    new
                ),
            ),
            _ => {}
        }
    }

    let was_auto = change.before.as_ref().is_some_and(auto_skill);
    let is_auto = auto_skill(after);
    if is_auto && !was_auto {
        push(
            "auto-skill",
            "now marked source: auto-skill (written by an agent)".to_owned(),
        );
    } else if was_auto && !is_auto {
        push(
            "auto-skill",
            "lost its source: auto-skill mark (now passes as written by a person)".to_owned(),
        );
    }
    out
}
