use chrono::{DateTime, Utc};
use git_skill::signal::dashboard::{self, Row, Tally};
use git_skill::signal::select::{self, Selector};
use git_skill::signal::store::{self, BadLine, Line};
use git_skill::signal::{Signal, SignalType};
use git_skill::skill::discover::{self, Discovery, Skill};
use serde_json::{json, Value};
use std::collections::HashMap;

use super::skill_arg::{self, Allow};
use git_skill::report::one_line;

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
    match args.skill.clone() {
        None => dashboard(ui, &ws, &args, now),
        Some(name) => {
            let (skill, deleted) = skill_arg::resolve(&ws, ui, &name, Allow::Deleted)?;
            if args.selected {
                selected(ui, &ws, &args, &skill, deleted, now)
            } else {
                list(ui, &ws, &args, &skill, deleted, now)
            }
        }
    }
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
    let looked_at = found.skills.len();
    let targets: Vec<(Skill, bool)> = found
        .skills
        .into_iter()
        .map(|s| (s, false))
        .chain(found.deleted.into_iter().map(|s| (s, true)))
        .collect();
    let jobs = git_skill::parallel::default_jobs();
    let tallies = git_skill::parallel::map_ordered(&targets, jobs, |(skill, _)| {
        dashboard::tally(&store::pending_path(&skill.dir))
    });
    let mut rows = Vec::new();
    for ((skill, deleted), tally) in targets.into_iter().zip(tallies) {
        let path = store::pending_path(&skill.dir);
        let tally = match tally {
            Ok(t) => t,
            Err(e) => {
                ui.error(&CommandError::from(e))?;
                continue;
            }
        };
        report_bad(ui, ws, &path, &tally.bad, tally.bad_count)?;
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
    match args.format {
        Format::Json => {
            let skills: Vec<Value> = rows
                .iter()
                .map(|r| {
                    json!({
                        "skill": r.skill,
                        "path": ws.display(&r.dir).display().to_string(),
                        "deleted": r.deleted,
                        "corrected": r.tally.corrected,
                        "friction": r.tally.friction,
                        "latest": r.tally.latest.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                        "highlight": !r.deleted && r.tally.highlighted(),
                        "malformed_lines": r.tally.bad_count,
                    })
                })
                .collect();
            super::output::json(ui, serde_json::json!({ "skills": skills }))?;
        }
        Format::Text => {
            let mut table = Table::new(&["SKILL", "CORRECTED", "FRICTION", "LATEST", "PATH"]);
            for r in &rows {
                let path = ws.display(&r.dir).display().to_string();
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
                        r.tally.corrected.to_string(),
                        r.tally.friction.to_string(),
                        latest(&r.tally, now),
                        path,
                    ]
                };
                table.row(cells, !r.deleted && r.tally.highlighted());
            }
            table.write(&mut ui.out, ui.out_style)?;
        }
    }
    if rows.is_empty() {
        ui.status(&format!(
            "no pending signals in {}; agents record them with git skill record <skill> (see git skill record --print-skill)",
            git_skill::report::plural(looked_at, "skill")
        ))?;
    } else if args.format == Format::Text {
        let highlighted = rows
            .iter()
            .filter(|r| !r.deleted && r.tally.highlighted())
            .count();
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

fn latest(tally: &Tally, now: DateTime<Utc>) -> String {
    tally
        .latest
        .map_or_else(|| "-".into(), |t| dashboard::ago(t, now))
}

/// Malformed lines, as `file:line: reason` warnings.
fn report_bad(
    ui: &mut Ui,
    ws: &Workspace,
    path: &std::path::Path,
    bad: &[BadLine],
    count: usize,
) -> std::io::Result<()> {
    let shown = ws.display(path);
    for b in bad {
        ui.warn(&format!("{}:{}: {}", shown.display(), b.line, b.reason))?;
    }
    if count > bad.len() {
        ui.warn(&format!(
            "{}: {} more malformed lines not shown",
            shown.display(),
            count - bad.len()
        ))?;
    }
    Ok(())
}

fn list(
    ui: &mut Ui,
    ws: &Workspace,
    args: &SignalsArgs,
    skill: &Skill,
    deleted: bool,
    now: DateTime<Utc>,
) -> Result<Outcome, CommandError> {
    let since = match &args.since {
        Some(text) => Some(select::parse_since(text, now).map_err(|e| {
            CommandError::new(e)
                .hint("give a date (2026-11-01), a time (RFC 3339) or an age: 12h, 7d, 2w")
        })?),
        None => None,
    };
    let kind = args.kind;
    let current = current_hash(skill, deleted)?;
    let path = store::pending_path(&skill.dir);
    let mut signals: Vec<(usize, Signal)> = Vec::new();
    let mut bad = Vec::new();
    let mut bad_count = 0;
    store::stream(&path, |entry| match entry {
        Line::Signal(line, signal) => {
            let keep = kind.is_none_or(|k| signal.kind == k)
                && since.is_none_or(|s| signal.time().is_some_and(|t| t >= s));
            if keep {
                signals.push((line, signal));
            }
        }
        Line::Bad(b) => dashboard::note_bad(&mut bad, &mut bad_count, b),
    })?;
    report_bad(ui, ws, &path, &bad, bad_count)?;
    for l in store::interrupted(&skill.dir) {
        ui.warn(&format!(
            "'{}' ({}) is what an interrupted record left: its signals never reached the store; the next record removes it",
            ws.display(&l.path).display(),
            git_skill::report::plural(l.bytes as usize, "byte")
        ))?;
    }
    let shown = ws.display(&skill.dir).display().to_string();
    let returned = returned(ws, skill);
    match args.format {
        Format::Json => {
            let items: Vec<Value> = signals
                .iter()
                .map(|(line, s)| signal_json(s, Some(*line), current.as_deref(), &returned))
                .collect();
            let bad: Vec<Value> = bad
                .iter()
                .map(|b| json!({ "line": b.line, "reason": redact(&b.reason) }))
                .collect();
            super::output::json(
                ui,
                serde_json::json!({ "skill": skill.dir_name,
                    "path": shown,
                    "deleted": deleted,
                    "signals": items,
                    "malformed_lines": bad,
                    "malformed_count": bad_count }),
            )?;
        }
        Format::Text => {
            let table = signal_table(signals.iter().map(|(_, s)| s), current.as_deref(), now);
            table.write(&mut ui.out, ui.out_style)?;
            let n = signals.len();
            let what = if n == 1 { "signal" } else { "signals" };
            let filtered = if kind.is_some() || since.is_some() {
                " matching"
            } else {
                ""
            };
            let gone = if deleted {
                " (its SKILL.md is gone)"
            } else {
                ""
            };
            ui.status(&format!(
                "{n}{filtered} pending {what} for {}{gone}{}",
                skill.dir_name,
                returned_note(signals.iter().map(|(_, s)| s), &returned)
            ))?;
        }
    }
    Ok(Outcome::Clean)
}

fn selected(
    ui: &mut Ui,
    ws: &Workspace,
    args: &SignalsArgs,
    skill: &Skill,
    deleted: bool,
    now: DateTime<Utc>,
) -> Result<Outcome, CommandError> {
    if deleted {
        return Err(CommandError::new(format!(
            "the SKILL.md of '{}' is gone: there is nothing to optimise",
            skill.dir_name
        ))
        .hint("list its signals without --selected"));
    }
    let current = git_skill::signal::skill_md_sha256(&skill.dir)?;
    let path = store::pending_path(&skill.dir);
    let mut selector = Selector::new(now, args.days, args.max_signals);
    let mut bad = Vec::new();
    let mut bad_count = 0;
    store::stream(&path, |entry| match entry {
        Line::Signal(_, signal) => selector.push(signal),
        Line::Bad(b) => dashboard::note_bad(&mut bad, &mut bad_count, b),
    })?;
    report_bad(ui, ws, &path, &bad, bad_count)?;
    let selection = selector.finish(&current);
    let returned = returned(ws, skill);
    match args.format {
        Format::Json => {
            let items: Vec<Value> = selection
                .selected
                .iter()
                .map(|s| signal_json(s, None, Some(&current), &returned))
                .collect();
            super::output::json(
                ui,
                serde_json::json!({ "skill": skill.dir_name,
                    "path": ws.display(&skill.dir).display().to_string(),
                    "days": args.days,
                    "max_signals": args.max_signals,
                    "selected": items,
                    "stale": selection.stale.iter().map(|id| redact(id)).collect::<Vec<_>>(),
                    "left_out": selection.left_out,
                    "too_old": selection.too_old,
                    "malformed_count": bad_count }),
            )?;
        }
        Format::Text => {
            signal_table(selection.selected.iter(), Some(&current), now)
                .write(&mut ui.out, ui.out_style)?;
            let n = selection.selected.len();
            let mut status = format!(
                "{n} selected for {} (last {} days, at most {}, corrected first)",
                skill.dir_name, args.days, args.max_signals
            );
            if !selection.stale.is_empty() {
                status.push_str(&format!(
                    "; {} recorded against an older SKILL.md",
                    selection.stale.len()
                ));
            }
            if selection.left_out > 0 {
                status.push_str(&format!("; {} left out past the limit", selection.left_out));
            }
            if selection.too_old > 0 {
                status.push_str(&format!(
                    "; {} older than {} days",
                    selection.too_old, args.days
                ));
            }
            status.push_str(&returned_note(selection.selected.iter(), &returned));
            ui.status(&status)?;
        }
    }
    Ok(Outcome::Clean)
}

/// The sha256 of SKILL.md today, or none for a deleted skill.
fn current_hash(skill: &Skill, deleted: bool) -> Result<Option<String>, CommandError> {
    if deleted {
        return Ok(None);
    }
    Ok(Some(git_skill::signal::skill_md_sha256(&skill.dir)?))
}

fn signal_table<'a>(
    signals: impl Iterator<Item = &'a Signal>,
    current: Option<&str>,
    now: DateTime<Utc>,
) -> Table {
    let mut table = Table::new(&["ID", "TYPE", "RECORDED", "VERSION", "SCENARIO", "DETAIL"]);
    for s in signals {
        let detail = match s.kind {
            SignalType::Corrected => &s.correction,
            SignalType::Friction => &s.friction_detail,
        };
        let recorded = s
            .time()
            .map_or_else(|| "-".into(), |t| dashboard::ago(t, now));
        table.row(
            vec![
                redact(&s.signal_id),
                s.kind.as_str().into(),
                recorded,
                version(s, current).into(),
                one_line(&redact(&s.scenario), 48),
                one_line(&redact(detail), 60),
            ],
            false,
        );
    }
    table
}

