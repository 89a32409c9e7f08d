//! The catch-all behind the pre-write guard: on every hook event of an agent's session, what
//! changed under the paths agents load since the session's last event ([`watch`]) is judged as
//! the pre-write guard judges a write, and a change that leaves a skill or an agent's context
//! dangerous is taken out where the agent cannot load it ([`quarantine`]): the file moved to
//! `$GIT_DIR/skill/quarantine/<agent>-<session>/`, what was there before put back (or nothing,
//! for a new file). It does not matter how the file was written (`python3 -c`, `tar x`, a
//! script, a link): only what is on disk after the call.
//!
//! Whoever wrote it, a change that leaves the content git has at HEAD for that path, or the
//! content a person released, is let be: a branch switch is not an attack, a release is a
//! decision.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agent::event::Event;
use crate::agent::quarantine::{self, Entry, Objects, Previous, Quarantine};
use crate::agent::watch::{self, Changes, FileKind, Snapshot};
use crate::check::{Snapshot as Skill, Writer};
use crate::env::Env;
use crate::fsutil::lock::{Lock, Wait};
use crate::guard::Verdict;
use crate::skill::context;

use super::agent_judge::{dangerous_reason, judge_change, skill_dir, Paths};

/// How long a hook waits for another hook of the repository to finish its look.
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// The largest snapshot file read (a work tree of [`watch::MAX_DIRS`] folders is far smaller).
const MAX_SNAPSHOT_BYTES: u64 = 64 << 20;

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("cannot use '{}': {error}", .path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("'{}' is held by another hook", .0.display())]
    Busy(PathBuf),
    #[error(transparent)]
    Quarantine(#[from] quarantine::QuarantineError),
}

/// What one look found and did.
#[derive(Debug, Default)]
pub struct Watched {
    /// Files taken out, each with why.
    pub quarantined: Vec<Entry>,
    /// What the look could not do (logged; the pre-commit hook and CI check it).
    pub notes: Vec<String>,
    /// Watched files that changed and were judged safe.
    pub judged: usize,
    /// The session had no snapshot: this look took the first one.
    pub first: bool,
    /// Files taken out that could not be kept (the quarantine could not be written): removed.
    pub lost: Vec<String>,
    /// The look was cut short: what a call wrote was not all judged.
    pub cut: bool,
}

impl Watched {
    /// The reply the agent reads: which files were taken out, why, and how a person gets them
    /// back.
    pub fn reason(&self) -> Option<String> {
        if self.quarantined.is_empty() {
            if !self.lost.is_empty() {
                return Some(format!(
                    "git-skill removed what this session wrote where agents load, and could not keep it: {}. An agent may not write this into a skill or an agent's instructions or settings.",
                    self.lost.join("; ")
                ));
            }
            if self.cut {
                return Some(format!(
                    "git-skill could not look at everything this call wrote (more than {} new entries): write fewer files at a time where agents load; the pre-commit hook checks what was not looked at.",
                    watch::MAX_NEW_ENTRIES
                ));
            }
            return None;
        }
        let items: Vec<String> = self
            .quarantined
            .iter()
            .map(|e| {
                let what = if e.action == "restored" {
                    "its previous content is back"
                } else {
                    "removed"
                };
                format!("{} ({what}): {}", e.shown(), e.reason)
            })
            .collect();
        let ids: Vec<&str> = self.quarantined.iter().map(|e| e.id.as_str()).collect();
        Some(format!(
            "git-skill quarantined what this session wrote into {}: {}. An agent may not write this into a skill or an agent's instructions or settings, by any tool or command. A person can look at it with `git skill quarantine show {}` and put it back with `git skill quarantine release {}`, or propose it for review (git skill manage).",
            if items.len() == 1 { "a file agents load" } else { "files agents load" },
            items.join("; "),
            ids[0],
            ids[0],
        ))
    }
}

/// Writes what the watch did to `hook.log`: each file quarantined, each note; a watch that
/// failed is logged as such (the pre-write guard still runs, and the pre-commit hook checks
/// what the watch could not).
pub fn log(
    env: &Env,
    event: &Event,
    watched: &Result<Watched, WatchError>,
    now: chrono::DateTime<chrono::Utc>,
) {
    let Some(repo) = &env.repo else { return };
    let store = crate::agent::session::Store::new(repo.git_dir());
    if std::fs::create_dir_all(&store.dir).is_err() {
        return;
    }
    let path = store.dir.join("hook.log");
    let now = now.to_rfc3339();
    let line = |decision: &str, detail: &str| {
        super::hook_log::append(&path, &now, event, decision, "watch", detail)
    };
    match watched {
        Ok(w) => {
            for e in &w.quarantined {
                line(
                    "quarantined",
                    &format!("{} ({}): {} [{}]", e.shown(), e.action, e.reason, e.id),
                );
            }
            for note in &w.notes {
                line("note", note);
            }
        }
        Err(e) => line("failed", &e.to_string()),
    }
}

