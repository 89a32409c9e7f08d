//! What changed in the work tree while an agent ran, told by its effect rather than by reading
//! the agent's commands: a shell writes a file in unbounded ways (`python3 -c`, `tar x`, a
//! script that writes), so the pre-write guard's reading will always be one form short. Each
//! hook event compares the tree with the stat [`Snapshot`] the session's last event left:
//!
//! - every folder of the work tree by its own stat (a file added, removed or renamed in a
//!   folder changes the folder's mtime), so a new `CLAUDE.md` at any depth is seen without
//!   listing folders that did not change;
//! - every file an agent loads (the caller's `watched`) by its stat, and by its digest when
//!   the stat moved, so a file rewritten in place is seen and a `touch` is not a change.
//!
//! Nothing unchanged is read. The snapshot is a small text file (one line per folder or
//! watched file); the walk that makes the first one is bounded ([`MAX_DIRS`]) and says when it
//! stopped short.

mod format;
mod walk;

use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest as _, Sha256};

pub use walk::{MAX_DIRS, MAX_NEW_ENTRIES};

/// A folder's stat: what changes when an entry of it is added, removed or renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirStat {
    /// The change time (ctime), which no program sets back.
    pub ctime_ns: i128,
    pub ino: u64,
}

/// What a watched path is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    File,
    Link,
    /// A FIFO, a socket, a device: never read.
    Special,
}

/// A watched file's stat and content digest (SHA-256, hex; `None` for what is not a regular
/// file, or a file past the read cap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStat {
    pub kind: FileKind,
    pub size: u64,
    pub ctime_ns: i128,
    pub ino: u64,
    pub mode: u32,
    pub digest: Option<String>,
}

impl FileStat {
    /// Whether the stat alone tells that the file is as it was.
    fn same_stat(&self, other: &FileStat) -> bool {
        self.kind == other.kind
            && self.size == other.size
            && self.ctime_ns == other.ctime_ns
            && self.ino == other.ino
            && self.mode == other.mode
    }
}

/// The stat of a work tree's folders and watched files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Folders relative to the top (`""` the top), `.git` left out.
    pub dirs: BTreeMap<String, DirStat>,
    /// Watched files relative to the top.
    pub files: BTreeMap<String, FileStat>,
    /// The walk stopped at [`MAX_DIRS`]: folders past it are not watched.
    pub partial: bool,
    /// Files agents do not load by their place but are brought to (a script a settings hook
    /// runs, a file an instruction imports: the closure), each with the role it is reached in;
    /// they are in `files` too.
    pub reached: BTreeMap<String, crate::registry::Kind>,
    /// When the walk or comparison that made it began (nanoseconds since the epoch): a stat
    /// this recent is read again next time.
    pub taken_ns: i128,
    /// The commits HEAD and the local branches were at when the session began (hex, HEAD's
    /// first): content they have is not the session's writing (a branch switch).
    pub heads: Vec<String>,
}

/// What changed since a snapshot, each list sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Watched files that were not there.
    pub added: Vec<String>,
    /// Watched files whose content, kind or mode changed.
    pub modified: Vec<String>,
    /// Watched files that are gone.
    pub removed: Vec<String>,
    /// Folders that were not there (to remove once what was put in them is taken out).
    pub new_dirs: Vec<String>,
    /// The look stopped short ([`MAX_NEW_ENTRIES`] new entries): what it did not see is
    /// unknown.
    pub cut: bool,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }

    /// Every changed path, added, modified and removed.
    pub fn paths(&self) -> impl Iterator<Item = &String> {
        self.added.iter().chain(&self.modified).chain(&self.removed)
    }
}

/// Which paths are watched: what an agent loads (relative to the top, `/`-separated).
pub type Watched<'a> = &'a dyn Fn(&str) -> bool;

impl Snapshot {
    /// Walks the work tree at `top`: every folder, and the stat and digest of every watched
    /// file.
    pub fn take(top: &Path, watched: Watched<'_>) -> Snapshot {
        walk::take(top, watched, &|_| true)
    }

    /// [`Snapshot::take`] of the folders `descend` allows only (HOME: the agents' folders in
    /// it, not all of it).
    pub fn take_in(top: &Path, watched: Watched<'_>, descend: Watched<'_>) -> Snapshot {
        walk::take(top, watched, descend)
    }

    /// What changed in the tree at `top` since this snapshot, and the snapshot of the tree as
    /// it is now. Folders whose stat did not move are not listed; watched files whose stat did
    /// not move are not read.
    pub fn compare(&self, top: &Path, watched: Watched<'_>) -> (Changes, Snapshot) {
        walk::compare(self, top, watched, &|_| true)
    }

    /// [`Snapshot::compare`] of the folders `descend` allows only.
    pub fn compare_in(
        &self,
        top: &Path,
        watched: Watched<'_>,
        descend: Watched<'_>,
    ) -> (Changes, Snapshot) {
        walk::compare(self, top, watched, descend)
    }

    /// The snapshot as the text [`Snapshot::parse`] reads.
    pub fn render(&self) -> String {
        format::render(self)
    }

    /// A snapshot [`Snapshot::render`] wrote; `None` for anything else (a torn or edited file
    /// is taken again, never trusted).
    pub fn parse(text: &str) -> Option<Snapshot> {
        format::parse(text)
    }
}

/// The SHA-256 (hex) the watch digests a regular file's bytes with.
pub fn digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The digest of a link to `target`.
pub fn link_digest(target: &Path) -> String {
    let mut h = Sha256::new();
    h.update(b"link\0");
    h.update(target.as_os_str().as_encoded_bytes());
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The stat of one path, without following a link; `None` when nothing is there.
pub fn file_stat(path: &Path, digest: bool) -> Option<FileStat> {
    walk::file_stat(path, digest)
}

#[cfg(test)]
mod tests;
