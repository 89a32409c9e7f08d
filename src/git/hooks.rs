//! Installing and removing git's commit hooks (the agents' hooks are elsewhere): `pre-commit`,
//! and `pre-merge-commit`, which git runs instead when a merge makes its commit by itself
//! (`git merge --no-ff` without conflicts), so that a merge bringing a dangerous skill is
//! checked like any commit. The script is `hooks/pre-commit` of this repository, embedded; a
//! hook that was there before is chained (run first) or, with `--force`, set aside;
//! uninstalling puts it back.

use std::path::{Path, PathBuf};

/// The hook script, as shipped in `hooks/pre-commit`.
pub const SCRIPT: &str = include_str!("../../hooks/pre-commit");
/// What marks a hook as ours.
const MARKER: &str = "exec git-skill hook pre-commit";
/// A foreign pre-commit hook that runs before ours.
pub const CHAINED: &str = "pre-commit.git-skill-chained";
/// A foreign pre-commit hook set aside by `--force`, not run.
pub const BACKUP: &str = "pre-commit.git-skill-backup";

/// The git hooks git-skill installs, each running the same check of what is staged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    PreCommit,
    /// Run by `git merge` for the commit it makes without stopping (git runs no pre-commit
    /// then); a merge that stops on conflicts is committed by `git commit`, which runs
    /// pre-commit.
    PreMergeCommit,
}

impl Hook {
    pub const ALL: [Hook; 2] = [Hook::PreCommit, Hook::PreMergeCommit];

    /// The hook's file name in the hooks directory.
    pub fn name(self) -> &'static str {
        match self {
            Hook::PreCommit => "pre-commit",
            Hook::PreMergeCommit => "pre-merge-commit",
        }
    }

    /// The script, naming its own chained hook.
    pub fn script(self) -> String {
        match self {
            Hook::PreCommit => SCRIPT.to_owned(),
            Hook::PreMergeCommit => SCRIPT
                .replace(
                    "git-skill pre-commit hook:",
                    "git-skill pre-merge-commit hook:",
                )
                .replace("the commit touches", "the merge commit touches")
                .replace(CHAINED, &self.chained()),
        }
    }

    /// A foreign hook of this name that runs before ours.
    pub fn chained(self) -> String {
        format!("{}.git-skill-chained", self.name())
    }

    /// A foreign hook of this name set aside by `--force`.
    pub fn backup(self) -> String {
        format!("{}.git-skill-backup", self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    Fresh,
    AlreadyInstalled,
    /// An existing hook was kept and runs first.
    Chained(PathBuf),
    /// An existing hook was set aside (not run) because of `--force`.
    Replaced(PathBuf),
    /// The installed copy was older and was rewritten.
    Updated,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Uninstalled {
    Removed,
    /// The hook that was there before git-skill is back.
    Restored(PathBuf),
    NotInstalled,
}

#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("could not {action} '{}'", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("'{}' is not git-skill's hook; leaving it alone", path.display())]
    Foreign { path: PathBuf },
    #[error("'{}' already exists: a hook set aside by an earlier install", path.display())]
    SavedExists { path: PathBuf },
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> HookError {
    let path = path.to_owned();
    move |source| HookError::Io {
        action,
        path,
        source,
    }
}

fn is_ours(text: &str) -> bool {
    text.contains(MARKER)
}

fn write_script(path: &Path, script: &str) -> Result<(), HookError> {
    crate::fsutil::write_atomic(path, script.as_bytes()).map_err(io("write", path))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(io("make executable", path))?;
    }
    Ok(())
}

/// Whether every hook of [`Hook::ALL`] in `hooks_dir` is git-skill's, as this version writes it
/// (nothing for `install` to do).
pub fn current(hooks_dir: &Path) -> bool {
    Hook::ALL.iter().all(|hook| {
        crate::fsutil::read(&hooks_dir.join(hook.name()))
            .is_ok_and(|bytes| bytes == hook.script().as_bytes())
    })
}

/// Installs every hook of [`Hook::ALL`] in `hooks_dir`. Idempotent.
pub fn install(hooks_dir: &Path, force: bool) -> Result<Vec<(Hook, Installed)>, HookError> {
    Hook::ALL
        .iter()
        .map(|&hook| Ok((hook, install_one(hooks_dir, hook, force)?)))
        .collect()
}

/// Installs `hook` in `hooks_dir`. Idempotent.
pub fn install_one(hooks_dir: &Path, hook: Hook, force: bool) -> Result<Installed, HookError> {
    std::fs::create_dir_all(hooks_dir).map_err(io("create", hooks_dir))?;
    let path = hooks_dir.join(hook.name());
    let script = hook.script();
    let existing = match crate::fsutil::read(&path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io("read", &path)(e)),
    };
    match existing {
        None => {
            write_script(&path, &script)?;
            Ok(Installed::Fresh)
        }
        Some(text) if is_ours(&text) => {
            if text == script {
                Ok(Installed::AlreadyInstalled)
            } else {
                write_script(&path, &script)?;
                Ok(Installed::Updated)
            }
        }
        Some(_) => {
            let saved = hooks_dir.join(if force { hook.backup() } else { hook.chained() });
            for name in [hook.chained(), hook.backup()] {
                let saved = hooks_dir.join(name);
                if saved.exists() {
                    return Err(HookError::SavedExists { path: saved });
                }
            }
            std::fs::rename(&path, &saved).map_err(io("move", &path))?;
            write_script(&path, &script)?;
            Ok(if force {
                Installed::Replaced(saved)
            } else {
                Installed::Chained(saved)
            })
        }
    }
}