/// Where the watch keeps its state in the repository whose git directory is `git_dir`.
pub fn state_dir(git_dir: &Path) -> PathBuf {
    git_dir.join("skill").join("watch")
}

/// Looks at what changed since the session's last event, and takes out what is dangerous.
pub fn run(
    env: &Env,
    event: &Event,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Watched, WatchError> {
    let mut out = Watched::default();
    let Some(repo) = &env.repo else {
        return Ok(out);
    };
    let top = repo
        .workdir()
        .canonicalize()
        .unwrap_or_else(|_| repo.workdir().to_owned());
    let dir = state_dir(repo.git_dir());
    let io = |path: &Path| {
        let path = path.to_owned();
        move |error| WatchError::Io { path, error }
    };
    crate::fsutil::private_dir(&dir).map_err(io(&dir))?;
    let lock_path = dir.join("lock");
    let _lock = Lock::exclusive_brief(&lock_path, Wait::For(LOCK_WAIT)).map_err(|e| match e {
        crate::fsutil::LockError::Busy { path, .. } => WatchError::Busy(path),
        crate::fsutil::LockError::Io { path, source } => WatchError::Io {
            path,
            error: source,
        },
    })?;
    let paths = Paths::new(env);
    let watched = |rel: &str| paths.watched(rel);
    let objects = Objects::new(repo.git_dir());
    let name = format!("{}-{}", event.agent.as_str(), event.session);
    let state = dir.join(&name);
    let key = crate::agent::seal::user_key(env.config_home.as_deref(), env.home.as_deref());
    let seal = Seal {
        key: key.as_ref(),
        name: &name,
    };
    let read = crate::fsutil::read_regular(&state, MAX_SNAPSHOT_BYTES);
    let had_file = !matches!(read, Ok(None));
    let before = match read {
        Ok(Some(bytes)) => seal.open(&bytes).and_then(Snapshot::parse),
        _ => None,
    };
    // A session the hooks saw a tool call of has a snapshot: one gone, torn or not signed by
    // this user's key was tampered with, and what differs from HEAD is judged as written.
    let seen = crate::agent::session::Store::new(repo.git_dir())
        .path(event.agent, &event.session)
        .is_file();
    let before = match before {
        Some(b) => b,
        None => {
            if had_file || seen {
                out.notes.push(format!(
                    "the session's snapshot '{}' was gone or not git-skill's: what differs from HEAD where agents load is judged as this session's writing",
                    state.display()
                ));
            }
            out.first = !(had_file || seen);
            // What the session starts with is judged against HEAD too: an agent that removed
            // its session's state to pass for a new session gains nothing, and what it would
            // load from the first call on is checked. A repository without a commit has no
            // HEAD to judge against: what is there is taken as found.
            let mut start = match HeadContent::new(env, &[]).heads.first() {
                Some(_) => from_head(env, &top, &watched, &objects),
                None => Snapshot::take(&top, &watched),
            };
            add_guard_files(&mut start, &top, repo.git_dir());
            add_reached(&mut start, &top, &paths);
            for (rel, stat) in &start.files {
                if let (FileKind::File, Some(d)) = (stat.kind, &stat.digest) {
                    objects.keep_file(&top.join(rel), d);
                }
            }
            if start.partial {
                out.notes.push(format!(
                    "the work tree has more than {} folders: the watch covers the first {} it walked",
                    watch::MAX_DIRS,
                    watch::MAX_DIRS
                ));
            }
            start
        }
    };
    let (mut changes, mut after) = before.compare(&top, &watched);
    add_guard_files(&mut after, &top, repo.git_dir());
    if !changes.is_empty() {
        // What agents load changed: what it brings in may have too. A file newly brought in
        // (an import added beside the file it names) is judged as written.
        add_reached(&mut after, &top, &paths);
        for rel in after.reached.keys() {
            if !before.files.contains_key(rel) && !changes.added.contains(rel) {
                changes.added.push(rel.clone());
            }
        }
    }
    if changes.cut {
        out.cut = true;
        out.notes.push(format!(
            "more than {} new entries since the last event: the watch did not look at them all; the pre-commit hook checks what it did not",
            watch::MAX_NEW_ENTRIES
        ));
    }
    if !changes.is_empty() {
        let released = Quarantine::new(repo.git_dir()).released(key.as_ref());
        // Content HEAD had when the session began: a commit the agent makes (with
        // `git commit-tree`, which runs no hook) buys nothing.
        let head = HeadContent::new(env, &before.heads);
        let verdicts = judge(
            &top, &paths, &head, &before, &after, &changes, &objects, &released, now,
        );
        out.judged = changes.added.len() + changes.modified.len();
        let q = Quarantine::new(repo.git_dir());
        let taken = take_out(
            &q, &top, false, &before, &objects, verdicts, event, now, &mut out,
        );
        // Folders the call made that held only what was taken out go too.
        if !taken.is_empty() {
            for d in changes.new_dirs.iter().rev() {
                remove_empty_below(&top, d);
            }
            let reached = std::mem::take(&mut after.reached);
            after = before.compare(&top, &watched).1;
            add_guard_files(&mut after, &top, repo.git_dir());
            after.reached = reached;
            // Files brought in that are gone now are not watched any more.
            let files = &after.files;
            after
                .reached
                .retain(|rel, _| files.contains_key(rel) || top.join(rel).exists());
            for rel in after.reached.keys() {
                if !after.files.contains_key(rel) {
                    if let Some(stat) = watch::file_stat(&top.join(rel), true) {
                        after.files.insert(rel.clone(), stat);
                    }
                }
            }
        }
        // What stays is kept, so that a later change of it can be undone.
        for rel in changes.added.iter().chain(&changes.modified) {
            if let Some(stat) = after.files.get(rel) {
                if let (FileKind::File, Some(d)) = (stat.kind, &stat.digest) {
                    objects.keep_file(&top.join(rel), d);
                }
            }
        }
    }
    if after != before || !had_file {
        save(&state, &after, &seal).map_err(io(&state))?;
    }
    run_home(
        env,
        event,
        now,
        &dir,
        &name,
        key.as_ref(),
        &Quarantine::new(repo.git_dir()),
        &objects,
        &mut out,
    )?;
    Ok(out)
}

/// Quarantines what `verdicts` name in the tree at `top` (HOME when `home`), putting back what
/// was there before; the paths taken out.
#[allow(clippy::too_many_arguments)]
fn take_out(
    q: &Quarantine,
    top: &Path,
    home: bool,
    before: &Snapshot,
    objects: &Objects,
    verdicts: Vec<Taken>,
    event: &Event,
    now: chrono::DateTime<chrono::Utc>,
    out: &mut Watched,
) -> BTreeSet<String> {
    let at = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut taken = BTreeSet::new();
    for verdict in verdicts {
        for path in verdict.paths {
            let previous = before
                .files
                .get(&path)
                .and_then(|old| previous(objects, old));
            let exists = std::fs::symlink_metadata(top.join(&path)).is_ok();
            if !exists {
                // Removed: put back what was there.
                if let Some(prev) = previous {
                    restore(&top.join(&path), prev);
                }
                continue;
            }
            match q.put(quarantine::Put {
                top,
                path: &path,
                home,
                agent: event.agent.as_str(),
                session: &event.session,
                at: &at,
                reason: &verdict.reason,
                previous,
            }) {
                Ok(entry) => {
                    taken.insert(path.clone());
                    out.quarantined.push(entry);
                }
                Err(e) => {
                    // Not kept, but not left where agents load it either.
                    let gone = std::fs::remove_file(top.join(&path)).is_ok();
                    out.notes.push(format!(
                        "could not quarantine {path} ({e}); {}",
                        if gone {
                            "it was removed"
                        } else {
                            "it could not be removed"
                        }
                    ));
                    if gone {
                        taken.insert(path.clone());
                        out.lost.push(format!("{path} ({})", verdict.reason));
                    }
                }
            }
        }
    }
    taken
}

/// The same look below HOME: the agents' user-level files and skill roots (a skill written
/// into `~/.claude/skills`, `disableAllHooks` in `~/.claude/settings.json`), with a snapshot
/// of their own beside the repository's. Nothing else of HOME is walked.
#[allow(clippy::too_many_arguments)]
fn run_home(
    env: &Env,
    event: &Event,
    now: chrono::DateTime<chrono::Utc>,
    dir: &Path,
    name: &str,
    key: Option<&[u8; 32]>,
    q: &Quarantine,
    objects: &Objects,
    out: &mut Watched,
) -> Result<(), WatchError> {
    let Some(home) = env.home.as_ref().and_then(|h| h.canonicalize().ok()) else {
        return Ok(());
    };
    let paths = Paths::home(env, &home);
    let watched = |rel: &str| paths.watched(rel);
    let descend = |rel: &str| paths.descend(rel);
    let name = format!("{name}.home");
    let state = dir.join(&name);
    let seal = Seal { key, name: &name };
    let io = |error| WatchError::Io {
        path: state.clone(),
        error,
    };
    let before = match crate::fsutil::read_regular(&state, MAX_SNAPSHOT_BYTES) {
        Ok(Some(bytes)) => seal.open(&bytes).and_then(Snapshot::parse),
        _ => None,
    };
    let Some(before) = before else {
        let snapshot = Snapshot::take_in(&home, &watched, &descend);
        for (rel, stat) in &snapshot.files {
            if let (FileKind::File, Some(d)) = (stat.kind, &stat.digest) {
                objects.keep_file(&home.join(rel), d);
            }
        }
        return save(&state, &snapshot, &seal).map_err(io);
    };
    let (changes, mut after) = before.compare_in(&home, &watched, &descend);
    if !changes.is_empty() {
        let released = q.released(key);
        let head = HeadContent::none();
        let verdicts = judge(
            &home, &paths, &head, &before, &after, &changes, objects, &released, now,
        );
        out.judged += changes.added.len() + changes.modified.len();
        let taken = take_out(q, &home, true, &before, objects, verdicts, event, now, out);
        if !taken.is_empty() {
            for d in changes.new_dirs.iter().rev() {
                remove_empty_below(&home, d);
            }
            after = before.compare_in(&home, &watched, &descend).1;
        }
        for rel in changes.added.iter().chain(&changes.modified) {
            if let Some(stat) = after.files.get(rel) {
                if let (FileKind::File, Some(d)) = (stat.kind, &stat.digest) {
                    objects.keep_file(&home.join(rel), d);
                }
            }
        }
    }
    if after != before {
        save(&state, &after, &seal).map_err(io)?;
    }
    Ok(())
}

fn save(path: &Path, snapshot: &Snapshot, seal: &Seal<'_>) -> std::io::Result<()> {
    crate::fsutil::replace_private(path, &seal.close(&snapshot.render()))
}

/// A snapshot's signature: HMAC-SHA256 with the user's key (the scan cache's, kept outside
/// every repository) over the session's name and the text, as a last line `mac <hex>`. An
/// agent that can write the repository cannot make a snapshot that hides its writes. Without
/// a key (no HOME), snapshots are not signed.
struct Seal<'a> {
    key: Option<&'a [u8; 32]>,
    name: &'a str,
}

