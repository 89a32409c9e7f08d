//! The closure of what agents load and run. From every file the registry says an agent loads
//! (and every SKILL.md), follow what it brings in: imports, the scripts its commands run, MCP
//! servers' code, output styles, instruction files its settings name, plugins a marketplace
//! lists, files a skill runs or tells the agent to read. Each file reached is read in the role
//! it is reached in ([`crate::registry::Kind`]: a hook's script as code, an import as
//! instructions), whatever its name or folder.
//!
//! The walk is bounded ([`Limits`]: depth, files, bytes); past a bound it stops and says what
//! it did not follow ([`Cut`]), so that the check fails closed. It never leaves the tree: a
//! reference out of the repository is reported ([`Outside`]), not read. One walk serves every
//! mode over a [`Tree`]: the work tree ([`work_tree::WorkTree`]) or a state git holds
//! ([`git_tree::GitTree`]), so one tree gives one verdict.

mod command;
pub mod git_tree;
pub mod reach;
mod refs;
pub mod work_tree;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use crate::guard::context::Base;
use crate::registry::{Import, Kind};
pub use refs::Ref;

/// What a reference names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    /// A path, as written (a `*` in it is a character, not a pattern: `uv run **` in prose
    /// names no file).
    Path(String),
    /// A pattern of paths (`docs/*.md`), where a setting says it takes one (OpenCode's
    /// `instructions`).
    Glob(String),
    /// `python -m pkg.mod`: `pkg/mod.py`, or `pkg/mod/__main__.py`.
    Module(String),
    /// A file name read as instructions wherever the agent looks for its own.
    Name(String),
    /// A plugin's folder.
    Plugin(String),
}

impl Wanted {
    /// The path, pattern or name as written.
    pub fn text(&self) -> &str {
        match self {
            Wanted::Path(p)
            | Wanted::Glob(p)
            | Wanted::Module(p)
            | Wanted::Name(p)
            | Wanted::Plugin(p) => p,
        }
    }
}

/// A tree the closure walks: what it needs to know of it.
pub trait Tree {
    /// The bytes of the file at `path` (relative to the top, `/`-separated), links inside the
    /// tree followed; `Ok(None)` when there is no file there (nothing, a folder, a link out of
    /// the tree); at most `cap` bytes are read (`Err` past that, or when it cannot be read).
    fn file(&self, path: &str, cap: u64) -> Result<Option<Vec<u8>>, String>;
    /// Whether there is a file at `path` (links inside the tree followed).
    fn is_file(&self, path: &str) -> bool;
    /// Whether `path` is a folder.
    fn is_dir(&self, path: &str) -> bool;
    /// The files below `dir`, at most `limit` of them.
    fn files_under(&self, dir: &str, limit: usize) -> Vec<String>;
    /// The files whose name is `name` (ASCII case ignored), anywhere in the tree.
    fn named(&self, name: &str) -> Vec<String>;
}

/// The paths of `paths` whose file name is `name`, ASCII case ignored: [`Tree::named`] over a
/// listing.
pub fn by_name<'p>(paths: impl IntoIterator<Item = &'p String>, name: &str) -> Vec<String> {
    paths
        .into_iter()
        .filter(|p| {
            p.rsplit('/')
                .next()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .cloned()
        .collect()
}

/// How far the closure follows.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Hops from an entry file.
    pub depth: usize,
    /// Files reached.
    pub files: usize,
    /// Bytes read, entries included.
    pub bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: 8,
            files: 2_000,
            bytes: 64 << 20,
        }
    }
}

/// One file the walk starts from: a file an agent loads by itself.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: String,
    pub kind: Kind,
    /// For a SKILL.md: its skill's folder. What lies in it is the skill's, checked with it.
    pub skill: Option<String>,
}

/// A file reached, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    pub path: String,
    pub kind: Kind,
    /// The file that brings it in.
    pub from: String,
    /// How (`@docs/notes.md`, `command: bash .claude/hooks/format.sh`).
    pub how: String,
    /// The files from the entry down to it, the entry first, `from` last.
    pub chain: Vec<String>,
}

