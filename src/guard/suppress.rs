//! Suppressions, each with a reason and always visible in the report: inline comments
//! (`git-skill:allow RULE -- reason`), a repository policy file (`.skillguard.yaml`) and a
//! baseline of accepted findings keyed by content fingerprints.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use chrono::NaiveDate;
use regex::Regex;
use sha2::{Digest, Sha256};

use super::finding::{Finding, Suppression};
use crate::report::{Diagnostic, Level, Setting};

// ---------------------------------------------------------------- fingerprints

/// A finding's identity within its skill that survives edits elsewhere in the file: the rule,
/// the file (relative to the skill) and the matched text with white space folded, hashed. Line
/// numbers are left out on purpose. What the scan cache keeps (a skill's tree has the same
/// findings wherever it lies); [`locate`] makes it the fingerprint suppressions match.
pub fn fingerprint(rule: &str, file: &str, matched: &str) -> String {
    let folded = matched.split_whitespace().collect::<Vec<_>>().join(" ");
    digest(&[rule, file, &folded])
}

fn digest(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Binds the fingerprints of one skill's findings to what was seen and where: each becomes the
/// digest of its content fingerprint, its evidence (the whole line, or the file's bytes), its
/// context (live, quoted...), the file's path from the top of the repository (`dir`: the skill's
/// folder there; a finding on `.` is on the folder or file itself) and which occurrence of the
/// same in that file it is (in line order). So a suppression written for a finding covers
/// neither the same text in another file or another skill of the same name, nor a second copy
/// pasted beside the first, nor the line once something is added to it. Returns the content fingerprints, in the findings'
/// order, for what still matches by content (a version 1 baseline).
pub fn locate(findings: &mut [Finding], dir: &str) -> Vec<String> {
    let content: Vec<String> = findings.iter().map(|f| f.fingerprint.clone()).collect();
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (&findings[a], &findings[b]);
        (&fa.file, fa.line, fa.column, fa.rule).cmp(&(&fb.file, fb.line, fb.column, fb.rule))
    });
    // The occurrence counts among findings of the same content, line and context: a live copy
    // pasted above a quoted (demoted) one neither takes its fingerprint nor shifts its number.
    let mut seen: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let mut located = vec![String::new(); findings.len()];
    for i in order {
        let f = &findings[i];
        let context = context_name(f.context);
        let n = seen
            .entry((content[i].as_str(), f.evidence.as_str(), context))
            .or_default();
        let file = repo_file(dir, &f.file);
        located[i] = digest(&[
            "v2",
            &content[i],
            &f.evidence,
            context,
            &file,
            &n.to_string(),
        ]);
        *n += 1;
    }
    for (f, fp) in findings.iter_mut().zip(located) {
        f.fingerprint = fp;
    }
    content
}

/// A finding's context as its fingerprint names it.
fn context_name(context: crate::guard::Context) -> &'static str {
    use crate::guard::Context;
    match context {
        Context::Live => "live",
        Context::Quoted => "quoted",
        Context::Decoded => "decoded",
        Context::VendorInstaller => "vendor",
        Context::Guidance => "guidance",
        Context::TestFixture => "fixture",
        Context::AgentConfigDocs => "config-docs",
        Context::Refused => "refused",
        Context::Placeholder => "placeholder",
    }
}

/// A finding's file from the top of the repository: `dir/file`, or `dir` for `.`.
pub fn repo_file(dir: &str, file: &str) -> String {
    match (dir, file) {
        (_, ".") | (_, "") => dir.to_owned(),
        ("" | ".", _) => file.to_owned(),
        _ => format!("{}/{file}", dir.trim_end_matches('/')),
    }
}

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
        let scope = |skill: &Option<String>, path: &Option<String>| {
            let mut s = String::new();
            if let Some(skill) = skill {
                s.push_str(&format!(" for skill {skill}"));
            }
            if let Some(path) = path {
                s.push_str(&format!(" on files {path}"));
            }
            s
        };
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
        for (e, code, level, _) in &self.lint {
            lines.push(format!(
                "lint {code} {}{}: {}",
                level.as_str(),
                scope(&e.skill, &e.path),
                e.reason
            ));
        }
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

