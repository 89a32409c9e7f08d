//! The run itself: each step reads what the checkpoint already holds and does only the rest.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::checkpoint::{self, Candidate, Checkpoint, CommitIntent, GateOutcome, Mode, Tokens};
use super::gate::{self, Question};
use super::{checks, diff, edits, history, record};
use super::{
    Confirm, Context, Estimate, Interact, OptimizeError, Options, Outcome, Report, RunError,
};
use crate::git::FileChange;
use crate::llm::{json, Request, Usage};
use crate::prompt::contracts::{Cluster, Reflection, TriageAnswer};
use crate::prompt::vars::{ReflectVars, SignalSummary, TriageVars};
use crate::prompt::PromptName;
use crate::signal::select::Selector;
use crate::signal::store::{self, Entry};
use crate::signal::{Signal, SignalType};
use crate::skill::layout;
use crate::worklock::{LockError, WorkLock};

/// How many earlier fixes the regression check asks about at most (the newest).
const MAX_REGRESSION: usize = 20;

/// Runs the 8 steps (or what the checkpoint leaves of them).
pub fn run(ctx: &Context<'_>, opts: &Options, ui: &mut dyn Interact) -> Result<Report, RunError> {
    run_steps(ctx, opts, ui).map_err(|error| RunError {
        skill: ctx.skill_name.clone(),
        dry_run: opts.dry_run,
        error: Box::new(error),
    })
}

