//! A settings file read for what it does: the registry says what each key means
//! ([`crate::registry::keys`]), and every settings file is also read for what is named like a
//! command or a prompt ([`crate::registry::keys::GENERIC`]). The reading gives the text to
//! scan (shell, PowerShell, prose, each where it sits), the findings that a key's meaning
//! gives by itself (a hook switched off, a key sent elsewhere), and the files it brings in
//! (scripts, servers' code, instructions, plugins) for the closure.

use super::judge;
use super::value::{Str, Value};
use crate::registry::{Effect, Key, Kind};

/// How a piece of a settings file is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Run by a shell.
    Shell,
    /// Run by PowerShell (Copilot's `powershell` hooks).
    PowerShell,
    /// Read by the model.
    Prose,
}

/// A string of a settings file that something uses, and where its value starts.
#[derive(Debug, Clone)]
pub struct Piece {
    pub text: String,
    pub how: How,
    /// Byte offset of the value in the file.
    pub at: usize,
    /// See [`Str::lines_below`].
    pub lines_below: Option<usize>,
}

/// A finding a key's meaning gives by itself.
#[derive(Debug, Clone)]
pub struct Hit {
    pub rule: &'static crate::guard::Rule,
    /// Byte offset of the value in the file.
    pub at: usize,
    /// What the finding quotes (`disableAllHooks: true`).
    pub evidence: String,
    /// What to add to the rule's message (`ANTHROPIC_BASE_URL to api.example.net`).
    pub detail: String,
}

/// What a reference is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Base {
    /// The folder of the file that names it.
    File,
    /// The project the settings belong to: the folder holding the agent's folder
    /// (`pkg` for `pkg/.claude/settings.json`), where the agent runs its commands.
    Project,
    /// The plugin the file belongs to: the folder holding its manifest's folder.
    Plugin,
}

/// What a reference names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A file (or, with a `*`, files) read as this kind.
    Files(String, Kind),
    /// A file name read as instructions wherever the agent looks for its own.
    InstructionName(String),
    /// A plugin's folder (a marketplace's `source`).
    Plugin(String),
    /// A command line: the files it runs are reached (scripts, servers' code).
    Command(String),
}

/// A file (or files) a settings file brings in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    pub target: Target,
    pub base: Base,
    /// Byte offset of the value that names it.
    pub at: usize,
    /// How it is brought in (`MCP server`, `output style`), for reports.
    pub how: &'static str,
}

/// A settings file's reading.
#[derive(Debug, Default)]
pub struct Reading {
    pub pieces: Vec<Piece>,
    pub hits: Vec<Hit>,
    pub references: Vec<Reference>,
}

