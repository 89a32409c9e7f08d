//! Running cases: each case under each of two conditions (the skill and no skill, or two
//! versions of it), the agent's answer from the model, then a judge's grade of that answer
//! that does not know the condition. Calls run `jobs` at a time; what a run of the same
//! comparison kept is used again (see [`super::store`]).

use std::time::Instant;

use serde::Serialize;

use super::cases::{Case, CaseId};
use super::store::{Grading, RunDir, StoreError};
use crate::llm::agent_run::AgentRun;
use crate::llm::json::complete_json;
use crate::llm::{LlmError, Provider, Request, Usage};
use crate::progress::Progress;
use crate::prompt::contracts::EvalGrade;
use crate::prompt::vars::{EvalAgentVars, EvalGradeVars, EvalSkill};
use crate::prompt::{PromptError, PromptName, Prompts};

/// One side of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Condition {
    /// `with_skill`, `without_skill`, or for two versions `current` and `baseline`.
    pub name: String,
    /// What it is, for people: `the work tree`, `no skill`, `HEAD~3`, `candidate.md`.
    pub label: String,
    pub skill: Option<EvalSkill>,
    /// The skill's whole folder (evals and SKILL.md aside), for an agent CLI that runs the
    /// case: scripts, assets and executable bits as the version under test has them. Empty
    /// for the model, which is given the view above.
    #[serde(skip)]
    pub folder: Vec<super::subject::FolderFile>,
}

impl Condition {
    /// A version of a skill against another: `new_skill` first, then `old_skill`, each as an
    /// agent that loaded it sees it (`fallback` names a skill whose frontmatter has no name).
    pub fn versions(
        new: &super::subject::Variant,
        old: &super::subject::Variant,
        fallback: &str,
    ) -> [Condition; 2] {
        [
            Condition {
                name: "new_skill".into(),
                label: new.label.clone(),
                skill: Some(new.view(fallback)),
                folder: Vec::new(),
            },
            Condition {
                name: "old_skill".into(),
                label: old.label.clone(),
                skill: Some(old.view(fallback)),
                folder: Vec::new(),
            },
        ]
    }
}

/// A case ready to run: its request with its input files.
#[derive(Debug, Clone, Serialize)]
pub struct Prepared {
    pub case: Case,
    /// The user message: the prompt, then the input files.
    pub request: String,
    /// The input files, for an agent CLI's working directory (the request names the run).
    #[serde(skip)]
    pub inputs: Vec<(String, Vec<u8>)>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Prompt(#[from] PromptError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("not run: the time was spent before it started")]
    Late,
}

/// The result of one case under one condition.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub grading: Grading,
    /// Requests sent for it by this run (retries and repairs included); 0 when a run before
    /// had graded it.
    pub calls: u32,
    pub usage: Usage,
}

/// Calls a run will make at most, before retries and repairs: an answer and a grade per case
/// and condition, less what `store` already has.
pub fn planned_calls(cases: &[Prepared], conditions: &[Condition], store: &RunDir) -> usize {
    let mut calls = 0;
    for p in cases {
        for c in conditions {
            if store.grading(&p.case.id, &c.name).is_some() {
                continue;
            }
            calls += if store.answer(&p.case.id, &c.name).is_some() {
                1
            } else {
                2
            };
        }
    }
    calls
}