/// Something the walk did not follow because a bound was reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The file whose references were not all followed.
    pub from: String,
    pub what: String,
}

/// A reference out of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outside {
    pub from: String,
    pub line: usize,
    pub target: String,
}

/// What the walk found.
#[derive(Debug, Clone, Default)]
pub struct Closure {
    /// Files reached, each once, in the strongest role it is reached in; entries not among
    /// them (unless reached in a stronger role).
    pub reached: Vec<Reached>,
    /// Skill roots a marketplace entry made live (the plugin's `skills/`).
    pub roots: Vec<(String, String)>,
    pub cut: Vec<Cut>,
    pub outside: Vec<Outside>,
}

/// Where a reached file sits, for resolving what it names.
#[derive(Debug, Clone)]
struct Node {
    path: String,
    kind: Kind,
    depth: usize,
    /// The plugin folder it belongs to, when reached through one.
    plugin: Option<String>,
    skill: Option<String>,
    chain: Vec<String>,
    /// Reached by an `@path` import: what it imports is read too, whatever file it is
    /// (Claude Code follows imports recursively).
    imported: bool,
}

/// Walks from `entries` through `tree`.
pub fn follow(tree: &dyn Tree, entries: &[Entry], limits: Limits) -> Closure {
    let mut out = Closure::default();
    // The strongest role each path is known in: entries and what was reached.
    let mut known: HashMap<String, Kind> = HashMap::new();
    let mut queue: VecDeque<Node> = VecDeque::new();
    for e in entries {
        let stronger = known
            .get(&e.path)
            .is_none_or(|k| e.kind.strength() > k.strength());
        if stronger {
            known.insert(e.path.clone(), e.kind);
        }
        queue.push_back(Node {
            path: e.path.clone(),
            kind: e.kind,
            depth: 0,
            plugin: plugin_of(&e.path),
            skill: e.skill.clone(),
            chain: Vec::new(),
            imported: false,
        });
    }
    let mut reached: BTreeMap<String, Reached> = BTreeMap::new();
    let mut names: Vec<(String, String, String)> = Vec::new();
    let mut bytes_left = limits.bytes;
    let mut seen: HashSet<(String, Kind, bool)> = HashSet::new();
    let mut imported_again: HashSet<String> = HashSet::new();
    while let Some(node) = queue.pop_front() {
        if !seen.insert((node.path.clone(), node.kind, node.imported)) {
            continue;
        }
        let text = match tree.file(&node.path, crate::guard::MAX_SCAN_BYTES) {
            Ok(Some(bytes)) => {
                if (bytes.len() as u64) > bytes_left {
                    out.cut.push(Cut {
                        from: node.path.clone(),
                        what: format!(
                            "more than {} MiB read: '{}' was not followed",
                            limits.bytes >> 20,
                            node.path
                        ),
                    });
                    continue;
                }
                bytes_left -= bytes.len() as u64;
                // UTF-16 and UTF-32 as agents decode them; the rest lossily.
                match crate::guard::encoding::wide_text(&bytes) {
                    Some((text, _)) => text,
                    None => String::from_utf8_lossy(&bytes).into_owned(),
                }
            }
            // Its own scan says it cannot be read; there is nothing to follow.
            Ok(None) | Err(_) => continue,
        };
        let mut imports = imports_of(&node.path, node.kind);
        if node.imported && node.kind == Kind::Instructions && !imports.contains(&Import::At) {
            imports.push(Import::At);
        }
        let mut refs = refs::of(&node.path, node.kind, &imports, &text);
        // Documents a file links to are many in a guide and bring nothing further in: they
        // have a bound of their own.
        let (mut links, mut refs): (Vec<Ref>, Vec<Ref>) = refs.drain(..).partition(|r| r.leaf);
        for (list, max) in [(&mut refs, refs::MAX_REFS), (&mut links, refs::MAX_LINKS)] {
            if list.len() > max {
                out.cut.push(Cut {
                    from: node.path.clone(),
                    what: format!(
                        "{} references, of which the first {max} were followed",
                        list.len()
                    ),
                });
                list.truncate(max);
            }
        }
        refs.append(&mut links);
        for r in refs {
            let targets = match &r.target {
                Wanted::Name(name) => {
                    names.push((name.clone(), node.path.clone(), r.how.clone()));
                    continue;
                }
                Wanted::Plugin(dir) => {
                    match resolve_dir(tree, &node, dir, r.bases) {
                        Resolved::Found(dirs) => {
                            for dir in dirs {
                                let mut walk = PluginWalk {
                                    reached: &mut reached,
                                    roots: &mut out.roots,
                                    queue: &mut queue,
                                    known: &mut known,
                                    cut: &mut out.cut,
                                    files: limits.files,
                                };
                                walk.plugin(tree, &dir, &node, &r);
                            }
                        }
                        Resolved::Outside(target) => out.outside.push(Outside {
                            from: node.path.clone(),
                            line: r.line,
                            target,
                        }),
                        Resolved::Missing => {}
                        Resolved::Cut(what) => out.cut.push(Cut {
                            from: node.path.clone(),
                            what,
                        }),
                    }
                    continue;
                }
                Wanted::Path(p) => resolve(tree, &node, p, r.bases, false),
                Wanted::Glob(p) => resolve(tree, &node, p, r.bases, true),
                Wanted::Module(p) => resolve_module(tree, &node, p, r.bases),
            };
            let targets = match targets {
                Resolved::Found(t) => t,
                Resolved::Outside(target) => {
                    out.outside.push(Outside {
                        from: node.path.clone(),
                        line: r.line,
                        target,
                    });
                    continue;
                }
                Resolved::Missing => continue,
                Resolved::Cut(what) => {
                    out.cut.push(Cut {
                        from: node.path.clone(),
                        what,
                    });
                    continue;
                }
            };
            for target in targets {
                // What lies in a SKILL.md's own skill is checked with the skill.
                if let Some(skill) = &node.skill {
                    if target.starts_with(&format!("{skill}/")) {
                        continue;
                    }
                }
                if target == node.path {
                    continue;
                }
                let import = r.how.starts_with('@') && !r.how.starts_with("@{");
                if known
                    .get(&target)
                    .is_some_and(|k| k.strength() >= r.kind.strength())
                {
                    // Known already (an agent loads it by itself), but imported here: what it
                    // imports in turn is read as imports are, once.
                    if import && node.depth < limits.depth && imported_again.insert(target.clone())
                    {
                        let mut chain = node.chain.clone();
                        chain.push(node.path.clone());
                        queue.push_back(Node {
                            plugin: node.plugin.clone(),
                            path: target,
                            kind: r.kind,
                            depth: node.depth + 1,
                            skill: None,
                            chain,
                            imported: true,
                        });
                    }
                    continue;
                }
                // Code importing code is one program, however many modules it has: only hops
                // into another role count.
                let hop = usize::from(!(node.kind == Kind::Script && r.kind == Kind::Script));
                if node.depth + hop > limits.depth {
                    out.cut.push(Cut {
                        from: node.path.clone(),
                        what: format!(
                            "'{target}' is {} hops from where agents start: not followed",
                            node.depth + 1
                        ),
                    });
                    continue;
                }
                if reached.len() >= limits.files {
                    out.cut.push(Cut {
                        from: node.path.clone(),
                        what: format!(
                            "more than {} files reached: '{target}' was not followed",
                            limits.files
                        ),
                    });
                    continue;
                }
                known.insert(target.clone(), r.kind);
                let mut chain = node.chain.clone();
                chain.push(node.path.clone());
                reached.insert(
                    target.clone(),
                    Reached {
                        path: target.clone(),
                        kind: r.kind,
                        from: node.path.clone(),
                        how: r.how.clone(),
                        chain: chain.clone(),
                    },
                );
                if !r.leaf {
                    queue.push_back(Node {
                        plugin: node.plugin.clone().or_else(|| plugin_of(&target)),
                        path: target,
                        kind: r.kind,
                        depth: node.depth + hop,
                        skill: None,
                        chain,
                        imported: import,
                    });
                }
            }
        }
        // Instruction names a settings file adds are files agents load wherever they are.
        if queue.is_empty() && !names.is_empty() {
            for (name, from, how) in std::mem::take(&mut names) {
                if !safe_name(&name) {
                    continue;
                }
                for path in tree.named(&name) {
                    if known
                        .get(&path)
                        .is_some_and(|k| k.strength() >= Kind::Instructions.strength())
                    {
                        continue;
                    }
                    known.insert(path.clone(), Kind::Instructions);
                    reached.insert(
                        path.clone(),
                        Reached {
                            path: path.clone(),
                            kind: Kind::Instructions,
                            from: from.clone(),
                            how: how.clone(),
                            chain: vec![from.clone()],
                        },
                    );
                    queue.push_back(Node {
                        plugin: None,
                        path,
                        kind: Kind::Instructions,
                        depth: 1,
                        skill: None,
                        chain: vec![from.clone()],
                        imported: false,
                    });
                }
            }
        }
    }
    out.reached = reached.into_values().collect();
    out
}

