//! The only place where the review's permissions are decided. The model reads the repository
//! through [`Sandbox::resolve_read`] and writes skills through [`Sandbox::manage`], which
//! changes an in-memory overlay of the skills as HEAD holds them and never the work tree.
//! Every refusal is a [`Denied`] naming the rule, which goes back to the model as the tool's
//! result.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::check::Snapshot;
use crate::config::ApplyMode;
use crate::git::FileChange;
use crate::manage::{self, Action, Place, Request};

/// A refused tool call: the rule and what the model is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Denied {
    pub rule: &'static str,
    pub message: String,
}

impl Denied {
    pub fn new(rule: &'static str, message: impl Into<String>) -> Denied {
        Denied {
            rule,
            message: message.into(),
        }
    }
}

/// What the review may do, from the configuration.
#[derive(Debug, Clone)]
pub struct Policy {
    pub allow_create: bool,
    pub allow_optimize: bool,
    pub apply: ApplyMode,
    /// Skills the review may improve although no agent wrote them (propose mode only).
    pub linked: BTreeSet<String>,
    pub max_new: u32,
    /// The most bytes all writes of one review may add up to.
    pub max_written: u64,
    /// Where new skills go, relative to the repository top.
    pub create_root: String,
    /// RFC 3339, for `extracted_at`.
    pub now: String,
}

/// One skill as the review sees it.
#[derive(Debug, Clone)]
pub struct SkillState {
    pub name: String,
    pub place: Place,
    /// Its directory, relative to the repository top.
    pub dir: String,
    /// As HEAD holds it; `None` when this review created it.
    pub base: Option<Snapshot>,
    /// As it is now, with this review's writes.
    pub current: Snapshot,
    /// Marked `source: auto-skill` at HEAD.
    pub auto_skill: bool,
    pub linked: bool,
    /// Files of it the model has read in this run (`SKILL.md`, `references/x.md`).
    pub read: BTreeSet<String>,
    /// Files this review changed: their new bytes, or `None` when removed.
    pub changed: Vec<(String, Option<Vec<u8>>)>,
    /// The verdict of its last write.
    pub verdict: Option<&'static str>,
}

impl SkillState {
    pub fn created(&self) -> bool {
        self.base.is_none()
    }

    pub fn description(&self) -> String {
        self.current
            .meta()
            .and_then(|m| m.description)
            .unwrap_or_default()
    }
}

/// A path the model asked to read, once resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A file or directory of a skill, served from the overlay: (skill index, path in it,
    /// empty for the skill's directory).
    Skill(usize, String),
    /// A file or directory of the work tree, inside the repository (canonical path, and the
    /// path relative to the top).
    Tree(PathBuf, String),
}

/// The overlay and the rules.
pub struct Sandbox {
    /// The repository top, canonical.
    top: PathBuf,
    /// The git directory (its index is copied for the shell's git).
    git_dir: PathBuf,
    pub skills: Vec<SkillState>,
    pub policy: Policy,
    created: u32,
    written: u64,
    /// Paths of the work tree found ignored or not, so that git is asked once per path.
    ignored_cache: std::collections::HashMap<String, bool>,
}

impl Sandbox {
    /// The skills as HEAD holds them (`skills`), each with whether it is linked.
    pub fn new(top: &Path, git_dir: &Path, skills: Vec<Snapshot>, policy: Policy) -> Sandbox {
        let mut states: Vec<SkillState> = skills
            .into_iter()
            .map(|s| {
                let name = s.dir_name.clone();
                let auto_skill = s.meta().is_some_and(|m| m.auto_skill);
                let root_shown = s
                    .dir
                    .strip_suffix(&format!("/{name}"))
                    .map(|d| match &s.category {
                        Some(c) => d.strip_suffix(&format!("/{c}")).unwrap_or(d).to_owned(),
                        None => d.to_owned(),
                    })
                    .unwrap_or_default();
                SkillState {
                    linked: policy.linked.contains(&name)
                        || s.meta()
                            .and_then(|m| m.name)
                            .is_some_and(|n| policy.linked.contains(&n)),
                    name,
                    place: Place {
                        root_shown,
                        category: s.category.clone(),
                    },
                    dir: s.dir.clone(),
                    base: Some(s.clone()),
                    current: s,
                    auto_skill,
                    read: BTreeSet::new(),
                    changed: Vec::new(),
                    verdict: None,
                }
            })
            .collect();
        states.sort_by(|a, b| a.dir.cmp(&b.dir));
        Sandbox {
            top: top.to_owned(),
            git_dir: git_dir.to_owned(),
            skills: states,
            policy,
            created: 0,
            written: 0,
            ignored_cache: Default::default(),
        }
    }