impl Seal<'_> {
    fn mac(&self, text: &str) -> Option<String> {
        let key = self.key?;
        Some(crate::agent::seal::sign(
            key,
            &[b"git-skill watch", self.name.as_bytes(), text.as_bytes()],
        ))
    }

    fn close(&self, text: &str) -> Vec<u8> {
        match self.mac(text) {
            Some(mac) => format!("{text}mac {mac}\n").into_bytes(),
            None => text.as_bytes().to_vec(),
        }
    }

    /// The text of a sealed snapshot, when its signature holds.
    fn open<'b>(&self, bytes: &'b [u8]) -> Option<&'b str> {
        let text = std::str::from_utf8(bytes).ok()?;
        if self.key.is_none() {
            return Some(text);
        }
        let body_end = text.trim_end_matches('\n').rfind('\n')? + 1;
        let (body, last) = text.split_at(body_end);
        let given = last.strip_prefix("mac ")?.trim_end();
        (self.mac(body)?.len() == given.len()
            && crate::agent::seal::verify(
                self.key?,
                &[b"git-skill watch", self.name.as_bytes(), body.as_bytes()],
                given,
            ))
        .then_some(body)
    }
}

/// The tree as it is, with each watched file's content as HEAD has it (kept, so that it can be
/// put back), and the files HEAD does not have left out: what a session that lost its
/// snapshot is judged against.
fn from_head(env: &Env, top: &Path, watched: watch::Watched<'_>, objects: &Objects) -> Snapshot {
    let mut snapshot = Snapshot::take(top, watched);
    let head = HeadContent::new(env, &[]);
    snapshot.heads = head.heads.iter().map(|id| id.to_string()).collect();
    let files = std::mem::take(&mut snapshot.files);
    for (rel, mut stat) in files {
        let Some(bytes) = head.blob(&rel) else {
            // Not at HEAD: its folder is listed again, and the file found new.
            let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
            if let Some(d) = snapshot.dirs.get_mut(dir) {
                d.ctime_ns = -1;
            }
            continue;
        };
        let digest = quarantine::digest(&bytes);
        if stat.digest.as_deref() != Some(digest.as_str()) {
            let _ = objects.keep(&digest, &bytes);
            stat.digest = Some(digest);
            // A stat that cannot match: the file is read and compared.
            stat.size = u64::MAX;
        }
        snapshot.files.insert(rel, stat);
    }
    snapshot
}

