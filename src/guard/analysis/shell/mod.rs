//! Shell (bash, sh, zsh) on its syntax tree: every command with its name and arguments as the
//! shell would see them (quotes removed, `$'\x..'` and `printf` spellings decoded, constant
//! variables propagated through the file, `sudo`/`env`/`xargs`/`sh -c` unwrapped), what each
//! command reads and writes, and what flows between commands through pipes, substitutions and
//! variables. The rules on commands are in [`commands`].

mod commands;
mod installs;
mod words;

use std::collections::HashMap;

use tree_sitter::Node;

use super::taint::Taint;
use super::Hit;
pub use words::decode_escapes;
use words::Value;

/// `sh -c` and `eval` strings parsed as shell, at most this deep.
const MAX_NESTING: usize = 3;
/// Syntax nodes visited per region: error recovery on text that is not shell can make trees
/// with many nodes, and the walk must stay linear.
const MAX_NODES: usize = 200_000;
/// Syntax nesting followed: deeper parts of a tree (`$($($(...)))` a thousand times) are
/// not looked into, so the walk's recursion stays within the stack.
const MAX_DEPTH: usize = 200;
/// Variables remembered per file.
const MAX_VARS: usize = 4_096;

/// Commands recorded by [`commands`].
const MAX_RECORDED: usize = 1_024;

/// Every command `text` runs, in order, as the shell would see it: wrappers (`sudo`, `env`,
/// `sh -c`) unwrapped, quotes removed, constant variables filled in, with its redirections
/// and here-document. A compound statement's own redirections (`{ ...; } > f`) are a command
/// with an empty name. For reading what a command line writes (the pre-write guard).
pub fn commands(text: &str) -> Vec<Command> {
    let mut walk = Walk {
        src: text,
        vars: HashMap::new(),
        downloaded: Default::default(),
        remotes: HashMap::new(),
        out: &mut Vec::new(),
        nodes: 0,
        depth: 0,
        level: 0,
        pipe_start: None,
        base: 0,
        record: Some(Vec::new()),
    };
    walk.script(text);
    walk.record.unwrap_or_default()
}

/// Parses `text` as shell and appends the hits of the command rules, with offsets in `text`.
pub fn analyze(text: &str, out: &mut Vec<Hit>) {
    Session::default().analyze(text, out);
}

/// What a shell remembers from one script to the next. A SKILL.md's code blocks are pasted
/// into one terminal, in order: a secret read into a variable in one block is sent by a curl
/// in a later one, a file downloaded in one is run in another. Each block is parsed on its
/// own (an unbalanced quote in one block does not swallow the next), and the walk goes on
/// with the variables and downloaded files the earlier blocks left.
#[derive(Default)]
pub struct Session {
    vars: HashMap<String, Value>,
    downloaded: commands::Downloads,
    remotes: HashMap<String, String>,
}

impl Session {
    /// Analyzes the next script of the session; hits have offsets in `text`.
    pub fn analyze(&mut self, text: &str, out: &mut Vec<Hit>) {
        // Where earlier blocks downloaded means nothing in this one.
        self.downloaded.values_mut().for_each(|at| *at = None);
        let mut walk = Walk {
            src: text,
            vars: std::mem::take(&mut self.vars),
            downloaded: std::mem::take(&mut self.downloaded),
            remotes: std::mem::take(&mut self.remotes),
            out,
            nodes: 0,
            depth: 0,
            level: 0,
            pipe_start: None,
            base: 0,
            record: None,
        };
        walk.script(text);
        self.vars = walk.vars;
        self.downloaded = walk.downloaded;
        self.remotes = walk.remotes;
    }
}

pub(crate) fn parse(text: &str) -> Option<tree_sitter::Tree> {
    super::parse::parse(super::parse::Grammar::Bash, text)
}

/// A command as the shell runs it.
#[derive(Debug, Clone)]
pub struct Command {
    /// The program's name without its directory (`/usr/bin/curl` -> `curl`).
    pub name: String,
    /// How the name was spelled.
    pub name_value: Value,
    pub args: Vec<Value>,
    /// What its standard input carries (the previous command of a pipeline, `< file`).
    pub stdin: Taint,
    /// Files it writes through redirections (`>`, `>>`, `&>`), with the text written when
    /// known (a here-document, `echo`'s arguments).
    pub writes: Vec<Value>,
    /// For each of `writes`, whether it appends (`>>`, `&>>`).
    pub appends: Vec<bool>,
    /// Text it reads from a here-document or here-string.
    pub heredoc: Option<Value>,
    /// Byte range of the whole command in the file.
    pub start: usize,
    /// Where the pipeline it is a stage of starts: what flows in through standard input is
    /// reported there, on the line that fetched or read it.
    pub flow_start: usize,
    pub end: usize,
}

