//! The coding agents whose sessions git-skill reviews: their hook payloads, their transcripts,
//! the settings `init` writes. What each agent loads and where its files are is the registry's
//! ([`crate::registry`]); this module holds what git-skill does with the agents that have hooks.
//! It decides (a [`session::Decision`]) and never starts a review itself: the binary does.

pub mod event;
pub mod prewrite;
pub mod quarantine;
pub mod seal;
pub mod session;
pub mod settings;
pub mod transcript;
pub mod watch;
pub mod writes;

use std::fmt;

/// A supported agent CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Qwen,
    Codex,
    Gemini,
    Copilot,
}

impl Agent {
    pub const ALL: [Agent; 5] = [
        Agent::Claude,
        Agent::Qwen,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Qwen => "qwen",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
        }
    }

    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.as_str().eq_ignore_ascii_case(name))
    }

    /// Its entry in the agent registry: files, hooks, CLI.
    pub fn spec(self) -> &'static crate::registry::Agent {
        let id = match self {
            Agent::Claude => "claude-code",
            Agent::Qwen => "qwen",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
        };
        crate::registry::agent(id).expect("every agent with hooks is in the registry")
    }

    /// The product name, for messages.
    pub fn product(self) -> &'static str {
        self.spec().product
    }

    /// The hooks `init` installs for it, as the registry has them.
    pub fn hooks(self) -> &'static crate::registry::Hooks {
        self.spec()
            .hooks
            .as_ref()
            .expect("every agent init knows has hooks in the registry")
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
