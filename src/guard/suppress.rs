//! Suppressions, each with a reason and always visible in the report: inline comments
//! (`git-skill:allow RULE -- reason`) and the repository's policy file (`.skillguard.yaml`);
//! the baseline is [`super::baseline`], what names a finding [`super::fingerprint`].

use std::path::Path;
use std::sync::OnceLock;

use chrono::NaiveDate;
use regex::Regex;

pub use super::baseline::{Baseline, BaselineEntry, BASELINE_VERSION};
use super::finding::{Finding, Suppression};
pub use super::fingerprint::{fingerprint, is_fingerprint, locate, repo_file};
pub use super::glob::{glob_regex, Glob};
use crate::report::{Diagnostic, Level, Setting};

// ---------------------------------------------------------------- inline

fn inline_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?:<!--|#|//)[ \t]*git-skill:allow[ \t]+([A-Z]{3}[0-9]{3}(?:[ \t]*,[ \t]*[A-Z]{3}[0-9]{3})*)[ \t]+--[ \t]+([^\n]*?)[ \t]*(?:-->)?[ \t]*$")
            .expect("valid inline allow regex")
    })
}

/// One `git-skill:allow` comment: its 1-based line, the rules it names and its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineAllow {
    pub line: usize,
    pub rules: Vec<String>,
    pub reason: String,
}

/// The inline allows of a text, in line order. A comment without a reason allows nothing.
pub fn inline_allows(text: &str) -> Vec<InlineAllow> {
    let mut out = Vec::new();
    if !text.contains("git-skill:allow") {
        return out;
    }
    for (i, line) in text.lines().enumerate() {
        let Some(c) = inline_regex().captures(line) else {
            continue;
        };
        let reason = c[2].trim().to_owned();
        if reason.is_empty() {
            continue;
        }
        out.push(InlineAllow {
            line: i + 1,
            rules: c[1].split(',').map(|r| r.trim().to_owned()).collect(),
            reason,
        });
    }
    out
}

/// Marks what each allow comment covers among one file's findings: for each rule it names,
/// exactly one finding, the first on the comment's own line, else the first on the next line.
/// A comment never covers a second finding, so a copy of an allowed line pasted elsewhere (or
/// beside it) counts on its own.
pub fn apply_inline(allows: &[InlineAllow], findings: &mut [Finding]) {
    for allow in allows {
        for rule in &allow.rules {
            let pick = [allow.line, allow.line + 1].into_iter().find_map(|line| {
                findings
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.suppressed.is_none() && f.line == line && f.rule == rule)
                    .min_by_key(|(_, f)| f.column)
                    .map(|(i, _)| i)
            });
            if let Some(i) = pick {
                findings[i].suppressed = Some(Suppression::new("inline", &allow.reason));
            }
        }
    }
}

// ---------------------------------------------------------------- policy file

/// `failOn` and `roots` checked: a level git-skill knows, roots that stay inside the
/// repository (a file anyone can commit must not point a scan elsewhere).
fn repo_settings(
    fail_on: Option<String>,
    roots: Option<Vec<String>>,
) -> Result<RepoSettings, String> {
    if let Some(level) = &fail_on {
        if !matches!(
            level.to_ascii_lowercase().as_str(),
            "dangerous" | "caution" | "never"
        ) {
            return Err("`failOn` must be dangerous, caution or never".into());
        }
    }
    let roots = roots.unwrap_or_default();
    for (i, root) in roots.iter().enumerate() {
        let n = i + 1;
        let r = root.trim();
        if r.is_empty() {
            return Err(format!("roots entry {n} is empty"));
        }
        if r.starts_with(['/', '\\', '~'])
            || r.get(1..3) == Some(":\\")
            || r.split(['/', '\\']).any(|p| p == "..")
        {
            return Err(format!(
                "roots entry {n} leads out of the repository (roots are folders relative to its top)"
            ));
        }
    }
    Ok(RepoSettings {
        fail_on,
        roots: roots.into_iter().map(|r| r.trim().to_owned()).collect(),
    })
}

/// The policy file's name, at the top of the repository.
pub const POLICY_FILE: &str = ".skillguard.yaml";

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyDoc {
    #[serde(default)]
    /// `allow:` with nothing after it (null) is no entries.
    allow: Option<Vec<PolicyEntry>>,
    #[serde(default)]
    lint: Option<Vec<LintEntry>>,
    /// The team's `skill.failOn`.
    #[serde(default, rename = "failOn")]
    fail_on: Option<String>,
    /// The team's `skill.roots`, relative to the top of the repository.
    #[serde(default)]
    roots: Option<Vec<String>>,
}

/// The team's settings the policy file holds beside its entries, so that every clone and CI
/// job has them: the lowest layer of configuration above the defaults (git config, the
/// environment and flags override them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepoSettings {
    pub fail_on: Option<String>,
    pub roots: Vec<String>,
}

