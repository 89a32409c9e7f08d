//! Installing and removing git's pre-commit hook (the agents' hooks are elsewhere). The script is `hooks/pre-commit` of this
//! repository, embedded; a hook that was there before is chained (run first) or, with
//! `--force`, set aside; uninstalling puts it back.

use std::path::{Path, PathBuf};

/// The hook script, as shipped in `hooks/pre-commit`.
pub const SCRIPT: &str = include_str!("../../hooks/pre-commit");
/// What marks a hook as ours.
const MARKER: &str = "exec git-skill hook pre-commit";
/// A foreign hook that runs before ours.
pub const CHAINED: &str = "pre-commit.git-skill-chained";
/// A foreign hook set aside by `--force`, not run.
pub const BACKUP: &str = "pre-commit.git-skill-backup";

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

fn write_script(path: &Path) -> Result<(), HookError> {
    crate::fsutil::write_atomic(path, SCRIPT.as_bytes()).map_err(io("write", path))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(io("make executable", path))?;
    }
    Ok(())
}

/// Installs the hook in `hooks_dir`. Idempotent.
pub fn install(hooks_dir: &Path, force: bool) -> Result<Installed, HookError> {
    std::fs::create_dir_all(hooks_dir).map_err(io("create", hooks_dir))?;
    let hook = hooks_dir.join("pre-commit");
    let existing = match std::fs::read(&hook) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io("read", &hook)(e)),
    };
    match existing {
        None => {
            write_script(&hook)?;
            Ok(Installed::Fresh)
        }
        Some(text) if is_ours(&text) => {
            if text == SCRIPT {
                Ok(Installed::AlreadyInstalled)
            } else {
                write_script(&hook)?;
                Ok(Installed::Updated)
            }
        }
        Some(_) => {
            let saved = hooks_dir.join(if force { BACKUP } else { CHAINED });
            for name in [CHAINED, BACKUP] {
                let path = hooks_dir.join(name);
                if path.exists() {
                    return Err(HookError::SavedExists { path });
                }
            }
            std::fs::rename(&hook, &saved).map_err(io("move", &hook))?;
            write_script(&hook)?;
            Ok(if force {
                Installed::Replaced(saved)
            } else {
                Installed::Chained(saved)
            })
        }
    }
}

/// Removes the hook and restores the one that was there before.
pub fn uninstall(hooks_dir: &Path) -> Result<Uninstalled, HookError> {
    let hook = hooks_dir.join("pre-commit");
    match std::fs::read(&hook) {
        Ok(bytes) if is_ours(&String::from_utf8_lossy(&bytes)) => {}
        Ok(_) => return Err(HookError::Foreign { path: hook }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Uninstalled::NotInstalled),
        Err(e) => return Err(io("read", &hook)(e)),
    }
    std::fs::remove_file(&hook).map_err(io("remove", &hook))?;
    for name in [CHAINED, BACKUP] {
        let saved = hooks_dir.join(name);
        if saved.exists() {
            std::fs::rename(&saved, &hook).map_err(io("restore", &saved))?;
            return Ok(Uninstalled::Restored(hook));
        }
    }
    Ok(Uninstalled::Removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_chain_and_restore() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("hooks");
        assert_eq!(install(&dir, false).unwrap(), Installed::Fresh);
        assert_eq!(install(&dir, false).unwrap(), Installed::AlreadyInstalled);
        assert_eq!(uninstall(&dir).unwrap(), Uninstalled::Removed);
        assert_eq!(uninstall(&dir).unwrap(), Uninstalled::NotInstalled);

        std::fs::write(dir.join("pre-commit"), "#!/bin/sh\necho mine\n").unwrap();
        assert!(matches!(
            install(&dir, false).unwrap(),
            Installed::Chained(_)
        ));
        assert!(dir.join(CHAINED).exists());
        assert!(matches!(uninstall(&dir).unwrap(), Uninstalled::Restored(_)));
        assert_eq!(
            std::fs::read_to_string(dir.join("pre-commit")).unwrap(),
            "#!/bin/sh\necho mine\n"
        );

        assert!(matches!(
            install(&dir, true).unwrap(),
            Installed::Replaced(_)
        ));
        assert!(dir.join(BACKUP).exists());
        uninstall(&dir).unwrap();
        std::fs::write(dir.join("pre-commit"), "#!/bin/sh\necho other\n").unwrap();
        assert!(matches!(uninstall(&dir), Err(HookError::Foreign { .. })));
    }
}
