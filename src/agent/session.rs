//! Per-session state kept under the git directory (`$GIT_DIR/skill/sessions/<agent>-<id>.json`,
//! never committed) and the seed's decision at a session's end (`auto-skill-review.md`):
//! tool calls are counted, a session that changed a skill itself is skipped, and a busy one is
//! scheduled for review. [`apply`] decides from the state and the event alone; [`Store`] does
//! the locked load and save.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::event::{Event, Phase};
use super::{writes, Agent};
use crate::fsutil::lock::{Lock, LockError, Wait};
use crate::fsutil::resolved;

/// Decisions kept in a state file (the newest).
const KEPT_DECISIONS: usize = 20;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    pub version: u32,
    pub agent: String,
    pub session: String,
    pub started: String,
    pub updated: String,
    /// Tool calls since the last scheduled review (the seed's toolCallCount).
    pub tool_calls: u32,
    /// All tool calls of the session.
    pub tool_calls_total: u32,
    /// A tool call of the session wrote under a skill root.
    pub skills_modified: bool,
    /// The first path seen under a skill root, for the log.
    pub modified_path: Option<String>,
    pub transcript: Option<String>,
    pub cwd: Option<String>,
    pub decisions: Vec<DecisionRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRecord {
    pub at: String,
    pub event: String,
    /// `scheduled` or `skipped`.
    pub decision: String,
    /// Why: `scheduled`, `disabled`, `below_threshold`, `skills_modified_in_session`,
    /// `already_running`, `inside_review`, `no_transcript`.
    pub reason: String,
    pub detail: String,
}

/// What to do after an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Not a session's end.
    Nothing,
    Skipped {
        reason: &'static str,
        detail: String,
    },
    /// Start a review of this transcript.
    Schedule { transcript: PathBuf },
}

/// What the decision depends on besides the session.
#[derive(Debug, Clone)]
pub struct Policy {
    pub enabled: bool,
    pub threshold: u32,
    /// Absolute skill roots of the repository (the configured ones; agent roots at any
    /// depth below `top` count by their names).
    pub roots: Vec<PathBuf>,
    /// The top of the work tree.
    pub top: PathBuf,
    /// A review of this repository is running.
    pub review_running: bool,
    /// This hook runs inside a review's own model command (no review of a review).
    pub inside_review: bool,
    /// Where each agent keeps its transcripts: a transcript elsewhere is refused.
    pub transcript_dirs: Vec<PathBuf>,
    /// RFC 3339.
    pub now: String,
}

