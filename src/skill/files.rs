//! What a skill holds: its file list (with sizes, modes and symlink targets) and the bytes of
//! its `SKILL.md`. Built from the file system here; the same model can be filled from git
//! objects, so lint checks a staged state exactly as it checks a work tree.

use std::path::{Component, Path, PathBuf};

/// Largest SKILL.md prefix read into memory. Anything longer is over the 100,000-character
/// limit anyway (1 MiB of UTF-8 holds at least 262,144 characters).
pub const SKILL_MD_READ_CAP: u64 = 1 << 20;
/// How much of `evals/evals.json` is read: one byte over its limit, so that lint can tell.
pub const EVALS_READ_CAP: u64 = crate::eval::cases::MAX_EVALS_BYTES as u64 + 1;
/// How many entries of one skill are listed before the listing stops.
pub const MAX_ENTRIES: usize = 10_000;
const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKind {
    File {
        size: u64,
        executable: bool,
    },
    /// The link text, as stored.
    Symlink {
        target: PathBuf,
    },
    /// A FIFO, socket or device: never legitimate in a skill.
    Special,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Relative to the skill directory, `/`-separated.
    pub path: String,
    pub kind: FileKind,
}

#[derive(Debug, Clone, Default)]
pub struct SkillFiles {
    /// Every entry except directories, git-skill's records and any `.git`, sorted by path.
    pub entries: Vec<FileEntry>,
    /// git-skill's records inside the skill (`layout::is_record`), sorted by path: not skill
    /// content unless something runs them.
    pub records: Vec<FileEntry>,
    /// Files a checkout re-encodes (`working-tree-encoding` in `.gitattributes`), with the
    /// encoding: known for skills read from git objects, where the bytes are not yet what a
    /// checkout writes; empty for the work tree, where they are.
    pub checkout_encodings: Vec<(String, String)>,
    /// The first [`SKILL_MD_READ_CAP`] bytes of SKILL.md, when it is a regular file.
    pub skill_md: Option<Vec<u8>>,
    /// The full size of SKILL.md in bytes.
    pub skill_md_size: u64,
    /// `evals/evals.json` (`crate::eval::EVALS_JSON`), when it is a regular file, read up to
    /// one byte over its size limit (lint reports a larger one).
    pub evals_json: Option<Vec<u8>>,
    /// True when the listing stopped at [`MAX_ENTRIES`] entries (directories included).
    pub truncated: bool,
    /// True when directories deeper than [`MAX_DEPTH`] levels were not listed.
    pub too_deep: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("could not read '{}'", path.display())]
