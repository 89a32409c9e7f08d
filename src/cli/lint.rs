use std::io::Write as _;
use std::path::PathBuf;

use git_skill::ops::lint as op;
use git_skill::report::{self, sarif, Diagnostic, Summary};
use git_skill::skill::codes;

use super::output::ReportFormat;
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
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

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
    let options = op::Options {
        paths: args.paths.clone(),
        strict: args.strict,
    };
    let mut linted = op::lint(&ws, &options)?;
    ws.report_skipped(ui, std::mem::take(&mut linted.skipped))?;
    let summary = linted.summary();
    let outcome = if linted.fails() {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    let diagnostics = &linted.diagnostics;
    let rendered = match args.format {
        ReportFormat::Json => report::render_json(&mut ui.out, diagnostics, summary),
        ReportFormat::Text => report::render_text(&mut ui.out, diagnostics, ui.out_style),
        ReportFormat::Sarif => sarif::render(
            &mut ui.out,
            &codes::infos(),
            &op::problems(&ws, diagnostics),
        ),
        ReportFormat::Junit => junit(&mut ui.out, &linted),
        ReportFormat::Github => {
            git_skill::report::github::lint_annotations(&mut ui.out, diagnostics)
        }
    }
    .and_then(|()| ui.out.flush());
    match rendered {
        // The reader left (`| head`): not an error, but the verdict stands, so a check piped
        // into a pager still fails when it found errors.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(outcome),
        other => other?,
    }
    if linted.empty {
        let roots: Vec<String> = ws.roots().iter().map(|r| r.label.clone()).collect();
        ui.status(&format!("no skills found (looked in {})", roots.join(", ")))?;
    } else if args.format == ReportFormat::Text {
        let mut line = summary_line(summary);
        if ui.had_error {
            line.push_str("; some paths could not be checked (see the errors above)");
        }
        ui.status(&line)?;
    }
    Ok(outcome)
}

/// One test case per skill, failing with its errors.
fn junit(out: &mut dyn std::io::Write, linted: &op::Linted) -> std::io::Result<()> {
    use git_skill::report::junit::{Case, Failure};
    let cases: Vec<Case> = linted
        .skills
        .iter()
        .map(|dir| {
            let errors: Vec<&Diagnostic> = linted
                .diagnostics
                .iter()
                .filter(|d| d.level == report::Level::Error && d.path.starts_with(dir))
                .collect();
            let body = errors
                .iter()
                .map(|d| {
                    let at = match (d.line, d.column) {
                        (Some(l), Some(c)) => format!(":{l}:{c}"),
                        (Some(l), None) => format!(":{l}"),
                        _ => String::new(),
                    };
                    format!("{}{at} error {} {}\n", d.path.display(), d.code, d.message)
                })
                .collect();
            Case {
                name: dir.display().to_string(),
                failure: (!errors.is_empty()).then(|| Failure {
                    message: git_skill::report::plural(errors.len(), "lint error"),
                    kind: "error".into(),
                    body,
                }),
            }
        })
        .collect();
    git_skill::report::junit::render(out, "git-skill lint", "lint", &cases)
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
    if code.code == codes::INVALID_LINT_ALLOW {
        writeln!(ui.out, "\nIt cannot be silenced: fix the comment.")?;
    } else {
        writeln!(
            ui.out,
            "\nTo silence it in one skill, with a reason, a comment in its SKILL.md (turns it off there):\n\n    <!-- git-skill:allow-lint {code} -- why -->\n\nTo set its level for some or all skills, an entry in .skillguard.yaml at the top of the\nrepository:\n\n    lint:\n      - code: {code}\n        level: warning      # or off, or error\n        skill: my-skill     # optional\n        path: \"forms/**\"    # optional: a glob over the file\n        reason: why",
            code = code.code
        )?;
    }
    Ok(Outcome::Clean)
}
