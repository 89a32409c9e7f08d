use std::io::Write as _;
use std::path::PathBuf;

use git_skill::config::FailOn;
use git_skill::guard::suppress::POLICY_FILE;
use git_skill::guard::ScanOptions;
use git_skill::ops::scan::{self as op, Problem};
use git_skill::report::sarif;
use git_skill::report::scan as render;

use super::output::ReportFormat;
use super::{CommandError, Outcome, Ui, Workspace};

/// Scan skills for dangerous content: exfiltration, prompt injection, destructive commands,
/// persistence, obfuscated payloads, leaked credentials, hidden text and more.
///
/// Without PATH, scans every skill of the repository and the agent context beside them
/// (`CLAUDE.md`, `AGENTS.md`, slash commands, hook commands and MCP servers in agents'
/// settings). A PATH may be a skill directory, a skill root, any folder of skills or an agent
/// context file. Each gets a verdict: `dangerous` (an unsuppressed critical finding), `caution`
/// (a high one) or `safe`. `git skill rules` lists the rules.
///
/// Suppressions, each with a reason and still shown as suppressed: `git-skill:allow RULE --
/// reason` in a comment on the line or the line above (one finding per comment); entries in
/// `.skillguard.yaml` at the top of the repository (`git skill allow` writes them, pinned to
/// the findings' fingerprints); a baseline file (--baseline, written by `git skill baseline`).
/// In range mode they are read as of --from-ref, and one that does not name its finding covers
/// only what the base suppressed too.
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
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

    /// Verdict that fails the scan [default: skill.failOn, or dangerous].
    #[arg(long, value_name = "VERDICT", value_parser = ["dangerous", "caution", "never"])]
    pub fail_on: Option<String>,

    /// Ignore `git-skill:allow` comments in the scanned files (for CI policies).
    #[arg(long)]
    pub no_inline_allow: bool,

    /// Weigh every finding at its rule's severity: no lower severity for quoted examples, test
    /// fixtures of scanners, security guidance or documentation of an agent's own files; and in
    /// range mode, fail (exit 2) when a submodule the range changes cannot be looked into.
    #[arg(long)]
    pub strict: bool,

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

    /// In range mode, read `.skillguard.yaml`, a baseline inside the repository and
    /// `git-skill:allow` comments as of --to-ref instead of --from-ref: the change then
    /// suppresses its own findings. Only for branches whose authors are trusted.
    #[arg(long)]
    pub suppressions_from_target: bool,

    /// Scan every file again: neither read nor keep findings in the scan cache (kept by
    /// content in the git directory, or in the user's cache directory outside a repository;
    /// config skill.scanCache).
    #[arg(long)]
    pub no_cache: bool,

    /// Empty the scan cache before scanning.
    #[arg(long)]
    pub clear_cache: bool,

    /// In range mode, lint the changed skills too: a lint error the range brings fails the
    /// scan, as it blocks a commit in the pre-commit hook.
    #[arg(long)]
    pub lint: bool,

    /// In range mode, leave the capability drift of the changed skills (what `git skill diff`
    /// shows) out of the report and the summary.
    #[arg(long)]
    pub no_drift: bool,

    /// Also write the SARIF report to FILE (for code scanning, beside another --format).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,

    /// Also append a Markdown summary to FILE: the verdict, the findings, the capability drift
    /// and the allow comments and policy entries a range adds (a job summary:
    /// `$GITHUB_STEP_SUMMARY`).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
}

