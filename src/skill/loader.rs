//! What agents load: one model of the skill roots the supported agents read (the agent folders
//! come from the registry, [`crate::registry`]), for any tree (the work tree, the index, a
//! revision), so that every command takes its paths from the same place and one tree gets one
//! verdict in every mode.
//!
//! What each agent was found to do (the real CLIs, offline, against a scripted model; see the
//! README's "What is scanned"):
//!
//! | agent | project roots | where | depth below a root |
//! |---|---|---|---|
//! | Claude Code | `.claude/skills` | the working directory and each one above it up to the repository top; below it, lazily, once a file there is read | 1 |
//! | Codex | `.agents/skills`, `.codex/skills` | the working directory and each one above it up to the top | 6, recursive, dot-folders skipped |
//! | Qwen Code | `.qwen/skills`, `.agents/skills` | the working directory | 1 |
//! | Gemini CLI | `.gemini/skills`, `.agents/skills` | the working directory (a trusted folder) | 1, and a `SKILL.md` in the root itself |
//! | Copilot CLI | `.github/skills`, `.claude/skills`, `.agents/skills` | the working directory and each one above it up to the top | recursive (8 seen), first `SKILL.md` wins |
//!
//! An agent can be started in any directory of a repository, so a root counts at any depth;
//! the match is ASCII case-insensitive, because on macOS and Windows a checkout of `.Claude/skills`
//! is the folder agents read as `.claude/skills` (such a variant is reported). Below a root every
//! folder is walked (`node_modules` and dot-folders included: some agents load them) except
//! `.git` and `.skillopt`, to [`super::limits::MAX_DEPTH`] levels.
//!
//! Repositories that publish skills also keep them in `skills/` and `agents/skills/` at the top
//! ([`CONVENTION_ROOTS`]); no agent reads those by itself, and `skill.roots` replaces them.

/// The folder inside an agent folder that holds its skills.
pub const SKILLS: &str = crate::registry::SKILLS;

/// Skill roots at the top of a repository by convention, not loaded by an agent by itself.
pub const CONVENTION_ROOTS: &[&str] = &["skills", "agents/skills"];

/// The agent roots as they are spelled canonically (`.claude/skills`, ...), top level: each
/// agent folder of the registry whose `skills/` an agent loads.
pub fn agent_roots() -> impl Iterator<Item = String> {
    crate::registry::skill_dirs()
        .iter()
        .map(|(dir, _)| format!("{dir}/{SKILLS}"))
}

/// The agent folder `name` stands for, matched as a case-insensitive file system would.
pub fn agent_dir(name: &str) -> Option<&'static str> {
    crate::registry::skill_dir(name)
}

/// One agent root found in a tree.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FoundRoot {
    /// Relative to the top, `/`-separated, spelled as the tree spells it.
    pub path: String,
    /// Spelled otherwise than agents spell it (`.Claude/skills`): on a case-insensitive file
    /// system it is that root; on Linux no agent reads it.
    pub case_variant: bool,
}

/// The agent roots a path (relative to the top, `/`-separated) lies in or names: every
/// `<agent folder>/skills` prefix of it, outermost first. A path that ends in an agent folder
/// (a link named `.claude`) names the root below it too: what the link leads to is read there.
pub fn roots_of(path: &str) -> Vec<FoundRoot> {
    let mut out = Vec::new();
    let parts: Vec<&str> = path.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        let Some(canonical) = agent_dir(part) else {
            continue;
        };
        let skills = parts.get(i + 1);
        let prefix = parts[..=i].join("/");
        match skills {
            Some(s) if s.eq_ignore_ascii_case(SKILLS) => out.push(FoundRoot {
                path: format!("{prefix}/{s}"),
                case_variant: *part != canonical || *s != SKILLS,
            }),
            // `.claude` itself, at the end: a link or a submodule in place of the folder.
            None => out.push(FoundRoot {
                path: format!("{prefix}/{SKILLS}"),
                case_variant: *part != canonical,
            }),
            Some(_) => {}
        }
    }
    out
}

/// The folder of Claude Code's plugin manifest (`.claude-plugin/plugin.json`; Codex, Copilot CLI
/// and Cursor read the same layout from their own folders, `crate::registry::PLUGIN_DIRS`): a
/// plugin bundles skills in its `skills/` folder, which agents load once the plugin is
/// installed, so that folder is a root wherever the plugin sits (`plugins/<name>/skills`).
pub const PLUGIN_MANIFEST: &str = ".claude-plugin/plugin.json";

/// The skill root of the plugin whose manifest `path` is.
pub fn plugin_root(path: &str) -> Option<FoundRoot> {
    if !path.ends_with("plugin.json") {
        return None;
    }
    let dir = crate::registry::PLUGIN_DIRS.iter().find_map(|dir| {
        match path.strip_suffix(&format!("{dir}/plugin.json"))? {
            "" => Some(""),
            d => d.strip_suffix('/'),
        }
    })?;
    Some(FoundRoot {
        path: if dir.is_empty() {
            SKILLS.to_owned()
        } else {
            format!("{dir}/{SKILLS}")
        },
        case_variant: false,
    })
}

