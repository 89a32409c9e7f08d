use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use git_skill::config::FailOn;
use git_skill::guard::suppress::{Baseline, BaselineEntry, Policy, POLICY_FILE};
use git_skill::guard::{self, ScanOptions};
use git_skill::report::sarif;
use git_skill::report::scan::{self as render, SkillReport};

use super::{CommandError, Outcome, ResultExt as _, Ui, Workspace};

/// Scan skills for dangerous content: exfiltration, prompt injection, destructive commands,
/// persistence, obfuscated payloads, leaked credentials, hidden text and more.
///
/// Without PATH, scans every skill of the repository. A PATH may be a skill directory, a skill
/// root or any folder of skills. Each skill gets a verdict: `dangerous` (an unsuppressed
/// critical finding), `caution` (a high one) or `safe`. `git skill rules` lists the rules.
///
/// Suppressions, each with a reason and still shown as suppressed: `git-skill:allow RULE --
/// reason` in a comment on the line or the line above; entries in `.skillguard.yaml` at the top
/// of the repository; a baseline file (--baseline).
///
/// Exit status: 0 no skill at or above the fail level, 1 at least one is, 2 an error (a path or
/// file that could not be read, a malformed policy: a scan never passes by not looking).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill scan\n  git skill scan .claude/skills/pdf --format json\n  git skill scan --fail-on caution --format sarif > skillguard.sarif\n  git skill scan --write-baseline .skillguard-baseline.json"
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

    /// Ignore `git-skill:allow` comments in the scanned files (for CI policies).
    #[arg(long)]
    pub no_inline_allow: bool,

    /// Findings recorded in this baseline file count as suppressed.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,

    /// Record every current (unsuppressed) finding in FILE as accepted, and exit 0.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,

    /// Policy file [default: .skillguard.yaml at the top of the repository].
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,

    /// Skills scanned in parallel [default: the number of cores].
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Range mode (CI): scan only the skills changed since this revision, at --to-ref
    /// [env: PRE_COMMIT_FROM_REF].
    #[arg(
        long,
        value_name = "REV",
        requires = "to_ref",
        conflicts_with = "paths"
    )]
    pub from_ref: Option<String>,

    /// The revision whose content is scanned in range mode [env: PRE_COMMIT_TO_REF].
    #[arg(long, value_name = "REV", requires = "from_ref")]
    pub to_ref: Option<String>,

    /// Skill root to search instead of the configured ones (repeatable; like skill.roots).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScanFormat {
    Text,
    Json,
    Sarif,
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
    let policy_path = args
        .policy
        .clone()
        .or_else(|| ws.repo.as_ref().map(|r| r.workdir().join(POLICY_FILE)));
    let policy = match &policy_path {
        Some(path) => Policy::load(path)
            .hint("fix the policy file; every entry needs a known rule and a reason")?,
        None => None,
    };
    if let (Some(path), None) = (&args.policy, &policy) {
        return Err(CommandError::new(format!(
            "policy file '{}' does not exist",
            path.display()
        )));
    }
    let baseline = match &args.baseline {
        Some(path) => Some(Baseline::load(path).hint("create one with --write-baseline FILE")?),
        None => None,
    };
    let options = ScanOptions {
        inline_allow: !args.no_inline_allow,
    };
    let env_ref = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let range = match (args.from_ref.clone(), args.to_ref.clone()) {
        (Some(from), Some(to)) => Some((from, to)),
        _ if args.paths.is_empty() => {
            env_ref("PRE_COMMIT_FROM_REF").zip(env_ref("PRE_COMMIT_TO_REF"))
        }
        _ => None,
    };
    if let Some((from, to)) = range {
        return scan_range(ui, &ws, &args, fail_on, options, &from, &to);
    }
    let found = ws.skills(ui, &args.paths)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let dirs: Vec<PathBuf> = found.skills.iter().map(|s| s.dir.clone()).collect();
    let scanned = guard::parallel::scan_dirs(&dirs, options, jobs);

    let today = chrono::Utc::now().date_naive();
    let mut reports = Vec::new();
    for (skill, result) in found.skills.iter().zip(scanned) {
        let (name, mut scan) = match result {
            Ok(r) => (r.name.unwrap_or_else(|| skill.dir_name.clone()), r.scan),
            Err(e) => {
                ui.error(&CommandError::from(e))?;
                continue;
            }
        };
        if let Some(policy) = &policy {
            for expired in policy.apply(&name, &mut scan.findings, today) {
                ui.warn(&format!(
                    "{POLICY_FILE}: the entry for {} ({}) expired on {} and no longer applies",
                    expired.rule,
                    expired.skill.as_deref().unwrap_or("any skill"),
                    expired.expires
                ))?;
            }
        }
        if let Some(baseline) = &baseline {
            baseline.apply(&name, &mut scan.findings);
        }
        for e in &scan.errors {
            ui.error(&CommandError::new(format!(
                "{}: {e}",
                ws.display(&skill.dir).display()
            )))?;
        }
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

    if let Some(path) = &args.write_baseline {
        write_baseline(path, &reports)?;
        let n: usize = reports
            .iter()
            .map(|r| r.findings.iter().filter(|f| f.suppressed.is_none()).count())
            .sum();
        ui.status(&format!(
            "wrote {n} findings to '{}'; scan with --baseline {} to accept them",
            path.display(),
            path.display()
        ))?;
        return Ok(Outcome::Clean);
    }

    let empty = found.skills.is_empty() && args.paths.is_empty();
    finish(ui, &args, fail_on, &reports, empty)
}