pub struct ReadError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl SkillFiles {
    /// Lists a skill directory without following any symlink.
    pub fn read(dir: &Path) -> Result<SkillFiles, ReadError> {
        let mut out = SkillFiles::default();
        let mut stack = vec![(dir.to_owned(), String::new(), 0usize)];
        // Directories count too: a tree of empty directories must not stall a hook.
        let mut seen = 0usize;
        'walk: while let Some((path, rel, depth)) = stack.pop() {
            let entries = std::fs::read_dir(&path).map_err(|source| ReadError {
                path: path.clone(),
                source,
            })?;
            for entry in entries {
                let entry = entry.map_err(|source| ReadError {
                    path: path.clone(),
                    source,
                })?;
                seen += 1;
                if seen > MAX_ENTRIES {
                    out.truncated = true;
                    break 'walk;
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                let child_rel = if rel.is_empty() {
                    name.clone()
                } else {
                    format!("{rel}/{name}")
                };
                // A `.git` anywhere (a submodule's checkout holds one) is git's, never content:
                // git itself refuses to track such a path, so the index never shows it either.
                if name == ".git" {
                    continue;
                }
                let meta = entry.metadata().map_err(|source| ReadError {
                    path: entry.path(),
                    source,
                })?;
                let kind = if meta.is_dir() && depth == 0 && name == "SKILL.md" {
                    // Listed, not descended: lint reports it as not a regular file.
                    FileKind::Special
                } else if meta.is_dir() {
                    if depth + 1 >= MAX_DEPTH {
                        out.too_deep = true;
                        continue;
                    }
                    stack.push((entry.path(), child_rel, depth + 1));
                    continue;
                } else if meta.file_type().is_symlink() {
                    let target = std::fs::read_link(entry.path()).map_err(|source| ReadError {
                        path: entry.path(),
                        source,
                    })?;
                    FileKind::Symlink { target }
                } else if meta.is_file() {
                    FileKind::File {
                        size: meta.len(),
                        executable: is_executable(&meta),
                    }
                } else {
                    FileKind::Special
                };
                let entry = FileEntry {
                    path: child_rel,
                    kind,
                };
                if matches!(entry.kind, FileKind::File { .. })
                    && super::layout::is_record(&entry.path)
                {
                    out.records.push(entry);
                } else {
                    out.entries.push(entry);
                }
            }
        }
        out.entries.sort_by(|a, b| a.path.cmp(&b.path));
        out.records.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some(FileEntry {
            kind: FileKind::File { size, .. },
            ..
        }) = out.entry("SKILL.md")
        {
            out.skill_md_size = *size;
            let path = dir.join("SKILL.md");
            out.skill_md = Some(
                read_prefix(&path, SKILL_MD_READ_CAP)
                    .map_err(|source| ReadError { path, source })?,
            );
        }
        if let Some(FileEntry {
            kind: FileKind::File { .. },
            ..
        }) = out.entry(crate::eval::EVALS_JSON)
        {
            let path = dir.join(crate::eval::EVALS_JSON);
            out.evals_json = Some(
                read_prefix(&path, EVALS_READ_CAP).map_err(|source| ReadError { path, source })?,
            );
        }
        Ok(out)
    }

    /// Bytes of all regular files.
    pub fn total_bytes(&self) -> u64 {
        self.entries
            .iter()
            .map(|e| match e.kind {
                FileKind::File { size, .. } => size,
                _ => 0,
            })
            .sum()
    }

    /// A skill that holds nothing but the given SKILL.md (tests, benchmarks, checks of text
    /// that is not on disk).
    pub fn with_skill_md(bytes: Vec<u8>) -> SkillFiles {
        SkillFiles {
            entries: vec![FileEntry {
                path: "SKILL.md".into(),
                kind: FileKind::File {
                    size: bytes.len() as u64,
                    executable: false,
                },
            }],
            skill_md_size: bytes.len() as u64,
            skill_md: Some(bytes),
            ..Default::default()
        }
    }

    /// Whether the symlink at `link` leads outside the skill, following the links it passes
    /// through inside the snapshot (`up -> ..` then `up/up/x` climbs out even though each link
    /// alone stays inside). Lexical, so it works for dangling links and git objects alike; a
    /// chain longer than 40 links counts as escaping.
    pub fn link_escapes(&self, link: &str) -> bool {
        matches!(
            self.entry(link),
            Some(FileEntry {
                kind: FileKind::Symlink { .. },
                ..
            })
        ) && self.resolve_link(link).is_none()
    }

    /// The skill's regular file (or other entry that is not a link) the symlink at `link`
    /// leads to, through the links it passes; `None` when it is no link, leads out of the
    /// skill, or to nothing the skill holds.
    pub fn link_target(&self, link: &str) -> Option<String> {
        let resolved = self.resolve_link(link)?;
        match self.entry(&resolved) {
            Some(FileEntry {
                kind: FileKind::Symlink { .. },
                ..
            })
            | None => None,
            Some(_) => Some(resolved),
        }
    }

    fn resolve_link(&self, link: &str) -> Option<String> {
        let Some(FileEntry {
            kind: FileKind::Symlink { target },
            ..
        }) = self.entry(link)
        else {
            return None;
        };
        let lookup = |path: &str| match self.entry(path) {
            Some(FileEntry {
                kind: FileKind::Symlink { target },
                ..
            }) => super::links::Node::Link(target.to_string_lossy().into_owned()),
            Some(_) => super::links::Node::File,
            None => super::links::Node::Missing,
        };
        super::links::resolve(link, &target.to_string_lossy(), &lookup)
    }