/// Reads `value` (a settings file of `kind`) with the keys `keys` (the registry's for its
/// path) and the generic ones.
pub fn read(value: &Value, keys: &[&'static Key]) -> Reading {
    let mut walk = Walk {
        keys: keys
            .iter()
            .copied()
            .chain(crate::registry::keys::GENERIC)
            .collect(),
        out: Reading::default(),
        marketplaces: Vec::new(),
        plugins: Vec::new(),
    };
    let mut path = Vec::new();
    walk.visit(value, &mut path, &[], 0);
    // Plugins are judged once every marketplace of the file is known.
    let local: Vec<String> = std::mem::take(&mut walk.marketplaces);
    for (name, at) in std::mem::take(&mut walk.plugins) {
        let market = name.rsplit_once('@').map_or("", |(_, m)| m);
        if !local.iter().any(|m| m == market) && !judge::anthropic_marketplace(market) {
            walk.out.hits.push(Hit {
                rule: &crate::guard::rules::agent_config::CFG008,
                at,
                evidence: format!("{name}: true"),
                detail: name.clone(),
            });
        }
    }
    walk.out
}

struct Walk {
    keys: Vec<&'static Key>,
    out: Reading,
    /// Marketplaces of this file whose source is in the repository, by name.
    marketplaces: Vec<String>,
    /// Plugins enabled, with where.
    plugins: Vec<(String, usize)>,
}

impl Walk {
    /// Visits `value` at `path`; `done` are the keys already applied to the array it is an
    /// item of (an array's items have its path: a key applies to the array once).
    fn visit<'v>(
        &mut self,
        value: &'v Value,
        path: &mut Vec<&'v str>,
        done: &[&'static Key],
        depth: usize,
    ) {
        if depth > super::value::MAX_DEPTH {
            return;
        }
        let effects: Vec<&'static Key> = self
            .keys
            .iter()
            .copied()
            .filter(|k| k.matches(path) && !done.contains(k))
            .collect();
        for key in &effects {
            self.apply(key, value, path);
        }
        // What generic keys made pieces of is not read again below (an MCP server's command
        // is one line with its arguments).
        match value {
            Value::Object(entries) => {
                let command_line = command_with_args(value);
                for (k, v) in entries {
                    if k == "command" && command_line.is_some() {
                        continue;
                    }
                    path.push(k);
                    self.visit(v, path, &[], depth + 1);
                    path.pop();
                }
                if let Some(piece) = command_line {
                    self.push_command(piece);
                }
            }
            Value::Array(items) => {
                let done: Vec<&'static Key> = done.iter().chain(&effects).copied().collect();
                for item in items {
                    self.visit(item, path, &done, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn push_command(&mut self, piece: Piece) {
        self.out.references.push(Reference {
            target: Target::Command(piece.text.clone()),
            base: Base::Project,
            at: piece.at,
            how: "command",
        });
        self.out.pieces.push(piece);
    }

    fn text_piece(&mut self, s: &Str, how: How) {
        let piece = Piece {
            text: s.text.clone(),
            how,
            at: s.at,
            lines_below: s.lines_below,
        };
        if how == How::Prose {
            self.out.pieces.push(piece);
        } else {
            self.push_command(piece);
        }
    }

    fn hit(
        &mut self,
        rule: &'static crate::guard::Rule,
        at: usize,
        evidence: String,
        detail: String,
    ) {
        self.out.hits.push(Hit {
            rule,
            at,
            evidence,
            detail,
        });
    }

    fn apply(&mut self, key: &Key, value: &Value, path: &[&str]) {
        use crate::guard::rules::agent_config::{CFG001, CFG005, CFG007, CFG009, CFG010};
        let name = path.last().copied().unwrap_or("");
        match key.effect {
            Effect::Shell | Effect::PowerShell => {
                let how = if key.effect == Effect::Shell {
                    How::Shell
                } else {
                    How::PowerShell
                };
                match value {
                    // A program and its arguments (OpenCode's `["node", "x.js"]`).
                    Value::Array(_) if how == How::Shell => {
                        if let Some(piece) = argv_piece(value) {
                            self.push_command(piece);
                        }
                    }
                    _ => {
                        for s in value.strings() {
                            self.text_piece(s, how);
                        }
                    }
                }
            }
            Effect::Argv => match value {
                // A program and its arguments, or a command line.
                Value::Array(_) => {
                    if let Some(piece) = argv_piece(value) {
                        self.push_command(piece);
                    }
                }
                Value::Str(s) => self.text_piece(s, How::Shell),
                // Devcontainer commands as an object of named commands.
                Value::Object(entries) => {
                    for (_, v) in entries {
                        match v {
                            Value::Str(s) => self.text_piece(s, How::Shell),
                            Value::Array(_) => {
                                if let Some(piece) = argv_piece(v) {
                                    self.push_command(piece);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            },
            Effect::Prose => {
                for s in value.strings() {
                    self.text_piece(s, How::Prose);
                }
            }
            Effect::Env => match value {
                Value::Object(vars) => {
                    for (var, v) in vars {
                        if let Some(s) = v.as_str() {
                            self.env(var, s);
                        }
                    }
                }
                // `NAME=value` strings (Aider's `set-env`).
                other => {
                    for s in other.strings() {
                        if let Some((var, val)) = s.text.split_once('=') {
                            let one = Str {
                                text: val.to_owned(),
                                at: s.at,
                                lines_below: s.lines_below,
                            };
                            self.env(var.trim(), &one);
                        }
                    }
                }
            },
            Effect::EnvFiles => {
                for s in value.strings() {
                    self.reference(
                        Target::Files(s.text.clone(), Kind::EnvFile),
                        Base::Project,
                        s.at,
                        "env file",
                    );
                }
            }
            Effect::Endpoint => {
                if let Some(s) = value.as_str() {
                    // The vendor's word: a provider the setting names by a known name (`azure`
                    // in `model_providers.azure.base_url`); a name of the repository's choosing
                    // (`[model_providers.evil]`) vouches for nothing.
                    let owner = judge::endpoint_owner(path);
                    if let Some(detail) = judge::foreign_endpoint(owner, &s.text) {
                        self.hit(
                            &crate::guard::rules::agent_config::CFG003,
                            s.at,
                            format!("{name}: {}", s.text),
                            detail,
                        );
                    }
                }
            }
            Effect::InstructionFiles => {
                for s in value.strings() {
                    if judge::is_url(&s.text) {
                        self.hit(&CFG010, s.at, s.text.clone(), s.text.clone());
                    } else {
                        self.reference(
                            Target::Files(s.text.clone(), Kind::Instructions),
                            Base::Project,
                            s.at,
                            "instructions",
                        );
                    }
                }
            }
            Effect::InstructionNames => {
                for s in value.strings() {
                    self.reference(
                        Target::InstructionName(s.text.clone()),
                        Base::Project,
                        s.at,
                        "instruction file name",
                    );
                }
            }
            Effect::OutputStyle => {
                if let Some(s) = value.as_str() {
                    self.reference(
                        Target::Files(format!("output-styles/{}.md", s.text), Kind::Instructions),
                        Base::File,
                        s.at,
                        "output style",
                    );
                }
            }
            Effect::McpServers => match value {
                Value::Object(servers) => {
                    for (name, server) in servers {
                        self.server(name, server);
                    }
                }
                Value::Array(servers) => {
                    for server in servers {
                        let name = server.get("name").and_then(Value::as_text).unwrap_or("");
                        self.server(name, server);
                    }
                }
                _ => {}
            },
            Effect::McpServer => self.server(name, value),
            Effect::Widens => {
                let values: Vec<&Value> = match value {
                    Value::Array(items) => items.iter().collect(),
                    Value::Object(entries) if key.when.is_empty() => {
                        entries.iter().map(|(_, v)| v).collect()
                    }
                    other => vec![other],
                };
                for v in values {
                    if let Some(text) = v.as_text() {
                        if key.applies_to(text) {
                            self.hit(
                                &CFG005,
                                v.at(),
                                format!("{name}: {text}"),
                                format!("{name}: {text}"),
                            );
                        }
                    }
                }
            }
            Effect::DisablesHooks => {
                let text = match value {
                    Value::Array(items) if items.is_empty() => None,
                    Value::Array(_) | Value::Object(_) => Some("[...]".to_owned()),
                    other => other.as_text().map(str::to_owned),
                };
                if let Some(text) = text.filter(|t| key.applies_to(t)) {
                    self.hit(
                        &CFG001,
                        value.at(),
                        format!("{name}: {text}"),
                        format!("{name}: {text}"),
                    );
                }
            }
            Effect::Marketplaces => {
                if let Value::Object(markets) = value {
                    for (market, entry) in markets {
                        match judge::marketplace_source(entry) {
                            judge::Source::Local(dir) => {
                                self.marketplaces.push(market.clone());
                                self.reference(
                                    Target::Plugin(dir),
                                    Base::Project,
                                    entry.at(),
                                    "marketplace",
                                );
                            }
                            judge::Source::Anthropic => {}
                            judge::Source::Remote(what) => self.hit(
                                &CFG007,
                                entry.at(),
                                format!("{market}: {what}"),
                                format!("{market} ({what})"),
                            ),
                        }
                    }
                }
            }
            Effect::Plugins => match value {
                Value::Object(plugins) => {
                    for (plugin, on) in plugins {
                        if on.as_text() == Some("true") {
                            self.plugins.push((plugin.clone(), on.at()));
                        }
                    }
                }
                Value::Array(items) => {
                    for s in items.iter().filter_map(Value::as_str) {
                        self.plugins.push((s.text.clone(), s.at));
                    }
                }
                _ => {}
            },
            Effect::Code => {
                for s in value.strings() {
                    if judge::is_local_path(&s.text) {
                        self.reference(
                            Target::Files(s.text.clone(), Kind::Script),
                            Base::Project,
                            s.at,
                            "plugin",
                        );
                    } else {
                        self.hit(&CFG009, s.at, s.text.clone(), s.text.clone());
                    }
                }
            }
            Effect::PluginPaths(kind) => {
                for s in value.strings() {
                    self.reference(
                        Target::Files(s.text.clone(), kind),
                        Base::Plugin,
                        s.at,
                        "plugin manifest",
                    );
                }
            }
            Effect::MarketplacePlugins => {
                if let Value::Array(entries) = value {
                    for entry in entries {
                        self.market_entry(entry);
                    }
                }
            }
        }
    }

    fn reference(&mut self, target: Target, base: Base, at: usize, how: &'static str) {
        self.out.references.push(Reference {
            target,
            base,
            at,
            how,
        });
    }

    /// One environment variable the agent, a hook or a server runs with.
    fn env(&mut self, var: &str, value: &Str) {
        for (rule, detail) in judge::env(var, &value.text) {
            self.hit(rule, value.at, format!("{var}={}", value.text), detail);
        }
        if judge::command_variable(var) {
            self.text_piece(value, How::Shell);
        }
        if let Some(path) = judge::system_prompt_file(var, &value.text) {
            self.reference(
                Target::Files(path, Kind::Instructions),
                Base::Project,
                value.at,
                "system prompt",
            );
        }
    }

    /// One MCP server: its environment, where a remote one sends credentials, what it is
    /// allowed without asking.
    fn server(&mut self, name: &str, server: &Value) {
        use crate::guard::rules::agent_config::{CFG005, CFG006};
        for env_key in ["env", "environment"] {
            if let Some(Value::Object(vars)) = server.get(env_key) {
                for (var, v) in vars {
                    if let Some(s) = v.as_str() {
                        self.env(var, s);
                    }
                }
            }
        }
        if let Some(s) = server.get("headersHelper").and_then(Value::as_str) {
            self.text_piece(s, How::Shell);
        }
        if let Some((detail, at)) = judge::remote_credential(name, server) {
            self.hit(&CFG006, at, detail.clone(), detail);
        }
        for (key, widens) in [("trust", "true"), ("alwaysAllow", ""), ("autoApprove", "")] {
            let Some(v) = server.get(key) else { continue };
            let on = match v {
                Value::Array(items) => !items.is_empty(),
                other => other
                    .as_text()
                    .is_some_and(|t| widens.is_empty() || t == widens),
            };
            if on {
                let evidence = format!("{name}: {key}");
                self.hit(&CFG005, v.at().max(server.at()), evidence.clone(), evidence);
            }
        }
    }

    /// One plugin of a marketplace: its folder, and with `strict: false` the paths the entry
    /// gives for its commands, agents, hooks and servers (relative to that folder).
    fn market_entry(&mut self, entry: &Value) {
        let Some(source) = entry.get("source").and_then(Value::as_str) else {
            return;
        };
        if !judge::is_local_path(&source.text) {
            return;
        }
        let dir = source.text.trim_end_matches('/').to_owned();
        self.reference(
            Target::Plugin(dir.clone()),
            Base::Plugin,
            source.at,
            "marketplace entry",
        );
        for (key, kind) in [
            ("commands", Kind::Command),
            ("agents", Kind::Command),
            ("outputStyles", Kind::Instructions),
            ("hooks", Kind::JsonSettings),
            ("mcpServers", Kind::JsonSettings),
            ("lspServers", Kind::JsonSettings),
        ] {
            if let Some(v) = entry.get(key) {
                for s in v.strings() {
                    let path = s.text.trim_start_matches("./");
                    self.reference(
                        Target::Files(format!("{dir}/{path}"), kind),
                        Base::Plugin,
                        s.at,
                        "marketplace entry",
                    );
                }
            }
        }
    }
}

/// An object's `command` (a string) with its `args`, as one shell line each argument quoted
/// as it is passed.
fn command_with_args(value: &Value) -> Option<Piece> {
    let command = value.get("command")?.as_str()?;
    let args = value.get("args")?;
    let Value::Array(items) = args else {
        return None;
    };
    let args: Vec<&str> = items.iter().filter_map(Value::as_text).collect();
    Some(Piece {
        text: command_line(&command.text, &args),
        how: How::Shell,
        at: command.at,
        lines_below: None,
    })
}

/// An array `[program, args...]` as one shell line.
fn argv_piece(value: &Value) -> Option<Piece> {
    let strings = value.strings();
    let (program, args) = strings.split_first()?;
    let args: Vec<&str> = args.iter().map(|s| s.text.as_str()).collect();
    Some(Piece {
        text: command_line(&program.text, &args),
        how: How::Shell,
        at: program.at,
        lines_below: None,
    })
}

/// A program and its arguments as one shell line, each argument quoted as it is passed.
pub fn command_line(program: &str, args: &[&str]) -> String {
    let mut line = program.to_owned();
    for a in args {
        line.push(' ');
        line.push('\'');
        line.push_str(&a.replace('\'', "'\\''"));
        line.push('\'');
    }
    line
}
