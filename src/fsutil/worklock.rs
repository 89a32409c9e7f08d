//! A working directory held by one run at a time: `<dir>/lock`, locked for as long as the run
//! lives (the operating system releases it when the process dies, however it dies). Optimize
//! holds one in a skill's `.skillopt/work/`; the review agent holds one for its proposals.

use std::path::{Path, PathBuf};

use super::lock::{Lock, Wait};

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another run holds it.
    #[error("'{}' is held by another run", .lock.display())]
    Busy { lock: PathBuf },
    /// The directory, or its parent, is a link or a file: a committed link would have files
    /// written, and permissions changed, wherever it points.
    #[error("'{}' is not a directory (a symbolic link or a file)", .path.display())]
    NotADirectory { path: PathBuf },
    #[error("cannot write '{}'", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The lock on a working directory. When it drops and the directory holds nothing but the
/// lock (a run that stopped before it wrote anything that matters), the directory goes too.
#[derive(Debug)]
pub struct WorkLock {
    _lock: Lock,
    dir: PathBuf,
}

impl WorkLock {
    /// Creates `dir` (0700, readable by the user alone) and takes its lock, without waiting.
    pub fn acquire(dir: &Path) -> Result<WorkLock, LockError> {
        for d in [dir.parent(), Some(dir)].into_iter().flatten() {
            if std::fs::symlink_metadata(d).is_ok_and(|m| !m.is_dir()) {
                return Err(LockError::NotADirectory { path: d.to_owned() });
            }
        }
        let path = dir.join("lock");
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        crate::fsutil::private_dir(dir).map_err(io)?;
        match Lock::exclusive(&path, Wait::No) {
            Ok(lock) => Ok(WorkLock {
                _lock: lock,
                dir: dir.to_owned(),
            }),
            Err(super::LockError::Busy { .. }) => Err(LockError::Busy { lock: path }),
            Err(super::LockError::Io { source, .. }) => Err(io(source)),
        }
    }
}

impl Drop for WorkLock {
    fn drop(&mut self) {
        let only_lock = std::fs::read_dir(&self.dir).is_ok_and(|entries| {
            entries
                .filter_map(Result::ok)
                .all(|e| e.file_name() == "lock")
        });
        if only_lock {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_an_empty_dir_goes() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("a/work");
        let held = WorkLock::acquire(&dir).unwrap();
        assert!(matches!(
            WorkLock::acquire(&dir),
            Err(LockError::Busy { .. })
        ));
        drop(held);
        assert!(!dir.exists(), "nothing but the lock: the directory goes");
        let held = WorkLock::acquire(&dir).unwrap();
        std::fs::write(dir.join("checkpoint.json"), "{}").unwrap();
        drop(held);
        assert!(dir.join("checkpoint.json").exists(), "work stays");
        #[cfg(unix)]
        {
            let link = t.path().join("b");
            std::os::unix::fs::symlink(t.path().join("a"), &link).unwrap();
            assert!(matches!(
                WorkLock::acquire(&link.join("work")),
                Err(LockError::NotADirectory { .. })
            ));
        }
    }
}
