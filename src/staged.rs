//! Skills at their staged state: which skills a commit touches, and their files as the index
//! holds them. Read from git objects only, so unstaged edits never change a verdict.

use std::collections::{BTreeMap, HashMap};

use crate::git::{Entry, EntryKind, GitError, Repo};
use crate::skill::files::SKILL_MD_READ_CAP;
use crate::skill::{FileEntry, FileKind, SkillFiles};

/// Depth below a root at which a `SKILL.md` is still looked for (as in discovery).
const MAX_DEPTH: usize = crate::skill::discover::MAX_DEPTH;

/// A skill touched by the staged changes, with its staged files.
#[derive(Debug)]
pub struct StagedSkill {
    /// The skill directory relative to the top of the work tree, `/`-separated.
    pub dir: String,
    pub dir_name: String,
    /// The root it was found under, as configured.
    pub root: String,
    pub category: Option<String>,
    pub files: SkillFiles,
    blobs: HashMap<String, Vec<u8>>,
}

impl StagedSkill {
    /// The staged SKILL.md's frontmatter, when it parses.
    pub fn meta(&self) -> Option<crate::skill::meta::SkillMeta> {
        let bytes = self.files.skill_md.as_deref()?;
        crate::skill::meta::parse(bytes).ok().map(|(m, _)| m)
    }

    /// The frontmatter's `name`, or the directory's.
    pub fn name(&self) -> String {
        self.meta()
            .and_then(|m| m.name)
            .unwrap_or_else(|| self.dir_name.clone())
    }

    /// A staged file's bytes, by path relative to the skill.
    pub fn read(&self, rel: &str) -> std::io::Result<Vec<u8>> {
        self.blobs.get(rel).cloned().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("'{rel}' is not staged"),
            )
        })
    }
}

/// The changes between HEAD and the index below the roots (`roots`: directories relative to
/// the top, as `(path, label)`), grouped by the skill that owns them, each skill at its
/// staged state. Changes inside `.skillopt/` (git-skill's own records) are not skill content.
pub fn changed_skills(
    repo: &Repo,
    roots: &[(String, String)],
) -> Result<Vec<StagedSkill>, GitError> {
    let prefixes: Vec<String> = roots.iter().map(|(p, _)| p.clone()).collect();
    let staged = repo.staged_under(&prefixes)?;
    let head = repo.head_under(&prefixes)?;
    changed_between(repo, &head, &staged, roots)
}

/// The same between two revisions (CI range mode): the skills changed from `from` to `to`,
/// each at its content in `to`, read from git objects.
pub fn changed_between_revisions(
    repo: &Repo,
    from: &str,
    to: &str,
    roots: &[(String, String)],
) -> Result<Vec<StagedSkill>, GitError> {
    let prefixes: Vec<String> = roots.iter().map(|(p, _)| p.clone()).collect();
    let old = repo.tree_under(repo.tree_of(from)?, &prefixes)?;
    let new = repo.tree_under(repo.tree_of(to)?, &prefixes)?;
    changed_between(repo, &old, &new, roots)
}

/// Skills with a difference between `head` (before) and `staged` (after), at their `staged`
/// state.
fn changed_between(
    repo: &Repo,
    head: &[Entry],
    staged: &[Entry],
    roots: &[(String, String)],
) -> Result<Vec<StagedSkill>, GitError> {
    let staged_map: BTreeMap<&str, &Entry> = staged.iter().map(|e| (e.path.as_str(), e)).collect();
    let head_map: BTreeMap<&str, &Entry> = head.iter().map(|e| (e.path.as_str(), e)).collect();

    let mut changed: Vec<&str> = Vec::new();
    for (path, entry) in &staged_map {
        match head_map.get(path) {
            Some(old) if old.id == entry.id && old.kind == entry.kind => {}
            _ => changed.push(path),
        }
    }
    changed.extend(
        head_map
            .keys()
            .filter(|p| !staged_map.contains_key(*p))
            .copied(),
    );

    // Owner: the nearest directory upward holding a staged SKILL.md; or, when SKILL.md was
    // deleted but files remain, the directory that held it at HEAD.
    let mut owners: BTreeMap<String, String> = BTreeMap::new(); // dir -> root label
    for path in changed {
        if path.split('/').any(|c| c == ".skillopt") {
            continue;
        }
        let Some((root, label)) = roots
            .iter()
            .find(|(r, _)| path.starts_with(&format!("{r}/")))
        else {
            continue;
        };
        let is_skill = |dir: &str| {
            let skill_md = format!("{dir}/SKILL.md");
            let inside = format!("{dir}/");
            let remains = staged_map
                .range(inside.as_str()..)
                .next()
                .is_some_and(|(p, _)| p.starts_with(&inside));
            staged_map.contains_key(skill_md.as_str())
                || (head_map.contains_key(skill_md.as_str()) && remains)
        };
        let mut dir = path;
        let mut owner = None;
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if parent.len() <= root.len() {
                break;
            }
            let depth = parent[root.len() + 1..].split('/').count();
            if depth <= MAX_DEPTH && is_skill(parent) {
                owner = Some(parent);
                break;
            }
            dir = parent;
        }
        if let Some(owner) = owner {
            owners
                .entry(owner.to_owned())
                .or_insert_with(|| label.clone());
        }
    }

    let mut out = Vec::new();
    for (dir, label) in owners {
        let root = roots
            .iter()
            .find(|(_, l)| *l == label)
            .map(|(r, _)| r.clone())
            .unwrap_or_default();
        out.push(load(repo, &dir, &root, &label, staged)?);
    }
    Ok(out)
}