fn run_steps(
    ctx: &Context<'_>,
    opts: &Options,
    ui: &mut dyn Interact,
) -> Result<Report, OptimizeError> {
    // ---- Step 1: confirm the target ----
    ui.progress(1, 8, "confirm", &format!("checking {}", ctx.skill_rel));
    let work = checkpoint::work_dir(&ctx.skill_dir);
    // The lock is held for the whole run (a dry run writes nothing, not even the lock).
    let _lock = if opts.dry_run {
        None
    } else {
        Some(lock(&work, &ctx.skill_name)?)
    };
    // A step 8 cut short comes first: its commits landed or not, and the work tree must be
    // put right before anything looks at it.
    if let Some(report) = recover_commit(ctx, opts, &work, ui)? {
        return Ok(report);
    }
    let skill_md_path = ctx.skill_dir.join("SKILL.md");
    let original =
        std::fs::read_to_string(&skill_md_path).map_err(|source| OptimizeError::Read {
            path: skill_md_path.clone(),
            source,
        })?;
    let pre_hash = crate::signal::sha256_hex(original.as_bytes());
    let ignore = format!("{}/", layout::rel(&ctx.skill_rel, layout::DIR));
    let dirty = ctx.repo.dirty_paths(&ctx.skill_rel, &[ignore.as_str()])?;
    if !dirty.is_empty() {
        return Err(OptimizeError::Dirty {
            skill: ctx.skill_name.clone(),
            paths: dirty,
        });
    }
    let existing = checkpoint::find(&ctx.skill_dir)?;
    if existing.is_some() {
        refuse_committed_work(ctx)?;
    }
    let (path, mut cp, resumed) = match existing {
        Some((path, _)) if opts.restart => {
            if !opts.dry_run {
                let _ = std::fs::remove_file(&path);
            }
            fresh(ctx, opts, &pre_hash, &work)?
        }
        Some((path, cp)) => {
            if cp.pre_hash != pre_hash {
                return Err(OptimizeError::StaleCheckpoint { path });
            }
            if (cp.days, cp.max_signals) != (opts.days, opts.max_signals) {
                return Err(OptimizeError::OptionsChanged {
                    path,
                    days: cp.days,
                    max_signals: cp.max_signals,
                });
            }
            let step = cp.last_completed_step;
            (path, cp, Some(step))
        }
        None if opts.resume => {
            return Err(OptimizeError::NothingToResume {
                skill: ctx.skill_name.clone(),
            })
        }
        None => fresh(ctx, opts, &pre_hash, &work)?,
    };
    let save = |cp: &Checkpoint| -> Result<(), OptimizeError> {
        if !opts.dry_run {
            checkpoint::save(&path, cp)?;
            failpoint(opts, &format!("after-step-{}", cp.last_completed_step));
        }
        Ok(())
    };
    // A run that stops before its first model call leaves no checkpoint behind.
    let discard = |path: &Path| {
        if !opts.dry_run {
            let _ = std::fs::remove_file(path);
        }
    };
    let raw_dir: Option<PathBuf> = (!opts.dry_run).then(|| work.clone());
    save(&cp)?;

    // ---- Step 2: load signals ----
    if cp.last_completed_step < 2 {
        ui.progress(2, 8, "load signals", "reading the pending signals");
        let mut selector = Selector::new(ctx.now, opts.days, opts.max_signals);
        let pending = store::pending_path(&ctx.skill_dir);
        let mut bad = Vec::new();
        store::stream(&pending, |entry| match entry {
            Entry::Signal(_, signal) => selector.push(signal),
            Entry::Bad(b) => bad.push(b),
        })?;
        for b in bad.iter().take(20) {
            ui.warn(&format!(
                "{}:{}: {} (skipped; the line stays in the store)",
                pending.display(),
                b.line,
                b.reason
            ));
        }
        if bad.len() > 20 {
            ui.warn(&format!("{} more malformed lines skipped", bad.len() - 20));
        }
        let selection = selector.finish(&pre_hash);
        if selection.selected.is_empty() {
            discard(&path);
            return Err(OptimizeError::NoSignals {
                skill: ctx.skill_name.clone(),
            });
        }
        cp.signals = selection.selected;
        cp.stale = selection.stale;
        cp.left_out = selection.left_out;
        cp.too_old = selection.too_old;
        cp.last_completed_step = 2;
        save(&cp)?;
    }
    let earlier = regression_questions(ctx);
    if cp.triage.is_none() && !opts.yes {
        let estimate = estimate(&cp.signals, earlier.len());
        match ui.confirm(&estimate) {
            Confirm::Yes => {}
            Confirm::No => {
                discard(&path);
                return Err(OptimizeError::Declined);
            }
            Confirm::CannotAsk => {
                discard(&path);
                return Err(OptimizeError::NeedsConfirmation(estimate));
            }
        }
    }

    ui.calls(cp.tokens.calls, planned(&cp, earlier.len()));

    // ---- Step 3: triage ----
    if cp.triage.is_none() {
        ui.progress(
            3,
            8,
            "triage",
            &format!("asking {}", ctx.provider.describe()),
        );
        let vars = TriageVars {
            skill_name: ctx.skill_name.clone(),
            current_hash: pre_hash.clone(),
            signals: cp.signals.iter().map(SignalSummary::from).collect(),
        };
        let prompt = ctx.prompts.render_with(PromptName::Triage, &vars)?;
        let ids: Vec<String> = cp.signals.iter().map(|s| s.signal_id.clone()).collect();
        let check = |t: &TriageAnswer| t.validate(&ids).map_err(|e| e.to_string());
        let answer = json::complete_json::<TriageAnswer>(
            ctx.provider,
            &request(prompt, 8192),
            &check,
            raw_dir.as_deref(),
        )?;
        spend(&mut cp.tokens, answer.usage, answer.attempts);
        cp.triage = Some(answer.value);
        ui.calls(cp.tokens.calls, planned(&cp, earlier.len()));
        cp.last_completed_step = 3;
        save(&cp)?;
    }
    let triage = cp.triage.clone().expect("triage is done");
    // Conflicts: the user picks a direction; the other signal stays pending, out of this run.
    let mut unresolved = Vec::new();
    for conflict in &triage.conflicts {
        let settled = [&conflict.signal_a, &conflict.signal_b]
            .iter()
            .any(|id| cp.set_aside.contains(id));
        if settled {
            continue;
        }
        let find = |id: &str| cp.signals.iter().find(|s| s.signal_id == id);
        let preferred = if opts.prefer.contains(&conflict.signal_a) {
            Some(conflict.signal_a.clone())
        } else if opts.prefer.contains(&conflict.signal_b) {
            Some(conflict.signal_b.clone())
        } else {
            ui.choose(conflict, find(&conflict.signal_a), find(&conflict.signal_b))
        };
        match preferred {
            Some(id) if id == conflict.signal_a => cp.set_aside.push(conflict.signal_b.clone()),
            Some(id) if id == conflict.signal_b => cp.set_aside.push(conflict.signal_a.clone()),
            _ => unresolved.push(conflict.clone()),
        }
    }
    save(&cp)?;
    if !unresolved.is_empty() {
        return Err(OptimizeError::Conflicts(unresolved));
    }
    let set_aside: HashSet<&str> = cp.set_aside.iter().map(String::as_str).collect();
    let signals: Vec<Signal> = cp
        .signals
        .iter()
        .filter(|s| !set_aside.contains(s.signal_id.as_str()))
        .cloned()
        .collect();
    let clusters = clusters_without(&triage.clusters, &set_aside);

    // ---- Step 4: deep read (the context is in the signals already) ----
    if cp.last_completed_step < 4 {
        ui.progress(
            4,
            8,
            "deep read",
            &format!("{} signals with their context", signals.len()),
        );
        cp.last_completed_step = 4;
        save(&cp)?;
    }

    // ---- Step 5: reflect ----
    let vars = ReflectVars::new(&ctx.skill_name, &original, &signals, clusters.clone());
    if cp.reflection.is_none() {
        ui.progress(
            5,
            8,
            "reflect",
            &format!("asking {}", ctx.provider.describe()),
        );
        let omitted = !vars.omitted_sections.is_empty();
        let prompt = ctx.prompts.render_with(PromptName::Reflect, &vars)?;
        let cluster_ids: Vec<String> = clusters.iter().map(|c| c.cluster_id.clone()).collect();
        let check = |r: &Reflection| r.validate(&cluster_ids, omitted).map_err(|e| e.to_string());
        let answer = json::complete_json::<Reflection>(
            ctx.provider,
            &request(prompt, 16384),
            &check,
            raw_dir.as_deref(),
        )?;
        spend(&mut cp.tokens, answer.usage, answer.attempts);
        cp.reflection = Some(answer.value);
        ui.calls(cp.tokens.calls, planned(&cp, earlier.len()));
        cp.last_completed_step = 5;
        save(&cp)?;
    }
    let reflection = cp.reflection.clone().expect("reflect is done");

    let mut report = Report {
        skill: ctx.skill_name.clone(),
        optimization_id: cp.optimization_id.clone(),
        outcome: Outcome::Rejected,
        corrected: signals
            .iter()
            .filter(|s| s.kind == SignalType::Corrected)
            .count(),
        friction: signals
            .iter()
            .filter(|s| s.kind == SignalType::Friction)
            .count(),
        clusters: clusters.len(),
        mode: None,
        diagnosis: reflection.diagnosis().to_owned(),
        candidate: None,
        checks: None,
        gate: None,
        stale: cp.stale.clone(),
        set_aside: cp.set_aside.clone(),
        left_out: cp.left_out,
        too_old: cp.too_old,
        reasons: Vec::new(),
        audit_commit: None,
        optimize_commit: None,
        audit_message: String::new(),
        optimize_message: String::new(),
        diff: None,
        resume_with: None,
        resolved_dir: None,
        tokens: cp.tokens.clone(),
        resumed_from_step: resumed,
    };

    // ---- Step 6: dry run of the edits ----
    if cp.candidate.is_none() {
        ui.progress(6, 8, "dry run", "applying the edits to a copy of SKILL.md");
        let candidate = match &reflection {
            Reflection::Edits { edits: list, .. } => {
                let applied = edits::apply(&original, list);
                Candidate {
                    mode: Mode::TextEdit,
                    text: applied.text,
                    edits: applied.kept,
                    dropped: applied.dropped,
                }
            }
            Reflection::Rewrite { content, .. } => {
                if let Err(reason) = edits::check_frontmatter(&original, content) {
                    report
                        .reasons
                        .push(format!("the rewrite is not usable: {reason}"));
                }
                Candidate {
                    mode: Mode::Rewrite,
                    text: content.clone(),
                    edits: Vec::new(),
                    dropped: Vec::new(),
                }
            }
        };
        let nothing = (candidate.mode == Mode::TextEdit && candidate.edits.is_empty())
            || candidate.text == original;
        if nothing || !report.reasons.is_empty() {
            report.outcome = Outcome::NothingToApply;
            report.mode = Some(candidate.mode);
            report.candidate = Some(candidate);
            report.tokens = cp.tokens.clone();
            finish(&work, opts.dry_run);
            return Ok(report);
        }
        cp.candidate = Some(candidate);
        cp.last_completed_step = 6;
        save(&cp)?;
    }
    let candidate = cp.candidate.clone().expect("the dry run is done");
    report.mode = Some(candidate.mode);

    // ---- Step 7: gate ----
    // Asks the judges not answered yet; answers are kept in the checkpoint as they come.
    let judge = |questions: &[Question], regression: bool, cp: &mut Checkpoint| {
        let answers = if regression {
            &mut cp.regression_answers
        } else {
            &mut cp.gate_answers
        };
        let (usage, calls, error) = gate::ask(
            ctx.provider,
            ctx.prompts,
            &ctx.skill_name,
            &candidate.text,
            questions,
            answers,
            ctx.parallel,
            raw_dir.as_deref(),
        );
        spend(&mut cp.tokens, usage, calls);
        save(cp)?;
        if let Some(e) = error {
            return Err(OptimizeError::from(e));
        }
        let answers = if regression {
            &cp.regression_answers
        } else {
            &cp.gate_answers
        };
        Ok(questions
            .iter()
            .filter_map(|q| answers.get(&q.key).cloned())
            .collect())
    };
    // The local checks run every time, resumes included: they are deterministic and cheap,
    // the allow flags may be new, and a gate result is never taken on trust from a file. The
    // judges' answers are kept, so none is asked twice.
    {
        ui.progress(
            7,
            8,
            "gate",
            "SkillGuard, lint, the size budget, the frontmatter and capability drift",
        );
        let local = checks::check(
            &ctx.skill_dir,
            &ctx.skill_rel,
            &original,
            &candidate.text,
            checks::Limits {
                max_growth: ctx.max_growth,
                fail_on: ctx.fail_on,
                allow_frontmatter: opts.allow_frontmatter,
                allow_drift: opts.allow_drift,
            },
        );
        let mut outcome = GateOutcome {
            mode: candidate.mode,
            skipped: false,
            records: Vec::new(),
            passed: 0,
            total: clusters.len(),
            threshold: ctx.gate_threshold,
            accepted: false,
            regression: Vec::new(),
        };
        cp.checks = Some(local.clone());
        if local.passed() {
            let friction_only = signals.iter().all(|s| s.kind == SignalType::Friction);
            if friction_only {
                outcome.skipped = true;
                outcome.accepted = true;
            } else {
                let questions: Vec<Question> = clusters
                    .iter()
                    .map(|c| Question {
                        key: c.cluster_id.clone(),
                        cluster: c.clone(),
                        signals: signals_of(c, &signals),
                        mode: candidate.mode,
                        from_optimization: None,
                    })
                    .collect();
                ui.progress(
                    7,
                    8,
                    "gate",
                    &format!(
                        "{} judges in parallel ({} at a time)",
                        questions.len(),
                        ctx.parallel
                    ),
                );
                outcome.records = judge(&questions, false, &mut cp)?;
                ui.calls(cp.tokens.calls, planned(&cp, earlier.len()));
                outcome.passed = outcome.records.iter().filter(|r| r.passed).count();
                outcome.accepted = outcome.total == 0
                    || outcome.passed as f64 / outcome.total as f64 >= ctx.gate_threshold;
            }
            if outcome.accepted && !earlier.is_empty() {
                ui.progress(
                    7,
                    8,
                    "gate",
                    &format!("regression check: {} earlier fixes", earlier.len()),
                );
                outcome.regression = judge(&earlier, true, &mut cp)?;
                ui.calls(cp.tokens.calls, planned(&cp, earlier.len()));
            }
        }
        cp.gate = Some(outcome);
        cp.last_completed_step = 7;
        save(&cp)?;
    }
    let outcome = cp.gate.clone().expect("the gate is done");
    let local = cp.checks.clone().expect("the checks ran");
    report.reasons.extend(local.refusals.iter().cloned());
    if local.passed() && !outcome.accepted {
        report.reasons.push(format!(
            "the gate passed {} of {} clusters, under the threshold {}",
            outcome.passed, outcome.total, outcome.threshold
        ));
    }
    for r in outcome.regression.iter().filter(|r| !r.passed) {
        report.reasons.push(format!(
            "cluster {} fixed by {} would come back: {}",
            r.cluster_id,
            r.from_optimization
                .as_deref()
                .unwrap_or("an earlier optimization"),
            r.reason
        ));
    }
    let accepted = report.reasons.is_empty();
    report.checks = Some(local.clone());
    report.gate = Some(outcome.clone());
    report.candidate = Some(candidate.clone());
    report.tokens = cp.tokens.clone();

    // ---- Step 8: update ----
    let summary = summary(reflection.diagnosis());
    report.audit_message = format!(
        "audit(skill): archive {} signals for {}",
        signals.len(),
        ctx.skill_name
    );
    report.optimize_message = format!(
        "optimize(skill): {}: {summary}\n\n{}\n\nMode: {}\nGate: {}\nOptimization-Id: {}\n",
        ctx.skill_name,
        wrap(reflection.diagnosis(), 72),
        candidate.mode.as_str(),
        if outcome.skipped {
            "skipped (friction signals only)".to_owned()
        } else {
            format!("{}/{} clusters passed", outcome.passed, outcome.total)
        },
        cp.optimization_id
    );
    if opts.dry_run {
        report.outcome = if accepted {
            Outcome::DryRunAccepted
        } else {
            Outcome::DryRunRejected
        };
        report.diff = Some(diff::unified(
            &format!("{}/SKILL.md", ctx.skill_rel),
            &original,
            &candidate.text,
        ));
        return Ok(report);
    }
    if !accepted {
        report.outcome = Outcome::Rejected;
        // Refused only for what a flag can allow: the answers are kept, so that accepting the
        // change after reading why costs no model call.
        let flags: Vec<&str> = local
            .refusals
            .iter()
            .map(|r| match r.split(':').next() {
                Some("frontmatter") => Some("--allow-frontmatter"),
                Some("drift") => Some("--allow-drift"),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
        if !flags.is_empty() && report.reasons.len() == local.refusals.len() {
            let mut flags = flags;
            flags.dedup();
            report.resume_with = Some(flags.join(" "));
            return Ok(report);
        }
        finish(&work, false);
        return Ok(report);
    }
    ui.progress(8, 8, "update", "writing the audit and the optimize commits");
    {
        // Nothing may have changed the skill since step 1: the candidate was made from that
        // SKILL.md, and the optimize commit would overwrite any other change.
        let now_text = std::fs::read(&skill_md_path).map_err(|source| OptimizeError::Read {
            path: skill_md_path.clone(),
            source,
        })?;
        let dirty = ctx.repo.dirty_paths(&ctx.skill_rel, &[ignore.as_str()])?;
        if crate::signal::sha256_hex(&now_text) != pre_hash || !dirty.is_empty() {
            return Err(OptimizeError::ChangedDuringRun(format!(
                "{}/SKILL.md",
                ctx.skill_rel
            )));
        }
        let dir = record::resolved_dir(
            &ctx.skill_dir,
            ctx.now.date_naive(),
            clusters
                .first()
                .map_or("optimization", |c| c.root_cause.as_str()),
        );
        let dir_rel = format!(
            "{}/{}",
            ctx.skill_rel,
            dir.strip_prefix(&ctx.skill_dir)
                .unwrap_or(&dir)
                .to_string_lossy()
                .replace('\\', "/")
        );
        let (provider, model) = {
            let d = ctx.provider.describe();
            (d.provider.to_owned(), d.model.clone())
        };
        let mut optimization = record::Optimization {
            optimization_id: cp.optimization_id.clone(),
            skill: ctx.skill_name.clone(),
            timestamp: ctx.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            mode: candidate.mode,
            diagnosis: reflection.diagnosis().to_owned(),
            edits: candidate.edits.clone(),
            dropped_edits: candidate.dropped.clone(),
            rewrite_reason: match &reflection {
                Reflection::Rewrite { reason, .. } => reason.clone(),
                Reflection::Edits { .. } => String::new(),
            },
            clusters: clusters.clone(),
            conflicts: triage.conflicts.clone(),
            set_aside: cp.set_aside.clone(),
            stale_signals: cp.stale.clone(),
            gate_result: outcome.clone(),
            local_checks: local,
            pre_optimization_hash: pre_hash.clone(),
            post_optimization_hash: crate::signal::sha256_hex(candidate.text.as_bytes()),
            signal_ids: Vec::new(),
            pre_skill_backup: original.clone(),
            provider,
            model,
            summary: summary.clone(),
            tokens: cp.tokens.clone(),
        };
        let ids: HashSet<String> = signals.iter().map(|s| s.signal_id.clone()).collect();
        let gitignore = layout::path(&ctx.skill_dir, layout::GITIGNORE);
        let skill_rel = &ctx.skill_rel;
        let repo = ctx.repo;
        let pending_rel = layout::rel(skill_rel, layout::PENDING);
        let mut points = Failpoints::new(opts);
        // What is archived is what the store still holds of the run's signals: one removed
        // by hand meanwhile is neither archived nor counted. The store's writers wait until
        // the commits are in place, so a signal recorded meanwhile lands in the new file.
        let landed = store::rewrite_without(&ctx.skill_dir, &ids, |kept, removed| {
            if removed.is_empty() {
                return Err(OptimizeError::NothingToArchive {
                    skill: ctx.skill_name.clone(),
                });
            }
            optimization.signal_ids = removed.iter().map(|s| s.signal_id.clone()).collect();
            let message = format!(
                "audit(skill): archive {} signals for {}",
                removed.len(),
                ctx.skill_name
            );
            let mut changes = vec![
                FileChange {
                    path: pending_rel.clone(),
                    content: Some(kept.to_vec()),
                },
                FileChange {
                    path: format!("{dir_rel}/signal.json"),
                    content: Some(store::to_lines(removed)),
                },
                FileChange {
                    path: format!("{dir_rel}/optimization.json"),
                    content: Some(
                        serde_json::to_vec_pretty(&optimization).expect("a record serialises"),
                    ),
                },
            ];
            if let Ok(text) = std::fs::read(&gitignore) {
                changes.push(FileChange {
                    path: layout::rel(skill_rel, layout::GITIGNORE),
                    content: Some(text),
                });
            }
            // Both commits land together: HEAD moves once, from where it was to the optimize
            // commit, so a failure leaves the branch, SKILL.md and the signals as they were.
            let skill_change = [FileChange {
                path: format!("{skill_rel}/SKILL.md"),
                content: Some(candidate.text.clone().into_bytes()),
            }];
            let plan = repo.prepare_plan(
                &cp.optimization_id,
                "commit",
                &[
                    (message.as_str(), changes.as_slice()),
                    (report.optimize_message.as_str(), &skill_change),
                ],
            )?;
            // The intent first: from here on a crash at any point is recovered by --resume.
            cp.commit = Some(CommitIntent {
                plan: plan.clone(),
                signal_ids: optimization.signal_ids.clone(),
                audit_message: message.clone(),
                optimize_message: report.optimize_message.clone(),
                resolved_dir: dir_rel.clone(),
                pending: pending_rel.clone(),
            });
            points.hit("save-intent");
            checkpoint::save(&path, &cp)?;
            let ids = repo.apply_plan(&plan, &mut |name| points.hit(name))?;
            Ok((ids, message))
        })??;
        let (ids, audit_message) = landed;
        points.hit("finish");
        report.audit_message = audit_message;
        report.audit_commit = Some(ids[0].to_string());
        report.optimize_commit = Some(ids[1].to_string());
        report.resolved_dir = Some(dir_rel);
    }
    report.outcome = Outcome::Accepted;
    finish(&work, false);
    Ok(report)
}

/// Crash tests of step 8: `GIT_SKILL_FAILPOINT=step8:N` kills the process (SIGKILL, as a real
/// kill) just before the Nth of step 8's writes, renames and reference updates.
struct Failpoints {
    stop_at: Option<usize>,
    seen: usize,
}

impl Failpoints {
    fn new(opts: &Options) -> Failpoints {
        let stop_at = opts
            .failpoint
            .as_deref()
            .and_then(|f| f.strip_prefix("step8:"))
            .and_then(|n| n.parse().ok());
        Failpoints { stop_at, seen: 0 }
    }

    fn hit(&mut self, _name: &str) {
        self.seen += 1;
        if self.stop_at == Some(self.seen) {
            kill_self();
        }
    }
}

/// Ends the process as `kill -9` would: no destructor, no lock released by hand.
fn kill_self() -> ! {
    #[cfg(unix)]
    // SAFETY: sends SIGKILL to this process; nothing runs after it.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::exit(137)
}

/// A checkpoint whose step 8 was cut short: the commits either landed (then only the cleanup
/// is left, and the run is reported as done) or did not (then the work tree is put back as it
/// was, the pending store included, and the run goes on to make them again).
fn recover_commit(
    ctx: &Context<'_>,
    opts: &Options,
    work: &Path,
    ui: &mut dyn Interact,
) -> Result<Option<Report>, OptimizeError> {
    let Some((path, mut cp)) = checkpoint::find(&ctx.skill_dir)? else {
        return Ok(None);
    };
    refuse_committed_work(ctx)?;
    let Some(intent) = cp.commit.clone() else {
        return Ok(None);
    };
    if opts.dry_run {
        return Err(OptimizeError::InterruptedCommit {
            skill: ctx.skill_name.clone(),
        });
    }
    ui.progress(
        8,
        8,
        "update",
        "an earlier run was cut short while committing; recovering",
    );
    // The store's writers wait while the work tree is put right.
    let recovery = store::with_writers_lock(&ctx.skill_dir, || recover_plan(ctx, &intent))??;
    if recovery {
        let report = Report {
            skill: ctx.skill_name.clone(),
            optimization_id: cp.optimization_id.clone(),
            outcome: Outcome::Accepted,
            corrected: 0,
            friction: 0,
            clusters: cp.triage.as_ref().map_or(0, |t| t.clusters.len()),
            mode: cp.candidate.as_ref().map(|c| c.mode),
            diagnosis: cp
                .reflection
                .as_ref()
                .map(|r| r.diagnosis().to_owned())
                .unwrap_or_default(),
            candidate: cp.candidate.clone(),
            checks: cp.checks.clone(),
            gate: cp.gate.clone(),
            stale: cp.stale.clone(),
            set_aside: cp.set_aside.clone(),
            left_out: cp.left_out,
            too_old: cp.too_old,
            reasons: Vec::new(),
            audit_commit: intent.plan.commits.first().cloned(),
            optimize_commit: intent.plan.commits.last().cloned(),
            audit_message: intent.audit_message.clone(),
            optimize_message: intent.optimize_message.clone(),
            diff: None,
            resume_with: None,
            resolved_dir: Some(intent.resolved_dir.clone()),
            tokens: cp.tokens.clone(),
            resumed_from_step: Some(8),
        };
        ui.warn("the commits of the interrupted run had landed; its cleanup is finished now");
        finish(work, false);
        return Ok(Some(report));
    }
    ui.warn("the commits of the interrupted run had not landed; the work tree is back as it was, and the run makes them again");
    cp.commit = None;
    checkpoint::save(&path, &cp)?;
    Ok(None)
}

/// A checkpoint is never committed (`.skillopt/.gitignore` says `work/`): one that git tracks
/// came with the repository, and its answers, gate results and commit plan are not git-skill's
/// to trust.
fn refuse_committed_work(ctx: &Context<'_>) -> Result<(), OptimizeError> {
    let work = layout::rel(&ctx.skill_rel, layout::WORK);
    if ctx.repo.tracks_anything_under(&work)? {
        return Err(OptimizeError::CommittedCheckpoint { path: work });
    }
    Ok(())
}

/// Recovers the plan; `true` when its commits landed. A pending store that gained signals
/// since the crash keeps them: the old content comes back with the new lines after it.
fn recover_plan(ctx: &Context<'_>, intent: &CommitIntent) -> Result<bool, OptimizeError> {
    match ctx.repo.recover_plan(&intent.plan, &ctx.skill_rel)? {
        crate::git::Recovery::Landed => Ok(true),
        crate::git::Recovery::Diverged { head } => Err(OptimizeError::Diverged {
            skill: ctx.skill_name.clone(),
            head,
        }),
        crate::git::Recovery::NotLanded { changed } => {
            for rel in changed {
                let planned = intent.plan.files.iter().find(|f| f.path == rel);
                let merged = match planned {
                    Some(file) if rel == intent.pending => merge_pending(ctx, file)?,
                    _ => false,
                };
                if !merged {
                    return Err(OptimizeError::ChangedDuringRun(rel));
                }
            }
            Ok(false)
        }
    }
}

/// The pending store after a crash that rewrote it, with signals appended since: puts the old
/// content back, followed by what was appended. `false` when it holds something else.
fn merge_pending(ctx: &Context<'_>, file: &crate::git::PlannedFile) -> Result<bool, OptimizeError> {
    let abs = ctx.repo.workdir().join(&file.path);
    let read = |path: &Path| {
        std::fs::read(path).map_err(|source| OptimizeError::Read {
            path: path.to_owned(),
            source,
        })
    };
    let now = read(&abs)?;
    let blob = |id: &Option<String>| -> Result<Vec<u8>, OptimizeError> {
        match id {
            Some(id) => Ok(ctx.repo.blob_hex(id)?),
            None => Ok(Vec::new()),
        }
    };
    let kept = blob(&file.new)?;
    let old = blob(&file.old)?;
    // Old content and more: the rewrite never happened, the appends stand. (Tested first:
    // the rewritten content is often a prefix of the old one.)
    if now.starts_with(&old) {
        return Ok(true);
    }
    if now.starts_with(&kept) {
        let mut restored = old;
        restored.extend_from_slice(&now[kept.len()..]);
        crate::fsutil::write_atomic(&abs, &restored).map_err(|source| OptimizeError::Read {
            path: abs.clone(),
            source,
        })?;
        return Ok(true);
    }
    Ok(false)
}

/// The model calls a run makes in all: the estimate before triage, the count after.
fn planned(cp: &Checkpoint, regression: usize) -> usize {
    match &cp.triage {
        Some(t) => t.clusters.len() + 2 + regression,
        None => estimate(&cp.signals, regression).calls,
    }
}

/// Ends the process at once when `name` is the failpoint asked for: what a kill does.
fn failpoint(opts: &Options, name: &str) {
    if opts.failpoint.as_deref() == Some(name) {
        kill_self();
    }
}

fn fresh(
    ctx: &Context<'_>,
    opts: &Options,
    pre_hash: &str,
    work: &Path,
) -> Result<(PathBuf, Checkpoint, Option<u8>), OptimizeError> {
    let head = ctx
        .repo
        .head_commit_id()?
        .map(|id| id.to_string())
        .unwrap_or_default();
    let stamp = ctx.now.format("%Y%m%dT%H%M%SZ");
    let cp = Checkpoint {
        version: checkpoint::VERSION,
        optimization_id: format!(
            "opt_{stamp}_{}",
            crate::signal::schema::id_safe(&ctx.skill_name)
        ),
        skill: ctx.skill_name.clone(),
        started: ctx.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        pre_hash: pre_hash.to_owned(),
        last_completed_step: 1,
        signals: Vec::new(),
        stale: Vec::new(),
        left_out: 0,
        too_old: 0,
        triage: None,
        set_aside: Vec::new(),
        reflection: None,
        candidate: None,
        checks: None,
        gate_answers: Default::default(),
        regression_answers: Default::default(),
        gate: None,
        tokens: Tokens::default(),
        days: opts.days,
        max_signals: opts.max_signals,
        head,
        commit: None,
    };
    Ok((work.join(format!("optimization_{stamp}.json")), cp, None))
}

/// `.skillopt/work/lock`, held for the run; `work/` must stay out of git even in a skill whose
/// signals git-skill did not record, so `.skillopt/.gitignore` is made when missing.
fn lock(work: &Path, skill: &str) -> Result<WorkLock, OptimizeError> {
    let lock = WorkLock::acquire(work).map_err(|e| match e {
        LockError::Busy { lock } => OptimizeError::Busy {
            skill: skill.to_owned(),
            lock,
        },
        LockError::NotADirectory { path } => OptimizeError::NotADirectory { path },
        LockError::Io { path, source } => {
            checkpoint::CheckpointError::Write { path, source }.into()
        }
    })?;
    if let Some(skillopt) = work.parent() {
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(skillopt.join(".gitignore"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, layout::GITIGNORE_TEXT));
    }
    Ok(lock)
}

/// The run is over: `.skillopt/work/` goes.
fn finish(work: &Path, dry_run: bool) {
    if !dry_run {
        let _ = std::fs::remove_dir_all(work);
    }
}

fn request(prompt: String, max_tokens: u32) -> Request {
    let mut r = Request::new(prompt);
    r.max_tokens = max_tokens;
    r.temperature = Some(0.2);
    r
}

fn spend(tokens: &mut Tokens, usage: Usage, calls: u32) {
    tokens.input += usage.input_tokens;
    tokens.output += usage.output_tokens;
    tokens.calls += calls;
}

/// The seed's estimate: a cluster per 1-2 corrected or 3-4 friction signals; calls = clusters
/// (the gate) + 2 (triage and reflect) + the regression checks.
fn estimate(signals: &[Signal], regression: usize) -> Estimate {
    let corrected = signals
        .iter()
        .filter(|s| s.kind == SignalType::Corrected)
        .count();
    let friction = signals.len() - corrected;
    let clusters = (corrected * 2).div_ceil(3) + (friction * 2).div_ceil(7);
    Estimate {
        corrected,
        friction,
        clusters,
        regression,
        calls: clusters + 2 + regression,
    }
}

fn clusters_without(clusters: &[Cluster], set_aside: &HashSet<&str>) -> Vec<Cluster> {
    clusters
        .iter()
        .filter_map(|c| {
            let ids: Vec<String> = c
                .signal_ids
                .iter()
                .filter(|id| !set_aside.contains(id.as_str()))
                .cloned()
                .collect();
            (!ids.is_empty()).then(|| Cluster {
                count: ids.len(),
                signal_ids: ids,
                ..c.clone()
            })
        })
        .collect()
}

fn signals_of(cluster: &Cluster, signals: &[Signal]) -> Vec<Signal> {
    signals
        .iter()
        .filter(|s| cluster.signal_ids.contains(&s.signal_id))
        .cloned()
        .collect()
}

/// The clusters earlier optimizations fixed, as regression questions: newest first, at most
/// [`MAX_REGRESSION`], skipping optimizations that were rolled back.
fn regression_questions(ctx: &Context<'_>) -> Vec<Question> {
    let (earlier, _) = record::earlier(&ctx.skill_dir);
    if earlier.is_empty() {
        return Vec::new();
    }
    let rolled_back = history::rolled_back_ids(ctx.repo, &ctx.skill_rel).unwrap_or_default();
    let mut questions = Vec::new();
    for (dir, o) in earlier.iter().rev() {
        if rolled_back.contains(&o.optimization_id) || o.gate_result.skipped {
            continue;
        }
        let archived: Vec<Signal> = store::load(&dir.join("signal.json"))
            .map(|l| l.signals.into_iter().map(|(_, s)| s).collect())
            .unwrap_or_default();
        for record in o.gate_result.records.iter().filter(|r| r.passed) {
            let Some(cluster) = o
                .clusters
                .iter()
                .find(|c| c.cluster_id == record.cluster_id)
            else {
                continue;
            };
            questions.push(Question {
                key: format!("{}/{}", o.optimization_id, cluster.cluster_id),
                cluster: cluster.clone(),
                signals: signals_of(cluster, &archived),
                mode: Mode::TextEdit,
                from_optimization: Some(o.optimization_id.clone()),
            });
            if questions.len() == MAX_REGRESSION {
                return questions;
            }
        }
    }
    questions
}

/// The commit subject's summary: the diagnosis's first sentence, at most 60 characters.
fn summary(diagnosis: &str) -> String {
    let one_line = diagnosis.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = one_line
        .split_inclusive(". ")
        .next()
        .unwrap_or(&one_line)
        .trim()
        .trim_end_matches('.');
    let mut out: String = first.chars().take(60).collect();
    if first.chars().count() > 60 {
        out = out.trim_end().to_owned();
        out.push('…');
    }
    if out.is_empty() {
        "address recorded feedback".into()
    } else {
        out
    }
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        let n = word.chars().count();
        if line > 0 && line + 1 + n > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += n;
    }
    out
}
