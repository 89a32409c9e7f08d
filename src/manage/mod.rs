//! `skill_manage` (`skill-evolution-guard.md` §4): create, edit, patch, delete a skill, write
//! or remove a support file, for a person (`git skill manage`) or an agent (the review's
//! tool). Every request is validated (§4.3), the skill as it would be is assembled in memory
//! and checked as a whole (SkillGuard and lint, through the one check path), and only then
//! written: each file by a temporary file, fsync and rename, under one lock per skill, so that
//! concurrent writers serialise and a patch applies to the latest content. A refused request
//! changes nothing and says why.
//!
//! The library never prints: [`manage`] returns an [`Outcome`].

mod disk;
pub mod provenance;
pub mod request;
pub mod rules;

use std::path::PathBuf;

use serde::Serialize;

pub use request::{Action, Request};

use crate::check::{self, Snapshot};
use crate::skill::files::SkillFiles;

/// Where a request applies.
#[derive(Debug, Clone)]
pub struct Target {
    /// The skill root (absolute): skills are `<root>/[<category>/]<name>/`.
    pub root: PathBuf,
    /// The root as reports show it (relative to the repository top when in one).
    pub root_shown: String,
    /// Directories from which on no path component may be a symbolic link: the repository
    /// top (or the root itself outside a repository).
    pub top: PathBuf,
    /// Where the per-skill locks live (under the git directory in a repository).
    pub locks: PathBuf,
}

/// How a request is carried out.
#[derive(Debug, Clone)]
pub struct Options {
    /// Written for an agent: `create` stamps `metadata.source: auto-skill` and
    /// `extracted_at`, edits keep the mark, inline `git-skill:allow` comments are not
    /// honoured (the model could write one), and lint holds the skill to the writer limits.
    pub auto_skill: bool,
    /// Stamp the provenance mark on SKILL.md (`create` and edits by an agent). Off for the
    /// review's edits of a person's linked skill: an agent's edit never claims the skill.
    pub stamp: bool,
    /// RFC 3339, for `extracted_at`.
    pub now: String,
    /// Assemble and check, write nothing.
    pub dry_run: bool,
}

/// One SkillGuard finding of the skill as it would be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindingSummary {
    pub rule: &'static str,
    pub severity: &'static str,
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// What a request did, as `--format json` gives it: `{ok, action, skill, path, verdict,
/// findings, errors}`.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub ok: bool,
    pub action: Action,
    pub skill: String,
    /// The skill's directory as shown (its root, its category, its name).
    pub path: String,
    /// SkillGuard's verdict on the skill as it would be; `None` when refused before that.
    pub verdict: Option<&'static str>,
    pub findings: Vec<FindingSummary>,
    /// Why it was refused: validation, lint errors it would bring, a dangerous verdict.
    pub errors: Vec<String>,
    /// Files written or removed, relative to the skill (nothing when refused or dry).
    pub changed: Vec<String>,
}