impl RepoSettings {
    /// The settings a range is judged by, from the base's (`self`) and the target's: what
    /// widens the check is taken from either (the roots of both; the stricter `failOn`, a
    /// missing one counting as `dangerous`), what narrows it only from the base. So a change
    /// can add a root and its skills are judged now, and cannot lower the fail level.
    pub fn widened(&self, target: &RepoSettings) -> RepoSettings {
        let rank = |v: &Option<String>| match v.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("never") => 0,
            Some("caution") => 2,
            _ => 1,
        };
        let stricter = if rank(&target.fail_on) > rank(&self.fail_on) {
            &target.fail_on
        } else {
            &self.fail_on
        };
        let fail_on = (self.fail_on.is_some() || target.fail_on.is_some())
            .then(|| stricter.clone().unwrap_or_else(|| "dangerous".to_owned()));
        // Roots set in the file take the place of the conventional ones (`skills`,
        // `agents/skills`): a side without roots means those, and the union keeps them.
        let effective = |s: &RepoSettings| -> Vec<String> {
            if s.roots.is_empty() {
                crate::skill::loader::CONVENTION_ROOTS
                    .iter()
                    .map(|r| r.to_string())
                    .collect()
            } else {
                s.roots.clone()
            }
        };
        let roots = if self.roots.is_empty() && target.roots.is_empty() {
            Vec::new()
        } else {
            let mut roots = effective(self);
            for r in effective(target) {
                if !roots.contains(&r) {
                    roots.push(r);
                }
            }
            roots
        };
        RepoSettings { fail_on, roots }
    }
}

/// A lint code's level for some or all skills: `lint:` entries of the policy file.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LintEntry {
    /// `SK011` or its name (`file-outside-allowed-dirs`).
    pub code: String,
    /// `error`, `warning` or `off`.
    pub level: String,
    /// A glob over the diagnostic's file, relative to the skill directory.
    pub path: Option<String>,
    /// The skill's name.
    pub skill: Option<String>,
    pub reason: String,
}

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyEntry {
    pub rule: String,
    /// A glob over the finding's file, relative to the skill directory (`*`, `**`, `?`).
    pub path: Option<String>,
    /// The skill's name.
    pub skill: Option<String>,
    pub reason: String,
    /// `YYYY-MM-DD`; from that day on the entry no longer applies.
    pub expires: Option<String>,
    /// The findings the entry covers, by fingerprint (`git skill allow --pin` writes them): an
    /// entry with them covers those findings and nothing else, wherever it is read.
    pub fingerprints: Option<Vec<String>>,
    /// `N` or `N-M`: only findings on these lines of their file.
    pub lines: Option<String>,
}

/// A parsed policy entry: the entry as written, its expiry, its path glob and line window.
#[derive(Debug, Clone)]
struct Allow {
    entry: PolicyEntry,
    expires: Option<NaiveDate>,
    glob: Option<Glob>,
    lines: Option<(usize, usize)>,
}

impl Allow {
    fn pinned(&self) -> bool {
        self.entry.fingerprints.is_some()
    }

    fn covers(&self, skill: &str, f: &Finding) -> bool {
        f.rule.eq_ignore_ascii_case(&self.entry.rule)
            && self.entry.skill.as_deref().is_none_or(|s| s == skill)
            && self.glob.as_ref().is_none_or(|g| g.is_match(&f.file))
            && self.lines.is_none_or(|(a, b)| (a..=b).contains(&f.line))
            && self
                .entry
                .fingerprints
                .as_ref()
                .is_none_or(|fps| fps.iter().any(|fp| fp.eq_ignore_ascii_case(&f.fingerprint)))
    }
}

/// Which entries of a policy apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entries {
    All,
    /// Only those that name the findings they cover (`fingerprints`).
    Pinned,
}

/// What applying a policy to one skill's findings met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Entries that would have covered something but have expired.
    pub expired: Vec<Expired>,
    /// Entries without `fingerprints` that covered something (as [`Policy::lines`] shows
    /// them): they still work, and should be pinned.
    pub unpinned: Vec<String>,
}

/// The largest policy or baseline file read (1 MiB).
pub const MAX_POLICY_BYTES: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// `file` names the file as the user knows it: a path, or `.skillguard.yaml` with the
    /// revision or `(staged)` it was read from.
    #[error("could not read '{file}'")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// The file is not something to read: a link, a FIFO, a device, too large. `reason` never
    /// quotes the file's content.
    #[error("'{file}' {reason}")]
    Refused { file: String, reason: String },
    #[error("'{file}' is not valid: {message}")]
    Invalid { file: String, message: String },
}

