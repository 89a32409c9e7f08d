//! Optimize with evidence: the replay gate (the skill's eval cases run on SKILL.md as it is and
//! on the candidate before a person is asked; a case the candidate breaks refuses it unless
//! `--allow-regression`), and corrected signals that become eval cases with the change. The
//! model is the scripted one of the optimize tests, which also plays the eval agent and judge.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::common::Sandbox;
use super::llm_server::{Recorded, Reply, Server};
use super::optimize::{
    optimize, optimize_env, prompt_of, repo_with_signals, subjects, Model, SKILL,
};

/// The candidate of the scripted reflect step says this; SKILL.md as it is does not.
const CANDIDATE_MARK: &str = "by its form field name";

/// A case the candidate fixes, one both pass, one only SKILL.md as it is passes.
fn cases(regress: bool) -> Value {
    let mut evals = vec![
        json!({"id": 1, "prompt": "IMPROVE: fill the tax form", "expected_output": "Fields filled by their names"}),
        json!({"id": "stable", "prompt": "STABLE: read the fields back", "assertions": ["The answer reads the result back"]}),
    ];
    if regress {
        evals.push(json!({"id": "regress", "prompt": "REGRESS: fill the insurance form", "expected_output": "The old way"}));
    }
    json!({"skill_name": "pdf-forms", "evals": evals})
}

fn repo(regress: bool) -> Sandbox {
    let sb = repo_with_signals();
    sb.write(
        &format!("{SKILL}/evals/evals.json"),
        serde_json::to_string_pretty(&cases(regress)).unwrap(),
    );
    sb.git(&["add", "-A"]).assert_ok();
    sb.git(&["commit", "-q", "-m", "pdf-forms evals"])
        .assert_ok();
    sb
}

fn purpose(r: &Recorded) -> &str {
    r.header("x-git-skill-purpose").unwrap_or("")
}

/// The eval agent answers by the version of the skill it was given; the judge passes IMPROVE
/// only for the candidate's answer, REGRESS only for the current one's, STABLE always.
/// `failing_grades` grade requests are refused (HTTP 400) first.
fn model(failing_grades: usize) -> Model {
    let left = Arc::new(Mutex::new(failing_grades));
    let mut model = Model::new();
    model.other = Some(Arc::new(move |r: &Recorded| {
        let text = prompt_of(r);
        match purpose(r) {
            "eval" => Some(Reply::openai(if text.contains(CANDIDATE_MARK) {
                "ANSWER-CANDIDATE"
            } else {
                "ANSWER-CURRENT"
            })),
            "eval-grade" => {
                {
                    let mut left = left.lock().unwrap();
                    if *left > 0 {
                        *left -= 1;
                        return Some(Reply::json(
                            400,
                            json!({"error": {"message": "bad request"}}),
                        ));
                    }
                }
                let candidate = text.contains("ANSWER-CANDIDATE");
                let passed = if text.contains("IMPROVE:") {
                    candidate
                } else if text.contains("REGRESS:") {
                    !candidate
                } else {
                    true
                };
                let assertions: Vec<Value> = if text.contains("STABLE:") {
                    vec![
                        json!({"text": "The answer reads the result back", "passed": true, "evidence": "it does"}),
                    ]
                } else {
                    Vec::new()
                };
                Some(Reply::openai(
                    &json!({
                        "assertions": assertions,
                        "expected_output_met": passed,
                        "reason": if passed { "as expected" } else { "not what was expected" }
                    })
                    .to_string(),
                ))
            }
            _ => None,
        }
    }));
    model
}

fn evals_calls(server: &Server) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| purpose(r).starts_with("eval"))
        .count()
}

fn model_calls(server: &Server) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| !purpose(r).starts_with("eval"))
        .count()
}

fn evals_at(sb: &Sandbox, rev: &str) -> Value {
    let text = sb
        .git(&["show", &format!("{rev}:{SKILL}/evals/evals.json")])
        .stdout;
    serde_json::from_str(&text).unwrap()
}

