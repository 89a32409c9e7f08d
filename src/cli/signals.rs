use chrono::{DateTime, Utc};
use git_skill::ops::signals::{self as op, Listed, Problem};
use git_skill::report::one_line;
use git_skill::signal::dashboard;
use git_skill::signal::select;
use git_skill::signal::SignalType;
use git_skill::skill::discover::{self, Discovery};

use git_skill::env::Allow;

use super::output::Format;
use super::table::Table;
use super::{CommandError, Outcome, Ui, Workspace};

/// Show the feedback signals waiting to improve skills.
///
/// Without a skill: the dashboard, one row per skill with pending signals (corrected,
/// friction, the latest), the neediest first; rows with 2 or more friction signals are
/// highlighted, and skills whose SKILL.md is gone show as [deleted]. With a skill: its
/// signals, or with --selected the ones `git skill optimize` would use. Malformed lines in a
/// store are reported as warnings (file:line: reason) and left in place.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill signals
  git skill signals --all-roots --format json
  git skill signals pdf --type corrected --since 7d
  git skill signals pdf --selected --days 30 --max-signals 20")]
pub struct SignalsArgs {
    /// One skill to list, by name or directory (default: the dashboard of all skills).
    pub skill: Option<String>,

    /// Also look at the user-level skill roots (~/.claude/skills, ~/.agents/skills,
    /// ~/.config/opencode/skills, ~/.qwen/skills, ~/.codex/skills).
    #[arg(long)]
    pub all_roots: bool,

    /// Only signals of this type.
    #[arg(long = "type", value_name = "TYPE", value_parser = super::record::signal_type(), requires = "skill")]
    pub kind: Option<SignalType>,

    /// Only signals recorded at or after this: a date (2026-11-01), an RFC 3339 time, or an
    /// age (12h, 7d, 2w).
    #[arg(long, value_name = "WHEN", requires = "skill")]
    pub since: Option<String>,

    /// Show the signals an optimisation would use: the last --days days, at most
    /// --max-signals, corrected before friction, newest first; stale ones marked.
    #[arg(long, requires = "skill", conflicts_with_all = ["kind", "since"])]
    pub selected: bool,

    /// With --selected: how many days back signals count.
    #[arg(long, default_value_t = select::DEFAULT_DAYS, value_name = "N", requires = "selected")]
    pub days: u32,

    /// With --selected: how many signals at most.
    #[arg(long, default_value_t = select::DEFAULT_MAX, value_name = "M", requires = "selected")]
    pub max_signals: usize,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Skill root to search instead of the configured ones (repeatable; like skill.roots).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<String>,
}

pub fn cmd_signals(ui: &mut Ui, args: SignalsArgs) -> Result<Outcome, CommandError> {
    let mut ws = Workspace::load(ui)?;
    ws.config.set_flag("roots", "--root", &args.roots);
    let now = git_skill::clock::now();
    let Some(name) = args.skill.clone() else {
        return dashboard(ui, &ws, &args, now);
    };
    let (skill, deleted) = ws.resolve_skill(&name, Allow::Deleted)?;
    if args.selected {
        let options = op::SelectOptions {
            now,
            days: args.days,
            max_signals: args.max_signals,
        };
        let mut report = op::selected(&ws, &skill, deleted, &options)?;
        problems(ui, &ws, std::mem::take(&mut report.problems))?;
        match args.format {
            Format::Json => super::output::json(ui, &report)?,
            Format::Text => selected_text(ui, &report, now)?,
        }
    } else {
        let since = match &args.since {
            Some(text) => Some(select::parse_since(text, now).map_err(|e| {
                CommandError::new(e)
                    .hint("give a date (2026-11-01), a time (RFC 3339) or an age: 12h, 7d, 2w")
            })?),
            None => None,
        };
        let options = op::ListOptions {
            kind: args.kind,
            since,
        };
        let mut report = op::list(&ws, &skill, deleted, &options)?;
        problems(ui, &ws, std::mem::take(&mut report.problems))?;
        match args.format {
            Format::Json => super::output::json(ui, &report)?,
            Format::Text => list_text(ui, &report, now)?,
        }
    }
    Ok(Outcome::Clean)
}

fn dashboard(
    ui: &mut Ui,
    ws: &Workspace,
    args: &SignalsArgs,
    now: DateTime<Utc>,
) -> Result<Outcome, CommandError> {
    let mut found = Discovery::default();
    let in_repo = ws.repo.is_some() || !ws.roots().is_empty();
    if in_repo {
        found = ws.skills(ui, &[], "signals")?;
    } else if !args.all_roots {
        return Err(CommandError::new("not inside a git repository")
            .hint("run it in a repository, or look at the user-level skills: git skill signals --all-roots"));
    }
    if args.all_roots {
        let user = discover::discover(&ws.user_roots(), None);
        for note in user.notes.iter().filter(|n| n.is_error()) {
            ui.warn(&note.render(|p| ws.display(p)))?;
        }
        found.merge(user);
    }
    let skills = found
        .skills
        .into_iter()
        .map(|s| (s, false))
        .chain(found.deleted.into_iter().map(|s| (s, true)))
        .collect();
    let mut report = op::dashboard(ws, skills);
    problems(ui, ws, std::mem::take(&mut report.problems))?;
    let rows = &report.skills;
    match args.format {
        Format::Json => super::output::json(ui, &report)?,
        Format::Text => {
            let mut table = Table::new(&["SKILL", "CORRECTED", "FRICTION", "LATEST", "PATH"]);
            for r in rows {
                let path = r.path.display().to_string();
                let cells = if r.deleted {
                    vec![
                        r.skill.clone(),
                        "[deleted]".into(),
                        "-".into(),
                        "-".into(),
                        path,
                    ]
                } else {
                    vec![
                        r.skill.clone(),
                        r.corrected.to_string(),
                        r.friction.to_string(),
                        ago(r.latest, now),
                        path,
                    ]
                };
                table.row(cells, r.highlight);
            }
            table.write(&mut ui.out, ui.out_style)?;
        }
    }
    let looked_at = report.looked_at;
    if rows.is_empty() {
        ui.status(&format!(
            "no pending signals in {}; agents record them with git skill record <skill> (see git skill record --print-skill)",
            git_skill::report::plural(looked_at, "skill")
        ))?;
    } else if args.format == Format::Text {
        let highlighted = rows.iter().filter(|r| r.highlight).count();
        let mut status = format!(
            "{} of {looked_at} skills have pending signals",
            rows.iter().filter(|r| !r.deleted).count()
        );
        if highlighted > 0 {
            status.push_str(&format!(
                "; {highlighted} with {} or more friction signals (highlighted)",
                dashboard::FRICTION_HIGHLIGHT
            ));
        }
        status.push_str("; details: git skill signals <skill>");
        ui.status(&status)?;
    }
    Ok(Outcome::Clean)
}

