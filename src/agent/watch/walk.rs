//! The walks behind [`Snapshot::take`] and [`Snapshot::compare`].

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::Path;

use super::{Changes, DirStat, FileKind, FileStat, Snapshot, Watched};

/// Folders a snapshot holds at most: a work tree past it (a vendored `node_modules` of a
/// million files) is watched up to it, and the snapshot says so.
pub const MAX_DIRS: usize = 50_000;

/// New entries one comparison looks at at most (a `tar x` of a huge archive): past it the
/// comparison says it was cut, and the caller fails closed.
pub const MAX_NEW_ENTRIES: usize = 100_000;

/// Watched files are read for their digest up to this size; a larger one is compared by its
/// stat alone.
pub const MAX_DIGEST_BYTES: u64 = 16 << 20;

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(unix)]
fn times(meta: &std::fs::Metadata) -> (i128, u64, u32) {
    use std::os::unix::fs::MetadataExt as _;
    (
        meta.mtime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
        meta.ino(),
        meta.mode(),
    )
}

#[cfg(not(unix))]
fn times(meta: &std::fs::Metadata) -> (i128, u64, u32) {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    (mtime, 0, u32::from(meta.permissions().readonly()))
}

fn dir_stat(meta: &std::fs::Metadata) -> DirStat {
    let (ctime_ns, ino, _) = times(meta);
    DirStat { ctime_ns, ino }
}

pub fn file_stat(path: &Path, digest: bool) -> Option<FileStat> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let t = meta.file_type();
    let kind = if t.is_symlink() {
        FileKind::Link
    } else if t.is_file() {
        FileKind::File
    } else {
        FileKind::Special
    };
    let (ctime_ns, ino, mode) = times(&meta);
    let mut stat = FileStat {
        kind,
        size: meta.len(),
        ctime_ns,
        ino,
        mode,
        digest: None,
    };
    if digest {
        stat.digest = digest_of(path, &stat);
    }
    Some(stat)
}

/// The SHA-256 of a regular file's bytes, or of a link's target; `None` for anything else or
/// past [`MAX_DIGEST_BYTES`].
fn digest_of(path: &Path, stat: &FileStat) -> Option<String> {
    match stat.kind {
        FileKind::Link => Some(super::link_digest(&std::fs::read_link(path).ok()?)),
        FileKind::File if stat.size <= MAX_DIGEST_BYTES => {
            let file = crate::fsutil::open_regular(path, crate::fsutil::Links::Any)
                .ok()
                .flatten()?;
            let mut bytes = Vec::with_capacity(stat.size as usize);
            file.take(MAX_DIGEST_BYTES + 1)
                .read_to_end(&mut bytes)
                .ok()?;
            (bytes.len() as u64 <= MAX_DIGEST_BYTES).then(|| super::digest(&bytes))
        }
        _ => None,
    }
}

/// Lists `dir` (relative to `top`): its folders and other entries, `.git` left out.
fn list(top: &Path, dir: &str) -> Option<Vec<(String, bool)>> {
    let entries = std::fs::read_dir(top.join(dir)).ok()?;
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            // A name that is not UTF-8 is kept as git shows it: no agent finds it by name.
            continue;
        };
        if name == ".git" {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        out.push((join(dir, name), is_dir));
    }
    Some(out)
}

/// Walks the folder `start` and everything below it into `dirs` and `files`, at most `room`
/// folders; false when it stopped short.
#[allow(clippy::too_many_arguments)]
fn walk_into(
    top: &Path,
    start: &str,
    watched: Watched<'_>,
    descend: Watched<'_>,
    dirs: &mut BTreeMap<String, DirStat>,
    files: &mut BTreeMap<String, FileStat>,
    room: usize,
    mut on_file: impl FnMut(&str),
) -> bool {
    let mut stack = vec![start.to_owned()];
    let mut walked = 0;
    while let Some(dir) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(top.join(&dir)) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        if walked >= room {
            return false;
        }
        walked += 1;
        dirs.insert(dir.clone(), dir_stat(&meta));
        for (rel, is_dir) in list(top, &dir).unwrap_or_default() {
            if is_dir {
                if descend(&rel) {
                    stack.push(rel);
                }
            } else if watched(&rel) {
                if let Some(stat) = file_stat(&top.join(&rel), true) {
                    on_file(&rel);
                    files.insert(rel, stat);
                }
            }
        }
    }
    true
}