fn optimization_json(sb: &Sandbox) -> Value {
    let resolved = sb.repo().join(SKILL).join(".skillopt/resolved");
    let dir = std::fs::read_dir(&resolved)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    serde_json::from_slice(&std::fs::read(dir.join("optimization.json")).unwrap()).unwrap()
}

#[test]
fn the_replay_gate_refuses_a_regression_and_allow_regression_takes_it() {
    let sb = repo(true);
    let head = sb.git(&["rev-parse", "HEAD"]).stdout;
    let server = model(0).serve();
    let run = optimize(&sb, &server, &["--yes", "--format", "json"]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["outcome"], "rejected");
    let replay = &report["gate"]["replay"];
    assert_eq!(replay["cases"], 3);
    assert_eq!(replay["before"], json!({"passed": 2, "graded": 3}));
    assert_eq!(replay["after"], json!({"passed": 2, "graded": 3}));
    assert_eq!(replay["regressions"][0]["case"], "regress");
    assert_eq!(replay["allowed"], false);
    let reasons: Vec<&str> = report["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        ["eval regression: case regress passes with SKILL.md as it is, not with the candidate: not what was expected"]
    );
    assert_eq!(report["resume_with"], "--allow-regression");
    assert!(replay["run"]
        .as_str()
        .unwrap()
        .starts_with("$GIT_DIR/skill/evals/pdf-forms/"));
    // An answer and a grade per case, before and after; nothing committed.
    assert_eq!(evals_calls(&server), 12);
    assert_eq!(sb.git(&["rev-parse", "HEAD"]).stdout, head);
    assert_eq!(sb.git(&["status", "--porcelain"]).stdout, "");

    // The text says why and what takes it anyway.
    let text = optimize(&sb, &server, &["--yes"]);
    assert_eq!(text.status, 1, "{}", text.stderr);
    assert!(
        text.stdout.contains(
            "Evals: 2/3 -> 2/3 passed (3 cases on SKILL.md as it is, then on the candidate; answers kept from an earlier run, no call)"
        ),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains(
            "  case regress: passes now, FAILS with the candidate - not what was expected"
        ),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .contains("git skill optimize pdf-forms --resume --allow-regression"),
        "{}",
        text.stdout
    );
    let calls = server.requests().len();

    // Taken anyway: no call repeated, the regression recorded.
    let run = optimize(
        &sb,
        &server,
        &[
            "--resume",
            "--allow-regression",
            "--yes",
            "--format",
            "json",
        ],
    );
    run.assert_ok();
    assert_eq!(server.requests().len(), calls, "no call is made again");
    let report = run.json();
    assert_eq!(report["outcome"], "accepted");
    assert_eq!(report["gate"]["replay"]["allowed"], true);
    let o = optimization_json(&sb);
    assert_eq!(o["gate_result"]["replay"]["allowed"], true);
    assert_eq!(
        o["gate_result"]["replay"]["regressions"][0]["case"],
        "regress"
    );
    let message = sb.git(&["log", "-1", "--format=%B"]).stdout;
    assert!(
        message.contains(
            "Evals: 2/3 -> 2/3 passed (regression in case regress taken with --allow-regression)"
        ),
        "{message}"
    );
    let log = sb.run(&["log", "pdf-forms"]);
    log.assert_ok();
    assert!(
        log.stdout
            .contains("gate 3/3, evals 2/3 -> 2/3 (regression allowed)"),
        "{}",
        log.stdout
    );
    sb.git(&["fsck", "--no-progress"]).assert_ok();
    assert_eq!(sb.git(&["status", "--porcelain"]).stdout, "");
}

