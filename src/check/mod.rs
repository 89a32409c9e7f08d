//! Checking skills, wherever their content comes from: the work tree, the index, a revision
//! range, or a skill with files replaced in memory. The pre-commit hook, `scan` and optimize's
//! gate all build their reports here, with the policy and the baseline applied, so one content
//! gets one verdict wherever it is checked.

pub mod gate;
mod policy;
#[cfg(test)]
mod proptests;
mod snapshot;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use gate::{Allows, Change, Decision, Gate, Judged, Writer};
pub use policy::{baseline_at, policy_at, policy_file, policy_in};
pub use snapshot::Snapshot;

use crate::git::{GitError, Repo};
use crate::guard::suppress::{self, Baseline, Entries, Expired, Policy};
use crate::guard::{self, ScanOptions};
use crate::report::scan::SkillReport;
use crate::report::Diagnostic;
use crate::skill::discover::Note;
use crate::skill::lint;

/// What a check applies besides the rules.
#[derive(Debug, Clone, Copy)]
pub struct Settings<'a> {
    pub scan: ScanOptions,
    pub policy: Option<&'a Policy>,
    /// A policy whose `lint:` entries count where they are stricter (a range's target's).
    pub stricter_lint: Option<&'a Policy>,
    pub baseline: Option<&'a Baseline>,
    pub today: chrono::NaiveDate,
    /// Lint the skill too (the hook does; `scan` does not).
    pub lint: bool,
    /// Lint it as something git-skill writes (optimize's candidate): the writer limits are
    /// errors (`skill::codes::WRITER_LIMITS`).
    pub written: bool,
}

/// One checked skill.
#[derive(Debug, Clone)]
pub struct SkillCheck {
    pub report: SkillReport,
    /// Lint diagnostics, when asked for.
    pub diagnostics: Vec<Diagnostic>,
    /// Policy entries that would have applied but have expired.
    pub expired: Vec<Expired>,
    /// Policy entries without fingerprints that covered something here (deprecated).
    pub unpinned: Vec<String>,
}

impl SkillCheck {
    /// Whether a finding is suppressed by something that does not name it (a policy entry by
    /// rule, skill or path, a version 1 baseline entry; an allow comment with `inline`): such a
    /// suppression holds in a range or a commit only for what was suppressed before.
    pub fn loosely_suppressed(&self, inline: bool) -> bool {
        self.report.findings.iter().any(|f| {
            f.suppressed
                .as_ref()
                .is_some_and(|s| !s.pinned && (inline || s.kind != "inline"))
        })
    }
}

/// Checks one skill; `display` is its directory as the user should see it. A bug that makes
/// the check panic is contained here: the skill is reported dangerous with the error (each
/// file's scan is contained on its own first, so this catches what lies around them).
pub fn check_skill(snapshot: &Snapshot, display: &Path, settings: &Settings<'_>) -> SkillCheck {
    match guard::contain::contained(|| check_skill_unguarded(snapshot, display, settings)) {
        Ok(checked) => checked,
        Err(panic) => SkillCheck {
            report: SkillReport {
                name: snapshot.dir_name.clone(),
                path: display.display().to_string(),
                repo_path: snapshot.dir.clone(),
                verdict: guard::Verdict::Dangerous,
                errors: vec![format!(
                    "the check of this skill failed ({panic}); {}",
                    guard::contain::BUG_REPORT
                )],
                findings: vec![guard::failure(".", &panic)],
                submodules: snapshot.submodules.clone(),
                context: snapshot.context.map(|k| k.as_str()),
                reached: snapshot.reached.clone(),
            },
            diagnostics: Vec::new(),
            expired: Vec::new(),
            unpinned: Vec::new(),
        },
    }
}