/// The paths a manifest of the plugin in folder `dir` can have.
pub fn plugin_manifests(dir: &str) -> Vec<String> {
    crate::registry::PLUGIN_DIRS
        .iter()
        .map(|d| {
            if dir.is_empty() {
                format!("{d}/plugin.json")
            } else {
                format!("{dir}/{d}/plugin.json")
            }
        })
        .collect()
}

/// Every agent root the paths of a tree lie in, sorted, each once.
pub fn roots_in<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<FoundRoot> {
    let mut finder = RootFinder::default();
    for path in paths {
        finder.add(path);
    }
    finder.finish()
}

/// [`roots_in`] one path at a time, for a listing that is visited rather than collected.
#[derive(Debug, Default)]
pub struct RootFinder {
    found: Vec<FoundRoot>,
    /// The directory of the last path: its siblings (most paths of a listing) lie in the same
    /// roots, and need no second look.
    last_dir: Vec<u8>,
    /// Paths in an agent root that are not UTF-8: git-skill cannot name them to git again, so
    /// they cannot be checked (the caller refuses to pass them).
    pub not_utf8: Vec<String>,
}

impl RootFinder {
    pub fn add(&mut self, path: &str) {
        self.add_bytes(path.as_bytes());
    }

    /// A path as git stores it (bytes that are not UTF-8 are read lossily).
    pub fn add_bytes(&mut self, path: &[u8]) {
        let slash = path.iter().rposition(|&b| b == b'/');
        let (dir, name) = match slash {
            Some(i) => (&path[..i], &path[i + 1..]),
            None => (&path[..0], path),
        };
        // The name matters only when it can be part of a root itself: an agent folder
        // (a link or a submodule named `.claude`) or its `skills` (a link or a submodule in an
        // agent folder, next to its settings); otherwise the directory decides, once.
        let own = name.first() == Some(&b'.') || name.eq_ignore_ascii_case(SKILLS.as_bytes());
        if dir == self.last_dir.as_slice() {
            if !own {
                return;
            }
        } else {
            dir.clone_into(&mut self.last_dir);
            if !own && !might_hold_root(dir) {
                return;
            }
        }
        let mut roots = roots_of(&String::from_utf8_lossy(path));
        if let Some(root) = plugin_root(&String::from_utf8_lossy(path)) {
            roots.push(root);
        }
        // (A listing read lossily carries U+FFFD where the bytes were not UTF-8.)
        let lossy = std::str::from_utf8(path).map_or(true, |p| p.contains('\u{FFFD}'));
        if !roots.is_empty() && lossy {
            self.not_utf8
                .push(String::from_utf8_lossy(path).into_owned());
        }
        for root in roots {
            if !self.found.contains(&root) {
                self.found.push(root);
            }
        }
    }

    pub fn finish(mut self) -> Vec<FoundRoot> {
        self.found.sort();
        self.found
    }

    /// [`RootFinder::finish`], or the first path that is not UTF-8.
    pub fn finish_utf8(self) -> Result<Vec<FoundRoot>, String> {
        match self.not_utf8.first() {
            Some(path) => Err(path.clone()),
            None => Ok(self.finish()),
        }
    }
}

/// Whether the root at `path` (relative to the top) is spelled otherwise than agents spell
/// it (`.Claude/skills`).
pub fn is_case_variant(path: &str) -> bool {
    roots_of(path)
        .last()
        .is_some_and(|r| r.path == path && r.case_variant)
}

/// `path` (a root) with its agent folder and `skills` spelled as agents spell them.
pub fn canonical(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    let n = parts.len();
    if n < 2 {
        return path.to_owned();
    }
    let mut out: Vec<String> = parts[..n - 2].iter().map(|p| (*p).to_owned()).collect();
    out.push(agent_dir(parts[n - 2]).unwrap_or(parts[n - 2]).to_owned());
    out.push(SKILLS.to_owned());
    out.join("/")
}