fn version(s: &Signal, current: Option<&str>) -> &'static str {
    match current {
        None => "-",
        Some(h) if s.skill_version_hash.eq_ignore_ascii_case(h) => "current",
        Some(_) => "older",
    }
}

fn redact(text: &str) -> String {
    git_skill::redact::redact(text)
}

/// Pending signals that a rollback put back: id -> the revert commit. Empty outside a
/// repository, or when the history cannot be read (the listing does not depend on it).
fn returned(ws: &Workspace, skill: &Skill) -> HashMap<String, String> {
    let Some(repo) = ws.repo.as_ref() else {
        return HashMap::new();
    };
    let Some(rel) = repo.relative(&skill.dir) else {
        return HashMap::new();
    };
    git_skill::optimize::rollback::returned_by(repo, &skill.dir, &rel).unwrap_or_default()
}

/// `; 3 returned by rollback 1a2b3c4` for the signals listed that a rollback put back.
fn returned_note<'a>(
    signals: impl Iterator<Item = &'a Signal>,
    returned: &HashMap<String, String>,
) -> String {
    let mut by: Vec<(String, usize)> = Vec::new();
    for s in signals {
        if let Some(sha) = returned.get(&s.signal_id) {
            let short: String = sha.chars().take(7).collect();
            match by.iter_mut().find(|(c, _)| *c == short) {
                Some((_, n)) => *n += 1,
                None => by.push((short, 1)),
            }
        }
    }
    by.iter()
        .map(|(sha, n)| format!("; {n} returned by rollback {sha}"))
        .collect()
}

/// A signal for JSON output: every field, credentials masked, plus where it is, whether it
/// was recorded against the SKILL.md of today, and the rollback that returned it, if one did.
fn signal_json(
    s: &Signal,
    line: Option<usize>,
    current: Option<&str>,
    returned: &HashMap<String, String>,
) -> Value {
    let mut value = serde_json::to_value(s).expect("a signal serialises");
    git_skill::redact::redact_value(&mut value);
    if let Value::Object(map) = &mut value {
        if let Some(line) = line {
            map.insert("line".into(), line.into());
        }
        if let Some(sha) = returned.get(&s.signal_id) {
            map.insert("returned_by".into(), sha.clone().into());
        }
        if let Some(h) = current {
            map.insert(
                "stale".into(),
                (!s.skill_version_hash.eq_ignore_ascii_case(h)).into(),
            );
        }
    }
    value
}