fn check_skill_unguarded(
    snapshot: &Snapshot,
    display: &Path,
    settings: &Settings<'_>,
) -> SkillCheck {
    let mut scan = scan_snapshot(snapshot, &settings.scan);
    scan.findings.extend(snapshot.notes.iter().cloned());
    if snapshot.context.is_some() {
        // The report is the file's: its findings point at it.
        for f in &mut scan.findings {
            f.file = ".".to_owned();
        }
    }
    let name = snapshot.name();
    let content = suppress::locate(&mut scan.findings, &snapshot.dir);
    let applied = match settings.policy {
        Some(policy) => policy.apply(&name, &mut scan.findings, settings.today, Entries::All),
        None => Default::default(),
    };
    if let Some(baseline) = settings.baseline {
        baseline.apply(&mut scan.findings);
        baseline.apply_legacy(&name, &mut scan.findings, &content);
    }
    let diagnostics = if settings.lint && snapshot.context.is_none() {
        lint_snapshot(
            snapshot,
            display,
            settings.written,
            settings.policy,
            settings.stricter_lint,
        )
    } else {
        Vec::new()
    };
    SkillCheck {
        report: SkillReport {
            name,
            path: display.display().to_string(),
            repo_path: snapshot.dir.clone(),
            verdict: scan.verdict(),
            errors: scan.errors.clone(),
            findings: scan.findings,
            submodules: snapshot.submodules.clone(),
            context: snapshot.context.map(|k| k.as_str()),
            reached: snapshot.reached.clone(),
        },
        diagnostics,
        expired: applied.expired,
        unpinned: applied.unpinned,
    }
}

/// The scan of a skill's content: kept from an earlier run when the snapshot was found by its
/// tree ([`Snapshot::scanned`]), else made now and kept by its tree, when the cache is on and
/// the scan is whole (no file left unread, no parse cut short at its time limit).
fn scan_snapshot(snapshot: &Snapshot, options: &ScanOptions) -> guard::SkillScan {
    if let Some(kind) = snapshot.context {
        let name = &snapshot.dir_name;
        return match snapshot.read(name) {
            Ok(bytes) => guard::context::scan(&snapshot.dir, kind, &bytes, *options),
            Err(e) => guard::SkillScan {
                findings: vec![guard::failure_to_read(
                    &snapshot.dir,
                    &format!("'{}' could not be read: {e}", snapshot.dir),
                )],
                errors: vec![format!("could not read '{}': {e}", snapshot.dir)],
            },
        };
    }
    if let Some(findings) = &snapshot.scanned {
        return guard::SkillScan {
            findings: findings.clone(),
            errors: Vec::new(),
        };
    }
    let abandoned = guard::analysis::parse::abandoned();
    let scan = guard::scan_skill_in(
        &snapshot.files,
        &snapshot.dir_name,
        &|rel| snapshot.read(rel),
        *options,
    );
    if let (Some(cache), Some(tree)) = (options.cache, &snapshot.tree) {
        if scan.errors.is_empty() && guard::analysis::parse::abandoned() == abandoned {
            cache.put(&guard::cache::skill_key(tree, options), &scan.findings);
        }
    }
    scan
}

/// What [`crate::staged`] asks to skip reading a skill it loads from git: the findings kept
/// for its tree under `options`, when the cache is on.
pub fn known_scans(
    options: &ScanOptions,
) -> Option<impl Fn(&[u8; 32]) -> Option<Vec<guard::Finding>> + '_> {
    let cache = options.cache?;
    Some(move |tree: &[u8; 32]| cache.get(&guard::cache::skill_key(tree, options)))
}

/// The lint diagnostics of one skill; `written`: held to the limits of what git-skill writes.
/// The policy's `lint:` entries set levels, except for what git-skill writes; `stricter`'s
/// entries count where they give a diagnostic a higher level (a range's target may make lint
/// stricter now, and looser only once merged).
pub fn lint_snapshot(
    snapshot: &Snapshot,
    display: &Path,
    written: bool,
    policy: Option<&Policy>,
    stricter: Option<&Policy>,
) -> Vec<Diagnostic> {
    let mut diagnostics = lint::lint(
        &snapshot.files,
        &lint::Target {
            dir_name: &snapshot.dir_name,
            display_dir: display.to_owned(),
            category: snapshot.category.as_deref(),
            written,
        },
    );
    // What git-skill or an agent writes is held to its limits whatever the repository says.
    if written || lint::is_auto_skill(&snapshot.files) {
        return diagnostics;
    }
    let raw = stricter.map(|_| diagnostics.clone());
    if let Some(policy) = policy {
        policy.apply_lint(&snapshot.name(), display, &mut diagnostics);
    }
    if let (Some(stricter), Some(mut theirs)) = (stricter, raw) {
        stricter.apply_lint(&snapshot.name(), display, &mut theirs);
        for (d, t) in diagnostics.iter_mut().zip(theirs) {
            if t.level > d.level {
                *d = t;
            }
        }
    }
    diagnostics
}