pub fn cmd_scan(ui: &mut Ui, args: ScanArgs) -> Result<Outcome, CommandError> {
    let mut ws = Workspace::load(ui)?;
    ws.config.set_flag("roots", "--root", &args.roots);
    if let Some(fail_on) = &args.fail_on {
        ws.config
            .set_flag("failOn", "--fail-on", std::slice::from_ref(fail_on));
    }
    let env_ref = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let range = match (args.from_ref.clone(), args.to_ref.clone()) {
        (Some(from), Some(to)) => Some((from, to)),
        _ if args.paths.is_empty() => {
            env_ref("PRE_COMMIT_FROM_REF").zip(env_ref("PRE_COMMIT_TO_REF"))
        }
        _ => None,
    };
    let options = op::Options {
        paths: args.paths.clone(),
        // The flag is in the configuration (`set_flag` above), over the policy's `failOn`.
        fail_on: None,
        scan: ScanOptions {
            inline_allow: !args.no_inline_allow,
            strict: args.strict,
            cache: None,
        },
        baseline: args.baseline.clone(),
        write_baseline: args.write_baseline.clone(),
        policy: args.policy.clone(),
        jobs: args
            .jobs
            .unwrap_or_else(git_skill::parallel::default_jobs)
            .max(1),
        range: range.clone(),
        suppressions_from_target: args.suppressions_from_target,
        today: git_skill::clock::today(),
        cache: !args.no_cache && ws.config.scan_cache()?,
        clear_cache: args.clear_cache,
        lint: args.lint,
    };
    if args.lint && range.is_none() {
        return Err(
            CommandError::new("--lint needs a range (--from-ref and --to-ref)")
                .hint("git skill lint checks the skills of the work tree"),
        );
    }
    let mut scan = op::scan(&mut ws, &options)?;
    let fail_on = scan.fail_on;
    let mut drift = std::mem::take(&mut scan.drift);
    if args.no_drift {
        drift.clear();
    }
    let warnings: Vec<String> = scan
        .problems
        .iter()
        .filter_map(|p| match p {
            Problem::Skipped(git_skill::ops::Skipped::Note(n)) if !n.is_error() => {
                Some(n.render(|p| ws.display(p)))
            }
            Problem::CacheRefused(warning) => Some(warning.clone()),
            _ => None,
        })
        .collect();
    problems(ui, &ws, std::mem::take(&mut scan.problems))?;
    // In a GitHub log, a warning is an annotation of its own.
    if args.format == ReportFormat::Github {
        for w in &warnings {
            git_skill::report::github::warning(&mut ui.out, w)?;
        }
    }
    if let Some((path, n)) = &scan.baseline_written {
        ui.status(&format!(
            "wrote {n} findings to '{}'; scan with --baseline {} to accept them",
            path.display(),
            path.display()
        ))?;
        return Ok(Outcome::Clean);
    }
    let Some((from, to)) = range else {
        extra_reports(
            &args,
            &scan,
            "every skill and agent context file",
            None,
            &warnings,
        )?;
        return finish(ui, &args, &scan, fail_on, scan.empty);
    };
    for added in &scan.policy_added {
        ui.warn(&format!(
            "{POLICY_FILE} at {to} adds `{added}`, which counts only once merged (this range is judged by the policy at {from})"
        ))?;
    }
    let mut drift_text = Vec::new();
    super::diff::render_text(&mut drift_text, &drift)?;
    let title = format!("skills changed from {from} to {to}");
    extra_reports(
        &args,
        &scan,
        &title,
        Some(&String::from_utf8_lossy(&drift_text)),
        &warnings,
    )?;
    if args.format == ReportFormat::Text && scan.empty {
        ui.status(&format!("no skill changed between {from} and {to}"))?;
        return Ok(Outcome::Clean);
    }
    let outcome = finish(ui, &args, &scan, fail_on, false)?;
    if args.format == ReportFormat::Text {
        // What a reviewer wants first: what the changed skills can do now.
        if !drift.is_empty() {
            writeln!(ui.out, "\ncapability drift ({from}..{to}):")?;
            super::diff::render_text(&mut ui.out, &drift)?;
            ui.out.flush()?;
        }
    }
    Ok(outcome)
}

