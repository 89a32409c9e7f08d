//! Step 7: one model call per cluster, all in parallel, answers kept as they arrive; and the
//! regression check, which asks the same question about the clusters earlier optimizations
//! fixed. Judges' reasons are recorded, never fed back into reflect.

use std::collections::BTreeMap;

use super::checkpoint::{GateRecord, Mode};
use crate::llm::{self, json, LlmError, Provider, Request, Usage};
use crate::prompt::contracts::{Cluster, GateAnswer, GateMode};
use crate::prompt::vars::{GateVars, SignalDetail};
use crate::prompt::{PromptName, Prompts};
use crate::signal::Signal;

/// One question for a judge.
pub struct Question {
    /// The key answers are kept under: the cluster id, or `<optimization>/<cluster>` for a
    /// regression check.
    pub key: String,
    pub cluster: Cluster,
    pub signals: Vec<Signal>,
    pub mode: Mode,
    pub from_optimization: Option<String>,
}

/// Asks every question not yet in `answers`, `parallel` at a time. Answers that arrive are
/// added to `answers` even when another call fails, so that a resumed run asks only the rest.
/// Returns the usage and the first error.
#[allow(clippy::too_many_arguments)]
pub fn ask(
    provider: &dyn Provider,
    prompts: &Prompts,
    skill_name: &str,
    candidate: &str,
    questions: &[Question],
    answers: &mut BTreeMap<String, GateRecord>,
    parallel: usize,
    raw_dir: Option<&std::path::Path>,
) -> (Usage, u32, Option<LlmError>) {
    let open: Vec<&Question> = questions
        .iter()
        .filter(|q| !answers.contains_key(&q.key))
        .collect();
    let results = llm::batch::run(&open, parallel, |q| {
        let vars = GateVars {
            skill_name: skill_name.to_owned(),
            candidate_skill: candidate.to_owned(),
            cluster: q.cluster.clone(),
            signals: q.signals.iter().map(SignalDetail::from).collect(),
        };
        let (name, gate_mode) = match q.mode {
            Mode::TextEdit => (PromptName::GateTextEdit, GateMode::TextEdit),
            Mode::Rewrite => (PromptName::GateRewrite, GateMode::Rewrite),
        };
        let prompt = prompts
            .render_with(name, &vars)
            .map_err(|e| LlmError::Config(e.to_string()))?;
        let purpose = if q.from_optimization.is_some() {
            "regression"
        } else {
            "gate"
        };
        let mut request = Request::new(prompt).purpose(purpose);
        request.schema = Some(crate::prompt::schemas::gate(gate_mode));
        request.max_tokens = 1024;
        request.temperature = Some(0.0);
        let cluster_id = q.cluster.cluster_id.clone();
        let check = move |a: &GateAnswer| {
            a.validate(gate_mode, &cluster_id)
                .map_err(|e| e.to_string())
        };
        json::complete_json::<GateAnswer>(provider, &request, &check, raw_dir)
    });
    let mut usage = Usage::default();
    let mut calls = 0;
    let mut first_error = None;
    for (q, result) in open.iter().zip(results.results) {
        match result {
            Ok(answer) => {
                usage = usage + answer.usage;
                calls += answer.attempts;
                let verdict = serde_json::to_value(answer.value.verdict)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                answers.insert(
                    q.key.clone(),
                    GateRecord {
                        cluster_id: q.cluster.cluster_id.clone(),
                        passed: answer.value.passes(),
                        verdict,
                        reason: answer.value.reason,
                        from_optimization: q.from_optimization.clone(),
                    },
                );
            }
            Err(e) => {
                calls += 1;
                first_error.get_or_insert(e);
            }
        }
    }
    (usage, calls, first_error)
}