/// Runs every case under every condition, `jobs` at a time; results in case order, each
/// case's conditions in the order given.
#[allow(clippy::too_many_arguments)]
pub fn run(
    provider: &dyn Provider,
    prompts: &Prompts,
    cases: &[Prepared],
    conditions: &[Condition],
    store: &RunDir,
    jobs: usize,
    planned: usize,
    step: super::compare::Step,
    agent: Option<&AgentRun>,
    progress: &mut dyn Progress,
) -> Vec<(CaseId, String, Result<Outcome, RunError>)> {
    let work: Vec<(&Prepared, &Condition)> = cases
        .iter()
        .flat_map(|p| conditions.iter().map(move |c| (p, c)))
        .collect();
    let total = work.len();
    // The workers say what each call cost; this thread tells `progress`, which need not be
    // shared between threads (a terminal writer is not).
    let (tx, rx) = std::sync::mpsc::channel::<u32>();
    std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            crate::parallel::map_ordered(&work, jobs, |(prepared, condition)| {
                let late = step
                    .deadline
                    .is_some_and(|d| crate::clock::monotonic() >= d);
                let outcome = if late {
                    Err(RunError::Late)
                } else {
                    one(provider, prompts, prepared, condition, store, agent)
                };
                let _ = tx.send(outcome.as_ref().map_or(0, |o| o.calls));
                (prepared.case.id.clone(), condition.name.clone(), outcome)
            })
        });
        let (mut done, mut finished) = (0u32, 0usize);
        for calls in rx {
            done += calls;
            finished += 1;
            progress.calls(done, planned);
            progress.progress(
                step.n,
                step.of,
                step.name,
                &format!("{finished} of {total} answers graded"),
            );
        }
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn one(
    provider: &dyn Provider,
    prompts: &Prompts,
    prepared: &Prepared,
    condition: &Condition,
    store: &RunDir,
    agent: Option<&AgentRun>,
) -> Result<Outcome, RunError> {
    let case = &prepared.case;
    if let Some(grading) = store.grading(&case.id, &condition.name) {
        return Ok(Outcome {
            grading,
            calls: 0,
            usage: Usage::default(),
        });
    }
    let start = Instant::now();
    let mut calls = 0;
    let mut usage = Usage::default();
    let answer = match store.answer(&case.id, &condition.name) {
        Some(answer) => answer,
        // The agent CLI at work in a directory of its own: its answer and the files it left.
        None if agent.is_some() => {
            let agent = agent.expect("matched");
            if let Some(budget) = &agent.budget {
                budget.take()?;
            }
            let (text, spent) = super::runner::attempt(
                agent,
                &case.prompt,
                &prepared.inputs,
                condition.skill.as_ref(),
                &condition.folder,
            )?;
            calls += 1;
            usage = usage + spent.unwrap_or_default();
            let answer = crate::redact::redact(&text);
            store.save_answer(&case.id, &condition.name, &answer)?;
            answer
        }
        None => {
            let system = prompts.render_with(
                PromptName::EvalAgent,
                &EvalAgentVars {
                    skill: condition.skill.clone(),
                },
            )?;
            let mut request = Request::new(prepared.request.clone())
                .system(system)
                .purpose("eval");
            request.max_tokens = 8192;
            let completion = provider.complete(&request)?;
            calls += completion.attempts;
            usage = usage + completion.usage;
            // Graded as it is kept (masked), so that a resumed run grades the same text.
            let answer = crate::redact::redact(&completion.text);
            store.save_answer(&case.id, &condition.name, &answer)?;
            answer
        }
    };
    let text = prompts.render_with(
        PromptName::EvalGrade,
        &EvalGradeVars {
            prompt: case.prompt.clone(),
            expected_output: case.expected_output.clone(),
            assertions: case.assertions.clone(),
            answer: answer.clone(),
            files: case.files.clone(),
        },
    )?;
    let mut request = Request::new(text).purpose("eval-grade");
    request.schema = Some(crate::prompt::schemas::eval_grade());
    request.temperature = Some(0.0);
    let raw_dir = store.dir.join("answers");
    let graded = complete_json::<EvalGrade>(
        provider,
        &request,
        &|g| g.validate(&case.assertions),
        Some(&raw_dir),
    )?;
    calls += graded.attempts;
    usage = usage + graded.usage;
    let grade = graded.value;
    let grading = Grading {
        case: case.id.clone(),
        condition: condition.name.clone(),
        passed: grade.passed(),
        expected_output_met: grade.expected_output_met,
        // The case's own wording, whatever the judge copied.
        assertions: grade
            .assertions
            .into_iter()
            .zip(&case.assertions)
            .map(|(mut a, text)| {
                a.text = text.clone();
                a.evidence = crate::redact::redact(&a.evidence);
                a
            })
            .collect(),
        reason: crate::redact::redact(&grade.reason),
        answer_chars: answer.chars().count(),
        seconds: start.elapsed().as_secs_f64(),
    };
    store.save_grading(&grading)?;
    Ok(Outcome {
        grading,
        calls,
        usage,
    })
}
