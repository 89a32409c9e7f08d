use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use git_skill::check::{self, Settings, Snapshot};
use git_skill::config::FailOn;
use git_skill::git::At;
use git_skill::guard::suppress::{Baseline, Policy, PolicyError, POLICY_FILE};
use git_skill::guard::ScanOptions;
use git_skill::report::sarif;
use git_skill::report::scan::{self as render, SkillReport};

use super::error::ErrorKind;
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

    /// Weigh every finding at its rule's severity: no lower severity for quoted examples, test
    /// fixtures of scanners, security guidance or documentation of an agent's own files.
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
    let baseline_file = |path: &Path| {
        Baseline::load(path).map_err(|e| match e {
            e @ PolicyError::Read { .. } => {
                CommandError::with(ErrorKind::User, e).hint("create one with --write-baseline FILE")
            }
            e => CommandError::from(e),
        })
    };
    let explicit_policy = match &args.policy {
        Some(path) => Some(check::policy_file(path)?.ok_or_else(|| {
            CommandError::new(format!("policy file '{}' does not exist", path.display()))
        })?),
        None => None,
    };
    let options = ScanOptions {
        inline_allow: !args.no_inline_allow,
        strict: args.strict,
    };
    let jobs = args
        .jobs
        .unwrap_or_else(git_skill::parallel::default_jobs)
        .max(1);
    let env_ref = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let range = match (args.from_ref.clone(), args.to_ref.clone()) {
        (Some(from), Some(to)) => Some((from, to)),
        _ if args.paths.is_empty() => {
            env_ref("PRE_COMMIT_FROM_REF").zip(env_ref("PRE_COMMIT_TO_REF"))
        }
        _ => None,
    };
    if let Some((from, to)) = range {
        // What suppresses findings is read as of the base, so that a change cannot suppress
        // its own findings, unless the CI author said otherwise on purpose.
        let suppressions = if args.suppressions_from_target {
            to.as_str()
        } else {
            from.as_str()
        };
        let baseline = match (&args.baseline, &ws.repo) {
            (Some(path), Some(repo)) => Some(match in_repo(repo, path) {
                Some(rel) => match check::baseline_at(repo, At::Revision(suppressions), &rel) {
                    Err(PolicyError::Read { source, .. })
                        if source.kind() == std::io::ErrorKind::NotFound
                            && !args.suppressions_from_target =>
                    {
                        ui.warn(&format!(
                            "the baseline '{rel}' is not in {from}: it is new in this range and applies once merged"
                        ))?;
                        Baseline::accepting(std::iter::empty())
                    }
                    other => other?,
                },
                None => baseline_file(path)?,
            }),
            (Some(path), None) => Some(baseline_file(path)?),
            (None, _) => None,
        };
        let range = Range {
            from: &from,
            to: &to,
            suppressions,
            options,
            policy: explicit_policy,
            baseline,
            jobs,
        };
        return scan_range(ui, &ws, &args, fail_on, range);
    }
    // The work tree's own policy, unless one was named.
    let policy = match explicit_policy {
        Some(policy) => Some(policy),
        None => match &ws.repo {
            Some(repo) => check::policy_file(&ws.display(&repo.workdir().join(POLICY_FILE)))?,
            None => None,
        },
    };
    let baseline = match &args.baseline {
        Some(path) => Some(baseline_file(path)?),
        None => None,
    };
    let found = ws.skills(ui, &args.paths, "scan")?;
    if let (Some(repo), true) = (&ws.repo, args.paths.is_empty()) {
        let prefixes: Vec<String> = ws
            .repo_relative_roots()
            .named
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        let notes = check::unchecked_out_submodules(repo, &prefixes)?;
        ws.report_notes(ui, &notes)?;
    }
    let mut work = Vec::new();
    for skill in &found.skills {
        let repo_path = match &ws.repo {
            Some(repo) => skill
                .dir
                .strip_prefix(repo.workdir())
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_else(|_| ws.display(&skill.dir).display().to_string()),
            None => ws.display(&skill.dir).display().to_string(),
        };
        match Snapshot::from_dir(
            &skill.dir,
            repo_path,
            skill.root.label.clone(),
            skill.category.clone(),
        ) {
            Ok(snapshot) => {
                let lfs = ws.repo.as_ref().map(|r| r.lfs_objects());
                work.push((snapshot.with_lfs(lfs), ws.display(&skill.dir)))
            }
            Err(e) => ui.error(&CommandError::from(e))?,
        }
    }
    let settings = Settings {
        scan: options,
        policy: policy.as_ref(),
        baseline: baseline.as_ref(),
        today: git_skill::clock::today(),
        lint: false,
        written: false,
    };
    let reports = collect(ui, check::check_all(&work, &settings, jobs))?;

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