fn ago(t: Option<DateTime<Utc>>, now: DateTime<Utc>) -> String {
    t.map_or_else(|| "-".into(), |t| dashboard::ago(t, now))
}

/// What a listing passed over: malformed lines as `file:line: reason` warnings, an
/// unreadable store as an error.
fn problems(ui: &mut Ui, ws: &Workspace, problems: Vec<Problem>) -> Result<(), CommandError> {
    for p in problems {
        match p {
            Problem::Malformed {
                store,
                line,
                reason,
            } => ui.warn(&format!("{}:{line}: {reason}", ws.display(&store).display()))?,
            Problem::MoreMalformed { store, count } => ui.warn(&format!(
                "{}: {count} more malformed lines not shown",
                ws.display(&store).display()
            ))?,
            Problem::Interrupted { path, bytes } => ui.warn(&format!(
                "'{}' ({}) is what an interrupted record left: its signals never reached the store; the next record removes it",
                ws.display(&path).display(),
                git_skill::report::plural(bytes as usize, "byte")
            ))?,
            Problem::Unreadable(e) => ui.error(&CommandError::from(e))?,
        }
    }
    Ok(())
}

fn list_text(ui: &mut Ui, report: &op::SignalList, now: DateTime<Utc>) -> Result<(), CommandError> {
    signal_table(&report.signals, now).write(&mut ui.out, ui.out_style)?;
    let n = report.signals.len();
    let what = if n == 1 { "signal" } else { "signals" };
    let filtered = if report.filtered { " matching" } else { "" };
    let gone = if report.deleted {
        " (its SKILL.md is gone)"
    } else {
        ""
    };
    ui.status(&format!(
        "{n}{filtered} pending {what} for {}{gone}{}",
        report.skill,
        returned_note(&report.signals)
    ))?;
    Ok(())
}

fn selected_text(
    ui: &mut Ui,
    report: &op::Selected,
    now: DateTime<Utc>,
) -> Result<(), CommandError> {
    signal_table(&report.selected, now).write(&mut ui.out, ui.out_style)?;
    let n = report.selected.len();
    let mut status = format!(
        "{n} selected for {} (last {} days, at most {}, corrected first)",
        report.skill, report.days, report.max_signals
    );
    if !report.stale.is_empty() {
        status.push_str(&format!(
            "; {} recorded against an older SKILL.md",
            report.stale.len()
        ));
    }
    if report.left_out > 0 {
        status.push_str(&format!("; {} left out past the limit", report.left_out));
    }
    if report.too_old > 0 {
        status.push_str(&format!(
            "; {} older than {} days",
            report.too_old, report.days
        ));
    }
    status.push_str(&returned_note(&report.selected));
    ui.status(&status)?;
    Ok(())
}

fn signal_table(signals: &[Listed], now: DateTime<Utc>) -> Table {
    let mut table = Table::new(&["ID", "TYPE", "RECORDED", "VERSION", "SCENARIO", "DETAIL"]);
    for l in signals {
        let s = &l.signal;
        let detail = match s.kind {
            SignalType::Corrected => &s.correction,
            SignalType::Friction => &s.friction_detail,
        };
        let version = match l.stale {
            None => "-",
            Some(false) => "current",
            Some(true) => "older",
        };
        table.row(
            vec![
                redact(&s.signal_id),
                s.kind.as_str().into(),
                ago(s.time(), now),
                version.into(),
                one_line(&redact(&s.scenario), 48),
                one_line(&redact(detail), 60),
            ],
            false,
        );
    }
    table
}

fn redact(text: &str) -> String {
    git_skill::redact::redact(text)
}

/// `; 3 returned by rollback 1a2b3c4` for the signals listed that a rollback put back.
fn returned_note(signals: &[Listed]) -> String {
    let mut by: Vec<(String, usize)> = Vec::new();
    for sha in signals.iter().filter_map(|l| l.returned_by.as_ref()) {
        let short: String = sha.chars().take(7).collect();
        match by.iter_mut().find(|(c, _)| *c == short) {
            Some((_, n)) => *n += 1,
            None => by.push((short, 1)),
        }
    }
    by.iter()
        .map(|(sha, n)| format!("; {n} returned by rollback {sha}"))
        .collect()
}