/// Updates `state` with `event` and decides. Pure: no file is read but the transcript's
/// existence, and nothing is written.
pub fn apply(state: &mut SessionState, event: &Event, policy: &Policy) -> Decision {
    if state.version == 0 {
        state.version = 1;
        state.agent = event.agent.as_str().to_owned();
        state.session = event.session.clone();
        state.started = policy.now.clone();
    }
    state.updated = policy.now.clone();
    if let Some(cwd) = &event.cwd {
        state.cwd = Some(cwd.display().to_string());
    }
    // A transcript path is kept from any event that gives one: Copilot's sessionEnd does not,
    // its agentStop does; Qwen's ACP SessionEnd names a file that does not exist.
    if let Some(t) = &event.transcript {
        if t.is_file() || state.transcript.is_none() {
            state.transcript = Some(t.display().to_string());
        }
    }
    match event.phase {
        Phase::ToolUsed => {
            state.tool_calls += 1;
            state.tool_calls_total += 1;
            if let (Some(tool), Some(cwd)) = (&event.tool, &event.cwd) {
                let targets = writes::targets(tool, cwd);
                // Resolved only for a call that writes (most calls read).
                let roots: Vec<PathBuf> = match targets.is_empty() {
                    true => Vec::new(),
                    false => policy.roots.iter().map(|r| resolved(r)).collect(),
                };
                let top = resolved(&policy.top);
                for target in targets {
                    let target = resolved(&target);
                    let in_agent_root = target.strip_prefix(&top).is_ok_and(|rel| {
                        !crate::skill::loader::roots_of(&rel.to_string_lossy().replace('\\', "/"))
                            .is_empty()
                    });
                    if in_agent_root || roots.iter().any(|r| target.starts_with(r)) {
                        state.skills_modified = true;
                        if state.modified_path.is_none() {
                            let shown = target.display().to_string();
                            state.modified_path = Some(crate::report::one_line(&shown, 512));
                        }
                    }
                }
            }
            Decision::Nothing
        }
        Phase::SessionEnd => {
            let decision = decide(state, policy);
            let (kind, reason, detail) = match &decision {
                Decision::Schedule { transcript } => {
                    ("scheduled", "scheduled", transcript.display().to_string())
                }
                Decision::Skipped { reason, detail } => ("skipped", *reason, detail.clone()),
                Decision::Nothing => return decision,
            };
            state.record(DecisionRecord {
                at: policy.now.clone(),
                event: event.name.clone(),
                decision: kind.to_owned(),
                reason: reason.to_owned(),
                detail,
            });
            if matches!(decision, Decision::Schedule { .. }) {
                // The seed's counter starts again; the session may go on (a resumed one).
                state.tool_calls = 0;
                state.skills_modified = false;
                state.modified_path = None;
            }
            decision
        }
        _ => Decision::Nothing,
    }
}

/// A scheduled review that could not start: the session's state goes back to what it was
/// before the event (its tool calls still count towards the next end) and the failure is
/// recorded.
pub fn unschedule(state: &mut SessionState, before: SessionState, now: &str, detail: String) {
    let event = state
        .decisions
        .last()
        .map(|d| d.event.clone())
        .unwrap_or_default();
    *state = before;
    state.record(DecisionRecord {
        at: now.to_owned(),
        event,
        decision: "failed".to_owned(),
        reason: "spawn".to_owned(),
        detail,
    });
}

impl SessionState {
    /// Keeps a decision, and only the newest [`KEPT_DECISIONS`].
    fn record(&mut self, decision: DecisionRecord) {
        self.decisions.push(decision);
        let excess = self.decisions.len().saturating_sub(KEPT_DECISIONS);
        self.decisions.drain(..excess);
    }
}

/// The seed's decision at a session's end, in its order.
fn decide(state: &SessionState, policy: &Policy) -> Decision {
    let skip = |reason: &'static str, detail: String| Decision::Skipped { reason, detail };
    if policy.inside_review {
        return skip(
            "inside_review",
            "this session is a review's own model call".into(),
        );
    }
    if !policy.enabled {
        return skip(
            "disabled",
            "skill.autoSkill.enabled is false (git skill init turns it on)".into(),
        );
    }
    if state.tool_calls < policy.threshold {
        return skip(
            "below_threshold",
            format!(
                "{} tool calls, fewer than {}",
                state.tool_calls, policy.threshold
            ),
        );
    }
    if state.skills_modified {
        return skip(
            "skills_modified_in_session",
            format!(
                "the session wrote {}",
                state.modified_path.as_deref().unwrap_or("a skill")
            ),
        );
    }
    if policy.review_running {
        return skip(
            "already_running",
            "a review of this repository is running".into(),
        );
    }
    match checked_transcript(state.transcript.as_deref(), &policy.transcript_dirs) {
        Ok(transcript) => Decision::Schedule { transcript },
        Err(why) => skip("no_transcript", why),
    }
}

