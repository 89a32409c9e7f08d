//! Safe file I/O: writes that never leave a torn file behind, opens that refuse what is not
//! the plain file it should be (a FIFO, a device, a link, a hard link), and the one lock.

pub mod lock;
pub mod worklock;

pub use lock::{Lock, LockError};

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to a temporary file beside `path`, syncs it, and renames it over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_mode(path, bytes, None, true)
}

/// [`write_atomic`], the file created with `mode` (unix permission bits).
pub fn write_atomic_with_mode(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    write_atomic_mode(path, bytes, Some(mode), true)
}

/// [`write_atomic`], the file created with `mode` (unix permission bits) when given.
fn write_atomic_mode(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    sync: bool,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        // A file (or link) of that name left by an earlier run is removed, never written
        // through: the temporary file is always a new one.
        let _ = std::fs::remove_file(&tmp);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if let Some(mode) = mode {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(mode);
        }
        let mut file = options.open(&tmp)?;
        #[cfg(unix)]
        if let Some(mode) = mode {
            // The umask may have taken bits off the mode the file was created with.
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether `path` itself is a symbolic link (dangling or not); false when nothing is there.
pub fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// `path` as the file system resolves it: `.` and `..` taken out, then its nearest existing
/// ancestor's links resolved (the rest does not exist yet), so that a write through a link to
/// the repository or out of it is seen for what it is.
pub fn resolved(path: &Path) -> PathBuf {
    let path = normalise(path);
    let mut existing = path.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(found) = existing.canonicalize() {
            let mut out = found;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return path,
        }
    }
}

/// `path` without `.` and `..` parts (lexically: the file may not exist yet).
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Why [`open_regular`] refused a file.
#[derive(Debug, thiserror::Error)]
pub enum RegularFileError {
    #[error("is a symbolic link; it is not followed")]
    Symlink,
    #[error("is not a regular file (a {0})")]
    NotRegular(&'static str),
    #[error("has {0} hard links; git-skill reads and writes only files with one, so that nothing reaches another file through it")]
    HardLinked(u64),
    #[error("is {size} bytes, over the limit of {cap} bytes")]
    TooLarge { size: u64, cap: u64 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl From<RegularFileError> for std::io::Error {
    fn from(e: RegularFileError) -> std::io::Error {
        match e {
            RegularFileError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// Which files with more than one hard link a read takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// One link only: git-skill's own files, settings, stores, transcripts, templates,
    /// checkpoints. A hard link to a file elsewhere would have git-skill read (and send, or
    /// commit) or write that file.
    One,
    /// Any number: files that are only scanned, never written or sent on (a skill's files,
    /// which package managers such as pnpm hard-link from their store; Git LFS objects).
    Any,
}

/// Opens a file that must be a regular file (with one link unless `links` says otherwise),
/// without following a symbolic link at the last component and without blocking on a FIFO or
/// a device: the file is opened non-blocking and without following links, then checked
/// through its descriptor, so a swap between check and use changes nothing. `Ok(None)` when
/// there is no such file.
pub fn open_regular(path: &Path, links: Links) -> Result<Option<std::fs::File>, RegularFileError> {
    open_checked(path, links, false)
}

fn open_checked(
    path: &Path,
    links: Links,
    follow: bool,
) -> Result<Option<std::fs::File>, RegularFileError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(nofollow | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            // ELOOP is what O_NOFOLLOW answers for a link; anything else is a real error.
            if is_link(path) {
                return Err(RegularFileError::Symlink);
            }
            return Err(RegularFileError::Io(e));
        }
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(RegularFileError::NotRegular(file_type_name(
            &meta.file_type(),
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if links == Links::One && meta.nlink() > 1 {
            return Err(RegularFileError::HardLinked(meta.nlink()));
        }
    }
    #[cfg(not(unix))]
    let _ = links;
    Ok(Some(file))
}

/// Opens `path` for appending (and reading), creating it when missing, and refuses what
/// [`open_regular`] refuses with one link: a FIFO (whose open would wait for a reader), a
/// device, a symbolic link, a hard link (whose appends would land in another file).
pub fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    open_writable(path, true)
}

/// Opens (or creates) a lock file for [`lock`], refusing what [`open_append`] refuses.
fn open_lock(path: &Path) -> std::io::Result<std::fs::File> {
    open_writable(path, false)
}

fn open_writable(path: &Path, append: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true);
    if append {
        // Readable too: a store is read back under the same lock.
        options.append(true).read(true);
    } else {
        options.write(true).truncate(false);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(|e| {
        if is_link(path) {
            RegularFileError::Symlink.into()
        } else {
            e
        }
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(RegularFileError::NotRegular(file_type_name(&meta.file_type())).into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Err(RegularFileError::HardLinked(meta.nlink()).into());
        }
    }
    Ok(file)
}

/// Reads a file that [`open_regular`] takes (one link), of at most `cap` bytes. `Ok(None)`
/// when there is no such file.
pub fn read_regular(path: &Path, cap: u64) -> Result<Option<Vec<u8>>, RegularFileError> {
    read_capped(path, cap, Links::One)
}

/// [`read_regular`] for a file that may have other hard links (see [`Links::Any`]).
pub fn read_regular_linked(path: &Path, cap: u64) -> Result<Option<Vec<u8>>, RegularFileError> {
    read_capped(path, cap, Links::Any)
}

/// `std::fs::read` for a file that must be a regular file with one link: a FIFO, a device, a
/// link or a hard link is an error (`InvalidInput`) naming what it is, at once.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    match read_capped(path, u64::MAX, Links::One)? {
        Some(bytes) => Ok(bytes),
        None => Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "No such file or directory",
        )),
    }
}

/// [`read`] through a symbolic link at the last component: for agents' settings, which
/// dotfiles managers keep as links (where a link may lead is the caller's to check). What the
/// link leads to must still be a regular file with one link.
pub fn read_following(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let Some(mut file) = open_checked(path, Links::One, true)? else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "No such file or directory",
        ));
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read(path)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

fn read_capped(path: &Path, cap: u64, links: Links) -> Result<Option<Vec<u8>>, RegularFileError> {
    use std::io::Read;
    let Some(file) = open_regular(path, links)? else {
        return Ok(None);
    };
    let len = file.metadata()?.len();
    if len > cap {
        return Err(RegularFileError::TooLarge { size: len, cap });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // Bounded even if the file grows while it is read.
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(RegularFileError::TooLarge {
            size: bytes.len() as u64,
            cap,
        });
    }
    Ok(Some(bytes))
}

/// A file type in words, for messages.
pub fn file_type_name(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_socket() {
            return "socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "device";
        }
    }
    if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symbolic link"
    } else if t.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

/// Creates `dir` (and its parents) and makes it readable by the owner only (0700), whatever
/// the umask: for files git-skill keeps for the user alone (checkpoints, raw model answers).
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// [`write_atomic`] for a file readable by the owner only (0600 from its creation on, whatever
/// the umask).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_mode(path, bytes, Some(0o600), true)
}

