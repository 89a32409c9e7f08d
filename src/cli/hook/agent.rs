//! `git skill hook agent`: what an agent's hook runs. It counts the session's tool calls and,
//! when a busy session ends, starts `git skill review` detached and returns at once. It never
//! fails the agent: every problem is logged (`$GIT_DIR/skill/sessions/hook.log`, and one line
//! on stderr) and it exits 0 with nothing on stdout, which an agent may read as instructions;
//! `--strict` makes problems errors, for debugging.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use git_skill::agent::event::{self, Event, Phase, MAX_PAYLOAD_BYTES};
use git_skill::agent::session::{self, Decision, Policy, Store};
use git_skill::agent::Agent;

use crate::cli::{CommandError, Outcome, Ui, Workspace};

/// How long what a session left (its state, lock and review log) is kept after its last event.
const SESSIONS_KEPT: Duration = Duration::from_secs(30 * 24 * 3600);

/// `hook.log` past this size becomes `hook.log.1` (the one before is dropped).
const LOG_MAX: u64 = 1 << 20;

/// How long a hook waits for another hook of the same session to finish with its state.
const STATE_WAIT: Duration = Duration::from_millis(500);

#[derive(Debug, clap::Args)]
pub struct AgentHookArgs {
    /// The agent whose hook this is [default: detected from the payload and environment].
    #[arg(long, value_parser = parse_agent, value_name = "AGENT")]
    pub agent: Option<Agent>,

    /// Make problems errors (exit 2) instead of logging them: for debugging a hook setup.
    #[arg(long)]
    pub strict: bool,

    /// The event's name, for payloads that do not carry it (Copilot's).
    #[arg(value_name = "EVENT")]
    pub event: Option<String>,
}

/// `git-skill hook agent ...` parsed by `hook agent`'s own clap command; `None` for any other
/// command line, or one it refuses (the full parser then says why, as for any command).
pub fn fast_args(argv: Vec<std::ffi::OsString>) -> Option<AgentHookArgs> {
    use clap::{Args as _, FromArgMatches as _};
    let (Some(hook), Some(agent)) = (argv.get(1), argv.get(2)) else {
        return None;
    };
    if hook != "hook" || agent != "agent" {
        return None;
    }
    let command = AgentHookArgs::augment_args(clap::Command::new("git skill hook agent"));
    let rest = std::iter::once(std::ffi::OsString::from("git skill hook agent"))
        .chain(argv.into_iter().skip(3));
    let matches = command.try_get_matches_from(rest).ok()?;
    AgentHookArgs::from_arg_matches(&matches).ok()
}

fn parse_agent(s: &str) -> Result<Agent, String> {
    Agent::parse(s).ok_or_else(|| "expected claude, qwen, codex, gemini or copilot".to_owned())
}

pub fn cmd_agent_hook(ui: &mut Ui, args: AgentHookArgs) -> Result<Outcome, CommandError> {
    match run(ui, &args) {
        Ok(()) => Ok(Outcome::Clean),
        Err(problem) if args.strict => Err(CommandError::new(problem)),
        Err(problem) => {
            // One line for the person who watches the agent's log; the agent goes on.
            let _ = writeln!(ui.err, "git-skill hook: {}", crate::cli::ui::safe(&problem));
            Ok(Outcome::Clean)
        }
    }
}

