//! Findings kept between runs: a text's findings depend only on what names it, its bytes, how
//! it is read, the scan's options and the engine, so a text scanned once need not be scanned
//! again by a later run of the same build (a second `git skill scan`, CI's cached job, the
//! hook after a `scan`). The key is the in-process memo's ([`super::memo::key`]): SHA-256
//! over all of that but the engine, which names the directory the entries live in.
//!
//! One file per entry, `<dir>/scan/<engine>/<2 hex>/<62 hex>`, written to a temporary name and
//! renamed: concurrent runs each see an entry whole or not at all, and a lookup costs one
//! `open` (a hook that looks up three texts reads three small files, never an index of all of
//! them). An entry holds a header, a MAC and the body (the findings as JSON): anything else, a
//! torn or edited file, a rule this build does not know, is ignored and the text scanned again.
//! Findings made after a parse was cut at its deadline depend on the machine's speed and are
//! not kept.
//!
//! A cache an agent cannot forge: an agent with a shell in the repository can write
//! `.git/skill/cache`, and an entry it wrote there would be the verdict of the next commit. So
//! an entry is signed, HMAC-SHA256 over the engine, the key it is stored under and its body,
//! with a secret kept outside every repository ([`key_file`]: the user's configuration
//! directory, 0600 in a 0700 folder). A digest anyone can recompute, or an entry copied under
//! another key or into another engine's folder, is ignored. No secret, no cache: the run scans
//! everything. Entries are read as the stores are ([`crate::fsutil::read_regular`]): a FIFO
//! does not hang a lookup, a link or a hard link is not read through; and a cache folder that
//! is a symbolic link turns the cache off for the run ([`ScanCache::warning`] says so), since
//! writes and trims through it would land elsewhere.
//!
//! The cache holds findings only (rule, place, message, excerpt: the excerpt is redacted as
//! every report's is), never the texts. It is bounded: once runs have stored [`TRIM_AFTER`]
//! bytes since the last trim, the entries past [`MAX_BYTES`] are removed oldest first, and the
//! directories of other engines unused for [`OTHER_ENGINE_DAYS`] days are removed whole.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use hmac::Mac;
use sha2::Sha256;

use crate::fsutil::{self, RegularFileError};

use super::finding::{Context, Finding, Suppression};
use super::rule::Severity;

include!(concat!(env!("OUT_DIR"), "/engine.rs"));

/// What the cache's files may add up to, for this engine.
pub const MAX_BYTES: u64 = 256 << 20;
/// After a trim, what is left: room for a few runs before the next.
const TRIM_TO: u64 = MAX_BYTES / 4 * 3;
/// An entry larger than this is torn or not ours.
const MAX_ENTRY_BYTES: u64 = 16 << 20;
/// Another build's entries are removed when it has not stored any for this long.
pub const OTHER_ENGINE_DAYS: u64 = 14;
/// Bytes stored since the last trim before the next one walks the directory: a walk costs a
/// `stat` per entry, which a hook storing three entries should not pay.
const TRIM_AFTER: u64 = MAX_BYTES / 8;
/// Version 2: entries are signed (version 1's plain digest is ignored, as any other format).
const HEADER: &str = "git-skill scan cache 2\n";
/// The length of the secret entries are signed with.
pub const KEY_BYTES: usize = 32;

type HmacSha256 = hmac::Hmac<Sha256>;

/// What a run did with the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    /// Texts whose findings were read from the cache.
    pub hits: usize,
    /// Texts scanned.
    pub misses: usize,
    /// Entries written.
    pub stored: usize,
    /// Entries found unreadable or corrupt (and scanned again).
    pub ignored: usize,
}

/// The scan cache of one place: a repository's `$GIT_DIR/skill/cache`, or the user's cache
/// directory for skills outside any repository.
#[derive(Debug)]
pub struct ScanCache {
    /// The cache's own folder (`$GIT_DIR/skill/cache`).
    base: PathBuf,
    /// `<base>/scan`: every engine's entries.
    root: PathBuf,
    /// `<root>/<ENGINE>`: this build's.
    dir: PathBuf,
    hits: AtomicUsize,
    misses: AtomicUsize,
    stored: AtomicUsize,
    ignored: AtomicUsize,
    /// Bytes of the entries this run stored.
    stored_bytes: AtomicUsize,
    /// What entries are signed with.
    secret: Secret,
    /// The first cache folder found to be a symbolic link: from then on the cache is off.
    linked: OnceLock<PathBuf>,
}

/// The key entries are signed with; never shown (`Debug` says only that there is one).
struct Secret([u8; KEY_BYTES]);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Why there is no key to sign entries with, and so no cache for the run.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error(
        "neither XDG_CONFIG_HOME nor HOME is set: there is nowhere to keep the scan cache's key"
    )]
    NoPlace,
    #[error("cannot read the scan cache's key '{}'", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: RegularFileError,
    },
    #[error("the scan cache's key '{}' is {len} bytes, not {KEY_BYTES}", .path.display())]
    WrongSize { path: PathBuf, len: u64 },
    #[error("cannot create the scan cache's key '{}'", .path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no random bytes for the scan cache's key: {0}")]
    Random(String),
}

