use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::time::Instant;

use git_skill::optimize::{
    self, Approval, Approve, Confirm, Decision, Estimate, Interact, Progress, Report, Reuse,
    WaitingDryRun,
};
use git_skill::prompt::contracts::{Conflict, EditKind};
use git_skill::prompt::{self, Prompts};
use git_skill::report::one_line;
use git_skill::signal::{select, Signal};

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};
use git_skill::env::Allow;

/// Improve a skill from its pending signals: the 8 steps of skill-optimizer (confirm, load
/// signals, triage, deep read, reflect, dry run, gate, update).
///
/// The model clusters the signals and proposes edits to SKILL.md; edits that do not apply are
/// dropped; the candidate must pass SkillGuard, lint, the size budget (skill.maxGrowth), the
/// model gate (one judge per cluster, in parallel, skill.gateThreshold; skill.gateVotes judges
/// each, the majority deciding) and a regression check against earlier optimizations. On a
/// terminal you then see the diff, the verdicts and both commit messages, and answer
/// `Commit? [y/N/e]` (e edits the candidate, which is checked and judged again); without a
/// terminal and without --yes nothing is committed and the command to commit exactly this
/// change is printed. Accepted, it lands as two commits: `audit(skill): ...`
/// (the signals move to .skillopt/resolved/ with optimization.json) and `optimize(skill): ...`
/// (SKILL.md only), undone with `git skill rollback`. Each step is checkpointed in
/// .skillopt/work/, so a run that stops resumes where it was. Exit 0 accepted (or a dry run
/// the gate accepted), 1 rejected, nothing to apply, declined or waiting for approval, 2
/// error.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill optimize pdf --dry-run
  git skill optimize pdf --resume
  git skill optimize pdf --yes
  git skill optimize .claude/skills/pdf --resume
  git skill optimize pdf --prefer 20261129T101500Z_pdf_1a2b3c4d --yes --format json")]
pub struct OptimizeArgs {
    /// The skill, by name or directory.
    pub skill: String,

    /// Run every step, print the diff and both commit messages, commit nothing. The
    /// checkpoint is kept: `--resume` then commits exactly this change, with no model call.
    #[arg(long)]
    pub dry_run: bool,

    /// Do not ask: neither before calling the model nor before committing.
    #[arg(short, long)]
    pub yes: bool,

    /// Continue from the checkpoint of an interrupted run (the default for one) or of a dry
    /// run, whose change it commits as it was shown.
    #[arg(long, conflicts_with = "restart")]
    pub resume: bool,

    /// Discard the checkpoint of an earlier run and start again.
    #[arg(long)]
    pub restart: bool,

    /// Use signals of the last N days.
    #[arg(long, default_value_t = select::DEFAULT_DAYS, value_name = "N")]
    pub days: u32,

    /// Use at most M signals (corrected first, newest first).
    #[arg(long, default_value_t = select::DEFAULT_MAX, value_name = "M")]
    pub max_signals: usize,

    /// When triage finds two signals that contradict each other, follow this one
    /// (repeatable; the other stays pending).
    #[arg(long, value_name = "SIGNAL_ID")]
    pub prefer: Vec<String>,

    /// Let the candidate change the frontmatter (name, description, allowed-tools, ...):
    /// confirm that the signals' corrections ask for it. Without it, only the body may change.
    #[arg(long)]
    pub allow_frontmatter: bool,