pub fn take(top: &Path, watched: Watched<'_>, descend: Watched<'_>) -> Snapshot {
    let mut snapshot = Snapshot {
        taken_ns: now_ns(),
        ..Snapshot::default()
    };
    snapshot.partial = !walk_into(
        top,
        "",
        watched,
        descend,
        &mut snapshot.dirs,
        &mut snapshot.files,
        MAX_DIRS,
        |_| {},
    );
    snapshot
}

/// A stat recorded this close to when its snapshot was taken is not trusted: the file system's
/// clock ticks coarsely, and a change in the same tick leaves the same time ("racy git").
const RACY_NS: i128 = 100_000_000;

/// Now, as the file system's times count (nanoseconds since the epoch).
fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

pub fn compare(
    before: &Snapshot,
    top: &Path,
    watched: Watched<'_>,
    descend: Watched<'_>,
) -> (Changes, Snapshot) {
    let mut changes = Changes::default();
    let mut now = Snapshot {
        dirs: BTreeMap::new(),
        files: BTreeMap::new(),
        partial: before.partial,
        reached: before.reached.clone(),
        taken_ns: now_ns(),
        heads: before.heads.clone(),
    };
    let racy = |t: i128| t + RACY_NS >= before.taken_ns;
    // Files first: each known one by its stat, read only when the stat moved.
    for (rel, old) in &before.files {
        match file_stat(&top.join(rel), false) {
            None => changes.removed.push(rel.clone()),
            Some(mut stat) => {
                if stat.same_stat(old) && !racy(old.ctime_ns) {
                    stat.digest = old.digest.clone();
                } else {
                    stat.digest = digest_of(&top.join(rel), &stat);
                    // What has no digest (a FIFO, a file past the read cap) is as its stat.
                    let same = stat.kind == old.kind
                        && stat.mode == old.mode
                        && match &stat.digest {
                            Some(d) => old.digest.as_ref() == Some(d),
                            None => old.digest.is_none() && stat.same_stat(old),
                        };
                    if !same {
                        changes.modified.push(rel.clone());
                    }
                }
                now.files.insert(rel.clone(), stat);
            }
        }
    }
    // Then folders: a folder whose stat moved is listed for entries it did not have.
    let mut seen_new = 0usize;
    for (dir, old) in &before.dirs {
        let Ok(meta) = std::fs::symlink_metadata(top.join(dir)) else {
            // Gone (or replaced by a file): its watched files are already counted removed.
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let stat = dir_stat(&meta);
        now.dirs.insert(dir.clone(), stat);
        if stat == *old && !racy(old.ctime_ns) {
            continue;
        }
        let cut_before = changes.cut;
        for (rel, is_dir) in list(top, dir).unwrap_or_default() {
            if is_dir {
                if before.dirs.contains_key(&rel) || now.dirs.contains_key(&rel) || !descend(&rel) {
                    continue;
                }
                // A new folder: everything in it is new.
                let room = MAX_DIRS.saturating_sub(now.dirs.len().max(before.dirs.len()));
                let mut added = Vec::new();
                let whole = walk_into(
                    top,
                    &rel,
                    watched,
                    descend,
                    &mut now.dirs,
                    &mut now.files,
                    room.min(MAX_NEW_ENTRIES),
                    |f| added.push(f.to_owned()),
                );
                seen_new += added.len();
                changes.added.extend(added);
                changes.new_dirs.push(rel);
                if !whole {
                    changes.cut = true;
                }
            } else if !before.files.contains_key(&rel) && watched(&rel) {
                seen_new += 1;
                if let Some(stat) = file_stat(&top.join(&rel), true) {
                    now.files.insert(rel.clone(), stat);
                    changes.added.push(rel);
                }
            }
            if seen_new > MAX_NEW_ENTRIES {
                changes.cut = true;
                break;
            }
        }
        if changes.cut && !cut_before {
            // Not all of it was looked at: listed again next time.
            if let Some(d) = now.dirs.get_mut(dir) {
                d.ctime_ns = -1;
            }
        }
    }
    changes.added.sort();
    changes.added.dedup();
    changes.modified.sort();
    changes.removed.sort();
    changes.new_dirs.sort();
    (changes, now)
}