/// The reports of checked skills; expired policy entries are warned about, unreadable files
/// are errors (the run exits 2).
fn collect(ui: &mut Ui, checked: Vec<check::SkillCheck>) -> Result<Vec<SkillReport>, CommandError> {
    let mut reports = Vec::new();
    for c in checked {
        for expired in &c.expired {
            ui.warn(&format!(
                "{POLICY_FILE}: the entry for {} ({}) expired on {} and no longer applies",
                expired.rule,
                expired.skill.as_deref().unwrap_or("any skill"),
                expired.expires
            ))?;
        }
        for e in &c.report.errors {
            ui.error(&CommandError::new(format!("{}: {e}", c.report.path)))?;
        }
        reports.push(c.report);
    }
    Ok(reports)
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
                "{} scanned: {} dangerous, {} caution, {} safe ({}, {} suppressed)",
                git_skill::report::plural(s.skills, "skill"),
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

/// What range mode compares and applies.
struct Range<'a> {
    from: &'a str,
    to: &'a str,
    /// The revision whose policy file and inline allows apply: `from` unless
    /// --suppressions-from-target.
    suppressions: &'a str,
    options: ScanOptions,
    /// Named with --policy; otherwise the policy file of `suppressions` applies.
    policy: Option<Policy>,
    baseline: Option<Baseline>,
    jobs: usize,
}

/// Range mode: the skills changed between two revisions, at their content in the second,
/// read from git objects, with the policy file and inline allows of the base (`suppressions`).
fn scan_range(
    ui: &mut Ui,
    ws: &Workspace,
    args: &ScanArgs,
    fail_on: FailOn,
    range: Range<'_>,
) -> Result<Outcome, CommandError> {
    let repo = ws
        .require_repo("scan --from-ref/--to-ref")
        .hint("or drop --from-ref/--to-ref to scan the paths given")?;
    let (from, to) = (range.from, range.to);
    let roots = ws.repo_relative_roots();
    let (changes, notes) = git_skill::staged::changes(repo, from, Some(to), &roots)
        .hint("check that both revisions exist here (CI checkouts may need fetch-depth: 0)")?;
    ws.report_notes(ui, &notes)?;
    let policy = match range.policy {
        Some(policy) => Some(policy),
        None => check::policy_at(repo, At::Revision(range.suppressions)).hint(
            "fix the policy file in that revision; every entry needs a known rule and a reason",
        )?,
    };
    let settings = Settings {
        scan: range.options,
        policy: policy.as_ref(),
        baseline: range.baseline.as_ref(),
        today: git_skill::clock::today(),
        lint: false,
        written: false,
    };
    let empty = changes.is_empty();
    let pin = range.suppressions == from && range.options.inline_allow;
    let (befores, afters): (Vec<_>, Vec<_>) =
        changes.into_iter().map(|c| (c.before, c.after)).unzip();
    let work = ws.displayed(repo, afters);
    let mut checked = check::check_all(&work, &settings, range.jobs);
    if pin {
        // The base's own inline allows, found by checking each skill as it was there.
        let base: Vec<_> = befores
            .into_iter()
            .zip(&work)
            .filter_map(|(before, (_, display))| before.map(|b| (b, display.clone())))
            .collect();
        let base_checked = check::check_all(&base, &settings, range.jobs);
        for c in &mut checked {
            let allowed = base
                .iter()
                .zip(&base_checked)
                .find(|((b, _), _)| b.dir == c.report.repo_path)
                .map(|(_, b)| check::inline_allowed(b))
                .unwrap_or_default();
            check::pin_inline_allows(c, &allowed, &settings);
        }
    }
    let reports = collect(ui, checked)?;
    if args.format == ScanFormat::Text && empty {
        ui.status(&format!("no skill changed between {from} and {to}"))?;
        return Ok(Outcome::Clean);
    }
    let outcome = finish(ui, args, fail_on, &reports, false)?;
    if args.format == ScanFormat::Text {
        // What a reviewer wants first: what the changed skills can do now.
        let (drifts, _) = super::diff::drift_report(ws, from, Some(to))?;
        if !drifts.is_empty() {
            writeln!(ui.out, "\ncapability drift ({from}..{to}):")?;
            super::diff::render_text(&mut ui.out, &drifts)?;
            ui.out.flush()?;
        }
    }
    Ok(outcome)
}

/// `path` relative to the top of the repository, when it lies inside it (the file itself need
/// not exist in the work tree).
fn in_repo(repo: &git_skill::git::Repo, path: &Path) -> Option<String> {
    let abs = std::env::current_dir().ok()?.join(path);
    let parent = abs.parent()?.canonicalize().ok()?;
    let rel = parent.join(abs.file_name()?);
    let rel = rel.strip_prefix(repo.workdir()).ok()?;
    Some(rel.to_string_lossy().replace('\\', "/"))
}

fn write_baseline(path: &Path, reports: &[SkillReport]) -> Result<(), CommandError> {
    let baseline = Baseline::accepting(
        reports
            .iter()
            .map(|r| (r.name.as_str(), r.findings.as_slice())),
    );
    git_skill::fsutil::write_atomic(path, baseline.to_file_text().as_bytes())
        .with_context(|| format!("could not write '{}'", path.display()))?;
    Ok(())
}
