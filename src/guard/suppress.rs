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

/// A finding's identity that survives edits elsewhere in the file: the rule, the file and the
/// matched text with white space folded, hashed. Line numbers are left out on purpose.
pub fn fingerprint(rule: &str, file: &str, matched: &str) -> String {
    let folded = matched.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut h = Sha256::new();
    for part in [rule, file, &folded] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

// ---------------------------------------------------------------- inline

fn inline_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?:<!--|#|//)[ \t]*git-skill:allow[ \t]+([A-Z]{3}[0-9]{3}(?:[ \t]*,[ \t]*[A-Z]{3}[0-9]{3})*)[ \t]+--[ \t]+([^\n]*?)[ \t]*(?:-->)?[ \t]*$")
            .expect("valid inline allow regex")
    })
}

/// Inline allows of a text: for each 1-based line they cover, the rules and the reason. A
/// comment covers its own line and the next.
pub fn inline_allows(text: &str) -> HashMap<usize, Vec<(String, String)>> {
    let mut out: HashMap<usize, Vec<(String, String)>> = HashMap::new();
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
        for rule in c[1].split(',').map(str::trim) {
            for covered in [i + 1, i + 2] {
                out.entry(covered)
                    .or_default()
                    .push((rule.to_owned(), reason.clone()));
            }
        }
    }
    out
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
    allow: Vec<PolicyEntry>,
    #[serde(default)]
    lint: Vec<LintEntry>,
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
    entries: Vec<(PolicyEntry, Option<NaiveDate>, Option<Regex>)>,
    /// `lint:` entries with their code and level resolved, in file order.
    lint: Vec<(LintEntry, &'static str, Level, Option<Regex>)>,
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
                allow: Vec::new(),
                lint: Vec::new(),
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
        for (i, entry) in doc.allow.into_iter().enumerate() {
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
                    Some(glob_regex(g).map_err(|e| format!("entry {n} ({}): {e}", entry.rule))?)
                }
                None => None,
            };
            entries.push((entry, expires, glob));
        }
        let mut lint = Vec::new();
        for (i, entry) in doc.lint.into_iter().enumerate() {
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
                Some(g) => {
                    Some(glob_regex(g).map_err(|e| format!("lint entry {n} ({code}): {e}"))?)
                }
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
        for (e, _, _) in &self.entries {
            let until = e
                .expires
                .as_ref()
                .map(|d| format!(" until {d}"))
                .unwrap_or_default();
            lines.push(format!(
                "allow {}{}{until}: {}",
                e.rule,
                scope(&e.skill, &e.path),
                e.reason
            ));
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

    /// Marks the findings of one skill that an entry covers; returns the entries that would
    /// have covered something but have expired.
    pub fn apply(&self, skill: &str, findings: &mut [Finding], today: NaiveDate) -> Vec<Expired> {
        let mut expired = Vec::new();
        for (entry, expires, glob) in &self.entries {
            let matches = |f: &Finding| {
                f.rule.eq_ignore_ascii_case(&entry.rule)
                    && entry.skill.as_deref().is_none_or(|s| s == skill)
                    && glob.as_ref().is_none_or(|g| g.is_match(&f.file))
            };
            let live = expires.is_none_or(|d| today < d);
            let mut hit = false;
            for f in findings
                .iter_mut()
                .filter(|f| f.suppressed.is_none() && matches(f))
            {
                hit = true;
                if live {
                    f.suppressed = Some(Suppression {
                        kind: "policy",
                        reason: entry.reason.clone(),
                    });
                }
            }
            if hit && !live {
                expired.push(Expired {
                    rule: entry.rule.clone(),
                    skill: entry.skill.clone(),
                    path: entry.path.clone(),
                    expires: entry.expires.clone().unwrap_or_default(),
                });
            }
        }
        expired
    }
}

/// A glob as a regex: `*` within a path segment, `**` across segments (`**/` also matches
/// nothing), `?` one character, `[abc]`, `[a-z]` and `[!abc]` one character of a class,
/// `{a,b}` one of the alternatives (not nested). Anything unbalanced is an error, so that a
/// pattern never means something other than what it looks like. The regex engine keeps
/// matching linear.
pub fn glob_regex(pattern: &str) -> Result<Regex, String> {
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
    Regex::new(&re).map_err(|_| bad("not a pattern this tool can read"))
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

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Baseline {
    pub version: u32,
    pub findings: Vec<BaselineEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct BaselineEntry {
    pub skill: String,
    pub rule: String,
    pub file: String,
    pub fingerprint: String,
}

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
        if baseline.version != 1 {
            return Err(format!("unsupported version {}", baseline.version));
        }
        Ok(baseline)
    }

    /// A baseline that accepts every unsuppressed finding of `skills` (`(skill name,
    /// findings)`), sorted and without duplicates so that it diffs well.
    pub fn accepting<'a>(skills: impl IntoIterator<Item = (&'a str, &'a [Finding])>) -> Baseline {
        let mut findings: Vec<BaselineEntry> = skills
            .into_iter()
            .flat_map(|(skill, found)| {
                found
                    .iter()
                    .filter(|f| f.suppressed.is_none())
                    .map(move |f| BaselineEntry {
                        skill: skill.to_owned(),
                        rule: f.rule.to_owned(),
                        file: f.file.clone(),
                        fingerprint: f.fingerprint.clone(),
                    })
            })
            .collect();
        findings.sort_by(|a, b| {
            (&a.skill, &a.file, &a.rule, &a.fingerprint).cmp(&(
                &b.skill,
                &b.file,
                &b.rule,
                &b.fingerprint,
            ))
        });
        findings.dedup();
        Baseline {
            version: 1,
            findings,
        }
    }

    /// The baseline as its file holds it: pretty JSON and a final newline.
    pub fn to_file_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a baseline serialises");
        text.push('\n');
        text
    }

    /// Marks findings of `skill` whose fingerprint the baseline holds.
    pub fn apply(&self, skill: &str, findings: &mut [Finding]) {
        let known: HashSet<(&str, &str)> = self
            .findings
            .iter()
            .map(|e| (e.skill.as_str(), e.fingerprint.as_str()))
            .collect();
        for f in findings.iter_mut().filter(|f| f.suppressed.is_none()) {
            if known.contains(&(skill, f.fingerprint.as_str())) {
                f.suppressed = Some(Suppression {
                    kind: "baseline",
                    reason: "accepted in the baseline".to_owned(),
                });
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
            allows[&3],
            vec![("SUP001".to_owned(), "vendored installer, pinned".to_owned())]
        );
        assert!(allows[&5]
            .iter()
            .any(|(r, why)| r == "INJ002" && why == "quoted in a test"));
        assert!(allows[&5].iter().any(|(r, _)| r == "NET001"));
        assert!(
            !allows.values().flatten().any(|(r, _)| r == "EXE001"),
            "no reason, no allow"
        );
        assert!(inline_allows("git-skill:allow SUP001 -- not in a comment").is_empty());
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