/// A changed skill before and after (`before` is `None` for a new skill).
#[derive(Debug)]
pub struct SkillChange {
    pub before: Option<StagedSkill>,
    pub after: StagedSkill,
}

/// The skills changed from revision `from` to revision `to`, or to the index when `to` is
/// `None`, each with its state on both sides: what capability drift compares.
pub fn changes(
    repo: &Repo,
    from: &str,
    to: Option<&str>,
    roots: &[(String, String)],
) -> Result<Vec<SkillChange>, GitError> {
    let prefixes: Vec<String> = roots.iter().map(|(p, _)| p.clone()).collect();
    let old = repo.tree_under(repo.tree_of(from)?, &prefixes)?;
    let new = match to {
        Some(to) => repo.tree_under(repo.tree_of(to)?, &prefixes)?,
        None => repo.staged_under(&prefixes)?,
    };
    let mut out = Vec::new();
    for after in changed_between(repo, &old, &new, roots)? {
        let inside = format!("{}/", after.dir);
        let before = if old.iter().any(|e| e.path.starts_with(&inside)) {
            let root = roots
                .iter()
                .find(|(_, l)| *l == after.root)
                .map(|(r, _)| r.clone())
                .unwrap_or_default();
            Some(load(repo, &after.dir, &root, &after.root, &old)?)
        } else {
            None
        };
        out.push(SkillChange { before, after });
    }
    Ok(out)
}

fn load(
    repo: &Repo,
    dir: &str,
    root: &str,
    label: &str,
    staged: &[Entry],
) -> Result<StagedSkill, GitError> {
    let prefix = format!("{dir}/");
    let mut files = SkillFiles::default();
    let mut blobs = HashMap::new();
    for entry in staged.iter().filter(|e| e.path.starts_with(&prefix)) {
        let rel = entry.path[prefix.len()..].to_owned();
        if rel.split('/').next() == Some(".skillopt") {
            continue;
        }
        let kind = match entry.kind {
            EntryKind::File { executable } => {
                let bytes = repo.blob(entry.id, &entry.path)?;
                let size = bytes.len() as u64;
                if rel == "SKILL.md" {
                    files.skill_md_size = size;
                    files.skill_md =
                        Some(bytes[..bytes.len().min(SKILL_MD_READ_CAP as usize)].to_vec());
                }
                blobs.insert(rel.clone(), bytes);
                FileKind::File { size, executable }
            }
            EntryKind::Symlink => {
                let target = repo.blob(entry.id, &entry.path)?;
                FileKind::Symlink {
                    target: String::from_utf8_lossy(&target).into_owned().into(),
                }
            }
            EntryKind::Other => FileKind::Special,
        };
        files.entries.push(FileEntry { path: rel, kind });
    }
    files.entries.sort_by(|a, b| a.path.cmp(&b.path));
    let rel_to_root = dir.strip_prefix(&format!("{root}/")).unwrap_or(dir);
    let (category, dir_name) = match rel_to_root.rsplit_once('/') {
        Some((c, n)) => (Some(c.to_owned()), n.to_owned()),
        None => (None, rel_to_root.to_owned()),
    };
    Ok(StagedSkill {
        dir: dir.to_owned(),
        dir_name,
        root: label.to_owned(),
        category,
        files,
        blobs,
    })
}
