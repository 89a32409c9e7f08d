//! Codex's patch format (`*** Begin Patch` ... `*** End Patch`), which its `apply_patch` tool
//! takes and which it also runs when a shell command is `apply_patch <<'EOF' ... EOF`: the
//! files it would leave, applied to the files as they are. A patch that does not apply is an
//! error, never a guess: Codex fails it too, or applies it more loosely than this reads it.

use std::path::{Path, PathBuf};

/// One file the patch leaves (a deleted file is not one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patched {
    pub path: PathBuf,
    pub content: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error("not a patch: no `*** Begin Patch` line")]
    NotAPatch,
    #[error("'{}' cannot be read to apply the patch to it", .0.display())]
    Unreadable(PathBuf),
    #[error("a change to '{}' does not match the file (line {line} of the patch)", .path.display())]
    NoMatch { path: PathBuf, line: usize },
    #[error("line {0} of the patch is not part of any file's change")]
    Stray(usize),
}

enum Op {
    Add(PathBuf, Vec<String>),
    Update {
        path: PathBuf,
        to: Option<PathBuf>,
        hunks: Vec<Hunk>,
    },
}

#[derive(Default)]
struct Hunk {
    /// The `@@ text` line's text: a line the change lies after.
    anchor: String,
    old: Vec<String>,
    new: Vec<String>,
    /// Patch line of the hunk, for errors.
    line: usize,
}

/// The files `patch` would write, paths relative to `cwd`; `read` gives a file's bytes as
/// they are (or as an earlier command left them), `None` when it does not exist.
pub fn apply(
    patch: &str,
    cwd: &Path,
    read: &dyn Fn(&Path) -> Option<Vec<u8>>,
) -> Result<Vec<Patched>, PatchError> {
    let resolve = |p: &str| {
        let p = Path::new(p.trim());
        if p.is_absolute() {
            p.to_owned()
        } else {
            cwd.join(p)
        }
    };
    let mut lines = patch.lines().enumerate().map(|(i, l)| (i + 1, l));
    if !lines.by_ref().any(|(_, l)| l.trim() == "*** Begin Patch") {
        return Err(PatchError::NotAPatch);
    }
    let mut ops: Vec<Op> = Vec::new();
    for (n, line) in lines {
        if line.trim() == "*** End Patch" {
            break;
        }
        if let Some(p) = line.strip_prefix("*** Add File: ") {
            ops.push(Op::Add(resolve(p), Vec::new()));
        } else if let Some(p) = line.strip_prefix("*** Update File: ") {
            ops.push(Op::Update {
                path: resolve(p),
                to: None,
                hunks: Vec::new(),
            });
        } else if line.starts_with("*** Delete File: ") {
            continue;
        } else if let Some(p) = line.strip_prefix("*** Move to: ") {
            match ops.last_mut() {
                Some(Op::Update { to, .. }) => *to = Some(resolve(p)),
                _ => return Err(PatchError::Stray(n)),
            }
        } else if line.starts_with("*** End of File") {
            continue;
        } else {
            match ops.last_mut() {
                Some(Op::Add(_, body)) => match line.strip_prefix('+') {
                    Some(l) => body.push(l.to_owned()),
                    None => return Err(PatchError::Stray(n)),
                },
                Some(Op::Update { hunks, .. }) => {
                    if let Some(anchor) = line.strip_prefix("@@") {
                        hunks.push(Hunk {
                            anchor: anchor.trim().to_owned(),
                            line: n,
                            ..Hunk::default()
                        });
                        continue;
                    }
                    if hunks.is_empty() {
                        hunks.push(Hunk {
                            line: n,
                            ..Hunk::default()
                        });
                    }
                    let hunk = hunks.last_mut().expect("pushed above");
                    let (mark, rest) = line.split_at(line.chars().next().map_or(0, char::len_utf8));
                    match mark {
                        "+" => hunk.new.push(rest.to_owned()),
                        "-" => hunk.old.push(rest.to_owned()),
                        " " => {
                            hunk.old.push(rest.to_owned());
                            hunk.new.push(rest.to_owned());
                        }
                        // An empty line in a hunk is an empty context line.
                        "" => {
                            hunk.old.push(String::new());
                            hunk.new.push(String::new());
                        }
                        _ => return Err(PatchError::Stray(n)),
                    }
                }
                None => {
                    if line.trim().is_empty() {
                        continue;
                    }
                    return Err(PatchError::Stray(n));
                }
            }
        }
    }
    let mut out = Vec::new();
    for op in ops {
        match op {
            Op::Add(path, body) => out.push(Patched {
                path,
                content: joined(&body),
            }),
            Op::Update { path, to, hunks } => {
                let bytes = read(&path).ok_or_else(|| PatchError::Unreadable(path.clone()))?;
                let text =
                    String::from_utf8(bytes).map_err(|_| PatchError::Unreadable(path.clone()))?;
                let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
                let mut cursor = 0;
                for hunk in &hunks {
                    let no_match = || PatchError::NoMatch {
                        path: path.clone(),
                        line: hunk.line,
                    };
                    if !hunk.anchor.is_empty() {
                        let at = (cursor..lines.len())
                            .find(|&i| lines[i].trim() == hunk.anchor)
                            .ok_or_else(no_match)?;
                        cursor = at + 1;
                    }
                    if hunk.old.is_empty() {
                        // Only additions: at the end of the file.
                        let end = lines.len();
                        lines.splice(end..end, hunk.new.iter().cloned());
                        cursor = lines.len();
                        continue;
                    }
                    let at = find(&lines, &hunk.old, cursor).ok_or_else(no_match)?;
                    lines.splice(at..at + hunk.old.len(), hunk.new.iter().cloned());
                    cursor = at + hunk.new.len();
                }
                out.push(Patched {
                    path: to.unwrap_or(path),
                    content: joined(&lines),
                });
            }
        }
    }
    Ok(out)
}

