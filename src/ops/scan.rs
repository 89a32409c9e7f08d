//! `git skill scan`: SkillGuard over the work tree's skills (or the paths named), or in range
//! mode over the skills changed between two revisions, at their content in the second. A range
//! is judged by the one gate for a person's change, with what suppresses findings read as of
//! the base unless the CI author asked otherwise.

use std::path::{Path, PathBuf};

use super::Skipped;
use crate::check::{self, gate, Allows, Gate, Snapshot, Writer};
use crate::config::{ConfigError, FailOn};
use crate::env::{Env, EnvError};
use crate::git::{At, GitError, Repo};
use crate::guard::cache::CacheStats;
use crate::guard::suppress::{
    Baseline, Expired, Policy, PolicyError, MAX_POLICY_BYTES, POLICY_FILE,
};
use crate::guard::ScanOptions;
use crate::report::scan::SkillReport;
use crate::staged::KnownScans;

#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error(transparent)]
    Env(#[from] EnvError),
    /// Range mode outside a work tree.
    #[error(transparent)]
    RangeNeedsRepo(EnvError),
    /// `--baseline FILE` that cannot be read.
    #[error(transparent)]
    Baseline(PolicyError),
    #[error("policy file '{}' does not exist", .path.display())]
    NoPolicy { path: PathBuf },
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The policy of the revision a range reads suppressions from.
    #[error(transparent)]
    RangePolicy(PolicyError),
    /// The revisions of a range cannot be compared.
    #[error(transparent)]
    Revisions(GitError),
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("could not write '{}'", .path.display())]
    WriteBaseline {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not clear the scan cache '{}'", .path.display())]
    ClearCache {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Skill directories, roots or folders of skills; none: every skill of the repository.
    pub paths: Vec<PathBuf>,
    /// The fail level; `None`: the configured one, with the `failOn` of the policy file that
    /// applies under git config (the work tree's; in range mode the base's, or the target's
    /// with `suppressions_from_target`: a change cannot lower its own fail level).
    pub fail_on: Option<FailOn>,
    pub scan: ScanOptions,
    pub baseline: Option<PathBuf>,
    pub write_baseline: Option<PathBuf>,
    pub policy: Option<PathBuf>,
    pub jobs: usize,
    /// Range mode: the skills changed between two revisions.
    pub range: Option<(String, String)>,
    /// In range mode, read suppressions as of the target instead of the base.
    pub suppressions_from_target: bool,
    pub today: chrono::NaiveDate,
    /// Use the scan cache (`guard::cache`): read findings of texts scanned before, keep new
    /// ones.
    pub cache: bool,
    /// Empty the cache first (every engine's entries).
    pub clear_cache: bool,
    /// In range mode, lint the changed skills too: the lint errors the range brings fail it,
    /// as they block a commit in the hook.
    pub lint: bool,
}

impl Options {
    /// Every skill and agent file of the work tree, as `git skill scan` with no flags sees it,
    /// with the cache on: what the commands that write suppressions read.
    pub fn work_tree(jobs: usize, today: chrono::NaiveDate) -> Options {
        Options {
            paths: Vec::new(),
            fail_on: None,
            scan: ScanOptions::default(),
            baseline: None,
            write_baseline: None,
            policy: None,
            jobs,
            range: None,
            suppressions_from_target: false,
            today,
            cache: true,
            clear_cache: false,
            lint: false,
        }
    }
}

/// Something the scan passed over or noticed, in the order it met it.
#[derive(Debug)]
pub enum Problem {
    /// What the walk for skills, or a git listing of a range, passed over.
    Skipped(Skipped),
    /// A policy entry that would have applied but has expired.
    Expired(Expired),
    /// A file of a skill the scanner could not read (the run exits 2).
    Unchecked { path: String, error: String },
    /// A baseline inside the repository that the range's base does not hold yet.
    BaselineNotAtBase { rel: String, from: String },
    /// The scan cache was not used (a folder of it is a symbolic link): the warning to show.
    CacheRefused(String),
    /// A policy entry without fingerprints covered something (as `Policy::lines` shows it):
    /// it works, matched by rule, skill or path; `git skill allow --pin` binds it.
    Unpinned(String),
    /// The baseline read is version 1 (entries by skill name): `git skill baseline --update`.
    LegacyBaseline { file: String },
}

impl Problem {
    /// Whether the run exits 2: something was not looked at.
    pub fn is_error(&self) -> bool {
        match self {
            Problem::Skipped(Skipped::Note(n)) => n.is_error(),
            Problem::Expired(_)
            | Problem::BaselineNotAtBase { .. }
            | Problem::CacheRefused(_)
            | Problem::Unpinned(_)
            | Problem::LegacyBaseline { .. } => false,
            _ => true,
        }
    }
}

/// What a scan found.
pub struct Scan {
    /// The fail level the scan judged by.
    pub fail_on: FailOn,
    pub problems: Vec<Problem>,
    pub reports: Vec<SkillReport>,
    /// No skill to scan: none in the repository, or none changed in the range.
    pub empty: bool,
    /// The baseline written, with the findings it accepts.
    pub baseline_written: Option<(PathBuf, usize)>,
    /// In range mode, the capabilities the changed skills gained (paths as shown).
    pub drift: Vec<crate::drift::SkillDrift>,
    /// What the scan cache gave, when one was used.
    pub cache: Option<CacheStats>,
    /// With `lint` in range mode: the lint errors the range brings.
    pub lint: Vec<crate::report::Diagnostic>,
    /// In range mode, what the target's policy file has that the base's has not (entries and
    /// settings, one line each): listed for reviewers; they count once merged. Empty when the
    /// target's policy is the one read.
    pub policy_added: Vec<String>,
}

impl Scan {
    /// Whether a skill is at or above the fail level, or the range brings a lint error.
    pub fn fails(&self, fail_on: FailOn) -> bool {
        self.reports.iter().any(|r| fail_on.fails(r.verdict)) || !self.lint.is_empty()
    }
}

/// Scans. In range mode the team's settings of the policy file the range is judged by take
/// the work tree's place in `env.config` (its `roots` say which skills are compared).
pub fn scan(env: &mut Env, options: &Options) -> Result<Scan, ScanError> {
    if options.clear_cache {
        if let Some(base) = super::cache_base(env) {
            crate::guard::cache::clear(&base)
                .map_err(|source| ScanError::ClearCache { path: base, source })?;
        }
    }
    let cache = super::scan_cache(env, options.cache);
    let options = &Options {
        scan: ScanOptions {
            cache,
            ..options.scan
        },
        ..options.clone()
    };
    let mut scan = scan_uncached(env, options)?;
    if let Some(cache) = cache {
        cache.trim();
        scan.cache = Some(cache.stats());
        // First: it explains why the run took as long as an uncached one.
        if let Some(warning) = cache.warning() {
            scan.problems.insert(0, Problem::CacheRefused(warning));
        }
    }
    Ok(scan)
}

fn scan_uncached(env: &mut Env, options: &Options) -> Result<Scan, ScanError> {
    let explicit_policy = match &options.policy {
        Some(path) => Some(
            check::policy_file(path)?.ok_or_else(|| ScanError::NoPolicy { path: path.clone() })?,
        ),
        None => None,
    };
    match &options.range {
        Some((from, to)) => range(env, options, from, to, explicit_policy),
        None => work_tree(env, options, explicit_policy),
    }
}

fn baseline_file(path: &Path) -> Result<Baseline, ScanError> {
    Baseline::load(path).map_err(|e| match e {
        e @ PolicyError::Read { .. } => ScanError::Baseline(e),
        e => ScanError::Policy(e),
    })
}

fn work_tree(env: &Env, options: &Options, policy: Option<Policy>) -> Result<Scan, ScanError> {
    // The work tree's own policy, unless one was named.
    let policy = match (policy, &env.repo) {
        (Some(policy), _) => Some(policy),
        (None, Some(repo)) => check::policy_file(&env.display(&repo.workdir().join(POLICY_FILE)))?,
        (None, None) => None,
    };
    let baseline = options.baseline.as_deref().map(baseline_file).transpose()?;
    let mut problems = Vec::new();
    legacy_baseline(&mut problems, options, baseline.as_ref());
    // Agent context files named, checked as what they are; the rest are skills.
    let (named_context, skill_paths): (Vec<_>, Vec<_>) = options
        .paths
        .iter()
        .map(|p| (context_path(env, p), p))
        .partition(|(c, _)| c.is_some());
    let mut contexts: Vec<(std::path::PathBuf, String, crate::skill::context::Kind)> =
        named_context
            .into_iter()
            .filter_map(|(c, p)| c.map(|(rel, kind)| (env.cwd.join(p), rel, kind)))
            .collect();
    let skill_paths: Vec<PathBuf> = skill_paths.into_iter().map(|(_, p)| p.clone()).collect();
    let (found, skipped) = if skill_paths.is_empty() && !options.paths.is_empty() {
        Default::default()
    } else {
        super::walk(env, &skill_paths, "scan")?
    };
    problems.extend(skipped.into_iter().map(Problem::Skipped));
    // Every path the work tree holds for git (tracked or not), for the context files and for
    // what the closure asks by name.
    let paths = match (&env.repo, options.paths.is_empty()) {
        (Some(repo), true) => work_tree_paths(repo)?,
        _ => Vec::new(),
    };
    if let (Some(repo), true) = (&env.repo, options.paths.is_empty()) {
        contexts.extend(
            work_tree_context(repo.workdir(), &paths)
                .into_iter()
                .map(|(rel, kind)| (repo.workdir().join(&rel), rel, kind)),
        );
    }
    if let (Some(repo), true) = (&env.repo, options.paths.is_empty()) {
        let prefixes: Vec<String> = env
            .repo_relative_roots()
            .named
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        let notes = check::unchecked_out_submodules(repo, &prefixes)?;
        problems.extend(
            notes
                .into_iter()
                .map(|n| Problem::Skipped(Skipped::Note(n))),
        );
    }
    let lfs = env.repo.as_ref().map(|r| r.lfs_objects());
    let mut work = Vec::new();
    for skill in &found.skills {
        let display = env.display(&skill.dir);
        let repo_path = env
            .repo
            .as_ref()
            .and_then(|repo| skill.dir.strip_prefix(repo.workdir()).ok())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_else(|| display.display().to_string());
        match Snapshot::from_dir(
            &skill.dir,
            repo_path,
            skill.root.label.clone(),
            skill.category.clone(),
        ) {
            Ok(snapshot) => work.push((snapshot.with_lfs(lfs.clone()), display)),
            Err(e) => problems.push(Problem::Skipped(Skipped::Unreadable(e))),
        }
    }
    // What the files agents load bring in: reached files join the context files, each in the
    // role it is reached in; what could not be followed is a finding of the file that names it.
    let reach = match &env.repo {
        Some(repo) => work_tree_reach(repo, &paths, &contexts, &work),
        None => Default::default(),
    };
    // Skill roots a marketplace of the repository lists (a plugin folder without a manifest of
    // its own): their skills are checked as skills.
    if let Some(repo) = &env.repo {
        for (root, by) in &reach.roots {
            let dir = repo.workdir().join(root);
            if found.skills.iter().any(|s| s.dir.starts_with(&dir)) {
                continue;
            }
            let (more, skipped) = super::walk(env, std::slice::from_ref(&dir), "scan")?;
            problems.extend(skipped.into_iter().map(Problem::Skipped));
            for skill in &more.skills {
                let repo_path = skill
                    .dir
                    .strip_prefix(repo.workdir())
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                match Snapshot::from_dir(
                    &skill.dir,
                    repo_path,
                    root.clone(),
                    skill.category.clone(),
                ) {
                    Ok(mut snapshot) => {
                        snapshot.reached = Some(format!("{by} (a plugin it lists)"));
                        work.push((snapshot.with_lfs(lfs.clone()), env.display(&skill.dir)))
                    }
                    Err(e) => problems.push(Problem::Skipped(Skipped::Unreadable(e))),
                }
            }
        }
    }
    for r in &reach.files {
        match contexts.iter_mut().find(|(_, rel, _)| *rel == r.path) {
            Some(known) if known.2.strength() >= r.kind.strength() => {}
            Some(known) => known.2 = r.kind,
            None => {
                if let Some(repo) = &env.repo {
                    contexts.push((repo.workdir().join(&r.path), r.path.clone(), r.kind));
                }
            }
        }
    }
    for (path, rel, kind) in &contexts {
        let top = env.repo.as_ref().map(|r| r.workdir());
        match Snapshot::context_file(path, rel.clone(), *kind, top) {
            Ok(mut snapshot) => {
                snapshot.reached = reach
                    .files
                    .iter()
                    .find(|r| r.path == *rel)
                    .map(|r| r.by.clone());
                work.push((snapshot, env.display(path)))
            }
            Err(e) => problems.push(Problem::Skipped(Skipped::Unreadable(e))),
        }
    }
    for (snapshot, _) in work.iter_mut() {
        snapshot.add_notes(&reach.notes);
    }
    let fail_on = fail_level(env, options)?;
    let gate = scan_gate(options, fail_on, policy.as_ref(), baseline.as_ref());
    let checked = gate::check_only(&work, &gate, options.jobs);
    let reports = collect(&mut problems, checked);
    let mut scan = Scan {
        fail_on,
        problems,
        empty: work.is_empty() && options.paths.is_empty(),
        reports,
        baseline_written: None,
        drift: Vec::new(),
        policy_added: Vec::new(),
        cache: None,
        lint: Vec::new(),
    };
    if let Some(path) = &options.write_baseline {
        let accepted = Baseline::accepting(
            scan.reports
                .iter()
                .map(|r| (r.name.as_str(), r.repo_path.as_str(), r.findings.as_slice())),
        );
        crate::fsutil::write_atomic(path, accepted.to_file_text().as_bytes()).map_err(
            |source| ScanError::WriteBaseline {
                path: path.clone(),
                source,
            },
        )?;
        let n = scan
            .reports
            .iter()
            .map(|r| r.findings.iter().filter(|f| f.suppressed.is_none()).count())
            .sum();
        scan.baseline_written = Some((path.clone(), n));
    }
    Ok(scan)
}

/// What the file `path` names is to agents, when it is agent context: its path from the top of
/// the repository (or as given, outside one) and its kind.
fn context_path(env: &Env, path: &Path) -> Option<(String, crate::skill::context::Kind)> {
    let abs = env.cwd.join(path);
    if !std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file() || m.file_type().is_symlink()) {
        return None;
    }
    let rel = env
        .repo
        .as_ref()
        .and_then(|repo| in_repo(env, repo, path))
        .unwrap_or_else(|| path.to_string_lossy().replace('\\', "/"));
    let rel = rel.trim_start_matches("./").to_owned();
    crate::skill::context::classify(&rel).map(|c| (rel, c.kind))
}

