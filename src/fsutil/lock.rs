//! The one file lock. Every writer that must run alone takes it here: a working directory
//! (`optimize`'s `.skillopt/work`), a review of a repository, a session's hook state, a skill
//! `manage` writes, a signal store's writers and readers.
//!
//! It is an advisory lock (`flock`) on a file that is never replaced while locked. The kernel
//! drops it when its process ends, however it ends (a kill, a crash, a power cut), so there
//! is no stale lock to detect or break: a lock file left behind is a free lock. The rules that
//! follow from it:
//! - a lock file is removed only by a run that holds it (a lock taken on a file another run
//!   then unlinks would guard nothing);
//! - an exclusive lock on a lock file records its owner (`pid <n>`) in the file, so that a run
//!   turned away can say who holds it; the record is a hint, never a reason to wait or not;
//! - every wait is bounded unless the caller asks to queue behind the holder ([`Wait::Forever`]),
//!   which only writers that the holder cannot be waiting for do.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long to wait for a lock another run holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Not at all: held means [`LockError::Busy`].
    No,
    /// Up to this long, then [`LockError::Busy`].
    For(Duration),
    /// Until the holder lets go (the kernel queues the waiters).
    Forever,
}

/// Shared (readers) or exclusive (a writer alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Shared,
    Exclusive,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("'{}' is held by another run{}", .path.display(), owner_note(*.owner))]
    Busy { path: PathBuf, owner: Option<u32> },
    #[error("cannot lock '{}': {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl LockError {
    pub fn path(&self) -> &Path {
        match self {
            LockError::Busy { path, .. } | LockError::Io { path, .. } => path,
        }
    }
}

fn owner_note(owner: Option<u32>) -> String {
    owner.map_or_else(String::new, |pid| format!(" (process {pid})"))
}

/// A lock held until it drops.
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// Takes the lock file at `path` exclusively (creating it, refusing a link, a hard link or
    /// a special file) and records this process as its owner.
    pub fn exclusive(path: &Path, wait: Wait) -> Result<Lock, LockError> {
        let mut lock = Lock::exclusive_brief(path, wait).map_err(|e| match e {
            LockError::Busy { path, .. } => LockError::Busy {
                owner: owner(&path),
                path,
            },
            e => e,
        })?;
        lock.record_owner();
        Ok(lock)
    }

    /// [`Lock::exclusive`] for a lock held a millisecond at a time (an agent hook's session
    /// state): no owner is written, which would cost the hook more than the hold, and a run
    /// turned away is not told one.
    pub fn exclusive_brief(path: &Path, wait: Wait) -> Result<Lock, LockError> {
        let file = super::open_lock(path).map_err(io(path))?;
        Lock::on(file, path, Mode::Exclusive, wait)
    }

    /// Takes `file`, which the caller opened at `path` (a store read or rewritten under its
    /// own lock), in `mode`. Nothing is written to it.
    pub fn on(file: File, path: &Path, mode: Mode, wait: Wait) -> Result<Lock, LockError> {
        take(&file, path, mode, wait)?;
        Ok(Lock {
            file,
            path: path.to_owned(),
        })
    }

    /// Takes an exclusive lock on the directory `dir` itself, for a folder whose files are
    /// replaced while it is held (on systems that cannot lock a directory, on `dir/.lock`).
    pub fn directory(dir: &Path, wait: Wait) -> Result<Lock, LockError> {
        #[cfg(unix)]
        let file = File::open(dir).map_err(io(dir))?;
        #[cfg(not(unix))]
        let file = super::open_lock(&dir.join(".lock")).map_err(io(dir))?;
        Lock::on(file, dir, Mode::Exclusive, wait)
    }

    /// Takes the existing lock file at `path` if no one holds it, without creating it or
    /// recording an owner: for removing what runs left behind. `None` when it is held, gone,
    /// or not a plain file.
    pub fn existing(path: &Path) -> Option<Lock> {
        let file = super::open_regular(path, super::Links::Any)
            .ok()
            .flatten()?;
        Lock::on(file, path, Mode::Exclusive, Wait::No).ok()
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lets go of the lock now, keeping the file open.
    pub fn release(self) -> File {
        let _ = self.file.unlock();
        self.file
    }

    fn record_owner(&mut self) {
        // A hint for the message another run gets; a lock file that cannot take it still locks.
        let pid = std::process::id();
        let _ = self
            .file
            .set_len(0)
            .and_then(|()| self.file.rewind())
            .and_then(|()| writeln!(self.file, "pid {pid}"));
    }
}