    /// Let the candidate give the skill new capabilities (tools, hosts, scripts, a broader
    /// description), as `git skill diff` reports them: confirm that the signals ask for them.
    #[arg(long)]
    pub allow_drift: bool,

    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_optimize(ui: &mut Ui, args: OptimizeArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let repo = ws.require_repo("optimize")?;
    let (skill, _) = ws.resolve_skill(&args.skill, Allow::Live)?;
    let skill_rel = repo.relative(&skill.dir).ok_or_else(|| {
        CommandError::new(format!(
            "'{}' is not inside the repository at '{}'",
            skill.dir.display(),
            repo.workdir().display()
        ))
        .hint("optimize commits to the repository that holds the skill; run it there")
    })?;
    let settings = super::llm::settings(&ws)?;
    let provider = git_skill::llm::provider(&settings);
    let dirs = prompt::override_dirs(
        &ws.config,
        Some(repo.workdir()),
        &ws.cwd,
        ws.home.as_deref(),
    );
    let prompts = Prompts::load(&dirs)?;
    let ctx = optimize::Job {
        repo,
        skill_dir: skill.dir.clone(),
        skill_rel,
        skill_name: skill.dir_name.clone(),
        provider: provider.as_ref(),
        prompts: &prompts,
        parallel: settings.parallel,
        gate_threshold: ws.config.gate_threshold()?,
        gate_votes: ws.config.gate_votes()?,
        max_growth: ws.config.max_growth()?,
        fail_on: ws.config.fail_on()?,
        now: git_skill::clock::now(),
    };
    let options = optimize::Options {
        days: args.days,
        max_signals: args.max_signals,
        dry_run: args.dry_run,
        restart: args.restart,
        resume: args.resume,
        prefer: args.prefer.clone(),
        yes: args.yes,
        allow_frontmatter: args.allow_frontmatter,
        allow_drift: args.allow_drift,
        failpoint: failpoint(),
    };
    let mut interact = Terminal {
        err: &mut ui.err,
        show: std::io::stderr().is_terminal() && !ui.quiet,
        ask: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
        started: git_skill::clock::monotonic(),
        calls: None,
    };
    // The hints name the skill as the user gave it (a path, when the name is ambiguous).
    let report = optimize::run(&ctx, &options, &mut interact).map_err(|mut e| {
        e.skill = args.skill.clone();
        e
    })?;
    match args.format {
        Format::Json => super::output::json(ui, serde_json::to_value(&report)?)?,
        Format::Text => render(ui, &report)?,
    }
    Ok(match report.outcome {
        Decision::Accepted | Decision::DryRunAccepted => Outcome::Clean,
        Decision::Rejected
        | Decision::DryRunRejected
        | Decision::NothingToApply
        | Decision::Declined
        | Decision::AwaitingApproval => Outcome::Problems,
    })
}

/// Progress and questions on the terminal.
struct Terminal<'a> {
    err: &'a mut Box<dyn std::io::Write>,
    /// Show progress (stderr is a terminal and not --quiet).
    show: bool,
    /// Ask questions (stdin and stderr are terminals).
    ask: bool,
    started: Instant,
    /// Model calls made, of about how many.
    calls: Option<(u32, usize)>,
}

impl Progress for Terminal<'_> {
    fn warn(&mut self, message: &str) {
        let _ = writeln!(self.err, "warning: {}", super::ui::safe(message));
    }

    fn progress(&mut self, step: u8, total: u8, name: &str, what: &str) {
        if self.show {
            let elapsed = self.started.elapsed().as_secs_f64();
            let calls = match self.calls {
                Some((done, planned)) => format!("model calls {done}/{planned}, "),
                None => String::new(),
            };
            let _ = writeln!(
                self.err,
                "[{step}/{total}] {name}: {} ({calls}{elapsed:.1} s)",
                super::ui::safe(what)
            );
        }
    }

    fn calls(&mut self, done: u32, planned: usize) {
        self.calls = Some((done, planned.max(done as usize)));
    }
}