/// How a file imports others: the registry's word for its path, or, for a file reached by
/// reference, the way the role it is reached in is read.
fn imports_of(path: &str, kind: Kind) -> Vec<Import> {
    // A SKILL.md imports nothing by itself (its run instructions and links are read anyway).
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.eq_ignore_ascii_case("SKILL.md") {
        return Vec::new();
    }
    match crate::registry::classify(path) {
        Some(found) => found.imports,
        // An import of an import is read as Claude Code reads imports: recursively.
        None if kind == Kind::Instructions => vec![Import::At],
        None => Vec::new(),
    }
}

/// A plain file name (`NOTES.md`), not a path or a pattern.
fn safe_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', '\\', '*']) && name != "." && name != ".."
}

enum Resolved {
    Found(Vec<String>),
    Outside(String),
    Missing,
    /// Past a bound: what was not followed.
    Cut(String),
}

/// Files a folder or a pattern is listed to, at most.
const MAX_LISTED: usize = 10_000;

/// The folder of `path`'s agent project: the folder holding its agent folder (`pkg` for
/// `pkg/.claude/settings.json`), or its own folder.
fn project_of(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    let dirs = &parts[..parts.len().saturating_sub(1)];
    match dirs.iter().rposition(|d| crate::registry::is_agent_dir(d)) {
        Some(i) => dirs[..i].join("/"),
        None => dirs.join("/"),
    }
}

