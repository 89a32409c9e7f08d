//! `git skill hook agent`: what an agent's hook does with one event once it is parsed. It
//! counts the session's tool calls and, when a busy session ends, starts `git skill review`
//! detached (through a [`Spawner`], so that tests can see what would start) and returns at
//! once. Every decision is logged in `$GIT_DIR/skill/sessions/hook.log`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::agent::event::{Event, Phase};
use crate::agent::session::{self, Decision, Policy, StoreError};
use crate::config::ConfigError;
use crate::env::Env;

/// How long what a session left (its state, lock and review log) is kept after its last event.
const SESSIONS_KEPT: Duration = Duration::from_secs(30 * 24 * 3600);

/// How long a hook waits for another hook of the same session to finish with its state.
const STATE_WAIT: Duration = Duration::from_millis(500);

#[derive(Debug, thiserror::Error)]
pub enum AgentHookError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("could not start the review: {0}")]
    Spawn(std::io::Error),
}

/// Starts the review of a session, detached from the agent.
pub trait Spawner {
    /// Starts `git skill review` for `event`'s session in `top`, its output to `log`; the
    /// review's process id.
    fn start_review(
        &self,
        top: &Path,
        log: &Path,
        event: &Event,
        transcript: &Path,
    ) -> std::io::Result<u32>;
}

/// Runs this very binary's `review`: a new session of its own, stdin from nothing, its output
/// to a log beside the session's state, no pipe of the agent's inherited.
pub struct Detached;

impl Spawner for Detached {
    fn start_review(
        &self,
        top: &Path,
        log_path: &Path,
        event: &Event,
        transcript: &Path,
    ) -> std::io::Result<u32> {
        let exe = std::env::current_exe()?;
        let log = crate::fsutil::open_append(log_path)?;
        let mut cmd = Command::new(exe);
        // Values joined to their options: a session id or path starting with `-` stays a value.
        let mut transcript_arg = std::ffi::OsString::from("--transcript=");
        transcript_arg.push(transcript);
        cmd.arg("review")
            .arg(transcript_arg)
            .arg(format!("--agent={}", event.agent.as_str()))
            .arg(format!("--session={}", event.session))
            .args(["--wait-for-transcript", "30"])
            .current_dir(top)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt as _;
            // SAFETY: setsid(2) is async-signal-safe and touches no memory of the parent; it
            // makes the review the leader of a new session, out of the agent's process group
            // and terminal, so the agent's exit does not reach it.
            unsafe {
                cmd.pre_exec(|| {
                    libc::setsid();
                    Ok(())
                });
            }
        }
        Ok(cmd.spawn()?.id())
    }
}

pub struct Options<'a> {
    /// The process's environment variables (transcript folders, `CODEX_HOME`...).
    pub vars: &'a dyn Fn(&str) -> Option<String>,
    /// Whether this hook runs inside a review's own agent (which must not review itself).
    pub inside_review: bool,
    pub now: chrono::DateTime<chrono::Utc>,
    pub spawner: &'a dyn Spawner,
}

/// What the hook decided for the event; `None` when it had nothing to do (an event it does not
/// count, or no repository).
pub fn run(
    env: &Env,
    event: &Event,
    options: &Options<'_>,
) -> Result<Option<Decision>, AgentHookError> {
    if !matches!(
        event.phase,
        Phase::ToolUsed | Phase::SessionEnd | Phase::TurnEnd
    ) {
        return Ok(None);
    }
    let Some(repo) = env.repo.as_ref() else {
        // Not a repository: nothing to count for.
        return Ok(None);
    };
    let store = session::Store::new(repo.git_dir());
    let now = options
        .now
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let policy = Policy {
        enabled: env.config.auto_skill_enabled()?,
        threshold: env.config.auto_skill_threshold()?,
        // The configured roots: agent roots at any depth count by their names, without a
        // walk of the work tree on every tool call.
        roots: env.configured_roots().into_iter().map(|r| r.path).collect(),
        top: repo.workdir().to_owned(),
        review_running: event.phase == Phase::SessionEnd && crate::review::is_running(repo),
        inside_review: options.inside_review,
        transcript_dirs: session::transcript_dirs(env.home.as_deref(), options.vars),
        now: now.clone(),
    };
    let default_transcript = session::default_transcript(
        event.agent,
        &event.session,
        env.home.as_deref(),
        options.vars,
    );
    // The review starts while the session's state is held, so that a review that cannot start
    // leaves the count as it was.
    let (decision, started) = store.update(event.agent, &event.session, STATE_WAIT, |state| {
        // Only a session's end may need the state as it was (not every tool call).
        let before = (event.phase == Phase::SessionEnd).then(|| state.clone());
        let mut event: Event = event.clone();
        if event.transcript.is_none() && state.transcript.is_none() {
            event.transcript = default_transcript;
        }
        let decision = session::apply(state, &event, &policy);
        let (Decision::Schedule { transcript }, Some(before)) = (&decision, before) else {
            return (decision, None);
        };
        let log: PathBuf = store.dir.join(format!(
            "{}-{}.review.log",
            event.agent.as_str(),
            event.session
        ));
        let started = options
            .spawner
            .start_review(repo.workdir(), &log, &event, transcript);
        if let Err(why) = &started {
            let why = format!("could not start the review: {why}");
            session::unschedule(state, before, &policy.now, why);
        }
        (decision, Some(started))
    })?;
    let log = store.dir.join("hook.log");
    if event.phase != Phase::ToolUsed {
        // The housekeeping of sessions long gone, at a session's end (once a day at most).
        store.prune(SESSIONS_KEPT, options.now.into());
        // Snapshots go with the sessions long gone, not at a session's end: Qwen Code's `Stop`
        // ends a headless session but only a turn of an interactive one.
        crate::agent::quarantine::prune_watch(repo.git_dir(), SESSIONS_KEPT, options.now.into());
    }
    let line = |decision: &str, reason: &str, detail: &str| {
        super::hook_log::append(&log, &now, event, decision, reason, detail)
    };
    match (&decision, started) {
        (Decision::Skipped { reason, detail }, _) => line("skipped", reason, detail),
        (Decision::Schedule { .. }, Some(Ok(pid))) => {
            line("scheduled", "scheduled", &format!("review pid {pid}"))
        }
        (Decision::Schedule { .. }, Some(Err(why))) => {
            let error = AgentHookError::Spawn(why);
            line("failed", "spawn", &error.to_string());
            return Err(error);
        }
        _ => {}
    }
    Ok(Some(decision))
}