impl Interact for Terminal<'_> {
    fn confirm(&mut self, e: &Estimate) -> Confirm {
        if !self.ask {
            return Confirm::CannotAsk;
        }
        let _ = write!(
            self.err,
            "{} corrected and {} friction {}; about {} ({} + triage + reflect{}). Continue? [y/N] ",
            e.corrected,
            e.friction,
            if e.corrected + e.friction == 1 {
                "signal"
            } else {
                "signals"
            },
            git_skill::report::plural(e.calls, "model call"),
            git_skill::report::plural(e.clusters, "cluster"),
            if e.regression > 0 {
                format!(
                    " + {}",
                    git_skill::report::plural(e.regression, "regression check")
                )
            } else {
                String::new()
            }
        );
        let _ = self.err.flush();
        match read_answer() {
            Some(a) if a == "y" || a == "yes" => Confirm::Yes,
            _ => Confirm::No,
        }
    }

    fn approve(&mut self, a: &Approval<'_>) -> Approve {
        if !self.ask {
            return Approve::CannotAsk;
        }
        let safe = super::ui::safe;
        let _ = writeln!(self.err);
        let _ = super::ui::write_lines(&mut self.err, a.diff);
        let _ = writeln!(self.err);
        if a.gate.skipped {
            let _ = writeln!(self.err, "Gate: skipped (friction signals only)");
        } else {
            let _ = writeln!(
                self.err,
                "Gate: {}/{} passed (threshold {})",
                a.gate.passed,
                git_skill::report::plural(a.gate.total, "cluster"),
                a.gate.threshold
            );
            for rec in a.gate.records.iter().chain(&a.gate.regression) {
                let _ = writeln!(
                    self.err,
                    "  {}{}: {} - {}",
                    rec.cluster_id,
                    rec.from_optimization
                        .as_deref()
                        .map(|o| format!(" (fixed by {o})"))
                        .unwrap_or_default(),
                    rec.verdict,
                    safe(&rec.reason)
                );
            }
        }
        let _ = writeln!(
            self.err,
            "Checks: SkillGuard {}, lint ok, size {} -> {} bytes",
            a.checks.verdict, a.checks.original_bytes, a.checks.candidate_bytes
        );
        let _ = writeln!(self.err, "Commit 1: {}", safe(a.audit_message));
        for (i, line) in a.optimize_message.trim_end().lines().enumerate() {
            let lead = if i == 0 { "Commit 2: " } else { "          " };
            let _ = writeln!(self.err, "{}", format!("{lead}{}", safe(line)).trim_end());
        }
        if a.edited {
            let _ = writeln!(
                self.err,
                "(the candidate is your edit, checked and judged again)"
            );
        }
        let _ = write!(
            self.err,
            "Commit {}? [y/N/e] (e: edit the candidate first) ",
            a.skill
        );
        let _ = self.err.flush();
        match read_answer().as_deref() {
            Some("y" | "yes") => Approve::Commit,
            Some("e" | "edit") => Approve::Edit,
            _ => Approve::Decline,
        }
    }

    fn edit(&mut self, path: &std::path::Path) -> Result<(), String> {
        let editor = editor();
        let _ = writeln!(self.err, "Opening {} in {editor} ...", path.display());
        // As git runs an editor: through the shell, so that `code --wait` works.
        // The editor draws on the terminal through stderr: stdout may be a report's file.
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$@\""))
            .arg(&editor)
            .arg(path)
            .stdout(std::io::stderr())
            .status()
            .map_err(|e| format!("{editor}: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("{editor} exited with {status}"))
        }
    }

    fn reuse(&mut self, w: &WaitingDryRun) -> Reuse {
        if !self.ask {
            return Reuse::CannotAsk;
        }
        let _ = write!(
            self.err,
            "A dry run from {} left a candidate ({}, {}). Use it, as --resume does (no model call)? [y = use it / n = discard it and start again / anything else stops] ",
            w.started,
            git_skill::report::plural(w.signals, "signal"),
            if w.accepted {
                "accepted by the gate"
            } else {
                "refused only for what a flag allows"
            }
        );
        let _ = self.err.flush();
        match read_answer().as_deref() {
            Some("y" | "yes") => Reuse::Reuse,
            Some("n" | "no") => Reuse::Discard,
            _ => Reuse::Stop,
        }
    }

    fn choose(&mut self, c: &Conflict, a: Option<&Signal>, b: Option<&Signal>) -> Option<String> {
        if !self.ask {
            return None;
        }
        let describe = |s: Option<&Signal>| {
            s.map(|s| {
                let what = if s.correction.is_empty() {
                    &s.friction_detail
                } else {
                    &s.correction
                };
                format!("{}: {}", s.scenario, what)
            })
            .unwrap_or_default()
        };
        let _ = writeln!(
            self.err,
            "These signals contradict each other ({}):\n  a) {} {}\n  b) {} {}",
            super::ui::safe(&c.reason),
            c.signal_a,
            super::ui::safe(&describe(a)),
            c.signal_b,
            super::ui::safe(&describe(b)),
        );
        let _ = write!(
            self.err,
            "Which direction should the skill take? [a/b, anything else stops] "
        );
        let _ = self.err.flush();
        match read_answer().as_deref() {
            Some("a") => Some(c.signal_a.clone()),
            Some("b") => Some(c.signal_b.clone()),
            _ => None,
        }
    }
}