struct Walk<'s, 'o> {
    src: &'s str,
    /// Variables assigned so far, by name: constant propagation in file order.
    vars: HashMap<String, Value>,
    /// Files a download wrote (`curl -o F`, `wget -O F`, `curl ... > F`), to catch running
    /// them later.
    downloaded: commands::Downloads,
    /// Git remotes added so far (`git remote add NAME URL`), to catch a push to them.
    remotes: HashMap<String, String>,
    out: &'o mut Vec<Hit>,
    nodes: usize,
    depth: usize,
    /// How deep in the syntax tree the walk is.
    level: usize,
    /// The start of the pipeline being walked.
    pipe_start: Option<usize>,
    /// Offset of `src` in the analysed region (nested `sh -c` strings report at their
    /// command).
    base: usize,
    /// Every command run, in order, when asked for ([`commands`]).
    record: Option<Vec<Command>>,
}

impl<'s> Walk<'s, '_> {
    fn script(&mut self, text: &str) {
        let Some(tree) = parse(text) else { return };
        self.statement(tree.root_node(), &Taint::default());
    }

    fn text(&self, node: Node) -> &'s str {
        &self.src[node.byte_range()]
    }

    fn budget(&mut self) -> bool {
        self.nodes += 1;
        self.nodes <= MAX_NODES
    }

    /// Walks a statement; returns what it writes to standard output.
    fn statement(&mut self, node: Node, stdin: &Taint) -> Taint {
        if !self.budget() || self.level >= MAX_DEPTH {
            return Taint::default();
        }
        self.level += 1;
        let out = self.statement_inner(node, stdin);
        self.level -= 1;
        out
    }

    /// `body` with `redirects` applied. The grammar hangs a redirection that follows
    /// `a && b` (or `a | b`) on the whole list, where the shell applies it to `b` alone:
    /// `mkdir -p d && cat > d/f <<EOF` writes the here-document with `cat`.
    fn redirected<'t>(
        &mut self,
        body: Node<'t>,
        stdin: &Taint,
        redirects: &[Node<'t>],
        at: Node<'t>,
    ) -> Taint {
        if !self.budget() || self.level >= MAX_DEPTH {
            return Taint::default();
        }
        match body.kind() {
            "command" => self.command(body, stdin, redirects),
            "list" | "pipeline" => {
                let mut cursor = body.walk();
                let parts: Vec<Node> = body.named_children(&mut cursor).collect();
                let Some((last, first)) = parts.split_last() else {
                    return Taint::default();
                };
                let pipeline = body.kind() == "pipeline";
                let saved = match pipeline {
                    true => self.pipe_start.replace(body.start_byte()),
                    false => self.pipe_start,
                };
                let mut flow = stdin.clone();
                for part in first {
                    let out = self.statement(*part, &flow);
                    if pipeline {
                        flow = out;
                    }
                }
                self.level += 1;
                let out = self.redirected(*last, &flow, redirects, at);
                self.level -= 1;
                self.pipe_start = saved;
                out
            }
            _ => {
                let out = self.statement(body, stdin);
                self.redirect_only(redirects, &out, at);
                out
            }
        }
    }

    fn statement_inner(&mut self, node: Node, stdin: &Taint) -> Taint {
        match node.kind() {
            "command" => self.command(node, stdin, &[]),
            "redirected_statement" => {
                let body = node.child_by_field_name("body");
                let mut redirects = Vec::new();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if Some(child) != body {
                        redirects.push(child);
                    }
                }
                match body {
                    Some(b) => self.redirected(b, stdin, &redirects, node),
                    None => Taint::default(),
                }
            }
            "pipeline" => {
                let mut flow = stdin.clone();
                let mut cursor = node.walk();
                let stages: Vec<Node> = node.named_children(&mut cursor).collect();
                let saved = self.pipe_start.replace(node.start_byte());
                for stage in stages {
                    flow = self.statement(stage, &flow);
                }
                self.pipe_start = saved;
                flow
            }
            "variable_assignment" => {
                self.assign(node);
                Taint::default()
            }
            "for_statement" => {
                let var = node
                    .child_by_field_name("variable")
                    .map(|v| self.text(v).to_owned());
                let mut items = Value::literal("");
                let mut cursor = node.walk();
                let values: Vec<Node> = node.children_by_field_name("value", &mut cursor).collect();
                for v in values {
                    let value = self.eval(v);
                    items.taint.add(&value.taint);
                }
                items.known = false;
                if let Some(var) = var {
                    self.set_var(var, items);
                }
                let mut out = Taint::default();
                if let Some(body) = node.child_by_field_name("body") {
                    out = self.statement(body, stdin);
                }
                out
            }
            "comment" | "heredoc_body" => Taint::default(),
            _ => {
                // Lists, blocks, conditionals, loops, functions, subshells and the ERROR nodes
                // of error recovery: their statements in order.
                let mut out = Taint::default();
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    let o = self.statement(child, stdin);
                    out.add(&o);
                }
                out
            }
        }
    }

    fn set_var(&mut self, name: String, value: Value) {
        if self.vars.len() < MAX_VARS || self.vars.contains_key(&name) {
            self.vars.insert(name, value);
        }
    }

    fn assign(&mut self, node: Node) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name).to_owned();
        let value = match node.child_by_field_name("value") {
            Some(v) => self.eval(v),
            None => Value::literal(""),
        };
        self.set_var(name, value);
    }

    /// Redirections of a compound statement (`{ ...; } > f`, `( ... ) > /dev/tcp/h/p`).
    fn redirect_only(&mut self, redirects: &[Node], out: &Taint, at: Node) {
        let mut cmd = Command {
            name: String::new(),
            name_value: Value::literal(""),
            args: Vec::new(),
            stdin: Taint::default(),
            writes: Vec::new(),
            appends: Vec::new(),
            heredoc: None,
            start: self.base + at.start_byte(),
            end: self.base + at.end_byte(),
            flow_start: self.base + at.start_byte(),
        };
        for r in redirects {
            self.redirect(*r, &mut cmd);
        }
        commands::check_writes(&cmd, out, self.out);
        self.remember(&cmd);
    }

    fn remember(&mut self, cmd: &Command) {
        if let Some(record) = &mut self.record {
            if record.len() < MAX_RECORDED {
                record.push(cmd.clone());
            }
        }
    }

    fn redirect(&mut self, node: Node, cmd: &mut Command) {
        match node.kind() {
            "file_redirect" => {
                let Some(dest) = node.child_by_field_name("destination") else {
                    return;
                };
                let op = node
                    .child(0)
                    .map(|c| self.text(c).to_owned())
                    .unwrap_or_default();
                let value = self.eval(dest);
                if op.starts_with('<') && !op.starts_with("<<") {
                    if super::secrets::credential_path(&value.text)
                        || super::secrets::account_list(&value.text)
                    {
                        cmd.stdin.add(&Taint::secret(super::taint::CREDENTIAL_FILE));
                    }
                    cmd.stdin.add(&value.taint);
                } else if op.contains('>') && !op.contains(">&") || op == "&>" || op == "&>>" {
                    cmd.writes.push(value);
                    cmd.appends.push(op.contains(">>"));
                }
            }
            "heredoc_redirect" | "herestring_redirect" => {
                let mut value = Value::literal("");
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    if matches!(part.kind(), "heredoc_body" | "heredoc_content") {
                        value.text.push_str(self.text(part));
                        let mut c2 = part.walk();
                        let inner: Vec<Node> = part.named_children(&mut c2).collect();
                        for e in inner {
                            let v = self.eval(e);
                            value.taint.add(&v.taint);
                        }
                    } else if node.kind() == "herestring_redirect" {
                        let v = self.eval(part);
                        value.text.push_str(&v.text);
                        value.taint.add(&v.taint);
                    } else if part.kind() == "file_redirect" {
                        self.redirect(part, cmd);
                    }
                }
                // `<<-TAG`: the shell drops each line's leading tabs.
                if node.kind() == "heredoc_redirect" && self.text(node).starts_with("<<-") {
                    value.text = value
                        .text
                        .split('\n')
                        .map(|l| l.trim_start_matches('\t'))
                        .collect::<Vec<_>>()
                        .join("\n");
                }
                cmd.stdin.add(&value.taint);
                cmd.heredoc = Some(value);
            }
            _ => {}
        }
    }

    fn command(&mut self, node: Node, stdin: &Taint, redirects: &[Node]) -> Taint {
        let mut cmd = Command {
            name: String::new(),
            name_value: Value::literal(""),
            args: Vec::new(),
            stdin: stdin.clone(),
            writes: Vec::new(),
            appends: Vec::new(),
            heredoc: None,
            start: self.base + node.start_byte(),
            end: self.base + node.end_byte(),
            flow_start: self.base + self.pipe_start.unwrap_or(node.start_byte()),
        };
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        let mut named = false;
        for child in children {
            match child.kind() {
                "command_name" => {
                    let inner = child.named_child(0).unwrap_or(child);
                    cmd.name_value = self.eval(inner);
                    named = true;
                }
                "variable_assignment" if !named => {
                    // `VAR=value cmd`: the value is in the command's environment.
                    let _ = self.eval_field(child, "value");
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    self.redirect(child, &mut cmd)
                }
                "comment" => {}
                _ if named => {
                    let v = self.eval(child);
                    cmd.args.push(v);
                }
                _ => {}
            }
        }
        for r in redirects {
            self.redirect(*r, &mut cmd);
        }
        cmd.name = program_name(&cmd.name_value.text);
        self.run(cmd)
    }

    fn eval_field(&mut self, node: Node, field: &str) -> Option<Value> {
        node.child_by_field_name(field).map(|v| self.eval(v))
    }

    /// Unwraps wrappers, runs the rules, and works out the command's output.
    fn run(&mut self, mut cmd: Command) -> Taint {
        for _ in 0..8 {
            match commands::unwrap(&cmd) {
                commands::Unwrapped::Same => break,
                commands::Unwrapped::Program(next) => cmd = *next,
                commands::Unwrapped::Script(script) => {
                    self.nested(&cmd, &script);
                    break;
                }
            }
        }
        self.remember(&cmd);
        commands::check(&cmd, &self.downloaded, self.out);
        installs::pushed(&cmd, &self.remotes, self.out);
        installs::index_set(&cmd, self.out);
        installs::url_install(&cmd, self.out);
        self.inline_program(&cmd);
        if let Some((name, url)) = installs::remote_added(&cmd) {
            if self.remotes.len() < MAX_VARS {
                self.remotes.insert(name, url);
            }
        }
        let at = Some((cmd.start, cmd.end));
        for file in commands::downloads_to(&cmd) {
            self.downloaded.insert(file, at);
        }
        let out = commands::output(&cmd);
        commands::check_writes(&cmd, &out, self.out);
        if commands::is_downloader(&cmd.name) {
            for w in &cmd.writes {
                self.downloaded.insert(commands::norm_path(&w.text), at);
            }
        }
        out
    }

    /// `python3 -c CODE`, `node -e CODE`: the string is a program in that language, analysed
    /// as one; what it finds is reported at the command.
    fn inline_program(&mut self, cmd: &Command) {
        let name = cmd.name.as_str();
        let python = name.starts_with("python")
            && name[6..].bytes().all(|b| b.is_ascii_digit() || b == b'.');
        let node = matches!(name, "node" | "nodejs" | "bun" | "deno");
        if !python && !node {
            return;
        }
        let flags: &[&str] = if python {
            &["-c"]
        } else {
            &["-e", "--eval", "-p", "--print", "eval"]
        };
        let Some(code) = cmd
            .args
            .iter()
            .position(|a| flags.contains(&a.text.as_str()))
            .and_then(|i| cmd.args.get(i + 1))
        else {
            return;
        };
        if !code.known || code.text.len() > 1 << 16 {
            return;
        }
        let mut found = Vec::new();
        if python {
            super::python::analyze(&code.text, &mut found);
        } else {
            super::javascript::analyze(&code.text, &mut found);
        }
        self.out.extend(found.into_iter().map(|h| Hit {
            rule: h.rule,
            start: cmd.start,
            end: cmd.end,
        }));
    }

    /// A string run as shell (`sh -c S`, `eval S`): parsed when its text is known; when it
    /// carries downloaded or decoded data, that is a rule of its own (in `commands::check`).
    fn nested(&mut self, at: &Command, script: &Value) {
        if !script.known || self.depth >= MAX_NESTING || script.text.len() > 1 << 16 {
            return;
        }
        let text = script.text.clone();
        let Some(tree) = parse(&text) else { return };
        let mut inner = Walk {
            src: &text,
            vars: std::mem::take(&mut self.vars),
            downloaded: std::mem::take(&mut self.downloaded),
            remotes: std::mem::take(&mut self.remotes),
            out: &mut Vec::new(),
            nodes: self.nodes,
            depth: self.depth + 1,
            level: self.level,
            pipe_start: None,
            base: 0,
            record: self.record.take(),
        };
        inner.statement(tree.root_node(), &at.stdin);
        self.record = inner.record.take();
        let (vars, downloaded, remotes, nodes) =
            (inner.vars, inner.downloaded, inner.remotes, inner.nodes);
        let mut hits = std::mem::take(inner.out);
        self.vars = vars;
        // The nested string's offsets mean nothing in this script.
        self.downloaded = downloaded.into_keys().map(|f| (f, None)).collect();
        self.remotes = remotes;
        self.nodes = nodes;
        // The inner string's offsets mean nothing in the file: its hits point at the command.
        for h in &mut hits {
            h.start = at.start;
            h.end = at.end;
        }
        self.out.extend(hits);
    }
}

/// `/usr/bin/curl.exe` -> `curl`.
fn program_name(spelled: &str) -> String {
    let base = spelled.rsplit(['/', '\\']).next().unwrap_or(spelled);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    base.to_ascii_lowercase()
}

#[cfg(test)]
mod tests;