/// What was at a path, from the kept contents.
fn previous(objects: &Objects, old: &watch::FileStat) -> Option<Previous> {
    match old.kind {
        FileKind::File => Some(Previous::File {
            bytes: objects.get(old.digest.as_deref()?)?,
            mode: old.mode,
        }),
        // A link's target is not kept (its digest is one-way): it is not put back.
        FileKind::Link | FileKind::Special => None,
    }
}

fn restore(path: &Path, previous: Previous) {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    match previous {
        Previous::File { bytes, mode } => {
            let _ = crate::fsutil::write_atomic_with_mode(path, &bytes, mode & 0o777);
        }
        #[cfg(unix)]
        Previous::Link(target) => {
            let _ = std::os::unix::fs::symlink(target, path);
        }
        #[cfg(not(unix))]
        Previous::Link(_) => {}
    }
}

/// Removes the folder `rel` and the folders below it when nothing but folders is left in them.
fn remove_empty_below(top: &Path, rel: &str) {
    fn prune(dir: &Path) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        let mut empty = true;
        for e in entries.flatten() {
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if !(is_dir && prune(&e.path())) {
                empty = false;
            }
        }
        empty && std::fs::remove_dir(dir).is_ok()
    }
    prune(&top.join(rel));
}

/// Changed paths that must be taken out, and why.
struct Taken {
    paths: Vec<String>,
    reason: String,
}

