//! Where the watch ([`super::watch`]) puts what an agent wrote into a skill or an agent's
//! context that made it dangerous: `$GIT_DIR/skill/quarantine/<agent>-<session>/<n>/`, one
//! folder per file (its bytes, or a link's target, and `entry.json`: where it was, when, why,
//! what was there before). Nothing is lost: the file is moved here, the previous content put
//! back (from [`Objects`], the contents the watch kept), and a person can release it (it goes
//! back where it was, and the watch lets that content be) or drop it.
//!
//! Everything here is owner-only, and read with the store's rules (no links, no FIFOs).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use super::watch::{digest, link_digest};

/// The largest file kept or quarantined whole; a larger one is quarantined by name only.
pub const MAX_KEPT_BYTES: u64 = 16 << 20;

#[derive(Debug, thiserror::Error)]
pub enum QuarantineError {
    #[error("no quarantined file '{0}' (git skill quarantine list shows them)")]
    NoEntry(String),
    #[error("cannot {what} '{path}': {error}")]
    Io {
        what: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("'{0}' is not a quarantine entry git-skill wrote: {1}")]
    Broken(PathBuf, String),
    #[error("'{path}' changed since it was quarantined: {why}")]
    Changed { path: String, why: String },
}

fn io<'a>(
    what: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> QuarantineError + 'a {
    move |error| QuarantineError::Io {
        what,
        path: path.to_owned(),
        error,
    }
}

/// The contents the watch kept of the files it watches, by digest, so that a file an agent
/// changed can be put back as it was. Content-addressed: an entry whose bytes do not hash to
/// its name is ignored, so nothing written here can change what is put back.
pub struct Objects {
    dir: PathBuf,
}

impl Objects {
    pub fn new(git_dir: &Path) -> Objects {
        Objects {
            dir: git_dir.join("skill").join("watch").join("objects"),
        }
    }

    fn path(&self, digest: &str) -> PathBuf {
        self.dir.join(&digest[..2]).join(&digest[2..])
    }

    /// Keeps `bytes` under `digest` (nothing when it is kept already).
    pub fn keep(&self, digest: &str, bytes: &[u8]) -> std::io::Result<()> {
        if digest.len() != 64 {
            return Ok(());
        }
        let path = self.path(digest);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            return Ok(());
        }
        crate::fsutil::private_dir(path.parent().unwrap_or(&self.dir))?;
        crate::fsutil::write_private(&path, bytes)
    }

    /// The regular file at `path` (digested `digest`), kept.
    pub fn keep_file(&self, path: &Path, digest: &str) {
        if digest.len() != 64 {
            return;
        }
        if std::fs::symlink_metadata(self.path(digest)).is_ok() {
            // Kept already: marked as still in use, so the prune leaves it.
            if let Ok(f) = std::fs::OpenOptions::new()
                .write(true)
                .open(self.path(digest))
            {
                let _ = f.set_modified(std::time::SystemTime::now());
            }
            return;
        }
        if let Ok(Some(bytes)) = crate::fsutil::read_regular_linked(path, MAX_KEPT_BYTES) {
            // What is kept is what hashes to the name: a file that changed since it was
            // digested is not kept under the old digest.
            if self::digest(&bytes) == digest {
                let _ = self.keep(digest, &bytes);
            }
        }
    }

    /// The bytes kept under `digest`, when they hash to it.
    pub fn get(&self, digest: &str) -> Option<Vec<u8>> {
        if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let bytes = crate::fsutil::read_regular(&self.path(digest), MAX_KEPT_BYTES)
            .ok()
            .flatten()?;
        (self::digest(&bytes) == digest).then_some(bytes)
    }
}