/// The agent roots on disk in the directories `dirs` (relative to `top`, `/`-separated, the
/// top itself as ""): each is read, and an agent folder in it (in any case) holding a `skills`
/// folder (in any case) is a root. The work tree's view: `dirs` are the folders git tracks,
/// so that a root not yet added is found where agents would find it, without walking what
/// git ignores (build output, dependencies).
pub fn roots_on_disk<'a>(
    top: &std::path::Path,
    dirs: impl IntoIterator<Item = &'a str>,
) -> Vec<FoundRoot> {
    let mut found = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(top.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(canonical) = agent_dir(name) else {
                continue;
            };
            let Ok(inner) = std::fs::read_dir(entry.path()) else {
                continue;
            };
            for child in inner.flatten() {
                let child_name = child.file_name();
                let Some(child_name) = child_name.to_str() else {
                    continue;
                };
                if child_name.eq_ignore_ascii_case(SKILLS) {
                    let path = if dir.is_empty() {
                        format!("{name}/{child_name}")
                    } else {
                        format!("{dir}/{name}/{child_name}")
                    };
                    found.push(FoundRoot {
                        path,
                        case_variant: name != canonical || child_name != SKILLS,
                    });
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// How many folders [`folders_below`] lists at most.
const MAX_FOLDERS_BELOW: usize = 20_000;

/// `dir` (relative to `top`) and the folders below it on disk, relative to `top`, links not
/// followed and `.git` left out, bounded: for a checkout whose tracked folders this crate
/// does not read (a submodule's).
pub fn folders_below(top: &std::path::Path, dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(rel) = stack.pop() {
        if out.len() >= MAX_FOLDERS_BELOW {
            break;
        }
        let Ok(entries) = std::fs::read_dir(top.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if kind.is_dir() && name != ".git" {
                stack.push(format!("{rel}/{name}"));
            }
        }
        out.push(rel);
    }
    out
}

/// Every folder the paths lie in, and each above it, up to the top (as ""), each once.
pub fn folders_of<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    out.insert("");
    for path in paths {
        let mut at = path;
        while let Some((dir, _)) = at.rsplit_once('/') {
            if !out.insert(dir) {
                break;
            }
            at = dir;
        }
    }
    out.into_iter().collect()
}

/// A cheap test before [`roots_of`]: a root needs a component that starts with a dot.
fn might_hold_root(path: &[u8]) -> bool {
    // One pass, no set-up: paths are short, and this runs for every path of the index.
    let mut after_slash = true;
    for &b in path {
        if after_slash && b == b'.' {
            return true;
        }
        after_slash = b == b'/';
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(found: &[FoundRoot]) -> Vec<(&str, bool)> {
        found
            .iter()
            .map(|r| (r.path.as_str(), r.case_variant))
            .collect()
    }

    #[test]
    fn roots_at_any_depth_and_in_any_case() {
        assert_eq!(
            paths(&roots_of(".claude/skills/x/SKILL.md")),
            [(".claude/skills", false)]
        );
        assert_eq!(
            paths(&roots_of("packages/web/.claude/skills/evil/SKILL.md")),
            [("packages/web/.claude/skills", false)]
        );
        assert_eq!(
            paths(&roots_of("apps/api/.agents/Skills/evil/run.sh")),
            [("apps/api/.agents/Skills", true)]
        );
        assert_eq!(
            paths(&roots_of(".Claude/skills/evil/SKILL.md")),
            [(".Claude/skills", true)]
        );
        // A root inside a skill of another root: both (the inner one owns what is below it
        // when the outer folder is no skill).
        assert_eq!(
            paths(&roots_of(".claude/skills/a/.codex/skills/b/SKILL.md")),
            [
                (".claude/skills", false),
                (".claude/skills/a/.codex/skills", false)
            ]
        );
        // A link or gitlink in place of an agent folder.
        assert_eq!(
            paths(&roots_of("packages/web/.gemini")),
            [("packages/web/.gemini/skills", false)]
        );
        for none in [
            "src/skills/x/SKILL.md",
            "docs/.claude/commands/x.md",
            ".claudeX/skills/a",
            "skills",
            "",
        ] {
            assert!(roots_of(none).is_empty(), "{none}");
        }
    }

    #[test]
    fn folders_and_roots_on_disk() {
        assert_eq!(
            folders_of(["a/b/c.txt", "a/d.txt", "e.txt"]),
            ["", "a", "a/b"]
        );
        let t = tempfile::tempdir().unwrap();
        for dir in [
            ".claude/skills",
            "pkg/.Agents/SKILLS",
            "pkg/.qwen/other",
            "pkg/src",
        ] {
            std::fs::create_dir_all(t.path().join(dir)).unwrap();
        }
        let found = roots_on_disk(t.path(), ["", "pkg", "missing"]);
        assert_eq!(
            paths(&found),
            [(".claude/skills", false), ("pkg/.Agents/SKILLS", true)]
        );
        assert_eq!(canonical("pkg/.Agents/SKILLS"), "pkg/.agents/skills");
        assert!(is_case_variant("pkg/.Agents/SKILLS"));
        assert!(!is_case_variant("pkg/.agents/skills"));
    }

    #[test]
    fn a_tree_listing_gives_each_root_once() {
        let listing = [
            ".claude/skills/a/SKILL.md",
            ".claude/skills/a/scripts/x.sh",
            ".claude/skills/b/SKILL.md",
            "README.md",
            "packages/web/.claude/skills/c/SKILL.md",
            "packages/web/.qwen",
            "packages/web/src/index.ts",
            "pkg/.claude/settings.json",
            "pkg/.claude/skills",
            "z/.AGENTS/SKILLS/d/SKILL.md",
        ];
        assert_eq!(
            paths(&roots_in(listing)),
            [
                (".claude/skills", false),
                ("packages/web/.claude/skills", false),
                ("packages/web/.qwen/skills", false),
                ("pkg/.claude/skills", false),
                ("z/.AGENTS/SKILLS", true),
            ]
        );
    }
}
