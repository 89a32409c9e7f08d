use std::io::Write as _;
use std::path::PathBuf;

use git_skill::check;
use git_skill::guard::suppress::POLICY_FILE;
use git_skill::report::{self, Diagnostic, Summary};
use git_skill::skill::{codes, lint, SkillFiles};

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Check SKILL.md files against the skill format and git-skill's limits.
///
/// Without PATH, checks every skill of the repository (in every skill root). A PATH may be a
/// skill directory, its SKILL.md, or any folder holding skills; it works outside repositories.
/// Errors break agents' loaders; warnings are portability and style problems. The limits on
/// support folders, file counts and sizes are errors only for skills git-skill writes and
/// skills marked `metadata.source: auto-skill` (see --explain SK011).
///
/// Exit status: 0 no errors (warnings allowed unless --strict), 1 errors found, 2 a path could
/// not be read or another error.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill lint\n  git skill lint .claude/skills/pdf --strict\n  git skill lint --format json\n  git skill lint --explain SK003"
)]
pub struct LintArgs {
    /// Skill directories, SKILL.md files or folders of skills (default: the repository's skills).
    pub paths: Vec<PathBuf>,

    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Print the long explanation of a lint code (SK001...) or name, and exit.
    #[arg(long, value_name = "CODE", conflicts_with_all = ["paths", "strict", "format", "roots"])]
    pub explain: Option<String>,

    /// Skill root to search instead of the configured ones (repeatable; like skill.roots).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<String>,
}

pub fn cmd_lint(ui: &mut Ui, args: LintArgs) -> Result<Outcome, CommandError> {
    if let Some(query) = &args.explain {
        return explain(ui, query);
    }
    let mut ws = Workspace::load(ui)?;
    ws.config.set_flag("roots", "--root", &args.roots);
    let found = ws.skills(ui, &args.paths, "lint")?;
    // The `lint:` levels of the work tree's policy file.
    let policy = match &ws.repo {
        Some(repo) => check::policy_file(&ws.display(&repo.workdir().join(POLICY_FILE)))?,
        None => None,
    };
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut checked = 0;
    for skill in &found.skills {
        let files = match SkillFiles::read(&skill.dir) {
            Ok(files) => files,
            Err(e) => {
                ui.error(&CommandError::from(e))?;
                continue;
            }
        };
        checked += 1;
        let target = lint::Target {
            dir_name: &skill.dir_name,
            display_dir: ws.display(&skill.dir),
            category: skill.category.as_deref(),
            written: false,
        };
        let mut found = lint::lint(&files, &target);
        if let (Some(policy), false) = (&policy, lint::is_auto_skill(&files)) {
            let name = files
                .skill_md
                .as_deref()
                .and_then(|b| git_skill::skill::meta::parse(b).ok())
                .and_then(|(m, _)| m.name)
                .unwrap_or_else(|| skill.dir_name.clone());
            policy.apply_lint(&name, &target.display_dir, &mut found);
        }
        if args.strict {
            for d in found
                .iter_mut()
                .filter(|d| d.level == report::Level::Warning)
            {
                d.level = report::Level::Error;
            }
        }
        diagnostics.extend(found);
    }
    let summary = Summary::of(checked, &diagnostics);
    let outcome = if lint::has_errors(&diagnostics) {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    let rendered = match args.format {
        Format::Json => report::render_json(&mut ui.out, &diagnostics, summary),
        Format::Text => report::render_text(&mut ui.out, &diagnostics, ui.out_style),
    }
    .and_then(|()| ui.out.flush());
    match rendered {
        // The reader left (`| head`): not an error, but the verdict stands, so a check piped
        // into a pager still fails when it found errors.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(outcome),
        other => other?,
    }
    if found.skills.is_empty() && args.paths.is_empty() {
        let roots: Vec<String> = ws.roots().iter().map(|r| r.label.clone()).collect();
        ui.status(&format!("no skills found (looked in {})", roots.join(", ")))?;
    } else if args.format == Format::Text {
        let mut line = summary_line(summary);
        if ui.had_error {
            line.push_str("; some paths could not be checked (see the errors above)");
        }
        ui.status(&line)?;
    }
    Ok(outcome)
}

fn summary_line(s: Summary) -> String {
    use git_skill::report::plural;
    if s.errors == 0 && s.warnings == 0 && s.skills > 0 {
        format!("{} checked, no problems", plural(s.skills, "skill"))
    } else {
        format!(
            "{} checked: {}, {}",
            plural(s.skills, "skill"),
            plural(s.errors, "error"),
            plural(s.warnings, "warning")
        )
    }
}

fn explain(ui: &mut Ui, query: &str) -> Result<Outcome, CommandError> {
    let Some(code) = codes::find(query) else {
        let known: Vec<&str> = codes::CODES.iter().map(|c| c.code).collect();
        return Err(CommandError::new(format!("unknown lint code '{query}'"))
            .hint(format!("known codes: {}", known.join(", "))));
    };
    writeln!(
        ui.out,
        "{} ({}, {}): {}\n",
        code.code,
        code.name,
        code.level.as_str(),
        code.summary
    )?;
    writeln!(ui.out, "{}", code.explanation)?;
    if let Some(policy) = codes::level_policy(code.code) {
        writeln!(ui.out, "\n{policy}")?;
    }
    Ok(Outcome::Clean)
}