    pub fn entry(&self, path: &str) -> Option<&FileEntry> {
        self.entries
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.entries[i])
    }
}

/// Whether a relative path written in a file at the skill's top (a link in SKILL.md) leads
/// outside the skill: absolute, or `..` past the top.
pub fn path_escapes(path: &Path) -> bool {
    let mut depth: usize = 0;
    for component in path.components() {
        match component {
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return true,
        }
    }
    false
}

fn read_prefix(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    // Never a FIFO's open that waits for a writer; hard links are fine for a file only read.
    let file = crate::fsutil::open_regular(path, crate::fsutil::Links::Any)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    file.take(cap).read_to_end(&mut buf)?;
    Ok(buf)
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_links(links: &[(&str, &str)]) -> SkillFiles {
        let mut entries: Vec<FileEntry> = links
            .iter()
            .map(|(p, t)| FileEntry {
                path: p.to_string(),
                kind: FileKind::Symlink {
                    target: PathBuf::from(t),
                },
            })
            .collect();
        entries.push(FileEntry {
            path: "references/a.md".into(),
            kind: FileKind::File {
                size: 1,
                executable: false,
            },
        });
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        SkillFiles {
            entries,
            ..Default::default()
        }
    }

    #[test]
    fn links_that_leave_the_skill() {
        let f = with_links(&[
            ("x", "../x"),
            ("abs", "/etc/passwd"),
            ("scripts/deep", "../../x"),
            ("scripts/ok", "../references/a.md"),
            ("dot", "./references/../scripts/ok"),
            ("climb", "references/../../x"),
        ]);
        assert!(f.link_escapes("x"));
        assert!(f.link_escapes("abs"));
        assert!(f.link_escapes("scripts/deep"));
        assert!(!f.link_escapes("scripts/ok"));
        assert!(!f.link_escapes("dot"));
        assert!(f.link_escapes("climb"));
        assert!(!f.link_escapes("references/a.md"), "not a link");
    }

    #[test]
    fn chains_of_links_are_followed() {
        // references/up -> .. ; references/x -> up/references/up/../../x climbs out through links.
        let f = with_links(&[
            ("references/up", ".."),
            ("references/x", "up/references/up/../../outside"),
        ]);
        assert!(!f.link_escapes("references/up"));
        assert!(f.link_escapes("references/x"));
        let looped = with_links(&[("a", "b"), ("b", "a")]);
        assert!(looped.link_escapes("a"), "a loop is not a safe link");
    }

    #[test]
    fn reads_tree_keeping_records_apart_and_links() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::write(d.join("SKILL.md"), "hi").unwrap();
        std::fs::create_dir_all(d.join("scripts")).unwrap();
        std::fs::write(d.join("scripts/run.sh"), "echo").unwrap();
        std::fs::create_dir_all(d.join(".skillopt/pending")).unwrap();
        std::fs::write(d.join(".skillopt/pending/signal.json"), "{}").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/passwd", d.join("scripts/pw")).unwrap();
        std::fs::write(d.join(".skillopt/pending/run.sh"), "echo").unwrap();
        let files = SkillFiles::read(d).unwrap();
        let paths: Vec<_> = files.entries.iter().map(|e| e.path.as_str()).collect();
        #[cfg(unix)]
        assert_eq!(
            paths,
            vec![
                ".skillopt/pending/run.sh",
                "SKILL.md",
                "scripts/pw",
                "scripts/run.sh"
            ]
        );
        let records: Vec<_> = files.records.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(records, [".skillopt/pending/signal.json"]);
        assert_eq!(files.skill_md.as_deref(), Some(&b"hi"[..]));
        assert_eq!(files.skill_md_size, 2);
    }
}