/// Removes the watch's snapshots and kept contents untouched for `max_age` (sessions long
/// gone), at most once a day (the mtime of `.pruned` says when it last ran).
pub fn prune_watch(git_dir: &Path, max_age: std::time::Duration, now: std::time::SystemTime) {
    const DAY: std::time::Duration = std::time::Duration::from_secs(24 * 3600);
    let dir = git_dir.join("skill").join("watch");
    let marker = dir.join(".pruned");
    let age = |p: &Path| {
        std::fs::symlink_metadata(p)
            .and_then(|m| m.modified())
            .ok()
            .map(|t| now.duration_since(t).unwrap_or_default())
    };
    if age(&marker).is_some_and(|a| a < DAY) || !dir.is_dir() {
        return;
    }
    let old = |p: &Path| age(p).is_some_and(|a| a > max_age);
    let files = |d: &Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(d)
            .map(|es| {
                es.flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default()
    };
    for snapshot in files(&dir) {
        let name = snapshot.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.starts_with('.') && name != "lock" && old(&snapshot) {
            let _ = std::fs::remove_file(&snapshot);
        }
    }
    if let Ok(folders) = std::fs::read_dir(dir.join("objects")) {
        for folder in folders.flatten() {
            for object in files(&folder.path()) {
                if old(&object) {
                    let _ = std::fs::remove_file(&object);
                }
            }
            let _ = std::fs::remove_dir(folder.path());
        }
    }
    let _ = std::fs::write(&marker, b"");
}

/// What a quarantine entry says of its file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// `<agent>-<session>/<n>`: what `release`, `show` and `drop` take.
    #[serde(skip_deserializing, default)]
    pub id: String,
    /// Where it was, relative to the top.
    pub path: String,
    pub agent: String,
    pub session: String,
    /// When it was quarantined (RFC 3339).
    pub at: String,
    /// Why: the findings, one line.
    pub reason: String,
    /// What the watch did with the path: `restored` (the previous content is back) or
    /// `removed` (it was new).
    pub action: String,
    /// The quarantined content: a regular file's digest, or a link's target.
    pub digest: Option<String>,
    pub link: Option<String>,
    /// The file's mode bits.
    pub mode: u32,
    /// The file was larger than [`MAX_KEPT_BYTES`] and is kept by name only (it was removed).
    #[serde(default)]
    pub too_large: bool,
    /// The digest of what was put back, when something was.
    #[serde(default)]
    pub previous_digest: Option<String>,
    /// `path` is below HOME (`~/.claude/skills/...`), not the work tree.
    #[serde(default)]
    pub home: bool,
}

impl Entry {
    /// Where the file was, as a person finds it: from the top, or `~/...`.
    pub fn shown(&self) -> String {
        if self.home {
            format!("~/{}", self.path)
        } else {
            self.path.clone()
        }
    }
}

/// The quarantine of one repository.
pub struct Quarantine {
    pub dir: PathBuf,
}

/// A file to quarantine.
pub struct Put<'a> {
    pub top: &'a Path,
    pub path: &'a str,
    /// `top` is HOME, not the work tree: the entry says so, and goes back there.
    pub home: bool,
    pub agent: &'a str,
    pub session: &'a str,
    pub at: &'a str,
    pub reason: &'a str,
    /// The previous content to put back (`None`: the file was new, or its content was not
    /// kept; then it is removed).
    pub previous: Option<Previous>,
}

/// What was at a path before.
pub enum Previous {
    File { bytes: Vec<u8>, mode: u32 },
    Link(PathBuf),
}

impl Quarantine {
    pub fn new(git_dir: &Path) -> Quarantine {
        Quarantine {
            dir: git_dir.join("skill").join("quarantine"),
        }
    }

    fn released_path(&self) -> PathBuf {
        self.dir.join("released")
    }