impl PolicyError {
    pub fn from_regular(path: &Path, e: crate::fsutil::RegularFileError) -> PolicyError {
        match e {
            crate::fsutil::RegularFileError::Io(source) => PolicyError::Read {
                file: path.display().to_string(),
                source,
            },
            other => PolicyError::Refused {
                file: path.display().to_string(),
                reason: other.to_string(),
            },
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Policy {
    entries: Vec<Allow>,
    /// `lint:` entries with their code and level resolved, in file order.
    lint: Vec<(LintEntry, &'static str, Level, Option<Glob>)>,
    settings: RepoSettings,
}

/// An entry that has expired: it no longer applies, and the report says so.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Expired {
    pub rule: String,
    pub skill: Option<String>,
    pub path: Option<String>,
    pub expires: String,
}

impl Policy {
    /// Reads the policy file; `Ok(None)` when there is none. Anything malformed is an error:
    /// a policy that cannot be read must not silently allow or forbid.
    pub fn load(path: &Path) -> Result<Option<Policy>, PolicyError> {
        let bytes = match crate::fsutil::read_regular(path, MAX_POLICY_BYTES) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(e) => return Err(PolicyError::from_regular(path, e)),
        };
        Policy::parse_bytes(&bytes)
            .map(Some)
            .map_err(|message| PolicyError::Invalid {
                file: path.display().to_string(),
                message,
            })
    }

    /// Parses a policy file's bytes (from a file or a git object). Errors name the entry, the
    /// key and the place, never the text that is wrong: the file may be anything.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Policy, String> {
        if bytes.len() as u64 > MAX_POLICY_BYTES {
            return Err(format!("larger than {MAX_POLICY_BYTES} bytes"));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|e| format!("not valid UTF-8 (at byte {})", e.valid_up_to()))?;
        Policy::parse(text)
    }

    pub fn parse(text: &str) -> Result<Policy, String> {
        if text.len() as u64 > MAX_POLICY_BYTES {
            return Err(format!("larger than {MAX_POLICY_BYTES} bytes"));
        }
        let doc: PolicyDoc = if text.trim().is_empty() {
            PolicyDoc {
                allow: None,
                lint: None,
                fail_on: None,
                roots: None,
            }
        } else {
            serde_yaml::from_str(text).map_err(|e| {
                let place = e
                    .location()
                    .map(|l| format!(" (line {}, column {})", l.line(), l.column()))
                    .unwrap_or_default();
                format!("{}{place}", without_values(&e.to_string()))
            })?
        };
        let mut entries = Vec::new();
        for (i, entry) in doc.allow.unwrap_or_default().into_iter().enumerate() {
            let n = i + 1;
            if super::rules::find(&entry.rule).is_none() {
                // The value is shown only when it has a rule id's shape: the file may be
                // anything, and its content is not ours to echo.
                let shown = if looks_like_rule_id(&entry.rule) {
                    format!(" '{}'", entry.rule)
                } else {
                    String::new()
                };
                return Err(format!(
                    "entry {n}: `rule`{shown} is not a known rule id (see git skill rules)"
                ));
            }
            if entry.reason.trim().is_empty() {
                return Err(format!("entry {n} ({}): the reason is empty", entry.rule));
            }
            let expires = match &entry.expires {
                Some(d) => Some(NaiveDate::parse_from_str(d, "%Y-%m-%d").map_err(|_| {
                    format!(
                        "entry {n} ({}): `expires` is not a YYYY-MM-DD date",
                        entry.rule
                    )
                })?),
                None => None,
            };
            let glob = match &entry.path {
                Some(g) => {
                    Some(Glob::new(g).map_err(|e| format!("entry {n} ({}): {e}", entry.rule))?)
                }
                None => None,
            };
            if let Some(fps) = &entry.fingerprints {
                if fps.is_empty() {
                    return Err(format!(
                        "entry {n} ({}): `fingerprints` is empty (the entry would cover nothing; remove it)",
                        entry.rule
                    ));
                }
                if let Some(k) = fps.iter().position(|fp| !is_fingerprint(fp)) {
                    return Err(format!(
                        "entry {n} ({}): fingerprint {} is not 32 hexadecimal digits",
                        entry.rule,
                        k + 1
                    ));
                }
            }
            let lines = match &entry.lines {
                Some(window) => Some(line_window(window).ok_or_else(|| {
                    format!(
                        "entry {n} ({}): `lines` must be N or N-M (1-based, N <= M)",
                        entry.rule
                    )
                })?),
                None => None,
            };
            entries.push(Allow {
                entry,
                expires,
                glob,
                lines,
            });
        }
        let mut lint = Vec::new();
        for (i, entry) in doc.lint.unwrap_or_default().into_iter().enumerate() {
            let n = i + 1;
            let code = match crate::skill::codes::find(&entry.code) {
                Some(c) if c.code == crate::skill::codes::INVALID_LINT_ALLOW => {
                    return Err(format!("lint entry {n}: {} cannot be configured", c.code));
                }
                Some(c) => c.code,
                None => {
                    let shown = if entry.code.len() <= 40
                        && entry
                            .code
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-')
                    {
                        format!(" '{}'", entry.code)
                    } else {
                        String::new()
                    };
                    return Err(format!(
                        "lint entry {n}: `code`{shown} is not a lint code (see git skill lint --explain)"
                    ));
                }
            };
            let Some(level) = Level::parse(&entry.level) else {
                return Err(format!(
                    "lint entry {n} ({code}): `level` must be error, warning or off"
                ));
            };
            if entry.reason.trim().is_empty() {
                return Err(format!("lint entry {n} ({code}): the reason is empty"));
            }
            let glob = match &entry.path {
                Some(g) => Some(Glob::new(g).map_err(|e| format!("lint entry {n} ({code}): {e}"))?),
                None => None,
            };
            lint.push((entry, code, level, glob));
        }
        let settings = repo_settings(doc.fail_on, doc.roots)?;
        Ok(Policy {
            entries,
            lint,
            settings,
        })
    }

    /// The team's settings (`failOn`, `roots`).
    pub fn settings(&self) -> &RepoSettings {
        &self.settings
    }

    /// Every entry and setting as one line a reviewer reads (`allow SUP001 for skill
    /// deploy, files scripts/*.sh, until 2027-01-01: reason`), in file order: what two
    /// revisions of the policy differ by is the lines one has and the other has not.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(fail_on) = &self.settings.fail_on {
            lines.push(format!("failOn: {fail_on}"));
        }
        if !self.settings.roots.is_empty() {
            lines.push(format!("roots: {}", self.settings.roots.join(", ")));
        }
        for allow in &self.entries {
            lines.push(allow_line(&allow.entry));
        }
        lines.extend(
            self.lint
                .iter()
                .map(|(e, code, level, _)| lint_line(e, code, *level)),
        );
        lines
    }

    /// Sets the levels the `lint:` entries give to one skill's diagnostics (`dir`: the skill
    /// directory as the diagnostics show it). Entries apply in file order, so a later, narrower
    /// entry overrides an earlier, wider one; they override inline allows too.
    pub fn apply_lint(&self, skill: &str, dir: &Path, diagnostics: &mut [Diagnostic]) {
        for d in diagnostics.iter_mut() {
            let rel = d
                .path
                .strip_prefix(dir)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            for (entry, code, level, glob) in &self.lint {
                let applies = *code == d.code
                    && entry.skill.as_deref().is_none_or(|s| s == skill)
                    && glob
                        .as_ref()
                        .is_none_or(|g| !rel.is_empty() && g.is_match(&rel));
                if applies {
                    d.level = *level;
                    d.setting = Some(Setting {
                        kind: "policy",
                        reason: entry.reason.clone(),
                    });
                }
            }
        }
    }

    /// Marks the findings of one skill that an entry covers (the `which` entries; an entry
    /// with `fingerprints` marks them pinned). Findings carry their located fingerprints
    /// ([`locate`]).
    pub fn apply(
        &self,
        skill: &str,
        findings: &mut [Finding],
        today: NaiveDate,
        which: Entries,
    ) -> Applied {
        let mut applied = Applied::default();
        for allow in &self.entries {
            if which == Entries::Pinned && !allow.pinned() {
                continue;
            }
            let live = allow.expires.is_none_or(|d| today < d);
            let mut hit = false;
            for f in findings
                .iter_mut()
                .filter(|f| f.suppressed.is_none() && allow.covers(skill, f))
            {
                hit = true;
                if live {
                    f.suppressed = Some(if allow.pinned() {
                        Suppression::pinned("policy", &allow.entry.reason)
                    } else {
                        Suppression::new("policy", &allow.entry.reason)
                    });
                }
            }
            if hit && !live {
                let e = &allow.entry;
                applied.expired.push(Expired {
                    rule: e.rule.clone(),
                    skill: e.skill.clone(),
                    path: e.path.clone(),
                    expires: e.expires.clone().unwrap_or_default(),
                });
            } else if hit && !allow.pinned() {
                applied.unpinned.push(allow_line(&allow.entry));
            }
        }
        applied
    }

    /// The policy with only the `allow:` entries `older` does not have (as a reviewer reads
    /// them): what a staged policy adds to HEAD's.
    pub fn added_since(&self, older: Option<&Policy>) -> Policy {
        let known: Vec<String> = older
            .map(|p| p.entries.iter().map(|a| allow_line(&a.entry)).collect())
            .unwrap_or_default();
        Policy {
            entries: self
                .entries
                .iter()
                .filter(|a| !known.contains(&allow_line(&a.entry)))
                .cloned()
                .collect(),
            lint: Vec::new(),
            settings: RepoSettings::default(),
        }
    }

    /// The `allow:` entries that cover more than `older`'s (as a reviewer reads them): new
    /// ones, and changed ones, but not an entry `older` has that only gained `fingerprints`
    /// (pinning narrows it) or lost some of them.
    pub fn widened_since(&self, older: Option<&Policy>) -> Vec<String> {
        let bare = |e: &PolicyEntry| {
            let mut e = e.clone();
            e.fingerprints = None;
            allow_line(&e)
        };
        self.entries
            .iter()
            .filter(|a| {
                !older.is_some_and(|o| {
                    o.entries.iter().any(|h| {
                        bare(&h.entry) == bare(&a.entry)
                            && match (&h.entry.fingerprints, &a.entry.fingerprints) {
                                (None, _) => true,
                                (Some(_), None) => false,
                                (Some(had), Some(has)) => has.iter().all(|f| had.contains(f)),
                            }
                    })
                })
            })
            .map(|a| allow_line(&a.entry))
            .collect()
    }

    /// The `lint:` entries that lower a level (to `warning` or `off`) and `older` does not
    /// have, as a reviewer reads them.
    pub fn lint_loosened_since(&self, older: Option<&Policy>) -> Vec<String> {
        let known: Vec<String> = older
            .map(|o| {
                o.lint
                    .iter()
                    .map(|(e, code, level, _)| lint_line(e, code, *level))
                    .collect()
            })
            .unwrap_or_default();
        self.lint
            .iter()
            .filter(|(_, _, level, _)| *level < Level::Error)
            .map(|(e, code, level, _)| lint_line(e, code, *level))
            .filter(|line| !known.contains(line))
            .collect()
    }

    /// The `allow:` entry at `index` (0-based, in file order), as written.
    pub fn entry(&self, index: usize) -> Option<&PolicyEntry> {
        self.entries.get(index).map(|a| &a.entry)
    }

    /// How many `allow:` entries there are.
    pub fn entry_count(&self) -> usize {
        self.entries.len()
    }

    /// The entries without `fingerprints`, with their place in the file (0-based index among
    /// the `allow:` entries).
    pub fn unpinned(&self) -> impl Iterator<Item = (usize, &PolicyEntry)> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.pinned())
            .map(|(i, a)| (i, &a.entry))
    }

    /// Whether the entry at `index` covers `f` of the skill named `skill`, fingerprints aside
    /// (what `git skill allow --pin` asks to find what an entry covers today).
    pub fn entry_covers(&self, index: usize, skill: &str, f: &Finding) -> bool {
        self.entries.get(index).is_some_and(|a| a.covers(skill, f))
    }
}

