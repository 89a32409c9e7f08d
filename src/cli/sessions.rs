use std::io::Write as _;

use git_skill::agent::session::Store;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// List the agent sessions the hooks counted, and what became of each.
///
/// For each session `git skill hook agent` saw (state in $GIT_DIR/skill/sessions/): the agent,
/// the tool calls counted since the last review and in all, whether it changed a skill itself,
/// the last decision at a session end and its reason (scheduled, disabled, below_threshold,
/// skills_modified_in_session, already_running, inside_review, no_transcript), and the review
/// it started with its outcome and proposal, when there was one. Newest first.
#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_sessions(ui: &mut Ui, args: SessionsArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let repo = ws.require_repo("sessions")?;
    let store = Store::new(repo.git_dir());
    let reviews = review_logs(&git_skill::review::reviews_dir(repo));
    let rows: Vec<serde_json::Value> = store
        .all()
        .into_iter()
        .map(|s| {
            let review = reviews
                .iter()
                .filter(|r| r["session"].as_str() == Some(s.session.as_str()))
                .max_by_key(|r| r["started"].as_str().unwrap_or("").to_owned());
            let last = s.decisions.last();
            serde_json::json!({
                "agent": s.agent,
                "session": s.session,
                "started": s.started,
                "updated": s.updated,
                "tool_calls": s.tool_calls,
                "tool_calls_total": s.tool_calls_total,
                "skills_modified": s.skills_modified,
                "decision": last.map(|d| d.decision.clone()),
                "reason": last.map(|d| d.reason.clone()),
                "detail": last.map(|d| d.detail.clone()),
                "review": review.map(|r| serde_json::json!({
                    "id": r["id"],
                    "outcome": r["outcome"]["kind"],
                    "proposal": r["outcome"]["refname"],
                    "error": r["error"],
                })),
            })
        })
        .collect();
    match args.format {
        Format::Json => super::output::json(ui, serde_json::json!({ "sessions": rows }))?,
        Format::Text => {
            if rows.is_empty() {
                ui.status("no agent session seen yet (git skill init sets up the hooks)")?;
            }
            let safe = super::ui::safe;
            for r in &rows {
                let text = |k: &str| safe(r[k].as_str().unwrap_or("-"));
                let last = match r["decision"].as_str() {
                    None => "in progress".to_owned(),
                    Some(d) => format!("{}: {} ({})", safe(d), text("reason"), text("detail")),
                };
                writeln!(
                    ui.out,
                    "{}  {} {}  {} tool calls ({} in all){}  {last}",
                    text("updated"),
                    text("agent"),
                    text("session"),
                    r["tool_calls"],
                    r["tool_calls_total"],
                    if r["skills_modified"] == true {
                        ", changed a skill"
                    } else {
                        ""
                    },
                )?;
                if let Some(review) = r["review"].as_object() {
                    let id = safe(review["id"].as_str().unwrap_or("?"));
                    let outcome = match (review["outcome"].as_str(), review["error"].as_str()) {
                        (Some(kind), _) => safe(kind),
                        (None, Some(e)) => format!("error: {}", safe(e)),
                        (None, None) => "running".to_owned(),
                    };
                    let proposal = review["proposal"]
                        .as_str()
                        .map(|p| format!(" {}", safe(p)))
                        .unwrap_or_default();
                    writeln!(ui.out, "    review {id}: {outcome}{proposal}")?;
                }
            }
        }
    }
    Ok(Outcome::Clean)
}

/// The run logs of the reviews, as JSON values.
fn review_logs(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| {
            git_skill::fsutil::read_regular(&e.path(), 32 << 20)
                .ok()
                .flatten()
        })
        .filter_map(|b| serde_json::from_slice(&b).ok())
        .collect()
}