    /// Digests a person released (`<digest> <signature> <path>` per line, signed with the
    /// user's `key`): the watch leaves a file with such content at such a path alone. A line
    /// not signed by the key is not taken.
    pub fn released(&self, key: Option<&[u8; 32]>) -> BTreeSet<(String, String)> {
        let Ok(Some(bytes)) = crate::fsutil::read_regular(&self.released_path(), 4 << 20) else {
            return BTreeSet::new();
        };
        String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|l| {
                let (digest, rest) = l.split_once(' ')?;
                let (mac, path) = rest.split_once(' ')?;
                let signed = match key {
                    Some(key) => super::seal::verify(
                        key,
                        &[b"released", digest.as_bytes(), path.as_bytes()],
                        mac,
                    ),
                    None => mac == "-",
                };
                signed.then(|| (digest.to_owned(), path.to_owned()))
            })
            .collect()
    }

    /// Moves the file at `put.path` into a new entry and puts back what was there before.
    pub fn put(&self, put: Put<'_>) -> Result<Entry, QuarantineError> {
        let from = put.top.join(put.path);
        let meta = std::fs::symlink_metadata(&from).map_err(io("read", &from))?;
        if meta.is_dir() {
            return Err(QuarantineError::Broken(
                from,
                "a folder, not a file".to_owned(),
            ));
        }
        let folder = self.dir.join(format!("{}-{}", put.agent, put.session));
        crate::fsutil::private_dir(&folder).map_err(io("create", &folder))?;
        let (n, dir) = new_slot(&folder)?;
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::MetadataExt as _;
            meta.mode() & 0o7777
        };
        #[cfg(not(unix))]
        let mode = 0o644;
        let mut entry = Entry {
            id: format!("{}-{}/{n}", put.agent, put.session),
            path: put.path.to_owned(),
            agent: put.agent.to_owned(),
            session: put.session.to_owned(),
            at: put.at.to_owned(),
            reason: put.reason.to_owned(),
            action: if put.previous.is_some() {
                "restored".into()
            } else {
                "removed".into()
            },
            digest: None,
            link: None,
            mode,
            too_large: false,
            home: put.home,
            previous_digest: match &put.previous {
                Some(Previous::File { bytes, .. }) => Some(digest(bytes)),
                Some(Previous::Link(target)) => Some(link_digest(target)),
                None => None,
            },
        };
        let content = dir.join("content");
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&from).map_err(io("read", &from))?;
            entry.link = Some(target.to_string_lossy().into_owned());
        } else if meta.is_file() && meta.len() <= MAX_KEPT_BYTES {
            let bytes = crate::fsutil::read_regular_linked(&from, MAX_KEPT_BYTES)
                .map_err(|e| QuarantineError::Io {
                    what: "read",
                    path: from.clone(),
                    error: std::io::Error::other(e.to_string()),
                })?
                .unwrap_or_default();
            entry.digest = Some(digest(&bytes));
            crate::fsutil::write_private(&content, &bytes).map_err(io("write", &content))?;
        } else {
            entry.too_large = true;
        }
        let json = serde_json::to_vec_pretty(&entry).unwrap_or_default();
        let meta_path = dir.join("entry.json");
        crate::fsutil::write_private(&meta_path, &json).map_err(io("write", &meta_path))?;
        // The copy is safe: now the file leaves where the agent loads it.
        std::fs::remove_file(&from).map_err(io("remove", &from))?;
        match put.previous {
            Some(Previous::File { bytes, mode }) => {
                crate::fsutil::write_atomic_with_mode(&from, &bytes, mode & 0o777)
                    .map_err(io("restore", &from))?;
            }
            #[cfg(unix)]
            Some(Previous::Link(target)) => {
                std::os::unix::fs::symlink(&target, &from).map_err(io("restore", &from))?;
            }
            #[cfg(not(unix))]
            Some(Previous::Link(_)) => {}
            None => {}
        }
        Ok(entry)
    }

    /// Every entry, oldest first within a session.
    pub fn list(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        let Ok(sessions) = std::fs::read_dir(&self.dir) else {
            return out;
        };
        let mut sessions: Vec<_> = sessions
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        sessions.sort();
        for session in sessions {
            let Ok(slots) = std::fs::read_dir(self.dir.join(&session)) else {
                continue;
            };
            let mut slots: Vec<u64> = slots
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect();
            slots.sort_unstable();
            for n in slots {
                if let Ok(entry) = self.entry(&format!("{session}/{n}")) {
                    out.push(entry);
                }
            }
        }
        out
    }

    fn entry_dir(&self, id: &str) -> Result<PathBuf, QuarantineError> {
        let valid = id.split_once('/').is_some_and(|(s, n)| {
            !s.is_empty()
                && !s.starts_with('.')
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
        });
        if !valid {
            return Err(QuarantineError::NoEntry(id.to_owned()));
        }
        Ok(self.dir.join(id))
    }

    /// The entry `id`.
    pub fn entry(&self, id: &str) -> Result<Entry, QuarantineError> {
        let dir = self.entry_dir(id)?;
        let path = dir.join("entry.json");
        let bytes = match crate::fsutil::read_regular(&path, 1 << 20) {
            Ok(Some(b)) => b,
            Ok(None) => return Err(QuarantineError::NoEntry(id.to_owned())),
            Err(e) => return Err(QuarantineError::Broken(path, e.to_string())),
        };
        let mut entry: Entry = serde_json::from_slice(&bytes)
            .map_err(|e| QuarantineError::Broken(path.clone(), e.to_string()))?;
        if entry.path.is_empty()
            || entry.path.starts_with('/')
            || entry
                .path
                .split('/')
                .any(|p| p == ".." || p == "." || p.is_empty())
        {
            return Err(QuarantineError::Broken(
                path,
                format!("the path '{}' is not one inside the work tree", entry.path),
            ));
        }
        entry.id = id.to_owned();
        Ok(entry)
    }

    /// The quarantined bytes of `entry` (a regular file's), checked against its digest.
    pub fn content(&self, entry: &Entry) -> Result<Option<Vec<u8>>, QuarantineError> {
        let Some(digest) = &entry.digest else {
            return Ok(None);
        };
        let path = self.entry_dir(&entry.id)?.join("content");
        let bytes = crate::fsutil::read_regular(&path, MAX_KEPT_BYTES)
            .map_err(|e| QuarantineError::Broken(path.clone(), e.to_string()))?
            .ok_or_else(|| QuarantineError::Broken(path.clone(), "its content is gone".into()))?;
        if self::digest(&bytes) != *digest {
            return Err(QuarantineError::Broken(
                path,
                "its content does not match the digest it was quarantined with".into(),
            ));
        }
        Ok(Some(bytes))
    }

    /// Puts `id`'s file back where it was (the parent folders made again when gone), records
    /// its content as released so that the watch lets it be, and removes the entry. What is at
    /// the path now must be what the quarantine left there, unless `force`.
    pub fn release(
        &self,
        top: &Path,
        id: &str,
        force: bool,
        key: Option<&[u8; 32]>,
    ) -> Result<Entry, QuarantineError> {
        let entry = self.entry(id)?;
        // An entry names where it goes: never git's own folder, never a link out of the tree.
        if entry.path == ".git" || entry.path.starts_with(".git/") {
            return Err(QuarantineError::Broken(
                self.entry_dir(id)?,
                format!("'{}' is inside git's own folder", entry.path),
            ));
        }
        if let Some(target) = &entry.link {
            let base = top.join(&entry.path);
            let lands = crate::fsutil::normalise(&base.parent().unwrap_or(top).join(target));
            if Path::new(target).is_absolute() || !lands.starts_with(top) {
                return Err(QuarantineError::Broken(
                    self.entry_dir(id)?,
                    format!("its link leads out of the work tree ('{target}')"),
                ));
            }
        }
        if entry.too_large {
            return Err(QuarantineError::Broken(
                self.entry_dir(id)?,
                "the file was too large to keep; only its name was".into(),
            ));
        }
        let to = top.join(&entry.path);
        // Never through a link: each folder on the way must be a folder of the work tree.
        let parent = entry.path.rsplit_once('/').map_or("", |(d, _)| d);
        let mut at = top.to_owned();
        for part in parent.split('/').filter(|p| !p.is_empty()) {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    return Err(QuarantineError::Changed {
                        path: entry.path.clone(),
                        why: format!("'{}' is not a folder", at.display()),
                    })
                }
                Err(_) => std::fs::create_dir(&at).map_err(io("create", &at))?,
            }
        }
        if !force {
            if let Some(now) = crate::agent::watch::file_stat(&to, true) {
                let untouched =
                    entry.previous_digest.is_some() && now.digest == entry.previous_digest;
                if !untouched {
                    return Err(QuarantineError::Changed {
                        path: entry.path,
                        why: "what is there is not what the quarantine left".into(),
                    });
                }
            }
        }
        let released_digest;
        match (&entry.link, self.content(&entry)?) {
            (Some(target), _) => {
                let _ = std::fs::remove_file(&to);
                #[cfg(unix)]
                std::os::unix::fs::symlink(target, &to).map_err(io("write", &to))?;
                released_digest = link_digest(Path::new(target));
            }
            (None, Some(bytes)) => {
                crate::fsutil::write_atomic_with_mode(&to, &bytes, entry.mode & 0o777)
                    .map_err(io("write", &to))?;
                released_digest = digest(&bytes);
            }
            (None, None) => {
                return Err(QuarantineError::Broken(
                    self.entry_dir(id)?,
                    "it keeps no content".into(),
                ))
            }
        }
        self.add_released(&released_digest, &entry.path, key)?;
        self.drop_entry(id)?;
        Ok(entry)
    }

    fn add_released(
        &self,
        digest: &str,
        path: &str,
        key: Option<&[u8; 32]>,
    ) -> Result<(), QuarantineError> {
        use std::io::Write as _;
        crate::fsutil::private_dir(&self.dir).map_err(io("create", &self.dir))?;
        let file = self.released_path();
        let mac = key.map_or_else(
            || "-".to_owned(),
            |k| super::seal::sign(k, &[b"released", digest.as_bytes(), path.as_bytes()]),
        );
        let mut f = crate::fsutil::open_append(&file).map_err(io("write", &file))?;
        writeln!(f, "{digest} {mac} {path}").map_err(io("write", &file))
    }

    /// Removes the entry `id` and what it keeps.
    pub fn drop_entry(&self, id: &str) -> Result<(), QuarantineError> {
        let dir = self.entry_dir(id)?;
        if !dir.is_dir() {
            return Err(QuarantineError::NoEntry(id.to_owned()));
        }
        std::fs::remove_dir_all(&dir).map_err(io("remove", &dir))?;
        // The session's folder goes with its last entry.
        if let Some(session) = dir.parent() {
            let _ = std::fs::remove_dir(session);
        }
        Ok(())
    }
}

