//! Step 7: one model call per cluster, all in parallel, answers kept as they arrive; and the
//! regression check, which asks the same question about the clusters earlier optimizations
//! fixed. Judges' reasons are recorded, never fed back into reflect.

use std::collections::BTreeMap;

use super::checkpoint::{GateRecord, Mode, Vote};
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

/// How vote `k` (1-based) of a cluster is put to its judge: the skill or the signals first,
/// and the signals in their order or reversed, so that no two of the first four judges read
/// the same prompt and a candidate worded to sway one framing meets the others.
fn framing(k: u32) -> (bool, bool) {
    let signals_first = k.is_multiple_of(2);
    let reversed = ((k - 1) / 2) % 2 == 1;
    (signals_first, reversed)
}

fn framing_text(k: u32) -> String {
    let (signals_first, reversed) = framing(k);
    format!(
        "{} first{}",
        if signals_first { "signals" } else { "skill" },
        if reversed {
            ", signals in reverse order"
        } else {
            ""
        }
    )
}

/// The key vote `k` of `q` is kept under: the question's own with one vote (as before
/// votes existed), `<key>#<k>` with several.
fn ballot_key(q: &Question, k: u32, votes: u32) -> String {
    if votes <= 1 {
        q.key.clone()
    } else {
        format!("{}#{k}", q.key)
    }
}

/// Asks every judge not yet in `answers`, `votes` per question, `parallel` at a time.
/// Answers that arrive are added to `answers` even when another call fails, so that a
/// resumed run asks only the rest. Returns the usage, the calls and the first error.
#[allow(clippy::too_many_arguments)]
pub fn ask(
    provider: &dyn Provider,
    prompts: &Prompts,
    skill_name: &str,
    candidate: &str,
    questions: &[Question],
    answers: &mut BTreeMap<String, GateRecord>,
    votes: u32,
    parallel: usize,
    raw_dir: Option<&std::path::Path>,
) -> (Usage, u32, Option<LlmError>) {
    let votes = votes.max(1);
    let open: Vec<(&Question, u32)> = questions
        .iter()
        .flat_map(|q| (1..=votes).map(move |k| (q, k)))
        .filter(|(q, k)| !answers.contains_key(&ballot_key(q, *k, votes)))
        .collect();
    let results = llm::batch::run(&open, parallel, |&(q, k)| {
        let (signals_first, reversed) = framing(k);
        let mut signals: Vec<SignalDetail> = q.signals.iter().map(SignalDetail::from).collect();
        if reversed {
            signals.reverse();
        }
        let vars = GateVars {
            skill_name: skill_name.to_owned(),
            candidate_skill: candidate.to_owned(),
            cluster: q.cluster.clone(),
            signals,
            signals_first,
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
    for (&(q, k), result) in open.iter().zip(results.results) {
        match result {
            Ok(answer) => {
                usage = usage + answer.usage;
                calls += answer.attempts;
                let verdict = serde_json::to_value(answer.value.verdict)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                answers.insert(
                    ballot_key(q, k, votes),
                    GateRecord {
                        cluster_id: q.cluster.cluster_id.clone(),
                        passed: answer.value.passes(),
                        verdict,
                        reason: answer.value.reason,
                        from_optimization: q.from_optimization.clone(),
                        votes: Vec::new(),
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

/// The verdict on each question that all its judges answered: its one judge's, or with
/// several the majority's (more than half must pass it; a tie fails), every vote listed.
pub fn tally(
    questions: &[Question],
    answers: &BTreeMap<String, GateRecord>,
    votes: u32,
) -> Vec<GateRecord> {
    let votes = votes.max(1);
    let mut out = Vec::new();
    for q in questions {
        let ballots: Option<Vec<&GateRecord>> = (1..=votes)
            .map(|k| answers.get(&ballot_key(q, k, votes)))
            .collect();
        let Some(ballots) = ballots else {
            continue;
        };
        if votes == 1 {
            out.push(ballots[0].clone());
            continue;
        }
        let passing = ballots.iter().filter(|b| b.passed).count();
        let passed = passing * 2 > votes as usize;
        let first = ballots
            .iter()
            .find(|b| b.passed == passed)
            .expect("one side holds the majority");
        out.push(GateRecord {
            cluster_id: q.cluster.cluster_id.clone(),
            verdict: first.verdict.clone(),
            passed,
            reason: format!(
                "{} of {votes} judges: {}",
                if passed {
                    passing
                } else {
                    votes as usize - passing
                },
                first.reason
            ),
            from_optimization: q.from_optimization.clone(),
            votes: ballots
                .iter()
                .zip(1..)
                .map(|(b, k)| Vote {
                    verdict: b.verdict.clone(),
                    passed: b.passed,
                    reason: b.reason.clone(),
                    framing: framing_text(k),
                })
                .collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::contracts::Cluster;
    use crate::signal::SignalType;

    fn question(key: &str) -> Question {
        Question {
            key: key.to_owned(),
            cluster: Cluster {
                cluster_id: key.to_owned(),
                root_cause: "r".into(),
                signal_ids: vec!["s".into()],
                kind: SignalType::Corrected,
                count: 1,
            },
            signals: Vec::new(),
            mode: Mode::TextEdit,
            from_optimization: None,
        }
    }

    fn record(passed: bool) -> GateRecord {
        GateRecord {
            cluster_id: "c".into(),
            verdict: if passed { "NO" } else { "YES" }.into(),
            passed,
            reason: if passed { "fixed" } else { "still there" }.into(),
            from_optimization: None,
            votes: Vec::new(),
        }
    }

    #[test]
    fn the_majority_decides_and_a_tie_fails() {
        let q = [question("c")];
        let mut answers = BTreeMap::new();
        answers.insert("c#1".to_owned(), record(true));
        answers.insert("c#2".to_owned(), record(false));
        assert!(tally(&q, &answers, 3).is_empty(), "a vote is missing");
        answers.insert("c#3".to_owned(), record(true));
        let r = &tally(&q, &answers, 3)[0];
        assert!(r.passed);
        assert_eq!(r.verdict, "NO");
        assert_eq!(r.reason, "2 of 3 judges: fixed");
        assert_eq!(r.votes.len(), 3);
        assert_eq!(r.votes[1].framing, "signals first");
        assert_eq!(r.votes[2].framing, "skill first, signals in reverse order");
        answers.insert("c#4".to_owned(), record(false));
        let r = &tally(&q, &answers, 4)[0];
        assert!(!r.passed, "2 of 4 is no majority");
        assert_eq!(r.reason, "2 of 4 judges: still there");
        // One vote: the record as it was, under the cluster's own key.
        let mut one = BTreeMap::new();
        one.insert("c".to_owned(), record(true));
        assert_eq!(tally(&q, &one, 1), vec![record(true)]);
    }

    #[test]
    fn the_first_four_framings_differ() {
        let all: Vec<(bool, bool)> = (1..=4).map(framing).collect();
        for i in 0..4 {
            for j in i + 1..4 {
                assert_ne!(all[i], all[j]);
            }
        }
        assert_eq!(framing(1), (false, false), "one vote is the plain prompt");
    }
}