/// The editor git would run: `git var GIT_EDITOR` (GIT_EDITOR, core.editor, VISUAL, EDITOR),
/// else `$EDITOR`, else `vi`.
fn editor() -> String {
    std::process::Command::new("git")
        .args(["var", "GIT_EDITOR"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty())
        .or_else(|| {
            std::env::var("EDITOR")
                .ok()
                .filter(|e| !e.trim().is_empty())
        })
        .unwrap_or_else(|| "vi".to_owned())
}

/// Both commit messages, whole, made safe for the terminal.
fn write_messages(out: &mut dyn std::io::Write, r: &Report) -> std::io::Result<()> {
    writeln!(out, "Commit 1: {}", super::ui::safe(&r.audit_message))?;
    for (i, line) in r.optimize_message.trim_end().lines().enumerate() {
        let lead = if i == 0 { "Commit 2: " } else { "          " };
        writeln!(
            out,
            "{}",
            format!("{lead}{}", super::ui::safe(line)).trim_end()
        )?;
    }
    Ok(())
}

fn read_answer() -> Option<String> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    Some(line.trim().to_ascii_lowercase())
}

fn render(ui: &mut Ui, r: &Report) -> std::io::Result<()> {
    let safe = super::ui::safe;
    let out = &mut ui.out;
    writeln!(out, "=== skill-optimizer: {} ===", r.skill)?;
    writeln!(out)?;
    writeln!(
        out,
        "Signals: {} corrected, {} friction ({}){}",
        r.corrected,
        r.friction,
        git_skill::report::plural(r.clusters, "cluster"),
        if r.stale.is_empty() {
            String::new()
        } else {
            format!("; {} recorded against an older SKILL.md", r.stale.len())
        }
    )?;
    if !r.set_aside.is_empty() {
        writeln!(
            out,
            "Set aside after a conflict (still pending): {}",
            r.set_aside.join(", ")
        )?;
    }
    if let Some(mode) = r.mode {
        let mode = match mode {
            optimize::Mode::TextEdit => "text edit",
            optimize::Mode::Rewrite => "full rewrite",
        };
        writeln!(out, "Mode: {mode}")?;
    }
    writeln!(out, "Diagnosis: {}", safe(&r.diagnosis))?;
    if let Some(c) = &r.candidate {
        if !c.edits.is_empty() {
            writeln!(out)?;
            writeln!(out, "Changes:")?;
            for e in &c.edits {
                let line = match e.kind {
                    EditKind::Delete => format!("DELETE \"{}\"", one_line(&e.target, 60)),
                    EditKind::Replace => {
                        format!(
                            "REPLACE \"{}\" -> \"{}\"",
                            one_line(&e.target, 60),
                            one_line(&e.new, 60)
                        )
                    }
                    EditKind::Add => {
                        format!(
                            "ADD after \"{}\": \"{}\"",
                            one_line(&e.target, 60),
                            one_line(&e.new, 60)
                        )
                    }
                };
                writeln!(out, "  - {} ({})", safe(&line), safe(&e.reason))?;
            }
        }
        if !c.dropped.is_empty() {
            writeln!(out, "Dropped:")?;
            for d in &c.dropped {
                writeln!(
                    out,
                    "  - \"{}\": {}",
                    safe(&one_line(&d.edit.target, 60)),
                    d.reason
                )?;
            }
        }
    }
    if let Some(checks) = &r.checks {
        writeln!(out)?;
        writeln!(
            out,
            "Checks: SkillGuard {}, lint {}, size {} -> {} bytes (at most {})",
            checks.verdict,
            if checks.lint_errors.is_empty() {
                "ok".to_owned()
            } else {
                format!("{} errors", checks.lint_errors.len())
            },
            checks.original_bytes,
            checks.candidate_bytes,
            checks.max_bytes
        )?;
        if !checks.frontmatter_changes.is_empty() {
            writeln!(out, "Frontmatter changes:")?;
            for c in &checks.frontmatter_changes {
                writeln!(out, "  - {}", safe(c))?;
            }
        }
        if !checks.drift.is_empty() {
            writeln!(out, "New capabilities:")?;
            for d in &checks.drift {
                writeln!(out, "  + {}", safe(d))?;
            }
        }
        for a in &checks.allowed {
            writeln!(out, "Allowed: {}", safe(a))?;
        }
    }
    if let Some(g) = &r.gate {
        if g.skipped {
            writeln!(
                out,
                "Gate: skipped (friction signals only, as skill-optimizer.md says)"
            )?;
        } else if !g.records.is_empty() {
            writeln!(
                out,
                "Gate: {}/{} passed (threshold {})",
                g.passed,
                git_skill::report::plural(g.total, "cluster"),
                g.threshold
            )?;
            for rec in &g.records {
                writeln!(
                    out,
                    "  {}: {} - {}",
                    rec.cluster_id,
                    rec.verdict,
                    safe(&rec.reason)
                )?;
            }
        }
        if !g.regression.is_empty() {
            let held = g.regression.iter().filter(|x| x.passed).count();
            writeln!(
                out,
                "Regression: {held}/{} earlier fixes hold",
                g.regression.len()
            )?;
            for rec in g.regression.iter().filter(|x| !x.passed) {
                writeln!(
                    out,
                    "  {} ({}): {} - {}",
                    rec.cluster_id,
                    rec.from_optimization.as_deref().unwrap_or("-"),
                    rec.verdict,
                    safe(&rec.reason)
                )?;
            }
        }
    }
    if !r.reasons.is_empty() {
        writeln!(out)?;
        writeln!(out, "Rejected:")?;
        for reason in &r.reasons {
            writeln!(out, "  - {}", safe(reason))?;
        }
    }
    writeln!(out)?;
    match r.outcome {
        Decision::Accepted => {
            writeln!(out, "Commits:")?;
            let first = |m: &str| m.lines().next().unwrap_or("").to_owned();
            if let Some(id) = &r.audit_commit {
                writeln!(out, "  {} {}", &id[..id.len().min(7)], first(&r.audit_message))?;
            }
            if let Some(id) = &r.optimize_commit {
                writeln!(out, "  {} {}", &id[..id.len().min(7)], first(&r.optimize_message))?;
            }
            writeln!(out, "Undo with: git skill rollback {}", r.skill)?;
        }
        Decision::DryRunAccepted | Decision::DryRunRejected => {
            writeln!(out, "Dry run: nothing was committed. The change to SKILL.md:")?;
            writeln!(out)?;
            super::ui::write_lines(out, r.diff.as_deref().unwrap_or(""))?;
            writeln!(out)?;
            write_messages(out, r)?;
            match &r.commit_with {
                Some(with) => writeln!(
                    out,
                    "The dry run's checkpoint is kept: git skill optimize {} {with} commits exactly this change, with no model call (it asks first; add --yes not to); --restart discards it.",
                    r.skill
                )?,
                None => writeln!(out, "Nothing was kept: no flag could let this candidate through.")?,
            }
        }
        Decision::Declined | Decision::AwaitingApproval => {
            if r.outcome == Decision::AwaitingApproval {
                writeln!(out, "The change to SKILL.md:")?;
                writeln!(out)?;
                super::ui::write_lines(out, r.diff.as_deref().unwrap_or(""))?;
                writeln!(out)?;
                write_messages(out, r)?;
                writeln!(out, "Nothing was committed: the gate accepted this change, and there is no terminal to ask whether to commit it.")?;
            } else {
                writeln!(out, "Nothing was committed, as you answered.")?;
            }
            writeln!(
                out,
                "The checkpoint is kept: git skill optimize {} {} commits exactly this change, with no model call; --restart discards it.",
                r.skill,
                r.commit_with.as_deref().unwrap_or("--resume")
            )?;
        }
        Decision::Rejected => {
            writeln!(out, "Nothing was committed; the signals stay pending.")?;
            if let Some(flags) = &r.resume_with {
                writeln!(
                    out,
                    "If the signals do ask for this, accept it with: git skill optimize {} --resume {flags} (the model's answers are kept; no call is repeated)",
                    r.skill
                )?;
            }
        }
        Decision::NothingToApply => writeln!(
            out,
            "No applicable edit came out of this run; nothing was changed. Give the agent more precise corrections, or edit SKILL.md by hand."
        )?,
    }
    writeln!(
        out,
        "Model calls: {} ({} tokens in, {} out)",
        r.tokens.calls, r.tokens.input, r.tokens.output
    )?;
    Ok(())
}

/// The crash point of optimize's recovery tests (`GIT_SKILL_FAILPOINT`). Only debug builds,
/// which `cargo test` runs, read it: a release binary has no way to be killed on request.
#[cfg(debug_assertions)]
fn failpoint() -> Option<String> {
    std::env::var("GIT_SKILL_FAILPOINT").ok()
}

#[cfg(not(debug_assertions))]
fn failpoint() -> Option<String> {
    None
}