/// A new numbered folder in `folder`, made atomically (two hooks never share one).
fn new_slot(folder: &Path) -> Result<(u64, PathBuf), QuarantineError> {
    let next = std::fs::read_dir(folder)
        .map_err(io("read", folder))?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u64>().ok())
        .max()
        .map_or(1, |n| n + 1);
    for n in next..next + 1000 {
        let dir = folder.join(n.to_string());
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                crate::fsutil::private_dir(&dir).map_err(io("create", &dir))?;
                return Ok((n, dir));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io("create", &dir)(e)),
        }
    }
    Err(QuarantineError::Io {
        what: "create an entry in",
        path: folder.to_owned(),
        error: std::io::Error::other("too many entries"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put<'a>(top: &'a Path, path: &'a str, previous: Option<Previous>) -> Put<'a> {
        Put {
            top,
            path,
            agent: "claude",
            home: false,
            session: "s1",
            at: "2026-12-07T10:00:00Z",
            reason: "SUP001 at x:1",
            previous,
        }
    }

    #[test]
    fn a_new_file_is_moved_out_and_released_back_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let (top, git) = (tmp.path().join("w"), tmp.path().join("w/.git"));
        std::fs::create_dir_all(top.join(".claude/skills/x")).unwrap();
        std::fs::create_dir_all(&git).unwrap();
        let file = top.join(".claude/skills/x/SKILL.md");
        std::fs::write(&file, "curl x | sh\n").unwrap();
        let q = Quarantine::new(&git);
        let entry = q.put(put(&top, ".claude/skills/x/SKILL.md", None)).unwrap();
        assert!(!file.exists());
        assert_eq!(entry.action, "removed");
        assert_eq!(q.list(), vec![entry.clone()]);
        assert_eq!(q.content(&entry).unwrap().unwrap(), b"curl x | sh\n");
        // Released even when its folder went.
        std::fs::remove_dir(top.join(".claude/skills/x")).unwrap();
        q.release(&top, &entry.id, false, Some(&[7; 32])).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"curl x | sh\n");
        assert!(q.list().is_empty());
        let released = (
            digest(b"curl x | sh\n"),
            ".claude/skills/x/SKILL.md".to_owned(),
        );
        assert!(q.released(Some(&[7; 32])).contains(&released));
        // Signed by another key, or not at all: not taken.
        assert!(!q.released(Some(&[8; 32])).contains(&released));
        let forged = format!("{} - .claude/skills/y/SKILL.md\n", digest(b"y"));
        std::fs::write(q.dir.join("released"), forged).unwrap();
        assert!(q.released(Some(&[7; 32])).is_empty());
    }

    #[test]
    fn a_changed_file_gets_its_previous_content_back_and_forged_entries_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let (top, git) = (tmp.path().join("w"), tmp.path().join("w/.git"));
        std::fs::create_dir_all(&top).unwrap();
        std::fs::create_dir_all(&git).unwrap();
        std::fs::write(top.join("CLAUDE.md"), "evil\n").unwrap();
        let q = Quarantine::new(&git);
        let previous = Previous::File {
            bytes: b"good\n".to_vec(),
            mode: 0o644,
        };
        let entry = q.put(put(&top, "CLAUDE.md", Some(previous))).unwrap();
        assert_eq!(std::fs::read(top.join("CLAUDE.md")).unwrap(), b"good\n");
        assert_eq!(entry.action, "restored");
        // A release over a file that is there needs nothing more for a restored one.
        // The content swapped under the entry is refused.
        std::fs::write(q.dir.join(&entry.id).join("content"), "other\n").unwrap();
        assert!(matches!(
            q.release(&top, &entry.id, false, None),
            Err(QuarantineError::Broken(..))
        ));
        // An entry whose path leads out is refused.
        let json = q.dir.join(&entry.id).join("entry.json");
        let text = std::fs::read_to_string(&json)
            .unwrap()
            .replace("\"CLAUDE.md\"", "\"../outside\"");
        std::fs::write(&json, text).unwrap();
        assert!(matches!(
            q.entry(&entry.id),
            Err(QuarantineError::Broken(..))
        ));
        for bad in ["../x/1", "claude-s1/../../1", "claude-s1/x", "/etc/1", ""] {
            assert!(
                matches!(q.entry(bad), Err(QuarantineError::NoEntry(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn objects_give_back_only_what_hashes_to_its_name() {
        let tmp = tempfile::tempdir().unwrap();
        let objects = Objects::new(tmp.path());
        let d = digest(b"hello");
        objects.keep(&d, b"hello").unwrap();
        assert_eq!(objects.get(&d).unwrap(), b"hello");
        std::fs::write(objects.path(&d), b"forged").unwrap();
        assert_eq!(objects.get(&d), None);
        assert_eq!(objects.get("../../x"), None);
    }
}
