//! The agent registry: what each supported coding agent loads from a repository and runs, as
//! data, in one place. Every other module asks here: the skill loader (which folders are skill
//! roots), the context scan (which files are instructions, commands, settings or code, and how
//! they bring others in), the settings analysis (what each key does), `init` (where hooks go),
//! `doctor` (where the user-level files are), the eval runners and the agent-CLI providers (the
//! program each CLI is). A new agent is one file in `agents/` plus its fixtures.
//!
//! | part | what it holds |
//! |---|---|
//! | [`Agent`] | one agent: its files, skill folders, user-level files, CLI and hooks, and how the entry was verified |
//! | [`File`] | a path pattern ([`pattern`]), the [`Kind`] it is read as, how it imports others ([`Import`]) and, for settings, what its keys do ([`keys`]) |
//! | [`classify`] | what a path of a tree is to the agents, if anything |
//!
//! Paths are matched at any depth (an agent can be started in any folder of a repository) and
//! without regard to case (on macOS and Windows `claude.md` is the file Claude Code opens as
//! `CLAUDE.md`).

mod agents;
pub mod docs;
pub mod keys;
pub mod pattern;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use keys::{Effect, Key};

/// How a file is read, which decides how SkillGuard scans it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Markdown (or plain text) loaded into sessions: read as a SKILL.md is.
    Instructions,
    /// A slash command, prompt, workflow, subagent or mode in Markdown: read as a SKILL.md is.
    Command,
    /// A slash command in TOML (`prompt`, `description`): its prompt read as Markdown, the
    /// shell it runs (`!{...}`) as shell.
    TomlCommand,
    /// JSON settings (comments and trailing commas allowed, as editors write them): each key
    /// read for what it does ([`keys`]).
    JsonSettings,
    /// TOML settings (Codex's `config.toml`).
    TomlSettings,
    /// YAML settings (Continue, Aider, Roo's modes).
    YamlSettings,
    /// `NAME=value` lines an agent loads into its environment (`.gemini/.env`).
    EnvFile,
    /// Code an agent or its configuration runs: judged as code, never demoted.
    Script,
    /// Markdown an agent is told to read (a link in a SKILL.md or in instructions): read as a
    /// skill's reference is, documentation of attacks weighed as such.
    Reference,
}

impl Kind {
    /// As reports name it (`"context"` in JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Instructions => "instructions",
            Kind::Command | Kind::TomlCommand => "command",
            Kind::JsonSettings | Kind::TomlSettings | Kind::YamlSettings => "settings",
            Kind::EnvFile => "environment",
            Kind::Script => "script",
            Kind::Reference => "reference",
        }
    }

    /// Whether the file is settings read key by key.
    pub fn is_settings(self) -> bool {
        matches!(
            self,
            Kind::JsonSettings | Kind::TomlSettings | Kind::YamlSettings
        )
    }

    /// Whether the file is Markdown the model reads.
    pub fn is_markdown(self) -> bool {
        matches!(self, Kind::Instructions | Kind::Command)
    }

    /// When two agents read one path differently, the stricter reading wins: code over
    /// settings over prose.
    pub fn strength(self) -> u8 {
        match self {
            Kind::Script => 7,
            Kind::EnvFile => 6,
            Kind::JsonSettings | Kind::TomlSettings | Kind::YamlSettings => 5,
            Kind::TomlCommand => 4,
            Kind::Command => 3,
            Kind::Instructions => 2,
            Kind::Reference => 1,
        }
    }
}

/// How a file brings other files into what the agent reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Import {
    /// `@path/to/file` outside code spans and fences (Claude Code's imports, Gemini CLI's and
    /// Qwen Code's memory imports, Amp's mentions): the file is read in, recursively.
    At,
    /// `@{path}` in a custom command's prompt (Gemini CLI, Qwen Code): the file's text is put
    /// into the prompt.
    AtBrace,
    /// `#[[file:path]]` (Kiro's steering files).
    KiroFile,
    /// `{file:path}` in a configuration value (OpenCode): the file's text replaces it.
    FileBrace,
}

/// One kind of file an agent loads.
#[derive(Debug, Clone, Copy)]
pub struct File {
    /// Where it is ([`pattern`]): `CLAUDE.md`, `.claude/commands/**/*.md`.
    pub pattern: &'static str,
    pub kind: Kind,
    /// How it brings in other files.
    pub imports: &'static [Import],
    /// For settings: what its keys do (the keys every settings file is read for,
    /// [`keys::GENERIC`], come on top).
    pub keys: &'static [Key],
}

