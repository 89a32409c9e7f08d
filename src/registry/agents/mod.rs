//! One file per agent. The order of [`ALL`] is the order agents are listed to people.

use super::{Agent, Effect, Key};

mod aider;
mod amp;
mod claude_code;
mod cline;
mod codex;
mod continue_dev;
mod copilot;
mod cursor;
mod gemini;
mod junie;
mod kiro;
mod opencode;
mod qwen;
mod roo;
mod windsurf;
mod workspace;
mod zed;

pub use claude_code::{PLUGIN_DIRS, PLUGIN_LAYOUT};

pub static ALL: &[&Agent] = &[
    &claude_code::AGENT,
    &codex::AGENT,
    &gemini::AGENT,
    &qwen::AGENT,
    &copilot::AGENT,
    &cursor::AGENT,
    &opencode::AGENT,
    &windsurf::AGENT,
    &cline::AGENT,
    &roo::AGENT,
    &kiro::AGENT,
    &continue_dev::AGENT,
    &aider::AGENT,
    &junie::AGENT,
    &zed::AGENT,
    &amp::AGENT,
    &workspace::AGENT,
];

/// The common shape of MCP configuration files (`.mcp.json`, `.cursor/mcp.json`,
/// `.roo/mcp.json`...): an object of servers under `mcpServers`.
pub const MCP_SERVERS: &[Key] = &[Key::new("mcpServers", Effect::McpServers)];
