//! `git skill list`: the skills of the repository (or the paths named), each with its name,
//! category, root, provenance, size and description.

use std::path::PathBuf;

use serde::Serialize;

use super::Skipped;
use crate::env::{Env, EnvError};
use crate::skill::{meta, SkillFiles};

pub struct Options {
    /// Skill directories or folders of skills; none: every skill of the roots.
    pub paths: Vec<PathBuf>,
    /// Only skills of this category.
    pub category: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Listing {
    pub skills: Vec<Row>,
    #[serde(skip)]
    pub skipped: Vec<Skipped>,
}

/// One skill.
#[derive(Debug, Serialize)]
pub struct Row {
    pub name: String,
    pub description: Option<String>,
    pub category: Option<String>,
    pub root: String,
    /// As the user should see it.
    pub path: String,
    /// `auto-skill` (an agent wrote it) or `authored`.
    pub provenance: &'static str,
    /// When an auto-skill was extracted (`metadata.extracted_at`).
    pub extracted_at: Option<String>,
    pub files: usize,
    pub bytes: u64,
    /// Why the frontmatter could not be read, when it could not.
    pub invalid: Option<String>,
}

pub fn list(env: &Env, options: &Options) -> Result<Listing, EnvError> {
    let (found, mut skipped) = super::walk(env, &options.paths, "list")?;
    let mut skills = Vec::new();
    for skill in &found.skills {
        if options.category.is_some() && skill.category != options.category {
            continue;
        }
        let files = match SkillFiles::read(&skill.dir) {
            Ok(files) => files,
            Err(e) => {
                skipped.push(Skipped::Unreadable(e));
                continue;
            }
        };
        let parsed = files.skill_md.as_deref().map(meta::parse);
        let (meta, invalid) = match parsed {
            Some(Ok((meta, _))) => (meta, None),
            Some(Err(e)) => (meta::SkillMeta::default(), Some(e.to_string())),
            None => (
                meta::SkillMeta::default(),
                Some("SKILL.md is not a regular file".to_owned()),
            ),
        };
        skills.push(Row {
            name: meta.name.clone().unwrap_or_else(|| skill.dir_name.clone()),
            description: meta.description.clone(),
            category: skill.category.clone(),
            root: skill.root.label.clone(),
            path: env.display(&skill.dir).display().to_string(),
            extracted_at: meta.extracted_at.clone(),
            provenance: if meta.auto_skill {
                "auto-skill"
            } else {
                "authored"
            },
            files: files.entries.len(),
            bytes: files.total_bytes(),
            invalid,
        });
    }
    Ok(Listing { skills, skipped })
}