/// The fingerprints of the findings `checked` suppressed, whatever suppressed them.
pub fn suppressed(checked: &SkillCheck) -> HashSet<String> {
    checked
        .report
        .findings
        .iter()
        .filter(|f| f.suppressed.is_some())
        .map(|f| f.fingerprint.clone())
        .collect()
}

/// Holds a range's target to what its base suppressed: a finding suppressed by something that
/// does not name it (an allow comment, a policy entry by rule, skill or path alone, a version 1
/// baseline entry) stays suppressed only when the base revision suppressed the same finding
/// (rule, file, matched text, occurrence), so a change can neither allow its own findings nor
/// borrow an entry written for other content: a new skill of the same name, a second copy of an
/// allowed line. Suppressions that name the finding (pinned) hold, and allow comments with
/// `keep_inline` (the hook: a person commits them). The others count again (pinned entries,
/// and `own_entries`, the policy entries the change itself adds in the hook, still apply to
/// them) and say why.
pub fn pin_to_base(
    checked: &mut SkillCheck,
    suppressed_at_base: &HashSet<String>,
    settings: &Settings<'_>,
    keep_inline: bool,
    own_entries: Option<&Policy>,
) {
    use crate::report::github::{RELEASED_ALLOW, RELEASED_ENTRY};
    let mut released = false;
    for f in &mut checked.report.findings {
        let Some(s) = &f.suppressed else { continue };
        if s.pinned
            || (keep_inline && s.kind == "inline")
            || suppressed_at_base.contains(&f.fingerprint)
        {
            continue;
        }
        let note = if s.kind == "inline" {
            RELEASED_ALLOW
        } else {
            RELEASED_ENTRY
        };
        f.suppressed = None;
        f.message.push_str(note);
        released = true;
    }
    if !released {
        return;
    }
    let name = checked.report.name.clone();
    if let Some(policy) = settings.policy {
        let applied = policy.apply(
            &name,
            &mut checked.report.findings,
            settings.today,
            Entries::Pinned,
        );
        for e in applied.expired {
            if !checked.expired.contains(&e) {
                checked.expired.push(e);
            }
        }
    }
    if let Some(own) = own_entries {
        own.apply(
            &name,
            &mut checked.report.findings,
            settings.today,
            Entries::All,
        );
    }
    if let Some(baseline) = settings.baseline {
        baseline.apply(&mut checked.report.findings);
    }
    checked.report.verdict = guard::verdict_of(&checked.report.findings);
}

/// Checks each skill on up to `jobs` threads; results come back in order.
pub fn check_all(
    skills: &[(Snapshot, PathBuf)],
    settings: &Settings<'_>,
    jobs: usize,
) -> Vec<SkillCheck> {
    crate::parallel::map_ordered(skills, jobs, |(snapshot, display)| {
        check_skill(snapshot, display, settings)
    })
}

/// Submodules at or below the roots (relative to the top) that the index records but the work
/// tree has not checked out: a work-tree check cannot see what they hold.
pub fn unchecked_out_submodules(repo: &Repo, prefixes: &[String]) -> Result<Vec<Note>, GitError> {
    let mut notes = Vec::new();
    for (path, commit) in repo.gitlinks_under(prefixes)? {
        let checkout = repo.workdir().join(&path);
        if !checkout.join(".git").exists() {
            notes.push(Note::SubmoduleUnavailable {
                path: checkout,
                commit: commit.to_string(),
                reason: "it is not checked out in the work tree".to_owned(),
            });
        }
    }
    Ok(notes)
}
