//! The JSON-lines store of a skill's signals: `<skill>/.skillopt/pending/signal.json`.
//!
//! Appends take an exclusive lock, write their lines and fsync, and on any failure cut the file
//! back to the length it had, so a full disk leaves the store byte for byte as it was; readers
//! take a shared lock, so that none sees a line half written. A line that does not
//! parse is reported with its number and skipped, and git-skill never removes it: the file
//! is only ever appended to here.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use super::schema::{Invalid, Signal};
use crate::fsutil::lock::{Lock, LockError, Mode, Wait};

/// Lines longer than this are reported, not parsed (a signal is a few KB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The pending signals of the skill in `skill_dir`.
pub fn pending_path(skill_dir: &Path) -> PathBuf {
    skill_dir.join(crate::skill::discover::PENDING_SIGNALS)
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot write '{path}': {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read '{path}': {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("'{path}' is a symbolic link; git-skill does not follow links out of a skill")]
    Link { path: PathBuf },
    #[error("'{path}' {reason}; a signal store must be a regular file with one link")]
    Special { path: PathBuf, reason: String },
    #[error("signal {id} is not valid: {source}")]
    Invalid { id: String, source: Invalid },
}

/// A line of the store that is not a valid signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based.
    pub line: usize,
    pub reason: String,
}

/// What a store holds: the valid signals with their line numbers, and the rest.
#[derive(Debug, Default)]
pub struct Loaded {
    pub signals: Vec<(usize, Signal)>,
    pub bad: Vec<BadLine>,
}

/// Appends `signals` to the skill's pending store, creating it (and `.skillopt/.gitignore`,
/// which keeps `work/` out of git) when needed. Each signal is validated first: nothing is
/// written unless all are valid.
pub fn append(skill_dir: &Path, signals: &[Signal]) -> Result<Appended, StoreError> {
    for signal in signals {
        signal.validate().map_err(|source| StoreError::Invalid {
            id: signal.signal_id.clone(),
            source,
        })?;
    }
    let path = pending_path(skill_dir);
    let write_err = |path: &Path| {
        let path = path.to_owned();
        move |source| StoreError::Write { path, source }
    };
    let dir = path.parent().unwrap_or(skill_dir);
    // Checked before creating anything (a link would have us create directories elsewhere)
    // and after (a link made in between).
    refuse_links(skill_dir, &path)?;
    // What this call creates, so that a failure takes it away again.
    let skillopt = skill_dir.join(crate::skill::layout::DIR);
    let work = crate::skill::layout::path(skill_dir, crate::skill::layout::WORK);
    let created_dirs: Vec<PathBuf> = [skillopt.clone(), dir.to_owned(), work]
        .into_iter()
        .filter(|d| !d.exists())
        .collect();
    let undo_dirs = || {
        for d in created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        undo_dirs();
        return Err(write_err(dir)(e));
    }
    refuse_links(skill_dir, &path)?;
    // Created once, never rewritten (a user may have added to it); `create_new` makes
    // concurrent first appends agree on who writes it.
    let ignore = crate::skill::layout::path(skill_dir, crate::skill::layout::GITIGNORE);
    let mut created_ignore = false;
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&ignore)
    {
        Ok(mut file) => {
            created_ignore = true;
            if let Err(e) = file
                .write_all(crate::skill::layout::GITIGNORE_TEXT)
                .and_then(|()| file.sync_data())
            {
                drop(file);
                let _ = std::fs::remove_file(&ignore);
                undo_dirs();
                return Err(write_err(&ignore)(e));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            undo_dirs();
            return Err(write_err(&ignore)(e));
        }
    }
    let writers = lock_writers(dir).map_err(write_err(dir))?;
    let result = swap_in(skill_dir, &path, signals);
    drop(writers);
    if result.is_err() && !path.exists() {
        // Nothing was there before this call: what it created goes too.
        if created_ignore {
            let _ = std::fs::remove_file(&ignore);
        }
        undo_dirs();
    }
    result.map(|dropped| Appended { path, dropped })
}

/// What [`append`] did.
#[derive(Debug)]
pub struct Appended {
    /// The store.
    pub path: PathBuf,
    /// What interrupted appends had left, removed first (their signals were never stored).
    pub dropped: Vec<Leftover>,
}

