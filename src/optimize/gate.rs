//! Step 7: one model call per cluster, all in parallel, answers kept as they arrive; and the
//! regression check, which asks the same question about the clusters earlier optimizations
//! fixed. Judges' reasons are recorded, never fed back into reflect.

use std::collections::BTreeMap;

use super::checkpoint::{GateRecord, Mode, Vote};
use crate::llm::{self, json, LlmError, Provider, Request, Usage};
use crate::prompt::contracts::{Cluster, GateAnswer, GateMode, MaskSecrets};
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

/// Where the skill stands beside the cluster and its signals, as `order` of the gate
/// templates.
const ORDERS: [&str; 3] = ["skill_first", "signals_first", "skill_between"];

/// How vote `k` (1-based) of a cluster with `signals` signals is put to its judge: an order
/// of the sections, the signals in their order or reversed (with two or more), and, past
/// the distinct framings (3 for one signal, 6 for more), sampled at temperature 0.7 rather
/// than 0, so that no two judges read the same prompt the same way and a candidate worded
/// to sway one reading meets the others.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Framing {
    order: &'static str,
    reversed: bool,
    sampled: bool,
}

fn framing(k: u32, signals: usize) -> Framing {
    let i = (k.max(1) - 1) as usize;
    let distinct = if signals > 1 { 6 } else { 3 };
    let j = i % distinct;
    Framing {
        order: ORDERS[j % 3],
        reversed: j >= 3,
        sampled: i >= distinct,
    }
}

fn framing_text(f: Framing) -> String {
    let order = match f.order {
        "signals_first" => "signals first",
        "skill_between" => "cluster, skill, signals",
        _ => "skill first",
    };
    format!(
        "{order}{}{}",
        if f.reversed {
            ", signals in reverse order"
        } else {
            ""
        },
        if f.sampled { ", sampled" } else { "" }
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
/// resumed run asks only the rest. Returns the usage, the calls, the first error, and the
/// field a server refused (its schema then not enforced there), if one did.
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
) -> (Usage, u32, Option<LlmError>, Option<&'static str>) {
    let votes = votes.max(1);
    let open: Vec<(&Question, u32)> = questions
        .iter()
        .flat_map(|q| (1..=votes).map(move |k| (q, k)))
        .filter(|(q, k)| !answers.contains_key(&ballot_key(q, *k, votes)))
        .collect();
    let results = llm::batch::run(&open, parallel, |&(q, k)| {
        let f = framing(k, q.signals.len());
        let mut signals: Vec<SignalDetail> = q.signals.iter().map(SignalDetail::from).collect();
        if f.reversed {
            signals.reverse();
        }
        let vars = GateVars {
            skill_name: skill_name.to_owned(),
            candidate_skill: candidate.to_owned(),
            cluster: q.cluster.clone(),
            signals,
            order: f.order.to_owned(),
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
        request.temperature = Some(if f.sampled { 0.7 } else { 0.0 });
        let cluster_id = q.cluster.cluster_id.clone();
        let check = move |a: &GateAnswer| {
            a.validate(gate_mode, &cluster_id)
                .map_err(|e| e.to_string())
        };
        json::complete_json::<GateAnswer>(provider, &request, &check, raw_dir).map(|mut a| {
            a.value.mask_secrets();
            a
        })
    });
    let mut usage = Usage::default();
    let mut calls = 0;
    let mut first_error = None;
    let mut dropped = None;
    for (&(q, k), result) in open.iter().zip(results.results) {
        match result {
            Ok(answer) => {
                dropped = dropped.or(answer.dropped);
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
    (usage, calls, first_error, dropped)
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
                    framing: framing_text(framing(k, q.signals.len())),
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
        assert_eq!(r.votes[0].framing, "skill first");
        assert_eq!(r.votes[1].framing, "signals first");
        assert_eq!(r.votes[2].framing, "cluster, skill, signals");
        answers.insert("c#4".to_owned(), record(false));
        let r = &tally(&q, &answers, 4)[0];
        assert!(!r.passed, "2 of 4 is no majority");
        assert_eq!(r.reason, "2 of 4 judges: still there");
        // One vote: the record as it was, under the cluster's own key.
        let mut one = BTreeMap::new();
        one.insert("c".to_owned(), record(true));
        assert_eq!(tally(&q, &one, 1), vec![record(true)]);
    }

    /// Every judge of a cluster reads another prompt, or the same one sampled: with one
    /// signal, three orders; with more, six framings; past them, sampling.
    #[test]
    fn no_two_judges_read_the_same_prompt_the_same_way() {
        for (signals, distinct) in [(1, 3), (2, 6)] {
            let all: Vec<Framing> = (1..=9).map(|k| framing(k, signals)).collect();
            for i in 0..distinct {
                for j in i + 1..distinct {
                    assert_ne!(
                        all[i],
                        all[j],
                        "{signals} signals, votes {} and {}",
                        i + 1,
                        j + 1
                    );
                }
                assert!(!all[i].sampled);
                if signals == 1 {
                    assert!(!all[i].reversed, "reversing one signal changes nothing");
                }
            }
            assert!(all[distinct..].iter().all(|f| f.sampled));
        }
        assert_eq!(
            framing(1, 1),
            Framing {
                order: "skill_first",
                reversed: false,
                sampled: false
            },
            "one vote is the plain prompt"
        );
    }
}