/// The key a whole skill's findings are kept under: what identifies its content without
/// reading it (`staged::tree_key`: paths, modes, object ids, encodings, Git LFS state) and the
/// options that change findings. The hook and the range scan look it up before reading any
/// file of a skill, so a state scanned before (a commit retried, a CI job run again) is not
/// read at all.
pub fn skill_key(tree: &[u8; 32], options: &super::ScanOptions) -> [u8; 32] {
    let flags = [u8::from(options.inline_allow), u8::from(options.strict)];
    super::memo::key(&[b"skill tree", &flags], tree)
}

/// The cache directory of a repository whose git directory is `git_dir`.
pub fn repo_dir(git_dir: &Path) -> PathBuf {
    git_dir.join("skill").join("cache")
}

/// The user's cache directory for git-skill: `$XDG_CACHE_HOME/git-skill` (`xdg`, when it is
/// an absolute path, as the specification asks), else `~/.cache/git-skill`.
pub fn user_dir(xdg: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    xdg.filter(|p| p.is_absolute())
        .map(Path::to_owned)
        .or_else(|| home.map(|h| h.join(".cache")))
        .map(|p| p.join("git-skill"))
}

/// Where the key that signs cache entries is kept: `$XDG_CONFIG_HOME/git-skill/cache.key`
/// (`xdg_config`, when it is an absolute path), else `~/.config/git-skill/cache.key`. Outside
/// every repository, so that what can write a repository cannot read or replace it.
pub fn key_file(xdg_config: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    xdg_config
        .filter(|p| p.is_absolute())
        .map(Path::to_owned)
        .or_else(|| home.map(|h| h.join(".config")))
        .map(|p| p.join("git-skill").join("cache.key"))
}

/// The key in `path`, created (32 random bytes, 0600, its folder 0700 when it is made) when
/// there is none. Created under a temporary name, then hard-linked into place: the link fails
/// when another process made the key first, and that key is read instead, so processes that
/// race on the first use agree on one key. Read as the stores are: not through a symbolic
/// link, not from a FIFO, a device or a file with other hard links.
pub fn load_key(path: &Path) -> Result<[u8; KEY_BYTES], KeyError> {
    match read_key(path)? {
        Some(key) => Ok(key),
        None => create_key(path),
    }
}