/// What stops a request from being carried out at all (as opposed to a refusal, which is an
/// [`Outcome`] with `ok: false`).
#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    #[error("cannot take the lock of skill {skill} ('{}'): {source}", .path.display())]
    Lock {
        skill: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read '{}': {message}", .path.display())]
    Read { path: PathBuf, message: String },
    #[error("cannot write '{}': {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A change to one file of the skill: its new bytes, or `None` to remove it.
pub type Change = (String, Option<Vec<u8>>);

/// Where a skill is, as reports show it.
#[derive(Debug, Clone)]
pub struct Place {
    /// The root as shown (relative to the repository top when in one).
    pub root_shown: String,
    pub category: Option<String>,
}

impl Place {
    /// `root/category/name`.
    pub fn dir(&self, name: &str) -> String {
        join(&self.root_shown, self.category.as_deref(), name)
    }
}

/// A request judged against the skill as it is: the outcome (refused, or `ok` with the
/// verdict and findings), the file changes it makes, and the skill as it would be.
#[derive(Debug)]
pub struct Assessed {
    pub outcome: Outcome,
    pub changes: Vec<Change>,
    /// `None` for a deletion or a refusal.
    pub after: Option<Snapshot>,
}

/// An outcome for `request` at `path`, not yet decided.
pub fn blank_outcome(request: &Request, path: String) -> Outcome {
    Outcome {
        ok: false,
        action: request.action,
        skill: request.name.clone(),
        path,
        verdict: None,
        findings: Vec::new(),
        errors: Vec::new(),
        changed: Vec::new(),
    }
}

/// An agent may not grant a skill tools, hooks, a permission mode or MCP servers: a field that
/// does so and is new (or changed) in `after` refuses the write. Fields a person put in the
/// skill before stay as they are.
pub(crate) fn check_grants(before: Option<&Snapshot>, after: &Snapshot) -> Result<(), String> {
    let grants_of = |s: &Snapshot| {
        s.files
            .skill_md
            .as_deref()
            .map(crate::skill::meta::parse)
            .map(|parsed| parsed.map(|(_, map)| crate::skill::meta::grants(&map)))
    };
    let had = before
        .and_then(grants_of)
        .and_then(Result::ok)
        .unwrap_or_default();
    // What cannot be read cannot be told not to grant anything.
    let after_grants = match grants_of(after) {
        Some(Ok(grants)) => grants,
        Some(Err(e)) => {
            return Err(format!(
                "{GRANTS_REFUSED}, and the frontmatter cannot be read ({e}) to tell what it grants; write valid frontmatter"
            ))
        }
        None => Vec::new(),
    };
    let added: Vec<String> = after_grants
        .into_iter()
        .filter(|g| !had.contains(g))
        .map(|(k, _)| k)
        .collect();
    if added.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{GRANTS_REFUSED}: the frontmatter grants {}; remove {} (a person adds them after reading the skill)",
        added.join(", "),
        if added.len() == 1 { "it" } else { "them" }
    ))
}

/// How a refusal of a field that grants tools starts (the review names its rule by it).
pub const GRANTS_REFUSED: &str =
    "only a person grants a skill tools, hooks, permissions or MCP servers";

/// The checks that need nothing but the request: its parameters, the name, the category and
/// a support file's path (§4.3).
pub fn validate(request: &Request) -> Result<(), String> {
    request.check_parameters()?;
    rules::name(&request.name)?;
    if let Some(category) = &request.category {
        rules::category(category)?;
    }
    if let Some(path) = &request.file_path {
        let is_skill_md = path == "SKILL.md" && request.action == Action::Patch;
        if !is_skill_md {
            rules::support_path(path)?;
        }
    }
    Ok(())
}

