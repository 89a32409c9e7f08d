//! Editor and workspace files that run commands when a folder is opened: not an agent, but
//! what an agent's change to them does runs on a person's machine without a question.

use crate::registry::{Agent, Effect, File, Key, Kind};

/// `.vscode/tasks.json`: a task with `runOptions.runOn: folderOpen` (or `worktreeCreated`) runs
/// when the folder opens, in a trusted workspace; Cursor and Windsurf share the format.
/// (Each task's `command` and `args` are read as every settings file's commands are.)
const TASKS: &[Key] = &[];

/// `.devcontainer/devcontainer.json`: its lifecycle commands (a string, an array, or an object
/// of either) run when the container is made and started; `initializeCommand` on the host.
const DEVCONTAINER: &[Key] = &[
    Key::new("initializeCommand", Effect::Argv),
    Key::new("onCreateCommand", Effect::Argv),
    Key::new("updateContentCommand", Effect::Argv),
    Key::new("postCreateCommand", Effect::Argv),
    Key::new("postStartCommand", Effect::Argv),
    Key::new("postAttachCommand", Effect::Argv),
    Key::new("containerEnv", Effect::Env),
    Key::new("remoteEnv", Effect::Env),
];

/// `.vscode/mcp.json` (VS Code, Copilot): servers under `servers`.
pub(super) const VSCODE_MCP: &[Key] = &[Key::new("servers", Effect::McpServers)];

pub static AGENT: Agent = Agent {
    id: "workspace",
    product: "editor workspace",
    files: &[
        File::new(".vscode/tasks.json", Kind::JsonSettings).with_keys(TASKS),
        File::new(".vscode/mcp.json", Kind::JsonSettings).with_keys(VSCODE_MCP),
        File::new(".devcontainer/**/devcontainer.json", Kind::JsonSettings).with_keys(DEVCONTAINER),
        File::new(".devcontainer.json", Kind::JsonSettings).with_keys(DEVCONTAINER),
        // direnv runs it in the shell when the folder is entered (once allowed).
        File::new(".envrc", Kind::Script),
    ],
    skill_dirs: &[],
    bare_skill_files: false,
    user_files: &[],
    cli: None,
    hooks: None,
    verified: "the formats' documentation (code.visualstudio.com tasks and MCP, containers.dev JSON reference, direnv.net)",
};
