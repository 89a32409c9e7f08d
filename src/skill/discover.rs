//! Finding skills: a directory holding a `SKILL.md`, below one of the skill roots.
//!
//! Walks are bounded (depth and entry count), skip `.git` (but not `node_modules` or
//! `.skillopt`: agents load a skill or a category of such a name like any other), and never
//! follow a symlink out of the root they started in. What a walk cannot read, or a skill
//! it refuses to follow, is a note that fails the run: a check never passes by not looking.

use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use super::links;

use super::limits::{MAX_DEPTH, SKIPPED_DIRS};
/// How many directories one walk reads before it stops with a note.
pub const MAX_DIRS: usize = 100_000;
/// Where a skill keeps the signals not yet used (relative to the skill directory).
pub const PENDING_SIGNALS: &str = super::layout::PENDING;

/// A directory that may hold skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Absolute path.
    pub path: PathBuf,
    /// How the user knows it: the configured text (`.claude/skills`) or the path given.
    pub label: String,
    /// Named by the user (flag, environment, git config) rather than a default: a missing one
    /// is worth a warning.
    pub explicit: bool,
}

/// One skill found by a walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The directory name; `SKILL.md`'s `name` should equal it.
    pub dir_name: String,
    /// Absolute path of the skill directory.
    pub dir: PathBuf,
    pub root: Root,
    /// The directories between the root and the skill, joined with `/` (one level is a
    /// category; more is nesting agents may not load).
    pub category: Option<String>,
}

/// Something a walk passed over, for the binary to mention.
#[derive(Debug)]
pub enum Note {
    /// A symlinked directory leading out of the skill roots. `skill`: it is a skill that agents
    /// would load through the link, so leaving it unchecked must fail the run.
    SymlinkLeavesRoot {
        path: PathBuf,
        target: PathBuf,
        skill: bool,
    },
    /// A root that lies outside the repository (or resolves there through a symlink).
    RootOutside {
        path: PathBuf,
        target: PathBuf,
    },
    /// A symbolic link in a skill root (outside any skill) that leads out of the repository:
    /// agents would load whatever it points to on each machine.
    LinkLeavesRepository {
        path: PathBuf,
        /// The link text.
        target: String,
    },
    /// A submodule at or below a skill root whose content cannot be read here.
    SubmoduleUnavailable {
        path: PathBuf,
        commit: String,
        reason: String,
    },
    MissingRoot {
        path: PathBuf,
    },
    /// A submodule outside the skill roots whose commit changed, but whose content is not here
    /// to be looked into for agent roots (a warning: nothing says it holds any).
    SubmoduleNotSearched {
        path: PathBuf,
        reason: String,
    },
    /// A skill root spelled otherwise than agents spell it (`.Claude/skills`): on macOS and
    /// Windows checkouts agents load it as `canonical`; it is checked like any root.
    CaseVariant {
        path: PathBuf,
        canonical: String,
    },
    TooDeep {
        path: PathBuf,
    },
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    LimitReached {
        root: PathBuf,
    },
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render(|p| p.to_owned()))
    }
}