fn read_key(path: &Path) -> Result<Option<[u8; KEY_BYTES]>, KeyError> {
    let mut waits = 0;
    loop {
        let bytes = match fsutil::read_regular(path, KEY_BYTES as u64) {
            Ok(None) => return Ok(None),
            Ok(Some(bytes)) => bytes,
            // The process that made the key has linked it and not yet removed its temporary
            // name (see `create_key`): a moment's wait. A hard link that stays is refused.
            Err(RegularFileError::HardLinked(2)) if waits < 20 => {
                waits += 1;
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(RegularFileError::TooLarge { size, .. }) => {
                return Err(KeyError::WrongSize {
                    path: path.to_owned(),
                    len: size,
                })
            }
            Err(source) => {
                return Err(KeyError::Read {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        let len = bytes.len() as u64;
        return match <[u8; KEY_BYTES]>::try_from(bytes) {
            Ok(key) => Ok(Some(key)),
            Err(_) => Err(KeyError::WrongSize {
                path: path.to_owned(),
                len,
            }),
        };
    }
}

fn create_key(path: &Path) -> Result<[u8; KEY_BYTES], KeyError> {
    use std::io::Write;
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let create = |source| KeyError::Create {
        path: path.to_owned(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if std::fs::symlink_metadata(dir).is_err() {
        // Made here, the folder is the user's alone; one that was there is left as it is.
        fsutil::private_dir(dir).map_err(create)?;
    }
    let mut key = [0u8; KEY_BYTES];
    getrandom::fill(&mut key).map_err(|e| KeyError::Random(e.to_string()))?;
    let tmp = dir.join(format!(
        ".cache.key.tmp-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = create_private(&tmp).and_then(|mut file| {
        #[cfg(unix)]
        {
            // The umask cannot widen 0600, but set it whole all the same.
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        file.write_all(&key)?;
        // On disk before it has its name: a key cut short by a crash would turn the cache
        // off for good.
        file.sync_all()
    });
    // A link, not a rename: a rename would replace a key another process just made and
    // already signs with.
    let linked = written.and_then(|()| std::fs::hard_link(&tmp, path));
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(key),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match read_key(path)? {
            Some(key) => Ok(key),
            // Made and removed again in between: no key for this run.
            None => Err(create(e)),
        },
        Err(e) => Err(create(e)),
    }
}

impl ScanCache {
    /// The cache under `base` (created when the first entry is stored), its entries signed
    /// with the key in the user's configuration directory ([`key_file`]), which is created at
    /// the first use. No key to be had (no HOME, a key that cannot be read or is not
    /// [`KEY_BYTES`] long): an error, and the caller scans without the cache.
    pub fn open(
        base: &Path,
        xdg_config: Option<&Path>,
        home: Option<&Path>,
    ) -> Result<ScanCache, KeyError> {
        let path = key_file(xdg_config, home).ok_or(KeyError::NoPlace)?;
        Ok(ScanCache::with_key(base, load_key(&path)?))
    }

    /// The cache under `base`, its entries signed with `key` (which must be secret from
    /// whatever can write `base`).
    pub fn with_key(base: &Path, key: [u8; KEY_BYTES]) -> ScanCache {
        let root = base.join("scan");
        let cache = ScanCache {
            base: base.to_owned(),
            dir: root.join(ENGINE),
            root,
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            stored: AtomicUsize::new(0),
            ignored: AtomicUsize::new(0),
            stored_bytes: AtomicUsize::new(0),
            secret: Secret(key),
            linked: OnceLock::new(),
        };
        cache.usable(None);
        cache
    }

    /// What the caller should tell the user: the cache folder that was a symbolic link, for
    /// which the run went without the cache.
    pub fn warning(&self) -> Option<String> {
        self.linked.get().map(|path| {
            format!(
                "the scan cache '{}' is a link; scanning without the cache",
                path.display()
            )
        })
    }

    /// Whether the cache may be used: none of its folders (down to `leaf`, an entry's 2-hex
    /// folder) is a symbolic link. A link turns the cache off for the rest of the run: reads
    /// through it would take entries from wherever it leads, writes and trims would land
    /// there. Checked on every use, since the folders are made (or swapped) as the run goes.
    fn usable(&self, leaf: Option<&Path>) -> bool {
        if self.linked.get().is_some() {
            return false;
        }
        let folders = [Some(&*self.base), Some(&*self.root), Some(&*self.dir), leaf];
        match folders.into_iter().flatten().find(|p| fsutil::is_link(p)) {
            Some(link) => {
                let _ = self.linked.set(link.to_owned());
                false
            }
            None => true,
        }
    }

    /// The MAC of an entry for `key` holding `body`: over this build's engine and the key too,
    /// so that an entry moved to another key's place or another engine's folder is not taken.
    fn mac(&self, key: &[u8; 32], body: &[u8]) -> Option<HmacSha256> {
        // HMAC takes a key of any length: this does not fail.
        let mut mac = HmacSha256::new_from_slice(&self.secret.0).ok()?;
        mac.update(HEADER.as_bytes());
        mac.update(ENGINE.as_bytes());
        mac.update(b"\0");
        mac.update(key);
        mac.update(body);
        Some(mac)
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            stored: self.stored.load(Ordering::Relaxed),
            ignored: self.ignored.load(Ordering::Relaxed),
        }
    }

    fn path(&self, key: &[u8; 32]) -> PathBuf {
        let hex = hex(key);
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    /// The findings kept for `key`, when an entry for it is there, whole and signed.
    pub(crate) fn get(&self, key: &[u8; 32]) -> Option<Vec<Finding>> {
        let path = self.path(key);
        let entry = if self.usable(path.parent()) {
            self.read_entry(key, &path)
        } else {
            Entry::Missing
        };
        let found = match entry {
            Entry::Missing => None,
            Entry::Corrupt => {
                self.ignored.fetch_add(1, Ordering::Relaxed);
                None
            }
            Entry::Found(findings) => Some(findings),
        };
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps `findings` for `key`. A failure to write is not an error: the next run scans the
    /// text again.
    pub(crate) fn put(&self, key: &[u8; 32], findings: &[Finding]) {
        let path = self.path(key);
        let Some(dir) = path.parent() else { return };
        let body = match serde_json::to_vec(&findings.iter().map(Stored::of).collect::<Vec<_>>()) {
            Ok(body) => body,
            Err(_) => return,
        };
        let Some(mac) = self.mac(key, &body) else {
            return;
        };
        let mut bytes = Vec::with_capacity(HEADER.len() + 65 + body.len());
        bytes.extend_from_slice(HEADER.as_bytes());
        bytes.extend_from_slice(hex(&mac.finalize().into_bytes()).as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(&body);
        if !self.usable(Some(dir)) {
            return;
        }
        let made = if self.root.is_dir() {
            Ok(())
        } else {
            // Findings quote the files they are about: the user's alone, as checkpoints are.
            fsutil::private_dir(&self.root)
        };
        // Checked again once the folders exist: one may have been made a link meanwhile.
        if made.and_then(|()| std::fs::create_dir_all(dir)).is_ok()
            && self.usable(Some(dir))
            && write_entry(&path, &bytes).is_ok()
        {
            self.stored.fetch_add(1, Ordering::Relaxed);
            self.stored_bytes.fetch_add(bytes.len(), Ordering::Relaxed);
        }
    }

    /// Bounds the cache after a run that stored entries (see the module's comment): the runs
    /// add what they stored to a count kept beside the entries (`<base>/scan/pending`), and
    /// once that passes [`TRIM_AFTER`] the directory is walked and the count reset. Runs that
    /// race on the count may lose a little of it: the walk comes a little later. Errors are
    /// ignored: a cache that cannot be trimmed is still a cache.
    pub fn trim(&self) {
        let added = self.stored_bytes.load(Ordering::Relaxed) as u64;
        // A walk through a linked folder would remove files wherever it leads.
        if added == 0 || !self.usable(None) {
            return;
        }
        let count = self.root.join("pending");
        // No count yet (a cache from before counts were kept, or a new one): walk once. Read
        // as an entry is: a FIFO put there does not hang the run.
        let pending = fsutil::read_regular(&count, 64)
            .ok()
            .flatten()
            .and_then(|t| String::from_utf8(t).ok())
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(TRIM_AFTER);
        let pending = pending.saturating_add(added);
        if pending < TRIM_AFTER {
            let _ = write_entry(&count, pending.to_string().as_bytes());
            return;
        }
        let _ = write_entry(&count, b"0");
        trim_engine(&self.dir, MAX_BYTES, TRIM_TO);
        remove_stale_engines(&self.root, &self.dir);
    }
}

/// Removes every entry of every engine under `base` (`git skill scan --clear-cache`); how
/// many bytes it freed.
pub fn clear(base: &Path) -> std::io::Result<u64> {
    let root = base.join("scan");
    let mut freed = 0;
    for_each_file(&root, &mut |_, meta| freed += meta.len());
    match std::fs::remove_dir_all(&root) {
        Ok(()) => Ok(freed),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e),
    }
}

enum Entry {
    Missing,
    Corrupt,
    Found(Vec<Finding>),
}

/// A new file at `path`, readable by the owner alone from its creation on; an error when
/// anything is there already (a temporary name is never written through).
fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Writes an entry under a name no other writer uses (threads of one run may store the same
/// text: a `LICENSE` that several skills carry), then renames it into place, so a reader
/// sees it whole or not at all. Not synced: a power cut loses a cache entry, nothing else.
fn write_entry(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let tmp = path.with_extension(format!(
        "tmp-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = create_private(&tmp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

impl ScanCache {
    /// The entry for `key` at `path`. Opened as the stores open their files (non-blocking,
    /// not through a link, checked through the descriptor): a FIFO, a device, a symbolic link
    /// or a file with other hard links is not read, and counts as corrupt.
    fn read_entry(&self, key: &[u8; 32], path: &Path) -> Entry {
        let bytes = match fsutil::read_regular(path, MAX_ENTRY_BYTES) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Entry::Missing,
            Err(_) => return Entry::Corrupt,
        };
        match self.parse_entry(key, &bytes) {
            Some(findings) => Entry::Found(findings),
            None => Entry::Corrupt,
        }
    }

    fn parse_entry(&self, key: &[u8; 32], bytes: &[u8]) -> Option<Vec<Finding>> {
        let rest = bytes.strip_prefix(HEADER.as_bytes())?;
        let (tag, body) = (rest.get(..64)?, rest.get(65..)?);
        if rest.get(64) != Some(&b'\n') {
            return None;
        }
        // In constant time: how much of a forged MAC matched is not to be learnt.
        self.mac(key, body)?.verify_slice(&unhex(tag)?).ok()?;
        let stored: Vec<Stored> = serde_json::from_slice(body).ok()?;
        stored.into_iter().map(Stored::finding).collect()
    }
}

/// A finding as an entry keeps it: the rule by id (this build's registry gives back its
/// static data), the rest as it is.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    rule: String,
    severity: Severity,
    rule_severity: Severity,
    file: String,
    line: usize,
    column: usize,
    message: String,
    excerpt: String,
    context: Context,
    fingerprint: String,
    evidence: String,
    suppressed: Option<(String, String)>,
}

impl Stored {
    fn of(f: &Finding) -> Stored {
        Stored {
            rule: f.rule.to_owned(),
            severity: f.severity,
            rule_severity: f.rule_severity,
            file: f.file.clone(),
            line: f.line,
            column: f.column,
            message: f.message.clone(),
            excerpt: f.excerpt.clone(),
            context: f.context,
            fingerprint: f.fingerprint.clone(),
            evidence: f.evidence.clone(),
            suppressed: f
                .suppressed
                .as_ref()
                .map(|s| (s.kind.to_owned(), s.reason.clone())),
        }
    }

    fn finding(self) -> Option<Finding> {
        let rule = super::rules::find(&self.rule)?;
        let suppressed = match self.suppressed {
            None => None,
            Some((kind, reason)) => Some(Suppression::new(
                ["inline", "policy", "baseline"]
                    .into_iter()
                    .find(|k| *k == kind)?,
                &reason,
            )),
        };
        Some(Finding {
            rule: rule.id,
            category: rule.category,
            severity: self.severity,
            rule_severity: self.rule_severity,
            file: self.file,
            line: self.line,
            column: self.column,
            message: self.message,
            excerpt: self.excerpt,
            context: self.context,
            fingerprint: self.fingerprint,
            evidence: self.evidence,
            suppressed,
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The bytes of lowercase hex `text` (as [`hex`] writes it); none for anything else.
fn unhex(text: &[u8]) -> Option<Vec<u8>> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// Calls `f` on every regular file below `dir` (links are not followed).
fn for_each_file(dir: &Path, f: &mut dyn FnMut(&Path, &std::fs::Metadata)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        let path = entry.path();
        if meta.is_dir() {
            for_each_file(&path, f);
        } else if meta.is_file() {
            f(&path, &meta);
        }
    }
}

/// Removes the oldest entries of `dir` until they add up to `to` bytes, when they are over
/// `max`.
fn trim_engine(dir: &Path, max: u64, to: u64) {
    let mut entries = Vec::new();
    let mut total = 0;
    for_each_file(dir, &mut |path, meta| {
        total += meta.len();
        let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        entries.push((modified, meta.len(), path.to_owned()));
    });
    if total <= max {
        return;
    }
    entries.sort();
    for (_, len, path) in entries {
        if total <= to {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
}

/// Removes the directories of other engines (other builds) under `root` whose newest entry
/// is older than [`OTHER_ENGINE_DAYS`].
fn remove_stale_engines(root: &Path, ours: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let limit = Duration::from_secs(OTHER_ENGINE_DAYS * 24 * 3600);
    for entry in entries.flatten() {
        let path = entry.path();
        if path == ours || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let mut newest = SystemTime::UNIX_EPOCH;
        for_each_file(&path, &mut |_, meta| {
            if let Ok(m) = meta.modified() {
                newest = newest.max(m);
            }
        });
        let stale = SystemTime::now()
            .duration_since(newest)
            .is_ok_and(|age| age > limit);
        if stale {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &'static str) -> Finding {
        let r = super::super::rules::find(rule).unwrap();
        Finding {
            rule: r.id,
            category: r.category,
            severity: Severity::High,
            rule_severity: r.severity,
            file: "scripts/x.sh".into(),
            line: 3,
            column: 7,
            message: "a message with 漢字 and \u{1F600}".into(),
            excerpt: "curl … | bash".into(),
            context: Context::Quoted,
            fingerprint: "abc".into(),
            evidence: String::new(),
            suppressed: Some(Suppression::new("inline", "why")),
        }
    }

    /// A cache under `base` signed with a fixed key: the tests never read or make the user's.
    fn keyed(base: &Path) -> ScanCache {
        ScanCache::with_key(base, [9u8; KEY_BYTES])
    }

    fn same(a: &[Finding], b: &[Finding]) -> bool {
        serde_json::to_string(a).unwrap() == serde_json::to_string(b).unwrap()
    }

    #[test]
    fn an_entry_comes_back_as_it_was_stored_and_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let key = [7u8; 32];
        assert!(cache.get(&key).is_none());
        let kept = vec![finding("SUP001"), finding("EXF001")];
        cache.put(&key, &kept);
        assert!(same(&cache.get(&key).unwrap(), &kept));
        cache.put(&[8u8; 32], &[]);
        assert_eq!(cache.get(&[8u8; 32]).unwrap().len(), 0);
        assert_eq!(
            cache.stats(),
            CacheStats {
                hits: 2,
                misses: 1,
                stored: 2,
                ignored: 0
            }
        );
        // Another build does not see them.
        assert!(tmp.path().join("scan").join(ENGINE).is_dir());
    }

    #[test]
    fn a_torn_edited_or_foreign_entry_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let key = [1u8; 32];
        cache.put(&key, &[finding("SUP001")]);
        let path = cache.path(&key);
        let whole = std::fs::read(&path).unwrap();
        let mut edited = whole.clone();
        // The excerpt changed by hand: the digest no longer matches.
        let at = edited.len() - 20;
        edited[at] ^= 1;
        let unknown_rule = String::from_utf8(whole.clone())
            .unwrap()
            .replace("SUP001", "ZZZ999");
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("torn", whole[..whole.len() / 2].to_vec()),
            ("edited", edited),
            ("empty", Vec::new()),
            ("another format", b"git-skill scan cache 9\n".to_vec()),
            (
                "utf-16",
                "\u{feff}git-skill"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes)
                    .collect(),
            ),
            ("unknown rule", unknown_rule.into_bytes()),
        ];
        for (name, bytes) in cases {
            std::fs::write(&path, &bytes).unwrap();
            assert!(cache.get(&key).is_none(), "{name}");
        }
        // A directory where the entry should be.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert!(cache.get(&key).is_none());
        assert_eq!(cache.stats().ignored, 7);
    }

    #[test]
    fn a_cache_that_cannot_be_written_is_only_slower() {
        let tmp = tempfile::tempdir().unwrap();
        // A file where the directory should be.
        std::fs::write(tmp.path().join("scan"), b"").unwrap();
        let cache = keyed(tmp.path());
        cache.put(&[2u8; 32], &[finding("SUP001")]);
        assert!(cache.get(&[2u8; 32]).is_none());
        assert_eq!(cache.stats().stored, 0);
    }

    #[test]
    fn trimming_removes_the_oldest_entries_and_stale_engines() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("e");
        for i in 0..10u8 {
            let path = dir.join(format!("{i:02}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, vec![b'x'; 100]).unwrap();
            let when = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + u64::from(i));
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        trim_engine(&dir, 500, 300);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["07", "08", "09"]);
        // Under the bound, nothing goes.
        trim_engine(&dir, 500, 300);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);

        let root = tmp.path().join("scan");
        let (ours, old, fresh) = (root.join("ours"), root.join("old"), root.join("fresh"));
        for d in [&ours, &old, &fresh] {
            std::fs::create_dir_all(d.join("ab")).unwrap();
            std::fs::write(d.join("ab/cd"), b"x").unwrap();
        }
        std::fs::File::options()
            .write(true)
            .open(old.join("ab/cd"))
            .unwrap()
            .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000))
            .unwrap();
        // Ours is never removed, however old.
        std::fs::File::options()
            .write(true)
            .open(ours.join("ab/cd"))
            .unwrap()
            .set_modified(SystemTime::UNIX_EPOCH)
            .unwrap();
        remove_stale_engines(&root, &ours);
        assert!(ours.exists() && fresh.exists() && !old.exists());
    }

    #[test]
    fn a_trim_walks_only_once_enough_was_stored() {
        let tmp = tempfile::tempdir().unwrap();
        let count = tmp.path().join("scan/pending");
        let cache = keyed(tmp.path());
        cache.trim();
        assert!(!count.exists(), "nothing stored, nothing counted");
        cache.put(&[4u8; 32], &[finding("SUP001")]);
        // The first trim of a cache walks it (its size is not known), then counts from 0.
        cache.trim();
        assert_eq!(std::fs::read_to_string(&count).unwrap(), "0");
        let cache = keyed(tmp.path());
        cache.put(&[5u8; 32], &[finding("SUP001")]);
        cache.trim();
        let pending: u64 = std::fs::read_to_string(&count).unwrap().parse().unwrap();
        assert!(pending > 0 && pending < TRIM_AFTER, "{pending}");
        // Past the threshold, the walk runs and the count starts again.
        std::fs::write(&count, (TRIM_AFTER - 1).to_string()).unwrap();
        cache.trim();
        assert_eq!(std::fs::read_to_string(&count).unwrap(), "0");
        // A count that is no number is a cache of unknown size: walked.
        std::fs::write(&count, "漢字").unwrap();
        cache.trim();
        assert_eq!(std::fs::read_to_string(&count).unwrap(), "0");
    }

    #[test]
    fn clear_removes_every_engine_and_says_how_much() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(clear(tmp.path()).unwrap(), 0);
        let cache = keyed(tmp.path());
        cache.put(&[3u8; 32], &[finding("SUP001")]);
        assert!(clear(tmp.path()).unwrap() > 0);
        assert!(!tmp.path().join("scan").exists());
        assert!(cache.get(&[3u8; 32]).is_none());
    }

    #[test]
    fn the_user_directory_follows_xdg_then_home() {
        let (c, h) = (Path::new("/c"), Path::new("/h"));
        assert_eq!(
            user_dir(Some(c), Some(h)),
            Some(PathBuf::from("/c/git-skill"))
        );
        // A relative XDG path is not a base directory (the specification says to ignore it).
        assert_eq!(
            user_dir(Some(Path::new("c")), Some(h)),
            Some(PathBuf::from("/h/.cache/git-skill"))
        );
        assert_eq!(user_dir(None, None), None);
    }

    /// An entry as someone without the key would write it: this format's header, a digest
    /// anyone can compute in the MAC's place, and the body they chose.
    fn forged(body: &[u8]) -> Vec<u8> {
        use sha2::Digest;
        let mut bytes = HEADER.as_bytes().to_vec();
        bytes.extend_from_slice(hex(&Sha256::digest(body)).as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(body);
        bytes
    }

    #[test]
    fn a_forged_entry_is_ignored_and_the_scan_then_rewrites_it() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let key = [1u8; 32];
        let kept = vec![finding("SUP001")];
        cache.put(&key, &kept);
        let path = cache.path(&key);
        // What an agent wants the next commit to read: no findings for a dangerous text.
        std::fs::write(&path, forged(b"[]")).unwrap();
        assert!(cache.get(&key).is_none(), "a recomputed digest is no MAC");
        // Signed, but with another key (another user's, or one the agent made up).
        let other = ScanCache::with_key(tmp.path(), [10u8; KEY_BYTES]);
        other.put(&key, &[]);
        assert!(cache.get(&key).is_none(), "signed with another key");
        // The body edited by hand under a valid MAC.
        cache.put(&key, &kept);
        let text = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
        std::fs::write(&path, text.replace("\"high\"", "\"info\"")).unwrap();
        assert_ne!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(cache.get(&key).is_none(), "an edited body");
        // A version 1 entry (a plain digest) is another format.
        let old = forged(b"[]");
        let old = [b"git-skill scan cache 1\n".as_slice(), &old[HEADER.len()..]].concat();
        std::fs::write(&path, old).unwrap();
        assert!(cache.get(&key).is_none(), "a version 1 entry");
        assert_eq!(cache.stats().ignored, 4);
        assert_eq!(cache.stats().hits, 0);
        // The scan that found it ignored keeps the findings again, over it.
        cache.put(&key, &kept);
        assert!(same(&cache.get(&key).unwrap(), &kept));
        assert_eq!(cache.stats().ignored, 4);
    }

    #[test]
    fn an_entry_moved_to_another_key_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let (dangerous, safe) = ([2u8; 32], [3u8; 32]);
        cache.put(&dangerous, &[finding("SUP001")]);
        cache.put(&safe, &[]);
        assert!(cache.get(&safe).unwrap().is_empty(), "whole and signed");
        // The safe text's entry, signed and whole, in the dangerous text's place.
        std::fs::copy(cache.path(&safe), cache.path(&dangerous)).unwrap();
        assert!(cache.get(&dangerous).is_none());
        assert_eq!(cache.stats().ignored, 1);
        assert_eq!(cache.stats().hits, 1);
    }

    #[test]
    fn a_truncated_entry_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let key = [4u8; 32];
        cache.put(&key, &[finding("SUP001"), finding("EXF001")]);
        let path = cache.path(&key);
        let whole = std::fs::read(&path).unwrap();
        // In the header, in the MAC, just after it, and a body that lost its end (still JSON
        // when it lost only the closing bracket's neighbour: the MAC is what refuses it).
        let cuts = [
            5,
            HEADER.len() + 10,
            HEADER.len() + 64,
            HEADER.len() + 65,
            whole.len() - 1,
        ];
        for (i, cut) in cuts.into_iter().enumerate() {
            std::fs::write(&path, &whole[..cut]).unwrap();
            assert!(cache.get(&key).is_none(), "cut at {cut}");
            assert_eq!(cache.stats().ignored, i + 1);
        }
        std::fs::write(&path, &whole).unwrap();
        assert!(cache.get(&key).is_some());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_entry_does_not_hang_and_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = std::sync::Arc::new(keyed(tmp.path()));
        let key = [5u8; 32];
        cache.put(&key, &[finding("SUP001")]);
        let path = cache.path(&key);
        std::fs::remove_file(&path).unwrap();
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // A pending count that is a FIFO does not hang the trim either.
        let count = tmp.path().join("scan/pending");
        let c = std::ffi::CString::new(count.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (done, wait) = std::sync::mpsc::channel();
        let looked = std::sync::Arc::clone(&cache);
        std::thread::spawn(move || {
            let found = looked.get(&key).is_none();
            looked.trim();
            let _ = done.send(found);
        });
        // A blocking open would wait for a writer that never comes.
        let ignored = wait
            .recv_timeout(Duration::from_secs(20))
            .expect("a lookup of a FIFO entry hung");
        assert!(ignored);
        assert_eq!(cache.stats().ignored, 1);
        assert_eq!(cache.stats().hits, 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_or_hard_linked_entry_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let key = [6u8; 32];
        cache.put(&key, &[finding("SUP001")]);
        let path = cache.path(&key);
        // The entry itself, whole and signed, moved out and linked back: only the link is
        // wrong with it.
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::rename(&path, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert!(cache.get(&key).is_none(), "a symbolic link");
        std::fs::remove_file(&path).unwrap();
        std::fs::hard_link(&elsewhere, &path).unwrap();
        assert!(cache.get(&key).is_none(), "a hard link");
        assert_eq!(cache.stats().ignored, 2);
        // With its other link gone, the same file is an entry again.
        std::fs::remove_file(&elsewhere).unwrap();
        assert!(cache.get(&key).is_some());
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_cache_folder_turns_the_cache_off_and_says_so() {
        let key = [7u8; 32];
        let kept = vec![finding("SUP001")];
        let hex = hex(&key);
        // Each folder of the cache in turn is a link to a real cache that holds a good entry.
        for depth in 0..4 {
            let tmp = tempfile::tempdir().unwrap();
            let real = tmp.path().join("real");
            keyed(&real).put(&key, &kept);
            let parts = ["scan", ENGINE, &hex[..2]];
            let base = tmp.path().join("cache");
            // (`join` of an empty path would add a trailing slash.)
            let (link, target) = parts[..depth]
                .iter()
                .fold((base.clone(), real.clone()), |(l, t), p| {
                    (l.join(p), t.join(p))
                });
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(&target, &link).unwrap();
            let listed = || {
                let mut files = Vec::new();
                for_each_file(&real, &mut |p, _| files.push(p.to_owned()));
                files.sort();
                files
            };
            let before = listed();

            let cache = keyed(&base);
            assert!(cache.get(&key).is_none(), "{}", link.display());
            cache.put(&[8u8; 32], &kept);
            cache.put(&key, &kept);
            cache.trim();
            let stats = cache.stats();
            assert_eq!((stats.hits, stats.stored), (0, 0), "{}", link.display());
            assert_eq!(listed(), before, "nothing written through the link");
            let warning = cache.warning().expect("the link is reported");
            assert_eq!(
                warning,
                format!(
                    "the scan cache '{}' is a link; scanning without the cache",
                    link.display()
                )
            );
        }
        // Without links, the same cache is used and says nothing.
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        cache.put(&key, &kept);
        assert!(cache.get(&key).is_some());
        assert_eq!(cache.warning(), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_2_hex_folder_linked_during_the_run_turns_the_cache_off() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let (a, b) = ([0x11u8; 32], [0x22u8; 32]);
        cache.put(&a, &[finding("SUP001")]);
        cache.put(&b, &[]);
        let folder = cache.path(&a).parent().unwrap().to_owned();
        let moved = tmp.path().join("moved");
        std::fs::rename(&folder, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &folder).unwrap();
        assert!(cache.get(&a).is_none());
        // Off for the rest of the run: even the entry in a real folder is not read.
        assert!(cache.get(&b).is_none());
        assert_eq!(cache.stats().hits, 0);
        assert!(cache
            .warning()
            .unwrap()
            .contains(&*folder.to_string_lossy()));
    }

    #[test]
    fn the_key_file_follows_xdg_config_then_home() {
        let (c, h) = (Path::new("/c"), Path::new("/h"));
        assert_eq!(
            key_file(Some(c), Some(h)),
            Some(PathBuf::from("/c/git-skill/cache.key"))
        );
        assert_eq!(
            key_file(Some(Path::new("c")), Some(h)),
            Some(PathBuf::from("/h/.config/git-skill/cache.key"))
        );
        assert_eq!(
            key_file(None, Some(h)),
            Some(PathBuf::from("/h/.config/git-skill/cache.key"))
        );
        assert_eq!(key_file(None, None), None);
        let tmp = tempfile::tempdir().unwrap();
        assert!(matches!(
            ScanCache::open(tmp.path(), None, None),
            Err(KeyError::NoPlace)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn the_key_is_made_private_once_and_used_again() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let base = tmp.path().join("repo-cache");
        let first = ScanCache::open(&base, None, Some(&home)).unwrap();
        let path = home.join(".config/git-skill/cache.key");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        let key = std::fs::read(&path).unwrap();
        assert_eq!(key.len(), KEY_BYTES);
        assert_ne!(key, [0u8; KEY_BYTES]);
        // No temporary file left beside it.
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
        // A second run reads the same key: what the first signed, it takes.
        let kept = vec![finding("SUP001")];
        first.put(&[1u8; 32], &kept);
        let second = ScanCache::open(&base, None, Some(&home)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), key);
        assert!(same(&second.get(&[1u8; 32]).unwrap(), &kept));
        // XDG_CONFIG_HOME, when set, holds its own.
        let xdg = tmp.path().join("xdg");
        let third = ScanCache::open(&base, Some(&xdg), Some(&home)).unwrap();
        assert!(xdg.join("git-skill/cache.key").is_file());
        assert!(third.get(&[1u8; 32]).is_none(), "another key");
    }

    #[test]
    fn processes_racing_on_the_first_use_agree_on_one_key() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config/git-skill/cache.key");
        let keys: Vec<[u8; KEY_BYTES]> = std::thread::scope(|s| {
            let racers: Vec<_> = (0..8).map(|_| s.spawn(|| load_key(&path))).collect();
            racers
                .into_iter()
                .map(|r| r.join().unwrap().unwrap())
                .collect()
        });
        assert!(keys.iter().all(|k| *k == keys[0]), "{keys:?}");
        assert_eq!(std::fs::read(&path).unwrap(), keys[0]);
    }

    #[cfg(unix)]
    #[test]
    fn a_key_that_cannot_be_trusted_turns_the_cache_off() {
        let tmp = tempfile::tempdir().unwrap();
        let xdg = tmp.path().join("xdg");
        let dir = xdg.join("git-skill");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cache.key");
        let base = tmp.path().join("cache");
        let open = || ScanCache::open(&base, Some(&xdg), None);

        for len in [0, 16, 33] {
            std::fs::write(&path, vec![1u8; len]).unwrap();
            assert!(
                matches!(open(), Err(KeyError::WrongSize { len: l, .. }) if l == len as u64),
                "{len} bytes"
            );
            // Left as it is: the user's to look at.
            assert_eq!(std::fs::read(&path).unwrap().len(), len);
        }
        std::fs::remove_file(&path).unwrap();

        let real = tmp.path().join("real.key");
        std::fs::write(&real, [1u8; KEY_BYTES]).unwrap();
        std::os::unix::fs::symlink(&real, &path).unwrap();
        assert!(matches!(
            open(),
            Err(KeyError::Read {
                source: RegularFileError::Symlink,
                ..
            })
        ));
        std::fs::remove_file(&path).unwrap();

        std::fs::hard_link(&real, &path).unwrap();
        assert!(matches!(
            open(),
            Err(KeyError::Read {
                source: RegularFileError::HardLinked(2),
                ..
            })
        ));
        std::fs::remove_file(&path).unwrap();

        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            open(),
            Err(KeyError::Read {
                source: RegularFileError::NotRegular("FIFO"),
                ..
            })
        ));
    }
}
