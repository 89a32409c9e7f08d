//! Optimize's progress and questions on the terminal.

use std::io::{BufRead as _, Write as _};

use git_skill::optimize::{
    Approval, Approve, Confirm, Estimate, Interact, Progress, Reuse, WaitingDryRun,
};
use git_skill::prompt::contracts::Conflict;
use git_skill::signal::Signal;

use crate::cli::progress::Steps;
use crate::cli::ui::safe;

/// Progress and questions on the terminal.
pub struct Terminal<'a> {
    pub steps: Steps<'a>,
    /// Ask questions (stdin and stderr are terminals).
    pub ask: bool,
}

impl Progress for Terminal<'_> {
    fn warn(&mut self, message: &str) {
        self.steps.warn(message)
    }

    fn progress(&mut self, step: u8, total: u8, name: &str, what: &str) {
        self.steps.progress(step, total, name, what)
    }

    fn calls(&mut self, done: u32, planned: usize) {
        self.steps.calls(done, planned)
    }
}

impl Interact for Terminal<'_> {
    fn confirm(&mut self, e: &Estimate) -> Confirm {
        if !self.ask {
            return Confirm::CannotAsk;
        }
        let _ = write!(
            self.steps.err,
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
            } + &if e.eval_cases > 0 {
                format!(
                    " + {} replayed before and after",
                    git_skill::report::plural(e.eval_cases, "eval case")
                )
            } else {
                String::new()
            }
        );
        let _ = self.steps.err.flush();
        match read_answer() {
            Some(a) if a == "y" || a == "yes" => Confirm::Yes,
            _ => Confirm::No,
        }
    }

    fn approve(&mut self, a: &Approval<'_>) -> Approve {
        if !self.ask {
            return Approve::CannotAsk;
        }
        let _ = writeln!(self.steps.err);
        let _ = crate::cli::ui::write_lines(&mut self.steps.err, a.diff);
        let _ = writeln!(self.steps.err);
        if a.gate.skipped {
            let _ = writeln!(self.steps.err, "Gate: skipped (friction signals only)");
        } else {
            let _ = writeln!(
                self.steps.err,
                "Gate: {}/{} passed (threshold {})",
                a.gate.passed,
                git_skill::report::plural(a.gate.total, "cluster"),
                a.gate.threshold
            );
            for rec in a.gate.records.iter().chain(&a.gate.regression) {
                let _ = writeln!(
                    self.steps.err,
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
        if let Some(replay) = &a.gate.replay {
            let _ = super::render::replay_lines(&mut self.steps.err, replay);
        }
        let _ = super::render::new_cases(&mut self.steps.err, a.eval_cases, false);
        let _ = writeln!(
            self.steps.err,
            "Checks: SkillGuard {}, lint ok, size {} -> {} bytes",
            a.checks.verdict, a.checks.original_bytes, a.checks.candidate_bytes
        );
        let _ = writeln!(self.steps.err, "Commit 1: {}", safe(a.audit_message));
        for (i, line) in a.optimize_message.trim_end().lines().enumerate() {
            let lead = if i == 0 { "Commit 2: " } else { "          " };
            let _ = writeln!(
                self.steps.err,
                "{}",
                format!("{lead}{}", safe(line)).trim_end()
            );
        }
        if a.edited {
            let _ = writeln!(
                self.steps.err,
                "(the candidate is your edit, checked and judged again)"
            );
        }
        let _ = write!(
            self.steps.err,
            "Commit {}? [y/N/e] (e: edit the candidate first) ",
            a.skill
        );
        let _ = self.steps.err.flush();
        match read_answer().as_deref() {
            Some("y" | "yes") => Approve::Commit,
            Some("e" | "edit") => Approve::Edit,
            _ => Approve::Decline,
        }
    }

    fn edit(&mut self, path: &std::path::Path) -> Result<(), String> {
        let editor = editor();
        let _ = writeln!(self.steps.err, "Opening {} in {editor} ...", path.display());
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
            self.steps.err,
            "A dry run from {} left a candidate ({}, {}). Use it, as --resume does (no model call)? [y = use it / n = discard it and start again / anything else stops] ",
            w.started,
            git_skill::report::plural(w.signals, "signal"),
            if w.accepted {
                "accepted by the gate"
            } else {
                "refused only for what a flag allows"
            }
        );
        let _ = self.steps.err.flush();
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
            self.steps.err,
            "These signals contradict each other ({}):\n  a) {} {}\n  b) {} {}",
            safe(&c.reason),
            c.signal_a,
            safe(&describe(a)),
            c.signal_b,
            safe(&describe(b)),
        );
        let _ = write!(
            self.steps.err,
            "Which direction should the skill take? [a/b, anything else stops] "
        );
        let _ = self.steps.err.flush();
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

fn read_answer() -> Option<String> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    Some(line.trim().to_ascii_lowercase())
}
