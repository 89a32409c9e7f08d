//! `git skill sessions`: the agent sessions the hooks counted, newest first, each with its
//! last decision and the review it started, if one.

use serde::{Deserialize, Serialize};

use crate::agent::session::Store;
use crate::env::{Env, EnvError};

#[derive(Debug, Serialize)]
pub struct Sessions {
    pub sessions: Vec<SessionRow>,
}

#[derive(Debug, Serialize)]
pub struct SessionRow {
    pub agent: String,
    pub session: String,
    pub started: String,
    pub updated: String,
    /// Since the last scheduled review.
    pub tool_calls: u32,
    pub tool_calls_total: u32,
    /// A tool call of the session wrote under a skill root.
    pub skills_modified: bool,
    /// The last decision at a session end: `scheduled` or `skipped`; none while in progress.
    pub decision: Option<String>,
    pub reason: Option<String>,
    pub detail: Option<String>,
    pub review: Option<ReviewRow>,
    /// When its review failed: the command that runs it again (the session's transcript is
    /// still where the agent left it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<String>,
}

/// The latest review the session started.
#[derive(Debug, Serialize)]
pub struct ReviewRow {
    pub id: Option<String>,
    /// How it ended (`proposed`, `nothing`...); none while it runs or when it failed.
    pub outcome: Option<String>,
    /// The proposal's reference, when it made one.
    pub proposal: Option<String>,
    pub error: Option<String>,
}

/// The part of a review's run log a listing reads.
#[derive(Debug, Deserialize)]
struct RunLog {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    started: Option<String>,
    #[serde(default)]
    outcome: Option<LoggedOutcome>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
struct LoggedOutcome {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    refname: Option<String>,
}

pub fn sessions(env: &Env) -> Result<Sessions, EnvError> {
    let repo = env.require_repo("sessions")?;
    let store = Store::new(repo.git_dir());
    let logs = run_logs(&crate::review::reviews_dir(repo));
    let sessions = store
        .all()
        .into_iter()
        .map(|s| {
            let review = logs
                .iter()
                .filter(|r| r.session.as_deref() == Some(s.session.as_str()))
                .max_by_key(|r| r.started.clone().unwrap_or_default())
                .map(|r| ReviewRow {
                    id: r.id.clone(),
                    outcome: r.outcome.as_ref().and_then(|o| o.kind.clone()),
                    proposal: r.outcome.as_ref().and_then(|o| o.refname.clone()),
                    error: r.error.clone(),
                });
            let last = s.decisions.last();
            let failed = review
                .as_ref()
                .is_some_and(|r| r.error.is_some() && r.outcome.is_none());
            let retry = s.transcript.as_deref().filter(|_| failed).map(|t| {
                format!(
                    "git skill review --transcript {} --agent {} --session {}",
                    shell_quote(t),
                    shell_quote(&s.agent),
                    shell_quote(&s.session)
                )
            });
            SessionRow {
                retry,
                decision: last.map(|d| d.decision.clone()),
                reason: last.map(|d| d.reason.clone()),
                detail: last.map(|d| d.detail.clone()),
                agent: s.agent,
                session: s.session,
                started: s.started,
                updated: s.updated,
                tool_calls: s.tool_calls,
                tool_calls_total: s.tool_calls_total,
                skills_modified: s.skills_modified,
                review,
            }
        })
        .collect();
    Ok(Sessions { sessions })
}

/// The run logs of the reviews; one that cannot be read or parsed is passed over.
fn run_logs(dir: &std::path::Path) -> Vec<RunLog> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| {
            crate::fsutil::read_regular(&e.path(), 32 << 20)
                .ok()
                .flatten()
        })
        .filter_map(|b| serde_json::from_slice(&b).ok())
        .collect()
}

/// `s` as one shell word: left alone when it is plain, else in single quotes.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@=+,".contains(c));
    match plain {
        true => s.to_owned(),
        false => format!("'{}'", s.replace('\'', "'\\''")),
    }
}