/// Whether `value` is a fingerprint as [`locate`] writes them: 32 hexadecimal digits.
pub fn is_fingerprint(value: &str) -> bool {
    value.len() == 32 && value.bytes().all(|b| b.is_ascii_hexdigit())
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

/// A glob as a regex: `*` within a path segment, `**` across segments (`**/` also matches
/// nothing), `?` one character, `[abc]`, `[a-z]` and `[!abc]` one character of a class,
/// `{a,b}` one of the alternatives (not nested). Anything unbalanced is an error, so that a
/// pattern never means something other than what it looks like. The regex engine keeps
/// matching linear.
pub fn glob_regex(pattern: &str) -> Result<Regex, String> {
    let source = glob_source(pattern)?;
    Regex::new(&source).map_err(|_| invalid_glob(pattern, "not a pattern this tool can read"))
}

fn invalid_glob(pattern: &str, why: &str) -> String {
    let shown: String = pattern.chars().take(100).collect();
    format!("invalid glob '{shown}': {why}")
}

/// A policy's glob, checked when the policy is read and compiled the first time something is
/// matched against it: a policy of hundreds of entries costs a scan what it matches, not a
/// regex compilation per entry (about 70 µs each) in every process that reads it.
#[derive(Debug)]
pub struct Glob {
    source: String,
    compiled: OnceLock<Option<Regex>>,
}

impl Clone for Glob {
    fn clone(&self) -> Glob {
        Glob {
            source: self.source.clone(),
            compiled: OnceLock::new(),
        }
    }
}

impl Glob {
    pub fn new(pattern: &str) -> Result<Glob, String> {
        let source = glob_source(pattern)?;
        // Parsed (cheap) to refuse what would not compile; compiled when first used.
        regex_syntax::Parser::new()
            .parse(&source)
            .map_err(|_| invalid_glob(pattern, "not a pattern this tool can read"))?;
        Ok(Glob {
            source,
            compiled: OnceLock::new(),
        })
    }

    /// Whether `path` matches; a pattern the engine refuses (over its size limit) matches
    /// nothing, so that it suppresses nothing.
    pub fn is_match(&self, path: &str) -> bool {
        self.compiled
            .get_or_init(|| Regex::new(&self.source).ok())
            .as_ref()
            .is_some_and(|re| re.is_match(path))
    }
}

/// The regex source of a glob ([`glob_regex`]), its syntax checked.
fn glob_source(pattern: &str) -> Result<String, String> {
    let shown: String = pattern.chars().take(100).collect();
    let bad = |why: &str| format!("invalid glob '{shown}': {why}");
    let mut re = String::from("^");
    let mut chars = pattern.chars().peekable();
    let mut in_braces = false;
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    re.push_str("(?:.*/)?");
                } else {
                    re.push_str(".*");
                }
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            '[' => {
                let negated = matches!(chars.peek(), Some('!') | Some('^'));
                if negated {
                    chars.next();
                }
                // Items one by one: each character escaped, a range only as `a-b`, so that the
                // regex syntax of classes (`--`, `&&`, nested `[`) can never come through.
                let mut items: Vec<(char, Option<char>)> = Vec::new();
                let mut closed = false;
                while let Some(c) = chars.next() {
                    if c == ']' && !items.is_empty() {
                        closed = true;
                        break;
                    }
                    if c == '/' {
                        return Err(bad("a '[...]' class cannot hold '/'"));
                    }
                    let mut ahead = chars.clone();
                    match (ahead.next(), ahead.next()) {
                        (Some('-'), Some(end)) if end != ']' => {
                            if end == '/' || end < c {
                                return Err(bad("a range in '[...]' runs backwards or over '/'"));
                            }
                            chars.next();
                            chars.next();
                            items.push((c, Some(end)));
                        }
                        _ => items.push((c, None)),
                    }
                }
                if !closed {
                    return Err(bad("'[' is never closed"));
                }
                let mut class = String::new();
                for (start, end) in items {
                    class.push_str(&regex::escape(&start.to_string()));
                    if let Some(end) = end {
                        class.push('-');
                        class.push_str(&regex::escape(&end.to_string()));
                    }
                }
                // Never '/': a class matches within one path segment, like `*`.
                if negated {
                    re.push_str(&format!("[^/{class}]"));
                } else {
                    re.push_str(&format!("[{class}&&[^/]]"));
                }
            }
            ']' => return Err(bad("']' without a '['")),
            '{' if in_braces => return Err(bad("'{' inside '{...}' is not supported")),
            '{' => {
                in_braces = true;
                re.push_str("(?:");
            }
            ',' if in_braces => re.push('|'),
            '}' if in_braces => {
                in_braces = false;
                re.push(')');
            }
            '}' => return Err(bad("'}' without a '{'")),
            '\\' => match chars.next() {
                Some(c) => re.push_str(&regex::escape(&c.to_string())),
                None => return Err(bad("it ends with a lone '\\'")),
            },
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    if in_braces {
        return Err(bad("'{' is never closed"));
    }
    re.push('$');
    Ok(re)
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
fn without_values(message: &str) -> String {
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

// ---------------------------------------------------------------- baseline

/// Accepted findings. Version 2 (what git-skill writes): each entry names a finding by its
/// located fingerprint (the file's path in the repository, the occurrence), so it covers that
/// finding wherever the baseline is read. Version 1 (read, deprecated): entries by skill name
/// and content fingerprint, which cover the same text in any skill of that name; `git skill
/// baseline --update` rewrites them.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Baseline {
    pub version: u32,
    pub findings: Vec<BaselineEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct BaselineEntry {
    pub skill: String,
    pub rule: String,
    /// Version 2: the file's path from the top of the repository; version 1: within the skill.
    pub file: String,
    pub fingerprint: String,
}

/// The version of the baselines git-skill writes.
pub const BASELINE_VERSION: u32 = 2;

impl Baseline {
    /// Reads a baseline file: a regular file of at most 1 MiB, not a link.
    pub fn load(path: &Path) -> Result<Baseline, PolicyError> {
        let bytes = match crate::fsutil::read_regular(path, MAX_POLICY_BYTES) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => {
                return Err(PolicyError::Read {
                    file: path.display().to_string(),
                    source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
                })
            }
            Err(e) => return Err(PolicyError::from_regular(path, e)),
        };
        Baseline::parse_bytes(&bytes).map_err(|message| PolicyError::Invalid {
            file: path.display().to_string(),
            message,
        })
    }

    /// Parses a baseline's bytes (from a file or a git object); errors quote nothing of it.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Baseline, String> {
        if bytes.len() as u64 > MAX_POLICY_BYTES {
            return Err(format!("larger than {MAX_POLICY_BYTES} bytes"));
        }
        let baseline: Baseline = serde_json::from_slice(bytes).map_err(|e| {
            format!(
                "{} (line {}, column {})",
                without_values(&e.to_string()),
                e.line(),
                e.column()
            )
        })?;
        if !(1..=BASELINE_VERSION).contains(&baseline.version) {
            return Err(format!("unsupported version {}", baseline.version));
        }
        Ok(baseline)
    }

    /// Whether the baseline names findings by skill name and content only (version 1).
    pub fn is_legacy(&self) -> bool {
        self.version < BASELINE_VERSION
    }

    /// A baseline that accepts every unsuppressed finding of `skills` (`(skill name, its folder
    /// from the top of the repository, findings)` with located fingerprints), sorted and without
    /// duplicates so that it diffs well.
    pub fn accepting<'a>(
        skills: impl IntoIterator<Item = (&'a str, &'a str, &'a [Finding])>,
    ) -> Baseline {
        Baseline::of(skills, |f| f.suppressed.is_none())
    }

    /// The baseline rewritten for what it covers in `skills` now: one version 2 entry for each
    /// finding a baseline entry suppresses (`git skill baseline --update`); entries that cover
    /// nothing are dropped, and nothing new is accepted.
    pub fn updated<'a>(
        skills: impl IntoIterator<Item = (&'a str, &'a str, &'a [Finding])>,
    ) -> Baseline {
        Baseline::of(skills, |f| {
            f.suppressed.as_ref().is_some_and(|s| s.kind == "baseline")
        })
    }

    fn of<'a>(
        skills: impl IntoIterator<Item = (&'a str, &'a str, &'a [Finding])>,
        take: impl Fn(&Finding) -> bool,
    ) -> Baseline {
        let mut findings: Vec<BaselineEntry> = skills
            .into_iter()
            .flat_map(|(skill, dir, found)| {
                found
                    .iter()
                    .filter(|f| take(f))
                    .map(move |f| BaselineEntry {
                        skill: skill.to_owned(),
                        rule: f.rule.to_owned(),
                        file: repo_file(dir, &f.file),
                        fingerprint: f.fingerprint.clone(),
                    })
            })
            .collect();
        findings.sort_by(|a, b| {
            (&a.file, &a.rule, &a.fingerprint, &a.skill).cmp(&(
                &b.file,
                &b.rule,
                &b.fingerprint,
                &b.skill,
            ))
        });
        findings.dedup();
        Baseline {
            version: BASELINE_VERSION,
            findings,
        }
    }

    /// The baseline as its file holds it: pretty JSON and a final newline.
    pub fn to_file_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a baseline serialises");
        text.push('\n');
        text
    }

    /// Marks the findings whose located fingerprint a version 2 baseline holds (pinned: the
    /// entry names the finding). A version 1 baseline marks nothing here: see
    /// [`Baseline::apply_legacy`].
    pub fn apply(&self, findings: &mut [Finding]) {
        if self.is_legacy() {
            return;
        }
        let known: HashSet<&str> = self
            .findings
            .iter()
            .map(|e| e.fingerprint.as_str())
            .collect();
        for f in findings.iter_mut().filter(|f| f.suppressed.is_none()) {
            if known.contains(f.fingerprint.as_str()) {
                f.suppressed = Some(Suppression::pinned("baseline", "accepted in the baseline"));
            }
        }
    }

    /// A version 1 baseline: marks the findings of the skill named `skill` whose content
    /// fingerprint (`content`, in the findings' order, from [`locate`]) it holds. Such a
    /// suppression is not pinned: in a range it holds only for what the base suppressed.
    pub fn apply_legacy(&self, skill: &str, findings: &mut [Finding], content: &[String]) {
        if !self.is_legacy() {
            return;
        }
        let known: HashSet<(&str, &str)> = self
            .findings
            .iter()
            .map(|e| (e.skill.as_str(), e.fingerprint.as_str()))
            .collect();
        for (f, fp) in findings.iter_mut().zip(content) {
            if f.suppressed.is_none() && known.contains(&(skill, fp.as_str())) {
                f.suppressed = Some(Suppression::new("baseline", "accepted in the baseline"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn glob_match(pattern: &str, path: &str) -> bool {
        glob_regex(pattern).unwrap().is_match(path)
    }

    #[test]
    fn globs() {
        assert!(glob_match("scripts/*.sh", "scripts/run.sh"));
        assert!(!glob_match("scripts/*.sh", "scripts/sub/run.sh"));
        assert!(glob_match("scripts/**", "scripts/sub/run.sh"));
        assert!(glob_match("**/*.md", "SKILL.md"));
        assert!(glob_match("**/*.md", "references/a/b.md"));
        assert!(glob_match("?KILL.md", "SKILL.md"));
        assert!(!glob_match("*.md", "references/a.md"));
        assert!(glob_match("scripts/[ab].sh", "scripts/a.sh"));
        assert!(!glob_match("scripts/[!ab].sh", "scripts/a.sh"));
        assert!(glob_match("scripts/[a-c]x", "scripts/bx"));
        assert!(glob_match("**/*.{sh,py}", "scripts/x.py"));
        assert!(!glob_match("**/*.{sh,py}", "scripts/x.rb"));
        assert!(glob_match("a\\*b", "a*b"));
        assert!(!glob_match("a\\*b", "axb"));
        // A range never spans '/', and class syntax of the regex engine does not leak through.
        assert!(!glob_match("a[+-0]b", "a/b"));
        assert!(glob_match("a[+-0]b", "a.b"));
        assert!(glob_match("a[-x]b", "a-b"));
        assert!(glob_match("a[a\\-]b", "a-b"));
        assert!(!glob_match("[!a]", "/"));
        for bad in [
            "[[[[", "a]", "[]", "{a,b", "a}", "{a,{b}}", "x\\", "[a/b]", "[z-a]", "[a-/]",
        ] {
            assert!(glob_regex(bad).is_err(), "{bad:?} must be refused");
        }
        // No exponential blow-up on hostile patterns.
        let p = "*a".repeat(50) + "b";
        assert!(!glob_match(&p, &"a".repeat(5000)));
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

    fn found(rule: &'static str, file: &str, line: usize, text: &str) -> Finding {
        let r = crate::guard::rules::find(rule).unwrap();
        Finding {
            rule: r.id,
            category: r.category,
            severity: r.severity,
            rule_severity: r.severity,
            file: file.into(),
            line,
            column: 1,
            message: r.message.into(),
            excerpt: String::new(),
            context: crate::guard::Context::Live,
            fingerprint: fingerprint(r.id, file, text),
            evidence: String::new(),
            suppressed: None,
        }
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
    fn located_fingerprints_tell_files_skills_and_copies_apart() {
        let at = |dir: &str, fs: &[(&str, usize, &str)]| {
            let mut v: Vec<Finding> = fs
                .iter()
                .map(|(file, line, text)| found("SUP001", file, *line, text))
                .collect();
            locate(&mut v, dir);
            v.into_iter().map(|f| f.fingerprint).collect::<Vec<_>>()
        };
        let one = at(".claude/skills/deploy", &[("run.sh", 3, "curl x | sh")]);
        // Moved down by an edit above it: the same finding.
        assert_eq!(
            one,
            at(".claude/skills/deploy", &[("run.sh", 9, "curl  x |\tsh")])
        );
        // Same text in another file of the skill, or a skill of that name elsewhere.
        assert_ne!(
            one,
            at(".claude/skills/deploy", &[("other.sh", 3, "curl x | sh")])
        );
        assert_ne!(
            one,
            at(".agents/skills/deploy", &[("run.sh", 3, "curl x | sh")])
        );
        // A second copy is a second finding; the first keeps its fingerprint.
        let two = at(
            ".claude/skills/deploy",
            &[("run.sh", 3, "curl x | sh"), ("run.sh", 8, "curl x | sh")],
        );
        assert_eq!(two[0], one[0]);
        assert_ne!(two[1], two[0]);
        assert!(is_fingerprint(&one[0]));
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
    fn baselines_of_version_2_name_findings_and_version_1_still_reads() {
        let mut fs = vec![found("SUP001", "run.sh", 3, "curl x | sh")];
        let content = locate(&mut fs, "skills/deploy");
        let v2 = Baseline::accepting([("deploy", "skills/deploy", fs.as_slice())]);
        assert_eq!(v2.version, 2);
        assert_eq!(v2.findings[0].file, "skills/deploy/run.sh");
        let v2 = Baseline::parse_bytes(v2.to_file_text().as_bytes()).unwrap();
        let mut elsewhere = vec![found("SUP001", "run.sh", 3, "curl x | sh")];
        locate(&mut elsewhere, "other/deploy");
        v2.apply(&mut elsewhere);
        assert!(elsewhere[0].suppressed.is_none());
        v2.apply(&mut fs);
        assert!(fs[0].suppressed.as_ref().is_some_and(|s| s.pinned));
        let v1 = Baseline::parse_bytes(
            format!(
                r#"{{"version":1,"findings":[{{"skill":"deploy","rule":"SUP001","file":"run.sh","fingerprint":"{}"}}]}}"#,
                content[0]
            )
            .as_bytes(),
        )
        .unwrap();
        assert!(v1.is_legacy());
        let mut fs2 = vec![found("SUP001", "run.sh", 3, "curl x | sh")];
        let content = locate(&mut fs2, "anywhere/deploy");
        v1.apply(&mut fs2);
        assert!(
            fs2[0].suppressed.is_none(),
            "version 1 is applied by content only"
        );
        v1.apply_legacy("deploy", &mut fs2, &content);
        assert!(fs2[0].suppressed.as_ref().is_some_and(|s| !s.pinned));
        // --update: one version 2 entry for what it covers.
        let up = Baseline::updated([("deploy", "anywhere/deploy", fs2.as_slice())]);
        assert_eq!((up.version, up.findings.len()), (2, 1));
        assert!(Baseline::parse_bytes(br#"{"version":3,"findings":[]}"#).is_err());
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

    #[test]
    fn fingerprints_ignore_white_space_and_lines() {
        assert_eq!(
            fingerprint("SUP001", "a.sh", "curl  x |\tsh"),
            fingerprint("SUP001", "a.sh", "curl x | sh")
        );
        assert_ne!(
            fingerprint("SUP001", "a.sh", "curl x | sh"),
            fingerprint("SUP001", "b.sh", "curl x | sh")
        );
    }
}
