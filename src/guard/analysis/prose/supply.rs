//! SUP040: download and run an executable the skill does not ship. SUP041: an archive with a
//! password. SUP042: a script from a paste site.

use super::features::{Features, Role};
use super::lexicon::{Class, Found};
use super::Doc;
use crate::guard::analysis::Hit;
use crate::guard::rules::supply_chain::{SUP040, SUP041, SUP042};

pub fn detect(doc: &Doc<'_>, i: usize, hits: &mut Vec<Hit>) {
    let f = &doc.features[i];
    if !f.anchored {
        return;
    }
    if !instruction(f) {
        return;
    }
    // Neighbours under the same heading finish the steps: "1. Download AuthTool.zip",
    // "2. Extract it with password 1234", "3. Run AuthTool.exe before starting the skill".
    let near = |class: Class| {
        doc.window(i)
            .filter(|g| instruction(g))
            .any(|g| live(g, class))
    };
    let run = live(f, Class::Run);
    let download = live(f, Class::Download);
    let hosted: Vec<_> = f
        .urls
        .iter()
        .filter(|u| (u.file_host || u.short_host || u.raw_ip) && !u.paste_host)
        .collect();
    let packaged = !f.executables.is_empty() || !f.archives.is_empty() || f.has(Class::Archive);
    let mut fired = false;
    if let Some(u) = hosted.first() {
        if run || packaged && (download || near(Class::Prereq)) {
            hits.push(doc.hit(&SUP040, i, u.range.start, u.range.end));
            fired = true;
        }
    }
    if !fired {
        // A program the reader is told to get and run, or to run before using the skill
        // ("run cmd.exe" alone is about the system's own programs).
        if let Some(e) = f.executables.first() {
            if near(Class::Prereq) || near(Class::Run) && near(Class::Download) {
                hits.push(doc.hit(&SUP040, i, e.start, e.end));
                fired = true;
            }
        }
    }
    if !fired && !f.has(Class::PackageManager) && near(Class::Prereq) {
        let release = f.urls.iter().find(|u| u.release);
        let archive = f.archives.first();
        let target = match (release, archive) {
            (Some(u), _) if download || near(Class::Run) => Some(u.range.clone()),
            (_, Some(a)) if near(Class::Run) => Some(a.clone()),
            _ => None,
        };
        if let Some(t) = target {
            hits.push(doc.hit(&SUP040, i, t.start, t.end));
        }
    }
    if let Some((start, end)) = archive_password(f) {
        hits.push(doc.hit(&SUP041, i, start, end));
    }
    // A paste to run, not one to write to ("share the output in a gist") and not a package
    // a package manager installs.
    for u in f.urls.iter().filter(|u| u.paste_host) {
        let source = f
            .places
            .iter()
            .find(|p| p.range == u.range)
            .is_some_and(|p| f.role(p, None) != Role::Destination);
        let specific = u.rest.trim_matches('/').len() > 2;
        let managed = doc.window(i).any(|g| g.has(Class::PackageManager));
        if !source || !specific || managed {
            continue;
        }
        // Code, not a guide or a page on a paste site: a raw paste that is no document, or
        // words naming a script; to run, not only to download.
        let path = u.rest.split(['?', '#']).next().unwrap_or("");
        let document = [
            ".html", ".htm", ".md", ".txt", ".json", ".csv", ".png", ".svg",
        ]
        .iter()
        .any(|ext| path.ends_with(ext));
        let raw =
            (path.contains("/raw") || u.host.starts_with("gist.githubusercontent")) && !document;
        let script = f.has(Class::Script);
        let step = run || live(f, Class::Terminal) || live(f, Class::Prereq) || download && script;
        let code = raw || script;
        if code && step {
            hits.push(doc.hit(&SUP042, i, u.range.start, u.range.end));
            break;
        }
    }
}

fn instruction(f: &Features<'_>) -> bool {
    !f.question() && !f.starts_negated() && !f.described(&[])
}

/// A term of the class that is not negated or quoted.
fn live(f: &Features<'_>, class: Class) -> bool {
    f.of(class).any(|v| !f.negated(v) && !f.quoted(v))
}

/// "Extract with password: `1234`", "(password: infected)", "密码：1234": a password word
/// with a value next to it, in a sentence about an archive or an executable.
fn archive_password(f: &Features<'_>) -> Option<(usize, usize)> {
    let about_archive = f.has(Class::Extract)
        || f.has(Class::Archive)
        || !f.archives.is_empty()
        || !f.executables.is_empty();
    if !about_archive {
        return None;
    }
    let text = f.text();
    f.of(Class::Password)
        .filter(|p| !f.negated(p) && !f.quoted(p))
        .find_map(|p: &Found| {
            let end = value_end(f, text, p.end)?;
            Some((p.start, end))
        })
}

/// The end of the value given right after a password word at `at`, if any.
fn value_end(f: &Features<'_>, text: &str, at: usize) -> Option<usize> {
    if let Some(code) = f
        .unit
        .code
        .iter()
        .find(|c| c.start >= at && c.start - at <= 24)
    {
        return Some(code.end);
    }
    let rest = text[at..].trim_start_matches([' ', '*']);
    let (after, punct) = if text[..at].ends_with(':') {
        (rest, true)
    } else {
        SEPARATORS
            .iter()
            .find_map(|&(sep, punct)| rest.strip_prefix(sep).map(|r| (r, punct)))?
    };
    let quoted = after.trim_start().starts_with(['"', '\'']);
    let value = after.trim_start_matches([' ', '*', '"', '\'']);
    let value_at = text.len() - value.len();
    let len = value
        .find(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    ')' | ',' | ';' | '"' | '\'' | '*' | '，' | '。' | '；' | '、' | '）'
                )
        })
        .unwrap_or(value.len());
    let value = value[..len].trim_end_matches(['.', '。']);
    // After "is" a word may be no password ("the password is required"): a value then has
    // a digit or quotes.
    let plausible = punct || quoted || value.chars().any(|c| c.is_ascii_digit());
    (!value.is_empty() && value.len() <= 40 && plausible).then_some(value_at + value.len())
}

/// What separates a password word from its value, and whether it is punctuation.
const SEPARATORS: &[(&str, bool)] = &[
    (":", true),
    ("：", true),
    ("=", true),
    ("为", true),
    ("是", true),
    ("は", true),
    ("is ", false),
    ("es ", false),
    ("ist ", false),
    ("est ", false),
    ("e ", false),
    ("это ", false),
];
