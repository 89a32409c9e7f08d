//! `git skill lint`: every skill (or those named) against the skill format and git-skill's
//! limits, with the `lint:` levels of the work tree's policy.

use std::path::PathBuf;

use super::Skipped;
use crate::env::{Env, EnvError};
use crate::guard::suppress::{PolicyError, POLICY_FILE};
use crate::report::{Diagnostic, Level, Summary};
use crate::skill::{lint, SkillFiles};

#[derive(Debug, thiserror::Error)]
pub enum LintError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

pub struct Options {
    /// Skill directories, SKILL.md files or folders of skills; none: every skill of the roots.
    pub paths: Vec<PathBuf>,
    /// Warnings count as errors.
    pub strict: bool,
}

pub struct Linted {
    pub skipped: Vec<Skipped>,
    pub diagnostics: Vec<Diagnostic>,
    /// Each skill checked, as the user should see its directory.
    pub skills: Vec<PathBuf>,
    /// No skill anywhere (and none named).
    pub empty: bool,
}

impl Linted {
    pub fn summary(&self) -> Summary {
        Summary::of(self.skills.len(), &self.diagnostics)
    }

    pub fn fails(&self) -> bool {
        lint::has_errors(&self.diagnostics)
    }
}

pub fn lint(env: &Env, options: &Options) -> Result<Linted, LintError> {
    let (found, mut skipped) = super::walk(env, &options.paths, "lint")?;
    // The `lint:` levels of the work tree's policy file.
    let policy = match &env.repo {
        Some(repo) => crate::check::policy_file(&env.display(&repo.workdir().join(POLICY_FILE)))?,
        None => None,
    };
    let mut diagnostics = Vec::new();
    let mut skills = Vec::new();
    for skill in &found.skills {
        let files = match SkillFiles::read(&skill.dir) {
            Ok(files) => files,
            Err(e) => {
                skipped.push(Skipped::Unreadable(e));
                continue;
            }
        };
        let target = lint::Target {
            dir_name: &skill.dir_name,
            display_dir: env.display(&skill.dir),
            category: skill.category.as_deref(),
            written: false,
        };
        let mut found = lint::lint(&files, &target);
        if let (Some(policy), false) = (&policy, lint::is_auto_skill(&files)) {
            let name = files
                .skill_md
                .as_deref()
                .and_then(|b| crate::skill::meta::parse(b).ok())
                .and_then(|(m, _)| m.name)
                .unwrap_or_else(|| skill.dir_name.clone());
            policy.apply_lint(&name, &target.display_dir, &mut found);
        }
        if options.strict {
            for d in found.iter_mut().filter(|d| d.level == Level::Warning) {
                d.level = Level::Error;
            }
        }
        skills.push(target.display_dir.clone());
        diagnostics.extend(found);
    }
    Ok(Linted {
        skipped,
        diagnostics,
        empty: found.skills.is_empty() && options.paths.is_empty(),
        skills,
    })
}

/// The diagnostics as the one findings model has them (for SARIF), each path relative to the
/// top of the repository whatever the current directory (as shown outside a repository).
pub fn problems(env: &Env, diagnostics: &[Diagnostic]) -> Vec<crate::report::problem::Problem> {
    let relative = |shown: &std::path::Path| {
        let abs = env.cwd.join(shown);
        let rel = match &env.repo {
            Some(repo) => abs.strip_prefix(repo.workdir()).unwrap_or(shown),
            None => shown,
        };
        rel.to_string_lossy().replace('\\', "/")
    };
    crate::report::problem::from_lint(diagnostics, &relative)
}
