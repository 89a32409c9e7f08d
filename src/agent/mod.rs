//! What git-skill knows about the coding agents whose sessions it reviews: their names, their
//! hook payloads, their transcripts, where they keep their settings. This is the one place
//! agent-specific facts live. It decides (a [`session::Decision`]) and never starts a review
//! itself: the binary does.

pub mod event;
pub mod prewrite;
pub mod session;
pub mod settings;
pub mod transcript;
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

    /// The product name, for messages.
    pub fn product(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Qwen => "Qwen Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Copilot => "Copilot CLI",
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
