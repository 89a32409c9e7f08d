//! `git skill signals`: the feedback waiting to improve skills, as a dashboard of every skill,
//! one skill's signals, or the ones `optimize` would select.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::env::Env;
use crate::signal::dashboard::{self, Row};
use crate::signal::select::{Selection, Selector};
use crate::signal::store::{self, BadLine, Line, StoreError};
use crate::signal::{HashError, Signal, SignalType};
use crate::skill::discover::Skill;

/// Something a listing passed over, in the order it met it: the renderer shows each as a
/// warning, and an unreadable store as an error (the run then exits 2).
#[derive(Debug)]
pub enum Problem {
    /// A line of `store` that is no signal, left in place.
    Malformed {
        store: PathBuf,
        line: usize,
        reason: String,
    },
    /// More malformed lines than are kept.
    MoreMalformed {
        store: PathBuf,
        count: usize,
    },
    /// What an interrupted `record` left beside the store.
    Interrupted {
        path: PathBuf,
        bytes: u64,
    },
    Unreadable(StoreError),
}

#[derive(Debug, thiserror::Error)]
pub enum SignalsError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Hash(#[from] HashError),
    /// `--selected` for a skill whose SKILL.md is gone.
    #[error("the SKILL.md of '{skill}' is gone: there is nothing to optimise")]
    Deleted { skill: String },
}

/// The dashboard: one row per skill with pending signals (and every deleted one), neediest
/// first.
#[derive(Debug, Serialize)]
pub struct Dashboard {
    pub skills: Vec<DashboardRow>,
    /// How many skills were looked at.
    #[serde(skip)]
    pub looked_at: usize,
    #[serde(skip)]
    pub problems: Vec<Problem>,
}

#[derive(Debug, Serialize)]
pub struct DashboardRow {
    pub skill: String,
    /// As the user should see it (relative to the current directory).
    pub path: PathBuf,
    pub deleted: bool,
    pub corrected: usize,
    pub friction: usize,
    #[serde(serialize_with = "super::time::secs")]
    pub latest: Option<DateTime<Utc>>,
    /// Enough friction to stand out.
    pub highlight: bool,
    pub malformed_lines: usize,
}

/// The dashboard of `skills` (each with whether its SKILL.md is gone); `looked_at` counts the
/// skills that exist.
pub fn dashboard(env: &Env, skills: Vec<(Skill, bool)>) -> Dashboard {
    let looked_at = skills.iter().filter(|(_, deleted)| !deleted).count();
    let jobs = crate::parallel::default_jobs();
    let tallies = crate::parallel::map_ordered(&skills, jobs, |(skill, _)| {
        dashboard::tally(&store::pending_path(&skill.dir))
    });
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for ((skill, deleted), tally) in skills.into_iter().zip(tallies) {
        let tally = match tally {
            Ok(t) => t,
            Err(e) => {
                problems.push(Problem::Unreadable(e));
                continue;
            }
        };
        malformed(
            &mut problems,
            &store::pending_path(&skill.dir),
            &tally.bad,
            tally.bad_count,
        );
        if tally.total() > 0 || deleted {
            rows.push(Row {
                skill: skill.dir_name.clone(),
                dir: skill.dir.clone(),
                deleted,
                tally,
            });
        }
    }
    dashboard::order(&mut rows);
    let skills = rows
        .into_iter()
        .map(|r| DashboardRow {
            path: env.display(&r.dir),
            highlight: !r.deleted && r.tally.highlighted(),
            skill: r.skill,
            deleted: r.deleted,
            corrected: r.tally.corrected,
            friction: r.tally.friction,
            latest: r.tally.latest,
            malformed_lines: r.tally.bad_count,
        })
        .collect();
    Dashboard {
        skills,
        looked_at,
        problems,
    }
}

/// One skill's pending signals, filtered.
pub struct ListOptions {
    pub kind: Option<SignalType>,
    pub since: Option<DateTime<Utc>>,
}

/// A signal as a listing shows it: every field, plus where it is, whether it was recorded
/// against today's SKILL.md, and the rollback that returned it, if one did.
#[derive(Debug, Serialize)]
pub struct Listed {
    #[serde(flatten)]
    pub signal: Signal,
    /// Its line in the store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The revert commit of the rollback that put it back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returned_by: Option<String>,
    /// Recorded against another SKILL.md than today's (none for a deleted skill).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct Malformed {
    pub line: usize,
    pub reason: String,
}

#[derive(Debug, Serialize)]
pub struct SignalList {
    pub skill: String,
    pub path: PathBuf,
    pub deleted: bool,
    pub signals: Vec<Listed>,
    pub malformed_lines: Vec<Malformed>,
    pub malformed_count: usize,
    /// Whether a filter (type, since) was given.
    #[serde(skip)]
    pub filtered: bool,
    #[serde(skip)]
    pub problems: Vec<Problem>,
}

