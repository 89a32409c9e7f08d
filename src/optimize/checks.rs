//! The checks a candidate SKILL.md passes before any model judges it: SkillGuard and lint on
//! the skill as it would be (the candidate beside the skill's other files), and the size
//! budget (`skill.maxGrowth`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::guard::{self, Verdict};
use crate::skill::files::{FileKind, SkillFiles};
use crate::skill::lint::{self, Target};

/// What the local checks found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalChecks {
    /// SkillGuard's verdict on what the candidate adds (inline allow comments not honoured).
    pub verdict: String,
    /// Findings the candidate brings that the current skill does not have:
    /// `RULE file:line message`.
    pub findings: Vec<String>,
    /// Lint errors: `CODE message`.
    pub lint_errors: Vec<String>,
    pub original_bytes: usize,
    pub candidate_bytes: usize,
    /// The largest size allowed by `skill.maxGrowth`.
    pub max_bytes: usize,
    /// Why the candidate is refused; empty when it passes.
    pub refusals: Vec<String>,
}

impl LocalChecks {
    pub fn passed(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// Runs SkillGuard and lint on `candidate` as the SKILL.md of the skill in `dir`, and checks
/// that it grows by at most `max_growth` (0.5 = +50%) over `original`.
pub fn check(
    dir: &Path,
    dir_name: &str,
    original: &str,
    candidate: &str,
    max_growth: f64,
) -> LocalChecks {
    let mut refusals = Vec::new();
    let mut files = match SkillFiles::read(dir) {
        Ok(files) => files,
        Err(e) => {
            refusals.push(format!("the skill could not be read: {e}"));
            SkillFiles::with_skill_md(Vec::new())
        }
    };
    let bytes = candidate.as_bytes().to_vec();
    files.skill_md_size = bytes.len() as u64;
    files.skill_md = Some(bytes);
    for entry in &mut files.entries {
        if entry.path == "SKILL.md" {
            entry.kind = FileKind::File {
                size: candidate.len() as u64,
                executable: false,
            };
        }
    }
    let read = |rel: &str| -> std::io::Result<Vec<u8>> {
        if rel == "SKILL.md" {
            Ok(candidate.as_bytes().to_vec())
        } else {
            std::fs::read(dir.join(rel))
        }
    };
    // Allow comments are not honoured: the model could write one. What the committed skill
    // already holds (it passed the hook as it is) is the baseline; only findings the candidate
    // brings count.
    let strict = guard::ScanOptions {
        inline_allow: false,
    };
    let mut scan = guard::scan_skill(&files, &read, strict);
    let before = {
        let read_original = |rel: &str| -> std::io::Result<Vec<u8>> {
            if rel == "SKILL.md" {
                Ok(original.as_bytes().to_vec())
            } else {
                std::fs::read(dir.join(rel))
            }
        };
        let mut original_files = files.clone();
        original_files.skill_md = Some(original.as_bytes().to_vec());
        original_files.skill_md_size = original.len() as u64;
        guard::scan_skill(&original_files, &read_original, strict)
    };
    let known: std::collections::HashSet<&str> = before
        .findings
        .iter()
        .map(|f| f.fingerprint.as_str())
        .collect();
    scan.findings
        .retain(|f| !known.contains(f.fingerprint.as_str()));
    let verdict = scan.verdict();
    let findings: Vec<String> = scan
        .findings
        .iter()
        .map(|f| format!("{} {}:{} {}", f.rule, f.file, f.line, f.message))
        .collect();
    if verdict == Verdict::Dangerous {
        refusals.push(format!(
            "SkillGuard calls the candidate dangerous: {}",
            findings.join("; ")
        ));
    }
    for error in &scan.errors {
        refusals.push(format!("SkillGuard could not read the skill: {error}"));
    }
    let diagnostics = lint::lint(
        &files,
        &Target {
            dir_name,
            display_dir: dir.to_owned(),
            category: None,
        },
    );
    let lint_errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.level == crate::report::Level::Error)
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    if !lint_errors.is_empty() {
        refusals.push(format!(
            "the candidate is not a valid skill: {}",
            lint_errors.join("; ")
        ));
    }
    let max_bytes = (original.len() as f64 * (1.0 + max_growth)).floor() as usize;
    if candidate.len() > max_bytes {
        refusals.push(format!(
            "the candidate grows SKILL.md from {} to {} bytes, past skill.maxGrowth ({:.0}%: at most {max_bytes})",
            original.len(),
            candidate.len(),
            max_growth * 100.0
        ));
    }
    LocalChecks {
        verdict: verdict.as_str().to_owned(),
        findings,
        lint_errors,
        original_bytes: original.len(),
        candidate_bytes: candidate.len(),
        max_bytes,
        refusals,
    }
}
