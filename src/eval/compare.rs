//! One comparison of two conditions over a suite's cases: what it will cost (planned before
//! any call, less what an earlier run of the same comparison kept), the run, and its report
//! with `benchmark.json` beside the answers and grades. `git skill eval` and optimize's replay
//! gate both run one.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::cases::CaseId;
use super::run::{self, Condition, Prepared, RunError};
use super::store::{RunDir, StoreError};
use crate::llm::agent_run::AgentRun;
use crate::llm::{Provider, Usage};
use crate::progress::Progress;
use crate::prompt::{PromptError, Prompts};

/// Where progress is told: the step of the command that runs the comparison.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub n: u8,
    pub of: u8,
    pub name: &'static str,
    /// No case starts after this (a review's time limit).
    pub deadline: Option<std::time::Instant>,
}

/// A comparison ready to run: where its results go and the calls it will make at most.
pub struct Planned {
    pub store: RunDir,
    /// The agent CLI that answers (`--runner`), instead of the model.
    pub agent: Option<AgentRun>,
    /// Before retries and repairs; 0 when an earlier run graded everything.
    pub calls: usize,
    /// The model that answers and grades, for people (provider, model, endpoint).
    pub model: String,
}

/// Names the run by what it compares (the conditions with the skill as each gives it, the
/// cases, the model by provider and name, the two templates rendered) and counts the calls
/// still to make. `fresh` counts them all (the caller clears the store once the budget
/// allows it).
#[allow(clippy::too_many_arguments)]
pub fn plan(
    git_dir: &Path,
    skill: &str,
    prepared: &[Prepared],
    conditions: &[Condition],
    provider: &dyn Provider,
    prompts: &Prompts,
    fresh: bool,
    agent: Option<&AgentRun>,
) -> Result<Planned, PromptError> {
    let describe = provider.describe();
    // The same model behind another address gives the same answers; an edited template or a
    // new git-skill asks again; another runner answers otherwise.
    let model = (describe.provider, &describe.model);
    let templates = template_fingerprint(prompts)?;
    // A model's runs keep the names they had; an agent's add the runner and the input files
    // as it is given them (whole, binaries too).
    let store = match agent {
        None => RunDir::new(git_dir, skill, &(conditions, prepared, model, templates)),
        Some(a) => {
            let inputs: Vec<Vec<(String, String)>> = prepared
                .iter()
                .map(|p| {
                    p.inputs
                        .iter()
                        .map(|(path, bytes)| (path.clone(), crate::signal::sha256_hex(bytes)))
                        .collect()
                })
                .collect();
            let folders: Vec<Vec<(String, String, bool)>> = conditions
                .iter()
                .map(|c| {
                    c.folder
                        .iter()
                        .map(|(p, b, x)| (p.clone(), crate::signal::sha256_hex(b), *x))
                        .collect()
                })
                .collect();
            let runner = (a.runner.as_str(), a.model.as_str(), inputs, folders);
            RunDir::new(
                git_dir,
                skill,
                &(conditions, prepared, model, templates, runner),
            )
        }
    };
    let calls = if fresh {
        prepared.len() * conditions.len() * 2
    } else {
        run::planned_calls(prepared, conditions, &store)
    };
    Ok(Planned {
        store,
        agent: agent.cloned(),
        calls,
        model: describe.to_string(),
    })
}

/// Runs the comparison `jobs` cases at a time and writes its `benchmark.json`. Every request
/// it sends (retries, repair requests and runs of an agent CLI included, answered or not) takes
/// from `budget`, and the report counts them.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    skill: &str,
    provider: &dyn Provider,
    budget: &std::sync::Arc<crate::llm::budget::Budget>,
    prompts: &Prompts,
    prepared: &[Prepared],
    conditions: &[Condition],
    planned: &Planned,
    jobs: usize,
    step: Step,
    progress: &mut dyn Progress,
) -> Result<Report, StoreError> {
    let start = Instant::now();
    let provider = crate::llm::budget::Budgeted {
        inner: provider,
        budget: budget.clone(),
    };
    let agent = planned.agent.clone().map(|mut a| {
        a.budget = Some(budget.clone());
        a
    });
    let results = run::run(
        &provider,
        prompts,
        prepared,
        conditions,
        &planned.store,
        jobs.max(1),
        planned.calls,
        step,
        agent.as_ref(),
        progress,
    );
    let report = report(
        skill,
        &planned.model,
        conditions,
        prepared,
        results,
        planned.calls,
        budget.sent(),
        start,
        &planned.store,
    );
    planned.store.save_benchmark(&Benchmark::of(&report))?;
    Ok(report)
}

/// The two eval prompts rendered with fixed values: they change when a template does.
fn template_fingerprint(prompts: &Prompts) -> Result<(String, String), PromptError> {
    use crate::prompt::vars::{EvalAgentVars, EvalGradeVars};
    use crate::prompt::PromptName;
    let agent = prompts.render_with(PromptName::EvalAgent, &EvalAgentVars { skill: None })?;
    let grade = prompts.render_with(
        PromptName::EvalGrade,
        &EvalGradeVars {
            prompt: "p".into(),
            expected_output: Some("e".into()),
            assertions: vec!["a".into()],
            answer: "r".into(),
            files: vec!["f".into()],
        },
    )?;
    Ok((agent, grade))
}

/// One condition's totals.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub name: String,
    pub label: String,
    pub passed: usize,
    /// Cases graded under it (a case whose calls failed is not).
    pub graded: usize,
    /// `passed / graded`; `None` when nothing was graded.
    pub pass_rate: Option<f64>,
}

