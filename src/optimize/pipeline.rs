//! The run itself: each step reads what the checkpoint already holds and does only the rest.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::checkpoint::{
    self, Candidate, Checkpoint, CommitIntent, GateOutcome, GateRecord, Mode, PassRate, Regressed,
    Replay, Tokens,
};
use super::fingerprint::Fingerprint;
use super::gate::{self, Question};
use super::{archive, checks, diff, edits, evals, history};
use super::{
    Approval, Approve, Confirm, Decision, Estimate, Interact, Job, OptimizeError, Options, Report,
    Reuse, RunError, WaitingDryRun,
};
use crate::eval::compare::{self, Step};
use crate::eval::run::{Condition, Prepared};
use crate::eval::subject::Variant;
use crate::eval::suite;
use crate::fsutil::worklock::{LockError, WorkLock};
use crate::git::FileChange;
use crate::llm::{json, Request, Usage};
use crate::prompt::contracts::{Cluster, MaskSecrets, Reflection, TriageAnswer};
use crate::prompt::vars::{ReflectVars, SignalSummary, TriageVars};
use crate::prompt::PromptName;
use crate::signal::select::Selector;
use crate::signal::store::{self, Line};
use crate::signal::{Signal, SignalType};
use crate::skill::layout;

/// How many earlier fixes the regression check asks about at most (the newest).
const MAX_REGRESSION: usize = 20;
/// The replay gate asks, per eval case, for an answer and a grade on SKILL.md as it is and
/// on the candidate.
const REPLAY_CALLS_PER_CASE: usize = 4;

/// Runs the 8 steps (or what the checkpoint leaves of them).
pub fn run(ctx: &Job<'_>, opts: &Options, ui: &mut dyn Interact) -> Result<Report, RunError> {
    steps(ctx, opts, ui).map_err(|error| RunError {
        skill: ctx.skill_name.clone(),
        dry_run: opts.dry_run,
        error: Box::new(error),
    })
}

/// The steps in order. Each reads what the checkpoint already holds and does only the rest,
/// then saves it: a run cut short anywhere resumes where it stopped.
fn steps(ctx: &Job<'_>, opts: &Options, ui: &mut dyn Interact) -> Result<Report, OptimizeError> {
    let mut run = match Run::confirm(ctx, opts, ui)? {
        Started::Run(run) => *run,
        Started::Recovered(report) => return Ok(*report),
    };
    run.load_signals()?;
    run.ask_consent()?;
    run.triage()?;
    let chosen = run.settle_conflicts()?;
    run.deep_read(&chosen)?;
    let reflection = run.reflect(&chosen)?;
    let mut report = run.report(&chosen, &reflection);
    let Some(mut candidate) = run.dry_run(&reflection, &mut report)? else {
        return Ok(report);
    };
    run.gate(&chosen, &candidate)?;
    run.judge(&mut report, &chosen, &reflection, &candidate);
    // A person approves what lands (unless --yes): shown the diff, the verdicts and the
    // messages, they commit, decline, or edit the candidate, which is then checked and
    // judged again.
    while !opts.dry_run && !opts.yes && report.reasons.is_empty() {
        match run.approve(&mut report, &candidate)? {
            Approved::Commit => break,
            Approved::Stop => return Ok(report),
            Approved::Edited(text) => {
                let before = run.cp.clone();
                candidate = run.take_edit(text)?;
                report = run.report(&chosen, &reflection);
                report.mode = Some(candidate.mode);
                run.gate(&chosen, &candidate)?;
                run.judge(&mut report, &chosen, &reflection, &candidate);
                // A refused edit does not cost the candidate that passed: back to it, its
                // answers kept, and the question again.
                if !report.reasons.is_empty() {
                    run.ui.warn(&format!(
                        "your edit was refused ({}); back to the candidate before it",
                        report.reasons.join("; ")
                    ));
                    candidate = run.restore(before)?;
                    report = run.report(&chosen, &reflection);
                    report.mode = Some(candidate.mode);
                    run.gate(&chosen, &candidate)?;
                    run.judge(&mut report, &chosen, &reflection, &candidate);
                }
            }
        }
    }
    run.update(report, &chosen, &reflection, &candidate)
}

/// The person's answer, as the run goes on with it.
enum Approved {
    Commit,
    /// Declined, or nobody to ask: the report says which.
    Stop,
    /// The candidate as the person left it in the editor.
    Edited(String),
}

/// What step 1 found: a run to go on with, or the report of one whose commits had landed
/// before it was cut short.
enum Started<'r> {
    Run(Box<Run<'r>>),
    Recovered(Box<Report>),
}

/// One run, carried from step to step.
struct Run<'r> {
    ctx: &'r Job<'r>,
    opts: &'r Options,
    ui: &'r mut dyn Interact,
    /// `.skillopt/work/`.
    work: PathBuf,
    /// Held for the whole run.
    _lock: WorkLock,
    /// The checkpoint file and what it holds.
    path: PathBuf,
    cp: Checkpoint,
    /// SKILL.md when the run started, and its sha256.
    original: String,
    pre_hash: String,
    /// The step a resumed checkpoint had reached.
    resumed: Option<u8>,
    /// The earlier fixes the regression check asks about.
    earlier: Vec<Question>,
    /// The provider refused the schema's field once already (said once).
    schema_dropped: bool,
    /// The skill's eval cases, for the replay gate (`None`: it has none).
    suite: Option<Vec<Prepared>>,
}

/// What triage leaves for the later steps: the signals and clusters of this run, without those
/// set aside after a conflict.
struct Chosen {
    triage: TriageAnswer,
    signals: Vec<Signal>,
    clusters: Vec<Cluster>,
}

impl<'r> Run<'r> {
    /// Step 1: the skill is clean in git, and the checkpoint (if any) is for this SKILL.md and
    /// these options. A step 8 cut short is recovered first.
    fn confirm(
        ctx: &'r Job<'r>,
        opts: &'r Options,
        ui: &'r mut dyn Interact,
    ) -> Result<Started<'r>, OptimizeError> {
        ui.progress(1, 8, "confirm", &format!("checking {}", ctx.skill_rel));
        let work = checkpoint::work_dir(&ctx.skill_dir);
        // Dry runs too: they keep their checkpoint, for the --resume that commits it.
        let lock = lock(&work, &ctx.skill_name)?;
        // Its commits landed or not, and the work tree must be put right before anything
        // looks at it.
        if let Some(report) = recover_commit(ctx, opts, &work, ui)? {
            return Ok(Started::Recovered(Box::new(report)));
        }
        let original = read_skill_md(ctx)?;
        let pre_hash = crate::signal::sha256_hex(original.as_bytes());
        let dirty = dirty_paths(ctx)?;
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
        let (path, cp, resumed) = match existing {
            Some((path, _)) if opts.restart => {
                let _ = std::fs::remove_file(&path);
                fresh(ctx, opts, &pre_hash, &work)?
            }
            // A dry run's candidate, to commit: exactly what it showed, or nothing.
            Some((path, cp)) if cp.dry_run && !opts.dry_run => {
                if !opts.resume {
                    let waiting = WaitingDryRun {
                        started: cp.started.clone(),
                        signals: cp.signals.len(),
                        accepted: cp.gate.as_ref().is_some_and(GateOutcome::passed)
                            && cp.checks.as_ref().is_some_and(|c| c.passed()),
                    };
                    let answer = if opts.yes {
                        Reuse::CannotAsk
                    } else {
                        ui.reuse(&waiting)
                    };
                    match answer {
                        Reuse::Reuse => {}
                        Reuse::Discard => {
                            let _ = std::fs::remove_file(&path);
                            let (path, cp, resumed) = fresh(ctx, opts, &pre_hash, &work)?;
                            return Run::start(
                                ctx, opts, ui, work, lock, path, cp, original, resumed,
                            );
                        }
                        Reuse::Stop => return Err(OptimizeError::Declined),
                        Reuse::CannotAsk => {
                            return Err(OptimizeError::DryRunWaiting {
                                skill: ctx.skill_name.clone(),
                                started: cp.started,
                            })
                        }
                    }
                }
                refuse_if_changed(ctx, &cp, &pre_hash)?;
                if (cp.days, cp.max_signals) != (opts.days, opts.max_signals) {
                    return Err(OptimizeError::OptionsChanged {
                        path,
                        days: cp.days,
                        max_signals: cp.max_signals,
                    });
                }
                // Still a dry run's until its commits are under way: a resume that stops
                // (declined, no terminal, an error) leaves it for the next resume to check again.
                let step = cp.last_completed_step;
                (path, cp, Some(step))
            }
            // A dry run again over a dry run: its answers, unless what shaped them changed.
            Some((path, cp)) if cp.dry_run => {
                refuse_if_changed(ctx, &cp, &pre_hash)?;
                ui.warn(&format!(
                    "showing the dry run of {} again, with no model call (--restart makes a new one)",
                    cp.started
                ));
                let step = cp.last_completed_step;
                (path, cp, Some(step))
            }
            Some((path, cp)) => {
                if cp.pre_hash != pre_hash {
                    return Err(OptimizeError::StaleCheckpoint { path });
                }
                if let Some(then) = &cp.fingerprint {
                    let changes = then.changes(&Fingerprint::of(ctx));
                    if !changes.is_empty() && cp.last_completed_step >= 7 {
                        ui.warn(&format!(
                            "the configuration changed since this run started ({}): the gate judges again where it must",
                            changes.join("; ")
                        ));
                    }
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
                // Killed during its cleanup, or simply over: the run is done, and says so (a
                // report that came with the repository is not git-skill's to trust).
                refuse_committed_work(ctx)?;
                if let Some(mut report) = checkpoint::finished(&work) {
                    ui.warn(&format!(
                        "nothing to resume: run {} had finished, its commits landed",
                        report.optimization_id
                    ));
                    finish_committed(&work, &report, &mut Failpoints::cleanup(opts));
                    report.resumed_from_step = Some(8);
                    return Ok(Started::Recovered(Box::new(report)));
                }
                return Err(OptimizeError::NothingToResume {
                    skill: ctx.skill_name.clone(),
                });
            }
            None => fresh(ctx, opts, &pre_hash, &work)?,
        };
        Run::start(ctx, opts, ui, work, lock, path, cp, original, resumed)
    }

