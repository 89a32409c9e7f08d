//! What `manage` does to the file system: finding a skill by name, the per-skill lock, and
//! writes that follow no symbolic link and leave no torn file.

use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{Change, ManageError};

/// `to` lies below `from`, and no directory or file on the way (what exists of it) is a
/// symbolic link: a write there stays where it is meant to.
pub fn no_link_on_the_way(from: &Path, to: &Path) -> Result<(), String> {
    let rest = to
        .strip_prefix(from)
        .map_err(|_| format!("'{}' is not inside '{}'", to.display(), from.display()))?;
    let mut at = from.to_owned();
    for part in rest.components() {
        match part {
            Component::Normal(p) => at.push(p),
            _ => return Err(format!("'{}' has a '..' or '.' part", to.display())),
        }
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!(
                    "'{}' is a symbolic link: git-skill never writes through one",
                    at.display()
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("'{}': {e}", at.display())),
        }
    }
    Ok(())
}

/// Takes the lock of skill `name` under `root` (waiting for another writer to finish); it
/// holds until the returned lock is dropped.
pub fn lock(locks: &Path, root: &Path, name: &str) -> Result<crate::fsutil::Lock, ManageError> {
    let err = |path: PathBuf, source| ManageError::Lock {
        skill: name.to_owned(),
        path,
        source,
    };
    crate::fsutil::private_dir(locks).map_err(|e| err(locks.to_owned(), e))?;
    let key: String = Sha256::digest(format!("{}\0{name}", root.display()).as_bytes())
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect();
    let path = locks.join(format!("manage-{key}.lock"));
    // Forever: a writer of the same skill finishes in moments, and two writers queued behind
    // it must both run, in turn.
    crate::fsutil::Lock::exclusive(&path, crate::fsutil::lock::Wait::Forever).map_err(|e| {
        let path = e.path().to_owned();
        match e {
            crate::fsutil::LockError::Io { source, .. } => err(path, source),
            busy => err(path, std::io::Error::other(busy.to_string())),
        }
    })
}

/// The directory of the skill named `name` under `root`: `root/name` or, one category down,
/// `root/<category>/name`. Anything there counts (a file, a link, a directory without
/// SKILL.md): a create must not write over it.
pub fn find_skill(root: &Path, name: &str) -> Result<Option<PathBuf>, ManageError> {
    let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    let direct = root.join(name);
    if exists(&direct) {
        return Ok(Some(direct));
    }
    let entries = match std::fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ManageError::Read {
                path: root.to_owned(),
                message: e.to_string(),
            })
        }
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let path = entry.path();
        // A category is a directory that is no skill itself.
        if is_dir && !path.join("SKILL.md").exists() && exists(&path.join(name)) {
            found.push(path.join(name));
        }
    }
    found.sort();
    Ok(found.into_iter().next())
}

/// Writes or removes each file of `changes` in `dir` (created when missing): new content by a
/// temporary file, fsync and rename; directories made one by one, none of them a link.
/// Returns the paths changed, relative to the skill.
pub fn write(dir: &Path, changes: &[Change]) -> Result<Vec<String>, ManageError> {
    let werr = |path: &Path, source| ManageError::Write {
        path: path.to_owned(),
        source,
    };
    let mut done = Vec::new();
    for (rel, bytes) in changes {
        let path = dir.join(rel);
        let parent = path.parent().unwrap_or(dir);
        make_dirs(parent).map_err(|e| werr(parent, e))?;
        match bytes {
            Some(b) => crate::fsutil::write_atomic(&path, b).map_err(|e| werr(&path, e))?,
            None => {
                std::fs::remove_file(&path).map_err(|e| werr(&path, e))?;
                // Leave no empty directory behind (references/ with its last file gone).
                let mut d = parent;
                while d != dir && std::fs::remove_dir(d).is_ok() {
                    d = d.parent().unwrap_or(dir);
                }
            }
        }
        done.push(rel.clone());
    }
    Ok(done)
}

/// Creates `dir` and its missing parents, refusing to go through a link.
fn make_dirs(dir: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => {
            return Err(std::io::Error::other(format!(
                "'{}' is not a directory",
                dir.display()
            )))
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        Err(_) => {}
    }
    if let Some(parent) = dir.parent() {
        make_dirs(parent)?;
    }
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => make_dirs(dir),
        Err(e) => Err(e),
    }
}

/// Removes the skill directory: renamed aside first, so that it disappears at once, then
/// deleted.
pub fn remove_skill(dir: &Path) -> Result<(), ManageError> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let aside = dir.with_file_name(format!(".{name}.removing-{}", std::process::id()));
    std::fs::rename(dir, &aside).map_err(|source| ManageError::Write {
        path: dir.to_owned(),
        source,
    })?;
    std::fs::remove_dir_all(&aside).map_err(|source| ManageError::Write {
        path: aside.clone(),
        source,
    })
}