/// Under the writers' lock: the store with `signals` added, written whole beside it (in
/// `.skillopt/work/`, which git ignores) and renamed over it. A kill at any point leaves the
/// store as it was or with the whole batch; what an interrupted write left is removed first.
/// Returns what was removed.
fn swap_in(skill_dir: &Path, path: &Path, signals: &[Signal]) -> Result<Vec<Leftover>, StoreError> {
    let write_err = |p: &Path| {
        let p = p.to_owned();
        move |source| StoreError::Write { path: p, source }
    };
    let work = crate::skill::layout::path(skill_dir, crate::skill::layout::WORK);
    refuse_links(skill_dir, &work)?;
    let removed = remove_leftovers(skill_dir)?;
    std::fs::create_dir_all(&work).map_err(write_err(&work))?;
    refuse_links(skill_dir, &work)?;
    let old = open_store(path)?;
    let tmp = work.join(format!("{BATCH_PREFIX}{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    // Ctrl-C waits until the store is whole again; a kill leaves only `tmp`.
    let _defer = crate::fsutil::DeferSignals::new();
    let written = (|| -> std::io::Result<()> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        let file = options.open(&tmp)?;
        // The store keeps its permissions, whatever the umask.
        if let Some((old, _)) = &old {
            file.set_permissions(old.metadata()?.permissions())?;
        }
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, file);
        if let Some((mut file, len)) = old {
            std::io::copy(&mut (&mut file).take(len), &mut out)?;
            // A last line cut short (by hand, or by an older git-skill) is ended, so that
            // it stays one bad line instead of swallowing the first new signal.
            if len > 0 && !ends_with_newline(&mut file, len)? {
                out.write_all(b"\n")?;
            }
        }
        for signal in signals {
            serde_json::to_writer(&mut out, signal).map_err(std::io::Error::other)?;
            out.write_all(b"\n")?;
        }
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        sync_dir(path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_err(path)(e));
    }
    Ok(removed)
}

/// What an interrupted append left: its file, `.skillopt/work/signal.json.batch-<pid>`.
const BATCH_PREFIX: &str = "signal.json.batch-";

/// A batch that an interrupted append left, never renamed into the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    pub path: PathBuf,
    pub bytes: u64,
}

/// The batches interrupted appends left for the skill in `skill_dir`, for a reader to name:
/// none while an append runs (its batch is not left over, it is being written).
pub fn interrupted(skill_dir: &Path) -> Vec<Leftover> {
    let Some(dir) = pending_path(skill_dir).parent().map(Path::to_owned) else {
        return Vec::new();
    };
    // Held, the lock keeps appends out while the folder is listed.
    let Ok(_guard) = Lock::directory(&dir, Wait::No) else {
        return Vec::new();
    };
    leftovers(skill_dir)
}