/// A `lint:` entry as one line a reviewer reads.
fn lint_line(e: &LintEntry, code: &str, level: Level) -> String {
    let mut s = format!("lint {code} {}", level.as_str());
    if let Some(skill) = &e.skill {
        s.push_str(&format!(" for skill {skill}"));
    }
    if let Some(path) = &e.path {
        s.push_str(&format!(" on files {path}"));
    }
    format!("{s}: {}", e.reason)
}

/// An `allow:` entry as one line a reviewer reads.
pub fn allow_line(e: &PolicyEntry) -> String {
    let mut s = format!("allow {}", e.rule);
    if let Some(skill) = &e.skill {
        s.push_str(&format!(" for skill {skill}"));
    }
    if let Some(path) = &e.path {
        s.push_str(&format!(" on files {path}"));
    }
    if let Some(lines) = &e.lines {
        s.push_str(&format!(" at lines {lines}"));
    }
    if let Some(fps) = &e.fingerprints {
        let shown: Vec<&str> = fps.iter().map(|f| f.get(..12).unwrap_or(f)).collect();
        s.push_str(&format!(" pinned to {}", shown.join(", ")));
    }
    if let Some(d) = &e.expires {
        s.push_str(&format!(" until {d}"));
    }
    format!("{s}: {}", e.reason)
}