    pub fn top(&self) -> &Path {
        &self.top
    }

    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The skill named `name` (its directory name, or its frontmatter name).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.skills.iter().position(|s| s.name == name).or_else(|| {
            self.skills
                .iter()
                .position(|s| s.current.meta().and_then(|m| m.name).as_deref() == Some(name))
        })
    }

    /// Whether the model may change skill `i` (as `skill_list` tells it).
    pub fn may_change_now(&self, i: usize) -> bool {
        self.may_change(i).is_ok()
    }

    /// Whether the model may change skill `i` at all, and if not, why.
    fn may_change(&self, i: usize) -> Result<(), Denied> {
        let s = &self.skills[i];
        if s.created() {
            return Ok(());
        }
        if !self.policy.allow_optimize {
            return Err(Denied::new(
                "optimize-off",
                format!("changing existing skills is turned off (skill.autoSkill.allowOptimize); '{}' stays as it is", s.name),
            ));
        }
        if s.auto_skill {
            return Ok(());
        }
        if s.linked && self.policy.apply == ApplyMode::Propose {
            return Ok(());
        }
        let why = if s.linked {
            "it is linked, but a person's skill is changed only in a proposal a person reviews (skill.autoSkill.apply is not propose)"
        } else {
            "it has no `source: auto-skill` mark, so a person wrote it; modify it manually or ask the user"
        };
        Err(Denied::new(
            "not-editable",
            format!("'{}' may not be changed: {why}", s.name),
        ))
    }

    /// Resolves a path the model gave (relative to the repository top, or absolute inside it)
    /// for reading: a skill's files come from the overlay (what HEAD holds, with this review's
    /// writes); anything else from the disk, under [`Sandbox::resolve_on_disk`]'s rules.
    pub fn resolve_read(&mut self, path: &str) -> Result<Resolved, Denied> {
        let rel = self.lexical(path)?;
        if let Some(found) = self.skill_at(&rel) {
            return Ok(found);
        }
        let (real, rel) = self.resolve_on_disk(path)?;
        Ok(Resolved::Tree(real, rel))
    }

    /// The skill (and the path inside it) a normalised path falls in.
    fn skill_at(&self, rel: &str) -> Option<Resolved> {
        for (i, s) in self.skills.iter().enumerate() {
            if rel == s.dir {
                return Some(Resolved::Skill(i, String::new()));
            }
            if let Some(inside) = rel.strip_prefix(&format!("{}/", s.dir)) {
                return Some(Resolved::Skill(i, inside.to_owned()));
            }
        }
        None
    }

    /// The name of the skill this review changed that `path` falls in, if any.
    pub fn changed_skill_at(&self, path: &str) -> Result<Option<String>, Denied> {
        let rel = self.lexical(path)?;
        Ok(match self.skill_at(&rel) {
            Some(Resolved::Skill(i, _)) if !self.skills[i].changed.is_empty() => {
                Some(self.skills[i].name.clone())
            }
            _ => None,
        })
    }

    /// A path on disk, for reading: it must exist, stay inside the repository once every link
    /// is resolved, not be in `.git`, and not be ignored by git. Returns the canonical path and
    /// the path relative to the top.
    pub fn resolve_on_disk(&mut self, path: &str) -> Result<(PathBuf, String), Denied> {
        let rel = self.lexical(path)?;
        let joined = self.top.join(&rel);
        let real = std::fs::canonicalize(&joined).map_err(|e| {
            Denied::new(
                "not-found",
                format!("'{path}' cannot be read: {}", io_reason(&e)),
            )
        })?;
        let Ok(inside) = real.strip_prefix(&self.top) else {
            return Err(Denied::new(
                "outside-repository",
                format!("'{path}' leads outside the repository (through a symbolic link)"),
            ));
        };
        let Some(real_rel) = inside.to_str().map(|s| s.replace('\\', "/")) else {
            return Err(Denied::new(
                "bad-path",
                format!("'{path}' leads to a name that is not UTF-8"),
            ));
        };
        if real_rel.split('/').any(|c| c.eq_ignore_ascii_case(".git")) {
            return Err(Denied::new(
                "git-dir",
                format!("'{path}' is inside .git; git's own files are not readable"),
            ));
        }
        if !real_rel.is_empty() && self.is_ignored(&real_rel) {
            return Err(Denied::new(
                "ignored",
                format!("'{path}' is ignored by git (.gitignore); ignored files are never read (they often hold secrets)"),
            ));
        }
        Ok((real, real_rel))
    }

    /// A git pathspec given after `--`: inside the repository and not `.git` (it may name a
    /// file that no longer exists; git itself keeps it to the repository).
    pub fn check_pathspec(&self, path: &str) -> Result<(), Denied> {
        if path.starts_with(':') {
            return Err(Denied::new(
                "shell-option",
                format!("'{path}': pathspec magic is not allowed"),
            ));
        }
        self.lexical(path).map(drop)
    }

    /// `path` made relative to the top and normalised without touching the disk.
    fn lexical(&self, path: &str) -> Result<String, Denied> {
        if path.contains('\0') {
            return Err(Denied::new("bad-path", "the path contains a NUL byte"));
        }
        let given = Path::new(path.trim());
        let relative = if given.is_absolute() {
            // Both the canonical top and the path as written may be used.
            match given.strip_prefix(&self.top) {
                Ok(r) => r.to_owned(),
                Err(_) => {
                    return Err(Denied::new(
                        "outside-repository",
                        format!(
                            "'{path}' is outside the repository; paths are relative to its top"
                        ),
                    ))
                }
            }
        } else {
            given.to_owned()
        };
        let mut parts: Vec<String> = Vec::new();
        for c in relative.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(Denied::new(
                            "outside-repository",
                            format!("'{path}' leads outside the repository ('..')"),
                        ));
                    }
                }
                Component::Normal(p) => {
                    let p = p.to_string_lossy().into_owned();
                    if p.eq_ignore_ascii_case(".git") {
                        return Err(Denied::new(
                            "git-dir",
                            format!("'{path}' is inside .git; git's own files are not readable"),
                        ));
                    }
                    parts.push(p);
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(Denied::new(
                        "outside-repository",
                        format!("'{path}' is outside the repository"),
                    ))
                }
            }
        }
        Ok(parts.join("/"))
    }

    /// Whether git ignores `rel` (a tracked file never is), asking `git check-ignore`.
    pub fn is_ignored(&mut self, rel: &str) -> bool {
        if let Some(known) = self.ignored_cache.get(rel) {
            return *known;
        }
        self.ignored_among(&[rel.to_owned()]).contains(rel)
    }

    /// Which of `paths` (relative to the top) git ignores, in one `git check-ignore`. When git
    /// cannot answer, every one counts as ignored: a failure to ask never opens a file.
    pub fn ignored_among(&mut self, paths: &[String]) -> BTreeSet<String> {
        use std::io::Write as _;
        let unknown: Vec<&String> = paths
            .iter()
            .filter(|p| !self.ignored_cache.contains_key(*p))
            .collect();
        if !unknown.is_empty() {
            let answer = (|| -> std::io::Result<Option<Vec<u8>>> {
                let mut child = super::git_env::git(&self.top)
                    .args(["check-ignore", "--stdin", "-z"])
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::null())
                    .spawn()?;
                let mut input = Vec::new();
                for p in &unknown {
                    input.extend_from_slice(p.as_bytes());
                    input.push(0);
                }
                let mut stdin = child.stdin.take().expect("piped");
                let writer = std::thread::spawn(move || stdin.write_all(&input));
                let out = child.wait_with_output()?;
                let _ = writer.join();
                // 0: some are ignored, 1: none is; anything else is an error.
                Ok(matches!(out.status.code(), Some(0 | 1)).then_some(out.stdout))
            })();
            match answer {
                Ok(Some(stdout)) => {
                    let ignored: BTreeSet<String> = stdout
                        .split(|b| *b == 0)
                        .filter(|p| !p.is_empty())
                        .map(|p| String::from_utf8_lossy(p).into_owned())
                        .collect();
                    for p in unknown {
                        self.ignored_cache.insert(p.clone(), ignored.contains(p));
                    }
                }
                _ => {
                    for p in unknown {
                        self.ignored_cache.insert(p.clone(), true);
                    }
                }
            }
        }
        paths
            .iter()
            .filter(|p| self.ignored_cache.get(*p).copied().unwrap_or(true))
            .cloned()
            .collect()
    }

    /// Records that the model read file `rel` of skill `i`.
    pub fn mark_read(&mut self, i: usize, rel: &str) {
        let rel = if rel.is_empty() { "SKILL.md" } else { rel };
        self.skills[i].read.insert(rel.to_owned());
    }

    /// Carries out one `skill_manage` call on the overlay, under every rule.
    pub fn manage(&mut self, request: &Request) -> Result<manage::Outcome, Denied> {
        if matches!(request.action, Action::Delete | Action::RemoveFile) {
            return Err(Denied::new(
                "no-delete",
                format!(
                    "{} is not available to the review: it never deletes; a person does that",
                    request.action.as_str()
                ),
            ));
        }
        manage::validate(request).map_err(|e| Denied::new("invalid", e))?;
        let existing = self.find(&request.name);
        let options = manage::Options {
            auto_skill: true,
            stamp: true,
            now: self.policy.now.clone(),
            dry_run: false,
        };
        let (index, place, before, options) = match (existing, request.action) {
            (Some(i), Action::Create) => {
                return Err(Denied::new(
                    "no-overwrite",
                    format!(
                        "a skill named '{}' exists ({}); create never overwrites a skill: read it and patch it if you may change it",
                        request.name, self.skills[i].dir
                    ),
                ))
            }
            (None, Action::Create) => {
                self.may_create(request)?;
                let place = Place {
                    root_shown: self.policy.create_root.clone(),
                    category: request.category.clone(),
                };
                let dir = place.dir(&request.name);
                // A skill a person has in the work tree but not yet committed is theirs.
                if self.top.join(&dir).exists() {
                    return Err(Denied::new(
                        "no-overwrite",
                        format!("'{dir}' exists in the work tree; create never overwrites"),
                    ));
                }
                // Not inside another skill (a category named like one), nor around one.
                let inside = self.skills.iter().find(|s| {
                    dir.starts_with(&format!("{}/", s.dir)) || s.dir.starts_with(&format!("{dir}/"))
                });
                let mut ancestor = Path::new(&dir).parent();
                let mut on_disk = None;
                while let Some(a) = ancestor.filter(|a| !a.as_os_str().is_empty()) {
                    if self.top.join(a).join("SKILL.md").exists() {
                        on_disk = Some(a.display().to_string());
                        break;
                    }
                    ancestor = a.parent();
                }
                if let Some(other) = inside.map(|s| s.dir.clone()).or(on_disk) {
                    return Err(Denied::new(
                        "no-overwrite",
                        format!("'{dir}' would be inside (or around) the skill '{other}'; choose another name or category"),
                    ));
                }
                (None, place, None, options)
            }
            (None, _) => {
                return Err(Denied::new(
                    "not-found",
                    format!(
                        "no skill named '{}'; skill_list shows them all",
                        request.name
                    ),
                ))
            }
            (Some(i), _) => {
                self.may_change(i)?;
                let s = &self.skills[i];
                // The file changed must have been read: SKILL.md for an edit, the file a patch
                // or a write replaces (a new support file needs SKILL.md read).
                let file = match request.action {
                    Action::Patch => request.file_path.as_deref().unwrap_or("SKILL.md"),
                    Action::WriteFile => request
                        .file_path
                        .as_deref()
                        .filter(|f| s.current.files.entry(f).is_some())
                        .unwrap_or("SKILL.md"),
                    _ => "SKILL.md",
                };
                if !s.created() && !s.read.contains(file) {
                    return Err(Denied::new(
                        "read-first",
                        format!(
                            "read {}/{file} with read_file before changing it",
                            s.dir
                        ),
                    ));
                }
                // A person's skill (linked) is edited without claiming it for agents.
                let stamp = s.created() || s.auto_skill;
                let options = manage::Options { stamp, ..options };
                (Some(i), s.place.clone(), Some(s.current.clone()), options)
            }
        };
        if request.category.is_some() && request.action != Action::Create {
            return Err(Denied::new("invalid", "category is only for create"));
        }
        let assessed = manage::assess(request, before.as_ref(), &place, &options);
        if !assessed.outcome.ok {
            let rule = if assessed.outcome.verdict == Some("dangerous") {
                "guard"
            } else if assessed
                .outcome
                .errors
                .iter()
                .any(|e| e.starts_with(manage::GRANTS_REFUSED))
            {
                "grants"
            } else if assessed
                .outcome
                .errors
                .iter()
                .any(|e| e.starts_with("lint "))
            {
                "lint"
            } else {
                "invalid"
            };
            return Err(Denied::new(rule, refusal_text(&assessed.outcome)));
        }
        let after = assessed.after.expect("an accepted write has a result");
        // The model saw secrets masked; a mask it writes back would replace a skill's own text.
        let masks = crate::redact::masks;
        for (path, bytes) in &assessed.changes {
            let Some(bytes) = bytes else { continue };
            let old = before
                .as_ref()
                .and_then(|b| b.read(path).ok())
                .map_or(0, |b| masks(&b));
            if masks(bytes) > old {
                return Err(Denied::new(
                    "masked",
                    format!(
                        "{path} would hold a secret's mask ({}) that it does not hold now: you were shown that text masked; leave it as it is",
                        crate::redact::MASK
                    ),
                ));
            }
        }
        // A person's skill never becomes an agent's by an edit.
        if let Some(i) = index {
            let s = &self.skills[i];
            if !s.created() && !s.auto_skill && after.meta().is_some_and(|m| m.auto_skill) {
                return Err(Denied::new(
                    "provenance",
                    format!("'{}' was written by a person; an edit may not mark it `source: auto-skill`", s.name),
                ));
            }
        }
        let added: u64 = assessed
            .changes
            .iter()
            .map(|(_, b)| b.as_ref().map_or(0, |b| b.len() as u64))
            .sum();
        if self.written + added > self.policy.max_written {
            return Err(Denied::new(
                "size",
                format!(
                    "this review may write at most {} bytes in all; {} are written already",
                    self.policy.max_written, self.written
                ),
            ));
        }
        self.written += added;
        let mut outcome = assessed.outcome;
        outcome.changed = assessed.changes.iter().map(|(p, _)| p.clone()).collect();
        match index {
            Some(i) => {
                let s = &mut self.skills[i];
                s.current = after;
                s.verdict = outcome.verdict;
                for (rel, bytes) in assessed.changes {
                    s.changed.retain(|(p, _)| *p != rel);
                    s.read.insert(rel.clone());
                    s.changed.push((rel, bytes));
                }
            }
            None => {
                self.created += 1;
                let dir = place.dir(&request.name);
                let mut read = BTreeSet::new();
                read.insert("SKILL.md".to_owned());
                self.skills.push(SkillState {
                    name: request.name.clone(),
                    place,
                    dir,
                    base: None,
                    current: after,
                    auto_skill: true,
                    linked: false,
                    read,
                    changed: assessed.changes,
                    verdict: outcome.verdict,
                });
            }
        }
        Ok(outcome)
    }

    /// The rules of a new skill: creating allowed, under the cap, not a near-duplicate.
    fn may_create(&self, request: &Request) -> Result<(), Denied> {
        if !self.policy.allow_create {
            return Err(Denied::new(
                "create-off",
                "creating skills is turned off (skill.autoSkill.allowCreate)",
            ));
        }
        if self.created >= self.policy.max_new {
            return Err(Denied::new(
                "max-new",
                format!(
                    "this review may create at most {} new skills (skill.autoSkill.maxNew); improve one of them instead",
                    self.policy.max_new
                ),
            ));
        }
        let description = request
            .content
            .as_deref()
            .and_then(|c| crate::skill::meta::parse(c.as_bytes()).ok())
            .and_then(|(m, _)| m.description)
            .unwrap_or_default();
        for s in &self.skills {
            let score =
                super::similar::similarity(&request.name, &description, &s.name, &s.description());
            if score.near() {
                return Err(Denied::new(
                    "near-duplicate",
                    format!(
                        "'{}' is too close to the existing skill '{}' ({}); patch {} instead of creating another",
                        request.name, s.name, score, s.name
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The changes of the whole review, as files relative to the repository top.
    pub fn file_changes(&self) -> Vec<FileChange> {
        let mut out = Vec::new();
        for s in &self.skills {
            for (rel, bytes) in &s.changed {
                let path = format!("{}/{rel}", s.dir);
                let unchanged = s
                    .base
                    .as_ref()
                    .map(|b| match bytes {
                        Some(new) => b.read(rel).ok().as_ref() == Some(new),
                        None => b.files.entry(rel).is_none(),
                    })
                    .unwrap_or(false);
                if unchanged {
                    continue;
                }
                out.push(FileChange {
                    path,
                    content: bytes.clone(),
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    pub fn created_count(&self) -> u32 {
        self.created
    }
}

/// The outcome's errors and findings, as the model is told them.
fn refusal_text(o: &manage::Outcome) -> String {
    let mut out = format!(
        "{} {} refused: {}",
        o.action.as_str(),
        o.skill,
        o.errors.join("; ")
    );
    for f in o.findings.iter().take(10) {
        out.push_str(&format!(
            "\n- {} ({}) {}:{} {}",
            f.rule, f.severity, f.file, f.line, f.message
        ));
    }
    out
}

fn io_reason(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::NotFound => "it does not exist",
        std::io::ErrorKind::PermissionDenied => "permission denied",
        _ => "it could not be opened",
    }
}