/// Judges `request` against the skill as it is (`before`, `None` when it does not exist):
/// works out the changed files, assembles the skill as it would be and checks it whole
/// (limits, SkillGuard, the lint errors the change brings). Reads and writes nothing: the disk
/// writer and the review's in-memory overlay both start from this.
pub fn assess(
    request: &Request,
    before: Option<&Snapshot>,
    place: &Place,
    options: &Options,
) -> Assessed {
    let dir_rel = place.dir(&request.name);
    let mut outcome = blank_outcome(request, dir_rel.clone());
    let refused = |mut outcome: Outcome, why: String| {
        outcome.errors.push(why);
        Assessed {
            outcome,
            changes: Vec::new(),
            after: None,
        }
    };
    let changes = match changes(request, before, options) {
        Ok(c) => c,
        Err(e) => return refused(outcome, e),
    };
    let after = match (before, request.action) {
        (_, Action::Delete) => None,
        (None, _) => {
            let bytes = changes[0].1.clone().unwrap_or_default();
            let mut blobs = std::collections::HashMap::new();
            blobs.insert("SKILL.md".to_owned(), bytes.clone());
            Some(Snapshot::from_blobs(
                dir_rel.clone(),
                request.name.clone(),
                place.root_shown.clone(),
                place.category.clone(),
                SkillFiles::with_skill_md(bytes),
                blobs,
            ))
        }
        (Some(before), _) => {
            let mut s = before.clone();
            for (rel, bytes) in &changes {
                s = match bytes {
                    Some(b) => s.with_file(rel, b.clone()),
                    None => s.without_file(rel),
                };
            }
            Some(s)
        }
    };
    if let Some(after) = &after {
        if let Err(e) = check_limits(after, &changes) {
            return refused(outcome, e);
        }
        if options.auto_skill {
            if let Err(e) = check_grants(before, after) {
                return refused(outcome, e);
            }
        }
        // The one gate. What an agent writes is judged strictly: no allow comment it could
        // write itself, and no "this only describes an attack" demotion it could stage. No
        // policy applies, so no expiry to weigh; the request's own date all the same. Only a
        // dangerous skill is refused (a caution is shown).
        let writer = match options.auto_skill {
            true => check::Writer::Agent,
            false => check::Writer::Person,
        };
        let today = chrono::DateTime::parse_from_rfc3339(&options.now)
            .map(|t| t.date_naive())
            .unwrap_or_default();
        let gate = check::Gate::new(writer, None, crate::config::FailOn::Dangerous, today);
        let change = check::Change {
            before: before.cloned(),
            after: after.clone(),
            display: PathBuf::from(&dir_rel),
        };
        let judged = check::gate::decide(std::slice::from_ref(&change), &gate, 1)
            .skills
            .remove(0);
        let report = &judged.check.report;
        outcome.verdict = Some(report.verdict.as_str());
        outcome.findings = report
            .findings
            .iter()
            .filter(|f| f.suppressed.is_none())
            .map(|f| FindingSummary {
                rule: f.rule,
                severity: f.severity.as_str(),
                file: f.file.clone(),
                line: f.line,
                message: f.message.clone(),
            })
            .collect();
        for e in &report.errors {
            outcome.errors.push(format!("could not be checked: {e}"));
        }
        if judged.verdict_blocks(gate.fail_on) {
            outcome.errors.push(
                "SkillGuard: the skill would be dangerous (its critical findings are listed)"
                    .into(),
            );
        }
        // Lint errors the change brings; those the skill had already are not this request's.
        for d in &judged.introduced {
            outcome
                .errors
                .push(format!("lint {}: {}", d.code, d.message));
        }
        if !outcome.errors.is_empty() {
            return Assessed {
                outcome,
                changes: Vec::new(),
                after: None,
            };
        }
    }
    outcome.ok = true;
    Assessed {
        outcome,
        changes,
        after,
    }
}

/// Carries out `request` on the skills under `target`.
pub fn manage(
    target: &Target,
    request: &Request,
    options: &Options,
) -> Result<Outcome, ManageError> {
    let first = Place {
        root_shown: target.root_shown.clone(),
        category: request.category.clone(),
    };
    let mut outcome = blank_outcome(request, first.dir(&request.name));
    let refuse = |mut outcome: Outcome, why: String| {
        outcome.errors.push(why);
        Ok(outcome)
    };
    if let Err(e) = validate(request) {
        return refuse(outcome, e);
    }
    if let Err(e) = disk::no_link_on_the_way(&target.top, &target.root) {
        return refuse(outcome, e);
    }
    // One writer per skill from here: what is read below is what the write replaces.
    let _lock = disk::lock(&target.locks, &target.root, &request.name)?;
    let existing = disk::find_skill(&target.root, &request.name)?;
    let (dir, category) = match (&existing, request.action) {
        (Some(found), Action::Create) => {
            let where_ = found.strip_prefix(&target.root).unwrap_or(found);
            return refuse(
                outcome,
                format!(
                    "a skill named '{}' exists already ({}): create never overwrites; edit or patch it",
                    request.name,
                    where_.display()
                ),
            );
        }
        (None, Action::Create) => {
            let mut dir = target.root.clone();
            if let Some(c) = &request.category {
                dir.push(c);
            }
            dir.push(&request.name);
            (dir, request.category.clone())
        }
        (None, _) => {
            return refuse(
                outcome,
                format!(
                    "no skill named '{}' under {}",
                    request.name, target.root_shown
                ),
            )
        }
        (Some(found), _) => {
            let category = found
                .parent()
                .filter(|p| *p != target.root)
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned());
            (found.clone(), category)
        }
    };
    let place = Place {
        root_shown: target.root_shown.clone(),
        category,
    };
    outcome.path = place.dir(&request.name);
    if let Err(e) = disk::no_link_on_the_way(&target.root, &dir) {
        return refuse(outcome, e);
    }
    let before = match existing {
        Some(_) => Some(
            Snapshot::from_dir(
                &dir,
                outcome.path.clone(),
                target.root_shown.clone(),
                place.category.clone(),
            )
            .map_err(|e| ManageError::Read {
                path: e.path.clone(),
                message: e.source.to_string(),
            })?,
        ),
        None => None,
    };
    let Assessed {
        mut outcome,
        changes,
        ..
    } = assess(request, before.as_ref(), &place, options);
    if !outcome.ok || options.dry_run {
        return Ok(outcome);
    }
    outcome.changed = match request.action {
        Action::Delete => {
            disk::remove_skill(&dir)?;
            vec![String::new()]
        }
        _ => disk::write(&dir, &changes)?,
    };
    Ok(outcome)
}