    #[allow(clippy::too_many_arguments)]
    fn start(
        ctx: &'r Job<'r>,
        opts: &'r Options,
        ui: &'r mut dyn Interact,
        work: PathBuf,
        lock: WorkLock,
        path: PathBuf,
        cp: Checkpoint,
        original: String,
        resumed: Option<u8>,
    ) -> Result<Started<'r>, OptimizeError> {
        let pre_hash = cp.pre_hash.clone();
        let run = Run {
            ctx,
            opts,
            ui,
            work,
            _lock: lock,
            path,
            cp,
            original,
            pre_hash,
            resumed,
            earlier: Vec::new(),
            schema_dropped: false,
            suite: None,
        };
        run.save()?;
        Ok(Started::Run(Box::new(run)))
    }

    /// Writes the checkpoint; crash tests stop right after it.
    fn save(&self) -> Result<(), OptimizeError> {
        checkpoint::save(&self.path, &self.cp)?;
        failpoint(
            self.opts,
            &format!("after-step-{}", self.cp.last_completed_step),
        );
        Ok(())
    }

    /// A run that stops before its first model call leaves no checkpoint behind.
    fn discard(&self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// Where raw model answers that do not parse are kept.
    fn raw_dir(&self) -> Option<&Path> {
        Some(self.work.as_path())
    }

    /// A server refused the answers' schema: said once, since the answers are then held to
    /// it by git-skill alone.
    fn note_dropped(&mut self, dropped: Option<&'static str>) {
        if let (Some(field), false) = (dropped, self.schema_dropped) {
            self.schema_dropped = true;
            self.ui.warn(&format!(
                "{} refused `{field}`: the answers' JSON schemas are not sent to it any more this run, and are checked here instead",
                self.ctx.provider.describe()
            ));
        }
    }

    /// Said, not refused: a free-text model's extra fields are harmless, but a person reading
    /// why a change was made should know the model said more than was kept.
    fn note_ignored(&mut self, step: &str, ignored: &[String]) {
        if !ignored.is_empty() {
            let names: Vec<String> = ignored.iter().take(5).map(|f| format!("`{f}`")).collect();
            let more = ignored.len().saturating_sub(5);
            self.ui.warn(&format!(
                "the model's {step} answer has fields its schema does not ask for, left out: {}{}",
                names.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }

    fn show_calls(&mut self) {
        let planned = planned(
            &self.cp,
            self.earlier.len(),
            self.ctx.gate_votes,
            self.suite.as_ref().map_or(0, Vec::len),
        );
        self.ui.calls(self.cp.tokens.calls, planned);
    }

    /// Step 2: the pending signals of the window, corrected first, newest first.
    fn load_signals(&mut self) -> Result<(), OptimizeError> {
        if self.cp.last_completed_step < 2 {
            self.ui
                .progress(2, 8, "load signals", "reading the pending signals");
            let ctx = self.ctx;
            let mut selector = Selector::new(ctx.now, self.opts.days, self.opts.max_signals);
            let pending = store::pending_path(&ctx.skill_dir);
            let mut bad = Vec::new();
            store::stream(&pending, |entry| match entry {
                Line::Signal(_, signal) => selector.push(signal),
                Line::Bad(b) => bad.push(b),
            })?;
            for b in bad.iter().take(20) {
                self.ui.warn(&format!(
                    "{}:{}: {} (skipped; the line stays in the store)",
                    pending.display(),
                    b.line,
                    b.reason
                ));
            }
            if bad.len() > 20 {
                self.ui
                    .warn(&format!("{} more malformed lines skipped", bad.len() - 20));
            }
            let selection = selector.finish(&self.pre_hash);
            if selection.selected.is_empty() {
                self.discard();
                return Err(OptimizeError::NoSignals {
                    skill: ctx.skill_name.clone(),
                });
            }
            // The run works on masked signals: the checkpoint, the prompts and the eval cases
            // they become never hold what a hand-written line may carry. One whose secret only
            // shows whole (split across two fields) stops the run here, before any of them.
            let masked: Vec<Signal> = selection.selected.iter().map(Signal::masked).collect();
            if let Err(u) = store::to_masked_lines(&masked) {
                self.discard();
                return Err(OptimizeError::SecretInSignal {
                    skill: ctx.skill_name.clone(),
                    signal: u.signal,
                    why: u.why,
                });
            }
            self.cp.signals = masked;
            self.cp.stale = selection.stale;
            self.cp.left_out = selection.left_out;
            self.cp.too_old = selection.too_old;
            self.cp.last_completed_step = 2;
            self.save()?;
        }
        self.earlier = regression_questions(self.ctx);
        self.load_suite()
    }

    /// The skill's eval cases, read before any model call: a broken evals.json stops the run
    /// (the replay gate fails closed), and one too large for `skill.evalMaxCalls` too.
    fn load_suite(&mut self) -> Result<(), OptimizeError> {
        let ctx = self.ctx;
        let shown = |p: &Path| {
            ctx.repo
                .relative(p)
                .map_or_else(|| p.to_owned(), PathBuf::from)
        };
        let suite = match suite::load(&ctx.skill_dir, &shown) {
            Ok(suite) => suite,
            // A file with no cases yet (lint warns, SK034): nothing to replay.
            Err(suite::SuiteError::NoCases { .. }) => None,
            Err(e) => {
                if self.cp.triage.is_none() {
                    self.discard();
                }
                return Err(OptimizeError::Evals(e));
            }
        };
        if let Some(cases) = &suite {
            let planned = cases.len() * REPLAY_CALLS_PER_CASE;
            if planned > ctx.eval_max_calls {
                if self.cp.triage.is_none() {
                    self.discard();
                }
                return Err(OptimizeError::EvalBudget {
                    skill: ctx.skill_name.clone(),
                    cases: cases.len(),
                    planned,
                    max: ctx.eval_max_calls,
                });
            }
        }
        self.suite = suite;
        Ok(())
    }

    /// Before the first model call: the estimate, and the user's go-ahead on a terminal
    /// (`--yes` gives it). With nobody to ask the run goes on: it commits nothing unless a
    /// person approves the result, or `--yes` was given.
    fn ask_consent(&mut self) -> Result<(), OptimizeError> {
        if self.cp.triage.is_none() && !self.opts.yes {
            let estimate = estimate(
                &self.cp.signals,
                self.earlier.len(),
                self.ctx.gate_votes,
                self.suite.as_ref().map_or(0, Vec::len),
            );
            match self.ui.confirm(&estimate) {
                Confirm::Yes => {}
                Confirm::No => {
                    self.discard();
                    return Err(OptimizeError::Declined);
                }
                Confirm::CannotAsk => self.ui.warn(&format!(
                    "no terminal to ask: going on with about {}; nothing is committed before a person approves (or --yes)",
                    crate::report::plural(estimate.calls, "model call")
                )),
            }
        }
        self.show_calls();
        Ok(())
    }

    /// Step 3 (one model call): clusters by root cause, conflicts, stale signals.
    fn triage(&mut self) -> Result<(), OptimizeError> {
        if self.cp.triage.is_some() {
            return Ok(());
        }
        let ctx = self.ctx;
        self.ui.progress(
            3,
            8,
            "triage",
            &format!("asking {}", ctx.provider.describe()),
        );
        let vars = TriageVars {
            skill_name: ctx.skill_name.clone(),
            current_hash: self.pre_hash.clone(),
            signals: self.cp.signals.iter().map(SignalSummary::from).collect(),
        };
        let prompt = ctx.prompts.render_with(PromptName::Triage, &vars)?;
        let ids: Vec<String> = self
            .cp
            .signals
            .iter()
            .map(|s| s.signal_id.clone())
            .collect();
        let check = |t: &TriageAnswer| t.validate(&ids).map_err(|e| e.to_string());
        let answer = json::complete_json::<TriageAnswer>(
            ctx.provider,
            &request("triage", prompt, 8192, crate::prompt::schemas::triage()),
            &check,
            self.raw_dir(),
        )?;
        spend(&mut self.cp.tokens, answer.usage, answer.attempts);
        self.note_dropped(answer.dropped);
        self.note_ignored("triage", &answer.ignored);
        let mut triage = answer.value;
        triage.mask_secrets();
        self.cp.triage = Some(triage);
        self.show_calls();
        self.cp.last_completed_step = 3;
        self.save()
    }

    /// After triage: for each pair of conflicting signals the user picks a direction (by
    /// `--prefer`, or on a terminal); the other stays pending, out of this run.
    fn settle_conflicts(&mut self) -> Result<Chosen, OptimizeError> {
        let triage = self.cp.triage.clone().expect("triage is done");
        let mut unresolved = Vec::new();
        for conflict in &triage.conflicts {
            let settled = [&conflict.signal_a, &conflict.signal_b]
                .iter()
                .any(|id| self.cp.set_aside.contains(id));
            if settled {
                continue;
            }
            let preferred = if self.opts.prefer.contains(&conflict.signal_a) {
                Some(conflict.signal_a.clone())
            } else if self.opts.prefer.contains(&conflict.signal_b) {
                Some(conflict.signal_b.clone())
            } else {
                let find = |id: &str| self.cp.signals.iter().find(|s| s.signal_id == id);
                self.ui
                    .choose(conflict, find(&conflict.signal_a), find(&conflict.signal_b))
            };
            match preferred {
                Some(id) if id == conflict.signal_a => {
                    self.cp.set_aside.push(conflict.signal_b.clone())
                }
                Some(id) if id == conflict.signal_b => {
                    self.cp.set_aside.push(conflict.signal_a.clone())
                }
                _ => unresolved.push(conflict.clone()),
            }
        }
        self.save()?;
        if !unresolved.is_empty() {
            return Err(OptimizeError::Conflicts(unresolved));
        }
        let set_aside: HashSet<&str> = self.cp.set_aside.iter().map(String::as_str).collect();
        let signals = self
            .cp
            .signals
            .iter()
            .filter(|s| !set_aside.contains(s.signal_id.as_str()))
            .cloned()
            .collect();
        let clusters = clusters_without(&triage.clusters, &set_aside);
        Ok(Chosen {
            triage,
            signals,
            clusters,
        })
    }

    /// Step 4: the signals' context (it came with them; no call).
    fn deep_read(&mut self, chosen: &Chosen) -> Result<(), OptimizeError> {
        if self.cp.last_completed_step < 4 {
            self.ui.progress(
                4,
                8,
                "deep read",
                &format!(
                    "{} with their context",
                    crate::report::plural(chosen.signals.len(), "signal")
                ),
            );
            self.cp.last_completed_step = 4;
            self.save()?;
        }
        Ok(())
    }

    /// Step 5 (one model call): text edits, or a rewrite.
    fn reflect(&mut self, chosen: &Chosen) -> Result<Reflection, OptimizeError> {
        if self.cp.reflection.is_none() {
            let ctx = self.ctx;
            let vars = ReflectVars::new(
                &ctx.skill_name,
                &self.original,
                &chosen.signals,
                chosen.clusters.clone(),
            );
            self.ui.progress(
                5,
                8,
                "reflect",
                &format!("asking {}", ctx.provider.describe()),
            );
            let omitted = !vars.omitted_sections.is_empty();
            let prompt = ctx.prompts.render_with(PromptName::Reflect, &vars)?;
            let cluster_ids: Vec<String> = chosen
                .clusters
                .iter()
                .map(|c| c.cluster_id.clone())
                .collect();
            let check =
                |r: &Reflection| r.validate(&cluster_ids, omitted).map_err(|e| e.to_string());
            let answer = json::complete_json::<Reflection>(
                ctx.provider,
                &request("reflect", prompt, 16384, crate::prompt::schemas::reflect()),
                &check,
                self.raw_dir(),
            )?;
            spend(&mut self.cp.tokens, answer.usage, answer.attempts);
            self.note_dropped(answer.dropped);
            self.note_ignored("reflect", &answer.ignored);
            let mut reflection = answer.value;
            reflection.mask_secrets();
            self.cp.reflection = Some(reflection);
            self.show_calls();
            self.cp.last_completed_step = 5;
            self.save()?;
        }
        Ok(self.cp.reflection.clone().expect("reflect is done"))
    }

    /// The summary so far; the later steps fill in the rest.
    fn report(&self, chosen: &Chosen, reflection: &Reflection) -> Report {
        let count = |kind| chosen.signals.iter().filter(|s| s.kind == kind).count();
        Report {
            skill: self.ctx.skill_name.clone(),
            optimization_id: self.cp.optimization_id.clone(),
            outcome: Decision::Rejected,
            corrected: count(SignalType::Corrected),
            friction: count(SignalType::Friction),
            clusters: chosen.clusters.len(),
            mode: None,
            diagnosis: reflection.diagnosis().to_owned(),
            candidate: None,
            checks: None,
            gate: None,
            stale: self.cp.stale.clone(),
            set_aside: self.cp.set_aside.clone(),
            left_out: self.cp.left_out,
            too_old: self.cp.too_old,
            reasons: Vec::new(),
            audit_commit: None,
            optimize_commit: None,
            audit_message: String::new(),
            optimize_message: String::new(),
            diff: None,
            resume_with: None,
            commit_with: None,
            edited: false,
            eval_cases: Vec::new(),
            resolved_dir: None,
            tokens: self.cp.tokens.clone(),
            resumed_from_step: self.resumed,
        }
    }

    /// Step 6: the edits applied to a copy of SKILL.md (or the rewrite checked). `None` when
    /// nothing applicable came out: the report says so and the run ends.
    fn dry_run(
        &mut self,
        reflection: &Reflection,
        report: &mut Report,
    ) -> Result<Option<Candidate>, OptimizeError> {
        if self.cp.candidate.is_none() {
            self.ui
                .progress(6, 8, "dry run", "applying the edits to a copy of SKILL.md");
            let candidate = match reflection {
                Reflection::Edits { edits: list, .. } => {
                    let applied = edits::apply(&self.original, list);
                    Candidate {
                        mode: Mode::TextEdit,
                        text: applied.text,
                        edits: applied.kept,
                        dropped: applied.dropped,
                        edited: false,
                    }
                }
                Reflection::Rewrite { content, .. } => {
                    if let Err(reason) = edits::check_frontmatter(&self.original, content) {
                        report
                            .reasons
                            .push(format!("the rewrite is not usable: {reason}"));
                    }
                    Candidate {
                        mode: Mode::Rewrite,
                        text: content.clone(),
                        edits: Vec::new(),
                        dropped: Vec::new(),
                        edited: false,
                    }
                }
            };
            let nothing = (candidate.mode == Mode::TextEdit && candidate.edits.is_empty())
                || candidate.text == self.original;
            if nothing || !report.reasons.is_empty() {
                report.outcome = Decision::NothingToApply;
                report.mode = Some(candidate.mode);
                report.candidate = Some(candidate);
                report.tokens = self.cp.tokens.clone();
                finish(&self.work);
                return Ok(None);
            }
            self.cp.candidate = Some(candidate);
            self.cp.last_completed_step = 6;
            self.save()?;
        }
        let candidate = self.cp.candidate.clone().expect("the dry run is done");
        report.mode = Some(candidate.mode);
        Ok(Some(candidate))
    }

    /// Asks the judges of `questions` not answered yet (all at once, `skill.parallel` at a
    /// time); answers are kept in the checkpoint as they come.
    fn ask_judges(
        &mut self,
        candidate: &Candidate,
        questions: &[Question],
        regression: bool,
    ) -> Result<Vec<GateRecord>, OptimizeError> {
        let ctx = self.ctx;
        let raw_dir = self.raw_dir().map(Path::to_owned);
        let answers = if regression {
            &mut self.cp.regression_answers
        } else {
            &mut self.cp.gate_answers
        };
        let (usage, calls, error, dropped) = gate::ask(
            ctx.provider,
            ctx.prompts,
            &ctx.skill_name,
            &candidate.text,
            questions,
            answers,
            ctx.gate_votes,
            ctx.parallel,
            raw_dir.as_deref(),
        );
        spend(&mut self.cp.tokens, usage, calls);
        self.note_dropped(dropped);
        self.save()?;
        if let Some(e) = error {
            return Err(OptimizeError::from(e));
        }
        let answers = if regression {
            &self.cp.regression_answers
        } else {
            &self.cp.gate_answers
        };
        Ok(gate::tally(questions, answers, ctx.gate_votes))
    }

    /// Step 7: the local checks, then one judge per cluster, then the regression check.
    /// The local checks run every time, resumes included: they are deterministic and cheap,
    /// the allow flags may be new, and a gate result is never taken on trust from a file. The
    /// judges' answers are kept, so none is asked twice.
    fn gate(&mut self, chosen: &Chosen, candidate: &Candidate) -> Result<(), OptimizeError> {
        let ctx = self.ctx;
        self.ui.progress(
            7,
            8,
            "gate",
            "SkillGuard, lint, the size budget, the frontmatter and capability drift",
        );
        let local = checks::check(
            &ctx.skill_dir,
            &ctx.skill_rel,
            &self.original,
            &candidate.text,
            checks::Limits {
                max_growth: ctx.max_growth,
                fail_on: ctx.fail_on,
                allow_frontmatter: self.opts.allow_frontmatter,
                allow_drift: self.opts.allow_drift,
                today: ctx.now.date_naive(),
            },
        );
        let mut outcome = GateOutcome {
            mode: candidate.mode,
            skipped: false,
            records: Vec::new(),
            passed: 0,
            total: chosen.clusters.len(),
            threshold: ctx.gate_threshold,
            accepted: false,
            regression: Vec::new(),
            replay: None,
        };
        self.cp.checks = Some(local.clone());
        // Refused only for what a flag allows: the judges are asked all the same, so that the
        // resume with the flag (after reading why) commits what was judged, with no call.
        if local.passed() || only_flag_refusals(&local) {
            let friction_only = chosen
                .signals
                .iter()
                .all(|s| s.kind == SignalType::Friction);
            if friction_only {
                outcome.skipped = true;
                outcome.accepted = true;
            } else {
                let questions: Vec<Question> = chosen
                    .clusters
                    .iter()
                    .map(|c| Question {
                        key: c.cluster_id.clone(),
                        cluster: c.clone(),
                        signals: signals_of(c, &chosen.signals),
                        mode: candidate.mode,
                        from_optimization: None,
                    })
                    .collect();
                self.ui.progress(
                    7,
                    8,
                    "gate",
                    &format!(
                        "{} in parallel ({} at a time)",
                        crate::report::plural(
                            questions.len() * ctx.gate_votes.max(1) as usize,
                            "judge"
                        ),
                        ctx.parallel
                    ),
                );
                outcome.records = self.ask_judges(candidate, &questions, false)?;
                self.show_calls();
                outcome.passed = outcome.records.iter().filter(|r| r.passed).count();
                outcome.accepted = outcome.total == 0
                    || outcome.passed as f64 / outcome.total as f64 >= ctx.gate_threshold;
            }
            if outcome.accepted && !self.earlier.is_empty() {
                self.ui.progress(
                    7,
                    8,
                    "gate",
                    &format!("regression check: {} earlier fixes", self.earlier.len()),
                );
                let earlier = std::mem::take(&mut self.earlier);
                outcome.regression = self.ask_judges(candidate, &earlier, true)?;
                self.earlier = earlier;
                self.show_calls();
            }
            // Only a change the judges took is worth the eval calls.
            if outcome.accepted && outcome.regression.iter().all(|r| r.passed) {
                outcome.replay = self.replay(candidate)?;
            }
        }
        self.cp.gate = Some(outcome);
        self.cp.last_completed_step = 7;
        self.save()
    }

    /// The replay gate: the skill's eval cases on SKILL.md as it is and on the candidate, the
    /// agent and the judge as `git skill eval` has them. Answers and grades are kept under the
    /// git directory: a resume, a dry run's commit or the same candidate judged again asks
    /// nothing twice. A case that could not be graded stops the run (nothing passes by not
    /// being looked at); `--resume` asks only what is missing.
    fn replay(&mut self, candidate: &Candidate) -> Result<Option<Replay>, OptimizeError> {
        let Some(prepared) = self.suite.take() else {
            return Ok(None);
        };
        let result = self.replay_cases(&prepared, candidate);
        self.suite = Some(prepared);
        result.map(Some)
    }

    fn replay_cases(
        &mut self,
        prepared: &[Prepared],
        candidate: &Candidate,
    ) -> Result<Replay, OptimizeError> {
        let ctx = self.ctx;
        let read = |label: &str, text: &str| {
            Variant::from_dir_with(&ctx.skill_dir, label, text).map_err(|e| OptimizeError::Read {
                path: e.path,
                source: e.source,
            })
        };
        // Each version with the files it names (a candidate may name one SKILL.md did not).
        let now = read("SKILL.md as it is", &self.original)?;
        let after = read("the candidate", &candidate.text)?;
        let conditions = Condition::versions(&after, &now, &ctx.skill_name);
        let plan = compare::plan(
            ctx.repo.git_dir(),
            &ctx.skill_name,
            prepared,
            &conditions,
            ctx.provider,
            ctx.prompts,
            false,
            None,
        )?;
        self.ui.progress(
            7,
            8,
            "gate",
            &format!(
                "replay: {} on SKILL.md as it is and on the candidate (up to {})",
                crate::report::plural(prepared.len(), "eval case"),
                crate::report::plural(plan.calls, "model call")
            ),
        );
        let total = planned(&self.cp, self.earlier.len(), ctx.gate_votes, prepared.len());
        let mut progress = CallsSoFar {
            ui: &mut *self.ui,
            before: self.cp.tokens.calls,
            planned: total,
        };
        let step = Step {
            n: 7,
            of: 8,
            name: "gate",
            deadline: None,
        };
        // skill.evalMaxCalls bounds what the replay sends, its repairs and retries too.
        let budget = crate::llm::budget::Budget::new(ctx.eval_max_calls, "skill.evalMaxCalls");
        let report = compare::execute(
            &ctx.skill_name,
            ctx.provider,
            &budget,
            ctx.prompts,
            prepared,
            &conditions,
            &plan,
            ctx.parallel,
            step,
            &mut progress,
        )
        .map_err(OptimizeError::EvalStore)?;
        spend(&mut self.cp.tokens, report.usage, report.calls);
        self.save()?;
        let ungraded: Vec<String> = report
            .cases
            .iter()
            .flat_map(|row| {
                row.results
                    .iter()
                    .filter_map(move |c| c.error.as_ref().map(|e| (row, c, e)))
            })
            .map(|(row, c, e)| format!("case {} ({}): {e}", row.id, c.condition))
            .collect();
        if !ungraded.is_empty() {
            return Err(OptimizeError::ReplayIncomplete {
                skill: ctx.skill_name.clone(),
                ungraded,
            });
        }
        let rate = |name: &str| {
            report
                .conditions
                .iter()
                .find(|c| c.name == name)
                .map_or(PassRate::default(), |c| PassRate {
                    passed: c.passed,
                    graded: c.graded,
                })
        };
        let regressions: Vec<Regressed> = report
            .regressions()
            .into_iter()
            .map(|row| Regressed {
                case: row.id.to_string(),
                // The judge's reason, and the statements that stopped holding.
                reason: row.cell("new_skill").map_or_else(String::new, |c| {
                    let mut reason = c.reason.clone();
                    for failed in &c.failed {
                        reason.push_str(&format!("; not true: {failed}"));
                    }
                    reason
                }),
            })
            .collect();
        // Named from the git directory: optimization.json is committed, a local path is not
        // anyone else's.
        let run = report
            .dir
            .strip_prefix(ctx.repo.git_dir())
            .map_or_else(|_| report.dir.clone(), Path::to_owned)
            .to_string_lossy()
            .replace('\\', "/");
        Ok(Replay {
            cases: prepared.len(),
            before: rate("old_skill"),
            after: rate("new_skill"),
            allowed: !regressions.is_empty() && self.opts.allow_regression,
            regressions,
            calls: report.calls,
            run: format!("$GIT_DIR/{run}"),
        })
    }

    /// The gate's verdict in the report: every reason to refuse, and the two commit messages.
    fn judge(
        &mut self,
        report: &mut Report,
        chosen: &Chosen,
        reflection: &Reflection,
        candidate: &Candidate,
    ) {
        let outcome = self.cp.gate.clone().expect("the gate is done");
        report.eval_cases = if self.opts.record_evals {
            self.signal_cases(chosen, &outcome)
        } else {
            Vec::new()
        };
        let local = self.cp.checks.clone().expect("the checks ran");
        report.reasons.extend(local.refusals.iter().cloned());
        if (local.passed() || only_flag_refusals(&local)) && !outcome.accepted {
            report.reasons.push(format!(
                "the gate passed {} of {}, under the threshold {}",
                outcome.passed,
                crate::report::plural(outcome.total, "cluster"),
                outcome.threshold
            ));
        }
        if let Some(replay) = outcome.replay.as_ref().filter(|r| !r.allowed) {
            for r in &replay.regressions {
                report.reasons.push(format!(
                    "{REGRESSION_REFUSAL}: case {} passes with SKILL.md as it is, not with the candidate: {}",
                    r.case, r.reason
                ));
            }
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
        report.audit_message = format!(
            "audit(skill): archive {} for {}",
            crate::report::plural(chosen.signals.len(), "signal"),
            self.ctx.skill_name
        );
        report.optimize_message = format!(
            "{}\n\n{}\n\nMode: {}{}\nGate: {}\n{}{}Optimization-Id: {}\n",
            subject(
                &format!("optimize(skill): {}", self.ctx.skill_name),
                &summary(reflection.diagnosis())
            ),
            wrap(reflection.diagnosis(), 72),
            candidate.mode.as_str(),
            if candidate.edited {
                ", edited by hand before commit"
            } else {
                ""
            },
            if outcome.skipped {
                "skipped (friction signals only)".to_owned()
            } else {
                format!(
                    "{}/{} passed",
                    outcome.passed,
                    crate::report::plural(outcome.total, "cluster")
                )
            },
            outcome
                .replay
                .as_ref()
                .map(|r| format!("Evals: {}\n", replay_line(r)))
                .unwrap_or_default(),
            if report.eval_cases.is_empty() {
                String::new()
            } else {
                let ids: Vec<crate::eval::CaseId> =
                    report.eval_cases.iter().map(|c| c.id.clone()).collect();
                evals::cases_line(&ids)
            },
            self.cp.optimization_id
        );
        report.checks = Some(local);
        report.gate = Some(outcome);
        report.candidate = Some(candidate.clone());
        report.edited = candidate.edited;
        report.tokens = self.cp.tokens.clone();
    }

    /// The eval cases this change adds: one per corrected signal of a cluster the judges
    /// passed. None when the skill's evals.json cannot take them (said, not fatal: the change
    /// itself is what was judged).
    fn signal_cases(&mut self, chosen: &Chosen, outcome: &GateOutcome) -> Vec<crate::eval::Case> {
        let passed: HashSet<&str> = outcome
            .records
            .iter()
            .filter(|r| r.passed)
            .map(|r| r.cluster_id.as_str())
            .collect();
        let resolved: Vec<&Signal> = chosen
            .clusters
            .iter()
            .filter(|c| passed.contains(c.cluster_id.as_str()))
            .flat_map(|c| {
                chosen
                    .signals
                    .iter()
                    .filter(|s| c.signal_ids.contains(&s.signal_id))
            })
            .collect();
        if resolved.is_empty() {
            return Vec::new();
        }
        let existing = self.evals_json();
        let set = existing
            .as_deref()
            .and_then(|b| crate::eval::cases::parse(b).ok());
        let cases = evals::cases_from(&resolved, set.as_ref());
        if cases.is_empty() {
            return cases;
        }
        match evals::append(existing.as_deref(), &self.ctx.skill_name, &cases) {
            Ok(_) => cases,
            Err(why) => {
                self.ui.warn(&format!(
                    "the corrected signals do not become eval cases: {}/{} cannot take them ({why})",
                    self.ctx.skill_rel,
                    crate::eval::EVALS_JSON
                ));
                Vec::new()
            }
        }
    }

    /// The skill's evals.json as the work tree has it (clean in git, step 1 checked).
    fn evals_json(&self) -> Option<Vec<u8>> {
        crate::fsutil::read(&self.ctx.skill_dir.join(crate::eval::EVALS_JSON)).ok()
    }

    /// Shows the person what would land and asks; an edit is written to the run's work
    /// directory for their editor and read back. Loops until an answer that ends the
    /// question (an editor that changed nothing, or could not be opened, asks again).
    fn approve(
        &mut self,
        report: &mut Report,
        candidate: &Candidate,
    ) -> Result<Approved, OptimizeError> {
        let ctx = self.ctx;
        let diff = diff::unified(
            &format!("{}/SKILL.md", ctx.skill_rel),
            &self.original,
            &candidate.text,
        );
        loop {
            let answer = self.ui.approve(&Approval {
                skill: &ctx.skill_name,
                diff: &diff,
                gate: report.gate.as_ref().expect("judged"),
                checks: report.checks.as_ref().expect("checked"),
                audit_message: &report.audit_message,
                optimize_message: &report.optimize_message,
                edited: candidate.edited,
                eval_cases: &report.eval_cases,
            });
            match answer {
                Approve::Commit => return Ok(Approved::Commit),
                Approve::Decline | Approve::CannotAsk => {
                    report.outcome = if answer == Approve::Decline {
                        Decision::Declined
                    } else {
                        Decision::AwaitingApproval
                    };
                    report.diff = Some(diff);
                    report.commit_with =
                        Some(self.resume_options(None, answer == Approve::CannotAsk));
                    // The checkpoint stays: the answers, the candidate, the verdicts.
                    self.save()?;
                    return Ok(Approved::Stop);
                }
                Approve::Edit => {
                    let path = self.work.join("CANDIDATE_SKILL.md");
                    crate::fsutil::write_private(&path, candidate.text.as_bytes()).map_err(
                        |source| checkpoint::CheckpointError::Write {
                            path: path.clone(),
                            source,
                        },
                    )?;
                    let opened = self.ui.edit(&path);
                    let text = crate::fsutil::read(&path);
                    let _ = std::fs::remove_file(&path);
                    match (opened, text) {
                        (Err(why), _) => self.ui.warn(&format!("could not open an editor: {why}")),
                        (Ok(()), Err(e)) => self
                            .ui
                            .warn(&format!("could not read the edited candidate back: {e}")),
                        (Ok(()), Ok(bytes)) => match String::from_utf8(bytes) {
                            Ok(text) if text.trim().is_empty() => self
                                .ui
                                .warn("the edited candidate is empty; nothing changed"),
                            Ok(text) if text.trim_end() == candidate.text.trim_end() => {
                                self.ui.warn("the candidate was not changed")
                            }
                            Ok(text) if text.trim_end() == self.original.trim_end() => self
                                .ui
                                .warn("that is SKILL.md as it is now: answer N to commit nothing"),
                            Ok(text) => return Ok(Approved::Edited(text)),
                            Err(_) => self
                                .ui
                                .warn("the edited candidate is not UTF-8; nothing changed"),
                        },
                    }
                }
            }
        }
    }

    /// The checkpoint as it was before a refused edit, with what the edit's judging spent.
    fn restore(&mut self, before: Checkpoint) -> Result<Candidate, OptimizeError> {
        let tokens = self.cp.tokens.clone();
        let rounds = self.cp.gate_rounds;
        self.cp = before;
        self.cp.tokens = tokens;
        self.cp.gate_rounds = rounds;
        self.save()?;
        Ok(self.cp.candidate.clone().expect("the dry run is done"))
    }

    /// The person's edit becomes the candidate: the checks and the judges look at it again
    /// (their earlier answers were about the model's text), and a resume after a crash
    /// judges it, not the model's.
    fn take_edit(&mut self, text: String) -> Result<Candidate, OptimizeError> {
        let mut candidate = self.cp.candidate.clone().expect("the dry run is done");
        candidate.text = text;
        candidate.edited = true;
        self.cp.candidate = Some(candidate.clone());
        self.cp.gate_answers.clear();
        self.cp.regression_answers.clear();
        self.cp.gate = None;
        self.cp.checks = None;
        self.cp.gate_rounds += 1;
        self.cp.last_completed_step = 6;
        self.save()?;
        self.show_calls();
        Ok(candidate)
    }

    /// Step 8: a dry run shows the diff; a rejected run ends (keeping its answers when only a
    /// flag stands in the way); an accepted one lands the audit and the optimize commits.
    fn update(
        mut self,
        mut report: Report,
        chosen: &Chosen,
        reflection: &Reflection,
        candidate: &Candidate,
    ) -> Result<Report, OptimizeError> {
        let ctx = self.ctx;
        let accepted = report.reasons.is_empty();
        let flags = self.flags_that_allow(&report);
        if self.opts.dry_run {
            report.outcome = if accepted {
                Decision::DryRunAccepted
            } else {
                Decision::DryRunRejected
            };
            report.diff = Some(diff::unified(
                &format!("{}/SKILL.md", ctx.skill_rel),
                &self.original,
                &candidate.text,
            ));
            // Kept, marked as a dry run, for the --resume that commits exactly this; a
            // candidate no flag can save is not worth keeping.
            if accepted || flags.is_some() {
                self.cp.dry_run = true;
                self.save()?;
                report.commit_with = Some(self.resume_options(flags.as_deref(), false));
                report.resume_with = flags;
            } else {
                finish(&self.work);
            }
            return Ok(report);
        }
        if !accepted {
            report.outcome = Decision::Rejected;
            // Refused only for what a flag can allow: the answers are kept, so that accepting
            // the change after reading why costs no model call.
            if let Some(flags) = flags {
                report.resume_with = Some(flags);
                return Ok(report);
            }
            finish(&self.work);
            return Ok(report);
        }
        self.ui
            .progress(8, 8, "update", "writing the audit and the optimize commits");
        // Nothing may have changed the skill since step 1: the candidate was made from that
        // SKILL.md, and the optimize commit would overwrite any other change.
        let skill_md = ctx.skill_dir.join("SKILL.md");
        let now_bytes = crate::fsutil::read(&skill_md).map_err(|source| OptimizeError::Read {
            path: skill_md.clone(),
            source,
        })?;
        if crate::signal::sha256_hex(&now_bytes) != self.pre_hash || !dirty_paths(ctx)?.is_empty() {
            return Err(OptimizeError::ChangedDuringRun(format!(
                "{}/SKILL.md",
                ctx.skill_rel
            )));
        }
        let (ids, audit_message, dir_rel) =
            self.commit(&mut report, chosen, reflection, candidate)?;
        report.audit_message = audit_message;
        report.audit_commit = Some(ids[0].to_string());
        report.optimize_commit = Some(ids[1].to_string());
        report.resolved_dir = Some(dir_rel);
        report.outcome = Decision::Accepted;
        finish_committed(&self.work, &report, &mut Failpoints::cleanup(self.opts));
        Ok(report)
    }

    /// When every refusal is one a flag allows (`--allow-frontmatter`, `--allow-drift`),
    /// those flags.
    fn flags_that_allow(&self, report: &Report) -> Option<String> {
        let all: Vec<&str> = report
            .reasons
            .iter()
            .map(|r| flag_for(r))
            .collect::<Option<Vec<_>>>()?;
        let mut flags: Vec<&str> = Vec::new();
        for f in all {
            if !flags.contains(&f) {
                flags.push(f);
            }
        }
        (!flags.is_empty()).then(|| flags.join(" "))
    }

    /// The options that commit exactly this candidate: `--resume`, the allow flags this run
    /// was given and `extra` (those a refusal asks for), and `--yes` when asked for.
    fn resume_options(&self, extra: Option<&str>, yes: bool) -> String {
        let mut options = vec!["--resume"];
        let mut flags: Vec<&str> = Vec::new();
        if self.opts.allow_frontmatter {
            flags.push("--allow-frontmatter");
        }
        if self.opts.allow_drift {
            flags.push("--allow-drift");
        }
        if self.opts.allow_regression {
            flags.push("--allow-regression");
        }
        for f in extra.into_iter().flat_map(|e| e.split(' ')) {
            if !flags.contains(&f) {
                flags.push(f);
            }
        }
        options.extend(flags);
        if yes {
            options.push("--yes");
        }
        options.join(" ")
    }

    /// The two commits of step 8, crash-safe at every system call: the plan (objects only)
    /// is saved in the checkpoint before the work tree, the index or HEAD change.
    fn commit(
        &mut self,
        report: &mut Report,
        chosen: &Chosen,
        reflection: &Reflection,
        candidate: &Candidate,
    ) -> Result<(Vec<gix::ObjectId>, String, String), OptimizeError> {
        let ctx = self.ctx;
        let dir = archive::resolved_dir(
            &ctx.skill_dir,
            ctx.now.date_naive(),
            chosen
                .clusters
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
        let mut optimization = archive::Optimization {
            optimization_id: self.cp.optimization_id.clone(),
            skill: ctx.skill_name.clone(),
            timestamp: ctx.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            mode: candidate.mode,
            diagnosis: reflection.diagnosis().to_owned(),
            edits: candidate.edits.clone(),
            dropped_edits: candidate.dropped.clone(),
            rewrite_reason: match reflection {
                Reflection::Rewrite { reason, .. } => reason.clone(),
                Reflection::Edits { .. } => String::new(),
            },
            clusters: chosen.clusters.clone(),
            conflicts: chosen.triage.conflicts.clone(),
            set_aside: self.cp.set_aside.clone(),
            stale_signals: self.cp.stale.clone(),
            gate_result: self.cp.gate.clone().expect("the gate is done"),
            local_checks: self.cp.checks.clone().expect("the checks ran"),
            pre_optimization_hash: self.pre_hash.clone(),
            post_optimization_hash: crate::signal::sha256_hex(candidate.text.as_bytes()),
            signal_ids: Vec::new(),
            pre_skill_backup: self.original.clone(),
            provider,
            model,
            summary: summary(reflection.diagnosis()),
            tokens: self.cp.tokens.clone(),
            edited: candidate.edited,
            eval_cases: Vec::new(),
        };
        let evals_json = self.evals_json();
        let ids: HashSet<String> = chosen.signals.iter().map(|s| s.signal_id.clone()).collect();
        let gitignore = layout::path(&ctx.skill_dir, layout::GITIGNORE);
        let skill_rel = &ctx.skill_rel;
        let repo = ctx.repo;
        let pending_rel = layout::rel(skill_rel, layout::PENDING);
        let mut points = Failpoints::new(self.opts);
        let path = self.path.clone();
        let cp = &mut self.cp;
        // What is archived is what the store still holds of the run's signals: one removed
        // by hand meanwhile is neither archived nor counted. The store's writers wait until
        // the commits are in place, so a signal recorded meanwhile lands in the new file.
        let mut optimize_message = report.optimize_message.clone();
        let mut landed: Vec<crate::eval::Case> = Vec::new();
        let mut not_added: Option<String> = None;
        let (ids, message) = store::rewrite_without(&ctx.skill_dir, &ids, |kept, removed| {
            if removed.is_empty() {
                return Err(OptimizeError::NothingToArchive {
                    skill: ctx.skill_name.clone(),
                });
            }
            optimization.signal_ids = removed.iter().map(|s| s.signal_id.clone()).collect();
            // The eval cases the person approved with the change, of the signals archived;
            // named in optimization.json, written with SKILL.md.
            let archived: HashSet<String> = removed
                .iter()
                .map(|s| evals::source_of(&s.signal_id))
                .collect();
            let cases: Vec<crate::eval::Case> = report
                .eval_cases
                .iter()
                .filter(|c| c.source.as_ref().is_some_and(|s| archived.contains(s)))
                .cloned()
                .collect();
            let new_evals = if cases.is_empty() {
                None
            } else {
                match evals::append(evals_json.as_deref(), &ctx.skill_name, &cases) {
                    Ok(bytes) => Some(bytes),
                    Err(why) => {
                        not_added = Some(format!(
                            "the corrected signals did not become eval cases: {skill_rel}/{} cannot take them ({why})",
                            crate::eval::EVALS_JSON
                        ));
                        None
                    }
                }
            };
            if cases.len() < report.eval_cases.len() {
                not_added.get_or_insert_with(|| {
                    format!(
                        "{} of those shown left out: their signals are no longer pending",
                        crate::report::plural(report.eval_cases.len() - cases.len(), "eval case")
                    )
                });
            }
            if new_evals.is_some() {
                optimization.eval_cases = cases.iter().map(|c| c.id.clone()).collect();
                landed = cases;
            }
            // The message names the cases that land, and only them.
            optimize_message = evals::with_cases_line(&optimize_message, &optimization.eval_cases);
            let message = format!(
                "audit(skill): archive {} for {}",
                crate::report::plural(removed.len(), "signal"),
                ctx.skill_name
            );
            // What the audit commit takes from the store is masked again, whoever wrote it.
            let unmaskable = |u: store::Unmaskable| OptimizeError::SecretInSignal {
                skill: ctx.skill_name.clone(),
                signal: u.signal,
                why: u.why,
            };
            let kept = store::mask_lines(kept).map_err(unmaskable)?;
            let resolved = store::to_masked_lines(removed).map_err(unmaskable)?;
            store::mask_in_place(&ctx.skill_dir)?.map_err(unmaskable)?;
            let mut changes = vec![
                FileChange {
                    path: pending_rel.clone(),
                    content: Some(kept),
                },
                FileChange {
                    path: format!("{dir_rel}/signal.json"),
                    content: Some(resolved),
                },
                FileChange {
                    path: format!("{dir_rel}/optimization.json"),
                    content: Some(
                        crate::redact::to_json_pretty(&optimization).expect("a record serialises"),
                    ),
                },
            ];
            if let Ok(text) = crate::fsutil::read(&gitignore) {
                changes.push(FileChange {
                    path: layout::rel(skill_rel, layout::GITIGNORE),
                    content: Some(text),
                });
            }
            // Both commits land together: HEAD moves once, from where it was to the optimize
            // commit, so a failure leaves the branch, SKILL.md and the signals as they were.
            let mut skill_change = vec![FileChange {
                path: format!("{skill_rel}/SKILL.md"),
                content: Some(candidate.text.clone().into_bytes()),
            }];
            if let Some(bytes) = new_evals {
                skill_change.push(FileChange {
                    path: format!("{skill_rel}/{}", crate::eval::EVALS_JSON),
                    content: Some(bytes),
                });
            }
            let plan = repo.prepare_plan(
                &cp.optimization_id,
                "commit",
                &[
                    (message.as_str(), changes.as_slice()),
                    (optimize_message.as_str(), &skill_change),
                ],
            )?;
            // The intent first: from here on a crash at any point is recovered by --resume.
            cp.commit = Some(CommitIntent {
                plan: plan.clone(),
                signal_ids: optimization.signal_ids.clone(),
                audit_message: message.clone(),
                optimize_message: optimize_message.clone(),
                resolved_dir: dir_rel.clone(),
                pending: pending_rel.clone(),
                eval_cases: landed.clone(),
            });
            points.hit("save-intent");
            checkpoint::save(&path, cp)?;
            let ids = repo.apply_plan(&plan, &mut |name| points.hit(name))?;
            Ok((ids, message))
        })??;
        points.hit("finish");
        if let Some(why) = not_added {
            self.ui.warn(&why);
        }
        report.optimize_message = optimize_message;
        report.eval_cases = landed;
        Ok((ids, message, dir_rel))
    }
}

fn read_skill_md(ctx: &Job<'_>) -> Result<String, OptimizeError> {
    let path = ctx.skill_dir.join("SKILL.md");
    crate::fsutil::read_to_string(&path).map_err(|source| OptimizeError::Read { path, source })
}

/// The skill's uncommitted files, `.skillopt/` (git-skill's own records) aside.
fn dirty_paths(ctx: &Job<'_>) -> Result<Vec<String>, OptimizeError> {
    let ignore = format!("{}/", layout::rel(&ctx.skill_rel, layout::DIR));
    Ok(ctx.repo.dirty_paths(&ctx.skill_rel, &[ignore.as_str()])?)
}

/// Crash tests of step 8: `GIT_SKILL_FAILPOINT=step8:N` kills the process (SIGKILL, as a real
/// kill) just before the Nth of step 8's writes, renames and reference updates.
struct Failpoints {
    stop_at: Option<usize>,
    seen: usize,
}

impl Failpoints {
    fn new(opts: &Options) -> Failpoints {
        Failpoints::named(opts, "step8:")
    }

    /// `GIT_SKILL_FAILPOINT=cleanup:N`: before the Nth removal of a finished run's cleanup.
    fn cleanup(opts: &Options) -> Failpoints {
        Failpoints::named(opts, "cleanup:")
    }

    fn named(opts: &Options, prefix: &str) -> Failpoints {
        let stop_at = opts
            .failpoint
            .as_deref()
            .and_then(|f| f.strip_prefix(prefix))
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
    ctx: &Job<'_>,
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
            outcome: Decision::Accepted,
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
            commit_with: None,
            edited: cp.candidate.as_ref().is_some_and(|c| c.edited),
            eval_cases: intent.eval_cases.clone(),
            resolved_dir: Some(intent.resolved_dir.clone()),
            tokens: cp.tokens.clone(),
            resumed_from_step: Some(8),
        };
        ui.warn("the commits of the interrupted run had landed; its cleanup is finished now");
        finish_committed(work, &report, &mut Failpoints::cleanup(opts));
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
fn refuse_committed_work(ctx: &Job<'_>) -> Result<(), OptimizeError> {
    let work = layout::rel(&ctx.skill_rel, layout::WORK);
    if ctx.repo.tracks_anything_under(&work)? {
        return Err(OptimizeError::CommittedCheckpoint { path: work });
    }
    Ok(())
}

/// Recovers the plan; `true` when its commits landed. A pending store that gained signals
/// since the crash keeps them: the old content comes back with the new lines after it.
fn recover_plan(ctx: &Job<'_>, intent: &CommitIntent) -> Result<bool, OptimizeError> {
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
fn merge_pending(ctx: &Job<'_>, file: &crate::git::PlannedFile) -> Result<bool, OptimizeError> {
    let abs = ctx.repo.workdir().join(&file.path);
    let read = |path: &Path| {
        crate::fsutil::read(path).map_err(|source| OptimizeError::Read {
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

/// The model calls a run makes in all: the estimate before triage, the count after; the
/// judges again for each edit by hand.
fn planned(cp: &Checkpoint, regression: usize, votes: u32, eval_cases: usize) -> usize {
    let votes = votes.max(1) as usize;
    match &cp.triage {
        Some(t) => {
            2 + ((t.clusters.len() + regression) * votes + eval_cases * REPLAY_CALLS_PER_CASE)
                * cp.gate_rounds.max(1) as usize
        }
        None => estimate(&cp.signals, regression, votes as u32, eval_cases).calls,
    }
}

/// Ends the process at once when `name` is the failpoint asked for: what a kill does.
fn failpoint(opts: &Options, name: &str) {
    if opts.failpoint.as_deref() == Some(name) {
        kill_self();
    }
}

fn fresh(
    ctx: &Job<'_>,
    opts: &Options,
    pre_hash: &str,
    work: &Path,
) -> Result<(PathBuf, Checkpoint, Option<u8>), OptimizeError> {
    let head = ctx
        .repo
        .head_commit_id()?
        .map(|id| id.to_string())
        .unwrap_or_default();
    // A new run: the last one's report is no longer what a --resume would mean.
    checkpoint::forget_finished(work);
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
        dry_run: false,
        fingerprint: Some(Fingerprint::of(ctx)),
        gate_rounds: 1,
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

/// How a refusal of the replay gate begins (and how [`flag_for`] knows it).
const REGRESSION_REFUSAL: &str = "eval regression";

/// The flag that allows a refusal, if one does.
fn flag_for(refusal: &str) -> Option<&'static str> {
    match refusal.split(':').next() {
        Some("frontmatter") => Some("--allow-frontmatter"),
        Some("drift") => Some("--allow-drift"),
        Some(REGRESSION_REFUSAL) => Some("--allow-regression"),
        _ => None,
    }
}

/// `2/3 -> 3/3 passed`, and what a regression taken anyway was.
pub(super) fn replay_line(r: &Replay) -> String {
    let mut line = format!("{} -> {} passed", r.before, r.after);
    if r.allowed {
        let cases: Vec<&str> = r.regressions.iter().map(|g| g.case.as_str()).collect();
        line.push_str(&format!(
            " (regression in case {} taken with --allow-regression)",
            cases.join(", ")
        ));
    }
    line
}

/// The replay's progress inside optimize's: its calls counted after those made before it,
/// against the run's whole plan.
struct CallsSoFar<'a> {
    ui: &'a mut dyn Interact,
    before: u32,
    planned: usize,
}

impl crate::progress::Progress for CallsSoFar<'_> {
    fn progress(&mut self, step: u8, total: u8, name: &str, what: &str) {
        self.ui.progress(step, total, name, what)
    }

    fn warn(&mut self, message: &str) {
        self.ui.warn(message)
    }

    fn calls(&mut self, done: u32, _planned: usize) {
        self.ui.calls(self.before + done, self.planned)
    }
}

/// Whether the local checks refused the candidate only for what a flag allows.
fn only_flag_refusals(local: &checks::LocalChecks) -> bool {
    !local.refusals.is_empty() && local.refusals.iter().all(|r| flag_for(r).is_some())
}

/// The run is over: `.skillopt/work/` goes.
fn finish(work: &Path) {
    under_store_lock(work, || {
        let _ = std::fs::remove_dir_all(work);
    });
}

/// Runs `f` holding the writers' lock of the skill's signal store: a `record` writes its batch
/// in `.skillopt/work/` under that lock, and a cleanup must not take it away mid-write.
fn under_store_lock(work: &Path, f: impl FnOnce()) {
    let skill_dir = work.parent().and_then(Path::parent);
    let mut f = Some(f);
    if let Some(dir) = skill_dir {
        if store::with_writers_lock(dir, || (f.take().expect("once"))()).is_ok() {
            return;
        }
    }
    if let Some(f) = f {
        f();
    }
}

/// A run whose commits landed is over: its report is kept first (a kill during the cleanup
/// then leaves something a `--resume` can report), then everything else in `.skillopt/work/`
/// goes.
fn finish_committed(work: &Path, report: &Report, points: &mut Failpoints) {
    if checkpoint::save_finished(work, report).is_err() {
        // Nothing durable to keep: the old cleanup, all at once.
        finish(work);
        return;
    }
    under_store_lock(work, || {
        let Ok(entries) = std::fs::read_dir(work) else {
            return;
        };
        // The lock stays: this run still holds it.
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name() != checkpoint::FINISHED && e.file_name() != "lock")
            .map(|e| e.path())
            .collect();
        paths.sort();
        for path in paths {
            points.hit("cleanup");
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => {
                    let _ = std::fs::remove_dir_all(&path);
                }
                _ => {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
    });
}

/// The dry run of `cp` as it was, or [`OptimizeError::DryRunChanged`] naming what changed.
fn refuse_if_changed(ctx: &Job<'_>, cp: &Checkpoint, pre_hash: &str) -> Result<(), OptimizeError> {
    let changes = dry_run_changes(ctx, cp, pre_hash)?;
    if changes.is_empty() {
        return Ok(());
    }
    Err(OptimizeError::DryRunChanged {
        skill: ctx.skill_name.clone(),
        started: cp.started.clone(),
        changes,
    })
}

/// What changed since the dry run whose checkpoint is `cp`: SKILL.md, the signals a run
/// would select now, the configuration that shaped its prompts and verdict. Empty: its
/// candidate is what a run would commit.
fn dry_run_changes(
    ctx: &Job<'_>,
    cp: &Checkpoint,
    pre_hash: &str,
) -> Result<Vec<String>, OptimizeError> {
    let mut changes = Vec::new();
    if cp.pre_hash != pre_hash {
        changes.push(format!("{}/SKILL.md was edited", ctx.skill_rel));
    }
    let mut selector = Selector::new(ctx.now, cp.days, cp.max_signals);
    store::stream(&store::pending_path(&ctx.skill_dir), |entry| {
        if let Line::Signal(_, signal) = entry {
            selector.push(signal)
        }
    })?;
    let now: Vec<String> = selector
        .finish(pre_hash)
        .selected
        .into_iter()
        .map(|s| s.signal_id)
        .collect();
    let then: Vec<&str> = cp.signals.iter().map(|s| s.signal_id.as_str()).collect();
    let added: Vec<&str> = now
        .iter()
        .map(String::as_str)
        .filter(|id| !then.contains(id))
        .collect();
    let gone: Vec<&str> = then
        .iter()
        .copied()
        .filter(|id| !now.iter().any(|n| n == id))
        .collect();
    if !added.is_empty() {
        changes.push(format!("new signals: {}", added.join(", ")));
    }
    if !gone.is_empty() {
        changes.push(format!("signals no longer selected: {}", gone.join(", ")));
    }
    match &cp.fingerprint {
        Some(then) => changes.extend(then.changes(&Fingerprint::of(ctx))),
        None => changes.push("the configuration was not recorded".into()),
    }
    Ok(changes)
}

fn request(
    purpose: &'static str,
    prompt: String,
    max_tokens: u32,
    schema: crate::llm::Schema,
) -> Request {
    let mut r = Request::new(prompt).purpose(purpose);
    r.max_tokens = max_tokens;
    r.schema = Some(schema);
    r.temperature = Some(0.2);
    r
}

fn spend(tokens: &mut Tokens, usage: Usage, calls: u32) {
    tokens.input += usage.input_tokens;
    tokens.output += usage.output_tokens;
    tokens.calls += calls;
}

/// The estimate of `skill-optimizer.md` step 2: a cluster per 1-2 corrected or 3-4 friction
/// signals; calls = (clusters (the gate) + the regression checks) x `skill.gateVotes` + 2
/// (triage and reflect), and 4 per eval case for the replay gate (an answer and a grade, before
/// and after).
fn estimate(signals: &[Signal], regression: usize, votes: u32, eval_cases: usize) -> Estimate {
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
        eval_cases,
        calls: (clusters + regression) * votes.max(1) as usize
            + 2
            + eval_cases * REPLAY_CALLS_PER_CASE,
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
fn regression_questions(ctx: &Job<'_>) -> Vec<Question> {
    let (earlier, _) = archive::earlier(&ctx.skill_dir);
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

/// Longest commit subject written, as git's own guidance has it.
const MAX_SUBJECT_CHARS: usize = 72;
/// Longest summary kept in the optimization record (`git skill log`).
const MAX_SUMMARY_CHARS: usize = 200;

/// The diagnosis's first sentence on one line, cut at a word at [`MAX_SUMMARY_CHARS`].
fn summary(diagnosis: &str) -> String {
    // The model's words go into a commit subject: no control characters (escape sequences).
    let plain: String = diagnosis
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one_line = plain.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = one_line
        .split_inclusive(". ")
        .next()
        .unwrap_or(&one_line)
        .trim()
        .trim_end_matches('.');
    let out = cut_at_word(first, MAX_SUMMARY_CHARS);
    if out.is_empty() {
        "address recorded feedback".into()
    } else {
        out.to_owned()
    }
}

/// `prefix: summary` in at most [`MAX_SUBJECT_CHARS`] characters, the summary cut at a word
/// boundary (the whole diagnosis is in the body). A prefix too long to leave room for a few
/// words stands alone.
fn subject(prefix: &str, summary: &str) -> String {
    let room = MAX_SUBJECT_CHARS.saturating_sub(prefix.chars().count() + 2);
    let words = cut_at_word(summary, room);
    if words.chars().count() < 8.min(summary.chars().count()) || words.is_empty() {
        prefix.to_owned()
    } else {
        format!("{prefix}: {words}")
    }
}

/// The longest start of `text` of at most `max` characters that ends at a word's end.
fn cut_at_word(text: &str, max: usize) -> &str {
    if text.chars().count() <= max {
        return text;
    }
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    // Cut before the word the limit falls in, unless the limit falls right after a word.
    let cut = if text[end..].starts_with(char::is_whitespace) {
        end
    } else {
        text[..end].rfind(char::is_whitespace).unwrap_or(0)
    };
    text[..cut].trim_end_matches([' ', ',', ';', ':', '-'])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_fit_72_characters_and_end_at_a_word() {
        let long = "The skill tells the agent to fill every field by its visual position although forms reorder fields. More after.";
        let s = subject("optimize(skill): pdf-forms", &summary(long));
        assert!(s.chars().count() <= MAX_SUBJECT_CHARS, "{s}");
        assert_eq!(
            s,
            "optimize(skill): pdf-forms: The skill tells the agent to fill every"
        );
        // The record keeps the whole first sentence.
        assert_eq!(
            summary(long),
            "The skill tells the agent to fill every field by its visual position although forms reorder fields"
        );
        // Short ones are whole.
        assert_eq!(
            subject("optimize(skill): pdf", "Say which field"),
            "optimize(skill): pdf: Say which field"
        );
        // A name that leaves no room: the prefix alone.
        let name = "a".repeat(60);
        assert_eq!(
            subject(&format!("optimize(skill): {name}"), long),
            format!("optimize(skill): {name}")
        );
        // One word longer than the room, and multi-byte text.
        assert_eq!(cut_at_word("Überprüfung der Felder", 12), "Überprüfung");
        assert_eq!(cut_at_word("abcdefghijklmnop", 5), "");
        assert_eq!(cut_at_word("one two, three", 8), "one two");
    }
}