/// The plugin folder a manifest or marketplace belongs to (`plugins/x` for
/// `plugins/x/.claude-plugin/plugin.json`).
fn plugin_of(path: &str) -> Option<String> {
    if !path.to_ascii_lowercase().contains("plugin") {
        return None;
    }
    crate::registry::PLUGIN_DIRS.iter().find_map(|dir| {
        let lower = path.to_ascii_lowercase();
        let i = lower.rfind(&format!("{dir}/"))?;
        if i == 0 {
            Some(String::new())
        } else if lower.as_bytes()[i - 1] == b'/' {
            Some(path[..i - 1].to_owned())
        } else {
            None
        }
    })
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_owned()
    } else {
        format!("{dir}/{rel}")
    }
}

/// `path` with `.` and `..` taken out; `None` when it climbs out of the top.
fn lexical(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

/// The folders a reference of `node` is read from, in order.
fn base_dirs(node: &Node, bases: &[Base]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for base in bases {
        let dir = match base {
            Base::File => Some(dir_of(&node.path).to_owned()),
            Base::Project => Some(project_of(&node.path)),
            Base::Plugin => node.plugin.clone(),
        };
        if let Some(dir) = dir {
            if !out.contains(&dir) {
                out.push(dir);
            }
        }
    }
    // And the top, where agents are most often started.
    if !out.iter().any(String::is_empty) {
        out.push(String::new());
    }
    out
}

/// The files `target` names for `node` (a path, or with `glob` a pattern), or where it leads
/// out.
fn resolve(tree: &dyn Tree, node: &Node, target: &str, bases: &[Base], glob: bool) -> Resolved {
    let target = target.trim().trim_matches(['"', '\'']).replace('\\', "/");
    if target.is_empty() {
        return Resolved::Missing;
    }
    if target.starts_with('~') || target.starts_with('/') || target.as_bytes().get(1) == Some(&b':')
    {
        return Resolved::Outside(target);
    }
    let mut climbed_out = false;
    for dir in base_dirs(node, bases) {
        let Some(path) = lexical(&join(&dir, &target)) else {
            climbed_out = true;
            continue;
        };
        if glob && path.contains('*') {
            // A pattern of the repository's: its cost is bounded before it is matched.
            let parts = path.split('/').count();
            let any = path.split('/').filter(|p| *p == "**").count();
            if parts > 16 || any > 2 {
                return Resolved::Cut(format!(
                    "the pattern '{target}' is too wide to follow (at most 16 parts and two `**`)"
                ));
            }
            let found = matching(tree, &path);
            if !found.is_empty() {
                return Resolved::Found(found);
            }
            continue;
        }
        let js_module = target.starts_with("./") || target.starts_with("../");
        if let Some(files) = as_files(tree, &path, js_module) {
            return Resolved::Found(files);
        }
    }
    if climbed_out {
        Resolved::Outside(target)
    } else {
        Resolved::Missing
    }
}

/// A file at `path`, or what a folder there runs (a package's `bin` and `main`, an
/// `index.js`, a `__main__.py`); with `js_module` (a relative `require`), also the file Node
/// finds by adding an extension.
fn as_files(tree: &dyn Tree, path: &str, js_module: bool) -> Option<Vec<String>> {
    if tree.is_file(path) {
        return Some(vec![path.to_owned()]);
    }
    if !tree.is_dir(path) {
        // `require('./helper')`: the module's file by the extensions Node tries.
        let name = path.rsplit('/').next().unwrap_or(path);
        if name.contains('.') || !js_module {
            return None;
        }
        return [".js", ".mjs", ".cjs", ".ts", ".mts", ".json"]
            .iter()
            .map(|ext| format!("{path}{ext}"))
            .find(|p| tree.is_file(p))
            .map(|p| vec![p]);
    }
    let mut out = Vec::new();
    if let Ok(Some(bytes)) = tree.file(&join(path, "package.json"), 1 << 20) {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) {
            let mut named: Vec<&str> = Vec::new();
            match v.get("bin") {
                Some(serde_json::Value::String(s)) => named.push(s),
                Some(serde_json::Value::Object(m)) => {
                    named.extend(m.values().filter_map(serde_json::Value::as_str))
                }
                _ => {}
            }
            named.extend(v.get("main").and_then(serde_json::Value::as_str));
            for n in named {
                if let Some(p) = lexical(&join(path, n)) {
                    out.push(p);
                }
            }
        }
    }
    for index in [
        "index.js",
        "index.mjs",
        "index.ts",
        "__main__.py",
        "main.py",
    ] {
        let p = join(path, index);
        if tree.is_file(&p) {
            out.push(p);
        }
    }
    (!out.is_empty()).then_some(out)
}