/// What the scan passed over: errors (the run then exits 2) and warnings.
fn problems(ui: &mut Ui, ws: &Workspace, problems: Vec<Problem>) -> Result<(), CommandError> {
    for p in problems {
        match p {
            Problem::Skipped(s) => ws.report_skipped(ui, vec![s])?,
            Problem::Expired(expired) => ui.warn(&format!(
                "{POLICY_FILE}: the entry for {} ({}) expired on {} and no longer applies",
                expired.rule,
                expired.skill.as_deref().unwrap_or("any skill"),
                expired.expires
            ))?,
            Problem::Unchecked { path, error } => {
                ui.error(&CommandError::new(format!("{path}: {error}")))?
            }
            Problem::BaselineNotAtBase { rel, from } => ui.warn(&format!(
                "the baseline '{rel}' is not in {from}: it is new in this range and applies once merged"
            ))?,
            Problem::CacheRefused(warning) => ui.warn(&warning)?,
            Problem::Unpinned(entry) => ui.warn(&format!(
                "{POLICY_FILE}: `{entry}` matches by rule, skill or path only (deprecated: it also covers new files and other skills of that name, and in a range only what the base had); bind it to what it covers with `git skill allow --pin`"
            ))?,
            Problem::LegacyBaseline { file } => ui.warn(&format!(
                "the baseline '{file}' is version 1 (entries by skill name, deprecated); rewrite it with `git skill baseline --update {file}`"
            ))?,
        }
    }
    Ok(())
}

/// The reports asked for beside the main one: SARIF (`--sarif`) and a Markdown summary
/// (`--summary`, appended: a job summary collects every step's).
fn extra_reports(
    args: &ScanArgs,
    scan: &op::Scan,
    title: &str,
    drift: Option<&str>,
    warnings: &[String],
) -> Result<(), CommandError> {
    let write = |path: &PathBuf, append: bool, bytes: &[u8]| -> Result<(), CommandError> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(path)
            .map_err(|e| CommandError::new(format!("cannot write '{}': {e}", path.display())))?;
        std::io::Write::write_all(&mut file, bytes)
            .map_err(|e| CommandError::new(format!("cannot write '{}': {e}", path.display())))
    };
    if let Some(path) = &args.sarif {
        let mut out = Vec::new();
        sarif::render_sarif(&mut out, &scan.reports)?;
        let text = git_skill::redact::redact(&String::from_utf8_lossy(&out));
        write(path, false, text.as_bytes())?;
    }
    if let Some(path) = &args.summary {
        let mut out = Vec::new();
        git_skill::report::github::summary(
            &mut out,
            title,
            &scan.reports,
            &scan.lint,
            &scan.policy_added,
            drift,
            warnings,
        )?;
        // A file bypasses the terminal's masking: masked here, as everything git-skill writes.
        let text = git_skill::redact::redact(&String::from_utf8_lossy(&out));
        write(path, true, text.as_bytes())?;
    }
    Ok(())
}

/// Renders the reports and decides the exit status.
fn finish(
    ui: &mut Ui,
    args: &ScanArgs,
    scan: &op::Scan,
    fail_on: FailOn,
    empty: bool,
) -> Result<Outcome, CommandError> {
    let reports = &scan.reports;
    let outcome = if scan.fails(fail_on) {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    let lint = &scan.lint;
    let rendered = match args.format {
        ReportFormat::Text => {
            render::render_text(&mut ui.out, reports, ui.out_style).and_then(|()| {
                match lint.is_empty() {
                    true => Ok(()),
                    false => git_skill::report::render_text(&mut ui.out, lint, ui.out_style),
                }
            })
        }
        ReportFormat::Json => render::render_json(&mut ui.out, reports),
        ReportFormat::Sarif => sarif::render_sarif(&mut ui.out, reports),
        ReportFormat::Junit => render::render_junit(&mut ui.out, reports),
        ReportFormat::Github => git_skill::report::github::annotations(&mut ui.out, reports)
            .and_then(|()| git_skill::report::github::lint_annotations(&mut ui.out, lint)),
    }
    .and_then(|()| ui.out.flush());
    match rendered {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(outcome),
        other => other?,
    }
    if args.format == ReportFormat::Text {
        let s = render::summarize(reports);
        if empty {
            ui.status("no skills found")?;
        } else {
            let checked = s.checked("skill");
            ui.status(&format!(
                "{checked} scanned: {} dangerous, {} caution, {} safe ({}, {} suppressed)",
                s.dangerous,
                s.caution,
                s.safe,
                git_skill::report::plural(s.findings, "finding"),
                s.suppressed
            ))?;
        }
    }
    Ok(outcome)
}
