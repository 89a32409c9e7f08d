//! Suppressions, each with a reason and always visible in the report: inline comments
//! (`git-skill:allow RULE -- reason`), a repository policy file (`.skillguard.yaml`) and a
//! baseline of accepted findings keyed by content fingerprints.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use chrono::NaiveDate;
use regex::Regex;
use sha2::{Digest, Sha256};

use super::scan::Finding;

/// Why a finding does not count.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Suppression {
    /// `inline`, `policy` or `baseline`.
    pub kind: &'static str,
    pub reason: String,
}

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

/// The policy file's name, at the top of the repository.
pub const POLICY_FILE: &str = ".skillguard.yaml";

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyDoc {
    #[serde(default)]
    allow: Vec<PolicyEntry>,
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

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("could not read '{}'", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("'{}' is not a valid policy: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

#[derive(Debug, Clone, Default)]
pub struct Policy {
    entries: Vec<(PolicyEntry, Option<NaiveDate>, Option<Regex>)>,
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
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(PolicyError::Read {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        Policy::parse(&text)
            .map(Some)
            .map_err(|message| PolicyError::Invalid {
                path: path.to_owned(),
                message,
            })
    }

    pub fn parse(text: &str) -> Result<Policy, String> {
        if text.len() > 1 << 20 {
            return Err("larger than 1 MiB".to_owned());
        }
        let doc: PolicyDoc = if text.trim().is_empty() {
            PolicyDoc { allow: Vec::new() }
        } else {
            serde_yaml::from_str(text).map_err(|e| e.to_string())?
        };
        let mut entries = Vec::new();
        for (i, entry) in doc.allow.into_iter().enumerate() {
            let n = i + 1;
            if super::rules::find(&entry.rule).is_none() {
                return Err(format!(
                    "entry {n}: unknown rule '{}' (see git skill rules)",
                    entry.rule
                ));
            }
            if entry.reason.trim().is_empty() {
                return Err(format!("entry {n} ({}): the reason is empty", entry.rule));
            }
            let expires = match &entry.expires {
                Some(d) => Some(NaiveDate::parse_from_str(d, "%Y-%m-%d").map_err(|_| {
                    format!(
                        "entry {n} ({}): expires '{d}' is not a YYYY-MM-DD date",
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
        Ok(Policy { entries })
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
/// nothing), `?` one character. The regex engine keeps matching linear.
pub fn glob_regex(pattern: &str) -> Result<Regex, String> {
    let mut re = String::from("^");
    let mut chars = pattern.chars().peekable();
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
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re).map_err(|e| format!("invalid glob '{pattern}': {e}"))
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
    pub fn load(path: &Path) -> Result<Baseline, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
            path: path.to_owned(),
            source,
        })?;
        let baseline: Baseline = serde_json::from_str(&text).map_err(|e| PolicyError::Invalid {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        if baseline.version != 1 {
            return Err(PolicyError::Invalid {
                path: path.to_owned(),
                message: format!("unsupported version {}", baseline.version),
            });
        }
        Ok(baseline)
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
        assert!(Policy::parse("").unwrap().entries.is_empty());
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
