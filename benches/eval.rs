//! What `git skill eval` costs beside the model: 200 cases under two conditions through
//! `eval::run::run` with an in-process model that answers at once (an answer per case, a grade
//! that fits the schema), so that what is measured is git-skill's own work per case: rendering
//! both prompts, the judge's JSON read and checked, the answer and grade written (masked,
//! private, atomic) and read back. A fresh run (every call made) and the same run again
//! (everything reused, as after an interruption). Medians of 5. Run: `cargo bench --bench eval`.

use std::time::{Duration, Instant};

use git_skill::eval::cases::{Case, CaseId};
use git_skill::eval::run::{self, Condition, Prepared};
use git_skill::eval::store::RunDir;
use git_skill::eval::subject::Variant;
use git_skill::llm::{Completion, Describe, LlmError, Provider, Request, Usage};
use git_skill::progress::Progress;
use git_skill::prompt::Prompts;

const CASES: usize = 200;

struct Instant_;

static DESCRIBE: std::sync::OnceLock<Describe> = std::sync::OnceLock::new();

impl Provider for Instant_ {
    fn complete(&self, request: &Request) -> Result<Completion, LlmError> {
        let text = match request.purpose {
            Some("eval-grade") => r#"{"assertions": [{"text": "a", "passed": true, "evidence": "e"}], "expected_output_met": true, "reason": "fine"}"#.to_owned(),
            _ => "north 3, south 4.\nTOTALS CHECKED\n".repeat(20),
        };
        Ok(Completion {
            text,
            usage: Usage::default(),
            attempts: 1,
            dropped: None,
            tool_calls: Vec::new(),
        })
    }

    fn describe(&self) -> &Describe {
        DESCRIBE.get_or_init(|| Describe {
            provider: "instant",
            model: "instant".into(),
            endpoint: "in process".into(),
        })
    }
}

struct Quiet;

impl Progress for Quiet {
    fn progress(&mut self, _: u8, _: u8, _: &str, _: &str) {}
    fn warn(&mut self, _: &str) {}
    fn calls(&mut self, _: u32, _: usize) {}
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let skill_md = format!(
        "---\nname: csv-report\ndescription: Writes a sales report from a CSV file.\n---\n\n# CSV report\n\n{}",
        "1. Sum each region, then check the totals against the input (see references/regions.md).\n".repeat(60)
    );
    let variant = Variant {
        label: "the work tree".into(),
        skill_md,
        files: vec![(
            "references/regions.md".into(),
            "North, south.\n".repeat(200).into_bytes(),
        )],
    };
    let conditions = vec![
        Condition {
            name: "with_skill".into(),
            label: "the work tree".into(),
            skill: Some(variant.view("csv-report")),
            folder: Vec::new(),
        },
        Condition {
            name: "without_skill".into(),
            label: "no skill".into(),
            skill: None,
            folder: Vec::new(),
        },
    ];
    let cases: Vec<Prepared> = (0..CASES)
        .map(|i| {
            let case = Case {
                id: CaseId::Number(i as u64),
                prompt: format!("Write the sales report for week {i} from sales.csv"),
                expected_output: Some("A total per region".into()),
                files: vec!["evals/files/sales.csv".into()],
                assertions: vec!["The report ends with TOTALS CHECKED".into()],
                source: None,
            };
            let input = (
                "evals/files/sales.csv".to_owned(),
                "region,total\nnorth,3\n".repeat(100).into_bytes(),
            );
            Prepared {
                request: git_skill::eval::subject::request(&case.prompt, &[input]),
                case,
                inputs: Vec::new(),
            }
        })
        .collect();
    let prompts = Prompts::load(&[]).unwrap();
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (mut fresh, mut again) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let tmp = tempfile::tempdir().unwrap();
        let store = RunDir::new(tmp.path(), "csv-report", &"bench");
        for (times, label) in [(&mut fresh, "fresh"), (&mut again, "again")] {
            let planned = run::planned_calls(&cases, &conditions, &store);
            let start = Instant::now();
            let results = run::run(
                &Instant_,
                &prompts,
                &cases,
                &conditions,
                &store,
                jobs,
                planned,
                git_skill::eval::compare::Step {
                    n: 1,
                    of: 1,
                    name: "run",
                    deadline: None,
                },
                None,
                &mut Quiet,
            );
            times.push(start.elapsed());
            assert!(results.iter().all(|(_, _, r)| r.is_ok()), "{label}");
        }
    }
    let per = |d: Duration| d.as_secs_f64() * 1e3 / CASES as f64;
    let (f, a) = (median(fresh), median(again));
    println!("{CASES} cases x 2 conditions, {jobs} threads, an instant model:");
    println!(
        "  fresh (400 answers and 400 grades): {:.1} ms, {:.3} ms per case",
        f.as_secs_f64() * 1e3,
        per(f)
    );
    println!(
        "  again (everything kept):            {:.1} ms, {:.3} ms per case",
        a.as_secs_f64() * 1e3,
        per(a)
    );
}
