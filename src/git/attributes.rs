//! What a checkout does to a file's bytes that git objects do not show: the
//! `working-tree-encoding` attribute. With `*.sh working-tree-encoding=UTF-16LE` in
//! `.gitattributes`, git stores a script as UTF-8 and writes it to the work tree re-encoded, so
//! a blob of CJK characters becomes, checked out, the ASCII bytes those characters encode to in
//! UTF-16LE: `curl … | bash` that no look at the blob shows. The checks of the index and of
//! revisions ask here which files a checkout re-encodes, and scan those bytes too.
//!
//! Matching errs on the side of more: a line that may match a file counts (a file scanned once
//! more costs little; a file scanned in the wrong form lets a payload through). Unset attributes
//! (`-working-tree-encoding`) are ignored for the same reason.

use regex::Regex;

use super::{At, GitError, RegularBlob, Repo};

/// `.gitattributes` files larger than this are refused (git reads at most 100 MB; a skill's
/// ancestors hold small ones).
const MAX_ATTRIBUTES_BYTES: u64 = 1 << 20;

/// One line of a `.gitattributes` that sets `working-tree-encoding`.
#[derive(Debug)]
struct Rule {
    /// The directory of the file it is in, relative to the top ("" for the top).
    dir: String,
    pattern: Regex,
    /// A pattern without `/` matches a file's name at any depth below `dir`.
    basename: bool,
    encoding: String,
}

/// The encodings a checkout writes the files of the skill at `skill_dir` (relative to the top)
/// in, for those of `files` (relative to the skill) that a `working-tree-encoding` may apply
/// to: `(file, encoding)`, the last matching line winning.
pub fn working_tree_encodings(
    repo: &Repo,
    at: At<'_>,
    skill_dir: &str,
    files: &[&str],
) -> Result<Vec<(String, String)>, GitError> {
    // Every folder from the top down to the skill, and every folder inside it.
    let mut dirs: Vec<String> = vec![String::new()];
    let mut acc = String::new();
    for part in skill_dir.split('/').filter(|p| !p.is_empty()) {
        acc = if acc.is_empty() {
            part.to_owned()
        } else {
            format!("{acc}/{part}")
        };
        dirs.push(acc.clone());
    }
    for file in files {
        let mut inner = skill_dir.to_owned();
        for part in file
            .split('/')
            .rev()
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            inner = format!("{inner}/{part}");
            if !dirs.contains(&inner) {
                dirs.push(inner.clone());
            }
        }
    }
    let mut rules = Vec::new();
    for dir in &dirs {
        let path = if dir.is_empty() {
            ".gitattributes".to_owned()
        } else {
            format!("{dir}/.gitattributes")
        };
        // A folder through a submodule cannot be looked up from the top (the submodule's
        // files follow its own attributes, and are read from its own objects): no rules.
        if let Ok(RegularBlob::Regular(bytes)) = repo.regular_blob(at, &path, MAX_ATTRIBUTES_BYTES)
        {
            rules.extend(parse(dir, &String::from_utf8_lossy(&bytes)));
        }
    }
    if rules.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for file in files {
        let path = format!("{skill_dir}/{file}");
        let name = file.rsplit('/').next().unwrap_or(file);
        let encoding = rules.iter().rev().find(|r| {
            let below = if r.dir.is_empty() {
                Some(path.as_str())
            } else {
                path.strip_prefix(&format!("{}/", r.dir))
            };
            below.is_some_and(|rel| r.pattern.is_match(if r.basename { name } else { rel }))
        });
        if let Some(rule) = encoding {
            out.push(((*file).to_owned(), rule.encoding.clone()));
        }
    }
    Ok(out)
}

/// The rules of a `.gitattributes` in `dir` that set `working-tree-encoding`.
fn parse(dir: &str, text: &str) -> Vec<Rule> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let Some(pattern) = words.next() else {
            continue;
        };
        let Some(encoding) = words.find_map(|w| w.strip_prefix("working-tree-encoding=")) else {
            continue;
        };
        let pattern = pattern.trim_matches('"');
        let anchored = pattern.trim_end_matches('/').contains('/');
        let pattern = pattern.trim_start_matches('/');
        out.push(Rule {
            dir: dir.to_owned(),
            pattern: glob(pattern),
            basename: !anchored,
            encoding: encoding.to_owned(),
        });
    }
    out
}

/// A `.gitattributes` pattern as a regex that matches at least what git matches: `*` and `?`
/// within a folder, `**` across them, a class `[...]` as any one character.
fn glob(pattern: &str) -> Regex {
    let mut re = String::from("^");
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    re.push_str("(?:.*/)?");
                } else {
                    re.push_str(".*");
                }
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            '[' => {
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
                re.push_str("[^/]");
            }
            '\\' => {
                if let Some(next) = chars.next() {
                    re.push_str(&regex::escape(&next.to_string()));
                }
            }
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    // Every piece is escaped or a fixed construct: the regex always compiles; if it ever did
    // not, matching everything keeps the check on the safe side.
    Regex::new(&re).unwrap_or_else(|_| Regex::new("").expect("the empty regex compiles"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_at_least_what_git_matches() {
        let rules = parse(
            "pkg",
            "# a comment\n*.sh working-tree-encoding=UTF-16LE eol=crlf\n/scripts/x.ps1 text working-tree-encoding=UTF-16\n**/deep/*.md working-tree-encoding=SHIFT-JIS\n*.txt text\n[ab].py working-tree-encoding=UTF-32BE\n",
        );
        assert_eq!(rules.len(), 4);
        let m = |i: usize, s: &str| rules[i].pattern.is_match(s);
        assert!(m(0, "run.sh") && !m(0, "run.shx") && rules[0].basename);
        assert!(m(1, "scripts/x.ps1") && !rules[1].basename);
        assert!(m(2, "a/deep/n.md") && m(2, "deep/n.md"));
        assert!(
            m(3, "a.py") && m(3, "c.py"),
            "a class counts as any character"
        );
        assert_eq!(rules[0].encoding, "UTF-16LE");
    }
}