/// `N` or `N-M` as an inclusive line range.
fn line_window(value: &str) -> Option<(usize, usize)> {
    let (a, b) = match value.trim().split_once('-') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (value.trim(), value.trim()),
    };
    let (a, b) = (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?);
    (a >= 1 && a <= b).then_some((a, b))
}

/// Whether a policy's `rule` value has the shape of a rule id (`ABC123`), so that echoing it in
/// an error quotes nothing else.
fn looks_like_rule_id(value: &str) -> bool {
    let b = value.as_bytes();
    (4..=10).contains(&b.len())
        && b.iter().all(|c| c.is_ascii_alphanumeric())
        && b.iter().take_while(|c| c.is_ascii_alphabetic()).count() >= 2
}

/// A parser's message with the quoted values taken out (serde quotes the offending value:
/// `invalid type: string "root:$6$...", expected ...`); key names, which serde puts in
/// backticks, stay. Also drops serde_yaml's own ` at line N column M`, given separately.
pub(crate) fn without_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                // Skip to the closing quote, honouring backslash escapes.
                let mut escaped = false;
                for c in chars.by_ref() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
                out.push_str("(value)");
            }
            '`' => {
                // A key name: shown when it looks like one (`allow`, `rule`), since the
                // "key" of a file that is not a policy at all can be a whole line of it.
                let key: String = chars.by_ref().take_while(|c| *c != '`').collect();
                // Serde writes numbers in backticks too (`invalid type: integer `4111...``):
                // a key starts with a letter.
                let plain = (1..=40).contains(&key.len())
                    && key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && key
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if plain {
                    out.push('`');
                    out.push_str(&key);
                    out.push('`');
                } else {
                    out.push_str("(a key)");
                }
            }
            c => out.push(c),
        }
    }
    let out = match out.find(" at line ") {
        Some(i) => out[..i].to_owned(),
        None => out,
    };
    // Anything else a parser may echo (an unquoted scalar) is cut at a reasonable length.
    let short: String = out.chars().take(200).collect();
    short
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::fingerprint::tests::found;

    fn diag(code: &'static str, path: &str) -> Diagnostic {
        Diagnostic {
            code,
            level: Level::Error,
            path: std::path::PathBuf::from(path),
            line: None,
            column: None,
            message: String::new(),
            hint: None,
            setting: None,
        }
    }

    #[test]
    fn every_entry_and_setting_is_one_line_a_reviewer_reads() {
        let p = Policy::parse(
            "failOn: never\nroots: [prompts]\nallow:\n  - rule: SUP001\n    skill: deploy\n    path: 'scripts/*.sh'\n    reason: vendored 安装\n    expires: 2027-01-01\n  - rule: NET001\n    reason: ok\nlint:\n  - code: SK009\n    level: off\n    skill: big\n    reason: long on purpose\n",
        )
        .unwrap();
        assert_eq!(
            p.lines(),
            [
                "failOn: never",
                "roots: prompts",
                "allow SUP001 for skill deploy on files scripts/*.sh until 2027-01-01: vendored 安装",
                "allow NET001: ok",
                "lint SK009 off for skill big: long on purpose",
            ]
        );
        assert!(Policy::parse("").unwrap().lines().is_empty());
    }

    #[test]
    fn the_teams_settings_are_read_and_checked() {
        let p = Policy::parse("failOn: Caution\nroots: [prompts, ' team/skills ']\n").unwrap();
        assert_eq!(
            p.settings(),
            &RepoSettings {
                fail_on: Some("Caution".into()),
                roots: vec!["prompts".into(), "team/skills".into()],
            }
        );
        assert_eq!(
            Policy::parse("").unwrap().settings(),
            &RepoSettings::default()
        );
        for (text, why) in [
            ("failOn: sometimes\n", "`failOn` must be"),
            ("roots: ['']\n", "roots entry 1 is empty"),
            ("roots: [a, /etc]\n", "roots entry 2 leads out"),
            ("roots: ['a/../../x']\n", "leads out"),
            ("roots: ['~/skills']\n", "leads out"),
            ("roots: ['C:\\\\x']\n", "leads out"),
            ("roots: prompts\n", "invalid type"),
            ("failon: caution\n", "unknown field"),
        ] {
            let e = Policy::parse(text)
                .err()
                .unwrap_or_else(|| panic!("{text}"));
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn lint_entries_set_levels_in_file_order() {
        let policy = Policy::parse(
            "lint:\n  - code: SK011\n    level: warning\n    reason: published layout\n  - code: file-outside-allowed-dirs\n    level: off\n    path: 'forms/**'\n    skill: pdf\n    reason: Anthropic's forms\n",
        )
        .unwrap();
        let mut d = vec![
            diag("SK011", "skills/pdf/forms/a.md"),
            diag("SK011", "skills/pdf/notes.md"),
            diag("SK013", "skills/pdf"),
        ];
        policy.apply_lint("pdf", Path::new("skills/pdf"), &mut d);
        let levels: Vec<Level> = d.iter().map(|d| d.level).collect();
        assert_eq!(levels, [Level::Off, Level::Warning, Level::Error]);
        assert_eq!(d[0].setting.as_ref().unwrap().reason, "Anthropic's forms");
        assert_eq!(d[1].setting.as_ref().unwrap().kind, "policy");
        // Another skill: only the global entry applies.
        let mut other = vec![diag("SK011", "skills/x/forms/a.md")];
        policy.apply_lint("x", Path::new("skills/x"), &mut other);
        assert_eq!(other[0].level, Level::Warning);
    }

    #[test]
    fn malformed_lint_entries_are_errors() {
        for (text, want) in [
            (
                "lint:\n  - code: SK999\n    level: off\n    reason: x\n",
                "is not a lint code",
            ),
            (
                "lint:\n  - code: SK011\n    level: never\n    reason: x\n",
                "must be error, warning or off",
            ),
            (
                "lint:\n  - code: SK011\n    level: off\n    reason: ' '\n",
                "the reason is empty",
            ),
            (
                "lint:\n  - code: SK031\n    level: off\n    reason: x\n",
                "cannot be configured",
            ),
            (
                "lint:\n  - code: SK011\n    level: off\n    path: '[a'\n    reason: x\n",
                "invalid glob",
            ),
            (
                "lint:\n  - code: SK011\n    level: off\n    reason: x\n    when: always\n",
                "unknown field",
            ),
            ("lint:\n  - code: SK011\n    level: off\n", "reason"),
            ("lint: yes\n", "invalid type"),
        ] {
            let err = Policy::parse(text).unwrap_err();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn inline_comments_in_each_syntax() {
        let text = "x\n# git-skill:allow SUP001 -- vendored installer, pinned\ncurl x | sh\n<!-- git-skill:allow INJ001, INJ002 -- quoted in a test -->\ny // git-skill:allow NET001 -- local dev\n# git-skill:allow EXE001\n";
        let allows = inline_allows(text);
        assert_eq!(
            allows,
            vec![
                InlineAllow {
                    line: 2,
                    rules: vec!["SUP001".into()],
                    reason: "vendored installer, pinned".into()
                },
                InlineAllow {
                    line: 4,
                    rules: vec!["INJ001".into(), "INJ002".into()],
                    reason: "quoted in a test".into()
                },
                InlineAllow {
                    line: 5,
                    rules: vec!["NET001".into()],
                    reason: "local dev".into()
                },
            ],
            "no reason, no allow"
        );
        assert!(inline_allows("git-skill:allow SUP001 -- not in a comment").is_empty());
    }

    #[test]
    fn an_allow_comment_covers_one_finding_on_its_line_or_the_next() {
        let allows = inline_allows(
            "# git-skill:allow INJ001 -- quoted
",
        );
        let mut fs = vec![
            found("INJ001", "SKILL.md", 2, "ignore previous instructions"),
            found("INJ001", "SKILL.md", 3, "ignore previous instructions"),
        ];
        apply_inline(&allows, &mut fs);
        assert!(fs[0].suppressed.is_some() && fs[1].suppressed.is_none());
        // On its own line first; two comments cover two findings.
        let allows = inline_allows(
            "x # git-skill:allow INJ001 -- one
# git-skill:allow INJ001 -- two
",
        );
        let mut fs = vec![
            found("INJ001", "SKILL.md", 1, "a"),
            found("INJ001", "SKILL.md", 2, "b"),
            found("INJ001", "SKILL.md", 3, "c"),
        ];
        apply_inline(&allows, &mut fs);
        let reasons: Vec<_> = fs
            .iter()
            .map(|f| f.suppressed.as_ref().map(|s| s.reason.as_str()))
            .collect();
        assert_eq!(reasons, [Some("one"), Some("two"), None]);
    }

    #[test]
    fn pinned_entries_cover_the_findings_they_name_and_nothing_else() {
        let mut fs = vec![
            found("SUP001", "run.sh", 3, "curl x | sh"),
            found("SUP001", "run.sh", 9, "curl y | sh"),
        ];
        locate(&mut fs, "skills/deploy");
        let policy = Policy::parse(&format!(
            "allow:\n  - rule: SUP001\n    skill: deploy\n    fingerprints: [{}]\n    reason: vendor\n",
            fs[0].fingerprint
        ))
        .unwrap();
        let today = NaiveDate::from_ymd_opt(2026, 12, 7).unwrap();
        let applied = policy.apply("deploy", &mut fs, today, Entries::All);
        assert!(applied.unpinned.is_empty());
        assert!(fs[0].suppressed.as_ref().is_some_and(|s| s.pinned));
        assert!(fs[1].suppressed.is_none());
        // An entry without fingerprints still covers both, and says it is unpinned.
        let loose = Policy::parse(
            "allow:\n  - rule: SUP001\n    skill: deploy\n    lines: 1-5\n    reason: vendor\n",
        )
        .unwrap();
        for f in &mut fs {
            f.suppressed = None;
        }
        let applied = loose.apply("deploy", &mut fs, today, Entries::All);
        assert_eq!(
            applied.unpinned,
            ["allow SUP001 for skill deploy at lines 1-5: vendor"]
        );
        assert!(fs[0].suppressed.as_ref().is_some_and(|s| !s.pinned));
        assert!(fs[1].suppressed.is_none(), "line 9 is outside the window");
        for f in &mut fs {
            f.suppressed = None;
        }
        assert_eq!(
            loose.apply("deploy", &mut fs, today, Entries::Pinned),
            Applied::default()
        );
        assert!(fs[0].suppressed.is_none());
        for bad in [
            "    fingerprints: []\n",
            "    fingerprints: [nothex]\n",
            "    lines: 5-2\n",
            "    lines: zero\n",
            "    lines: 0\n",
        ] {
            let text = format!("allow:\n  - rule: SUP001\n    reason: x\n{bad}");
            assert!(Policy::parse(&text).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_range_takes_what_widens_from_either_side_and_what_narrows_from_the_base() {
        let s = |fail_on: Option<&str>, roots: &[&str]| RepoSettings {
            fail_on: fail_on.map(str::to_owned),
            roots: roots.iter().map(|r| r.to_string()).collect(),
        };
        let base = s(Some("caution"), &["skills"]);
        let w = base.widened(&s(Some("never"), &["tools/agent-skills"]));
        assert_eq!(w, s(Some("caution"), &["skills", "tools/agent-skills"]));
        assert_eq!(
            s(None, &[])
                .widened(&s(Some("never"), &[]))
                .fail_on
                .as_deref(),
            Some("dangerous")
        );
        assert_eq!(
            s(None, &[])
                .widened(&s(Some("caution"), &[]))
                .fail_on
                .as_deref(),
            Some("caution")
        );
        assert_eq!(
            s(Some("never"), &[])
                .widened(&s(None, &[]))
                .fail_on
                .as_deref(),
            Some("dangerous"),
            "a missing failOn is the default, stricter than never"
        );
        assert_eq!(s(None, &["a"]).widened(&s(None, &["a"])), s(None, &["a"]));
        // A side without roots means the conventional ones: a change that sets roots cannot
        // drop them for this range.
        assert_eq!(
            s(None, &[]).widened(&s(None, &["tools"])).roots,
            ["skills", "agents/skills", "tools"]
        );
        assert_eq!(
            s(None, &["tools"]).widened(&s(None, &[])).roots,
            ["tools", "skills", "agents/skills"]
        );
        assert!(s(None, &[]).widened(&s(None, &[])).roots.is_empty());
    }

    #[test]
    fn policy_parse_errors_fail_closed() {
        assert!(Policy::parse("allow:\n  - rule: NOPE001\n    reason: x\n").is_err());
        assert!(Policy::parse("allow:\n  - rule: HID001\n    reason: ''\n").is_err());
        assert!(
            Policy::parse("allow:\n  - rule: HID001\n    reason: x\n    expires: soon\n").is_err()
        );
        assert!(
            Policy::parse("allow:\n  - rule: HID001\n    reason: x\n    colour: red\n").is_err()
        );
        assert!(Policy::parse("allow: [").is_err());
        assert!(
            Policy::parse("allow:\n  - rule: HID001\n    reason: x\n    path: '[[[['\n").is_err()
        );
        assert!(Policy::parse("").unwrap().entries.is_empty());
    }

    #[test]
    fn policy_errors_never_quote_the_file() {
        let shadow = "root:$6$Zs8Yq1$secrethash0123456789:19000:0:99999:7:::\n";
        let e = Policy::parse(shadow).unwrap_err();
        // (`roots` is one of the keys the message lists; the file's `root:` is not quoted.)
        assert!(!e.contains("secrethash") && !e.contains("root:"), "{e}");
        let e = Policy::parse("allow:\n  - rule: 'hunter2-password-value'\n    reason: x\n")
            .unwrap_err();
        assert!(!e.contains("hunter2"), "{e}");
        assert!(e.contains("entry 1") && e.contains("`rule`"), "{e}");
        let e =
            Policy::parse("allow:\n  - rule: HID001\n    reason: x\n    expires: 'top secret'\n")
                .unwrap_err();
        assert!(!e.contains("top secret"), "{e}");
        let e = Policy::parse("allow: \"sk-live-abcdef\"\n").unwrap_err();
        assert!(!e.contains("sk-live"), "{e}");
        let e = Policy::parse("allow: 4111111111111111\n").unwrap_err();
        assert!(!e.contains("4111"), "{e}");
        let e = Policy::parse_bytes(b"\xff\xfe").unwrap_err();
        assert!(e.contains("UTF-8"), "{e}");
        assert_eq!(
            without_values(r#"invalid type: string "a\"b", expected x"#),
            "invalid type: string (value), expected x"
        );
    }
}