/// `root/category/name`, `/`-separated.
fn join(root: &str, category: Option<&str>, name: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if !root.is_empty() {
        parts.push(root.trim_end_matches('/'));
    }
    if let Some(c) = category {
        parts.push(c);
    }
    parts.push(name);
    parts.join("/")
}

/// The files the request changes, worked out from the skill as it is.
fn changes(
    request: &Request,
    before: Option<&Snapshot>,
    options: &Options,
) -> Result<Vec<Change>, String> {
    let stamp = |text: &str| -> Result<String, String> {
        rules::skill_md(text)?;
        let text = if options.stamp {
            provenance::stamp(text, &options.now)?
        } else {
            text.to_owned()
        };
        let meta = crate::skill::meta::parse(text.as_bytes())
            .map_err(|e| e.to_string())?
            .0;
        if meta.name.as_deref() != Some(request.name.as_str()) {
            return Err(format!(
                "SKILL.md's `name` is '{}', not '{}': they must be the same",
                meta.name.unwrap_or_default(),
                request.name
            ));
        }
        rules::skill_md(&text)?;
        Ok(text)
    };
    let read = |rel: &str| -> Result<String, String> {
        let snapshot = before.ok_or("the skill does not exist")?;
        if snapshot.files.entry(rel).is_none() {
            return Err(format!("the skill has no file '{rel}'"));
        }
        let bytes = snapshot.read(rel).map_err(|e| format!("'{rel}': {e}"))?;
        String::from_utf8(bytes)
            .map_err(|_| format!("'{rel}' is not UTF-8 text; it cannot be patched"))
    };
    match request.action {
        Action::Create | Action::Edit => {
            let text = stamp(request.content.as_deref().unwrap_or_default())?;
            Ok(vec![("SKILL.md".into(), Some(text.into_bytes()))])
        }
        Action::Patch => {
            let rel = request.file_path.as_deref().unwrap_or("SKILL.md");
            let current = read(rel)?;
            let old = request.old_string.as_deref().unwrap_or_default();
            let new = request.new_string.as_deref().unwrap_or_default();
            let count = current.matches(old).count();
            let patched = match (count, request.replace_all) {
                (0, _) => {
                    return Err(format!(
                        "`old_string` does not occur in {rel} (any more: the skill may have changed since it was read); read it again"
                    ))
                }
                (1, _) | (_, true) => current.replace(old, new),
                (n, false) => {
                    return Err(format!(
                        "`old_string` occurs {n} times in {rel}; give more context to make it unique, or set replace_all"
                    ))
                }
            };
            let patched = if rel == "SKILL.md" {
                stamp(&patched)?
            } else {
                rules::file_size(rel, patched.len())?;
                patched
            };
            Ok(vec![(rel.to_owned(), Some(patched.into_bytes()))])
        }
        Action::Delete => Ok(Vec::new()),
        Action::WriteFile => {
            let rel = request.file_path.clone().unwrap_or_default();
            let content = request.file_content.clone().unwrap_or_default();
            rules::file_size(&rel, content.len())?;
            Ok(vec![(rel, Some(content.into_bytes()))])
        }
        Action::RemoveFile => {
            let rel = request.file_path.clone().unwrap_or_default();
            let snapshot = before.ok_or("the skill does not exist")?;
            if snapshot.files.entry(&rel).is_none() {
                return Err(format!("the skill has no file '{rel}'"));
            }
            Ok(vec![(rel, None)])
        }
    }
}

/// The whole skill's limits, and each changed support file's.
fn check_limits(after: &Snapshot, changes: &[Change]) -> Result<(), String> {
    for (rel, bytes) in changes {
        if let Some(b) = bytes {
            rules::file_size(rel, b.len())?;
        }
    }
    rules::totals(after.files.entries.len(), after.total_bytes())
}