impl Note {
    /// The message, with paths shown through `show` (the binary makes them relative).
    pub fn render(&self, show: impl Fn(&Path) -> PathBuf) -> String {
        let s = |p: &Path| show(p).display().to_string();
        match self {
            Note::SymlinkLeavesRoot {
                path,
                target,
                skill: true,
            } => format!(
                "skill '{}' is a symlink to '{}', outside the skill roots; it was not checked",
                s(path),
                s(target)
            ),
            Note::SymlinkLeavesRoot {
                path,
                target,
                skill: false,
            } => format!(
                "skipped '{}': symlink to '{}' leaves the skill root",
                s(path),
                s(target)
            ),
            Note::RootOutside { path, target } => format!(
                "skill root '{}' resolves to '{}', outside the repository; its skills were not checked",
                s(path),
                s(target)
            ),
            Note::LinkLeavesRepository { path, target } => format!(
                "'{}' is a symlink to '{target}', outside the repository; what agents load through it was not checked",
                s(path)
            ),
            Note::SubmoduleUnavailable { path, commit, reason } => format!(
                "submodule '{}' (commit {}) could not be checked: {reason}",
                s(path),
                &commit[..commit.len().min(12)]
            ),
            Note::MissingRoot { path } => {
                format!("configured skill root '{}' does not exist", s(path))
            }
            Note::SubmoduleNotSearched { path, reason } => format!(
                "submodule '{}' changed, but could not be looked into for agent roots: {reason}",
                s(path)
            ),
            Note::CaseVariant { path, canonical } => format!(
                "'{}' is a case variant of '{canonical}': agents on macOS and Windows load its skills from there; checked as a skill root",
                s(path)
            ),
            Note::TooDeep { path } => format!(
                "'{}' is deeper than {MAX_DEPTH} levels below its root; skills there were not checked",
                s(path)
            ),
            Note::Unreadable { path, error } => format!("could not read '{}': {error}", s(path)),
            Note::LimitReached { root } => {
                format!("stopped walking '{}' after {MAX_DIRS} directories", s(root))
            }
        }
    }

    /// Whether the note means something was not checked that should have been.
    pub fn is_error(&self) -> bool {
        matches!(
            self,
            Note::Unreadable { .. }
                | Note::LimitReached { .. }
                | Note::TooDeep { .. }
                | Note::SymlinkLeavesRoot { skill: true, .. }
                | Note::RootOutside { .. }
                | Note::LinkLeavesRepository { .. }
                | Note::SubmoduleUnavailable { .. }
        )
    }

    /// What to do about it.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Note::SymlinkLeavesRoot { skill: true, .. } => Some(
                "add the target's folder to the roots (git config --add skill.roots <dir>), or move the skill into a root",
            ),
            Note::RootOutside { .. } => Some("name its target with --root to check it, or remove the link"),
            Note::LinkLeavesRepository { .. } => Some("copy the skill into the repository (a link out of it is not reviewable), or remove the link"),
            Note::SubmoduleUnavailable { .. } => Some("make its objects available: git submodule update --init --recursive (in CI, check out with submodules, e.g. actions/checkout's `submodules: recursive`); or remove it from the skill root"),
            Note::MissingRoot { .. } => Some("fix or remove it: git config --unset-all skill.roots, or check GIT_SKILL_ROOTS and --root"),
            Note::CaseVariant { .. } => Some("spell the folders as agents do (git mv), so that every checkout has one root"),
            Note::SubmoduleNotSearched { .. } => Some("make its objects available (git submodule update --init --recursive; in CI, check out with submodules) to have its skills checked"),
            Note::Unreadable { .. } => Some("fix the permissions, or move the directory out of the skill roots"),
            Note::LimitReached { .. } => Some("point --root at a smaller directory"),
            Note::TooDeep { .. } => Some("move the skills nearer to their root; agents load skills a few levels down"),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct Discovery {
    pub skills: Vec<Skill>,
    pub notes: Vec<Note>,
    /// Directories that hold pending signals (`.skillopt/pending/signal.json`) but no
    /// SKILL.md any more: a skill deleted with its feedback left behind.
    pub deleted: Vec<Skill>,
}

impl Discovery {
    /// Adds another walk's result; a skill reached twice is kept once.
    pub fn merge(&mut self, other: Discovery) {
        for skill in other.skills {
            if !self.skills.iter().any(|s| s.dir == skill.dir) {
                self.skills.push(skill);
            }
        }
        self.notes.extend(other.notes);
        for skill in other.deleted {
            if !self.deleted.iter().any(|s| s.dir == skill.dir) {
                self.deleted.push(skill);
            }
        }
    }
}

/// The default roots below the top of a work tree.
pub fn default_roots(workdir: &Path) -> Vec<Root> {
    crate::config::default_roots()
        .into_iter()
        .map(|r| Root {
            path: workdir.join(&r),
            label: r,
            explicit: false,
        })
        .collect()
}