impl File {
    /// A file read as `kind`, importing nothing, with no keys of its own.
    pub const fn new(pattern: &'static str, kind: Kind) -> File {
        File {
            pattern,
            kind,
            imports: &[],
            keys: &[],
        }
    }

    pub const fn importing(mut self, imports: &'static [Import]) -> File {
        self.imports = imports;
        self
    }

    pub const fn with_keys(mut self, keys: &'static [Key]) -> File {
        self.keys = keys;
        self
    }
}

/// An agent's command-line program, where it has one.
#[derive(Debug, Clone, Copy)]
pub struct Cli {
    /// The program on the PATH (`claude`).
    pub program: &'static str,
    /// Its npm package, when it is published there (the tests run it offline).
    pub npm: Option<&'static str>,
}

/// The hooks `git skill init` installs for an agent: the events, each with the tool matcher
/// (`None`: the event has no tools), in the agent's own spelling.
#[derive(Debug, Clone, Copy)]
pub struct Hooks {
    /// The folder of its project settings, below the repository's top (`.claude`).
    pub project_dir: &'static str,
    /// The folder of its user settings, below HOME (`.claude`), unless the agent's own
    /// variable (`CODEX_HOME`, `COPILOT_HOME`) names another.
    pub user_dir: &'static str,
    /// The file in it that holds the hooks (`settings.json`).
    pub file: &'static str,
    pub events: &'static [(&'static str, Option<&'static str>)],
}

/// One supported agent.
#[derive(Debug, Clone, Copy)]
pub struct Agent {
    /// Stable id (`claude-code`): `skill.provider`, `--runner`, JSON.
    pub id: &'static str,
    /// The product, for messages (`Claude Code`).
    pub product: &'static str,
    /// Files it loads or runs from a repository.
    pub files: &'static [File],
    /// Agent folders whose `skills/` it loads skills from (`.claude`).
    pub skill_dirs: &'static [&'static str],
    /// A skill root's own Markdown files are skills too (a bare `<root>/x.md`).
    pub bare_skill_files: bool,
    /// Its user-level files (`~/.claude/settings.json`): what `doctor` looks at; never part of
    /// a repository.
    pub user_files: &'static [&'static str],
    pub cli: Option<Cli>,
    pub hooks: Option<Hooks>,
    /// How this entry was checked: the real CLI (version), its source, its published docs.
    pub verified: &'static str,
}

/// Every supported agent, in the order they are listed to people.
pub fn all() -> &'static [&'static Agent] {
    agents::ALL
}

/// The agent with this id (`claude-code`), any case.
pub fn agent(id: &str) -> Option<&'static Agent> {
    all()
        .iter()
        .copied()
        .find(|a| a.id.eq_ignore_ascii_case(id))
}

/// What a path is to the agents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: Kind,
    /// The agents that load it (products), each once, in registry order.
    pub agents: Vec<&'static str>,
    /// How it imports others (the union over the agents that read it).
    pub imports: Vec<Import>,
    /// The keys read for their meaning (settings), from every agent that reads it.
    pub keys: Vec<&'static Key>,
}

/// One file pattern of the registry, compiled, with its agent.
struct Entry {
    agent: &'static Agent,
    file: &'static File,
    pattern: pattern::Pattern,
}

/// The registry's patterns, indexed by the (lower-case) name a path must end in, for those
/// whose last part is a plain name; the others are tried on every path.
struct Index {
    by_name: HashMap<String, Vec<usize>>,
    by_extension: HashMap<String, Vec<usize>>,
    other: Vec<usize>,
    entries: Vec<Entry>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = Index {
            by_name: HashMap::new(),
            by_extension: HashMap::new(),
            other: Vec::new(),
            entries: Vec::new(),
        };
        for agent in all() {
            for file in agent.files {
                let pattern = pattern::Pattern::new(file.pattern);
                let at = index.entries.len();
                let names = pattern.last_literals();
                let extensions = pattern.last_extensions();
                if !names.is_empty() {
                    for name in names {
                        index.by_name.entry(name).or_default().push(at);
                    }
                } else if !extensions.is_empty() {
                    for ext in extensions {
                        index.by_extension.entry(ext).or_default().push(at);
                    }
                } else {
                    index.other.push(at);
                }
                index.entries.push(Entry {
                    agent,
                    file,
                    pattern,
                });
            }
        }
        index
    })
}

/// Folders nothing is looked for in: git's own.
const SKIPPED: &[&str] = &[".git"];

/// The folders that hold plugin manifests and marketplaces (`.claude-plugin`, `.github/plugin`).
pub use agents::PLUGIN_DIRS;