fn run(ui: &mut Ui, args: &AgentHookArgs) -> Result<(), String> {
    let mut bytes = Vec::new();
    let mut stdin = std::io::stdin().lock();
    (&mut stdin)
        .take(MAX_PAYLOAD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the payload: {e}"))?;
    if bytes.len() > MAX_PAYLOAD_BYTES {
        // Read to its end, unkept: an agent writing the rest into a closed pipe would get an
        // error of its own (a Read of a huge file puts the file in the payload).
        let _ = std::io::copy(&mut stdin, &mut std::io::sink());
    }
    let env = |k: &str| std::env::var(k).ok();
    let event =
        event::parse(&bytes, args.agent, args.event.as_deref(), &env).map_err(|e| e.to_string())?;
    if !matches!(
        event.phase,
        Phase::ToolUsed | Phase::SessionEnd | Phase::TurnEnd
    ) {
        return Ok(());
    }
    // The repository is the one the agent works in.
    if let Some(cwd) = event.cwd.as_deref().filter(|c| c.is_dir()) {
        std::env::set_current_dir(cwd)
            .map_err(|e| format!("cannot enter '{}': {e}", cwd.display()))?;
    }
    let ws = Workspace::load(ui).map_err(|e| format!("{:#}", e.error))?;
    git_skill::clock::check().map_err(|e| e.to_string())?;
    let Some(repo) = ws.repo.as_ref() else {
        // Not a repository: nothing to count for.
        return Ok(());
    };
    let store = Store::new(repo.git_dir());
    let config = &ws.config;
    let policy = Policy {
        enabled: config.auto_skill_enabled().map_err(|e| e.to_string())?,
        threshold: config.auto_skill_threshold().map_err(|e| e.to_string())?,
        // The configured roots: agent roots at any depth count by their names, without a
        // walk of the work tree on every tool call.
        roots: ws.configured_roots().into_iter().map(|r| r.path).collect(),
        top: repo.workdir().to_owned(),
        review_running: event.phase == Phase::SessionEnd && git_skill::review::is_running(repo),
        inside_review: std::env::var_os("GIT_SKILL_PURPOSE").is_some(),
        transcript_dirs: session::transcript_dirs(ws.home.as_deref(), &env),
        now: git_skill::clock::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let default_transcript =
        session::default_transcript(event.agent, &event.session, ws.home.as_deref(), &env);
    // The review starts while the session's state is held, so that a review that cannot start
    // leaves the count as it was.
    let (decision, started) = store
        .update(event.agent, &event.session, STATE_WAIT, |state| {
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
            let started = start_review(repo.workdir(), &store.dir, &event, transcript)
                .map_err(|e| format!("could not start the review: {e}"));
            if let Err(why) = &started {
                session::unschedule(state, before, &policy.now, why.clone());
            }
            (decision, Some(started))
        })
        .map_err(|e| e.to_string())?;
    let log = store.dir.join("hook.log");
    if event.phase != Phase::ToolUsed {
        // The housekeeping of sessions long gone, at a session's end (once a day at most).
        store.prune(SESSIONS_KEPT, git_skill::clock::now().into());
    }
    match (decision, started) {
        (Decision::Skipped { reason, detail }, _) => {
            append_log(&log, &event, "skipped", reason, &detail);
            Ok(())
        }
        (Decision::Schedule { .. }, Some(Ok(pid))) => {
            append_log(
                &log,
                &event,
                "scheduled",
                "scheduled",
                &format!("review pid {pid}"),
            );
            Ok(())
        }
        (Decision::Schedule { .. }, Some(Err(why))) => {
            append_log(&log, &event, "failed", "spawn", &why);
            Err(why)
        }
        _ => Ok(()),
    }
}

/// Starts `git skill review` for the session, detached: a new session of its own, stdin from
/// nothing, its output to a log beside the session's state, no pipe of the agent's inherited.
fn start_review(top: &Path, dir: &Path, event: &Event, transcript: &Path) -> std::io::Result<u32> {
    let exe = std::env::current_exe()?;
    let log_path: PathBuf = dir.join(format!(
        "{}-{}.review.log",
        event.agent.as_str(),
        event.session
    ));
    let log = git_skill::fsutil::open_append(&log_path)?;
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
        // SAFETY: setsid(2) is async-signal-safe and touches no memory of the parent; it makes
        // the review the leader of a new session, out of the agent's process group and
        // terminal, so the agent's exit does not reach it.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }
    let child = cmd.spawn()?;
    Ok(child.id())
}

/// One line of `hook.log`; a failure to write it is not the agent's problem.
fn append_log(path: &Path, event: &Event, decision: &str, reason: &str, detail: &str) {
    let line = serde_json::json!({
        "at": git_skill::clock::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "agent": event.agent.as_str(),
        "session": event.session,
        "event": event.name,
        "decision": decision,
        "reason": reason,
        "detail": detail,
    });
    if std::fs::metadata(path).is_ok_and(|m| m.len() > LOG_MAX) {
        let mut old = path.as_os_str().to_owned();
        old.push(".1");
        let _ = std::fs::rename(path, old);
    }
    if let Ok(mut f) = git_skill::fsutil::open_append(path) {
        let _ = writeln!(f, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<std::ffi::OsString> {
        words.iter().map(Into::into).collect()
    }

    #[test]
    fn the_fast_path_takes_only_hook_agent_and_what_it_accepts() {
        let args = fast_args(argv(&[
            "git-skill",
            "hook",
            "agent",
            "--agent",
            "copilot",
            "--strict",
            "sessionEnd",
        ]))
        .unwrap();
        assert_eq!(args.agent, Some(Agent::Copilot));
        assert!(args.strict);
        assert_eq!(args.event.as_deref(), Some("sessionEnd"));
        assert!(fast_args(argv(&["git-skill", "hook", "agent"])).is_some_and(|a| a.agent.is_none()));
        for other in [
            &["git-skill", "hook", "pre-commit"][..],
            &["git-skill", "--quiet", "hook", "agent"],
            &["git-skill", "hook", "agent", "--agent", "nobody"],
            &["git-skill", "hook", "agent", "--help"],
            &["git-skill"],
        ] {
            assert!(fast_args(argv(other)).is_none(), "{other:?}");
        }
    }
}