/// Judges the changes: each context file by itself, the files of each skill together.
#[allow(clippy::too_many_arguments)]
fn judge(
    top: &Path,
    paths: &Paths,
    head: &HeadContent<'_>,
    before: &Snapshot,
    after: &Snapshot,
    changes: &Changes,
    objects: &Objects,
    released: &BTreeSet<(String, String)>,
    now: chrono::DateTime<chrono::Utc>,
) -> Vec<Taken> {
    // A change back to what HEAD has, or to what a person released, is let be.
    let let_be = |rel: &str| {
        let Some(stat) = after.files.get(rel) else {
            return false;
        };
        let Some(d) = &stat.digest else { return false };
        released.contains(&(d.clone(), rel.to_owned())) || head.same(rel, d)
    };
    let mut out = Vec::new();
    let mut skills: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for rel in changes.paths() {
        if let Some(reason) = guard_file_changed(top, rel, before, objects) {
            out.push(Taken {
                paths: vec![rel.clone()],
                reason,
            });
            continue;
        }
        if paths.is_root(rel) {
            // A skill root or an agent folder that is a link: what it leads to is loaded.
            let path = top.join(rel);
            let is_link =
                std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            let inside = path.canonicalize().is_ok_and(|r| r.starts_with(top));
            if is_link && !inside {
                out.push(Taken {
                    paths: vec![rel.clone()],
                    reason: format!("{rel} is a link out of the repository: agents would load skills from what it leads to, which no check sees"),
                });
            }
            continue;
        }
        if let Some(root) = paths.skill_root(rel) {
            let dir = skill_dir(top, &root, rel);
            skills.entry((root, dir)).or_default().push(rel.clone());
        } else if let Some(kind) = context::classify(rel)
            .map(|c| c.kind)
            .or_else(|| after.reached.get(rel).or(before.reached.get(rel)).copied())
        {
            if let_be(rel) {
                continue;
            }
            if let Some(reason) = judge_context(top, rel, kind, before, objects) {
                out.push(Taken {
                    paths: vec![rel.clone()],
                    reason,
                });
            }
        }
    }
    for ((root, dir), changed) in skills {
        // Only removals, or contents HEAD has or a person released.
        if changed
            .iter()
            .filter(|rel| after.files.contains_key(*rel))
            .all(|rel| let_be(rel))
        {
            continue;
        }
        if let Some(reason) = judge_skill(top, &root, &dir, &changed, before, objects, now) {
            let paths: Vec<String> = changed
                .into_iter()
                .filter(|rel| after.files.contains_key(rel))
                .collect();
            out.push(Taken { paths, reason });
        }
    }
    out
}

/// Why the context file `rel`, as it is now, is dangerous, if it is.
fn judge_context(
    top: &Path,
    rel: &str,
    kind: context::Kind,
    before: &Snapshot,
    objects: &Objects,
) -> Option<String> {
    let path = top.join(rel);
    let meta = std::fs::symlink_metadata(&path).ok();
    let Some(meta) = meta else {
        // Removed: the hooks git-skill installed must not go with it.
        let had = before
            .files
            .get(rel)
            .and_then(|s| objects.get(s.digest.as_deref()?));
        return had
            .filter(|b| kind.is_settings() && has_our_hooks(b))
            .map(|_| format!("{rel} held git-skill's hooks, and removing it turns the guard off"));
    };
    let bytes = if meta.file_type().is_symlink() {
        let real = path.canonicalize().ok();
        match real {
            Some(real) if real.starts_with(top) => {
                crate::fsutil::read_regular_linked(&real, crate::guard::MAX_SCAN_BYTES)
                    .ok()
                    .flatten()
                    .unwrap_or_default()
            }
            _ => {
                return Some(format!(
                    "{rel} is a link out of the repository: agents would load what it leads to, which no check sees"
                ))
            }
        }
    } else if meta.is_file() {
        match crate::fsutil::read_regular_linked(&path, crate::guard::MAX_SCAN_BYTES) {
            Ok(Some(b)) => b,
            _ => {
                return Some(format!(
                    "{rel} cannot be read to be checked ({} bytes at most)",
                    crate::guard::MAX_SCAN_BYTES
                ))
            }
        }
    } else {
        return Some(format!(
            "{rel} is not a file ({})",
            crate::fsutil::file_type_name(&meta.file_type())
        ));
    };
    if kind.is_settings() {
        let had = before
            .files
            .get(rel)
            .and_then(|s| objects.get(s.digest.as_deref()?));
        if had.is_some_and(|b| !keeps_our_hooks(&b, &bytes)) {
            return Some(format!(
                "{rel} no longer runs git-skill's hooks, which turns the guard off"
            ));
        }
    }
    let scan = crate::guard::context::scan(rel, kind, &bytes, Writer::Agent.scan_options());
    (scan.verdict() == Verdict::Dangerous)
        .then(|| findings_only(&dangerous_reason(rel, rel, &scan.findings)))
}