/// The agents' own roots at the top of a work tree (`.claude/skills`, ...; see
/// [`super::loader`]), which configuration adds to rather than replaces.
pub fn agent_roots(workdir: &Path) -> Vec<Root> {
    super::loader::agent_roots()
        .map(|r| Root {
            path: workdir.join(&r),
            label: r,
            explicit: false,
        })
        .collect()
}

/// Roots the user named, relative to `base`; `~/` means HOME.
pub fn explicit_roots(base: &Path, roots: &[PathBuf], home: Option<&Path>) -> Vec<Root> {
    roots
        .iter()
        .map(|r| {
            let path = match (r.strip_prefix("~"), home) {
                (Ok(rest), Some(home)) => home.join(rest),
                _ => base.join(r),
            };
            Root {
                path: lexical(&path),
                label: r.display().to_string(),
                explicit: true,
            }
        })
        .collect()
}

/// `path` with `.` and `..` resolved by text alone.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Walks every root that exists. `boundary` (the work tree): a root inside it that resolves
/// outside it through a symlink is skipped; roots named elsewhere on purpose are walked. Roots
/// reached twice (a symlinked `.claude/skills -> ../.agents/skills`) are walked once.
pub fn discover(roots: &[Root], boundary: Option<&Path>) -> Discovery {
    let mut out = Discovery::default();
    let mut walks: Vec<(&Root, PathBuf)> = Vec::new();
    for root in roots {
        let canonical = match root.path.canonicalize() {
            Ok(c) => c,
            // (A root below a file: `.clinerules` is a file for one agent and a folder with
            // `skills/` for another.)
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                if root.explicit {
                    out.notes.push(Note::MissingRoot {
                        path: root.path.clone(),
                    });
                }
                continue;
            }
            Err(error) => {
                out.notes.push(Note::Unreadable {
                    path: root.path.clone(),
                    error,
                });
                continue;
            }
        };
        if !canonical.is_dir() {
            if root.explicit {
                out.notes.push(Note::MissingRoot {
                    path: root.path.clone(),
                });
            }
            continue;
        }
        if let Some(boundary) = boundary {
            if root.path.starts_with(boundary) && !canonical.starts_with(boundary) {
                out.notes.push(Note::RootOutside {
                    path: root.path.clone(),
                    target: canonical,
                });
                continue;
            }
        }
        if walks.iter().any(|(_, c)| *c == canonical) {
            continue;
        }
        if super::loader::is_case_variant(&root.label) {
            out.notes.push(Note::CaseVariant {
                path: root.path.clone(),
                canonical: super::loader::canonical(&root.label),
            });
        }
        walks.push((root, canonical));
    }
    let canonical_roots: Vec<PathBuf> = walks.iter().map(|(_, c)| c.clone()).collect();
    // Inside a repository, links in the roots are judged by their text, as the hook and the
    // range scan judge them from git objects.
    let tree = boundary.map(|top| RepoTree::new(top, roots));
    for (root, canonical) in &walks {
        out.merge(walk(root, canonical, &canonical_roots, tree.as_ref()));
    }
    // Roots that differ only in case are one folder on a case-insensitive checkout: a folder
    // in one that is a skill in another is checked as a skill too.
    let mut variants = Vec::new();
    for (a, _) in &walks {
        for (b, _) in &walks {
            let same = a.path != b.path
                && a.path.to_string_lossy().to_lowercase()
                    == b.path.to_string_lossy().to_lowercase();
            if !same {
                continue;
            }
            for skill in out.skills.iter().filter(|s| s.dir.starts_with(&a.path)) {
                let Ok(rel) = skill.dir.strip_prefix(&a.path) else {
                    continue;
                };
                let candidate = b.path.join(rel);
                let known = out
                    .skills
                    .iter()
                    .chain(&variants)
                    .any(|s: &Skill| s.dir == candidate);
                if candidate.is_dir() && !known {
                    variants.push(skill_at(b, &candidate));
                }
            }
        }
    }
    // After the others, in the order the roots came: listings keep their order.
    out.skills.extend(variants);
    out
}

