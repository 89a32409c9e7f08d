//! The limits a skill is held to, in one place: the agentskills specification's (name,
//! description, compatibility) and those of `skill-evolution-guard.md` §4.3 (content, files,
//! sizes, support folders). Lint, SkillGuard and the review contracts all read them here, and
//! every walk for skills (discovery, links, the index) reads how deep it looks.

/// `name`: 1 to 64 characters.
pub const MAX_NAME_CHARS: usize = 64;
/// `description`: 1 to 1,024 characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// `compatibility`: at most 500 characters.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// SKILL.md: at most 100,000 characters.
pub const MAX_CONTENT_CHARS: usize = 100_000;
/// A support file: at most 1 MiB.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// All of a skill's files together: at most 1 MiB.
pub const MAX_SKILL_BYTES: u64 = 1 << 20;
/// A skill: at most 50 files, SKILL.md included.
pub const MAX_FILES: usize = 50;
/// SKILL.md's body: at most 500 lines (a warning: longer bodies should move to references/).
pub const MAX_BODY_LINES: usize = 500;
/// Folders that may hold support files (`evals/`: the authoring guide's eval cases and their
/// input files).
pub const ALLOWED_DIRS: &[&str] = &["references", "templates", "scripts", "assets", "evals"];

/// Directories a walk of a skill root never enters. (`.skillopt` outside a skill is walked:
/// Claude Code and Qwen Code load a skill folder of that name like any dot-folder; inside a
/// skill, its records are git-skill's.)
pub const SKIPPED_DIRS: &[&str] = &[".git"];
/// How deep below a root a `SKILL.md` is looked for (`<root>/<category>/<name>` is depth 2).
/// Copilot CLI loads skills recursively (eight levels down were seen loaded) and Codex six
/// levels down: a guard looks further than any of them, and what lies deeper still is an
/// error, not a pass.
pub const MAX_DEPTH: usize = 24;
