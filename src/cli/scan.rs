use std::io::Write as _;
use std::path::PathBuf;

use git_skill::config::FailOn;
use git_skill::guard::{self, Verdict};
use git_skill::report::scan::{self as render, SkillReport};
use git_skill::skill::{meta, SkillFiles};

use super::{CommandError, Outcome, Ui, Workspace};

/// Scan skills for dangerous content: exfiltration, prompt injection, destructive commands,
/// persistence, obfuscated payloads, leaked credentials, hidden text and more.
///
/// Without PATH, scans every skill of the repository. A PATH may be a skill directory, a skill
/// root or any folder of skills. Each skill gets a verdict: `dangerous` (a critical finding),
/// `caution` (a high one) or `safe`. `git skill rules` lists the rules.
///
/// Exit status: 0 no skill at or above the fail level, 1 at least one is, 2 an error (a path or
/// file that could not be read: a scan never passes by not looking).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill scan\n  git skill scan .claude/skills/pdf --format json\n  git skill scan --fail-on caution --format sarif > skillguard.sarif"
)]
pub struct ScanArgs {
    /// Skill directories, roots or folders of skills (default: the repository's skills).
    pub paths: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ScanFormat::Text)]
    pub format: ScanFormat,

    /// Verdict that fails the scan [default: skill.failOn, or dangerous].
    #[arg(long, value_name = "VERDICT", value_parser = ["dangerous", "caution", "never"])]
    pub fail_on: Option<String>,

    /// Skill root to search instead of the configured ones (repeatable; like skill.roots).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScanFormat {
    Text,
    Json,
    Junit,
}

pub fn cmd_scan(ui: &mut Ui, args: ScanArgs) -> Result<Outcome, CommandError> {
    let mut ws = Workspace::load(ui)?;
    ws.config.set_flag("roots", "--root", &args.roots);
    if let Some(fail_on) = &args.fail_on {
        ws.config
            .set_flag("failOn", "--fail-on", std::slice::from_ref(fail_on));
    }
    let fail_on = ws.config.fail_on()?;
    let found = ws.skills(ui, &args.paths)?;
    let mut reports = Vec::new();
    for skill in &found.skills {
        let files = match SkillFiles::read(&skill.dir) {
            Ok(files) => files,
            Err(e) => {
                ui.error(&CommandError::from(e))?;
                continue;
            }
        };
        let dir = skill.dir.clone();
        let scan = guard::scan_skill(&files, &|rel| std::fs::read(dir.join(rel)));
        for e in &scan.errors {
            ui.error(&CommandError::new(format!(
                "{}: {e}",
                ws.display(&skill.dir).display()
            )))?;
        }
        let name = files
            .skill_md
            .as_deref()
            .and_then(|b| meta::parse(b).ok())
            .and_then(|(m, _)| m.name)
            .unwrap_or_else(|| skill.dir_name.clone());
        let display = ws.display(&skill.dir).display().to_string();
        let repo_path = match &ws.repo {
            Some(repo) => skill
                .dir
                .strip_prefix(repo.workdir())
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_else(|_| display.clone()),
            None => display.clone(),
        };
        reports.push(SkillReport {
            name,
            path: display,
            repo_path,
            verdict: scan.verdict(),
            errors: scan.errors.clone(),
            findings: scan.findings,
        });
    }
    let failing = reports.iter().any(|r| match fail_on {
        FailOn::Dangerous => r.verdict == Verdict::Dangerous,
        FailOn::Caution => r.verdict >= Verdict::Caution,
        FailOn::Never => false,
    });
    let outcome = if failing {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    let rendered = match args.format {
        ScanFormat::Text => render::render_text(&mut ui.out, &reports, ui.out_style),
        ScanFormat::Json => render::render_json(&mut ui.out, &reports),
        ScanFormat::Junit => render::render_junit(&mut ui.out, &reports),
    }
    .and_then(|()| ui.out.flush());
    match rendered {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(outcome),
        other => other?,
    }
    if args.format == ScanFormat::Text {
        let s = render::summarize(&reports);
        if found.skills.is_empty() && args.paths.is_empty() {
            ui.status("no skills found")?;
        } else {
            ui.status(&format!(
                "{} scanned: {} dangerous, {} caution, {} safe ({} findings, {} suppressed)",
                plural(s.skills, "skill"),
                s.dangerous,
                s.caution,
                s.safe,
                s.findings,
                s.suppressed
            ))?;
        }
    }
    Ok(outcome)
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
