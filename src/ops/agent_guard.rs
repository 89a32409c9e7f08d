//! The pre-write guard: `git skill hook agent` on an agent's pre-tool event. A write that would
//! land in a skill of the repository, or in an agent context file, is judged as it would be
//! after the write, by the gate `manage --auto-skill` uses (SkillGuard without demotions or
//! allow comments); a dangerous result is refused before the agent has loaded it. Everything
//! else is allowed at once. A call whose result cannot be told from its arguments is allowed,
//! with a note for the log: the pre-commit hook and CI check what it wrote, fail closed.

use std::path::{Path, PathBuf};

use crate::agent::event::Event;
use crate::agent::prewrite::{self, Intent, Proposed};
use crate::check::{self, Snapshot, Writer};
use crate::env::Env;
use crate::guard::Verdict;
use crate::skill::{context, loader};

/// What the guard decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guarded {
    /// Nothing it checks, or nothing dangerous.
    Allow { notes: Vec<String> },
    /// The reason the model reads.
    Deny { reason: String },
}

/// Judges the write `event`'s tool call would make, at `now` (RFC 3339), and logs the
/// decision (see [`log`]).
pub fn run(env: &Env, event: &Event, now: chrono::DateTime<chrono::Utc>) -> Guarded {
    let guarded = check(env, event, now.date_naive());
    log(env, event, &guarded, &now.to_rfc3339());
    guarded
}

/// Judges the write `event`'s tool call would make.
fn check(env: &Env, event: &Event, today: chrono::NaiveDate) -> Guarded {
    let Some(tool) = &event.tool else {
        return Guarded::Allow { notes: Vec::new() };
    };
    let Some(repo) = &env.repo else {
        return Guarded::Allow { notes: Vec::new() };
    };
    let top = repo.workdir();
    let cwd = event.cwd.clone().unwrap_or_else(|| env.cwd.clone());
    let writes = match prewrite::intent(tool, &cwd) {
        Intent::Nothing => return Guarded::Allow { notes: Vec::new() },
        Intent::Writes(w) => w,
        Intent::Unknown { paths, why } => {
            let guarded: Vec<String> = paths
                .iter()
                .filter_map(|p| relative(top, p))
                .filter(|rel| in_skill_root(env, rel).is_some() || context::classify(rel).is_some())
                .collect();
            let notes = if guarded.is_empty() {
                Vec::new()
            } else {
                vec![format!(
                    "allowed {} to {}: {why}; the pre-commit hook checks it",
                    tool.name,
                    guarded.join(", ")
                )]
            };
            return Guarded::Allow { notes };
        }
    };
    let mut refusals = Vec::new();
    for write in &writes {
        let Some(rel) = relative(top, &write.path) else {
            continue;
        };
        let verdict = if let Some(c) = context::classify(&rel) {
            let scan = crate::guard::context::scan(
                &rel,
                c.kind,
                &write.content,
                Writer::Agent.scan_options(),
            );
            Some((scan.verdict(), scan.findings))
        } else {
            in_skill_root(env, &rel).map(|root| skill_after(top, &root, &rel, write, today))
        };
        if let Some((Verdict::Dangerous, findings)) = verdict {
            let worst: Vec<String> = findings
                .iter()
                .filter(|f| {
                    f.suppressed.is_none() && f.severity == crate::guard::Severity::Critical
                })
                .take(3)
                .map(|f| {
                    let file = if f.file == "." {
                        rel.clone()
                    } else {
                        f.file.clone()
                    };
                    format!("{} at {file}:{}: {}", f.rule, f.line, f.message)
                })
                .collect();
            refusals.push(format!("{rel} would be dangerous ({})", worst.join("; ")));
        }
    }
    if refusals.is_empty() {
        return Guarded::Allow { notes: Vec::new() };
    }
    Guarded::Deny {
        reason: format!(
            "git-skill refused this write: {}. An agent may not write this into a skill or an agent's instructions or settings. A person can write it by hand (the pre-commit hook checks it), or it can be proposed for review (git skill manage).",
            refusals.join("; ")
        ),
    }
}

/// Writes the guard's decision to `hook.log` beside the sessions' state (allowed calls that
/// touch nothing it checks are not logged: they are nearly every call). Nothing reaches the
/// agent from here.
fn log(env: &Env, event: &Event, guarded: &Guarded, now: &str) {
    let Some(repo) = &env.repo else { return };
    let store = crate::agent::session::Store::new(repo.git_dir());
    if std::fs::create_dir_all(&store.dir).is_err() {
        return;
    }
    let path = store.dir.join("hook.log");
    match guarded {
        Guarded::Deny { reason } => {
            super::agent_hook::append_log(&path, now, event, "refused", "pre-write guard", reason)
        }
        Guarded::Allow { notes } => {
            for note in notes {
                super::agent_hook::append_log(
                    &path,
                    now,
                    event,
                    "allowed",
                    "pre-write guard",
                    note,
                );
            }
        }
    }
}

/// `path` relative to the top, `/`-separated, when it lies below it.
fn relative(top: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(top).ok()?;
    let rel = rel.to_string_lossy().replace('\\', "/");
    (!rel.is_empty() && !rel.split('/').any(|p| p == "..")).then_some(rel)
}

/// The skill root `rel` lies in: an agent root, a plugin's, or a configured one.
fn in_skill_root(env: &Env, rel: &str) -> Option<String> {
    if let Some(root) = loader::roots_of(rel).into_iter().last() {
        if rel.len() > root.path.len() {
            return Some(root.path);
        }
    }
    env.repo_relative_roots()
        .named
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.is_empty() || rel.starts_with(&format!("{p}/")))
        .max_by_key(String::len)
}

/// The verdict of the skill `rel` lies in, with the write applied: the skill's folder is the
/// nearest one at or below the root's first level that holds a SKILL.md, else the first level.
fn skill_after(
    top: &Path,
    root: &str,
    rel: &str,
    write: &Proposed,
    today: chrono::NaiveDate,
) -> (Verdict, Vec<crate::guard::Finding>) {
    let below = rel[root.len()..].trim_start_matches('/');
    let parts: Vec<&str> = below.split('/').collect();
    let mut dir = format!("{root}/{}", parts[0]);
    for i in (1..parts.len()).rev() {
        let candidate = format!("{root}/{}", parts[..i].join("/"));
        if top.join(&candidate).join("SKILL.md").is_file() {
            dir = candidate;
            break;
        }
    }
    let in_skill = rel[dir.len()..].trim_start_matches('/').to_owned();
    if in_skill.is_empty() {
        return (Verdict::Safe, Vec::new());
    }
    let abs: PathBuf = top.join(&dir);
    let snapshot = match Snapshot::from_dir(&abs, dir.clone(), root.to_owned(), None) {
        Ok(s) => s,
        // A new skill: only what is written.
        Err(_) => Snapshot::from_blobs(
            dir.clone(),
            parts[0].to_owned(),
            root.to_owned(),
            None,
            crate::skill::SkillFiles::default(),
            std::collections::HashMap::new(),
        ),
    };
    let after = snapshot.with_file(&in_skill, write.content.clone());
    let settings = check::Settings {
        scan: Writer::Agent.scan_options(),
        policy: None,
        baseline: None,
        today,
        lint: false,
        written: true,
    };
    let checked = check::check_skill(&after, Path::new(&dir), &settings);
    let mut findings = checked.report.findings;
    // Named from the top, as the agent wrote the path.
    for f in &mut findings {
        f.file = format!("{dir}/{}", f.file);
    }
    (checked.report.verdict, findings)
}
