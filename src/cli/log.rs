use std::collections::HashMap;
use std::io::Write as _;

use git_skill::optimize::{archive, history};

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};
use git_skill::env::Allow;

/// Show how a skill evolved: each optimization, newest first, with its date, mode, the
/// signals it resolved, the gate results, its commit, and whether it was rolled back.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  git skill log pdf\n  git skill log pdf --format json")]
pub struct LogArgs {
    /// The skill, by name or directory.
    pub skill: String,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, serde::Serialize)]
struct Row {
    optimization_id: String,
    timestamp: String,
    mode: &'static str,
    summary: String,
    signals_resolved: usize,
    clusters: usize,
    gate_passed: usize,
    gate_total: usize,
    gate_skipped: bool,
    resolved_dir: String,
    commit: Option<String>,
    rolled_back: bool,
    reverted_by: Option<String>,
}

pub fn cmd_log(ui: &mut Ui, args: LogArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let repo = ws.require_repo("log")?;
    let (skill, _) = ws.resolve_skill(&args.skill, Allow::Deleted)?;
    let rel = repo.relative(&skill.dir).ok_or_else(|| {
        CommandError::new(format!(
            "'{}' is not inside the repository",
            skill.dir.display()
        ))
    })?;
    let commits = history::optimizations(repo, &rel)?;
    let by_id: HashMap<&str, &history::Optimized> = commits
        .iter()
        .filter_map(|c| c.optimization_id.as_deref().map(|id| (id, c)))
        .collect();
    let (records, problems) = archive::earlier(&skill.dir);
    for p in problems {
        ui.warn(&format!("skipped an unreadable record: {p}"))?;
    }
    let mut rows: Vec<Row> = records
        .iter()
        .map(|(dir, o)| {
            let commit = by_id.get(o.optimization_id.as_str());
            Row {
                optimization_id: o.optimization_id.clone(),
                timestamp: o.timestamp.clone(),
                mode: o.mode.as_str(),
                summary: o.summary.clone(),
                signals_resolved: o.signal_ids.len(),
                clusters: o.clusters.len(),
                gate_passed: o.gate_result.passed,
                gate_total: o.gate_result.total,
                gate_skipped: o.gate_result.skipped,
                resolved_dir: ws.display(dir).display().to_string(),
                commit: commit.map(|c| c.commit.clone()),
                rolled_back: commit.is_some_and(|c| c.reverted_by.is_some()),
                reverted_by: commit.and_then(|c| c.reverted_by.clone()),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.timestamp
            .cmp(&a.timestamp)
            .then(b.optimization_id.cmp(&a.optimization_id))
    });
    match args.format {
        Format::Json => {
            #[derive(serde::Serialize)]
            struct Log<'a, T> {
                skill: &'a str,
                optimizations: &'a [T],
            }
            let log = Log {
                skill: &skill.dir_name,
                optimizations: &rows,
            };
            super::output::json(ui, &log)?;
        }
        Format::Text => {
            for r in &rows {
                let gate = if r.gate_skipped {
                    "gate skipped (friction only)".to_owned()
                } else {
                    format!("gate {}/{}", r.gate_passed, r.gate_total)
                };
                let commit = r.commit.as_deref().map_or("-", |c| &c[..c.len().min(7)]);
                let state = match &r.reverted_by {
                    Some(by) => format!("  ROLLED BACK by {}", &by[..by.len().min(7)]),
                    None => String::new(),
                };
                writeln!(
                    ui.out,
                    "{commit} {} {} {}, {}, {gate}{state}",
                    r.timestamp.get(..10).unwrap_or(&r.timestamp),
                    r.mode,
                    git_skill::report::plural(r.signals_resolved, "signal"),
                    git_skill::report::plural(r.clusters, "cluster"),
                )?;
                writeln!(ui.out, "    {}", super::ui::safe(&r.summary))?;
            }
            if rows.is_empty() {
                ui.status(&format!("{} has not been optimized yet", skill.dir_name))?;
            }
        }
    }
    Ok(Outcome::Clean)
}