/// The batches interrupted appends left for the skill in `skill_dir`; under the writers' lock
/// (see [`interrupted`] otherwise).
fn leftovers(skill_dir: &Path) -> Vec<Leftover> {
    let work = crate::skill::layout::path(skill_dir, crate::skill::layout::WORK);
    if crate::fsutil::is_link(&work) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(&work) else {
        return Vec::new();
    };
    let mut out: Vec<Leftover> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(BATCH_PREFIX))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            meta.is_file().then(|| Leftover {
                path: e.path(),
                bytes: meta.len(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Removes what interrupted appends left; under the writers' lock, no append is running.
fn remove_leftovers(skill_dir: &Path) -> Result<Vec<Leftover>, StoreError> {
    let found = leftovers(skill_dir);
    for l in &found {
        std::fs::remove_file(&l.path).map_err(|source| StoreError::Write {
            path: l.path.clone(),
            source,
        })?;
    }
    Ok(found)
}

/// The store opened for reading with its length, `None` when there is none; refused unless it
/// is a regular file with one link (a FIFO would hang the copy, a hard link would carry the
/// store's content to another file).
fn open_store(path: &Path) -> Result<Option<(File, u64)>, StoreError> {
    match crate::fsutil::open_regular(path, crate::fsutil::Links::One) {
        Ok(Some(file)) => {
            let len = file
                .metadata()
                .map(|m| m.len())
                .map_err(|source| StoreError::Read {
                    path: path.to_owned(),
                    source,
                })?;
            Ok(Some((file, len)))
        }
        Ok(None) => Ok(None),
        Err(e) => Err(StoreError::Special {
            path: path.to_owned(),
            reason: e.to_string(),
        }),
    }
}

/// Makes a rename in `path`'s directory durable.
fn sync_dir(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The writers' lock: an exclusive lock on the `pending` directory, which is never replaced
/// (the store file is, by [`rewrite_without`]). Appends and rewrites hold it for their whole
/// work, so an append waits while a rewrite commits, and cannot land in a file that a failed
/// commit then puts back. Readers take a shared lock on the file instead: every write they
/// can see is a whole line or a whole file.
fn lock_writers(dir: &Path) -> std::io::Result<Lock> {
    Lock::directory(dir, Wait::Forever).map_err(into_io)
}

/// The store opened under an exclusive lock, taken after the writers' lock: a rewrite holds
/// that lock until its new file is in place, so the path names the current file. A FIFO, a
/// device or a hard link is refused (their content is not the store's to commit).
fn open_locked(path: &Path) -> std::io::Result<Lock> {
    let file = crate::fsutil::open_append(path)?;
    Lock::on(file, path, Mode::Exclusive, Wait::Forever).map_err(into_io)
}

/// A lock error as the I/O error the store's errors carry (with [`Wait::Forever`] it is one).
fn into_io(e: LockError) -> std::io::Error {
    match e {
        LockError::Io { source, .. } => source,
        busy => std::io::Error::other(busy.to_string()),
    }
}

/// Works out the pending store without the signals whose ids are in `ids` (every other line
/// kept byte for byte, malformed ones included, in order) and hands `write` the new content
/// and the removed signals, all under the writers' lock. `write` is expected to put
/// the new content in place by a rename (a commit does): appenders waiting on the lock then
/// find that the path names a new file and append to that one, so no signal is lost.
pub fn rewrite_without<T>(
    skill_dir: &Path,
    ids: &std::collections::HashSet<String>,
    write: impl FnOnce(&[u8], &[Signal]) -> T,
) -> Result<T, StoreError> {
    let path = pending_path(skill_dir);
    refuse_links(skill_dir, &path)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Write {
            path: dir.to_owned(),
            source,
        })?;
    }
    let dir = path.parent().unwrap_or(skill_dir);
    let writers = lock_writers(dir).map_err(|source| StoreError::Write {
        path: dir.to_owned(),
        source,
    })?;
    let file = open_locked(&path).map_err(|source| StoreError::Write {
        path: path.clone(),
        source,
    })?;
    let mut reader = BufReader::new(file.file());
    let mut kept = Vec::new();
    let mut removed = Vec::new();
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        number += 1;
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|source| StoreError::Read {
                path: path.clone(),
                source,
            })?;
        if n == 0 {
            break;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        match parse_line(body, number) {
            Ok(Some(signal)) if ids.contains(&signal.signal_id) && line.ends_with(b"\n") => {
                removed.push(signal)
            }
            _ => kept.extend_from_slice(&line),
        }
    }
    drop(reader);
    // The file's own lock goes now (the content is read), the writers' lock only after
    // `write`: whatever it does, and undoes, no append slips in between.
    drop(file);
    let out = write(&kept, &removed);
    drop(writers);
    Ok(out)
}

/// Runs `f` holding the store's writers' lock (appends and rewrites wait meanwhile): for
/// putting the store back after an interrupted rewrite.
pub fn with_writers_lock<T>(skill_dir: &Path, f: impl FnOnce() -> T) -> Result<T, StoreError> {
    let path = pending_path(skill_dir);
    refuse_links(skill_dir, &path)?;
    let dir = path.parent().unwrap_or(skill_dir);
    std::fs::create_dir_all(dir).map_err(|source| StoreError::Write {
        path: dir.to_owned(),
        source,
    })?;
    let writers = lock_writers(dir).map_err(|source| StoreError::Write {
        path: dir.to_owned(),
        source,
    })?;
    let out = f();
    drop(writers);
    Ok(out)
}

/// The ids of the valid signals in `bytes`, a store's content.
pub fn signal_ids(bytes: &[u8]) -> std::collections::HashSet<String> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(i, line)| parse_line(line, i + 1).ok().flatten())
        .map(|s| s.signal_id)
        .collect()
}

