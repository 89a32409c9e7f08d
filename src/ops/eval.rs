//! `git skill eval <SKILL>`: the skill's eval cases (`evals/evals.json`), each run with the
//! skill and without it (or against another version of it: a revision, a candidate file),
//! graded by a judge model; the pass rates side by side, the results kept under
//! `$GIT_DIR/skill/evals/`, never in the work tree.

use std::path::PathBuf;

use crate::env::{Env, EnvError};
use crate::eval::cases::EVALS_JSON;
use crate::eval::compare::{self, Step};
use crate::eval::run::Condition;
use crate::eval::store::StoreError;
use crate::eval::subject::{self, Variant};
use crate::eval::suite::{self, SuiteError};
use crate::git::At;
use crate::llm::Settings;
use crate::progress::Progress;
use crate::prompt::{self, PromptError, Prompts};
use crate::skill::discover::Skill;

pub use crate::eval::compare::{CaseRow, Cell, Report, Summary};

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
    /// A real agent CLI answers each case in a directory of its own (`--runner`), instead of
    /// the configured model; the model still grades.
    pub runner: Option<crate::llm::agent_run::AgentRun>,
    /// Let a runner do the cases of a skill SkillGuard calls dangerous (`--allow-dangerous`):
    /// for a person's own skill, never one an agent wrote.
    pub allow_dangerous: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error("the skill '{skill}' has no {EVALS_JSON}")]
    NoEvals { skill: String },
    #[error(transparent)]
    Suite(#[from] SuiteError),
    #[error(transparent)]
    Read(#[from] subject::ReadError),
    #[error("the skill '{skill}' is not inside the repository")]
    Outside { skill: String },
    #[error(transparent)]
    Revision(#[from] subject::RevisionError),
    #[error("this run needs up to {planned} model calls, more than skill.evalMaxCalls ({max})")]
    Budget { planned: usize, max: usize },
    #[error(
        "{runner} would run {label} of '{skill}', which SkillGuard calls dangerous: {findings}"
    )]
    Dangerous {
        runner: &'static str,
        skill: String,
        label: String,
        findings: String,
        /// The skill is marked as an agent's (`source: auto-skill`): no flag runs it.
        agent_written: bool,
    },
    #[error(transparent)]
    Prompt(#[from] PromptError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Runs the eval. `progress` hears the plan before any call, then the calls as they go.
pub fn eval(
    env: &Env,
    skill: &Skill,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Report, EvalError> {
    let repo = env.require_repo("eval")?;
    let shown = |p: &std::path::Path| env.display(p);
    let prepared = suite::load(&skill.dir, &shown)?.ok_or_else(|| EvalError::NoEvals {
        skill: skill.dir_name.clone(),
    })?;

    let current = Variant::from_dir(&skill.dir, "the work tree")?;
    let view = |v: &Variant| Some(v.view(&skill.dir_name));
    let conditions = match &options.against {
        Against::Nothing => vec![
            condition("with_skill", &current.label, view(&current)),
            condition("without_skill", "no skill", None),
        ],
        Against::Revision(rev) => {
            let before = at_revision(env, skill, rev)?;
            let mut old = condition("old_skill", rev, view(&before));
            if options.runner.is_some() {
                let rel = repo.relative(&skill.dir).unwrap_or_default();
                old.folder = subject::folder_at(repo, &rel, At::Revision(rev))?;
            }
            vec![condition("new_skill", &current.label, view(&current)), old]
        }
        Against::Candidate(file) => {
            let path = env.cwd.join(file);
            let text = crate::fsutil::read_to_string(&path)
                .map_err(|source| subject::ReadError { path, source })?;
            let candidate = Variant::from_dir_with(&skill.dir, &file.display().to_string(), &text)?;
            vec![
                condition("new_skill", &candidate.label, view(&candidate)),
                condition("old_skill", &current.label, view(&current)),
            ]
        }
    };

    // An agent CLI gets the skill's whole folder as the work tree has it (a revision's is read
    // above); its SKILL.md is the condition's.
    let mut conditions = conditions;
    if options.runner.is_some() {
        let here = subject::folder_from_dir(&skill.dir)?;
        for c in conditions.iter_mut() {
            if c.skill.is_some() && c.folder.is_empty() {
                c.folder = here.clone();
            }
        }
    }

    // An agent CLI runs the skill's instructions and scripts with the person's rights: not a
    // skill the guard calls dangerous (one from a pull request, say).
    if let Some(runner) = &options.runner {
        let policy = crate::check::policy_at(repo, At::Head).ok().flatten();
        for c in &conditions {
            let Some(view) = &c.skill else { continue };
            let judged = judge(skill, view, &c.folder, &prepared, policy.as_ref());
            if !judged.verdict_blocks(crate::config::FailOn::Dangerous) && !judged.unchecked() {
                continue;
            }
            let mut findings: Vec<String> = judged
                .check
                .report
                .findings
                .iter()
                .filter(|f| f.suppressed.is_none() && f.severity >= crate::guard::Severity::High)
                .map(|f| format!("{} {}:{}", f.rule, f.file, f.line))
                .collect();
            findings.extend(
                judged
                    .check
                    .report
                    .errors
                    .iter()
                    .map(|e| format!("not read: {e}")),
            );
            let agent_written =
                crate::skill::meta::parse(view.text.as_bytes()).is_ok_and(|(m, _)| m.auto_skill);
            if options.allow_dangerous && !agent_written {
                progress.warn(&format!(
                    "--allow-dangerous: {} runs {} of '{}', which SkillGuard calls dangerous ({})",
                    runner.runner.as_str(),
                    c.label,
                    skill.dir_name,
                    findings.join(", ")
                ));
                continue;
            }
            return Err(EvalError::Dangerous {
                runner: runner.runner.as_str(),
                skill: skill.dir_name.clone(),
                label: c.label.clone(),
                findings: findings.join(", "),
                agent_written,
            });
        }
    }

    // A runner's folder gets the skill, never an agent's configuration it ships.
    for c in conditions.iter_mut() {
        for left in crate::eval::placed::without_agent_config(&mut c.folder) {
            progress.warn(&format!(
                "{}: left out of the runner's copy of the skill: {left}",
                c.label
            ));
        }
    }

    let provider = crate::llm::provider(&options.settings);
    let dirs = prompt::override_dirs(
        &env.config,
        Some(repo.workdir()),
        &env.cwd,
        env.home.as_deref(),
    );
    let prompts = Prompts::load(&dirs)?;
    let planned = compare::plan(
        repo.git_dir(),
        &skill.dir_name,
        &prepared,
        &conditions,
        provider.as_ref(),
        &prompts,
        options.fresh,
        options.runner.as_ref(),
    )?;
    // Refused before anything is cleared or asked.
    if planned.calls > options.max_calls {
        return Err(EvalError::Budget {
            planned: planned.calls,
            max: options.max_calls,
        });
    }
    if options.fresh {
        planned.store.clear()?;
    }
    progress.progress(
        1,
        2,
        "plan",
        &format!(
            "{} x {} conditions: up to {} calls ({}{})",
            crate::report::plural(prepared.len(), "case"),
            conditions.len(),
            planned.calls,
            options
                .runner
                .as_ref()
                .map(|r| format!("{} does each case, graded by ", r.runner.as_str()))
                .unwrap_or_default(),
            planned.model
        ),
    );
    progress.progress(
        2,
        2,
        "run",
        "the agent answers each case; a judge grades each answer",
    );
    let step = Step {
        n: 2,
        of: 2,
        name: "run",
        deadline: None,
    };
    // The budget bounds what is sent, not only what was planned: repair requests and retries
    // take from it, and the report counts every request made.
    let budget = crate::llm::budget::Budget::new(options.max_calls, "skill.evalMaxCalls");
    Ok(compare::execute(
        &skill.dir_name,
        provider.as_ref(),
        &budget,
        &prompts,
        &prepared,
        &conditions,
        &planned,
        options.jobs,
        step,
        progress,
    )?)
}

/// What a runner is given of a condition (the skill's SKILL.md and folder, the cases and their
/// input files), judged by the one gate as what an agent wrote is: the skill may come from a
/// pull request, so no allow comment in it counts and quoted examples are not demoted; the
/// repository's own policy does.
fn judge(
    skill: &Skill,
    view: &crate::prompt::vars::EvalSkill,
    folder: &[subject::FolderFile],
    prepared: &[crate::eval::run::Prepared],
    policy: Option<&crate::guard::suppress::Policy>,
) -> crate::check::gate::Judged {
    use crate::check::{self, Snapshot};
    let text = view.text.as_bytes().to_vec();
    let mut blobs = std::collections::HashMap::new();
    blobs.insert("SKILL.md".to_owned(), text.clone());
    let mut snapshot = Snapshot::from_blobs(
        skill.dir_name.clone(),
        skill.dir_name.clone(),
        String::new(),
        None,
        crate::skill::SkillFiles::with_skill_md(text),
        blobs,
    );
    let extra: Vec<(&str, &[u8])> = if folder.is_empty() {
        view.files
            .iter()
            .map(|f| (f.path.as_str(), f.text.as_bytes()))
            .collect()
    } else {
        folder
            .iter()
            .map(|(p, b, _)| (p.as_str(), b.as_slice()))
            .collect()
    };
    let cases = crate::fsutil::read_regular(
        &skill.dir.join(EVALS_JSON),
        crate::eval::cases::MAX_EVALS_BYTES as u64,
    )
    .ok()
    .flatten();
    let inputs = prepared.iter().flat_map(|p| {
        p.inputs
            .iter()
            .map(|(path, b)| (path.as_str(), b.as_slice()))
    });
    let cases = cases.as_deref().map(|b| (EVALS_JSON, b));
    for (path, bytes) in extra.into_iter().chain(inputs).chain(cases) {
        snapshot = snapshot.with_file(path, bytes.to_vec());
    }
    let gate = check::Gate::new(
        check::Writer::Agent,
        policy,
        crate::config::FailOn::Dangerous,
        crate::clock::now().date_naive(),
    );
    let change = check::Change {
        before: None,
        after: snapshot,
        display: skill.dir.clone(),
    };
    check::gate::decide(std::slice::from_ref(&change), &gate, 1)
        .skills
        .remove(0)
}

fn condition(name: &str, label: &str, skill: Option<crate::prompt::vars::EvalSkill>) -> Condition {
    Condition {
        name: name.to_owned(),
        label: label.to_owned(),
        skill,
        folder: Vec::new(),
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
    Ok(Variant::at(repo, &rel, At::Revision(rev), rev)?)
}
