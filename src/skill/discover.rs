//! Finding skills: a directory holding a `SKILL.md`, below one of the skill roots.
//!
//! Walks are bounded (depth and entry count), skip `.git`, `node_modules` and `.skillopt`, and
//! never follow a symlink out of the root they started in.

use std::path::{Path, PathBuf};

/// Directories a walk never enters.
pub const SKIPPED_DIRS: &[&str] = &[".git", "node_modules", ".skillopt"];
/// How deep below a root a `SKILL.md` is looked for (`<root>/<category>/<name>` is depth 2).
pub const MAX_DEPTH: usize = 6;
/// How many directories one walk reads before it stops with a note.
pub const MAX_DIRS: usize = 100_000;

/// A directory that may hold skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Absolute path.
    pub path: PathBuf,
    /// How the user knows it: the configured text (`.claude/skills`) or the path given.
    pub label: String,
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

impl Skill {
    pub fn skill_md(&self) -> PathBuf {
        self.dir.join("SKILL.md")
    }

    /// Directories between root and skill directory.
    pub fn depth(&self) -> usize {
        self.category
            .as_deref()
            .map_or(1, |c| c.split('/').count() + 1)
    }
}

/// Something a walk passed over, for the binary to mention.
#[derive(Debug)]
pub enum Note {
    SymlinkLeavesRoot {
        path: PathBuf,
        target: PathBuf,
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
        match self {
            Note::SymlinkLeavesRoot { path, target } => format!(
                "skipped '{}': symlink to '{}' leaves the skill root",
                show(path).display(),
                show(target).display()
            ),
            Note::TooDeep { path } => format!(
                "skipped '{}': deeper than {MAX_DEPTH} levels below its root",
                show(path).display()
            ),
            Note::Unreadable { path, error } => {
                format!("could not read '{}': {error}", show(path).display())
            }
            Note::LimitReached { root } => format!(
                "stopped walking '{}' after {MAX_DIRS} directories",
                show(root).display()
            ),
        }
    }

    /// An unreadable directory may hide a skill: checks that meet one must not pass.
    pub fn is_error(&self) -> bool {
        matches!(self, Note::Unreadable { .. } | Note::LimitReached { .. })
    }
}

#[derive(Debug, Default)]
pub struct Discovery {
    pub skills: Vec<Skill>,
    pub notes: Vec<Note>,
}

impl Discovery {
    fn merge(&mut self, other: Discovery) {
        for skill in other.skills {
            if !self.skills.iter().any(|s| s.dir == skill.dir) {
                self.skills.push(skill);
            }
        }
        self.notes.extend(other.notes);
    }
}

/// The roots of a repository: the configured ones (`skill.roots`), or the defaults.
/// Relative roots are taken from the top of the work tree; `~/` means HOME.
pub fn repo_roots(
    workdir: &Path,
    configured: Option<&[PathBuf]>,
    home: Option<&Path>,
) -> Vec<Root> {
    let defaults: Vec<PathBuf>;
    let roots = match configured {
        Some(roots) => roots,
        None => {
            defaults = crate::config::DEFAULT_ROOTS
                .iter()
                .map(PathBuf::from)
                .collect();
            &defaults
        }
    };
    roots
        .iter()
        .map(|r| Root {
            path: expand(workdir, r, home),
            label: r.display().to_string(),
        })
        .collect()
}

/// The user-level roots below HOME.
pub fn user_roots(home: &Path) -> Vec<Root> {
    crate::config::USER_ROOTS
        .iter()
        .map(|r| Root {
            path: home.join(r),
            label: format!("~/{r}"),
        })
        .collect()
}

fn expand(base: &Path, root: &Path, home: Option<&Path>) -> PathBuf {
    if let (Ok(rest), Some(home)) = (root.strip_prefix("~"), home) {
        return home.join(rest);
    }
    base.join(root)
}

/// Walks every root that exists. `boundary`: when set (the work tree), a root that is a
/// symlink to somewhere outside it is skipped. Roots reached twice (a symlinked
/// `.claude/skills -> ../.agents/skills`) are walked once.
pub fn discover(roots: &[Root], boundary: Option<&Path>) -> Discovery {
    let mut out = Discovery::default();
    let mut walks: Vec<(&Root, PathBuf)> = Vec::new();
    for root in roots {
        let Ok(meta) = std::fs::metadata(&root.path) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let Ok(canonical) = root.path.canonicalize() else {
            continue;
        };
        // A root configured inside the work tree must stay there; one configured elsewhere
        // (`~/...`, an absolute path) was asked for explicitly.
        if let Some(boundary) = boundary {
            if root.path.starts_with(boundary) && !canonical.starts_with(boundary) {
                out.notes.push(Note::SymlinkLeavesRoot {
                    path: root.path.clone(),
                    target: canonical,
                });
                continue;
            }
        }
        if walks.iter().any(|(_, c)| *c == canonical) {
            continue;
        }
        walks.push((root, canonical));
    }
    let canonical_roots: Vec<PathBuf> = walks.iter().map(|(_, c)| c.clone()).collect();
    for (root, canonical) in &walks {
        out.merge(walk(root, canonical, &canonical_roots));
    }
    out
}