/// A line git-skill was about to commit from the store that still holds a secret after
/// masking (a secret only the whole line shows, split across fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmaskable {
    /// The signal's id, or `line N` for a line of the pending store that is not a signal.
    pub signal: String,
    /// The rule or shape that still finds a secret.
    pub why: String,
}

/// The lines of `signals` for a commit: every string masked again, whoever wrote the line
/// (`record` masks, a line written by hand was never masked), and each line checked whole.
pub fn to_masked_lines(signals: &[Signal]) -> Result<Vec<u8>, Unmaskable> {
    let mut out = Vec::new();
    for s in signals {
        let mut value = serde_json::to_value(s).expect("a signal serialises");
        crate::redact::redact_value(&mut value);
        let line = value.to_string();
        still_clean(&line, || s.signal_id.clone())?;
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    Ok(out)
}

/// `bytes`, a pending store's kept lines, masked line by line for a commit: a signal's strings
/// one by one (a line that needs no mask keeps its bytes), any other line as text.
pub fn mask_lines(bytes: &[u8]) -> Result<Vec<u8>, Unmaskable> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let (body, end) = match line.strip_suffix(b"\n") {
            Some(body) => (body, &b"\n"[..]),
            None => (line, &b""[..]),
        };
        let text = String::from_utf8_lossy(body);
        let masked = match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(mut value) if value.is_object() => {
                if crate::redact::redact_value(&mut value) == 0 {
                    text.into_owned()
                } else {
                    value.to_string()
                }
            }
            _ => crate::redact::redact(&text),
        };
        let name = || match parse_line(body, i + 1) {
            Ok(Some(s)) => s.signal_id,
            _ => format!("line {}", i + 1),
        };
        still_clean(&masked, name)?;
        if masked.as_bytes() == body {
            out.extend_from_slice(body);
        } else {
            out.extend_from_slice(masked.as_bytes());
        }
        out.extend_from_slice(end);
    }
    Ok(out)
}

/// Masks the pending store in place, line by line (see [`mask_lines`]), when a line needs it:
/// for a caller that holds the writers' lock ([`rewrite_without`]'s `write`) and is about to
/// commit from the store, so that no copy of the file as it was (git's own backup of the work
/// tree for a crash) holds what a hand-written line carried.
pub fn mask_in_place(skill_dir: &Path) -> Result<Result<(), Unmaskable>, StoreError> {
    let path = pending_path(skill_dir);
    refuse_links(skill_dir, &path)?;
    let bytes = match crate::fsutil::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ok(())),
        Err(source) => return Err(StoreError::Read { path, source }),
    };
    let masked = match mask_lines(&bytes) {
        Ok(masked) => masked,
        Err(u) => return Ok(Err(u)),
    };
    if masked != bytes {
        crate::fsutil::write_atomic(&path, &masked)
            .map_err(|source| StoreError::Write { path, source })?;
    }
    Ok(Ok(()))
}

/// Masking is idempotent: a line masking would still change holds a secret its fields hid.
fn still_clean(line: &str, name: impl FnOnce() -> String) -> Result<(), Unmaskable> {
    if crate::redact::redact(line) == line {
        return Ok(());
    }
    let why = match crate::secrets::find(line).into_iter().next() {
        Some(f) => format!("rule {} finds a secret in the line as a whole", f.rule),
        None => "a secret shows in the line as a whole, not in any one field".to_owned(),
    };
    Err(Unmaskable {
        signal: name(),
        why,
    })
}

/// The lines of `signals` as the store writes them.
pub fn to_lines(signals: &[Signal]) -> Vec<u8> {
    let mut out = Vec::new();
    for s in signals {
        out.extend_from_slice(&serde_json::to_vec(s).expect("a signal serialises"));
        out.push(b'\n');
    }
    out
}

fn ends_with_newline(file: &mut File, len: u64) -> std::io::Result<bool> {
    use std::io::{Seek, SeekFrom};
    if len == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Refuses when `path`, or a directory between `skill_dir` and it, is a symbolic link.
fn refuse_links(skill_dir: &Path, path: &Path) -> Result<(), StoreError> {
    let Ok(rest) = path.strip_prefix(skill_dir) else {
        return Ok(());
    };
    let mut at = skill_dir.to_owned();
    for part in rest.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Err(StoreError::Link { path: at }),
            _ => {}
        }
    }
    Ok(())
}

