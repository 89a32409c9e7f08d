//! `git skill manage`: where a request writes (the root, the top below which no link may lie,
//! where the locks go), resolved from the environment; the request itself is carried out by
//! [`crate::manage::manage`].

use std::path::{Component, Path, PathBuf};

use crate::env::Env;
use crate::manage::Target;

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("the repository has none of the default skill roots")]
    NoDefaultRoot,
    #[error("outside a repository there is no default skill root")]
    OutsideRepository,
}

/// The target of a request: `root` as named (relative to the current directory), else
/// `skill.autoSkill.root` (relative to the top), else the first default root the repository
/// has.
pub fn target(env: &Env, root: Option<&Path>) -> Result<Target, TargetError> {
    let top = env.repo.as_ref().map(|r| r.workdir().to_owned());
    let configured = env
        .config
        .get("autoSkill.root")
        .map(|v| PathBuf::from(v.text.trim()))
        .filter(|p| !p.as_os_str().is_empty());
    let root = match (root, configured, &top) {
        (Some(r), _, _) => env.cwd.join(r),
        (None, Some(c), Some(top)) => top.join(c),
        (None, Some(c), None) => env.cwd.join(c),
        (None, None, Some(top)) => crate::config::default_roots()
            .iter()
            .map(|r| top.join(r))
            .find(|p| p.is_dir())
            .ok_or(TargetError::NoDefaultRoot)?,
        (None, None, None) => return Err(TargetError::OutsideRepository),
    };
    let root = clean(&root);
    let (top, locks, shown) = match (&top, env.repo.as_ref()) {
        (Some(top), Some(repo)) if root.starts_with(top) => {
            let rel = root
                .strip_prefix(top)
                .unwrap_or(&root)
                .to_string_lossy()
                .replace('\\', "/");
            (top.clone(), repo.git_dir().join("skill/locks"), rel)
        }
        _ => {
            let cache = env
                .home
                .as_ref()
                .map(|h| h.join(".cache/git-skill/locks"))
                .unwrap_or_else(|| std::env::temp_dir().join("git-skill-locks"));
            (root.clone(), cache, root.display().to_string())
        }
    };
    Ok(Target {
        root,
        root_shown: shown,
        top,
        locks,
    })
}

/// `path` without `.` parts and with `..` taken back lexically: the root as the user means
/// it, which the no-link check then walks.
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