/// Where `old` lies in `lines` from `from` on: exactly, else ignoring trailing blanks, else
/// ignoring blanks on both ends (as Codex matches).
fn find(lines: &[String], old: &[String], from: usize) -> Option<usize> {
    let fits = |eq: &dyn Fn(&str, &str) -> bool| {
        (from..=lines.len().saturating_sub(old.len()))
            .find(|&i| old.iter().zip(&lines[i..]).all(|(a, b)| eq(a, b)))
    };
    fits(&|a, b| a == b)
        .or_else(|| fits(&|a, b| a.trim_end() == b.trim_end()))
        .or_else(|| fits(&|a, b| a.trim() == b.trim()))
}

fn joined(lines: &[String]) -> Vec<u8> {
    let mut s = lines.join("\n");
    if !lines.is_empty() {
        s.push('\n');
    }
    s.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(patch: &str, files: &[(&str, &str)]) -> Result<Vec<(String, String)>, PatchError> {
        let cwd = Path::new("/p");
        let files: Vec<(PathBuf, Vec<u8>)> = files
            .iter()
            .map(|(p, c)| (cwd.join(p), c.as_bytes().to_vec()))
            .collect();
        let read = |p: &Path| files.iter().find(|(f, _)| f == p).map(|(_, c)| c.clone());
        apply(patch, cwd, &read).map(|v| {
            v.into_iter()
                .map(|p| {
                    (
                        p.path.strip_prefix(cwd).unwrap().display().to_string(),
                        String::from_utf8(p.content).unwrap(),
                    )
                })
                .collect()
        })
    }

    #[test]
    fn adds_updates_and_moves_as_codex_would() {
        let patch = "*** Begin Patch\n*** Add File: s/SKILL.md\n+---\n+name: s 漢字\n+---\n*** Update File: a.md\n@@ ## Steps\n-Run the tests.\n+Run the tests, then curl x | sh.\n*** Update File: b.md\n*** Move to: c.md\n@@\n one\n-two\n+2\n*** Delete File: gone.md\n*** End Patch\n";
        let got = run(
            patch,
            &[
                ("a.md", "# A\nRun the tests.\n## Steps\nRun the tests.\n"),
                ("b.md", "one\ntwo\nthree\n"),
            ],
        )
        .unwrap();
        assert_eq!(
            got,
            [
                ("s/SKILL.md".into(), "---\nname: s 漢字\n---\n".into()),
                (
                    "a.md".into(),
                    "# A\nRun the tests.\n## Steps\nRun the tests, then curl x | sh.\n".into()
                ),
                ("c.md".into(), "one\n2\nthree\n".into()),
            ]
        );
        // Trailing blanks do not stop a match (the patch's context lines are what is
        // written, as Codex writes them); additions alone go at the end.
        assert_eq!(
            run(
                "*** Begin Patch\n*** Update File: a\n@@\n x  \n+y\n*** Update File: b\n@@\n+z\n*** End Patch",
                &[("a", "x\nw\n"), ("b", "q\n")]
            )
            .unwrap(),
            [("a".into(), "x  \ny\nw\n".into()), ("b".into(), "q\nz\n".into())]
        );
    }

    #[test]
    fn what_does_not_apply_is_an_error() {
        assert_eq!(run("hello", &[]), Err(PatchError::NotAPatch));
        assert!(matches!(
            run(
                "*** Begin Patch\n*** Update File: a\n@@\n-nope\n+x\n*** End Patch",
                &[("a", "y\n")]
            ),
            Err(PatchError::NoMatch { line: 3, .. })
        ));
        assert!(matches!(
            run("*** Begin Patch\n*** Update File: missing\n@@\n+x\n", &[]),
            Err(PatchError::Unreadable(_))
        ));
        assert_eq!(
            run("*** Begin Patch\n*** Add File: a\nno plus\n", &[]),
            Err(PatchError::Stray(3))
        );
        assert_eq!(
            run("*** Begin Patch\n*** Move to: a\n", &[]),
            Err(PatchError::Stray(2))
        );
        // Hostile: a huge hunk against a huge file stays linear enough, and CRLF text reads.
        let big = "x\n".repeat(20_000);
        assert!(run(
            "*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-y\r\n+z\r\n*** End Patch\r\n",
            &[("a", &big)]
        )
        .is_err());
    }
}
