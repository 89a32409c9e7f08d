//! Where a run keeps what it produced, under `$GIT_DIR/skill/evals/<skill>/<run>/`, never in
//! the work tree: per case and condition the agent's answer (`answer.md`) and its grade
//! (`grading.json`), and for the run `benchmark.json`. A run is named by what it compares (the
//! two versions of the skill, the cases, the model), so running the same comparison again
//! finds what an interrupted run already has, and repeats no model call that answered.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::cases::CaseId;
use crate::prompt::contracts::GradedAssertion;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not write '{}'", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not clear '{}'", path.display())]
    Clear {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What `grading.json` holds: the grade of one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grading {
    pub case: CaseId,
    pub condition: String,
    pub passed: bool,
    pub expected_output_met: bool,
    pub assertions: Vec<GradedAssertion>,
    pub reason: String,
    /// The agent's answer, in characters (the answer itself is `answer.md` beside it).
    pub answer_chars: usize,
    /// Seconds the two calls took (the agent's answer and its grade).
    pub seconds: f64,
}

/// One run's directory.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub dir: PathBuf,
}

/// A file or folder name for anything a case id or label may be.
fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with('.') {
        out.insert(0, '_');
    }
    out
}

impl RunDir {
    /// The run of `skill` that compares what `key` describes (any serialisable value that
    /// changes when the skill's versions, the cases or the model do).
    pub fn new(git_dir: &Path, skill: &str, key: &impl Serialize) -> RunDir {
        let json = serde_json::to_vec(key).unwrap_or_default();
        let hash = Sha256::digest(&json);
        let id: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
        RunDir {
            dir: git_dir
                .join("skill")
                .join("evals")
                .join(slug(&crate::redact::redact(skill)))
                .join(id),
        }
    }

    /// Forgets what an earlier run of the same comparison kept (`--fresh`).
    pub fn clear(&self) -> Result<(), StoreError> {
        match std::fs::remove_dir_all(&self.dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Clear {
                path: self.dir.clone(),
                source: e,
            }),
            _ => Ok(()),
        }
    }

    /// `case-<id>`: ids are letters, digits, `-`, `_` and `.` (or numbers), unique even
    /// ignoring case (`cases::parse`), so no two cases share a folder, on any file system.
    fn case_dir(&self, case: &CaseId, condition: &str) -> PathBuf {
        let id: String = case
            .to_string()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.dir.join(format!("case-{id}")).join(slug(condition))
    }

    /// The grade kept for this case and condition, if a run made one.
    pub fn grading(&self, case: &CaseId, condition: &str) -> Option<Grading> {
        let path = self.case_dir(case, condition).join("grading.json");
        let bytes = crate::fsutil::read(&path).ok()?;
        // Another case's or condition's grade is never taken for this one's.
        serde_json::from_slice::<Grading>(&bytes)
            .ok()
            .filter(|g| &g.case == case && g.condition == condition)
    }

    /// The agent's answer kept for this case and condition (graded or not).
    pub fn answer(&self, case: &CaseId, condition: &str) -> Option<String> {
        let path = self.case_dir(case, condition).join("answer.md");
        crate::fsutil::read_to_string(&path).ok()
    }

    pub fn save_answer(
        &self,
        case: &CaseId,
        condition: &str,
        answer: &str,
    ) -> Result<PathBuf, StoreError> {
        self.write(
            &self.case_dir(case, condition).join("answer.md"),
            answer.as_bytes(),
        )
    }

    pub fn save_grading(&self, grading: &Grading) -> Result<PathBuf, StoreError> {
        let path = self
            .case_dir(&grading.case, &grading.condition)
            .join("grading.json");
        self.write_json(&path, grading)
    }

    /// Writes `benchmark.json` (the run's summary) and returns its path.
    pub fn save_benchmark(&self, benchmark: &impl Serialize) -> Result<PathBuf, StoreError> {
        let text = serde_json::to_string_pretty(benchmark).unwrap_or_default();
        self.write(
            &self.dir.join("benchmark.json"),
            format!("{text}\n").as_bytes(),
        )
    }

    /// JSON masked string by string (masking the text could cut across a string's quotes).
    fn write_json(&self, path: &Path, value: &impl Serialize) -> Result<PathBuf, StoreError> {
        let mut value = serde_json::to_value(value).unwrap_or_default();
        crate::redact::redact_value(&mut value);
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        self.write(path, format!("{text}\n").as_bytes())
    }

    /// Answers quote skills and inputs: the run's files are the user's alone, and masked.
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<PathBuf, StoreError> {
        let fail = |source| StoreError::Write {
            path: path.to_owned(),
            source,
        };
        let parent = path.parent().unwrap_or(&self.dir);
        crate::fsutil::private_dir(parent).map_err(fail)?;
        let text = crate::redact::redact(&String::from_utf8_lossy(bytes));
        crate::fsutil::write_private(path, text.as_bytes()).map_err(fail)?;
        Ok(path.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_named_by_what_it_compares_and_keeps_its_grades() {
        let tmp = tempfile::tempdir().unwrap();
        let a = RunDir::new(tmp.path(), "csv/../x", &("v1", "v2"));
        let b = RunDir::new(tmp.path(), "csv/../x", &("v1", "v3"));
        assert_ne!(a.dir, b.dir);
        assert!(a.dir.starts_with(tmp.path().join("skill/evals/csv_.._x")));
        let case = CaseId::Name("../up".into());
        assert!(a.grading(&case, "with_skill").is_none());
        a.save_answer(&case, "with_skill", "the answer").unwrap();
        assert_eq!(a.answer(&case, "with_skill").as_deref(), Some("the answer"));
        let grading = Grading {
            case: case.clone(),
            condition: "with_skill".into(),
            passed: true,
            expected_output_met: true,
            assertions: Vec::new(),
            reason: "r".into(),
            answer_chars: 10,
            seconds: 0.5,
        };
        let path = a.save_grading(&grading).unwrap();
        assert!(path.starts_with(&a.dir), "{}", path.display());
        assert_eq!(a.grading(&case, "with_skill"), Some(grading.clone()));
        // A grade file that names another case is not taken for this one.
        let other = CaseId::Number(7);
        let moved = a.case_dir(&other, "with_skill").join("grading.json");
        std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
        std::fs::copy(&path, &moved).unwrap();
        assert!(a.grading(&other, "with_skill").is_none());
        a.clear().unwrap();
        assert!(!a.dir.exists());
        a.clear().unwrap();
    }
}
