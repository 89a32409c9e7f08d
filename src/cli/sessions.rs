use std::io::Write as _;

use git_skill::ops::sessions as op;

use super::output::Format;
use super::ui::safe;
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
    let report = op::sessions(&ws)?;
    if args.format == Format::Json {
        super::output::json(ui, &report)?;
        return Ok(Outcome::Clean);
    }
    if report.sessions.is_empty() {
        ui.status("no agent session seen yet (git skill init sets up the hooks)")?;
    }
    for r in &report.sessions {
        let text = |t: &Option<String>| safe(t.as_deref().unwrap_or("-"));
        let last = match &r.decision {
            None => "in progress".to_owned(),
            // A reason that only repeats the decision (`scheduled`) is said once.
            Some(d) => {
                let mut last = safe(d).to_string();
                if let Some(reason) = r.reason.as_deref().filter(|reason| reason != d) {
                    last.push_str(&format!(": {}", safe(reason)));
                }
                if r.detail.is_some() {
                    last.push_str(&format!(" ({})", text(&r.detail)));
                }
                last
            }
        };
        let changed = if r.skills_modified {
            ", changed a skill"
        } else {
            ""
        };
        writeln!(
            ui.out,
            "{}  {} {}  {} tool calls ({} in all){changed}  {last}",
            safe(&r.updated),
            safe(&r.agent),
            safe(&r.session),
            r.tool_calls,
            r.tool_calls_total,
        )?;
        if let Some(review) = &r.review {
            let id = safe(review.id.as_deref().unwrap_or("?"));
            let outcome = match (&review.outcome, &review.error) {
                (Some(kind), _) => safe(kind),
                (None, Some(e)) => format!("error: {}", safe(e)),
                (None, None) => "running".to_owned(),
            };
            let proposal = review
                .proposal
                .as_deref()
                .map(|p| format!(" {}", safe(p)))
                .unwrap_or_default();
            writeln!(ui.out, "    review {id}: {outcome}{proposal}")?;
        }
        if let Some(retry) = &r.retry {
            writeln!(ui.out, "    run it again: {}", safe(retry))?;
        }
    }
    Ok(Outcome::Clean)
}