/// Puts in `snapshot` the files the closure reaches from what agents load in it (its context
/// files and SKILL.md files), each in the role it is reached in, with their stat: a script a
/// settings hook runs, a file an instruction imports. Files agents load by their place are
/// watched already; git's folder is not followed.
fn add_reached(snapshot: &mut Snapshot, top: &Path, paths: &Paths) {
    use crate::closure::{self, Entry};
    let entries: Vec<Entry> = snapshot
        .files
        .keys()
        .filter_map(|rel| {
            if paths.skill_root(rel).is_some() {
                return rel
                    .ends_with("/SKILL.md")
                    .then(|| closure::reach::skill_entry(rel));
            }
            let c = context::classify(rel)?;
            Some(Entry {
                path: rel.clone(),
                kind: c.kind,
                skill: None,
            })
        })
        .collect();
    let listing: Vec<String> = snapshot.files.keys().cloned().collect();
    let tree = closure::work_tree::WorkTree::new(top, listing);
    let reach = closure::reach::of(&tree, &entries);
    snapshot.reached.clear();
    for r in reach.files {
        if r.path.starts_with(".git/") || paths.watched(&r.path) {
            continue;
        }
        if let Some(stat) = watch::file_stat(&top.join(&r.path), true) {
            snapshot.files.entry(r.path.clone()).or_insert(stat);
            snapshot.reached.insert(r.path, r.kind);
        }
    }
}

/// git's files that keep the guard running, watched beside the tree (which leaves `.git` out):
/// the commit hooks `git skill hook install` writes, and the repository's config (its `skill.*`
/// settings and `core.hooksPath`). Only when the git folder is the work tree's `.git`.
const GUARD_FILES: &[&str] = &[
    ".git/hooks/pre-commit",
    ".git/hooks/pre-merge-commit",
    ".git/config",
];

fn add_guard_files(snapshot: &mut Snapshot, top: &Path, git_dir: &Path) {
    let own = git_dir.canonicalize().is_ok_and(|g| g == top.join(".git"));
    if !own {
        return;
    }
    for rel in GUARD_FILES {
        if snapshot.files.contains_key(*rel) {
            continue;
        }
        if let Some(stat) = watch::file_stat(&top.join(rel), true) {
            snapshot.files.insert((*rel).to_owned(), stat);
        }
    }
}

/// Why a change of one of git's [`GUARD_FILES`] switches the guard off, if it does: a commit
/// hook of git-skill's that no longer runs it, a config whose `skill.*` settings or
/// `core.hooksPath` changed.
fn guard_file_changed(
    top: &Path,
    rel: &str,
    before: &Snapshot,
    objects: &Objects,
) -> Option<String> {
    if !GUARD_FILES.contains(&rel) {
        return None;
    }
    let old = before.files.get(rel);
    let had = old.and_then(|s| objects.get(s.digest.as_deref()?));
    let now = crate::fsutil::read_regular(&top.join(rel), 4 << 20)
        .ok()
        .flatten()
        .unwrap_or_default();
    let Some(had) = had else {
        // It was there, and what it held is gone from the kept contents: it cannot be told
        // that the change keeps the guard, so it does not.
        return old.is_some().then(|| {
            format!("{rel} changed, and what it held before is gone from git-skill's records")
        });
    };
    if rel == ".git/config" {
        let (old, new) = (guard_settings(&had), guard_settings(&now));
        return (old != new).then(|| {
            "the repository's config changes where the commit hooks are or what git-skill checks (core.hooksPath, include paths, skill.failOn, skill.roots, skill.scanCache), which an agent may not do".to_owned()
        });
    }
    // A commit hook of git-skill's is git-skill's whole: any change to it is undone.
    let ours = |b: &[u8]| b.windows(14).any(|w| w == b"git-skill hook");
    (ours(&had) && now != had)
        .then(|| format!("{rel} is git-skill's commit hook, which an agent may not change"))
}

