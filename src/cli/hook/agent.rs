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
        Ok(Some((agent, reason))) => refuse(ui, agent, &reason),
        Err(problem) if args.strict => Err(CommandError::new(problem)),
        Err(problem) => {
            // One line for the person who watches the agent's log; the agent goes on.
            let _ = writeln!(ui.err, "git-skill hook: {}", crate::cli::ui::safe(&problem));
            Ok(Outcome::Clean)
        }
    }
}

/// Refuses the tool call the way `agent` reads a refusal: Copilot from a JSON decision on
/// stdout; the others from exit status 2, the reason on stderr (which they give the model).
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

/// The refusal of the tool call (its agent and the reason), when the pre-write guard refuses it.
fn run(ui: &mut Ui, args: &AgentHookArgs) -> Result<Option<(Agent, String)>, String> {
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
    let vars = |k: &str| std::env::var(k).ok();
    let event = event::parse(&bytes, args.agent, args.event.as_deref(), &vars)
        .map_err(|e| e.to_string())?;
    if !matches!(
        event.phase,
        Phase::BeforeTool | Phase::ToolUsed | Phase::SessionEnd | Phase::TurnEnd
    ) {
        return Ok(None);
    }
    // The repository is the one the agent works in.
    if let Some(cwd) = event.cwd.as_deref().filter(|c| c.is_dir()) {
        std::env::set_current_dir(cwd)
            .map_err(|e| format!("cannot enter '{}': {e}", cwd.display()))?;
    }
    let ws = Workspace::load(ui).map_err(|e| format!("{:#}", e.error))?;
    git_skill::clock::check().map_err(|e| e.to_string())?;
    if event.phase == Phase::BeforeTool {
        use git_skill::ops::agent_guard::{self as guard, Guarded};
        return Ok(match guard::run(&ws, &event, git_skill::clock::now()) {
            Guarded::Allow { .. } => None,
            Guarded::Deny { reason } => Some((event.agent, reason)),
        });
    }
    let options = op::Options {
        vars: &vars,
        inside_review: std::env::var_os("GIT_SKILL_PURPOSE").is_some(),
        now: git_skill::clock::now(),
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
