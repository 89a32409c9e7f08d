//! `git skill hook agent`: what an agent's hook runs. Before a tool call it runs the pre-write
//! guard (`ops::agent_guard`), and refuses a dangerous write in the agent's own protocol; after
//! one it counts the session's tool calls and, when a busy session ends, starts `git skill
//! review` detached and returns at once. A problem never fails the agent: it is logged
//! (`$GIT_DIR/skill/sessions/hook.log`, and one line on stderr) and it exits 0 with nothing on
//! stdout, which an agent may read as instructions; `--strict` makes problems errors, for
//! debugging.

use std::io::{Read as _, Write as _};

use git_skill::agent::event::{self, Phase, MAX_PAYLOAD_BYTES};
use git_skill::agent::Agent;
use git_skill::ops::agent_hook as op;

use crate::cli::{CommandError, Outcome, Ui, Workspace};

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
        Ok(None) => Ok(Outcome::Clean),
        Ok(Some(Reply::Refuse(agent, reason))) => refuse(ui, agent, &reason),
        Ok(Some(Reply::TakenOut(agent, reason))) => taken_out(ui, agent, &reason),
        Err(problem) if args.strict => Err(CommandError::new(problem.message)),
        // Before a tool call, a guard that could not look refuses: nothing passes unchecked.
        Err(Problem {
            message,
            refuse_for: Some(agent),
        }) => refuse(
            ui,
            agent,
            &format!(
                "git-skill could not check this tool call, so it is refused rather than let through unchecked: {}. Fix the cause (git skill doctor shows it); a person can make the change by hand meanwhile.",
                crate::cli::ui::safe(&message)
            ),
        ),
        Err(Problem { message: problem, .. }) => {
            // One line for the person who watches the agent's log; the agent goes on.
            let _ = writeln!(ui.err, "git-skill hook: {}", crate::cli::ui::safe(&problem));
            Ok(Outcome::Clean)
        }
    }
}

/// Refuses the tool call the way `agent` reads a refusal: Copilot from a JSON decision on
/// stdout; the others from exit status 2, the reason on stderr (which they give the model).
/// What the hook answers the agent.
enum Reply {
    /// Before a call: it does not run.
    Refuse(Agent, String),
    /// After a call: what it wrote was taken out, and the model is told.
    TakenOut(Agent, String),
}

/// Tells the model, after a call, what was taken out of what it wrote, the way `agent` hands a
/// post-tool hook's words to its model: Qwen Code from a JSON `decision: block` on stdout,
/// Copilot CLI from `additionalContext`; Claude Code, Codex and Gemini CLI from exit status 2,
/// the reason on stderr.
fn taken_out(ui: &mut Ui, agent: Agent, reason: &str) -> Result<Outcome, CommandError> {
    let reply = match agent {
        Agent::Qwen => serde_json::json!({
            "decision": "block",
            "reason": reason,
            "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": reason},
        }),
        Agent::Copilot => serde_json::json!({"additionalContext": reason}),
        _ => {
            writeln!(ui.err, "{}", crate::cli::ui::safe(reason))?;
            return Ok(Outcome::Refused);
        }
    };
    writeln!(ui.out, "{reply}")?;
    Ok(Outcome::Clean)
}

fn refuse(ui: &mut Ui, agent: Agent, reason: &str) -> Result<Outcome, CommandError> {
    if agent == Agent::Copilot {
        let decision = serde_json::json!({
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        });
        writeln!(ui.out, "{decision}")?;
        return Ok(Outcome::Clean);
    }
    writeln!(ui.err, "{}", crate::cli::ui::safe(reason))?;
    Ok(Outcome::Refused)
}

/// What kept the hook from doing its work; `refuse_for` names the agent whose tool call is
/// refused for it (before a tool call, or when the event cannot be told).
struct Problem {
    message: String,
    refuse_for: Option<Agent>,
}

fn run(ui: &mut Ui, args: &AgentHookArgs) -> Result<Option<Reply>, Problem> {
    // Until the event is known, a problem refuses for the agent the command line names.
    let mut refuse_for = args.agent;
    run_event(ui, args, &mut refuse_for).map_err(|message| Problem {
        message,
        refuse_for,
    })
}