/// The transcript, when it lies inside one of the agents' transcript directories (after
/// links): a payload naming any other file is not followed. It may not exist yet: Copilot
/// writes its events.jsonl after its sessionEnd hook, so its directory must exist, and the
/// review waits for the file.
fn checked_transcript(path: Option<&str>, dirs: &[PathBuf]) -> Result<PathBuf, String> {
    let path = path.ok_or("the agent gave no transcript path")?;
    let given = Path::new(path);
    // A link at the last step could point anywhere once checked (or, dangling, later).
    if crate::fsutil::is_link(given) {
        return Err(format!("'{path}' is a symbolic link; it is not followed"));
    }
    let real = match std::fs::canonicalize(given) {
        Ok(real) => {
            if !real.is_file() {
                return Err(format!("'{path}' is not a file"));
            }
            real
        }
        Err(_) => {
            let (Some(parent), Some(name)) = (given.parent(), given.file_name()) else {
                return Err(format!("'{path}' does not exist"));
            };
            std::fs::canonicalize(parent)
                .map_err(|_| format!("'{path}' does not exist, nor its directory"))?
                .join(name)
        }
    };
    let inside = dirs.iter().any(|d| {
        std::fs::canonicalize(d)
            .map(|d| real.starts_with(d))
            .unwrap_or(false)
    });
    if !inside {
        return Err(format!(
            "'{path}' is not in an agent's transcript directory; it is not read"
        ));
    }
    Ok(real)
}

/// Where each agent keeps its transcripts, from HOME and the agents' own variables.
pub fn transcript_dirs(home: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let var = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(home) = home {
        out.push(home.join(".claude/projects"));
        out.push(home.join(".qwen/projects"));
        out.push(home.join(".codex/sessions"));
        out.push(home.join(".gemini/tmp"));
        out.push(home.join(".copilot/session-state"));
    }
    if let Some(d) = var("CLAUDE_CONFIG_DIR") {
        out.push(d.join("projects"));
    }
    if let Some(d) = var("CODEX_HOME") {
        out.push(d.join("sessions"));
    }
    if let Some(d) = var("COPILOT_HOME") {
        out.push(d.join("session-state"));
    }
    out
}

