//! What the pre-write guard and the watch judge alike: which paths agents load ([`Paths`]),
//! where a path lies as the file system resolves it, which skill folder a file belongs to, and
//! a skill's change through the gate of `manage --auto-skill`.

use std::path::{Path, PathBuf};

use crate::check::{self, Snapshot, Writer};
use crate::config::FailOn;
use crate::env::Env;
use crate::skill::context;

/// Which paths of the tree agents load: context files and files under a skill root.
pub struct Paths {
    /// Configured roots inside the work tree (`""`: the whole tree), or the user's skill roots
    /// below HOME.
    roots: Vec<String>,
    /// For HOME: the files and folders below it that agents load (the registry's user files
    /// and the user's skill roots); nothing else of HOME is looked at.
    user: Option<Vec<String>>,
}

impl Paths {
    pub fn new(env: &Env) -> Paths {
        Paths {
            roots: env
                .repo_relative_roots()
                .named
                .into_iter()
                .map(|(p, _)| p)
                .collect(),
            user: None,
        }
    }

    /// What agents load below HOME (`home`, links resolved): every agent's user-level files
    /// and folders in the registry, and the user's skill roots.
    pub fn home(env: &Env, home: &Path) -> Paths {
        let roots: Vec<String> = env
            .user_roots()
            .into_iter()
            .filter_map(|r| {
                let p = r.path.canonicalize().unwrap_or(r.path);
                let rel = p
                    .strip_prefix(home)
                    .ok()?
                    .to_string_lossy()
                    .replace('\\', "/");
                (!rel.is_empty()).then_some(rel)
            })
            .collect();
        let mut user: Vec<String> = crate::registry::all()
            .iter()
            .flat_map(|a| a.user_files.iter())
            .filter_map(|f| f.strip_prefix("~/"))
            .map(str::to_owned)
            .chain(roots.iter().cloned())
            .collect();
        user.sort();
        user.dedup();
        Paths {
            roots,
            user: Some(user),
        }
    }

