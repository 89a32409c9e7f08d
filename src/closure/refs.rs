//! What one file brings in, as written: the references the closure resolves. Markdown brings
//! in what it imports (`@path`, `@{path}`, `#[[file:path]]`), the files its run instructions
//! run and the files it links to; code brings in what it runs and imports; settings bring in
//! what their keys name (`guard::context::read`: scripts of hook commands, MCP servers' code,
//! instruction files, output styles, plugins).

use std::sync::OnceLock;

use super::Wanted;
use crate::guard::context::{Base, Target};
use crate::registry::{Import, Kind};

/// One reference of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ref {
    pub target: Wanted,
    /// How the file reached is read.
    pub kind: Kind,
    /// What the path is relative to, tried in order.
    pub bases: &'static [Base],
    /// How it is brought in, as the file says it (`@docs/notes.md`, `bash tools/fmt.sh`).
    pub how: String,
    /// 1-based line in the file (0 when unknown).
    pub line: usize,
    /// Read, but what it brings in is not followed (a document a file links to).
    pub leaf: bool,
}

impl Ref {
    /// A reference that is followed further, at `line`.
    fn new(target: Wanted, kind: Kind, bases: &'static [Base], how: String, line: usize) -> Ref {
        Ref {
            target,
            kind,
            bases,
            how,
            line,
            leaf: false,
        }
    }
}

/// Relative to the file, then to the agent's project, then to the top.
const FILE_FIRST: &[Base] = &[Base::File, Base::Project, Base::Plugin];
/// Relative to the agent's project (where it runs commands), then to the file.
const PROJECT_FIRST: &[Base] = &[Base::Project, Base::File, Base::Plugin];
const FILE_ONLY: &[Base] = &[Base::File];
const PLUGIN_ONLY: &[Base] = &[Base::Plugin];

/// At most this many references of one file are followed (the rest is a cut).
pub const MAX_REFS: usize = 256;

/// At most this many documents one file links to are read (the rest is a cut).
pub const MAX_LINKS: usize = 1024;

/// The references of the file at `path`, read as `kind`, that imports as `imports` says.
/// A settings file that cannot be parsed brings nothing in (its scan reports it).
pub fn of(path: &str, kind: Kind, imports: &[Import], text: &str) -> Vec<Ref> {
    let mut out = Vec::new();
    match kind {
        Kind::Instructions | Kind::Command | Kind::Reference => {
            markdown(text, imports, kind == Kind::Reference, &mut out)
        }
        Kind::Script => script(path, text, &mut out),
        Kind::JsonSettings
        | Kind::TomlSettings
        | Kind::YamlSettings
        | Kind::TomlCommand
        | Kind::EnvFile => settings(path, kind, imports, text, &mut out),
    }
    out
}

/// The lines of a text, for the line of an offset in logarithmic time.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        Lines(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// The 1-based line of byte offset `at`.
    fn of(&self, at: usize) -> usize {
        self.0.partition_point(|&nl| nl < at) + 1
    }
}

fn markdown(text: &str, imports: &[Import], reference: bool, out: &mut Vec<Ref>) {
    use pulldown_cmark::{Event, Parser, Tag};
    // What runs: in code and prose alike (an agent runs `bash tools/fmt.sh` from either).
    for op in crate::guard::runs::operands(text) {
        out.push(Ref {
            target: if op.module {
                Wanted::Module(op.arg)
            } else {
                Wanted::Path(op.arg)
            },
            kind: Kind::Script,
            bases: PROJECT_FIRST,
            how: op.instruction,
            line: 0,
            leaf: false,
        });
    }
    if reference {
        // A document read is not followed further than what it runs.
        return;
    }
    // Imports need an `@`, links a `](` or `]:`: most instruction files have neither, and a
    // Markdown parser costs more than the search.
    let wants_markdown = (imports.contains(&Import::At) && text.contains('@'))
        || text.contains("](")
        || text.contains("]:")
        || text.contains("#[[");
    if !wants_markdown {
        return;
    }
    let at_imports = imports.contains(&Import::At);
    let lines = Lines::new(text);
    let mut in_code = false;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(pulldown_cmark::TagEnd::CodeBlock) => in_code = false,
            // Imports are read in prose, never in code.
            Event::Text(t) if at_imports && !in_code => {
                for (offset, target) in at_paths(&t) {
                    let at = range.start + offset;
                    out.push(Ref {
                        how: format!("@{target}"),
                        target: Wanted::Path(target),
                        kind: Kind::Instructions,
                        bases: FILE_FIRST,
                        line: lines.of(at),
                        leaf: false,
                    });
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                if let Some(target) = local_link(&dest_url) {
                    out.push(Ref {
                        how: format!("a link to {target}"),
                        target: Wanted::Path(target),
                        kind: Kind::Reference,
                        bases: FILE_ONLY,
                        line: lines.of(range.start),
                        leaf: true,
                    });
                }
            }
            _ => {}
        }
    }
    if imports.contains(&Import::KiroFile) {
        for (at, target) in delimited(text, "#[[file:", "]]") {
            out.push(Ref {
                how: format!("#[[file:{target}]]"),
                target: Wanted::Path(target),
                kind: Kind::Instructions,
                bases: PROJECT_FIRST,
                line: lines.of(at),
                leaf: false,
            });
        }
    }
}

