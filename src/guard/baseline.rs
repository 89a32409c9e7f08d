//! A baseline: the findings a team accepted when it adopted the guard, each named by its
//! located fingerprint, read by `git skill scan --baseline FILE` and written by `git skill
//! baseline`.

use std::collections::HashSet;
use std::path::Path;

use super::finding::{Finding, Suppression};
use super::fingerprint::repo_file;
use super::suppress::{without_values, PolicyError, MAX_POLICY_BYTES};

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
    use crate::guard::fingerprint::locate;
    use crate::guard::fingerprint::tests::found;

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
}