/// The pending signals of `skill` (`deleted`: its SKILL.md is gone).
pub fn list(
    env: &Env,
    skill: &Skill,
    deleted: bool,
    options: &ListOptions,
) -> Result<SignalList, SignalsError> {
    let current = match deleted {
        true => None,
        false => Some(crate::signal::skill_md_sha256(&skill.dir)?),
    };
    let path = store::pending_path(&skill.dir);
    let mut signals = Vec::new();
    let mut bad = Vec::new();
    let mut bad_count = 0;
    store::stream(&path, |entry| match entry {
        Line::Signal(line, signal) => {
            let keep = options.kind.is_none_or(|k| signal.kind == k)
                && options
                    .since
                    .is_none_or(|s| signal.time().is_some_and(|t| t >= s));
            if keep {
                signals.push((line, signal));
            }
        }
        Line::Bad(b) => dashboard::note_bad(&mut bad, &mut bad_count, b),
    })?;
    let mut problems = Vec::new();
    malformed(&mut problems, &path, &bad, bad_count);
    for l in store::interrupted(&skill.dir) {
        problems.push(Problem::Interrupted {
            path: l.path,
            bytes: l.bytes,
        });
    }
    let returned = returned(env, skill);
    Ok(SignalList {
        skill: skill.dir_name.clone(),
        path: env.display(&skill.dir),
        deleted,
        signals: signals
            .into_iter()
            .map(|(line, s)| listed(s, Some(line), current.as_deref(), &returned))
            .collect(),
        malformed_lines: bad
            .into_iter()
            .map(|b| Malformed {
                line: b.line,
                reason: b.reason,
            })
            .collect(),
        malformed_count: bad_count,
        filtered: options.kind.is_some() || options.since.is_some(),
        problems,
    })
}

/// What `optimize` would select: the last `days` days, at most `max_signals`.
pub struct SelectOptions {
    pub now: DateTime<Utc>,
    pub days: u32,
    pub max_signals: usize,
}

#[derive(Debug, Serialize)]
pub struct Selected {
    pub skill: String,
    pub path: PathBuf,
    pub days: u32,
    pub max_signals: usize,
    pub selected: Vec<Listed>,
    /// Ids of the selected signals recorded against an older SKILL.md.
    pub stale: Vec<String>,
    pub left_out: usize,
    pub too_old: usize,
    pub malformed_count: usize,
    #[serde(skip)]
    pub problems: Vec<Problem>,
}

pub fn selected(
    env: &Env,
    skill: &Skill,
    deleted: bool,
    options: &SelectOptions,
) -> Result<Selected, SignalsError> {
    if deleted {
        return Err(SignalsError::Deleted {
            skill: skill.dir_name.clone(),
        });
    }
    let current = crate::signal::skill_md_sha256(&skill.dir)?;
    let path = store::pending_path(&skill.dir);
    let mut selector = Selector::new(options.now, options.days, options.max_signals);
    let mut bad = Vec::new();
    let mut bad_count = 0;
    store::stream(&path, |entry| match entry {
        Line::Signal(_, signal) => selector.push(signal),
        Line::Bad(b) => dashboard::note_bad(&mut bad, &mut bad_count, b),
    })?;
    let mut problems = Vec::new();
    malformed(&mut problems, &path, &bad, bad_count);
    let Selection {
        selected,
        stale,
        left_out,
        too_old,
    } = selector.finish(&current);
    let returned = returned(env, skill);
    Ok(Selected {
        skill: skill.dir_name.clone(),
        path: env.display(&skill.dir),
        days: options.days,
        max_signals: options.max_signals,
        selected: selected
            .into_iter()
            .map(|s| listed(s, None, Some(&current), &returned))
            .collect(),
        stale,
        left_out,
        too_old,
        malformed_count: bad_count,
        problems,
    })
}

fn listed(
    signal: Signal,
    line: Option<usize>,
    current: Option<&str>,
    returned: &HashMap<String, String>,
) -> Listed {
    Listed {
        line,
        returned_by: returned.get(&signal.signal_id).cloned(),
        stale: current.map(|h| !signal.skill_version_hash.eq_ignore_ascii_case(h)),
        signal,
    }
}

fn malformed(problems: &mut Vec<Problem>, store: &Path, bad: &[BadLine], count: usize) {
    for b in bad {
        problems.push(Problem::Malformed {
            store: store.to_owned(),
            line: b.line,
            reason: b.reason.clone(),
        });
    }
    if count > bad.len() {
        problems.push(Problem::MoreMalformed {
            store: store.to_owned(),
            count: count - bad.len(),
        });
    }
}

/// Pending signals that a rollback put back: id -> the revert commit. Empty outside a
/// repository, or when the history cannot be read (the listing does not depend on it).
fn returned(env: &Env, skill: &Skill) -> HashMap<String, String> {
    let Some(repo) = env.repo.as_ref() else {
        return HashMap::new();
    };
    let Some(rel) = repo.relative(&skill.dir) else {
        return HashMap::new();
    };
    crate::optimize::rollback::returned_by(repo, &skill.dir, &rel).unwrap_or_default()
}