/// Walks one root. A directory holding `SKILL.md` is a skill and is not descended into.
fn walk(root: &Root, canonical_root: &Path, all_roots: &[PathBuf]) -> Discovery {
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
            if SKIPPED_DIRS.iter().any(|s| name == *s) {
                continue;
            }
            let path = entry.path();
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                children.push(path);
            } else if file_type.is_symlink() {
                // Symlinked directories are never followed: a target inside a skill root is
                // walked through that root anyway, and one outside is not ours to read.
                if let Ok(target) = path.canonicalize() {
                    let reached = target.starts_with(canonical_root)
                        || all_roots.iter().any(|r| target.starts_with(r));
                    if target.is_dir() && !reached {
                        out.notes.push(Note::SymlinkLeavesRoot { path, target });
                    }
                }
            }
        }
        children.sort();
        for child in children.into_iter().rev() {
            if depth + 1 > MAX_DEPTH {
                out.notes.push(Note::TooDeep { path: child });
            } else {
                stack.push((child, depth + 1));
            }
        }
    }
    out.skills.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

fn is_skill_dir(dir: &Path) -> bool {
    // symlink_metadata: a SKILL.md that is a symlink still marks a skill; lint judges the link.
    std::fs::symlink_metadata(dir.join("SKILL.md")).is_ok()
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

/// Skills for a path given on the command line: a `SKILL.md`, a skill directory, or any
/// directory to walk. When the path lies under one of `known_roots`, that root (and so the
/// category) is used.
pub fn at_path(path: &Path, known_roots: &[Root]) -> std::io::Result<Discovery> {
    let meta = std::fs::metadata(path)?;
    let dir = if meta.is_file() {
        if path.file_name().is_none_or(|n| n != "SKILL.md") {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a SKILL.md or a directory",
            ));
        }
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        }
    } else {
        path
    };
    // Canonical, so `.` and `..` compare with the roots.
    let dir = dir.canonicalize()?;
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
            },
        };
        return Ok(Discovery {
            skills: vec![skill_at(&root, &dir)],
            notes: Vec::new(),
        });
    }
    // A folder holding skill roots (the repository top, `.claude`): walk those roots, exactly
    // as a run without a path does.
    let inner: Vec<Root> = known_roots
        .iter()
        .filter(|r| r.path.starts_with(&dir))
        .cloned()
        .collect();
    if owner.is_none() && !inner.is_empty() {
        return Ok(discover(&inner, Some(&dir)));
    }
    let root = match owner {
        Some(root) => root.clone(),
        None => Root {
            path: dir.clone(),
            label: path.display().to_string(),
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
        },
        &dir,
        &canonical_roots,
    );
    // Re-anchor categories on the owning root.
    for skill in &mut found.skills {
        *skill = skill_at(&root, &skill.dir);
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
    fn finds_plain_and_categorised_skills_and_skips_ignored_dirs() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join(".claude/skills");
        touch_skill(&root.join("alpha"));
        touch_skill(&root.join("ops/deploy"));
        touch_skill(&root.join("node_modules/evil"));
        touch_skill(&root.join("alpha/.skillopt/nested"));
        touch_skill(&root.join("alpha/references/inner"));
        let roots = repo_roots(t.path(), None, None);
        let found = discover(&roots, Some(&t.path().canonicalize().unwrap()));
        let names: Vec<_> = found
            .skills
            .iter()
            .map(|s| (s.dir_name.as_str(), s.category.as_deref()))
            .collect();
        assert_eq!(names, vec![("alpha", None), ("deploy", Some("ops"))]);
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
        let roots = repo_roots(t.path(), None, None);
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
        }];
        let found = at_path(&t.path().join("skills/ops/deploy/SKILL.md"), &roots).unwrap();
        assert_eq!(found.skills[0].category.as_deref(), Some("ops"));
        let found = at_path(&t.path().join("skills/ops"), &roots).unwrap();
        assert_eq!(found.skills[0].category.as_deref(), Some("ops"));
        let found = at_path(&t.path().join("skills/ops/deploy"), &[]).unwrap();
        assert_eq!(found.skills[0].category, None);
    }
}