/// The transcript an agent keeps for `session` when its payload does not say (Copilot's
/// sessionEnd).
pub fn default_transcript(
    agent: Agent,
    session: &str,
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<PathBuf> {
    match agent {
        Agent::Copilot => {
            let base = env("COPILOT_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| home.map(|h| h.join(".copilot")))?;
            Some(
                base.join("session-state")
                    .join(session)
                    .join("events.jsonl"),
            )
        }
        _ => None,
    }
}

/// Where state files live, and their locks.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot use '{}': {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("'{}' is held by another hook; this event was not counted", .path.display())]
    Busy { path: PathBuf },
}

impl Store {
    /// The store of the repository whose git directory is `git_dir`.
    pub fn new(git_dir: &Path) -> Store {
        Store {
            dir: git_dir.join("skill").join("sessions"),
        }
    }

    pub fn path(&self, agent: Agent, session: &str) -> PathBuf {
        self.dir.join(format!("{}-{session}.json", agent.as_str()))
    }

    /// Loads the state of a session under its lock (waiting up to `wait` for another hook of
    /// the same session), lets `f` change it, and saves it atomically.
    pub fn update<R>(
        &self,
        agent: Agent,
        session: &str,
        wait: std::time::Duration,
        f: impl FnOnce(&mut SessionState) -> R,
    ) -> Result<R, StoreError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| StoreError::Io { path, source }
        };
        crate::fsutil::private_dir(&self.dir).map_err(io(&self.dir))?;
        let path = self.path(agent, session);
        let lock_path = path.with_extension("lock");
        let _lock = Lock::exclusive_brief(&lock_path, Wait::For(wait)).map_err(|e| match e {
            LockError::Busy { path, .. } => StoreError::Busy { path },
            LockError::Io { path, source } => StoreError::Io { path, source },
        })?;
        let mut state: SessionState = match crate::fsutil::read_regular(&path, 1 << 20) {
            Ok(Some(bytes)) => serde_json::from_slice(&bytes).unwrap_or_default(),
            _ => SessionState::default(),
        };
        let out = f(&mut state);
        let mut bytes = serde_json::to_vec_pretty(&state).expect("a state serialises");
        bytes.push(b'\n');
        // Not synced: a count lost to a power cut costs nothing, a wait for the disk on every
        // tool call would.
        crate::fsutil::replace_private(&path, &bytes).map_err(io(&path))?;
        Ok(out)
    }

    /// Removes what sessions untouched for `max_age` left behind (state, lock, review log), at
    /// most once a day (the mtime of `.pruned` says when it last ran): without it every session
    /// an agent ever had would stay in the git directory. Returns the files removed; a file
    /// that cannot be removed is left for the next time.
    pub fn prune(&self, max_age: std::time::Duration, now: std::time::SystemTime) -> Vec<PathBuf> {
        const DAY: std::time::Duration = std::time::Duration::from_secs(24 * 3600);
        let marker = self.dir.join(".pruned");
        let age = |p: &Path| {
            std::fs::symlink_metadata(p)
                .and_then(|m| m.modified())
                .ok()
                // A time after `now` (a clock set back) is no age at all.
                .map(|t| now.duration_since(t).unwrap_or_default())
        };
        if age(&marker).is_some_and(|a| a < DAY) {
            return Vec::new();
        }
        let mut removed = Vec::new();
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return removed;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ours = [".json", ".lock", ".review.log"]
                .iter()
                .any(|x| name.ends_with(x));
            let path = e.path();
            if !ours || !e.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            // A session's age is that of its state, which every event rewrites (a lock file
            // is never written: its time is when the session began).
            let state = name
                .strip_suffix(".lock")
                .or_else(|| name.strip_suffix(".review.log"))
                .map(|stem| self.dir.join(format!("{stem}.json")));
            let young = |p: &Path| age(p).is_some_and(|a| a <= max_age);
            if age(&path).is_none_or(|a| a <= max_age) || state.as_deref().is_some_and(young) {
                continue;
            }
            // A lock some hook holds is in use, whatever its age.
            let _held = match name.ends_with(".lock") {
                true => match Lock::existing(&path) {
                    Some(lock) => Some(lock),
                    None => continue,
                },
                false => None,
            };
            if std::fs::remove_file(&path).is_ok() {
                removed.push(path);
            }
        }
        let _ = std::fs::write(&marker, b"");
        removed
    }

    /// Every state file's content, newest first.
    pub fn all(&self) -> Vec<SessionState> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<SessionState> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .filter_map(|e| {
                crate::fsutil::read_regular(&e.path(), 1 << 20)
                    .ok()
                    .flatten()
            })
            .filter_map(|b| serde_json::from_slice(&b).ok())
            .collect();
        // Newest first; sessions of the same second in a stable order, whatever the directory's.
        out.sort_by(|a: &SessionState, b| {
            b.updated
                .cmp(&a.updated)
                .then_with(|| a.agent.cmp(&b.agent))
                .then_with(|| a.session.cmp(&b.session))
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use serde_json::json;

    use super::super::event::ToolUse;
    use super::*;

    fn event(phase: Phase, tool: Option<(&str, serde_json::Value)>) -> Event {
        Event {
            agent: Agent::Claude,
            name: match phase {
                Phase::ToolUsed => "PostToolUse",
                Phase::SessionEnd => "SessionEnd",
                _ => "Stop",
            }
            .into(),
            phase,
            session: "s1".into(),
            cwd: Some("/repo".into()),
            transcript: None,
            tool: tool.map(|(name, input)| ToolUse {
                name: name.into(),
                input,
            }),
        }
    }

    fn policy(dir: &Path) -> Policy {
        Policy {
            enabled: true,
            threshold: 3,
            roots: vec!["/repo/.claude/skills".into()],
            top: "/repo".into(),
            review_running: false,
            inside_review: false,
            transcript_dirs: vec![dir.to_owned()],
            now: "2026-12-02T00:00:00Z".into(),
        }
    }

    fn reason(d: &Decision) -> &str {
        match d {
            Decision::Skipped { reason, .. } => reason,
            Decision::Schedule { .. } => "scheduled",
            Decision::Nothing => "nothing",
        }
    }

    #[test]
    fn prune_removes_old_sessions_once_a_day_and_spares_held_locks() {
        use std::time::{Duration, SystemTime};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        std::fs::create_dir_all(&store.dir).unwrap();
        let old = crate::clock::system() - Duration::from_secs(40 * 24 * 3600);
        let file = |name: &str, at: SystemTime| {
            let p = store.dir.join(name);
            std::fs::write(&p, b"{}").unwrap();
            File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(at)
                .unwrap();
            p
        };
        let now = crate::clock::system();
        for name in ["claude-a.json", "claude-a.lock", "claude-a.review.log"] {
            file(name, old);
        }
        let held = file("qwen-b.lock", old);
        let holder = File::open(&held).unwrap();
        holder.lock().unwrap();
        let recent = file("codex-c.json", now);
        let foreign = file("notes.txt", old);
        let month = Duration::from_secs(30 * 24 * 3600);
        let mut removed = store.prune(month, now);
        removed.sort();
        let names: Vec<_> = removed
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["claude-a.json", "claude-a.lock", "claude-a.review.log"]
        );
        assert!(held.exists() && recent.exists() && foreign.exists());
        // Not again within a day, even with old files there.
        drop(holder);
        // A child process another test forks meanwhile shares the descriptor, and its lock,
        // until it execs: wait until the lock is free.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while crate::fsutil::lock::Lock::existing(&held).is_none()
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(store.prune(month, now).is_empty());
        assert!(held.exists());
        assert_eq!(
            store.prune(month, now + Duration::from_secs(25 * 3600)),
            vec![held]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_write_through_a_link_is_seen_and_a_linked_transcript_refused() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".claude/skills/a")).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&repo, &link).unwrap();
        let mut p = policy(dir.path());
        p.roots = vec![repo.join(".claude/skills")];
        let mut e = event(
            Phase::ToolUsed,
            Some((
                "Write",
                json!({"file_path": link.join(".claude/skills/a/new.md")}),
            )),
        );
        e.cwd = Some(dir.path().to_owned());
        let mut s = SessionState::default();
        apply(&mut s, &e, &p);
        assert!(s.skills_modified, "written through {}", link.display());

        // A transcript that is a link, even into the allowed directory, is not followed.
        let real = dir.path().join("t.jsonl");
        std::fs::write(&real, "{}\n").unwrap();
        let linked = dir.path().join("linked.jsonl");
        std::os::unix::fs::symlink(&real, &linked).unwrap();
        let dirs = [dir.path().to_owned()];
        let e = checked_transcript(linked.to_str(), &dirs).unwrap_err();
        assert!(e.contains("is a symbolic link"), "{e}");
        assert!(checked_transcript(real.to_str(), &dirs).is_ok());
        let dangling = dir.path().join("later.jsonl");
        std::os::unix::fs::symlink(dir.path().join("nothing-yet"), &dangling).unwrap();
        assert!(checked_transcript(dangling.to_str(), &dirs).is_err());
    }

    #[test]
    fn every_branch_of_the_decision() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = dir.path().join("s1.jsonl");
        std::fs::write(&transcript, "{}\n").unwrap();
        let outside = tempfile::tempdir().unwrap();
        let elsewhere = outside.path().join("s1.jsonl");
        std::fs::write(&elsewhere, "{}\n").unwrap();
        let p = policy(dir.path());
        let read = || {
            event(
                Phase::ToolUsed,
                Some(("Read", json!({"file_path": "/repo/a"}))),
            )
        };
        let mut end = event(Phase::SessionEnd, None);
        end.transcript = Some(transcript.clone());

        let mut s = SessionState::default();
        assert_eq!(apply(&mut s, &read(), &p), Decision::Nothing);
        assert_eq!(reason(&apply(&mut s, &end, &p)), "below_threshold");
        // A Stop of Claude is a turn, not the end.
        assert_eq!(
            apply(&mut s, &event(Phase::TurnEnd, None), &p),
            Decision::Nothing
        );
        apply(&mut s, &read(), &p);
        apply(&mut s, &read(), &p);
        assert_eq!(s.tool_calls, 3);
        for (tweak, want) in [
            (
                Policy {
                    enabled: false,
                    ..p.clone()
                },
                "disabled",
            ),
            (
                Policy {
                    inside_review: true,
                    ..p.clone()
                },
                "inside_review",
            ),
            (
                Policy {
                    review_running: true,
                    ..p.clone()
                },
                "already_running",
            ),
            (
                Policy {
                    transcript_dirs: vec![],
                    ..p.clone()
                },
                "no_transcript",
            ),
        ] {
            let mut copy = s.clone();
            assert_eq!(reason(&apply(&mut copy, &end, &tweak)), want);
            assert_eq!(copy.tool_calls, 3, "a skipped review keeps the count");
        }
        let mut hostile = s.clone();
        let mut end_elsewhere = end.clone();
        end_elsewhere.transcript = Some(elsewhere);
        hostile.transcript = None;
        assert_eq!(
            reason(&apply(&mut hostile, &end_elsewhere, &p)),
            "no_transcript"
        );
        let d = apply(&mut s, &end, &p);
        assert_eq!(
            d,
            Decision::Schedule {
                transcript: std::fs::canonicalize(&transcript).unwrap()
            }
        );
        assert_eq!(
            (s.tool_calls, s.tool_calls_total),
            (0, 3),
            "the counter starts again"
        );
        assert_eq!(s.decisions.last().unwrap().reason, "scheduled");

        // A session that wrote a skill itself is skipped.
        let mut w = SessionState::default();
        for _ in 0..3 {
            apply(&mut w, &read(), &p);
        }
        apply(
            &mut w,
            &event(
                Phase::ToolUsed,
                Some((
                    "Bash",
                    json!({"command": "cd x/y && echo y > ../.claude-notes/skills/a/SKILL.md"}),
                )),
            ),
            &p,
        );
        assert!(
            !w.skills_modified,
            "/repo/x/.claude-notes/skills is no skill root"
        );
        // A root below the top counts by its name, as agents load it (no walk needed).
        let mut nested = w.clone();
        apply(
            &mut nested,
            &event(
                Phase::ToolUsed,
                Some((
                    "Bash",
                    json!({"command": "cd x/y && echo y > ../.claude/skills/a/SKILL.md"}),
                )),
            ),
            &p,
        );
        assert!(nested.skills_modified, "/repo/x/.claude/skills is a root");
        apply(
            &mut w,
            &event(
                Phase::ToolUsed,
                Some((
                    "Edit",
                    json!({"file_path": "/repo/.claude/skills/a/SKILL.md"}),
                )),
            ),
            &p,
        );
        assert!(w.skills_modified);
        assert_eq!(
            reason(&apply(&mut w, &end, &p)),
            "skills_modified_in_session"
        );
    }

    #[test]
    fn the_store_keeps_state_under_a_lock_and_counts_every_writer() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let store = store.clone();
                std::thread::spawn(move || {
                    for _ in 0..25 {
                        store
                            .update(Agent::Codex, "s", std::time::Duration::from_secs(10), |s| {
                                s.tool_calls += 1
                            })
                            .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let all = store.all();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].tool_calls, 200);
        // Held by another: a short wait, then Busy.
        let lock = File::create(store.path(Agent::Codex, "s").with_extension("lock")).unwrap();
        lock.lock().unwrap();
        let r = store.update(
            Agent::Codex,
            "s",
            std::time::Duration::from_millis(20),
            |_| (),
        );
        assert!(matches!(r, Err(StoreError::Busy { .. })));
    }
}
