//! The report of an optimize run, as text.

use std::io::Write;

use git_skill::optimize::{self, Decision, Report};
use git_skill::prompt::contracts::EditKind;
use git_skill::report::one_line;

use crate::cli::ui::{safe, write_lines};

pub fn render(out: &mut dyn Write, r: &Report) -> std::io::Result<()> {
    summary(out, r)?;
    changes(out, r)?;
    checks(out, r)?;
    gate(out, r)?;
    // Only for a change that landed or can still be committed.
    let can_land = match r.outcome {
        Decision::Accepted => Some(true),
        Decision::DryRunAccepted | Decision::Declined | Decision::AwaitingApproval => Some(false),
        Decision::Rejected | Decision::DryRunRejected => {
            (r.resume_with.is_some() || r.commit_with.is_some()).then_some(false)
        }
        Decision::NothingToApply => None,
    };
    if let Some(landed) = can_land {
        new_cases(out, &r.eval_cases, landed)?;
    }
    ending(out, r)
}

/// The skill, its signals, the mode and the diagnosis.
fn summary(out: &mut dyn Write, r: &Report) -> std::io::Result<()> {
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
    Ok(())
}

/// The candidate's edits and those dropped.
fn changes(out: &mut dyn Write, r: &Report) -> std::io::Result<()> {
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
    Ok(())
}

/// What the local checks found.
fn checks(out: &mut dyn Write, r: &Report) -> std::io::Result<()> {
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
    Ok(())
}

/// The model gate's verdicts and the regression check.
fn gate(out: &mut dyn Write, r: &Report) -> std::io::Result<()> {
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
        if let Some(replay) = &g.replay {
            replay_lines(out, replay)?;
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
    Ok(())
}

/// The replay gate: the pass rates before and after, and each case the candidate broke.
pub fn replay_lines(out: &mut dyn Write, r: &optimize::Replay) -> std::io::Result<()> {
    writeln!(
        out,
        "Evals: {} -> {} passed ({} on SKILL.md as it is, then on the candidate; {})",
        r.before,
        r.after,
        git_skill::report::plural(r.cases, "case"),
        if r.calls == 0 {
            "answers kept from an earlier run, no call".to_owned()
        } else {
            git_skill::report::plural(r.calls as usize, "model call")
        }
    )?;
    for g in &r.regressions {
        writeln!(
            out,
            "  case {}: passes now, {} with the candidate - {}",
            safe(&g.case),
            if r.allowed {
                "fails (taken with --allow-regression)"
            } else {
                "FAILS"
            },
            safe(&g.reason)
        )?;
    }
    Ok(())
}

/// The eval cases the change adds from its corrected signals (`landed`: they did).
pub fn new_cases(
    out: &mut dyn Write,
    cases: &[git_skill::eval::Case],
    landed: bool,
) -> std::io::Result<()> {
    if cases.is_empty() {
        return Ok(());
    }
    if landed {
        writeln!(
            out,
            "Eval cases added (evals/evals.json, from the corrected signals):"
        )?;
    } else {
        writeln!(
            out,
            "New eval cases (evals/evals.json, from the corrected signals; --no-evals leaves them out):"
        )?;
    }
    for c in cases {
        writeln!(
            out,
            "  + case {} ({}): {}",
            c.id,
            safe(c.source.as_deref().unwrap_or("-")),
            safe(&one_line(&c.prompt, 70))
        )?;
    }
    Ok(())
}

/// Why it was rejected, what was committed or kept, and what it cost.
fn ending(out: &mut dyn Write, r: &Report) -> std::io::Result<()> {
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
            write_lines(out, r.diff.as_deref().unwrap_or(""))?;
            writeln!(out)?;
            // The commits' messages only for a change that can still be committed.
            if r.outcome == Decision::DryRunAccepted || r.commit_with.is_some() {
                write_messages(out, r)?;
            }
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
                write_lines(out, r.diff.as_deref().unwrap_or(""))?;
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

/// Both commit messages, whole, made safe for the terminal.
fn write_messages(out: &mut dyn std::io::Write, r: &Report) -> std::io::Result<()> {
    writeln!(out, "Commit 1: {}", safe(&r.audit_message))?;
    for (i, line) in r.optimize_message.trim_end().lines().enumerate() {
        let lead = if i == 0 { "Commit 2: " } else { "          " };
        writeln!(out, "{}", format!("{lead}{}", safe(line)).trim_end())?;
    }
    Ok(())
}
