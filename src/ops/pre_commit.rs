//! `git skill hook pre-commit`: whether the staged change of skills may be committed, decided
//! by the one gate ([`crate::check::gate`]) for a person's commit, at the staged state (the
//! index, never the work tree) with the policy as staged.

use crate::check::{self, gate, Decision, Gate, Writer};
use crate::config::{ConfigError, FailOn};
use crate::env::{Env, EnvError};
use crate::git::{At, GitError};
use crate::guard::suppress::PolicyError;
use crate::guard::ScanOptions;
use crate::skill::discover::Note;
use crate::staged::KnownScans;

#[derive(Debug, thiserror::Error)]
pub enum PreCommitError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error(transparent)]
    Config(#[from] ConfigError),
}

pub struct Options {
    /// The fail level; `None`: the configured one, with the staged policy's `failOn` under
    /// git config (the work tree's is not what is committed).
    pub fail_on: Option<FailOn>,
    pub today: chrono::NaiveDate,
    pub jobs: usize,
    /// Use the scan cache (`guard::cache`).
    pub cache: bool,
}

/// What the hook found.
pub struct PreCommit {
    /// Links and submodules the commit brings that no skill check covers; an error among them
    /// blocks the commit.
    pub notes: Vec<Note>,
    /// The gate's decision, or none when the commit touches no skill.
    pub decision: Option<Decision>,
    /// Findings at the fail level that pass only through a suppression this commit brings
    /// (`path:line RULE (inline|policy)`): CI reads suppressions from the base revision, so
    /// a pull request with them fails there until they are merged.
    pub new_suppressions: Vec<String>,
    /// What a staged `.skillguard.yaml` weakens against HEAD's (`failOn from dangerous to
    /// never`, roots it removes, allow entries and lint levels it adds): CI judges a pull
    /// request with the base's, so the commit passes here and fails there.
    pub weakened: Vec<String>,
}

/// Decides the staged change. The team's settings of the staged policy file take the work
/// tree's place in `env.config` (its roots say which skills are compared).
pub fn pre_commit(env: &mut Env, options: &Options) -> Result<PreCommit, PreCommitError> {
    // The policy as staged (an unstaged edit to it must not change the verdict either), read
    // even when no skill changed: a commit must not land a policy that CI cannot read.
    let policy = check::policy_at(env.require_repo("hook pre-commit")?, At::Index)?;
    // What HEAD's policy says, to tell a staged one that weakens the check.
    let head_policy = check::policy_at(env.require_repo("hook pre-commit")?, At::Head)
        .ok()
        .flatten();
    super::config::use_settings_of(env, head_policy.as_ref(), At::Head);
    let head_fail_on = env.config.fail_on().ok();
    let head_roots = root_names(env);
    super::config::use_settings_of(env, policy.as_ref(), At::Index);
    let fail_on = match options.fail_on {
        Some(fail_on) => fail_on,
        None => env.config.fail_on()?,
    };
    let mut weakened = Vec::new();
    if let Some(head) = head_fail_on.filter(|h| strictness(fail_on) < strictness(*h)) {
        weakened.push(format!(
            "failOn from {} to {}",
            head.as_str(),
            fail_on.as_str()
        ));
    }
    let staged_roots = root_names(env);
    let removed: Vec<String> = head_roots
        .into_iter()
        .filter(|r| !staged_roots.contains(r))
        .collect();
    if !removed.is_empty() {
        weakened.push(format!("the roots {}", removed.join(", ")));
    }
    // Entries that cover more, as a reviewer reads them (`allow SUP001 for skill deploy:
    // ...`; pinning an entry narrows it and is not one), and looser lint levels.
    if let Some(staged) = &policy {
        for line in staged.widened_since(head_policy.as_ref()) {
            weakened.push(format!("it adds `{line}`"));
        }
        for line in staged.lint_loosened_since(head_policy.as_ref()) {
            weakened.push(format!("it adds `{line}`"));
        }
    }
    let env = &*env;
    let repo = env.require_repo("hook pre-commit")?;
    let cache = super::scan_cache(env, options.cache);
    let scan = ScanOptions {
        cache,
        ..Writer::Person.scan_options()
    };
    // A skill staged in a state scanned before (a commit tried again) is not read at all.
    let scans = check::known_scans(&scan);
    let known = scans.as_ref().map(|scans| KnownScans {
        scans,
        skip_reads: true,
    });
    let (changes, notes) =
        crate::staged::staged_changes(repo, &env.repo_relative_roots(), known.as_ref())?;
    if changes.is_empty() {
        return Ok(PreCommit {
            notes,
            decision: None,
            new_suppressions: Vec::new(),
            weakened,
        });
    }
    let changes = super::changes(env, repo, changes);
    let mut gate = Gate::new(Writer::Person, policy.as_ref(), fail_on, options.today);
    gate.scan = scan;
    // Each skill is checked on its own, on all cores: a commit that touches many skills
    // should not wait for them one after another.
    let mut decision = gate::decide(&changes, &gate, options.jobs);
    // Entries that do not name their finding cover only what HEAD had suppressed, as CI will
    // judge the change; the commit's own allow comments and policy entries count (and are
    // listed as new): a person vouches for them in this commit. HEAD's skills are read whole
    // only when such an entry covers something: most commits pay one scan per skill.
    let loose = decision
        .skills
        .iter()
        .any(|j| j.check.loosely_suppressed(false));
    let own = policy.as_ref().map(|p| p.added_since(head_policy.as_ref()));
    if loose {
        let (whole, _) =
            crate::staged::staged_changes_whole(repo, &env.repo_relative_roots(), known.as_ref())?;
        let whole = super::changes(env, repo, whole);
        gate.allows = crate::check::Allows::Staged;
        gate.own_entries = own.as_ref();
        decision = gate::decide(&whole, &gate, options.jobs);
    }
    if let Some(cache) = cache {
        cache.trim();
    }
    let new_suppressions = new_suppressions(repo, &decision);
    Ok(PreCommit {
        notes,
        decision: Some(decision),
        new_suppressions,
        weakened,
    })
}

