//! The pre-write guard: `git skill hook agent` on an agent's pre-tool event. A write that would
//! land in a skill of the repository, or in an agent context file, is judged as it would be
//! after the write, by the gate `manage --auto-skill` uses (SkillGuard without demotions or
//! allow comments); a dangerous result is refused before the agent has loaded it. Everything
//! else is allowed at once. A call whose result cannot be told from its arguments is allowed,
//! with a note for the log: the pre-commit hook and CI check what it wrote, fail closed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::agent::event::Event;
use crate::agent::prewrite::{self, Proposed};
use crate::check::{self, Snapshot, Writer};
use crate::config::FailOn;
use crate::env::Env;
use crate::guard::Verdict;
use crate::skill::context;

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
    if let Some(why) = prewrite::tamper::tampers(tool, &cwd, repo.git_dir()) {
        return Guarded::Deny {
            reason: format!(
                "git-skill refused this call: {why}. An agent may not switch off or get around git-skill's guard (its hooks, settings, state or cache); a person can do it by hand."
            ),
        };
    }
    let intent = prewrite::intent(tool, &cwd);
    // What cannot be told from the words is let through to the watch, which judges what the
    // call leaves on disk (`agent_watch`), named in the log when it touches what the guard
    // checks. A limit reached refuses: nothing too large or too slow to read passes by not
    // being read.
    let mut notes = Vec::new();
    for untold in &intent.untold {
        let guarded: Vec<String> = untold
            .paths
            .iter()
            .filter_map(|p| relative(top, p))
            .filter(|rel| in_skill_root(env, rel).is_some() || context::classify(rel).is_some())
            .collect();
        if untold.limit && (!guarded.is_empty() || untold.paths.is_empty()) {
            return Guarded::Deny {
                reason: format!(
                    "git-skill refused this write: {}{}. Make the change by hand (the pre-commit hook checks it), or in smaller steps.",
                    if guarded.is_empty() { String::new() } else { format!("{}: ", guarded.join(", ")) },
                    untold.why
                ),
            };
        }
        if !guarded.is_empty() {
            notes.push(format!(
                "allowed {} to {} without judging it ({}); the watch judges what it leaves after the call",
                tool.name,
                guarded.join(", "),
                untold.why
            ));
        }
    }
    let writes = intent.files;
    let mut refusals = Vec::new();
    let mut dangerous = false;
    // The files of one skill are judged together, as the call leaves them all.
    let mut skills: BTreeMap<(String, String), Vec<(String, &Proposed)>> = BTreeMap::new();
    for write in &writes {
        let Some(rel) = relative(top, &write.path) else {
            continue;
        };
        if let Some(c) = context::classify(&rel) {
            let scan = crate::guard::context::scan(
                &rel,
                c.kind,
                &write.content,
                Writer::Agent.scan_options(),
            );
            if scan.verdict() == Verdict::Dangerous {
                dangerous = true;
                refusals.push(dangerous_reason(&rel, &rel, &scan.findings));
            }
        } else if let Some(root) = in_skill_root(env, &rel) {
            let dir = skill_dir(top, &root, &rel);
            if rel.len() > dir.len() {
                skills.entry((root, dir)).or_default().push((rel, write));
            }
        }
    }
    for ((root, dir), files) in &skills {
        let judged = judge_skill(top, root, dir, files, today);
        dangerous |= judged.dangerous;
        refusals.extend(judged.reasons);
    }
    if refusals.is_empty() {
        return Guarded::Allow { notes };
    }
    let tail = if dangerous {
        "An agent may not write this into a skill or an agent's instructions or settings. A person can write it by hand (the pre-commit hook checks it), or it can be proposed for review (git skill manage)."
    } else {
        "An agent may not write a skill that fails these checks: fix what is named and write it again, or leave it to a person."
    };
    Guarded::Deny {
        reason: format!(
            "git-skill refused this write: {}. {tail}",
            refusals.join("; ")
        ),
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

/// The skill `dir` (under `root`) with `files` written, through the gate of `manage
/// --auto-skill`: SkillGuard without demotions or allow comments, lint at the writer limits,
/// no new grants. A lint error counts when it is about a file the call writes or is a writer
/// limit: an agent writing a skill file by file passes through states that are not skills
/// yet (scripts before SKILL.md), and those are not refused.
fn judge_skill(
    top: &Path,
    root: &str,
    dir: &str,
    files: &[(String, &Proposed)],
    today: chrono::NaiveDate,
) -> SkillJudged {
    let abs: PathBuf = top.join(dir);
    let before = Snapshot::from_dir(&abs, dir.to_owned(), root.to_owned(), None).ok();
    let mut after = before.clone().unwrap_or_else(|| empty_skill(root, dir));
    let mut written = Vec::new();
    for (rel, write) in files {
        let in_skill = rel[dir.len()..].trim_start_matches('/').to_owned();
        after = after.with_file(&in_skill, write.content.clone());
        written.push(in_skill);
    }
    judge_change(dir, before, after, &written, today)
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

/// Writes what the watch did to `hook.log`: each file quarantined, each note; a watch that
/// failed is logged as such (the pre-write guard still runs, and the pre-commit hook checks
/// what the watch could not).
pub fn log_watch(
    env: &Env,
    event: &Event,
    watched: &Result<super::agent_watch::Watched, super::agent_watch::WatchError>,
    now: chrono::DateTime<chrono::Utc>,
) {
    let Some(repo) = &env.repo else { return };
    let store = crate::agent::session::Store::new(repo.git_dir());
    if std::fs::create_dir_all(&store.dir).is_err() {
        return;
    }
    let path = store.dir.join("hook.log");
    let now = now.to_rfc3339();
    let line = |decision: &str, detail: &str| {
        super::agent_hook::append_log(&path, &now, event, decision, "watch", detail)
    };
    match watched {
        Ok(w) => {
            for e in &w.quarantined {
                line(
                    "quarantined",
                    &format!("{} ({}): {} [{}]", e.shown(), e.action, e.reason, e.id),
                );
            }
            for note in &w.notes {
                line("note", note);
            }
        }
        Err(e) => line("failed", &e.to_string()),
    }
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
    super::agent_watch::Paths::new(env).skill_root(rel)
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