/// Renders the reports and decides the exit status.
fn finish(
    ui: &mut Ui,
    args: &ScanArgs,
    fail_on: FailOn,
    reports: &[SkillReport],
    empty: bool,
) -> Result<Outcome, CommandError> {
    let failing = reports.iter().any(|r| fail_on.fails(r.verdict));
    let outcome = if failing {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    let rendered = match args.format {
        ScanFormat::Text => render::render_text(&mut ui.out, reports, ui.out_style),
        ScanFormat::Json => render::render_json(&mut ui.out, reports),
        ScanFormat::Sarif => sarif::render_sarif(&mut ui.out, reports),
        ScanFormat::Junit => render::render_junit(&mut ui.out, reports),
    }
    .and_then(|()| ui.out.flush());
    match rendered {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(outcome),
        other => other?,
    }
    if args.format == ScanFormat::Text {
        let s = render::summarize(reports);
        if empty {
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

/// Range mode: the skills changed between two revisions, at their content in the second,
/// read from git objects.
fn scan_range(
    ui: &mut Ui,
    ws: &Workspace,
    args: &ScanArgs,
    fail_on: FailOn,
    options: ScanOptions,
    from: &str,
    to: &str,
) -> Result<Outcome, CommandError> {
    let Some(repo) = &ws.repo else {
        return Err(CommandError::new("range mode needs a git repository")
            .hint("run inside the repository, or drop --from-ref/--to-ref"));
    };
    let roots = ws.repo_relative_roots();
    let skills = git_skill::staged::changed_between_revisions(repo, from, to, &roots)
        .hint("check that both revisions exist here (CI checkouts may need fetch-depth: 0)")?;
    let policy = policy_from(repo.file_at(to, POLICY_FILE)?, &format!("at {to}"))?;
    let today = chrono::Utc::now().date_naive();
    let mut reports = Vec::new();
    for skill in &skills {
        let scan = guard::scan_skill(&skill.files, &|rel| skill.read(rel), options);
        let display = ws.display(&repo.workdir().join(&skill.dir));
        let report = staged_report(skill, &display, scan, policy.as_ref(), today);
        for e in &report.errors {
            ui.error(&CommandError::new(format!("{}: {e}", report.path)))?;
        }
        reports.push(report);
    }
    if args.format == ScanFormat::Text && skills.is_empty() {
        ui.status(&format!("no skill changed between {from} and {to}"))?;
        return Ok(Outcome::Clean);
    }
    let outcome = finish(ui, args, fail_on, &reports, false)?;
    if args.format == ScanFormat::Text {
        // What a reviewer wants first: what the changed skills can do now.
        let drifts = super::diff::drift_report(ws, from, Some(to))?;
        if !drifts.is_empty() {
            writeln!(ui.out, "\ncapability drift ({from}..{to}):")?;
            super::diff::render_text(&mut ui.out, &drifts)?;
            ui.out.flush()?;
        }
    }
    Ok(outcome)
}

/// The policy file's content at some revision (`place`, for the error: "at HEAD",
/// "(staged)"), parsed; `None` when there is none.
pub(super) fn policy_from(
    bytes: Option<Vec<u8>>,
    place: &str,
) -> Result<Option<Policy>, CommandError> {
    let Some(bytes) = bytes else {
        return Ok(None);
    };
    Policy::parse(&String::from_utf8_lossy(&bytes))
        .map(Some)
        .map_err(|m| {
            CommandError::new(format!(
                "'{POLICY_FILE}' {place} is not a valid policy: {m}"
            ))
        })
}

/// The report of a skill scanned at a revision (or staged), with the policy applied.
pub(super) fn staged_report(
    skill: &git_skill::staged::StagedSkill,
    display: &Path,
    mut scan: guard::SkillScan,
    policy: Option<&Policy>,
    today: chrono::NaiveDate,
) -> SkillReport {
    let name = skill.name();
    if let Some(policy) = policy {
        policy.apply(&name, &mut scan.findings, today);
    }
    SkillReport {
        name,
        path: display.display().to_string(),
        repo_path: skill.dir.clone(),
        verdict: scan.verdict(),
        errors: scan.errors.clone(),
        findings: scan.findings,
    }
}

fn write_baseline(path: &Path, reports: &[SkillReport]) -> Result<(), CommandError> {
    let mut baseline = Baseline {
        version: 1,
        findings: Vec::new(),
    };
    for r in reports {
        for f in r.findings.iter().filter(|f| f.suppressed.is_none()) {
            baseline.findings.push(BaselineEntry {
                skill: r.name.clone(),
                rule: f.rule.to_owned(),
                file: f.file.clone(),
                fingerprint: f.fingerprint.clone(),
            });
        }
    }
    baseline.findings.sort_by(|a, b| {
        (&a.skill, &a.file, &a.rule, &a.fingerprint).cmp(&(
            &b.skill,
            &b.file,
            &b.rule,
            &b.fingerprint,
        ))
    });
    baseline.findings.dedup();
    let mut text =
        serde_json::to_string_pretty(&baseline).context("could not encode the baseline")?;
    text.push('\n');
    git_skill::fsutil::write_atomic(path, text.as_bytes())
        .with_context(|| format!("could not write '{}'", path.display()))?;
    Ok(())
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
