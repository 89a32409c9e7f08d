//! Words as the shell expands them: quotes removed, escapes and `$'...'` decoded, variables
//! replaced by what the file assigned them, `$(printf ...)` and `$(echo ...)` by their output,
//! and the taint of every part carried along.

use tree_sitter::Node;

use super::super::secrets;
use super::super::taint::{self, Taint, SECRET};
use super::Walk;

/// A word after expansion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Value {
    /// What the shell would make of it, as far as the file tells; unknown parts keep their
    /// spelling (`$1`, `${DIR}`).
    pub text: String,
    /// Every part is known.
    pub known: bool,
    /// Built from pieces or decoded: quotes inside a word, escapes, variables assembled from
    /// parts, `printf` output. A command name spelled so hides what it is.
    pub assembled: bool,
    pub taint: Taint,
}

impl Value {
    pub fn literal(text: &str) -> Value {
        Value {
            text: text.to_owned(),
            known: true,
            assembled: false,
            taint: Taint::default(),
        }
    }

    fn unknown(spelled: &str) -> Value {
        Value {
            text: spelled.to_owned(),
            known: false,
            ..Value::default()
        }
    }

    fn append(&mut self, mut part: Value) {
        // `"credential=${x}"`, `"password: $p"`: the text says what the value is, whatever
        // the variable is called.
        if !part.known && part.text.starts_with('$') && !part.taint.has(SECRET) {
            if let Some(label) = secret_label(&self.text) {
                part.taint.add(&Taint::secret(label));
            }
        }
        if self.text.len() + part.text.len() > MAX_WORD {
            // `x=$x$x` doubles per line: past the cap the value is unknown, not huge.
            self.known = false;
        } else {
            self.text.push_str(&part.text);
        }
        self.known &= part.known;
        self.assembled |= part.assembled;
        self.taint.add(&part.taint);
    }
}

/// The label right before a value, when it names a secret: `token=`, `password: `,
/// `"api_key":"`, `credential=`. Only labels that [`secrets::secret_name`] accepts count, so
/// `key=`, `auth=` and `user:` do not.
fn secret_label(before: &str) -> Option<&str> {
    let t = before.trim_end_matches([' ', '"', '\'']);
    let t = t.strip_suffix(['=', ':'])?;
    let t = t.trim_end_matches(['"', '\'']);
    // The label starts after the last character that cannot be part of one, which may be
    // several bytes long (`echo "🔍 搜索: $q"`): past it, not one byte past its start.
    let start = t
        .char_indices()
        .rfind(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let label = &t[start..];
    (label.len() >= 3 && secrets::secret_name(&label.replace('-', "_"))).then_some(label)
}

/// Words longer than this are not expanded further (a payload's length is not its meaning).
const MAX_WORD: usize = 4096;

impl Walk<'_, '_> {
    pub(super) fn eval(&mut self, node: Node) -> Value {
        if !self.budget() || self.level >= super::MAX_DEPTH {
            return Value::unknown("");
        }
        self.level += 1;
        let v = self.eval_inner(node);
        self.level -= 1;
        v
    }

    fn eval_inner(&mut self, node: Node) -> Value {
        let raw = self.text(node);
        match node.kind() {
            "word" | "number" => {
                let text = unescape_word(raw);
                Value {
                    assembled: text.len() != raw.len() && raw.contains('\\'),
                    ..Value::literal(&text)
                }
            }
            "raw_string" => Value::literal(raw.trim_start_matches('\'').trim_end_matches('\'')),
            "ansi_c_string" => {
                let inner = raw
                    .strip_prefix("$'")
                    .and_then(|r| r.strip_suffix('\''))
                    .unwrap_or(raw);
                let decoded = decode_escapes(inner);
                Value {
                    assembled: decoded != inner,
                    ..Value::literal(&decoded)
                }
            }
            "string_content" => Value::literal(&unescape_dquoted(raw)),
            "string" | "translated_string" => {
                let mut v = Value::literal("");
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    let p = self.eval(part);
                    v.append(p);
                }
                v
            }
            "concatenation" => {
                let mut v = Value::literal("");
                let mut pieces = 0;
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    let p = self.eval(part);
                    if !p.text.is_empty() {
                        pieces += 1;
                    }
                    v.append(p);
                }
                // `ba""sh`, `c"ur"l`: quotes inside a word only split it to hide it.
                v.assembled |= pieces > 1 || raw.contains("\"\"") || raw.contains("''");
                v
            }
            "simple_expansion" | "expansion" => self.expansion(node, raw),
            "command_substitution" => self.substitution(node),
            "process_substitution" => {
                let out = self.inner_statements(node);
                Value {
                    taint: out,
                    ..Value::unknown("/dev/fd/63")
                }
            }
            "arithmetic_expansion" => Value::unknown(raw),
            _ => {
                let mut v = Value::unknown(raw);
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in parts {
                    let p = self.eval(part);
                    v.taint.add(&p.taint);
                }
                v
            }
        }
    }

    fn expansion(&mut self, node: Node, raw: &str) -> Value {
        let mut cursor = node.walk();
        let name = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "variable_name" || c.kind() == "special_variable_name")
            .map(|c| self.text(c).to_owned());
        let Some(name) = name else {
            return Value::unknown(raw);
        };
        // `${x:-y}`, `${x#p}`, `${#x}`: an operator makes the value something else.
        let plain = node.kind() == "simple_expansion" || node.named_child_count() == 1;
        if let Some(v) = self.vars.get(&name) {
            let mut v = v.clone();
            if !plain {
                v.known = false;
            }
            return v;
        }
        if name == "HOME" {
            return Value::literal("~");
        }
        if name == "USER" || name == "LOGNAME" {
            return Value::unknown("$USER");
        }
        let mut v = Value::unknown(&format!("${{{name}}}"));
        if secrets::secret_name(&name) {
            v.taint = Taint::secret(&name);
        }
        v
    }

    fn substitution(&mut self, node: Node) -> Value {
        let mut cursor = node.walk();
        let inner: Vec<Node> = node.named_children(&mut cursor).collect();
        // `$(printf '\x63\x75')`, `$(echo cu)`: the output is known.
        if let [only] = inner.as_slice() {
            if let Some(v) = self.literal_output(*only) {
                return v;
            }
            // `$(ANTHROPIC_API_KEY)`: a secret's name run as a command still names it.
            if only.kind() == "command" && only.named_child_count() == 1 {
                let name = self.text(*only).trim().to_owned();
                if secrets::secret_name(&name)
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_uppercase() || b == b'_' || b.is_ascii_digit())
                {
                    return Value {
                        taint: Taint::secret(&name),
                        ..Value::unknown(&format!("$({name})"))
                    };
                }
            }
        }
        let out = self.inner_statements(node);
        Value {
            taint: out,
            ..Value::unknown(self.text(node))
        }
    }

    fn inner_statements(&mut self, node: Node) -> Taint {
        let mut out = Taint::default();
        let mut cursor = node.walk();
        let inner: Vec<Node> = node.named_children(&mut cursor).collect();
        for stmt in inner {
            let o = self.statement(stmt, &Taint::default());
            out.add(&o);
        }
        out
    }

    /// The output of `printf FORMAT` or `echo WORDS` with known arguments.
    fn literal_output(&mut self, node: Node) -> Option<Value> {
        if node.kind() != "command" {
            return None;
        }
        let name = node.child_by_field_name("name")?;
        let prog = self.text(name).to_owned();
        if prog != "printf" && prog != "echo" {
            return None;
        }
        let mut cursor = node.walk();
        let args: Vec<Node> = node
            .children_by_field_name("argument", &mut cursor)
            .collect();
        let mut values = Vec::new();
        for a in args {
            let v = self.eval(a);
            if !v.known {
                return None;
            }
            values.push(v.text);
        }
        let text = if prog == "printf" {
            let (fmt, rest) = values.split_first()?;
            if !rest.is_empty() || fmt.contains('%') && !fmt.contains("%%") {
                return None;
            }
            decode_escapes(fmt)
        } else {
            let words: Vec<&str> = values
                .iter()
                .map(String::as_str)
                .filter(|w| *w != "-n" && *w != "-e")
                .collect();
            words.join(" ")
        };
        (text.len() <= MAX_WORD).then(|| Value {
            assembled: true,
            ..Value::literal(&text)
        })
    }
}

