//! The snapshot's file: a header line, then one line per folder (`d MTIME INO PATH`) and per
//! watched file (`f KIND SIZE MTIME INO MODE DIGEST PATH`), each file the closure reaches
//! (`r ROLE PATH`), and `end COUNT`. Paths are the last field, `%`,
//! newline and carriage return escaped. Lines, not JSON: a work tree of 50,000 folders is read
//! on every tool call.

use super::{DirStat, FileKind, FileStat, Snapshot};
use crate::registry::Kind;

/// The roles a reached file is kept in, by their index in the file (`r INDEX PATH`).
const KINDS: [Kind; 9] = [
    Kind::Instructions,
    Kind::Command,
    Kind::TomlCommand,
    Kind::JsonSettings,
    Kind::TomlSettings,
    Kind::YamlSettings,
    Kind::EnvFile,
    Kind::Script,
    Kind::Reference,
];

const HEADER: &str = "git-skill watch 2";

fn escape(path: &str) -> String {
    path.replace('%', "%25")
        .replace('\n', "%0A")
        .replace('\r', "%0D")
}

fn unescape(path: &str) -> Option<String> {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3)?;
        out.push(match code {
            "25" => '%',
            "0A" => '\n',
            "0D" => '\r',
            _ => return None,
        });
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    Some(out)
}

pub fn render(s: &Snapshot) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(64 * (s.dirs.len() + s.files.len()) + 64);
    let _ = writeln!(
        out,
        "{HEADER} {}{}",
        s.taken_ns,
        if s.partial { " partial" } else { "" }
    );
    for head in &s.heads {
        let _ = writeln!(out, "h {head}");
    }
    for (path, d) in &s.dirs {
        let _ = writeln!(out, "d {} {} {}", d.ctime_ns, d.ino, escape(path));
    }
    for (path, f) in &s.files {
        let kind = match f.kind {
            FileKind::File => 'f',
            FileKind::Link => 'l',
            FileKind::Special => 's',
        };
        let _ = writeln!(
            out,
            "f {kind} {} {} {} {} {} {}",
            f.size,
            f.ctime_ns,
            f.ino,
            f.mode,
            f.digest.as_deref().unwrap_or("-"),
            escape(path)
        );
    }
    for (path, kind) in &s.reached {
        let index = KINDS
            .iter()
            .position(|k| k == kind)
            .unwrap_or(KINDS.len() - 1);
        let _ = writeln!(out, "r {index} {}", escape(path));
    }
    // A file cut short is told from a whole one.
    let _ = writeln!(
        out,
        "end {}",
        s.dirs.len() + s.files.len() + s.reached.len()
    );
    out
}

pub fn parse(text: &str) -> Option<Snapshot> {
    let mut lines = text.split_terminator('\n');
    let header = lines.next()?.strip_prefix(HEADER)?.strip_prefix(' ')?;
    let (taken, partial) = match header.split_once(' ') {
        Some((t, "partial")) => (t, true),
        None => (header, false),
        _ => return None,
    };
    let mut s = Snapshot {
        partial,
        taken_ns: taken.parse().ok()?,
        ..Snapshot::default()
    };
    let mut ended = false;
    for line in lines {
        if ended {
            return None;
        }
        let (tag, rest) = line.split_once(' ')?;
        match tag {
            "h" if rest.len() == 40 && rest.bytes().all(|b| b.is_ascii_hexdigit()) => {
                s.heads.push(rest.to_owned());
            }
            "r" => {
                let (index, path) = rest.split_once(' ')?;
                let kind = *KINDS.get(index.parse::<usize>().ok()?)?;
                s.reached.insert(unescape(path)?, kind);
            }
            "end" => {
                if rest.parse::<usize>().ok()? != s.dirs.len() + s.files.len() + s.reached.len() {
                    return None;
                }
                ended = true;
            }
            "d" => {
                let mut parts = rest.splitn(3, ' ');
                let ctime_ns = parts.next()?.parse().ok()?;
                let ino = parts.next()?.parse().ok()?;
                let path = unescape(parts.next()?)?;
                s.dirs.insert(path, DirStat { ctime_ns, ino });
            }
            "f" => {
                let mut parts = rest.splitn(7, ' ');
                let kind = match parts.next()? {
                    "f" => FileKind::File,
                    "l" => FileKind::Link,
                    "s" => FileKind::Special,
                    _ => return None,
                };
                let size = parts.next()?.parse().ok()?;
                let ctime_ns = parts.next()?.parse().ok()?;
                let ino = parts.next()?.parse().ok()?;
                let mode = parts.next()?.parse().ok()?;
                let digest = match parts.next()? {
                    "-" => None,
                    d if d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit()) => {
                        Some(d.to_owned())
                    }
                    _ => return None,
                };
                let path = unescape(parts.next()?)?;
                if path.is_empty() {
                    return None;
                }
                s.files.insert(
                    path,
                    FileStat {
                        kind,
                        size,
                        ctime_ns,
                        ino,
                        mode,
                        digest,
                    },
                );
            }
            _ => return None,
        }
    }
    ended.then_some(s)
}