/// The `@path` imports of a piece of prose: an `@` at the start or after white space or an
/// opening bracket, then a path (not an e-mail address, a mention without a path, or a
/// decorator). Trailing punctuation is the sentence's.
fn at_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices('@') {
        if i > 0
            && !matches!(
                bytes[i - 1],
                b' ' | b'\t' | b'\n' | b'(' | b'[' | b'"' | b'\''
            )
        {
            continue;
        }
        let rest = &text[i + 1..];
        let end = rest
            .find(|c: char| {
                c.is_whitespace() || matches!(c, ')' | ']' | '>' | '"' | '\'' | '`' | '<' | '@')
            })
            .unwrap_or(rest.len());
        let token = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?']);
        // A path: a folder or an extension (`@docs/x.md`, `@AGENTS.md`, `@~/notes`).
        if token.is_empty() || !(token.contains('/') || token.contains('.')) || token.len() > 512 {
            continue;
        }
        out.push((i, token.to_owned()));
    }
    out
}

/// A link's destination when it is a file of the repository (`docs/x.md#part` is
/// `docs/x.md`), not a URL, an anchor or a mail address.
fn local_link(dest: &str) -> Option<String> {
    let dest = dest.trim();
    if dest.is_empty()
        || dest.starts_with('#')
        || dest.contains("://")
        || dest.starts_with("mailto:")
    {
        return None;
    }
    let path = dest.split(['#', '?']).next()?;
    let path = percent_decoded(path);
    (!path.is_empty() && path.len() <= 512).then_some(path)
}

/// `%20` and the like in a link, as a file name.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Each text between `open` and `close`, with the offset of `open`.
fn delimited(text: &str, open: &str, close: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices(open) {
        // The closer is looked for nearby only: a file of openers alone stays linear.
        let rest = &text[i + open.len()..];
        let mut window = rest.len().min(512 + close.len());
        while !rest.is_char_boundary(window) {
            window -= 1;
        }
        if let Some(end) = rest[..window].find(close) {
            let target = rest[..end].trim();
            if !target.is_empty() && !target.contains('\n') {
                out.push((i, target.to_owned()));
            }
        }
    }
    out
}

/// Code: what it runs (`source lib.sh`, `python helper.py`) and the local modules it imports.
fn script(path: &str, text: &str, out: &mut Vec<Ref>) {
    for op in crate::guard::runs::operands(text) {
        out.push(Ref {
            target: if op.module {
                Wanted::Module(op.arg)
            } else {
                Wanted::Path(op.arg)
            },
            kind: Kind::Script,
            bases: FILE_FIRST,
            how: op.instruction,
            line: 0,
            leaf: false,
        });
    }
    let lines = Lines::new(text);
    let lang = crate::guard::analysis::regions::file_lang(path, text);
    let imports = match lang {
        Some(crate::guard::analysis::regions::Lang::JavaScript) => js_imports(text),
        Some(crate::guard::analysis::regions::Lang::Python) => python_imports(text),
        _ => Vec::new(),
    };
    for (at, target) in imports {
        out.push(Ref {
            how: format!("imports {}", target.text()),
            target,
            kind: Kind::Script,
            bases: FILE_ONLY,
            line: lines.of(at),
            leaf: false,
        });
    }
}

/// `require('./x')`, `import ... from './x'`, `import('./x')`, `import './x'`: relative only
/// (a package is not the repository's).
fn js_imports(text: &str) -> Vec<(usize, Wanted)> {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r#"(?:require[ \t]*\(|import[ \t]*\(|from|import)[ \t]*['"](\.\.?/[^'"\n]+)['"]"#,
        )
        .expect("a valid pattern")
    });
    re.captures_iter(text)
        .filter_map(|c| c.get(1))
        .filter(|m| m.len() <= 300)
        .map(|m| (m.start(), Wanted::Path(m.as_str().to_owned())))
        .collect()
}