/// What a file of a plugin is, `rest` its path below the plugin's folder
/// (`commands/check.md`), by the plugin layout agents share.
pub fn in_plugin(rest: &str) -> Option<Found> {
    let parts: Vec<&str> = rest.split('/').collect();
    let file = agents::PLUGIN_LAYOUT
        .iter()
        .find(|f| pattern::Pattern::new(f.pattern).matches(&parts))?;
    Some(Found {
        kind: file.kind,
        agents: vec!["Claude Code", "Codex", "Copilot CLI"],
        imports: file.imports.to_vec(),
        keys: Vec::new(),
    })
}

/// Whether `path` is a plugin's manifest or a marketplace (`<plugin dir>/plugin.json`,
/// `<plugin dir>/marketplace.json`): read as settings even inside a skill root, where Claude
/// Code loads a plugin as it loads a skill.
fn plugin_file(path: &str) -> bool {
    // For every file in a skill: the name first, without an allocation.
    let name = path.rsplit('/').next().unwrap_or(path);
    if !name.eq_ignore_ascii_case("plugin.json") && !name.eq_ignore_ascii_case("marketplace.json") {
        return false;
    }
    PLUGIN_DIRS.iter().any(|dir| {
        ["plugin.json", "marketplace.json"].iter().any(|name| {
            let tail = format!("{dir}/{name}");
            let (path, tail) = (path.as_bytes(), tail.as_bytes());
            path.len() >= tail.len()
                && path[path.len() - tail.len()..].eq_ignore_ascii_case(tail)
                && (path.len() == tail.len() || path[path.len() - tail.len() - 1] == b'/')
        })
    })
}

/// What the file at `path` (relative to the top, `/`-separated) is to the agents, if anything.
/// Files inside a skill root belong to their skill and are not classified here.
pub fn classify(path: &str) -> Option<Found> {
    let parts: Vec<&str> = path.split('/').collect();
    let (name, dirs) = parts.split_last()?;
    if name.is_empty()
        || dirs
            .iter()
            .any(|d| SKIPPED.iter().any(|s| d.eq_ignore_ascii_case(s)))
    {
        return None;
    }
    match skill_root_depth(dirs) {
        // In a skill: the skill's, but for a plugin's manifest.
        Some(depth) if depth > 0 && !plugin_file(path) => return None,
        // Directly in a skill root: a bare Markdown file some agents load as a skill.
        Some(0) => return bare_skill_file(dirs, name),
        _ => {}
    }
    let index = index();
    let lower = name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e);
    let candidates = index
        .by_name
        .get(&lower)
        .into_iter()
        .flatten()
        .chain(
            ext.and_then(|e| index.by_extension.get(e))
                .into_iter()
                .flatten(),
        )
        .chain(&index.other);
    let mut found: Option<Found> = None;
    for &i in candidates {
        let entry = &index.entries[i];
        if !entry.pattern.matches_at_any_depth(&parts) {
            continue;
        }
        let f = found.get_or_insert_with(|| Found {
            kind: entry.file.kind,
            agents: Vec::new(),
            imports: Vec::new(),
            keys: Vec::new(),
        });
        if entry.file.kind.strength() > f.kind.strength() {
            f.kind = entry.file.kind;
        }
        if !f.agents.contains(&entry.agent.product) {
            f.agents.push(entry.agent.product);
        }
        for import in entry.file.imports {
            if !f.imports.contains(import) {
                f.imports.push(*import);
            }
        }
        for key in entry.file.keys {
            if !f.keys.contains(&key) {
                f.keys.push(key);
            }
        }
    }
    if let Some(f) = &mut found {
        // Registry order, whatever order the index tried them in.
        f.agents
            .sort_by_key(|p| all().iter().position(|a| a.product == *p));
    }
    found
}

/// A cheap test before [`classify`], for every path of an index: a registry file has a part
/// that starts with a dot, or a name the registry lists.
pub fn may_be(path: &[u8]) -> bool {
    // Runs for every path of an index: no allocation, the common path rejected in a few
    // comparisons.
    if path.first() == Some(&b'.') || memchr_dot_part(path) {
        return true;
    }
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    let names = bare_names();
    let Some(&first) = name.first() else {
        return false;
    };
    if names.first[usize::from(first.to_ascii_lowercase())] == 0
        || name.len() > names.longest
        || names.lengths & (1u64 << name.len()) == 0
    {
        return false;
    }
    names
        .sorted
        .iter()
        .any(|n| n.as_bytes().eq_ignore_ascii_case(name))
}

/// Whether a part of `path` after the first starts with a dot (`/.`).
fn memchr_dot_part(path: &[u8]) -> bool {
    let mut rest = path;
    while let Some(i) = rest.iter().position(|&b| b == b'/') {
        if rest.get(i + 1) == Some(&b'.') {
            return true;
        }
        rest = &rest[i + 1..];
    }
    false
}