    /// Whether a walk goes into the folder `rel`: everywhere in a work tree; below HOME only
    /// on the way to, or inside, what agents load.
    pub fn descend(&self, rel: &str) -> bool {
        let Some(user) = &self.user else { return true };
        user.iter().any(|p| {
            p == rel
                || p.strip_prefix(rel).is_some_and(|r| r.starts_with('/'))
                || rel
                    .strip_prefix(p.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        })
    }

    /// Whether agents load `rel` (relative to the top), or it is where they look for skills
    /// (a skill root or an agent folder: a link put there is what they load from).
    pub fn watched(&self, rel: &str) -> bool {
        if let Some(user) = &self.user {
            return user.iter().any(|p| {
                p == rel
                    || rel
                        .strip_prefix(p.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            });
        }
        self.skill_root(rel).is_some()
            || self.is_root(rel)
            || (context::may_be(rel.as_bytes()) && context::classify(rel).is_some())
    }

    /// Whether `rel` is a skill root itself, or an agent folder that holds one.
    pub fn is_root(&self, rel: &str) -> bool {
        crate::skill::loader::roots_of(rel)
            .last()
            .is_some_and(|r| r.path == rel || r.path == format!("{rel}/skills"))
            || self.roots.iter().any(|r| r == rel)
    }

    /// The skill root `rel` lies in: an agent root, or a configured one.
    pub fn skill_root(&self, rel: &str) -> Option<String> {
        if let Some(root) = crate::skill::loader::roots_of(rel).into_iter().last() {
            if rel.len() > root.path.len() {
                return Some(root.path);
            }
        }
        self.roots
            .iter()
            .filter(|p| p.is_empty() || rel.starts_with(&format!("{p}/")))
            .max_by_key(|p| p.len())
            .cloned()
    }
}

/// "`rel` would be dangerous (RULE at file:line: message; ...)", the worst findings first.
pub(crate) fn dangerous_reason(
    rel: &str,
    shown: &str,
    findings: &[crate::guard::Finding],
) -> String {
    let worst: Vec<String> = findings
        .iter()
        .filter(|f| f.suppressed.is_none() && f.severity == crate::guard::Severity::Critical)
        .take(3)
        .map(|f| {
            let file = if f.file == "." { shown } else { &f.file };
            format!("{} at {file}:{}: {}", f.rule, f.line, f.message)
        })
        .collect();
    format!("{rel} would be dangerous ({})", worst.join("; "))
}

/// What the gate says of one skill after a call's writes.
pub(crate) struct SkillJudged {
    pub dangerous: bool,
    pub reasons: Vec<String>,
}

/// A skill folder with no files yet.
pub(crate) fn empty_skill(root: &str, dir: &str) -> Snapshot {
    let name = dir.rsplit('/').next().unwrap_or(dir).to_owned();
    Snapshot::from_blobs(
        dir.to_owned(),
        name,
        root.to_owned(),
        None,
        crate::skill::SkillFiles::default(),
        std::collections::HashMap::new(),
    )
}

/// The skill `dir` going from `before` to `after`, where `written` (paths inside the skill)
/// are what changed, through the gate (see [`judge_skill`]).
pub(crate) fn judge_change(
    dir: &str,
    before: Option<Snapshot>,
    after: Snapshot,
    written: &[String],
    today: chrono::NaiveDate,
) -> SkillJudged {
    let mut reasons = Vec::new();
    if written.iter().any(|f| f == "SKILL.md") {
        if let Err(e) = crate::manage::check_grants(before.as_ref(), &after) {
            reasons.push(format!("{dir}/SKILL.md: {e}"));
        }
    }
    let gate = check::Gate::new(Writer::Agent, None, FailOn::Dangerous, today);
    let change = check::Change {
        before,
        after,
        display: PathBuf::from(dir),
    };
    let judged = check::gate::decide(std::slice::from_ref(&change), &gate, 1)
        .skills
        .remove(0);
    let dangerous = judged.verdict_blocks(gate.fail_on);
    if dangerous {
        // Named from the top, as the agent wrote the path.
        let findings: Vec<_> = judged
            .counted_findings()
            .iter()
            .cloned()
            .map(|mut f| {
                f.file = format!("{dir}/{}", f.file);
                f
            })
            .collect();
        let first = written
            .first()
            .map_or_else(|| dir.to_owned(), |w| format!("{dir}/{w}"));
        let rel = match written.len() {
            1 => first.clone(),
            _ => format!("{dir}/"),
        };
        reasons.insert(0, dangerous_reason(&rel, &first, &findings));
    }
    for d in &judged.introduced {
        let path = d.path.to_string_lossy().replace('\\', "/");
        let about_written = written.iter().any(|w| path == format!("{dir}/{w}"));
        if about_written || crate::skill::codes::WRITER_LIMITS.contains(&d.code) {
            let line = d.line.map(|l| format!(":{l}")).unwrap_or_default();
            reasons.push(format!("{path}{line}: lint {} {}", d.code, d.message));
        }
    }
    SkillJudged { dangerous, reasons }
}

/// `path` relative to the top, `/`-separated, when it lies below it as the file system
/// resolves it: `..` and `//` taken out, links of the folders on the way followed (a folder
/// linked into the repository, the repository reached through a link).
pub(crate) fn relative(top: &Path, path: &Path) -> Option<String> {
    let top = top.canonicalize().unwrap_or_else(|_| top.to_owned());
    let path = crate::fsutil::resolved(path);
    let rel = path.strip_prefix(&top).ok()?;
    let rel = rel.to_string_lossy().replace('\\', "/");
    (!rel.is_empty() && !rel.split('/').any(|p| p == "..")).then_some(rel)
}

/// The skill root `rel` lies in: an agent root or a configured one.
pub(crate) fn in_skill_root(env: &Env, rel: &str) -> Option<String> {
    Paths::new(env).skill_root(rel)
}

/// The folder of the skill `rel` lies in: the nearest one at or below the root's first level
/// that holds a SKILL.md, else the first level.
pub(crate) fn skill_dir(top: &Path, root: &str, rel: &str) -> String {
    let below = rel[root.len()..].trim_start_matches('/');
    let parts: Vec<&str> = below.split('/').collect();
    let under = |n: usize| match root {
        "" => parts[..n].join("/"),
        _ => format!("{root}/{}", parts[..n].join("/")),
    };
    for i in (1..parts.len()).rev() {
        let candidate = under(i);
        if top.join(&candidate).join("SKILL.md").is_file() {
            return candidate;
        }
    }
    under(1)
}