/// The settings of a git config file that keep the guard as it is (`core.hooksPath`,
/// `skill.failOn`, `skill.roots`, `skill.scanCache`), as `section.key=value` lines (sections and
/// keys lowercased, as git compares them).
fn guard_settings(config: &[u8]) -> BTreeSet<String> {
    let text = String::from_utf8_lossy(config);
    let mut section = String::new();
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or("");
            let (name, sub) = header
                .split_once(char::is_whitespace)
                .unwrap_or((header, ""));
            section = format!("{}{}", name.to_ascii_lowercase(), sub.trim());
            // A key on the header's line (`[core] hooksPath = x`).
            if let Some(rest) = line
                .split_once(']')
                .map(|(_, r)| r.trim())
                .filter(|r| !r.is_empty())
            {
                push_setting(&section, rest, &mut out);
            }
            continue;
        }
        push_setting(&section, line, &mut out);
    }
    out
}

fn push_setting(section: &str, line: &str, out: &mut BTreeSet<String>) {
    if line.is_empty() || line.starts_with(['#', ';']) {
        return;
    }
    let (key, value) = line.split_once('=').unwrap_or((line, "true"));
    let key = format!("{section}.{}", key.trim().to_ascii_lowercase());
    // What weakens the guard: where the commit hooks are, the fail level, the roots it
    // checks. (A person tuning the review, `skill.autoSkill.*`, in another terminal while a
    // session runs is not undone.)
    if matches!(
        key.as_str(),
        "core.hookspath" | "skill.failon" | "skill.roots" | "skill.scancache"
    ) {
        out.insert(format!("{key}={}", value.trim()));
    }
}

/// "dangerous: RULE at file:line: message; ..." from the pre-write guard's "`path` would be
/// dangerous (...)": the path is said once, by the entry.
fn findings_only(reason: &str) -> String {
    match reason.split_once(" would be dangerous (") {
        Some((_, rest)) => format!("dangerous: {}", rest.strip_suffix(')').unwrap_or(rest)),
        None => reason.to_owned(),
    }
}

/// Whether a settings file holds the hooks `git skill init` installs.
fn has_our_hooks(bytes: &[u8]) -> bool {
    let needle = crate::agent::settings::MARKER.as_bytes();
    bytes.windows(needle.len()).any(|w| w == needle)
}

/// The hook entries of git-skill's in a settings file, each as `event matcher command`: an
/// entry whose matcher or command changed is not git-skill's hook any more. `None` when the
/// file cannot be read as JSON (then it holds none that run).
fn our_hook_entries(bytes: &[u8]) -> Option<BTreeSet<String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    // Strict JSON (serde_json bounds its nesting); settings with comments fall back to
    // whether the marker is there at all.
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut out = BTreeSet::new();
    let hooks = value.get("hooks")?.as_object()?;
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group.get("matcher").and_then(|m| m.as_str()).unwrap_or("");
            // Claude's shape (`hooks: [{command}]` in a group) and Copilot's (the group is
            // the hook, `bash`).
            let inner = group.get("hooks").and_then(|h| h.as_array());
            let commands = inner.into_iter().flatten().chain(std::iter::once(group));
            for hook in commands {
                for key in ["command", "bash"] {
                    if let Some(c) = hook.get(key).and_then(|c| c.as_str()) {
                        if c.contains(crate::agent::settings::MARKER) {
                            out.insert(format!("{event} {matcher} {c}"));
                        }
                    }
                }
            }
        }
    }
    Some(out)
}

/// Whether `after` still holds every hook entry of git-skill's that `before` held.
fn keeps_our_hooks(before: &[u8], after: &[u8]) -> bool {
    let Some(had) = our_hook_entries(before).filter(|h| !h.is_empty()) else {
        return !has_our_hooks(before) || has_our_hooks(after);
    };
    our_hook_entries(after).is_some_and(|now| had.is_subset(&now))
}