/// The file names of registry patterns that need no dot-folder (`CLAUDE.md`,
/// `opencode.json`), lower case and sorted, with their lengths as a bit set.
struct BareNames {
    sorted: Vec<String>,
    /// Which lower-case bytes a name starts with (non-zero: some does).
    first: [u8; 256],
    lengths: u64,
    longest: usize,
}

fn bare_names() -> &'static BareNames {
    static NAMES: OnceLock<BareNames> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut sorted: Vec<String> = index()
            .entries
            .iter()
            .filter(|e| !e.pattern.needs_dot_part())
            .flat_map(|e| e.pattern.last_literals())
            .collect();
        sorted.sort();
        sorted.dedup();
        let lengths = sorted
            .iter()
            .fold(0u64, |set, n| set | 1u64 << n.len().min(63));
        let longest = sorted.iter().map(String::len).max().unwrap_or(0).min(63);
        let mut first = [0u8; 256];
        for n in &sorted {
            if let Some(&b) = n.as_bytes().first() {
                first[usize::from(b)] = 1;
            }
        }
        BareNames {
            sorted,
            first,
            lengths,
            longest,
        }
    })
}

/// The agent folders whose `skills/` is a skill root, with the agents that read each, in
/// registry order (`.claude`: Claude Code, Copilot CLI, ...).
pub fn skill_dirs() -> &'static [(&'static str, Vec<&'static str>)] {
    static DIRS: OnceLock<Vec<(&'static str, Vec<&'static str>)>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let mut out: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
        for agent in all() {
            for dir in agent.skill_dirs {
                match out.iter_mut().find(|(d, _)| d == dir) {
                    Some((_, agents)) => agents.push(agent.product),
                    None => out.push((dir, vec![agent.product])),
                }
            }
        }
        out
    })
}

/// The agent folder `name` stands for (`.Claude` is `.claude`), if it holds a skill root.
pub fn skill_dir(name: &str) -> Option<&'static str> {
    skill_dirs()
        .iter()
        .map(|(d, _)| *d)
        .find(|d| d.eq_ignore_ascii_case(name))
}

/// Whether a folder named `name` is an agent's folder (`.claude`, `.cursor`, `.kiro`...):
/// the first part of some registry pattern, or a skill folder.
pub fn is_agent_dir(name: &str) -> bool {
    static DIRS: OnceLock<Vec<String>> = OnceLock::new();
    let dirs = DIRS.get_or_init(|| {
        let mut dirs: Vec<String> = index()
            .entries
            .iter()
            .flat_map(|e| e.pattern.first_dot_literals())
            .chain(skill_dirs().iter().map(|(d, _)| (*d).to_owned()))
            .collect();
        dirs.sort();
        dirs.dedup();
        dirs
    });
    name.starts_with('.') && dirs.iter().any(|d| d.eq_ignore_ascii_case(name))
}

/// The folder that holds a skill root's skills.
pub const SKILLS: &str = "skills";

/// How many folders below the outermost skill root folders `dirs` lie (an agent folder's
/// `skills/`, or `skills/` and `agents/skills/` at the top): 0 in the root itself, more inside
/// a skill; `None` outside every root.
fn skill_root_depth(dirs: &[&str]) -> Option<usize> {
    let conventional = match dirs {
        ["skills", ..] => Some(1),
        ["agents", "skills", ..] => Some(2),
        _ => None,
    };
    let agent = dirs
        .windows(2)
        .position(|w| skill_dir(w[0]).is_some() && w[1].eq_ignore_ascii_case(SKILLS))
        .map(|i| i + 2);
    let end = match (conventional, agent) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    Some(dirs.len() - end)
}

/// A Markdown file directly in the agent skill root `dirs`: a skill to the agents that load
/// bare files as skills and read that root.
fn bare_skill_file(dirs: &[&str], name: &str) -> Option<Found> {
    let dir = dirs.get(dirs.len().checked_sub(2)?)?;
    let lower = name.to_ascii_lowercase();
    if !lower.ends_with(".md") || lower == "skill.md" {
        return None;
    }
    let agents: Vec<&'static str> = all()
        .iter()
        .filter(|a| a.bare_skill_files && a.skill_dirs.iter().any(|d| d.eq_ignore_ascii_case(dir)))
        .map(|a| a.product)
        .collect();
    (!agents.is_empty()).then(|| Found {
        kind: Kind::Instructions,
        agents,
        imports: Vec::new(),
        keys: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
