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
use crate::check::{Snapshot, Writer};
use crate::env::Env;
use crate::guard::Verdict;
use crate::skill::context;

use super::agent_judge::{
    dangerous_reason, empty_skill, in_skill_root, judge_change, relative, skill_dir, SkillJudged,
};

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
            super::hook_log::append(&path, now, event, "refused", "pre-write guard", reason)
        }
        Guarded::Allow { notes } => {
            for note in notes {
                super::hook_log::append(&path, now, event, "allowed", "pre-write guard", note);
            }
        }
    }
}