/// One line of a store, as [`stream`] hands it over.
// Entries are handed over and moved on at once; boxing the signal would cost an allocation
// per line of a store that may hold millions.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Line {
    /// A valid signal and its 1-based line number.
    Signal(usize, Signal),
    Bad(BadLine),
}

/// Reads the store at `path` into memory (a missing file holds nothing).
pub fn load(path: &Path) -> Result<Loaded, StoreError> {
    let mut loaded = Loaded::default();
    stream(path, |entry| match entry {
        Line::Signal(line, signal) => loaded.signals.push((line, signal)),
        Line::Bad(bad) => loaded.bad.push(bad),
    })?;
    Ok(loaded)
}

/// Reads the store at `path` line by line, handing each line to `each`, in constant memory:
/// a huge line is skipped as it is read. A missing file holds nothing. Blank lines are
/// skipped silently.
pub fn stream(path: &Path, mut each: impl FnMut(Line)) -> Result<(), StoreError> {
    let read_err = |source| StoreError::Read {
        path: path.to_owned(),
        source,
    };
    // The store and the `.skillopt/pending` directories above it must be real.
    let skill_dir = path.ancestors().nth(3).unwrap_or(Path::new(""));
    if path.ends_with(crate::skill::discover::PENDING_SIGNALS) {
        refuse_links(skill_dir, path)?;
    } else if crate::fsutil::is_link(path) {
        return Err(StoreError::Link {
            path: path.to_owned(),
        });
    }
    let file = match crate::fsutil::open_regular(path, crate::fsutil::Links::One) {
        Ok(Some(file)) => file,
        Ok(None) => return Ok(()),
        Err(crate::fsutil::RegularFileError::Io(e)) => return Err(read_err(e)),
        Err(e) => {
            return Err(StoreError::Special {
                path: path.to_owned(),
                reason: e.to_string(),
            })
        }
    };
    let file =
        Lock::on(file, path, Mode::Shared, Wait::Forever).map_err(|e| read_err(into_io(e)))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file.file());
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        number += 1;
        line.clear();
        let (complete, too_long) = read_line(&mut reader, &mut line).map_err(read_err)?;
        if line.is_empty() && !complete && !too_long {
            break;
        }
        let bad = |reason: String| {
            Line::Bad(BadLine {
                line: number,
                reason,
            })
        };
        if too_long {
            each(bad(format!("line longer than {MAX_LINE_BYTES} bytes")));
            continue;
        }
        if !complete {
            each(bad(
                "last line has no line break (cut short while written?)".into(),
            ));
            break;
        }
        match parse_line(&line, number) {
            Ok(Some(signal)) => each(Line::Signal(number, signal)),
            Ok(None) => {}
            Err(reason) => each(bad(reason)),
        }
    }
    Ok(())
}

/// Reads one line into `line` (without its `\n`), keeping at most [`MAX_LINE_BYTES`].
/// Returns (ended by a line break, longer than the limit).
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<(bool, bool)> {
    let mut too_long = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok((false, too_long));
        }
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if line.len() + chunk.len() > MAX_LINE_BYTES {
            too_long = true;
            line.clear();
        } else if !too_long {
            line.extend_from_slice(chunk);
        }
        let used = chunk.len() + usize::from(found);
        reader.consume(used);
        if found {
            return Ok((true, too_long));
        }
    }
}