/// One case under one condition.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub condition: String,
    /// `None` when it could not be graded (`error` says why).
    pub passed: Option<bool>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The statements that did not hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether an earlier run had graded it (no call made now).
    pub reused: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseRow {
    pub id: CaseId,
    /// Where the case came from (`signal:<id>`), when the file says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub prompt: String,
    pub results: Vec<Cell>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub skill: String,
    /// The model that answered and graded (provider, model, endpoint).
    pub model: String,
    pub conditions: Vec<Summary>,
    /// The first condition's pass rate less the second's, when both have one.
    pub delta: Option<f64>,
    pub cases: Vec<CaseRow>,
    /// Calls this run made, retries and repairs included.
    pub calls: u32,
    /// Calls it expected to make at most, before retries.
    pub planned: usize,
    pub usage: Usage,
    pub seconds: f64,
    /// Cases that could not be graded under some condition (the run exits 2).
    pub errors: usize,
    /// The run's directory (answers and grades) and its `benchmark.json`.
    pub dir: PathBuf,
    pub benchmark: PathBuf,
}

impl Report {
    /// The cases the second condition passes and the first does not pass (fails, or could not
    /// be graded): with `new_skill` first, what a change would break.
    pub fn regressions(&self) -> Vec<&CaseRow> {
        let (Some(first), Some(second)) = (self.conditions.first(), self.conditions.get(1)) else {
            return Vec::new();
        };
        self.cases
            .iter()
            .filter(|row| {
                row.passed(&second.name) == Some(true) && row.passed(&first.name) != Some(true)
            })
            .collect()
    }
}

impl CaseRow {
    /// Its result under `condition`: `None` when it was not graded.
    pub fn passed(&self, condition: &str) -> Option<bool> {
        self.results
            .iter()
            .find(|c| c.condition == condition)
            .and_then(|c| c.passed)
    }

    pub fn cell(&self, condition: &str) -> Option<&Cell> {
        self.results.iter().find(|c| c.condition == condition)
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    skill: &str,
    describe: &str,
    conditions: &[Condition],
    prepared: &[Prepared],
    results: Vec<(CaseId, String, Result<run::Outcome, RunError>)>,
    planned: usize,
    calls: u32,
    start: Instant,
    store: &RunDir,
) -> Report {
    let mut usage = Usage::default();
    let mut errors = 0;
    let mut rows: Vec<CaseRow> = prepared
        .iter()
        .map(|p| CaseRow {
            id: p.case.id.clone(),
            source: p.case.source.clone(),
            prompt: p.case.prompt.clone(),
            results: Vec::new(),
        })
        .collect();
    for (id, condition, result) in results {
        let cell = match result {
            Ok(outcome) => {
                usage = usage + outcome.usage;
                let g = outcome.grading;
                Cell {
                    condition,
                    passed: Some(g.passed),
                    reason: g.reason,
                    failed: g
                        .assertions
                        .iter()
                        .filter(|a| !a.passed)
                        .map(|a| a.text.clone())
                        .collect(),
                    error: None,
                    reused: outcome.calls == 0,
                }
            }
            Err(e) => {
                errors += 1;
                Cell {
                    condition,
                    passed: None,
                    reason: String::new(),
                    failed: Vec::new(),
                    error: Some(crate::redact::redact(&e.to_string())),
                    reused: false,
                }
            }
        };
        if let Some(row) = rows.iter_mut().find(|r| r.id == id) {
            row.results.push(cell);
        }
    }
    let summaries: Vec<Summary> = conditions
        .iter()
        .map(|c| {
            let cells = rows
                .iter()
                .flat_map(|r| &r.results)
                .filter(|cell| cell.condition == c.name);
            let (passed, graded) = cells.fold((0, 0), |(p, g), cell| match cell.passed {
                Some(true) => (p + 1, g + 1),
                Some(false) => (p, g + 1),
                None => (p, g),
            });
            Summary {
                name: c.name.clone(),
                label: c.label.clone(),
                passed,
                graded,
                pass_rate: (graded > 0).then(|| passed as f64 / graded as f64),
            }
        })
        .collect();
    let delta = match (
        summaries.first().and_then(|s| s.pass_rate),
        summaries.get(1).and_then(|s| s.pass_rate),
    ) {
        (Some(a), Some(b)) => Some(a - b),
        _ => None,
    };
    Report {
        skill: skill.to_owned(),
        model: describe.to_owned(),
        conditions: summaries,
        delta,
        cases: rows,
        calls,
        planned,
        usage,
        seconds: start.elapsed().as_secs_f64(),
        errors,
        dir: store.dir.clone(),
        benchmark: store.dir.join("benchmark.json"),
    }
}

/// `benchmark.json`, named and shaped as the authoring guide's benchmark: a summary per
/// condition (`run_summary`), the difference, and each case's result.
#[derive(Serialize)]
struct Benchmark<'a> {
    skill_name: &'a str,
    model: &'a str,
    generated: String,
    run_summary: std::collections::BTreeMap<&'a str, RunSummary<'a>>,
    delta: Option<f64>,
    cases: &'a [CaseRow],
    calls: u32,
    seconds: f64,
}

#[derive(Serialize)]
struct RunSummary<'a> {
    label: &'a str,
    passed: usize,
    graded: usize,
    pass_rate: Option<f64>,
}

impl<'a> Benchmark<'a> {
    fn of(report: &'a Report) -> Benchmark<'a> {
        Benchmark {
            skill_name: &report.skill,
            model: &report.model,
            generated: crate::clock::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            run_summary: report
                .conditions
                .iter()
                .map(|s| {
                    (
                        s.name.as_str(),
                        RunSummary {
                            label: &s.label,
                            passed: s.passed,
                            graded: s.graded,
                            pass_rate: s.pass_rate,
                        },
                    )
                })
                .collect(),
            delta: report.delta,
            cases: &report.cases,
            calls: report.calls,
            seconds: report.seconds,
        }
    }
}