fn run_event(
    ui: &mut Ui,
    args: &AgentHookArgs,
    refuse_for: &mut Option<Agent>,
) -> Result<Option<Reply>, String> {
    let steering: Vec<std::ffi::OsString> = std::env::vars_os()
        .map(|(k, _)| k)
        .filter(|k| k.to_str().is_some_and(event::steers_the_hook))
        .collect();
    for name in steering {
        // Before any thread starts: nothing else reads the environment yet.
        std::env::remove_var(name);
    }
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
        if !event::may_be_before_tool(&bytes, args.agent, args.event.as_deref()) {
            *refuse_for = None;
        }
        return Err(format!(
            "the hook payload has more than {} MiB, more than the guard reads; write a file that large by hand",
            MAX_PAYLOAD_BYTES >> 20
        ));
    }
    let vars = |k: &str| std::env::var(k).ok();
    let event = event::parse(&bytes, args.agent, args.event.as_deref(), &vars).map_err(|e| {
        // A payload that cannot be read refuses only when it may be a pre-tool event: one
        // that names another event (a session's end) is only logged.
        if !event::may_be_before_tool(&bytes, args.agent, args.event.as_deref()) {
            *refuse_for = None;
        }
        e.to_string()
    })?;
    // Known now: only a pre-tool event's problem refuses the call.
    *refuse_for = (event.phase == Phase::BeforeTool).then_some(event.agent);
    if !matches!(
        event.phase,
        Phase::BeforeTool | Phase::ToolUsed | Phase::SessionEnd | Phase::TurnEnd
    ) {
        return Ok(None);
    }
    if let Some(cwd) = git_skill::agent::writes::session_top(&event) {
        std::env::set_current_dir(&cwd)
            .map_err(|e| format!("cannot enter '{}': {e}", cwd.display()))?;
    }
    let ws = Workspace::load(ui).map_err(|e| format!("{:#}", e.error))?;
    git_skill::clock::check().map_err(|e| e.to_string())?;
    // What changed since the session's last event, however it was written, before anything
    // else: a dangerous change is taken out before the agent can load it.
    let now = git_skill::clock::now();
    let watched = git_skill::ops::agent_watch::run(&ws, &event, now);
    git_skill::ops::agent_watch::log(&ws, &event, &watched, now);
    let taken = match &watched {
        Ok(w) => w.reason(),
        // Before a call, a watch that could not look refuses it (held lock, unwritable state):
        // what the last call wrote was not judged.
        Err(e) if event.phase == Phase::BeforeTool => {
            return Err(format!("the watch could not look at what changed: {e}"))
        }
        Err(_) => None,
    };
    if event.phase == Phase::BeforeTool {
        use git_skill::ops::agent_guard::{self as guard, Guarded};
        if let Some(reason) = taken {
            return Ok(Some(Reply::Refuse(
                event.agent,
                format!("{reason} This tool call was not run; run it again if it is still needed."),
            )));
        }
        return Ok(match guard::run(&ws, &event, now) {
            Guarded::Allow { .. } => None,
            Guarded::Deny { reason } => Some(Reply::Refuse(event.agent, reason)),
        });
    }
    if let (Some(reason), Phase::ToolUsed) = (&taken, event.phase) {
        // Counted as any call, then refused: the model reads why its write is gone.
        let options = op::Options {
            vars: &vars,
            inside_review: std::env::var_os("GIT_SKILL_PURPOSE").is_some(),
            now,
            spawner: &op::Detached,
        };
        let _ = op::run(&ws, &event, &options);
        return Ok(Some(Reply::TakenOut(event.agent, reason.clone())));
    }
    let options = op::Options {
        vars: &vars,
        inside_review: std::env::var_os("GIT_SKILL_PURPOSE").is_some(),
        now,
        spawner: &op::Detached,
    };
    op::run(&ws, &event, &options).map_err(|e| e.to_string())?;
    Ok(None)
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
