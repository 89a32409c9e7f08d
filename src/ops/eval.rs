//! `git skill eval <SKILL>`: the skill's eval cases (`evals/evals.json`), each run with the
//! skill and without it (or against another version of it: a revision, a candidate file),
//! graded by a judge model; the pass rates side by side, the results kept under
//! `$GIT_DIR/skill/evals/`, never in the work tree.

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use crate::env::{Env, EnvError};
use crate::eval::cases::{self, CaseId, EvalsProblem, EVALS_JSON};
use crate::eval::run::{self, Condition, Prepared, RunError};
use crate::eval::store::{RunDir, StoreError};
use crate::eval::subject::{self, Variant};
use crate::git::{At, GitError, RegularBlob};
use crate::llm::{Settings, Usage};
use crate::progress::Progress;
use crate::prompt::{self, PromptError, Prompts};
use crate::skill::discover::Skill;
use crate::skill::files::SKILL_MD_READ_CAP;

/// What the skill is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Against {
    /// No skill: does it help at all?
    Nothing,
    /// The skill at a revision (`HEAD~3`, `main`): did a change help?
    Revision(String),
    /// A candidate SKILL.md (a file): would this change help?
    Candidate(PathBuf),
}

pub struct Options {
    pub against: Against,
    pub settings: Settings,
    /// Cases run at once (each makes two calls, one after the other).
    pub jobs: usize,
    /// Forget what an earlier run of the same comparison kept, and ask again.
    pub fresh: bool,
    /// The most calls the run may make (`skill.evalMaxCalls`).
    pub max_calls: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error("the skill '{skill}' has no {EVALS_JSON}")]
    NoEvals { skill: String },
    #[error("'{}' is not a valid eval set: {problem}", path.display())]
    Invalid {
        path: PathBuf,
        problem: EvalsProblem,
    },
    #[error("'{}' has no cases", path.display())]
    NoCases { path: PathBuf },
    #[error(transparent)]
    Read(#[from] subject::ReadError),
    #[error("the skill '{skill}' is not inside the repository")]
    Outside { skill: String },
    #[error("could not read the skill at {rev}")]
    Revision {
        rev: String,
        #[source]
        source: GitError,
    },
    #[error("the skill has no readable SKILL.md at {rev} ('{path}': {reason})")]
    NotAtRevision {
        rev: String,
        path: String,
        reason: String,
    },
    #[error("this run needs up to {planned} model calls, more than skill.evalMaxCalls ({max})")]
    Budget { planned: usize, max: usize },
    #[error(transparent)]
    Prompt(#[from] PromptError),
    #[error(transparent)]
    Store(#[from] StoreError),
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

/// Runs the eval. `progress` hears the plan before any call, then the calls as they go.
pub fn eval(
    env: &Env,
    skill: &Skill,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Report, EvalError> {
    let repo = env.require_repo("eval")?;
    let path = skill.dir.join(EVALS_JSON);
    // Never through a linked `evals/` folder, out of the skill.
    let bytes = match subject::no_link_below(&skill.dir, EVALS_JSON)
        .and_then(|()| crate::fsutil::read(&path))
    {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(EvalError::NoEvals {
                skill: skill.dir_name.clone(),
            })
        }
        Err(source) => return Err(subject::ReadError { path, source }.into()),
    };
    let set = cases::parse(&bytes).map_err(|problem| EvalError::Invalid {
        path: env.display(&path),
        problem,
    })?;
    if set.cases.is_empty() {
        return Err(EvalError::NoCases {
            path: env.display(&path),
        });
    }
    let prepared = set
        .cases
        .iter()
        .map(|case| {
            let inputs = subject::inputs(&skill.dir, &case.files)?;
            Ok(Prepared {
                case: case.clone(),
                request: subject::request(&case.prompt, &inputs),
            })
        })
        .collect::<Result<Vec<_>, subject::ReadError>>()?;

    let current = Variant::from_dir(&skill.dir, "the work tree")?;
    let view = |v: &Variant| Some(v.view(&skill.dir_name));
    let conditions = match &options.against {
        Against::Nothing => vec![
            condition("with_skill", &current.label, view(&current)),
            condition("without_skill", "no skill", None),
        ],
        Against::Revision(rev) => {
            let before = at_revision(env, skill, rev)?;
            vec![
                condition("new_skill", &current.label, view(&current)),
                condition("old_skill", rev, view(&before)),
            ]
        }
        Against::Candidate(file) => {
            let path = env.cwd.join(file);
            let text = crate::fsutil::read_to_string(&path)
                .map_err(|source| subject::ReadError { path, source })?;
            let candidate = Variant {
                label: file.display().to_string(),
                skill_md: text,
                files: current.files.clone(),
            };
            vec![
                condition("new_skill", &candidate.label, view(&candidate)),
                condition("old_skill", &current.label, view(&current)),
            ]
        }
    };

    let provider = crate::llm::provider(&options.settings);
    let describe = provider.describe().to_string();
    let dirs = prompt::override_dirs(
        &env.config,
        Some(repo.workdir()),
        &env.cwd,
        env.home.as_deref(),
    );
    let prompts = Prompts::load(&dirs)?;
    // A run is what it compares: the versions of the skill, the cases, the model (by provider
    // and name: the same model behind another address gives the same answers) and the
    // prompts (an edited override or a new git-skill asks again).
    let model = (provider.describe().provider, &provider.describe().model);
    let templates = template_fingerprint(&prompts)?;
    let store = RunDir::new(
        repo.git_dir(),
        &skill.dir_name,
        &(&conditions, &prepared, model, templates),
    );
    let planned = if options.fresh {
        prepared.len() * conditions.len() * 2
    } else {
        run::planned_calls(&prepared, &conditions, &store)
    };
    // Refused before anything is cleared or asked.
    if planned > options.max_calls {
        return Err(EvalError::Budget {
            planned,
            max: options.max_calls,
        });
    }
    if options.fresh {
        store.clear()?;
    }
    progress.progress(
        1,
        2,
        "plan",
        &format!(
            "{} x {} conditions: up to {planned} model calls ({describe})",
            crate::report::plural(prepared.len(), "case"),
            conditions.len()
        ),
    );
    progress.progress(
        2,
        2,
        "run",
        "the agent answers each case; a judge grades each answer",
    );
    let start = Instant::now();
    let results = run::run(
        provider.as_ref(),
        &prompts,
        &prepared,
        &conditions,
        &store,
        options.jobs.max(1),
        planned,
        progress,
    );
    let report = report(
        skill,
        &describe,
        &conditions,
        &prepared,
        results,
        planned,
        start,
        &store,
    );
    store.save_benchmark(&Benchmark::of(&report))?;
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

fn condition(name: &str, label: &str, skill: Option<crate::prompt::vars::EvalSkill>) -> Condition {
    Condition {
        name: name.to_owned(),
        label: label.to_owned(),
        skill,
    }
}

/// The skill as `rev` has it: its SKILL.md and the files of its folder there (evals aside).
fn at_revision(env: &Env, skill: &Skill, rev: &str) -> Result<Variant, EvalError> {
    let repo = env.require_repo("eval --against")?;
    let rel = repo
        .relative(&skill.dir)
        .ok_or_else(|| EvalError::Outside {
            skill: skill.dir_name.clone(),
        })?;
    let full = |path: &str| {
        if rel.is_empty() {
            path.to_owned()
        } else {
            format!("{rel}/{path}")
        }
    };
    let git = |source: GitError| EvalError::Revision {
        rev: rev.to_owned(),
        source,
    };
    let not_there = |reason: String| EvalError::NotAtRevision {
        rev: rev.to_owned(),
        path: full("SKILL.md"),
        reason,
    };
    let skill_md = match repo
        .regular_blob(At::Revision(rev), &full("SKILL.md"), SKILL_MD_READ_CAP)
        .map_err(git)?
    {
        RegularBlob::Regular(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        RegularBlob::Missing => return Err(not_there("there is no such file".into())),
        RegularBlob::Refused(reason) => return Err(not_there(reason)),
    };
    let prefix = if rel.is_empty() {
        String::new()
    } else {
        format!("{rel}/")
    };
    let listing = repo
        .list_under(At::Revision(rev), std::slice::from_ref(&rel))
        .map_err(git)?;
    let mut files = Vec::new();
    for entry in &listing.entries {
        let Some(path) = entry.path.strip_prefix(&prefix) else {
            continue;
        };
        // Only what that SKILL.md names is given to the agent (`Variant::view`).
        if path == "SKILL.md" || path.starts_with("evals/") || !skill_md.contains(path) {
            continue;
        }
        if let RegularBlob::Regular(bytes) = repo
            .regular_blob(At::Revision(rev), &entry.path, subject::FILES_BUDGET as u64)
            .map_err(git)?
        {
            files.push((path.to_owned(), bytes));
        }
    }
    Ok(Variant {
        label: rev.to_owned(),
        skill_md,
        files,
    })
}

#[allow(clippy::too_many_arguments)]
fn report(
    skill: &Skill,
    describe: &str,
    conditions: &[Condition],
    prepared: &[Prepared],
    results: Vec<(CaseId, String, Result<run::Outcome, RunError>)>,
    planned: usize,
    start: Instant,
    store: &RunDir,
) -> Report {
    let mut calls = 0;
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
                calls += outcome.calls;
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
        skill: skill.dir_name.clone(),
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