/// Whether some run holds the lock at `path` now. A missing file, a FIFO (whose open could
/// hang a hook) or anything that is not a plain file is not held.
pub fn is_held(path: &Path) -> bool {
    let Ok(Some(file)) = super::open_regular(path, super::Links::Any) else {
        return false;
    };
    matches!(
        take(&file, path, Mode::Exclusive, Wait::No),
        Err(LockError::Busy { .. })
    )
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LockError + '_ {
    move |source| LockError::Io {
        path: path.to_owned(),
        source,
    }
}

fn take(file: &File, path: &Path, mode: Mode, wait: Wait) -> Result<(), LockError> {
    if wait == Wait::Forever {
        let taken = match mode {
            Mode::Shared => file.lock_shared(),
            Mode::Exclusive => file.lock(),
        };
        return taken.map_err(io(path));
    }
    let deadline = match wait {
        Wait::For(d) => Some(crate::clock::monotonic() + d),
        _ => None,
    };
    let mut pause = Duration::from_millis(1);
    loop {
        let tried = match mode {
            Mode::Shared => file.try_lock_shared(),
            Mode::Exclusive => file.try_lock(),
        };
        match tried {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::Error(e)) => return Err(io(path)(e)),
            Err(std::fs::TryLockError::WouldBlock) => {}
        }
        let now = crate::clock::monotonic();
        match deadline {
            Some(d) if now < d => {
                std::thread::sleep(pause.min(d - now));
                // Short first (a hook holds a session's lock for a millisecond), then
                // politer: a long holder is not polled a thousand times a second.
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            _ => {
                return Err(LockError::Busy {
                    path: path.to_owned(),
                    owner: None,
                })
            }
        }
    }
}

/// The owner a lock file records, when it records one (read only for a run turned away).
fn owner(path: &Path) -> Option<u32> {
    let file = super::open_regular(path, super::Links::Any).ok()??;
    let mut text = String::new();
    file.take(32).read_to_string(&mut text).ok()?;
    text.trim().strip_prefix("pid ")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_turns_others_away_naming_its_owner() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let held = Lock::exclusive(&path, Wait::No).unwrap();
        assert!(is_held(&path));
        match Lock::exclusive(&path, Wait::For(Duration::from_millis(30))) {
            Err(LockError::Busy { owner, .. }) => assert_eq!(owner, Some(std::process::id())),
            other => panic!("{other:?}"),
        }
        assert!(
            Lock::existing(&path).is_none(),
            "held: not taken for removal"
        );
        drop(held);
        // Another test's child process, forked before it execs, briefly shares the lock's
        // open file (the lock is the open file's, not the descriptor's): wait for it to go.
        let released = (0..100).any(|_| {
            let free = !is_held(&path);
            if !free {
                std::thread::sleep(Duration::from_millis(10));
            }
            free
        });
        assert!(released);
        assert!(Lock::existing(&path).is_some());
        Lock::exclusive(&path, Wait::No).unwrap();
    }

    #[test]
    fn a_bounded_wait_gets_a_lock_released_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let held = Lock::exclusive(&path, Wait::No).unwrap();
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            drop(held);
        });
        Lock::exclusive(&path, Wait::For(Duration::from_secs(10))).unwrap();
        releaser.join().unwrap();
    }

    #[test]
    fn readers_share_and_a_writer_waits_for_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        std::fs::write(&path, "x").unwrap();
        let open = || File::open(&path).unwrap();
        let a = Lock::on(open(), &path, Mode::Shared, Wait::No).unwrap();
        let _b = Lock::on(open(), &path, Mode::Shared, Wait::No).unwrap();
        assert!(matches!(
            Lock::on(open(), &path, Mode::Exclusive, Wait::No),
            Err(LockError::Busy { owner: None, .. })
        ));
        drop(a);
        drop(_b);
        Lock::on(open(), &path, Mode::Exclusive, Wait::No).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_fifos_and_directories_are_no_lock_files() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "").unwrap();
        let link = dir.path().join("link.lock");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(
            Lock::exclusive(&link, Wait::No),
            Err(LockError::Io { .. })
        ));
        let fifo = dir.path().join("fifo.lock");
        nix_mkfifo(&fifo);
        assert!(matches!(
            Lock::exclusive(&fifo, Wait::No),
            Err(LockError::Io { .. })
        ));
        assert!(!is_held(&fifo), "asking about a FIFO does not hang");
        let held = Lock::directory(dir.path(), Wait::No).unwrap();
        assert!(Lock::directory(dir.path(), Wait::No).is_err());
        drop(held);
    }

    #[cfg(unix)]
    fn nix_mkfifo(path: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }
}