/// Backslashes outside quotes escape the next character (`c\u\r\l` is `curl`); a backslash
/// before a newline joins lines.
fn unescape_word(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline.
fn unescape_dquoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => out.push(chars.next().unwrap_or('\\')),
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `\xHH`, `\NNN` (octal), `\uHHHH`, `\n`, `\t` ... as `$'...'` and `printf` decode them.
pub fn decode_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b: Vec<char> = s.chars().collect();
    let mut i = 0;
    let hex = |cs: &[char]| -> Option<u32> {
        let t: String = cs.iter().collect();
        u32::from_str_radix(&t, 16).ok()
    };
    while i < b.len() {
        if b[i] != '\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let n = b[i + 1];
        i += 2;
        match n {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' | 'b' | 'e' | 'E' | 'f' | 'v' => {}
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'x' => {
                let end = (i..b.len().min(i + 2))
                    .take_while(|&j| b[j].is_ascii_hexdigit())
                    .last()
                    .map_or(i, |j| j + 1);
                match hex(&b[i..end]).and_then(char::from_u32) {
                    Some(c) if end > i => out.push(c),
                    _ => out.push_str("\\x"),
                }
                i = end;
            }
            'u' | 'U' => {
                let width = if n == 'u' { 4 } else { 8 };
                let end = (i..b.len().min(i + width))
                    .take_while(|&j| b[j].is_ascii_hexdigit())
                    .last()
                    .map_or(i, |j| j + 1);
                if let Some(c) = hex(&b[i..end]).and_then(char::from_u32) {
                    out.push(c);
                }
                i = end;
            }
            '0'..='7' => {
                let start = i - 1;
                let end = (start..b.len().min(start + 3))
                    .take_while(|&j| ('0'..='7').contains(&b[j]))
                    .last()
                    .map_or(start + 1, |j| j + 1);
                let t: String = b[start..end].iter().collect();
                if let Some(c) = u32::from_str_radix(&t, 8).ok().and_then(char::from_u32) {
                    out.push(c);
                }
                i = end;
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

pub fn credential_taint() -> Taint {
    Taint::secret(taint::CREDENTIAL_FILE)
}