fn resolve_module(tree: &dyn Tree, node: &Node, module: &str, bases: &[Base]) -> Resolved {
    match resolve(tree, node, module, bases, false) {
        Resolved::Missing => {
            // `pkg/mod.py` is also `pkg/mod/__main__.py` and `pkg/mod/__init__.py`.
            let stem = module.strip_suffix(".py").unwrap_or(module);
            for file in ["__main__.py", "__init__.py"] {
                if let Resolved::Found(f) =
                    resolve(tree, node, &format!("{stem}/{file}"), bases, false)
                {
                    return Resolved::Found(f);
                }
            }
            Resolved::Missing
        }
        other => other,
    }
}

fn resolve_dir(tree: &dyn Tree, node: &Node, dir: &str, bases: &[Base]) -> Resolved {
    let dir = dir.trim().trim_end_matches('/');
    if dir.starts_with('~') || dir.starts_with('/') {
        return Resolved::Outside(dir.to_owned());
    }
    let mut climbed_out = false;
    for base in base_dirs(node, bases) {
        match lexical(&join(&base, dir)) {
            Some(path) if tree.is_dir(&path) => return Resolved::Found(vec![path]),
            Some(_) => {}
            None => climbed_out = true,
        }
    }
    if climbed_out {
        Resolved::Outside(dir.to_owned())
    } else {
        Resolved::Missing
    }
}

