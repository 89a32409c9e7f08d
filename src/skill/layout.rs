//! git-skill's own records inside a skill: `<skill>/.skillopt/`. Never skill content (walks and
//! checks skip it), partly committed (the pending and resolved signals), partly not (`work/`,
//! which `.skillopt/.gitignore` keeps out of git).

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
