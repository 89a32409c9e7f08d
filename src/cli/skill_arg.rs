//! A skill named on the command line: by path (`.claude/skills/pdf`, `./pdf/SKILL.md`) or by
//! name (`pdf`), looked up in the repository's roots first, then in the user-level ones.

use std::path::Path;

use anyhow::Context as _;

use git_skill::skill::discover::{self, Discovery, Skill};

use super::{CommandError, Ui, Workspace};

/// How many candidates an error lists before "and N more".
const LISTED: usize = 12;

/// What a lookup may return besides a live skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allow {
    Live,
    /// Also a directory whose SKILL.md is gone but whose signals remain.
    Deleted,
}

/// The one skill `arg` names. A name is looked up everywhere a skill may live (the
/// repository's roots, the user-level roots, a directory of that name here); none, or more
/// than one, is an error listing the candidates.
pub fn resolve(
    ws: &Workspace,
    _ui: &mut Ui,
    arg: &str,
    allow: Allow,
) -> Result<(Skill, bool), CommandError> {
    if looks_like_path(arg) {
        return by_path(ws, arg, allow);
    }
    // Notes about other skills (an unreadable directory, a link out of a root) are for `lint`
    // and `list`: they must not fail a command aimed at one skill.
    let mut everything = discover::discover(&ws.roots(), ws.repo.as_ref().map(|r| r.workdir()));
    everything.merge(discover::discover(&ws.user_roots(), None));
    let mut candidates: Vec<(Skill, bool)> = named(&everything, arg, allow);
    if Path::new(arg).join("SKILL.md").is_file() {
        let (local, deleted) = by_path(ws, arg, allow)?;
        let same = |s: &Skill| s.dir.canonicalize().ok() == local.dir.canonicalize().ok();
        if !candidates.iter().any(|(s, _)| same(s)) {
            candidates.push((local, deleted));
        }
    }
    match candidates.len() {
        1 => Ok(candidates.remove(0)),
        0 => {
            let mut names: Vec<&str> = everything
                .skills
                .iter()
                .map(|s| s.dir_name.as_str())
                .collect();
            names.sort_unstable();
            names.dedup();
            let error = CommandError::new(format!("skill '{arg}' not found"));
            let error = if names.is_empty() {
                error.hint("no skills found in the repository or the user-level roots")
            } else {
                error.hint(format!("known skills: {}", listing(&names)))
            };
            Err(error.hint("a path works too: .claude/skills/<name>"))
        }
        n => {
            let paths: Vec<String> = candidates
                .iter()
                .map(|(s, _)| ws.display(&s.dir).display().to_string())
                .collect();
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            Err(CommandError::new(format!(
                "skill name '{arg}' is ambiguous: {n} skills have it"
            ))
            .hint(format!("name one by its path: {}", listing(&paths))))
        }
    }
}

fn named(found: &Discovery, name: &str, allow: Allow) -> Vec<(Skill, bool)> {
    let live = found
        .skills
        .iter()
        .filter(|s| s.dir_name == name)
        .map(|s| (s.clone(), false));
    let deleted = found
        .deleted
        .iter()
        .filter(|s| allow == Allow::Deleted && s.dir_name == name)
        .map(|s| (s.clone(), true));
    live.chain(deleted).collect()
}

fn listing(items: &[&str]) -> String {
    let mut text = items
        .iter()
        .take(LISTED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > LISTED {
        text.push_str(&format!(", and {} more", items.len() - LISTED));
    }
    text
}

fn looks_like_path(arg: &str) -> bool {
    arg.contains('/')
        || arg.contains(std::path::MAIN_SEPARATOR)
        || arg == "."
        || arg == ".."
        || arg == "SKILL.md"
}

fn by_path(ws: &Workspace, arg: &str, allow: Allow) -> Result<(Skill, bool), CommandError> {
    let path = ws.cwd.join(arg);
    let dir = if path.file_name().is_some_and(|n| n == "SKILL.md") {
        path.parent().unwrap_or(&path).to_owned()
    } else {
        path
    };
    let hint = "a skill is a directory holding SKILL.md; give that directory or its SKILL.md";
    if !dir.is_dir() {
        return Err(
            CommandError::new(format!("no skill at '{arg}': no such directory")).hint(hint),
        );
    }
    let has_skill_md = std::fs::symlink_metadata(dir.join("SKILL.md")).is_ok();
    let deleted = !has_skill_md && dir.join(discover::PENDING_SIGNALS).is_file();
    let usable = has_skill_md || (deleted && allow == Allow::Deleted);
    if !usable {
        return Err(CommandError::new(format!("no SKILL.md in '{arg}'")).hint(hint));
    }
    refuse_escaping_link(ws, arg, &dir)?;
    let found = if has_skill_md {
        discover::at_path(&dir, &ws.roots(), ws.repo.as_ref().map(|r| r.workdir()))?
    } else {
        Discovery::default()
    };
    let skill = match found.skills.into_iter().next() {
        Some(skill) => skill,
        None => {
            let dir = dir
                .canonicalize()
                .with_context(|| format!("could not read '{arg}'"))?;
            Skill {
                dir_name: dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                root: discover::Root {
                    path: dir.parent().unwrap_or(&dir).to_owned(),
                    label: arg.to_owned(),
                    explicit: true,
                },
                dir,
                category: None,
            }
        }
    };
    Ok((skill, deleted))
}

/// A path that reaches its skill through a symbolic link must stay where skills are looked
/// for: the work tree, a skill root or a user-level root. Writing through a link elsewhere
/// would put files outside what the command owns.
fn refuse_escaping_link(ws: &Workspace, arg: &str, dir: &Path) -> Result<(), CommandError> {
    let Ok(canonical) = dir.canonicalize() else {
        return Ok(());
    };
    // Only the components the user typed count: a current directory reached through a link
    // (macOS's /tmp) is not the argument's doing.
    let mut at = if Path::new(arg).is_absolute() {
        std::path::PathBuf::new()
    } else {
        ws.cwd.clone()
    };
    let mut through_link = false;
    for part in Path::new(arg).components() {
        at.push(part);
        through_link |= git_skill::fsutil::is_link(&at);
    }
    if !through_link {
        return Ok(());
    }
    let mut allowed: Vec<std::path::PathBuf> = ws
        .roots()
        .iter()
        .chain(ws.user_roots().iter())
        .filter_map(|r| r.path.canonicalize().ok())
        .collect();
    if let Some(repo) = &ws.repo {
        allowed.extend(repo.workdir().canonicalize().ok());
    }
    if allowed.iter().any(|a| canonical.starts_with(a)) {
        return Ok(());
    }
    Err(CommandError::new(format!(
        "'{arg}' leads through a symbolic link to '{}', outside the repository and the skill roots",
        canonical.display()
    ))
    .hint("git-skill does not follow links out of where skills live; give the real path, or add its folder to skill.roots"))
}