/// The files matching a glob (`docs/*.md`, `rules/**/*.md`), below its literal folder.
fn matching(tree: &dyn Tree, pattern: &str) -> Vec<String> {
    let literal: Vec<&str> = pattern
        .split('/')
        .take_while(|p| !p.contains('*'))
        .collect();
    let dir = literal.join("/");
    let matcher = crate::registry::pattern::Pattern::new(pattern);
    tree.files_under(&dir, MAX_LISTED)
        .into_iter()
        .filter(|f| {
            let parts: Vec<&str> = f.split('/').collect();
            matcher.matches(&parts)
        })
        .collect()
}

/// Where a plugin's files go as they are found.
struct PluginWalk<'a> {
    reached: &'a mut BTreeMap<String, Reached>,
    roots: &'a mut Vec<(String, String)>,
    queue: &'a mut VecDeque<Node>,
    known: &'a mut HashMap<String, Kind>,
    cut: &'a mut Vec<Cut>,
    /// The closure's bound on files reached.
    files: usize,
}

impl PluginWalk<'_> {
    /// A plugin folder a marketplace lists: its manifest and its files by the plugin layout
    /// (each in its role), and its `skills/` as a root.
    fn plugin(&mut self, tree: &dyn Tree, dir: &str, node: &Node, r: &Ref) {
        let mut chain = node.chain.clone();
        chain.push(node.path.clone());
        let listed = tree.files_under(dir, MAX_LISTED + 1);
        if listed.len() > MAX_LISTED {
            self.cut.push(Cut {
                from: node.path.clone(),
                what: format!(
                    "the plugin '{dir}' holds more than {MAX_LISTED} files: not all were looked at"
                ),
            });
        }
        for file in listed.into_iter().take(MAX_LISTED) {
            if self.reached.len() >= self.files {
                self.cut.push(Cut {
                    from: node.path.clone(),
                    what: format!("more than {} files reached: the rest of the plugin '{dir}' was not followed", self.files),
                });
                break;
            }
            let rest = file.strip_prefix(&format!("{dir}/")).unwrap_or(&file);
            let kind = crate::registry::in_plugin(rest)
                .map(|f| f.kind)
                .or_else(|| crate::registry::classify(&file).map(|f| f.kind));
            let Some(kind) = kind else { continue };
            if self
                .known
                .get(&file)
                .is_some_and(|k| k.strength() >= kind.strength())
            {
                continue;
            }
            self.known.insert(file.clone(), kind);
            self.reached.insert(
                file.clone(),
                Reached {
                    path: file.clone(),
                    kind,
                    from: node.path.clone(),
                    how: r.how.clone(),
                    chain: chain.clone(),
                },
            );
            self.queue.push_back(Node {
                path: file,
                kind,
                depth: node.depth + 1,
                plugin: Some(dir.to_owned()),
                skill: None,
                chain: chain.clone(),
                imported: false,
            });
        }
        let skills = join(dir, crate::registry::SKILLS);
        if tree.is_dir(&skills) && !self.roots.iter().any(|(r, _)| *r == skills) {
            self.roots.push((skills, node.path.clone()));
        }
    }
}

#[cfg(test)]
mod tests;