/// How strict a fail level is: `caution` fails more than `dangerous`, `never` nothing.
fn strictness(f: FailOn) -> u8 {
    match f {
        FailOn::Never => 0,
        FailOn::Dangerous => 1,
        FailOn::Caution => 2,
    }
}

/// The configured roots, by name.
fn root_names(env: &Env) -> Vec<String> {
    env.repo_relative_roots()
        .named
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// The suppressed findings at the fail level whose suppression HEAD does not have: a policy
/// file staged with changes, or more allow comments with the finding's reason than HEAD's
/// version of the file has. Read only for such findings: most commits have none.
fn new_suppressions(repo: &crate::git::Repo, decision: &Decision) -> Vec<String> {
    use crate::git::RegularBlob;
    use crate::guard::suppress::POLICY_FILE;
    use crate::guard::{Severity, Verdict};
    let blob = |at: At<'_>, path: &str| match repo.regular_blob(at, path, 32 << 20) {
        Ok(RegularBlob::Regular(bytes)) => Some(bytes),
        _ => None,
    };
    let mut policy_changed = None;
    let mut out = Vec::new();
    for judged in &decision.skills {
        let report = &judged.check.report;
        for f in &report.findings {
            let Some(s) = &f.suppressed else { continue };
            let verdict = match f.severity {
                Severity::Critical => Verdict::Dangerous,
                Severity::High => Verdict::Caution,
                _ => Verdict::Safe,
            };
            if !decision.fail_on.fails(verdict) {
                continue;
            }
            let path = if f.file == "." {
                report.repo_path.clone()
            } else {
                format!("{}/{}", report.repo_path, f.file)
            };
            let new = match s.kind {
                "policy" => *policy_changed.get_or_insert_with(|| {
                    blob(At::Index, POLICY_FILE) != blob(At::Head, POLICY_FILE)
                }),
                // New when the staged file has more allow comments with this reason than
                // HEAD's: a second copy of a reviewed comment is new too.
                "inline" => {
                    let count = |bytes: Option<Vec<u8>>| {
                        bytes.map_or(0, |b| {
                            String::from_utf8_lossy(&b)
                                .lines()
                                .filter(|l| {
                                    l.contains("git-skill:allow") && l.contains(s.reason.as_str())
                                })
                                .count()
                        })
                    };
                    count(blob(At::Index, &path)) > count(blob(At::Head, &path))
                }
                _ => false,
            };
            if new {
                out.push(format!("{path}:{} {} ({})", f.line, f.rule, s.kind));
            }
        }
    }
    out
}