/// Removes every hook of [`Hook::ALL`] and restores the ones that were there before. A foreign
/// hook in place of one of ours is left alone and is an error, after the others are done.
pub fn uninstall(hooks_dir: &Path) -> Result<Vec<(Hook, Uninstalled)>, HookError> {
    let mut out = Vec::new();
    let mut foreign = None;
    for hook in Hook::ALL {
        match uninstall_one(hooks_dir, hook) {
            Ok(done) => out.push((hook, done)),
            Err(e @ HookError::Foreign { .. }) => foreign = foreign.or(Some(e)),
            Err(e) => return Err(e),
        }
    }
    match foreign {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Removes `hook` and restores the one that was there before.
pub fn uninstall_one(hooks_dir: &Path, hook: Hook) -> Result<Uninstalled, HookError> {
    let path = hooks_dir.join(hook.name());
    match crate::fsutil::read(&path) {
        Ok(bytes) if is_ours(&String::from_utf8_lossy(&bytes)) => {}
        Ok(_) => return Err(HookError::Foreign { path }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Uninstalled::NotInstalled),
        Err(e) => return Err(io("read", &path)(e)),
    }
    std::fs::remove_file(&path).map_err(io("remove", &path))?;
    for name in [hook.chained(), hook.backup()] {
        let saved = hooks_dir.join(name);
        if saved.exists() {
            std::fs::rename(&saved, &path).map_err(io("restore", &saved))?;
            return Ok(Uninstalled::Restored(path));
        }
    }
    Ok(Uninstalled::Removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(found: Vec<(Hook, Installed)>, hook: Hook) -> Installed {
        found.into_iter().find(|(h, _)| *h == hook).unwrap().1
    }

    #[test]
    fn install_chain_and_restore() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("hooks");
        for (_, done) in install(&dir, false).unwrap() {
            assert_eq!(done, Installed::Fresh);
        }
        for (_, done) in install(&dir, false).unwrap() {
            assert_eq!(done, Installed::AlreadyInstalled);
        }
        let merge = std::fs::read_to_string(dir.join("pre-merge-commit")).unwrap();
        assert!(
            merge.contains("pre-merge-commit.git-skill-chained"),
            "{merge}"
        );
        assert!(merge.contains(MARKER));
        for (_, done) in uninstall(&dir).unwrap() {
            assert_eq!(done, Uninstalled::Removed);
        }
        for (_, done) in uninstall(&dir).unwrap() {
            assert_eq!(done, Uninstalled::NotInstalled);
        }

        std::fs::write(dir.join("pre-commit"), "#!/bin/sh\necho mine\n").unwrap();
        let done = install(&dir, false).unwrap();
        assert!(matches!(
            only(done.clone(), Hook::PreCommit),
            Installed::Chained(_)
        ));
        assert_eq!(only(done, Hook::PreMergeCommit), Installed::Fresh);
        assert!(dir.join(CHAINED).exists());
        let undone = uninstall(&dir).unwrap();
        assert!(matches!(
            undone[0],
            (Hook::PreCommit, Uninstalled::Restored(_))
        ));
        assert_eq!(undone[1], (Hook::PreMergeCommit, Uninstalled::Removed));
        assert_eq!(
            std::fs::read_to_string(dir.join("pre-commit")).unwrap(),
            "#!/bin/sh\necho mine\n"
        );

        std::fs::write(dir.join("pre-merge-commit"), "#!/bin/sh\necho merge\n").unwrap();
        let done = install(&dir, true).unwrap();
        assert!(matches!(
            only(done.clone(), Hook::PreCommit),
            Installed::Replaced(_)
        ));
        assert!(matches!(
            only(done, Hook::PreMergeCommit),
            Installed::Replaced(_)
        ));
        assert!(dir.join(BACKUP).exists());
        assert!(dir.join("pre-merge-commit.git-skill-backup").exists());
        uninstall(&dir).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("pre-merge-commit")).unwrap(),
            "#!/bin/sh\necho merge\n"
        );
        std::fs::write(dir.join("pre-commit"), "#!/bin/sh\necho other\n").unwrap();
        assert!(matches!(uninstall(&dir), Err(HookError::Foreign { .. })));
    }
}