/// One complete line: `Ok(None)` for a blank line, `Err(reason)` for anything but a valid
/// signal.
fn parse_line(line: &[u8], number: usize) -> Result<Option<Signal>, String> {
    if number == 1 && line.starts_with(b"\xEF\xBB\xBF") {
        return Err("starts with a byte order mark; save the file as UTF-8 without BOM".into());
    }
    if line.ends_with(b"\r") {
        return Err("ends with CR LF; the store uses LF line endings".into());
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let text = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_string())?;
    let signal: Signal = serde_json::from_str(text).map_err(|e| {
        // The line is the store's, not serde's (always 1 here): keep only the column.
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => format!("{} (column {})", &message[..i], e.column()),
            None => message,
        };
        format!("not a signal: {message}")
    })?;
    signal
        .validate()
        .map_err(|e| format!("invalid signal: {e}"))?;
    Ok(Some(signal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::{SignalContext, SignalType};

    fn signal(n: usize) -> Signal {
        Signal {
            signal_id: format!("20261130T090000Z_pdf_{n:08x}"),
            skill: "pdf".into(),
            kind: SignalType::Friction,
            scenario: "fill a form".into(),
            correction: String::new(),
            friction_detail: format!("guessed step {n}"),
            context: SignalContext::default(),
            skill_version_hash: "0".repeat(64),
            timestamp: "2026-11-30T09:00:00Z".into(),
            extra: Default::default(),
        }
    }

    /// What optimize commits from the store is masked again, a hand-written line included, and
    /// a line whose secret only shows whole (split across two fields) is refused by name.
    #[test]
    fn lines_for_a_commit_are_masked_again_or_refused() {
        let token = concat!("ghp_", "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d");
        let mut s = signal(1);
        s.friction_detail = format!("used {token}");
        let lines = to_masked_lines(std::slice::from_ref(&s)).unwrap();
        let text = String::from_utf8(lines).unwrap();
        assert!(
            !text.contains(&token[4..]) && text.contains(crate::redact::MASK),
            "{text}"
        );
        assert!(parse_line(text.trim_end().as_bytes(), 1).unwrap().is_some());

        // Kept lines: a clean signal keeps its bytes, a hand-written one is masked, a line
        // that is not a signal is masked as text.
        let clean = String::from_utf8(to_lines(&[signal(2)])).unwrap();
        let raw = serde_json::to_string(&s).unwrap();
        let kept = format!("{clean}{raw}\nnot json {token}\n{{\"half");
        let masked = String::from_utf8(mask_lines(kept.as_bytes()).unwrap()).unwrap();
        assert!(masked.starts_with(&clean), "{masked}");
        assert!(!masked.contains(&token[4..]), "{masked}");
        assert_eq!(masked.lines().count(), 4);
        assert!(masked.ends_with("{\"half"), "no newline is added: {masked}");

        let glued = format!(
            "{{\"a\": \"{}\", \"b\": \"{}\"}}\n",
            &token[..16],
            &token[16..]
        );
        let err = mask_lines(glued.as_bytes()).unwrap_err();
        assert_eq!(err.signal, "line 1");
        assert!(err.why.contains("whole"), "{}", err.why);
    }

    #[test]
    fn appended_signals_load_back_and_work_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), &[signal(1), signal(2)]).unwrap();
        append(dir.path(), &[signal(3)]).unwrap();
        let loaded = load(&pending_path(dir.path())).unwrap();
        let ids: Vec<usize> = loaded.signals.iter().map(|(n, _)| *n).collect();
        assert_eq!(ids, [1, 2, 3]);
        assert!(loaded.bad.is_empty());
        let ignore = std::fs::read_to_string(dir.path().join(".skillopt/.gitignore")).unwrap();
        assert_eq!(ignore, "work/\n");
    }

    #[test]
    fn an_invalid_signal_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut bad = signal(2);
        bad.scenario.clear();
        assert!(matches!(
            append(dir.path(), &[signal(1), bad]),
            Err(StoreError::Invalid { .. })
        ));
        assert!(!pending_path(dir.path()).exists());
    }

    #[test]
    fn malformed_lines_are_reported_kept_and_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = pending_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let good = serde_json::to_string(&signal(1)).unwrap();
        let mut missing = serde_json::to_value(signal(2)).unwrap();
        missing.as_object_mut().unwrap().remove("scenario");
        let mut content = Vec::new();
        content.extend_from_slice(b"\xEF\xBB\xBF");
        content.extend_from_slice(good.as_bytes());
        content.extend_from_slice(b"\n");
        content.extend_from_slice(good.as_bytes());
        content.extend_from_slice(b"\n");
        content.extend_from_slice(b"garbage {\n");
        content.extend_from_slice(format!("{good}\r\n").as_bytes());
        content.extend_from_slice(format!("{missing}\n").as_bytes());
        content.extend_from_slice(&vec![b'x'; 10 * 1024 * 1024]);
        content.extend_from_slice(b"\n\n");
        content.extend_from_slice(good.as_bytes());
        content.extend_from_slice(b"\n");
        content.extend_from_slice(&good.as_bytes()[..40]);
        std::fs::write(&path, &content).unwrap();
        let loaded = load(&path).unwrap();
        let good_lines: Vec<usize> = loaded.signals.iter().map(|(n, _)| *n).collect();
        assert_eq!(good_lines, [2, 8]);
        let bad: Vec<usize> = loaded.bad.iter().map(|b| b.line).collect();
        assert_eq!(bad, [1, 3, 4, 5, 6, 9], "{:?}", loaded.bad);
        assert!(loaded.bad[0].reason.contains("byte order mark"));
        assert!(
            loaded.bad[3].reason.contains("scenario"),
            "{:?}",
            loaded.bad[3]
        );
        assert!(loaded.bad[4].reason.contains("longer than"));
        assert!(loaded.bad[5].reason.contains("no line break"));
        assert_eq!(
            std::fs::read(&path).unwrap(),
            content,
            "the file is untouched"
        );

        // Appending ends the cut line first: it stays one bad line, the new signal is whole.
        append(dir.path(), &[signal(9)]).unwrap();
        let loaded = load(&path).unwrap();
        assert_eq!(loaded.signals.last().unwrap().0, 10);
        assert_eq!(loaded.bad.last().unwrap().line, 9);
        assert!(std::fs::read(&path).unwrap().starts_with(&content));
    }

    #[test]
    fn rewriting_keeps_every_other_line_and_appends_after_a_rename_land_in_the_new_file() {
        let t = tempfile::tempdir().unwrap();
        let skill = t.path();
        append(skill, &[signal(1), signal(2), signal(3)]).unwrap();
        let path = pending_path(skill);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"garbage kept\n").unwrap();
        drop(f);
        let ids: std::collections::HashSet<String> = [signal(2).signal_id].into();
        let done = rewrite_without(skill, &ids, |kept, removed| {
            assert_eq!(removed.len(), 1);
            assert_eq!(removed[0].signal_id, signal(2).signal_id);
            // An appender blocked on the lock while the file is replaced.
            let appender = {
                let skill = skill.to_owned();
                std::thread::spawn(move || append(&skill, &[signal(4)]).unwrap())
            };
            std::thread::sleep(std::time::Duration::from_millis(100));
            crate::fsutil::write_atomic(&path, kept).unwrap();
            appender
        })
        .unwrap();
        done.join().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].contains(&signal(1).signal_id));
        assert!(lines[1].contains(&signal(3).signal_id));
        assert_eq!(lines[2], "garbage kept");
        assert!(
            lines[3].contains(&signal(4).signal_id),
            "the append waited and landed in the new file"
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_skill_are_never_followed() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        std::fs::create_dir_all(outside.join("pending")).unwrap();
        let skill = t.path().join("skill");
        std::fs::create_dir_all(&skill).unwrap();
        std::os::unix::fs::symlink(&outside, skill.join(".skillopt")).unwrap();
        let e = append(&skill, &[signal(1)]).unwrap_err();
        assert!(matches!(e, StoreError::Link { .. }), "{e}");
        assert!(e.to_string().contains(".skillopt"), "{e}");
        assert!(!outside.join("pending/signal.json").exists());
        assert!(!outside.join(".gitignore").exists());
        let e = load(&pending_path(&skill)).unwrap_err();
        assert!(matches!(e, StoreError::Link { .. }), "{e}");

        // The store file itself as a link.
        let other = t.path().join("other");
        std::fs::create_dir_all(other.join(".skillopt/pending")).unwrap();
        std::fs::write(outside.join("secret"), "").unwrap();
        std::os::unix::fs::symlink(outside.join("secret"), pending_path(&other)).unwrap();
        assert!(matches!(
            append(&other, &[signal(1)]),
            Err(StoreError::Link { .. })
        ));
        assert_eq!(std::fs::read(outside.join("secret")).unwrap(), b"");
    }

    #[test]
    fn concurrent_appends_never_interleave() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|s| {
            for t in 0..8 {
                let dir = dir.path();
                s.spawn(move || {
                    for n in 0..50 {
                        append(dir, &[signal(t * 1000 + n)]).unwrap();
                    }
                });
            }
            let dir = dir.path();
            s.spawn(move || {
                for _ in 0..50 {
                    let loaded = load(&pending_path(dir)).unwrap();
                    assert!(loaded.bad.is_empty(), "{:?}", loaded.bad);
                }
            });
        });
        let loaded = load(&pending_path(dir.path())).unwrap();
        assert_eq!(loaded.signals.len(), 400);
        assert!(loaded.bad.is_empty());
    }
}