#[test]
fn a_candidate_that_keeps_every_case_lands_with_its_signals_as_new_cases() {
    let sb = repo(false);
    let server = model(0).serve();
    let run = optimize(&sb, &server, &["--yes", "--format", "json"]);
    run.assert_ok();
    let report = run.json();
    assert_eq!(report["outcome"], "accepted");
    assert_eq!(
        report["gate"]["replay"]["before"],
        json!({"passed": 1, "graded": 2})
    );
    assert_eq!(
        report["gate"]["replay"]["after"],
        json!({"passed": 2, "graded": 2})
    );
    assert_eq!(report["gate"]["replay"]["regressions"], json!([]));
    assert_eq!(evals_calls(&server), 8);
    // The two corrected signals became cases 2 and 3 (1 is the highest number; "stable" is
    // a name), in the optimize commit, with SKILL.md.
    let files = sb.git(&["show", "--name-only", "--format=", "HEAD"]).stdout;
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        [
            format!("{SKILL}/SKILL.md"),
            format!("{SKILL}/evals/evals.json")
        ]
    );
    let evals = evals_at(&sb, "HEAD");
    let list = evals["evals"].as_array().unwrap();
    assert_eq!(list.len(), 4);
    assert_eq!(list[2]["id"], 2);
    assert_eq!(list[2]["prompt"], "fill in the 2026 tax form");
    assert_eq!(
        list[2]["expected_output"],
        "fill fields by their form field names (list them with pypdf's get_fields), not by the printed labels"
    );
    let o = optimization_json(&sb);
    let signal_ids: Vec<String> = o["signal_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("signal:{}", s.as_str().unwrap()))
        .collect();
    assert!(
        signal_ids.contains(&list[2]["source"].as_str().unwrap().to_owned()),
        "{signal_ids:?}"
    );
    assert_eq!(list[3]["id"], 3);
    assert_eq!(o["eval_cases"], json!([2, 3]));
    let message = sb.git(&["log", "-1", "--format=%B"]).stdout;
    assert!(
        message.contains(
            "Evals: 1/2 -> 2/2 passed\nEval-Cases: 2, 3 (added from corrected signals)\n"
        ),
        "{message}"
    );
    // `git skill eval` says where each case came from; `log` shows the rates and the cases.
    let log = sb.run(&["log", "pdf-forms"]);
    assert!(log.stdout.contains("evals 1/2 -> 2/2"), "{}", log.stdout);
    assert!(
        log.stdout
            .contains("eval cases added from its signals: 2, 3"),
        "{}",
        log.stdout
    );
    sb.git(&["fsck", "--no-progress"]).assert_ok();
    assert_eq!(sb.git(&["status", "--porcelain"]).stdout, "");

    // A case written by hand since, after the signals' cases.
    let mut later = evals.clone();
    later["evals"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": 9, "prompt": "LATER: a case by hand", "expected_output": "e"}));
    sb.write(
        &format!("{SKILL}/evals/evals.json"),
        serde_json::to_string_pretty(&later).unwrap(),
    );
    sb.git(&["commit", "-qam", "one more case"]).assert_ok();
    // A rollback takes the signals' cases back out with the change (the case by hand stays),
    // and the signals back in.
    let rollback = sb.run_in(
        "",
        &["rollback", "pdf-forms", "--format", "json"],
        &[("GIT_SKILL_NOW", super::optimize::NOW)],
    );
    rollback.assert_ok();
    assert_eq!(rollback.json()["via"], "tree-edit");
    let ids: Vec<String> = evals_at(&sb, "HEAD")["evals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].to_string())
        .collect();
    assert_eq!(ids, ["1", "\"stable\"", "9"]);
    sb.git(&["fsck", "--no-progress"]).assert_ok();
    assert_eq!(sb.git(&["status", "--porcelain"]).stdout, "");
}

#[test]
fn no_evals_leaves_the_cases_out_and_a_dry_run_shows_them() {
    let sb = repo(false);
    let server = model(0).serve();
    let dry = optimize(&sb, &server, &["--dry-run", "--yes"]);
    dry.assert_ok();
    assert!(
        dry.stdout.contains(
            "New eval cases (evals/evals.json, from the corrected signals; --no-evals leaves them out):\n  + case 2 (signal:"
        ),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout.contains("): fill in the 2026 tax form\n"),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout
            .contains("Eval-Cases: 2, 3 (added from corrected signals)"),
        "{}",
        dry.stdout
    );
    let calls = server.requests().len();
    // The dry run's change, committed without the cases: no model call.
    let run = optimize(&sb, &server, &["--resume", "--yes", "--no-evals"]);
    run.assert_ok();
    assert_eq!(server.requests().len(), calls);
    let files = sb.git(&["show", "--name-only", "--format=", "HEAD"]).stdout;
    assert_eq!(files.trim(), format!("{SKILL}/SKILL.md"));
    let message = sb.git(&["log", "-1", "--format=%B"]).stdout;
    assert!(!message.contains("Eval-Cases"), "{message}");
    assert!(message.contains("Evals: 1/2 -> 2/2 passed"), "{message}");
}

#[test]
fn the_config_key_turns_signal_cases_off() {
    let sb = repo(false);
    sb.git(&["config", "skill.evalsFromSignals", "false"])
        .assert_ok();
    let server = model(0).serve();
    optimize(&sb, &server, &["--yes"]).assert_ok();
    let files = sb.git(&["show", "--name-only", "--format=", "HEAD"]).stdout;
    assert_eq!(files.trim(), format!("{SKILL}/SKILL.md"));
}

#[test]
fn a_broken_eval_set_or_one_over_the_budget_stops_the_run_before_any_call() {
    let sb = repo(true);
    let server = model(0).serve();
    let run = optimize_env(
        &sb,
        &server,
        &["--yes"],
        &[("GIT_SKILL_EVAL_MAX_CALLS", "11")],
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "the replay gate of pdf-forms needs up to 12 model calls for its 3 eval cases, more than skill.evalMaxCalls (11)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("git config skill.evalMaxCalls"),
        "{}",
        run.stderr
    );
    sb.write(
        &format!("{SKILL}/evals/evals.json"),
        "{\"evals\": [{\"id\": 1}]}",
    );
    sb.git(&["commit", "-qam", "broken evals"]).assert_ok();
    let run = optimize(&sb, &server, &["--yes"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("case 1 (id 1): it has no `prompt`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("git skill lint pdf-forms"),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty());
    assert!(
        !sb.repo()
            .join(SKILL)
            .join(".skillopt/work/checkpoint.json")
            .exists(),
        "no checkpoint is left before the first call"
    );
}

#[test]
fn a_replay_cut_short_resumes_with_only_the_missing_calls() {
    let sb = repo(true);
    let failing = model(2).serve();
    let run = optimize_env(&sb, &failing, &["--yes"], &[("GIT_SKILL_PARALLEL", "1")]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the replay gate could not grade every eval case of pdf-forms"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--resume"), "{}", run.stderr);
    assert_eq!(evals_calls(&failing), 12);
    let server = model(0).serve();
    let run = optimize(&sb, &server, &["--resume", "--yes", "--format", "json"]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    // Only the two grades that failed; the judges' answers were kept.
    assert_eq!(evals_calls(&server), 2);
    assert_eq!(model_calls(&server), 0);
    assert_eq!(
        run.json()["gate"]["replay"]["regressions"][0]["case"],
        "regress"
    );
    let _ = subjects(&sb, 1);
}

/// The walkthrough's story with the stand-in model of `examples/`, as a reader runs it: three
/// eval cases, the with/without table, an optimization the replay gate lets through (its signals
/// becoming cases), then a correction that breaks a case: refused, and taken only with
/// `--allow-regression`.
#[test]
fn the_walkthrough_with_the_stand_in_model() {
    let examples = super::optimize::examples();
    let sb = Sandbox::with_repo();
    let skill = std::fs::read_to_string(examples.join("sample_skill.md")).unwrap();
    sb.write(&format!("{SKILL}/SKILL.md"), skill);
    sb.write(
        &format!("{SKILL}/evals/evals.json"),
        std::fs::read_to_string(examples.join("sample_evals.json")).unwrap(),
    );
    sb.git(&["add", "-A"]).assert_ok();
    sb.git(&[
        "commit",
        "-qm",
        "add the pdf-forms skill and its eval cases",
    ])
    .assert_ok();
    let command = format!("python3 '{}'", examples.join("stand-in-model.py").display());
    let env = [
        ("GIT_SKILL_NOW", super::optimize::NOW),
        ("GIT_SKILL_PROVIDER", "command"),
        ("GIT_SKILL_COMMAND", command.as_str()),
    ];
    sb.run_in("", &["lint"], &env).assert_ok();
    let eval = sb.run_in("", &["eval", "pdf-forms"], &env);
    eval.assert_ok();
    assert!(
        eval.stdout.contains("with_skill: 2/3 passed (67%) — the work tree\nwithout_skill: 0/3 passed (0%) — no skill"),
        "{}",
        eval.stdout
    );
    let signals = std::fs::read_to_string(examples.join("sample_signals.json")).unwrap();
    sb.run_with_stdin(&["record", "pdf-forms", "--stdin"], &env, &signals)
        .assert_ok();
    let run = sb.run_in("", &["optimize", "pdf-forms", "--yes"], &env);
    run.assert_ok();
    assert!(
        run.stdout.contains("Evals: 2/3 -> 3/3 passed"),
        "{}",
        run.stdout
    );
    assert_eq!(
        evals_at(&sb, "HEAD")["evals"].as_array().unwrap().len(),
        5,
        "the two corrected signals became cases"
    );
    let against = sb.run_in("", &["eval", "pdf-forms", "--against", "HEAD~2"], &env);
    against.assert_ok();
    assert!(
        against.stdout.contains("new_skill: 5/5 passed (100%)"),
        "{}",
        against.stdout
    );

    // A day later (optimization ids are made of the time).
    let env = [
        ("GIT_SKILL_NOW", "2026-12-01T12:00:00Z"),
        ("GIT_SKILL_PROVIDER", "command"),
        ("GIT_SKILL_COMMAND", command.as_str()),
    ];
    sb.run_in(
        "",
        &[
            "record",
            "pdf-forms",
            "--type",
            "corrected",
            "--scenario",
            "fill in the lease form",
            "--correction",
            "step 3: Save the filled form over the original file.",
        ],
        &env,
    )
    .assert_ok();
    let head = sb.git(&["rev-parse", "HEAD"]).stdout;
    let refused = sb.run_in("", &["optimize", "pdf-forms", "--yes"], &env);
    assert_eq!(refused.status, 1, "{}", refused.stderr);
    assert!(
        refused.stdout.contains("Evals: 5/5 -> 4/5 passed")
            && refused.stdout.contains(
                "eval regression: case 1 passes with SKILL.md as it is, not with the candidate"
            )
            && refused
                .stdout
                .contains("git skill optimize pdf-forms --resume --allow-regression"),
        "{}",
        refused.stdout
    );
    assert_eq!(sb.git(&["rev-parse", "HEAD"]).stdout, head);
    let taken = sb.run_in(
        "",
        &[
            "optimize",
            "pdf-forms",
            "--resume",
            "--allow-regression",
            "--yes",
        ],
        &env,
    );
    taken.assert_ok();
    let message = sb.git(&["log", "-1", "--format=%B"]).stdout;
    assert!(
        message.contains(
            "Evals: 5/5 -> 4/5 passed (regression in case 1 taken with --allow-regression)"
        ),
        "{message}"
    );
    let log = sb.run_in("", &["log", "pdf-forms"], &env);
    assert!(
        log.stdout.contains("evals 5/5 -> 4/5 (regression allowed)"),
        "{}",
        log.stdout
    );
    sb.git(&["fsck", "--no-progress"]).assert_ok();
    assert_eq!(sb.git(&["status", "--porcelain"]).stdout, "");
}