/// [`write_private`] without the wait for the disk: a reader sees the old or the new file,
/// never a torn one, but a power cut may lose the change. For state cheap to lose and written
/// often (an agent session's tool-call count, on every tool call).
pub fn replace_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_mode(path, bytes, Some(0o600), false)
}

/// Holds back SIGINT, SIGTERM, SIGHUP and SIGQUIT on this thread while it lives: a write that
/// must complete or be undone (an append to the signal store) is not cut short by Ctrl-C; the
/// signal arrives when the guard drops. SIGKILL cannot be held back, which is why writers also
/// undo what a failed write left.
pub struct DeferSignals {
    #[cfg(unix)]
    old: libc::sigset_t,
}

impl DeferSignals {
    pub fn new() -> DeferSignals {
        #[cfg(unix)]
        // SAFETY: sigset_t is plain data, initialised by sigemptyset before use; the masks
        // change only this thread's signal mask.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                libc::sigaddset(&mut set, signal);
            }
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            DeferSignals { old }
        }
        #[cfg(not(unix))]
        DeferSignals {}
    }
}

impl Default for DeferSignals {
    fn default() -> Self {
        DeferSignals::new()
    }
}

impl Drop for DeferSignals {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: restores the mask saved in `new`.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn regular_reads_refuse_links_fifos_devices_and_huge_files() {
        let t = tempfile::tempdir().unwrap();
        let ok = t.path().join("ok");
        std::fs::write(&ok, "x").unwrap();
        assert_eq!(read_regular(&ok, 10).unwrap().as_deref(), Some(&b"x"[..]));
        assert!(read_regular(&t.path().join("none"), 10).unwrap().is_none());
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&ok, &link).unwrap();
        assert!(matches!(
            read_regular(&link, 10),
            Err(RegularFileError::Symlink)
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 10),
            Err(RegularFileError::NotRegular("device"))
        ));
        let fifo = t.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            read_regular(&fifo, 10),
            Err(RegularFileError::NotRegular("FIFO"))
        ));
        std::fs::write(&ok, "x".repeat(11)).unwrap();
        assert!(matches!(
            read_regular(&ok, 10),
            Err(RegularFileError::TooLarge { size: 11, cap: 10 })
        ));
        assert!(matches!(
            read_regular(t.path(), 10),
            Err(RegularFileError::NotRegular("directory")) | Err(RegularFileError::Io(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn private_files_ignore_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let old = unsafe { libc::umask(0) };
        let dir = t.path().join("a/b");
        private_dir(&dir).unwrap();
        write_private(&dir.join("f"), b"secret").unwrap();
        unsafe { libc::umask(old) };
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("f")), 0o600);
    }
}