/// The paths of the work tree a scan knows: those the index holds and the untracked files
/// git does not ignore.
fn work_tree_paths(repo: &Repo) -> Result<Vec<String>, GitError> {
    let mut paths: Vec<String> = repo.staged_paths()?.into_iter().map(|(p, _)| p).collect();
    paths.extend(repo.untracked_paths(crate::staged::MAX_UNTRACKED)?);
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// The agent context files of the work tree: those the index holds or git shows as untracked,
/// and those on disk in the folders they lie in (what an agent wrote and nobody staged yet,
/// what git ignores in an agent folder), each once.
fn work_tree_context(top: &Path, paths: &[String]) -> Vec<(String, crate::skill::context::Kind)> {
    let plugins = crate::skill::context::plugins(paths.iter().map(String::as_str));
    let mut found: Vec<String> = paths
        .iter()
        .filter(|p| crate::skill::context::classify_in(p, &plugins).is_some())
        .cloned()
        .collect();
    let folders = crate::skill::loader::folders_of(paths.iter().map(String::as_str));
    found.extend(crate::skill::context::on_disk(top, folders));
    found.sort();
    found.dedup();
    found
        .into_iter()
        // What the index holds but the work tree no longer has is nothing an agent reads.
        .filter(|p| {
            std::fs::symlink_metadata(top.join(p))
                .is_ok_and(|m| m.is_file() || m.file_type().is_symlink())
        })
        .filter_map(|p| crate::skill::context::classify_in(&p, &plugins).map(|c| (p, c.kind)))
        .collect()
}

/// The closure of the work tree: from its agent context files (`contexts`: where, the path from
/// the top, the kind) and the SKILL.md of each skill of `work`, over the files on disk.
fn work_tree_reach(
    repo: &Repo,
    paths: &[String],
    contexts: &[(PathBuf, String, crate::skill::context::Kind)],
    work: &[(Snapshot, PathBuf)],
) -> crate::closure::reach::Reach {
    let mut entries: Vec<crate::closure::Entry> = contexts
        .iter()
        .map(|(_, rel, kind)| crate::closure::Entry {
            path: rel.clone(),
            kind: *kind,
            skill: None,
        })
        .collect();
    for (snapshot, _) in work.iter().filter(|(s, _)| s.context.is_none()) {
        if let Some(md) = snapshot
            .files
            .entries
            .iter()
            .find(|e| e.path.eq_ignore_ascii_case("SKILL.md"))
        {
            entries.push(crate::closure::reach::skill_entry(&format!(
                "{}/{}",
                snapshot.dir, md.path
            )));
        }
    }
    let tree = crate::closure::work_tree::WorkTree::new(repo.workdir(), paths.to_vec());
    crate::closure::reach::of(&tree, &entries)
}

/// Range mode: the skills changed between two revisions, at their content in the second,
/// read from git objects, with the policy file and inline allows of the base.
fn range(
    env: &mut Env,
    options: &Options,
    from: &str,
    to: &str,
    explicit_policy: Option<Policy>,
) -> Result<Scan, ScanError> {
    // What suppresses findings is read as of the base, so that a change cannot suppress its
    // own findings, unless the CI author said otherwise on purpose.
    let suppressions = if options.suppressions_from_target {
        to
    } else {
        from
    };
    // Each revision's policy file, read once: the one judged by gives the entries and the
    // team's settings (its roots say which skills are compared, so they are put in place
    // first); the two are compared for what the target adds. A policy that cannot be read
    // stops the scan below, once the revisions are known to exist (a bad revision has an
    // error of its own, with the hint for shallow checkouts).
    let (base_blob, target_blob) = {
        let repo = env
            .require_repo("scan --from-ref/--to-ref")
            .map_err(ScanError::RangeNeedsRepo)?;
        let blob_at =
            |rev: &str| repo.regular_blob(At::Revision(rev), POLICY_FILE, MAX_POLICY_BYTES);
        (blob_at(from), blob_at(to))
    };
    let judged = check::policy_in(
        if suppressions == from {
            &base_blob
        } else {
            &target_blob
        },
        At::Revision(suppressions),
    );
    // What widens the check is taken from the target too (its roots, a stricter failOn and
    // lint levels): a change that adds a root is judged by it now. A target policy that cannot
    // be read stops the scan: nothing says what it adds.
    let widening = if suppressions == from {
        check::policy_in(&target_blob, At::Revision(to))
    } else {
        Ok(None)
    };
    if let Ok(policy) = &judged {
        if suppressions == from {
            super::config::use_range_settings(
                env,
                policy.as_ref(),
                widening.as_ref().ok().and_then(Option::as_ref),
                (from, to),
            );
        } else {
            super::config::use_settings_of(env, policy.as_ref(), At::Revision(suppressions));
        }
    }
    let env = &*env;
    let repo = env
        .require_repo("scan --from-ref/--to-ref")
        .map_err(ScanError::RangeNeedsRepo)?;
    let mut problems = Vec::new();
    let baseline = match &options.baseline {
        Some(path) => Some(match in_repo(env, repo, path) {
            Some(rel) => match check::baseline_at(repo, At::Revision(suppressions), &rel) {
                Err(PolicyError::Read { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound
                        && !options.suppressions_from_target =>
                {
                    problems.push(Problem::BaselineNotAtBase {
                        rel,
                        from: from.to_owned(),
                    });
                    Baseline::accepting(std::iter::empty())
                }
                other => other?,
            },
            None => baseline_file(path)?,
        }),
        None => None,
    };
    legacy_baseline(&mut problems, options, baseline.as_ref());
    let roots = env.repo_relative_roots();
    // Each side's skills are read (capability drift reads them), not scanned again when a
    // run scanned that very state before (a job run again, a range that overlaps the last).
    let scans = check::known_scans(&options.scan);
    let known = scans.as_ref().map(|scans| KnownScans {
        scans,
        skip_reads: false,
    });
    let (mut changes, notes) = crate::staged::changes(repo, from, Some(to), &roots, known.as_ref())
        .map_err(ScanError::Revisions)?;
    // A submodule the range changes whose objects are not here: a warning (nothing says it
    // holds skills), an error with --strict (nothing says it does not).
    problems.extend(notes.into_iter().map(|n| match n {
        crate::skill::discover::Note::SubmoduleNotSearched { path, reason } if options.scan.strict => {
            Problem::Unchecked {
                path: path.display().to_string(),
                error: format!("a submodule this range changes could not be looked into for agent files ({reason}); --strict fails on what it cannot see"),
            }
        }
        n => Problem::Skipped(Skipped::Note(n)),
    }));
    // A change of the policy file alone changes what every skill's verdict may be (its
    // entries, failOn, roots): every skill at the target is checked, the unchanged ones as
    // themselves (no drift; the scan cache has most of them).
    let bytes = |blob: &Result<crate::git::RegularBlob, GitError>| match blob {
        Ok(crate::git::RegularBlob::Regular(bytes)) => Some(bytes.clone()),
        _ => None,
    };
    let mut policy_added = Vec::new();
    let (base_policy, target_policy) = (bytes(&base_blob), bytes(&target_blob));
    if base_policy != target_policy {
        if suppressions == from {
            let lines = |blob: &Option<Vec<u8>>| {
                blob.as_deref()
                    .and_then(|b| Policy::parse_bytes(b).ok())
                    .map(|p| p.lines())
                    .unwrap_or_default()
            };
            let before = lines(&base_policy);
            // Roots count now (they widen); a failOn counts now when it is stricter.
            let applied_fail_on = env
                .config
                .fail_on()
                .ok()
                .map(|f| format!("failOn: {}", f.as_str()));
            policy_added = lines(&target_policy)
                .into_iter()
                .filter(|l| !before.contains(l))
                .filter(|l| !l.starts_with("roots: ") && Some(l) != applied_fail_on.as_ref())
                .collect();
        }
        let all = crate::staged::skills_at(repo, At::Revision(to), &roots)
            .map_err(ScanError::Revisions)?;
        for skill in all.skills {
            if !changes.iter().any(|c| c.after.dir == skill.dir) {
                changes.push(crate::staged::SkillChange {
                    before: Some(skill.clone()),
                    after: skill,
                });
            }
        }
    }
    let judged = judged.map_err(ScanError::RangePolicy)?;
    let widening = widening.map_err(ScanError::RangePolicy)?;
    let fail_on = fail_level(env, options)?;
    let policy = match explicit_policy {
        Some(policy) => Some(policy),
        None => judged,
    };
    let mut gate = scan_gate(options, fail_on, policy.as_ref(), baseline.as_ref());
    gate.lint = options.lint;
    gate.stricter_lint = widening.as_ref();
    gate.allows = if suppressions == from {
        Allows::Before
    } else {
        Allows::After
    };
    let empty = changes.is_empty();
    // What the changed skills can do now that they could not, from the same changes.
    let mut drift = crate::drift::of_changes(&changes);
    for d in &mut drift {
        d.path = env
            .display(&repo.workdir().join(&d.path))
            .display()
            .to_string();
    }
    let changes = super::changes(env, repo, changes);
    let decision = gate::decide(&changes, &gate, options.jobs);
    let mut lint = Vec::new();
    let checked = decision
        .skills
        .into_iter()
        .map(|j| {
            lint.extend(j.introduced);
            j.check
        })
        .collect();
    let reports = collect(&mut problems, checked);
    Ok(Scan {
        fail_on,
        problems,
        reports,
        empty,
        baseline_written: None,
        drift,
        cache: None,
        lint,
        policy_added,
    })
}

/// A version 1 baseline is read, with a warning naming the command that rewrites it.
fn legacy_baseline(problems: &mut Vec<Problem>, options: &Options, baseline: Option<&Baseline>) {
    if let (Some(b), Some(path)) = (baseline, &options.baseline) {
        if b.is_legacy() && !b.findings.is_empty() {
            problems.push(Problem::LegacyBaseline {
                file: path.display().to_string(),
            });
        }
    }
}

/// The gate a scan applies: a person's change, judged by SkillGuard alone (`scan` does not
/// lint), with the scan's options, policy and baseline.
fn scan_gate<'a>(
    options: &Options,
    fail_on: FailOn,
    policy: Option<&'a Policy>,
    baseline: Option<&'a Baseline>,
) -> Gate<'a> {
    let mut gate = Gate::new(Writer::Person, policy, fail_on, options.today);
    gate.scan = options.scan;
    gate.baseline = baseline;
    gate.lint = false;
    gate
}

/// The fail level asked for, or the one configured for the state judged.
fn fail_level(env: &Env, options: &Options) -> Result<FailOn, ConfigError> {
    match options.fail_on {
        Some(fail_on) => Ok(fail_on),
        None => env.config.fail_on(),
    }
}

/// The reports of checked skills, their expired and unpinned policy entries (each once) and
/// unreadable files noted.
fn collect(problems: &mut Vec<Problem>, checked: Vec<check::SkillCheck>) -> Vec<SkillReport> {
    let mut reports = Vec::new();
    let mut unpinned: Vec<String> = Vec::new();
    for c in checked {
        problems.extend(c.expired.into_iter().map(Problem::Expired));
        for line in c.unpinned {
            if !unpinned.contains(&line) {
                unpinned.push(line);
            }
        }
        for e in &c.report.errors {
            problems.push(Problem::Unchecked {
                path: c.report.path.clone(),
                error: e.clone(),
            });
        }
        reports.push(c.report);
    }
    problems.extend(unpinned.into_iter().map(Problem::Unpinned));
    reports
}

/// `path` relative to the top of the repository, when it lies inside it (the file itself need
/// not exist in the work tree).
pub(crate) fn in_repo(env: &Env, repo: &Repo, path: &Path) -> Option<String> {
    let abs = env.cwd.join(path);
    let parent = abs.parent()?.canonicalize().ok()?;
    let rel = parent.join(abs.file_name()?);
    let rel = rel.strip_prefix(repo.workdir()).ok()?;
    Some(rel.to_string_lossy().replace('\\', "/"))
}