/// The work tree seen from its top, for [`links::judge_root_link`].
struct RepoTree {
    top: PathBuf,
    /// The skill roots inside it, relative to it, resolved through links.
    roots: Vec<String>,
}

impl RepoTree {
    fn new(top: &Path, roots: &[Root]) -> RepoTree {
        let mut tree = RepoTree {
            top: top.to_owned(),
            roots: Vec::new(),
        };
        let resolved: Vec<String> = roots
            .iter()
            .filter_map(|r| r.path.strip_prefix(top).ok())
            .filter_map(|rel| {
                let rel = rel.to_string_lossy().replace('\\', "/");
                links::resolve_path(&rel, &|p| tree.lookup(p))
            })
            .collect();
        tree.roots = resolved;
        tree
    }

    fn lookup(&self, rel: &str) -> links::Node {
        let path = self.top.join(rel);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&path) {
                Ok(t) => links::Node::Link(t.to_string_lossy().into_owned()),
                Err(_) => links::Node::Missing,
            },
            Ok(m) if m.is_dir() => links::Node::Dir,
            Ok(_) => links::Node::File,
            Err(_) => links::Node::Missing,
        }
    }

    /// The note for the link at `path`, if it deserves one.
    fn judge(&self, path: &Path) -> Option<Note> {
        let rel = path.strip_prefix(&self.top).ok()?;
        let rel = rel.to_string_lossy().replace('\\', "/");
        let target = std::fs::read_link(path)
            .ok()?
            .to_string_lossy()
            .into_owned();
        match links::judge_root_link(&rel, &target, &self.roots, &|p| self.lookup(p)) {
            links::RootLink::Harmless => None,
            links::RootLink::LeavesRepository => Some(Note::LinkLeavesRepository {
                path: path.to_owned(),
                target,
            }),
            links::RootLink::OutsideRoots { resolved, skill } => Some(Note::SymlinkLeavesRoot {
                path: path.to_owned(),
                target: self.top.join(resolved),
                skill,
            }),
        }
    }
}

/// Walks one root. A directory holding `SKILL.md` is a skill and is not descended into.
fn walk(
    root: &Root,
    canonical_root: &Path,
    all_roots: &[PathBuf],
    tree: Option<&RepoTree>,
) -> Discovery {
    let mut out = Discovery::default();
    // (path as seen below the root, depth)
    let mut stack = vec![(root.path.clone(), 0usize)];
    let mut dirs_read = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        if is_skill_dir(&dir) {
            out.skills.push(skill_at(root, &dir));
            continue;
        }
        dirs_read += 1;
        if dirs_read > MAX_DIRS {
            out.notes.push(Note::LimitReached {
                root: root.path.clone(),
            });
            break;
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) => {
                out.notes.push(Note::Unreadable { path: dir, error });
                continue;
            }
        };
        let mut children = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    out.notes.push(Note::Unreadable {
                        path: dir.clone(),
                        error,
                    });
                    continue;
                }
            };
            let name = entry.file_name();
            if name == super::layout::DIR && depth > 0 && dir.join(PENDING_SIGNALS).is_file() {
                out.deleted.push(skill_at(root, &dir));
            }
            if SKIPPED_DIRS.iter().any(|s| name == *s) {
                continue;
            }
            let path = entry.path();
            let file_type = match entry.file_type() {
                Ok(t) => t,
                Err(error) => {
                    out.notes.push(Note::Unreadable { path, error });
                    continue;
                }
            };
            if file_type.is_dir() {
                children.push(path);
            } else if file_type.is_symlink() {
                // Symlinked directories are never followed: a target inside a skill root is
                // walked through that root anyway, and one outside is not ours to read.
                if let Some(tree) = tree.filter(|t| path.starts_with(&t.top)) {
                    out.notes.extend(tree.judge(&path));
                } else if let Ok(target) = path.canonicalize() {
                    let reached = target.starts_with(canonical_root)
                        || all_roots.iter().any(|r| target.starts_with(r));
                    if target.is_dir() && !reached {
                        let skill = is_skill_dir(&target);
                        out.notes.push(Note::SymlinkLeavesRoot {
                            path,
                            target,
                            skill,
                        });
                    }
                }
            }
        }
        children.sort();
        // Folders that differ only in case from a skill's are that skill on a
        // case-insensitive checkout: each is checked as a skill.
        let folded = |p: &Path| {
            p.file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default()
        };
        let skill_names: std::collections::HashSet<String> = children
            .iter()
            .filter(|c| is_skill_dir(c))
            .map(|c| folded(c))
            .collect();
        children.retain(|child| {
            let variant = !skill_names.is_empty()
                && skill_names.contains(&folded(child))
                && !is_skill_dir(child);
            if variant {
                out.skills.push(skill_at(root, child));
            }
            !variant
        });
        for child in children.into_iter().rev() {
            if depth + 1 > MAX_DEPTH {
                out.notes.push(Note::TooDeep { path: child });
            } else {
                stack.push((child, depth + 1));
            }
        }
    }
    out.skills.sort_by(|a, b| a.dir.cmp(&b.dir));
    out.deleted.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