/// Why the skill `dir` as it is now, with `changed` files changed, is dangerous, if it is.
fn judge_skill(
    top: &Path,
    root: &str,
    dir: &str,
    changed: &[String],
    before_tree: &Snapshot,
    objects: &Objects,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<String> {
    let abs = top.join(dir);
    let meta = std::fs::symlink_metadata(&abs).ok()?;
    if meta.file_type().is_symlink() {
        // The skill folder itself is a link (`ln -s /elsewhere .claude/skills/x`).
        let inside = abs.canonicalize().is_ok_and(|r| r.starts_with(top));
        if !inside {
            return Some(format!(
                "{dir} is a link out of the repository: agents would load a skill from what it leads to, which no check sees"
            ));
        }
    }
    let after = match Skill::from_dir(&abs, dir.to_owned(), root.to_owned(), None) {
        Ok(skill) => skill,
        // A folder that cannot be listed (`chmod 0`) hides what is in it from the check, not
        // from an agent that can read it later.
        Err(e) if abs.exists() => {
            return Some(format!("{dir} cannot be read to be checked ({e})"));
        }
        Err(_) => return None,
    };
    let mut before = after.clone();
    let mut written = Vec::new();
    let mut had_any = false;
    for rel in changed {
        let Some(in_skill) = rel.strip_prefix(dir).map(|r| r.trim_start_matches('/')) else {
            continue;
        };
        if in_skill.is_empty() {
            continue;
        }
        written.push(in_skill.to_owned());
        let old = before_tree
            .files
            .get(rel)
            .filter(|s| s.kind == FileKind::File)
            .and_then(|s| objects.get(s.digest.as_deref()?));
        before = match old {
            Some(bytes) => {
                had_any = true;
                before.with_file(in_skill, bytes)
            }
            None => before.without_file(in_skill),
        };
    }
    let existed = had_any
        || before_tree
            .files
            .keys()
            .any(|k| k.starts_with(&format!("{dir}/")) && !changed.contains(k));
    let before = existed.then_some(before);
    let judged = judge_change(dir, before, after, &written, now.date_naive());
    judged
        .dangerous
        .then(|| findings_only(judged.reasons.first().map_or("", String::as_str)))
}

/// The contents of commits, by path, looked up when asked: HEAD's (and the local branches')
/// when the session began, or now.
struct HeadContent<'a> {
    repo: Option<&'a crate::git::Repo>,
    /// HEAD's first.
    heads: Vec<gix::ObjectId>,
}

/// Branches looked at, at most: a repository of thousands keeps the first.
const MAX_BRANCHES: usize = 64;

impl<'a> HeadContent<'a> {
    /// The contents of `at` (hex ids, HEAD's first), or of HEAD and the local branches now.
    fn new(env: &'a Env, at: &[String]) -> HeadContent<'a> {
        let repo = env.repo.as_ref();
        let heads = if at.is_empty() {
            let mut ids: Vec<gix::ObjectId> = repo
                .and_then(|r| r.head_commit_id().ok().flatten())
                .into_iter()
                .collect();
            if !ids.is_empty() {
                let branches = repo
                    .and_then(|r| r.refs_under("refs/heads/").ok())
                    .unwrap_or_default();
                for id in branches.into_iter().filter_map(|(_, id)| id) {
                    if ids.len() < MAX_BRANCHES && !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            }
            ids
        } else {
            // HEAD as the session began; and HEAD now when it is at a commit a branch was at
            // then (a branch switch), never at a commit made since or when it did not move
            // (`git checkout other -- path` is the session's writing).
            let then: Vec<gix::ObjectId> = at
                .iter()
                .filter_map(|hex| gix::ObjectId::from_hex(hex.as_bytes()).ok())
                .collect();
            let now = repo.and_then(|r| r.head_commit_id().ok().flatten());
            let mut ids: Vec<gix::ObjectId> = then.first().copied().into_iter().collect();
            if let Some(now) = now.filter(|n| then.contains(n) && !ids.contains(n)) {
                ids.push(now);
            }
            ids
        };
        HeadContent { repo, heads }
    }

    /// No commit: for what lies outside the repository.
    fn none() -> HeadContent<'static> {
        HeadContent {
            repo: None,
            heads: Vec::new(),
        }
    }

    /// HEAD's blob at `rel`.
    fn blob(&self, rel: &str) -> Option<Vec<u8>> {
        let repo = self.repo?;
        repo.blob_at_commit(*self.heads.first()?, rel)
            .ok()
            .flatten()
    }

    /// Whether one of the commits has a blob at `rel` that digests to `digest` (HEAD as the
    /// session began, or HEAD now after a switch to a branch that was there then).
    fn same(&self, rel: &str, digest: &str) -> bool {
        let Some(repo) = self.repo else { return false };
        self.heads.iter().any(|id| {
            repo.blob_at_commit(*id, rel)
                .ok()
                .flatten()
                .is_some_and(|bytes| quarantine::digest(&bytes) == digest)
        })
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_snapshot_opens_with_its_key_and_name_only() {
        let key = [3u8; 32];
        let seal = Seal {
            key: Some(&key),
            name: "claude-s1",
        };
        let text = "git-skill watch 2 1\nd 1 2 \nend 1\n";
        let sealed = seal.close(text);
        assert_eq!(seal.open(&sealed), Some(text));
        let other = Seal {
            key: Some(&key),
            name: "claude-s2",
        };
        assert_eq!(other.open(&sealed), None);
        let unsigned = Seal {
            key: None,
            name: "claude-s1",
        };
        assert_eq!(unsigned.open(text.as_bytes()), Some(text));
        // A body edited after it was sealed, or the seal taken off, does not open.
        let edited = String::from_utf8(sealed.clone())
            .unwrap()
            .replace("d 1 2", "d 1 3");
        assert_eq!(seal.open(edited.as_bytes()), None);
        assert_eq!(seal.open(text.as_bytes()), None);
    }
}