/// `from .x import y`, `from x import y`, `import x`: as modules beside the file (what is not
/// there is a package).
fn python_imports(text: &str) -> Vec<(usize, Wanted)> {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(?m)^[ \t]*(?:from[ \t]+(\.*[A-Za-z_][A-Za-z0-9_.]*|\.+)[ \t]+import|import[ \t]+([A-Za-z_][A-Za-z0-9_.]*))")
            .expect("a valid pattern")
    });
    re.captures_iter(text)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .filter_map(|m| {
            let name = m.as_str().trim_start_matches('.');
            (!name.is_empty() && name.len() <= 200).then(|| {
                (
                    m.start(),
                    Wanted::Module(format!("{}.py", name.replace('.', "/"))),
                )
            })
        })
        .collect()
}

fn settings(path: &str, kind: Kind, imports: &[Import], text: &str, out: &mut Vec<Ref>) {
    let Ok(reading) = crate::guard::context::read(path, kind, text) else {
        return;
    };
    let lines = Lines::new(text);
    for r in reading.references {
        let line = lines.of(r.at);
        let bases: &'static [Base] = match r.base {
            Base::File => FILE_FIRST,
            Base::Project => PROJECT_FIRST,
            Base::Plugin => PLUGIN_ONLY,
        };
        let refs = match r.target {
            // Instruction files a setting lists may be patterns (OpenCode's globs).
            Target::Files(target, kind) => vec![Ref::new(
                if kind == Kind::Instructions && r.how == "instructions" {
                    Wanted::Glob(target.clone())
                } else {
                    Wanted::Path(target.clone())
                },
                kind,
                bases,
                format!("{}: {target}", r.how),
                line,
            )],
            Target::InstructionName(name) => vec![Ref::new(
                Wanted::Name(name.clone()),
                Kind::Instructions,
                bases,
                format!("{}: {name}", r.how),
                line,
            )],
            Target::Plugin(dir) => vec![Ref::new(
                Wanted::Plugin(dir.clone()),
                Kind::JsonSettings,
                bases,
                format!("{}: {dir}", r.how),
                line,
            )],
            Target::Command(line_text) => super::command::files_run(&line_text)
                .into_iter()
                .map(|run| {
                    let bases = if run.in_plugin {
                        PLUGIN_ONLY
                    } else {
                        PROJECT_FIRST
                    };
                    Ref::new(
                        run.target,
                        Kind::Script,
                        bases,
                        format!("{}: {}", r.how, run.how),
                        line,
                    )
                })
                .collect(),
        };
        out.extend(refs);
    }
    // `{file:path}` in a configuration value (OpenCode), and `@{path}` in a command's prompt.
    for (import, open, close, bases) in [
        (Import::FileBrace, "{file:", "}", FILE_FIRST),
        (Import::AtBrace, "@{", "}", PROJECT_FIRST),
    ] {
        if imports.contains(&import) {
            for (at, target) in delimited(text, open, close) {
                out.push(Ref::new(
                    Wanted::Path(target.clone()),
                    Kind::Instructions,
                    bases,
                    format!("{open}{target}{close}"),
                    lines.of(at),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(refs: &[Ref]) -> Vec<(String, Kind)> {
        refs.iter()
            .map(|r| (r.target.text().to_owned(), r.kind))
            .collect()
    }

    #[test]
    fn markdown_imports_runs_and_links() {
        let md = "# Notes\n\nSee @docs/agent-notes.md and @AGENTS.md.\nMail a@b.c, ping @team.\n\n```\n@not/an/import.md\n```\n\nRun `bash tools/fmt.sh` first. Read [the guide](docs/guide.md#setup) and [site](https://x.example.net).\n";
        let refs = of("CLAUDE.md", Kind::Instructions, &[Import::At], md);
        let t = targets(&refs);
        assert!(
            t.contains(&("docs/agent-notes.md".into(), Kind::Instructions)),
            "{t:?}"
        );
        assert!(
            t.contains(&("AGENTS.md".into(), Kind::Instructions)),
            "{t:?}"
        );
        assert!(t.contains(&("tools/fmt.sh".into(), Kind::Script)), "{t:?}");
        assert!(
            t.contains(&("docs/guide.md".into(), Kind::Reference)),
            "{t:?}"
        );
        assert!(
            !t.iter()
                .any(|(p, _)| p.contains("not/an") || p == "b.c" || p == "team"),
            "{t:?}"
        );
        let line = refs
            .iter()
            .find(|r| r.how == "@docs/agent-notes.md")
            .unwrap()
            .line;
        assert_eq!(line, 3);
        // Without imports, `@` means nothing.
        let t = targets(&of("AGENTS.md", Kind::Instructions, &[], md));
        assert!(!t.iter().any(|(p, _)| p == "docs/agent-notes.md"));
    }

    #[test]
    fn settings_commands_servers_and_names() {
        let json = r#"{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "bash .claude/hooks/format.sh"}]}]},
  "outputStyle": "team"}"#;
        let t = targets(&of(".claude/settings.json", Kind::JsonSettings, &[], json));
        assert!(
            t.contains(&(".claude/hooks/format.sh".into(), Kind::Script)),
            "{t:?}"
        );
        assert!(
            t.contains(&("output-styles/team.md".into(), Kind::Instructions)),
            "{t:?}"
        );
        let mcp = r#"{"mcpServers": {"x": {"command": "node", "args": ["tools/mcp-server.js"]}, "p": {"command": "python", "args": ["-m", "srv.main"]}}}"#;
        let t = targets(&of(".mcp.json", Kind::JsonSettings, &[], mcp));
        assert!(
            t.contains(&("tools/mcp-server.js".into(), Kind::Script)),
            "{t:?}"
        );
        assert!(t.contains(&("srv/main.py".into(), Kind::Script)), "{t:?}");
        let toml = "project_doc_fallback_filenames = [\"NOTES.md\"]\n";
        let refs = of(".codex/config.toml", Kind::TomlSettings, &[], toml);
        assert!(refs
            .iter()
            .any(|r| r.target == Wanted::Name("NOTES.md".into())));
        let cmd = "prompt = \"Use @{docs/x.md} and !{bash scripts/y.sh}\"\n";
        let t = targets(&of(
            ".gemini/commands/a.toml",
            Kind::TomlCommand,
            &[Import::AtBrace],
            cmd,
        ));
        assert!(
            t.contains(&("docs/x.md".into(), Kind::Instructions)),
            "{t:?}"
        );
        assert!(t.contains(&("scripts/y.sh".into(), Kind::Script)), "{t:?}");
        let kiro = "Follow #[[file:docs/api.md]].\n";
        let t = targets(&of(
            ".kiro/steering/a.md",
            Kind::Instructions,
            &[Import::KiroFile],
            kiro,
        ));
        assert_eq!(t, [("docs/api.md".to_owned(), Kind::Instructions)]);
    }

    #[test]
    fn code_imports() {
        let js = "const a = require('./lib/a');\nimport b from \"../b.js\";\nimport 'fs';\nconst c = await import('./c.mjs');\n";
        let t = targets(&of("tools/x.js", Kind::Script, &[], js));
        assert_eq!(t.len(), 3, "{t:?}");
        let py = "from . import util\nfrom .helpers import x\nimport os\nfrom pkg.mod import y\n";
        let t = targets(&of("tools/x.py", Kind::Script, &[], py));
        assert!(t.contains(&("helpers.py".into(), Kind::Script)), "{t:?}");
        assert!(t.contains(&("os.py".into(), Kind::Script)), "{t:?}");
        assert!(t.contains(&("pkg/mod.py".into(), Kind::Script)), "{t:?}");
    }

    #[test]
    fn hostile_text_is_bounded() {
        let many = "@a/b.md ".repeat(100_000);
        let refs = of("CLAUDE.md", Kind::Instructions, &[Import::At], &many);
        assert_eq!(refs.len(), 100_000);
        let long = format!("@{}.md", "x".repeat(100_000));
        assert!(of("CLAUDE.md", Kind::Instructions, &[Import::At], &long).is_empty());
        assert!(of("x.json", Kind::JsonSettings, &[], "{not json").is_empty());
        let cjk = "参见 @文档/说明.md 🦀\n";
        let t = targets(&of("CLAUDE.md", Kind::Instructions, &[Import::At], cjk));
        assert_eq!(t, [("文档/说明.md".to_owned(), Kind::Instructions)]);
        assert_eq!(percent_decoded("a%20b%zz%2"), "a b%zz%2");
    }
}
