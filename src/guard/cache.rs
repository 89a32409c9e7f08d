//! Findings kept between runs: a text's findings depend only on what names it, its bytes, how
//! it is read, the scan's options and the engine, so a text scanned once need not be scanned
//! again by a later run of the same build (a second `git skill scan`, CI's cached job, the
//! hook after a `scan`). The key is the in-process memo's ([`super::memo::key`]): SHA-256
//! over all of that but the engine, which names the directory the entries live in.
//!
//! One file per entry, `<dir>/scan/<engine>/<2 hex>/<62 hex>`, written to a temporary name and
//! renamed: concurrent runs each see an entry whole or not at all, and a lookup costs one
//! `open` (a hook that looks up three texts reads three small files, never an index of all of
//! them). An entry holds a header, the SHA-256 of its body and the body (the findings as
//! JSON): anything else, a torn or edited file, a rule this build does not know, is ignored
//! and the text scanned again. Findings made after a parse was cut at its deadline depend on
//! the machine's speed and are not kept.
//!
//! The cache holds findings only (rule, place, message, excerpt: the excerpt is redacted as
//! every report's is), never the texts. It is bounded: once runs have stored [`TRIM_AFTER`]
//! bytes since the last trim, the entries past [`MAX_BYTES`] are removed oldest first, and the
//! directories of other engines unused for [`OTHER_ENGINE_DAYS`] days are removed whole.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

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
const HEADER: &str = "git-skill scan cache 1\n";

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
}

/// The cache directory of a repository whose git directory is `git_dir`.
/// The key a whole skill's findings are kept under: what identifies its content without
/// reading it (`staged::tree_key`: paths, modes, object ids, encodings, Git LFS state) and the
/// options that change findings. The hook and the range scan look it up before reading any
/// file of a skill, so a state scanned before (a commit retried, a CI job run again) is not
/// read at all.
pub fn skill_key(tree: &[u8; 32], options: &super::ScanOptions) -> [u8; 32] {
    let flags = [u8::from(options.inline_allow), u8::from(options.strict)];
    super::memo::key(&[b"skill tree", &flags], tree)
}

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

impl ScanCache {
    /// The cache under `base` (created when the first entry is stored).
    pub fn new(base: &Path) -> ScanCache {
        let root = base.join("scan");
        ScanCache {
            dir: root.join(ENGINE),
            root,
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            stored: AtomicUsize::new(0),
            ignored: AtomicUsize::new(0),
            stored_bytes: AtomicUsize::new(0),
        }
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

    /// The findings kept for `key`, when an entry for it is there and whole.
    pub(crate) fn get(&self, key: &[u8; 32]) -> Option<Vec<Finding>> {
        let found = match read_entry(&self.path(key)) {
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
        let mut bytes = Vec::with_capacity(HEADER.len() + 65 + body.len());
        bytes.extend_from_slice(HEADER.as_bytes());
        bytes.extend_from_slice(hex(&Sha256::digest(&body)).as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(&body);
        let made = if self.root.is_dir() {
            Ok(())
        } else {
            // Findings quote the files they are about: the user's alone, as checkpoints are.
            crate::fsutil::private_dir(&self.root)
        };
        if made.and_then(|()| std::fs::create_dir_all(dir)).is_ok()
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
        if added == 0 {
            return;
        }
        let count = self.root.join("pending");
        // No count yet (a cache from before counts were kept, or a new one): walk once.
        let pending = std::fs::read_to_string(&count)
            .ok()
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
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = options
        .open(&tmp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

fn read_entry(path: &Path) -> Entry {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Entry::Missing,
        Err(_) => return Entry::Corrupt,
    };
    let mut bytes = Vec::new();
    if file
        .take(MAX_ENTRY_BYTES + 1)
        .read_to_end(&mut bytes)
        .is_err()
        || bytes.len() as u64 > MAX_ENTRY_BYTES
    {
        return Entry::Corrupt;
    }
    match parse_entry(&bytes) {
        Some(findings) => Entry::Found(findings),
        None => Entry::Corrupt,
    }
}

fn parse_entry(bytes: &[u8]) -> Option<Vec<Finding>> {
    let rest = bytes.strip_prefix(HEADER.as_bytes())?;
    let (digest, body) = (rest.get(..64)?, rest.get(65..)?);
    if rest.get(64) != Some(&b'\n') || digest != hex(&Sha256::digest(body)).as_bytes() {
        return None;
    }
    let stored: Vec<Stored> = serde_json::from_slice(body).ok()?;
    stored.into_iter().map(Stored::finding).collect()
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
            Some((kind, reason)) => Some(Suppression {
                kind: ["inline", "policy", "baseline"]
                    .into_iter()
                    .find(|k| *k == kind)?,
                reason,
            }),
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
            suppressed: Some(Suppression {
                kind: "inline",
                reason: "why".into(),
            }),
        }
    }

    fn same(a: &[Finding], b: &[Finding]) -> bool {
        serde_json::to_string(a).unwrap() == serde_json::to_string(b).unwrap()
    }

    #[test]
    fn an_entry_comes_back_as_it_was_stored_and_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = ScanCache::new(tmp.path());
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
        let cache = ScanCache::new(tmp.path());
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
        let cache = ScanCache::new(tmp.path());
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
        let cache = ScanCache::new(tmp.path());
        cache.trim();
        assert!(!count.exists(), "nothing stored, nothing counted");
        cache.put(&[4u8; 32], &[finding("SUP001")]);
        // The first trim of a cache walks it (its size is not known), then counts from 0.
        cache.trim();
        assert_eq!(std::fs::read_to_string(&count).unwrap(), "0");
        let cache = ScanCache::new(tmp.path());
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
        let cache = ScanCache::new(tmp.path());
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
}