fn is_skill_dir(dir: &Path) -> bool {
    // symlink_metadata: a SKILL.md that is a symlink still marks a skill; lint judges the link.
    if std::fs::symlink_metadata(dir.join("SKILL.md")).is_ok() {
        return true;
    }
    // `skill.md` in any case marks one too: on case-insensitive file systems agents load it as
    // SKILL.md, so it must not escape the checks (lint then asks for the right name).
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|e| {
            e.file_name()
                .to_string_lossy()
                .eq_ignore_ascii_case("SKILL.md")
        })
    })
}

fn skill_at(root: &Root, dir: &Path) -> Skill {
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let category = dir
        .parent()
        .and_then(|p| p.strip_prefix(&root.path).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .map(|rel| {
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        });
    Skill {
        dir_name,
        dir: dir.to_owned(),
        root: root.clone(),
        category,
    }
}

/// Why a path given on the command line is not something to check.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("no SKILL.md found in '{}'", path.display())]
    NoSkill { path: PathBuf },
    #[error("'{}' is a file but not a SKILL.md", path.display())]
    NotSkillMd { path: PathBuf },
    #[error("could not read '{}'", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Skills for a path given on the command line: a `SKILL.md`, a skill directory, or any
/// directory to walk. When the path lies under one of `known_roots`, that root (and so the
/// category) is used; a folder holding roots (the repository top) is checked through them.
/// `top`: the top of the work tree the path is in, if any (links are judged against it).
pub fn at_path(
    path: &Path,
    known_roots: &[Root],
    top: Option<&Path>,
) -> Result<Discovery, PathError> {
    let io = |source| PathError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    let dir = if meta.is_file() {
        if path.file_name().is_none_or(|n| n != "SKILL.md") {
            return Err(PathError::NotSkillMd {
                path: path.to_owned(),
            });
        }
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        }
    } else {
        path
    };
    // Canonical, so `.` and `..` compare with the roots.
    let dir = dir.canonicalize().map_err(io)?;
    // Prefer the longest known root that contains the path.
    let owner = known_roots
        .iter()
        .filter(|r| dir.starts_with(&r.path) && dir != r.path)
        .max_by_key(|r| r.path.as_os_str().len());
    if is_skill_dir(&dir) {
        let root = match owner {
            Some(root) => root.clone(),
            None => Root {
                path: dir.parent().map(Path::to_owned).unwrap_or(dir.clone()),
                label: dir
                    .parent()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                explicit: true,
            },
        };
        return Ok(Discovery {
            skills: vec![skill_at(&root, &dir)],
            ..Discovery::default()
        });
    }
    let inner: Vec<Root> = known_roots
        .iter()
        .filter(|r| r.path.starts_with(&dir))
        .cloned()
        .collect();
    let top = top.filter(|t| dir.starts_with(t));
    if owner.is_none() && !inner.is_empty() {
        return Ok(discover(&inner, Some(top.unwrap_or(&dir))));
    }
    // A folder of another repository (a clone of anthropics/skills): the whole folder is
    // walked, and a skill inside one of its own roots takes its category from that root, so that
    // `skills/.curated/x` is in category `.curated`, not `skills/.curated`.
    let held: Vec<Root> = if owner.is_none() {
        crate::config::default_roots()
            .iter()
            .filter(|r| dir.join(r).is_dir())
            .map(|r| Root {
                path: dir.join(r),
                label: path.join(r).display().to_string(),
                explicit: true,
            })
            .collect()
    } else {
        Vec::new()
    };
    let root = match owner {
        Some(root) => root.clone(),
        None => Root {
            path: dir.clone(),
            label: path.display().to_string(),
            explicit: true,
        },
    };
    let canonical_roots: Vec<PathBuf> = known_roots
        .iter()
        .filter_map(|r| r.path.canonicalize().ok())
        .collect();
    let mut found = walk(
        &Root {
            path: dir.clone(),
            label: root.label.clone(),
            explicit: true,
        },
        &dir,
        &canonical_roots,
        top.map(|t| RepoTree::new(t, known_roots)).as_ref(),
    );
    // Re-anchor categories on the owning root (the longest held root containing the skill).
    for skill in found.skills.iter_mut().chain(&mut found.deleted) {
        let anchor = held
            .iter()
            .filter(|r| skill.dir.starts_with(&r.path))
            .max_by_key(|r| r.path.as_os_str().len())
            .unwrap_or(&root);
        *skill = skill_at(anchor, &skill.dir);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn touch_skill(dir: &Path) {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join("SKILL.md"), "---\nname: x\ndescription: y\n---\n").unwrap();
    }

    #[test]
    fn signals_left_by_a_deleted_skill_are_found() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("skills");
        touch_skill(&root.join("kept"));
        fs::create_dir_all(root.join("kept/.skillopt/pending")).unwrap();
        fs::write(root.join("kept/.skillopt/pending/signal.json"), "").unwrap();
        fs::create_dir_all(root.join("ops/gone/.skillopt/pending")).unwrap();
        fs::write(root.join("ops/gone/.skillopt/pending/signal.json"), "").unwrap();
        // Only an archive, nothing pending: nothing to show.
        fs::create_dir_all(root.join("old/.skillopt/resolved")).unwrap();
        let roots = explicit_roots(t.path(), &[PathBuf::from("skills")], None);
        let found = discover(&roots, None);
        assert_eq!(found.skills.len(), 1);
        assert_eq!(found.deleted.len(), 1);
        assert_eq!(found.deleted[0].dir_name, "gone");
        assert_eq!(found.deleted[0].category.as_deref(), Some("ops"));
    }

    #[test]
    fn finds_plain_and_categorised_skills_and_skips_ignored_dirs() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join(".claude/skills");
        touch_skill(&root.join("alpha"));
        touch_skill(&root.join("ops/deploy"));
        // Agents load a category named node_modules like any other.
        touch_skill(&root.join("node_modules/evil"));
        touch_skill(&root.join("alpha/.skillopt/nested"));
        touch_skill(&root.join("alpha/references/inner"));
        touch_skill(&root.join(".git/hidden"));
        touch_skill(&root.join(".skillopt"));
        let roots = default_roots(t.path());
        let found = discover(&roots, Some(&t.path().canonicalize().unwrap()));
        let names: Vec<_> = found
            .skills
            .iter()
            .map(|s| (s.dir_name.as_str(), s.category.as_deref()))
            .collect();
        assert_eq!(
            names,
            vec![
                (".skillopt", None),
                ("alpha", None),
                ("evil", Some("node_modules")),
                ("deploy", Some("ops"))
            ]
        );
        assert_eq!(found.skills[0].root.label, ".claude/skills");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_root_are_not_followed() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        touch_skill(&outside.join("stolen"));
        let root = t.path().join("repo/skills");
        fs::create_dir_all(&root).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let roots = vec![Root {
            path: root.clone(),
            label: "skills".into(),
            explicit: true,
        }];
        let found = discover(&roots, None);
        assert!(found.skills.is_empty());
        assert!(matches!(found.notes[0], Note::SymlinkLeavesRoot { .. }));
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_terminate_and_mirrored_roots_count_once() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join(".agents/skills");
        touch_skill(&root.join("one"));
        fs::create_dir_all(root.join("loop")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("loop/back")).unwrap();
        fs::create_dir_all(t.path().join(".claude")).unwrap();
        std::os::unix::fs::symlink(&root, t.path().join(".claude/skills")).unwrap();
        let roots = default_roots(t.path());
        let found = discover(&roots, Some(&t.path().canonicalize().unwrap()));
        assert_eq!(found.skills.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_alias_inside_the_root_is_not_a_second_skill() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("skills");
        touch_skill(&root.join("real"));
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        let roots = vec![Root {
            path: root,
            label: "skills".into(),
            explicit: true,
        }];
        let found = discover(&roots, None);
        assert_eq!(found.skills.len(), 1);
        assert!(found.notes.is_empty(), "{:?}", found.notes);
    }

    #[test]
    fn depth_is_bounded() {
        let t = tempfile::tempdir().unwrap();
        let mut deep = t.path().join("skills");
        for i in 0..MAX_DEPTH + 2 {
            deep = deep.join(format!("d{i}"));
        }
        touch_skill(&deep);
        let roots = vec![Root {
            path: t.path().join("skills"),
            label: "skills".into(),
            explicit: true,
        }];
        let found = discover(&roots, None);
        assert!(found.skills.is_empty());
        assert!(found
            .notes
            .iter()
            .any(|n| matches!(n, Note::TooDeep { .. })));
    }

    #[test]
    fn at_path_uses_owning_root_for_category() {
        let t = tempfile::tempdir().unwrap();
        touch_skill(&t.path().join("skills/ops/deploy"));
        let roots = vec![Root {
            path: t.path().join("skills"),
            label: "skills".into(),
            explicit: true,
        }];
        let found = at_path(&t.path().join("skills/ops/deploy/SKILL.md"), &roots, None).unwrap();
        assert_eq!(found.skills[0].category.as_deref(), Some("ops"));
        let found = at_path(&t.path().join("skills/ops"), &roots, None).unwrap();
        assert_eq!(found.skills[0].category.as_deref(), Some("ops"));
        let found = at_path(&t.path().join("skills/ops/deploy"), &[], None).unwrap();
        assert_eq!(found.skills[0].category, None);
    }

    #[test]
    fn a_folder_of_another_repository_is_read_through_its_roots() {
        let t = tempfile::tempdir().unwrap();
        let clone = t.path().join("openai-skills");
        touch_skill(&clone.join("skills/.curated/gh-fix-ci"));
        touch_skill(&clone.join("skills/.system/skill-creator"));
        touch_skill(&clone.join(".claude/skills/local"));
        // Outside every root: still found, nothing is left unchecked.
        touch_skill(&clone.join("plugins/evil"));
        let found = at_path(&clone, &[], None).unwrap();
        let mut got: Vec<(String, Option<String>)> = found
            .skills
            .iter()
            .map(|s| (s.dir_name.clone(), s.category.clone()))
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                ("evil".to_owned(), Some("plugins".to_owned())),
                ("gh-fix-ci".to_owned(), Some(".curated".to_owned())),
                ("local".to_owned(), None),
                ("skill-creator".to_owned(), Some(".system".to_owned())),
            ]
        );
    }
}
