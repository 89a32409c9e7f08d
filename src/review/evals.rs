//! The evidence a review's proposal carries: for each skill it changes that has eval cases,
//! the cases run on the skill at HEAD and as the proposal leaves it, answered and graded as
//! `git skill eval` does. A person reads the result in the proposal's message (`Evals:`
//! trailers, shown by `git skill proposals show`) before accepting it; nothing is refused
//! here, and what could not be run says why.

use std::path::Path;

use serde::Serialize;

use super::SkillResult;
use crate::eval::compare::{self, Step};
use crate::eval::run::Condition;
use crate::eval::subject::Variant;
use crate::eval::suite;
use crate::git::{At, FileChange, Repo};
use crate::llm::Provider;
use crate::progress::Progress;
use crate::prompt::Prompts;

/// One skill's result, as its trailer says it: `Evals: <path> <text>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvalLine {
    pub path: String,
    /// `2/3 -> 3/3 passed`, with `; REGRESSION in case 2` when one broke, or why none ran.
    pub text: String,
}

/// How much evidence a review may buy.
pub struct Limits {
    /// `skill.evalMaxCalls`, for all the skills of the proposal together.
    pub max_calls: usize,
    /// Cases at once (`skill.parallel`).
    pub jobs: usize,
    /// The review's end (`skill.autoSkill.timeout`): no skill's cases start after it.
    pub deadline: std::time::Instant,
}

/// Runs the eval cases of each skill the review changed (a skill it created has no version
/// to compare with). `changes` are the proposal's files, from the top of the repository.
pub fn run(
    repo: &Repo,
    provider: &dyn Provider,
    prompts: &Prompts,
    skills: &[SkillResult],
    changes: &[FileChange],
    limits: &Limits,
    progress: &mut dyn Progress,
) -> Vec<EvalLine> {
    let mut left = limits.max_calls;
    let mut out = Vec::new();
    for skill in skills.iter().filter(|s| s.change != "created") {
        let text = match one(
            repo, provider, prompts, skill, changes, limits, &mut left, progress,
        ) {
            Ok(Some(text)) => text,
            Ok(None) => continue,
            Err(why) => format!("not run: {why}"),
        };
        // Committed in the proposal's message: no local path, one short line.
        let top = format!("{}/", repo.workdir().display());
        let text: String = crate::redact::redact(&text)
            .replace(&top, "")
            .chars()
            .take(200)
            .collect();
        out.push(EvalLine {
            path: skill.path.clone(),
            text,
        });
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn one(
    repo: &Repo,
    provider: &dyn Provider,
    prompts: &Prompts,
    skill: &SkillResult,
    changes: &[FileChange],
    limits: &Limits,
    left: &mut usize,
    progress: &mut dyn Progress,
) -> Result<Option<String>, String> {
    let dir = repo.workdir().join(&skill.path);
    let shown = |p: &Path| repo.relative(p).map_or_else(|| p.to_owned(), Into::into);
    let Some(prepared) = suite::load(&dir, &shown).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    if crate::clock::monotonic() >= limits.deadline {
        return Err("the review's time (skill.autoSkill.timeout) was spent".into());
    }
    let before = Variant::at(repo, &skill.path, At::Head, "HEAD").map_err(|e| e.to_string())?;
    // The files HEAD has that the proposal's SKILL.md names, then the proposal's over them.
    let new_md = changes
        .iter()
        .find(|c| c.path == format!("{}/SKILL.md", skill.path))
        .and_then(|c| c.content.as_deref())
        .map(|b| String::from_utf8_lossy(b).into_owned());
    let base = match &new_md {
        Some(text) => Variant::at_naming(repo, &skill.path, At::Head, "HEAD", text)
            .map_err(|e| e.to_string())?,
        None => before.clone(),
    };
    let after = proposed(&base, &skill.path, changes);
    let conditions = Condition::versions(&after, &before, &skill.name);
    let plan = compare::plan(
        repo.git_dir(),
        &skill.name,
        &prepared,
        &conditions,
        provider,
        prompts,
        false,
        None,
    )
    .map_err(|e| e.to_string())?;
    if plan.calls > *left {
        return Err(format!(
            "its {} need up to {} model calls, more than skill.evalMaxCalls leaves ({})",
            crate::report::plural(prepared.len(), "case"),
            plan.calls,
            left
        ));
    }
    // What the run may spend is what is left: its repairs and retries count too.
    let budget = crate::llm::budget::Budget::new(*left, "skill.evalMaxCalls");
    let step = Step {
        n: 1,
        of: 1,
        name: "evals",
        deadline: Some(limits.deadline),
    };
    let report = compare::execute(
        &skill.name,
        provider,
        &budget,
        prompts,
        &prepared,
        &conditions,
        &plan,
        limits.jobs,
        step,
        progress,
    )
    .map_err(|e| {
        *left = left.saturating_sub(budget.sent() as usize);
        e.to_string()
    })?;
    *left = left.saturating_sub(report.calls as usize);
    if report.errors > 0 {
        return Err(format!(
            "{} could not be graded",
            crate::report::plural(report.errors, "answer")
        ));
    }
    let rate = |name: &str| {
        report
            .conditions
            .iter()
            .find(|c| c.name == name)
            .map_or("-".to_owned(), |c| format!("{}/{}", c.passed, c.graded))
    };
    let mut text = format!("{} -> {} passed", rate("old_skill"), rate("new_skill"));
    let broken: Vec<String> = report
        .regressions()
        .iter()
        .map(|row| row.id.to_string())
        .collect();
    if !broken.is_empty() {
        text.push_str(&format!("; REGRESSION in case {}", broken.join(", ")));
    }
    Ok(Some(text))
}

/// The skill as the proposal leaves it: HEAD's version with the proposal's files over it.
fn proposed(before: &Variant, rel: &str, changes: &[FileChange]) -> Variant {
    let mut after = Variant {
        label: "the proposal".into(),
        ..before.clone()
    };
    let prefix = format!("{rel}/");
    for change in changes {
        let Some(path) = change.path.strip_prefix(&prefix) else {
            continue;
        };
        if path == "SKILL.md" {
            if let Some(bytes) = &change.content {
                after.skill_md = String::from_utf8_lossy(bytes).into_owned();
            }
            continue;
        }
        after.files.retain(|(p, _)| p != path);
        if let Some(bytes) = &change.content {
            after.files.push((path.to_owned(), bytes.clone()));
        }
    }
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proposal_is_head_with_its_files_over_it() {
        let before = Variant {
            label: "HEAD".into(),
            skill_md: "old".into(),
            files: vec![
                ("references/a.md".into(), b"a".to_vec()),
                ("references/gone.md".into(), b"g".to_vec()),
            ],
        };
        let changes = [
            FileChange::write("skills/x/SKILL.md", "new"),
            FileChange::write("skills/x/references/a.md", "a2"),
            FileChange::delete("skills/x/references/gone.md"),
            FileChange::write("skills/xy/SKILL.md", "another skill"),
        ];
        let after = proposed(&before, "skills/x", &changes);
        assert_eq!(after.skill_md, "new");
        assert_eq!(after.label, "the proposal");
        assert_eq!(
            after.files,
            vec![("references/a.md".into(), b"a2".to_vec())]
        );
    }
}
