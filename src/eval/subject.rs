//! What the agent of an eval is given: the skill as an agent that loaded it sees it (its name
//! and description, SKILL.md, and the files SKILL.md names, within a budget), and a case's
//! input files.

use std::path::Path;

use crate::prompt::vars::{EvalFile, EvalSkill};
use crate::skill::files::{FileKind, SkillFiles};

/// The files SKILL.md names, together: at most 64 KiB of text beside it.
pub const FILES_BUDGET: usize = 64 << 10;
/// One input file of a case: at most 64 KiB of it is shown.
pub const INPUT_BYTES: usize = 64 << 10;
/// An input file larger than a skill file may be (1 MiB) is refused, not read.
pub const INPUT_FILE_CAP: u64 = crate::skill::limits::MAX_FILE_BYTES;

/// A version of a skill under test: its SKILL.md and its other files (paths relative to the
/// skill's directory, `/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// What it is, for people: `work tree`, a revision, `candidate FILE`.
    pub label: String,
    pub skill_md: String,
    pub files: Vec<(String, Vec<u8>)>,
}

#[derive(Debug, thiserror::Error)]
#[error("could not read '{}'", path.display())]
pub struct ReadError {
    pub path: std::path::PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Why a skill could not be read at a revision.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    #[error("could not read the skill {at}")]
    Git {
        at: String,
        #[source]
        source: crate::git::GitError,
    },
    #[error("the skill has no readable SKILL.md {at} ('{path}': {reason})")]
    NotThere {
        at: String,
        path: String,
        reason: String,
    },
}

impl Variant {
    /// The skill at `rel` (from the top of the repository) as `at` has it: its SKILL.md and
    /// the files of its folder there that SKILL.md names (evals aside), labelled `label`.
    pub fn at(
        repo: &crate::git::Repo,
        rel: &str,
        at: crate::git::At<'_>,
        label: &str,
    ) -> Result<Variant, RevisionError> {
        Variant::read_at(repo, rel, at, label, None)
    }

    /// [`Variant::at`] with the files `skill_md` names (a proposed SKILL.md) rather than those
    /// the SKILL.md there names; its SKILL.md is still the one `at` has.
    pub fn at_naming(
        repo: &crate::git::Repo,
        rel: &str,
        at: crate::git::At<'_>,
        label: &str,
        skill_md: &str,
    ) -> Result<Variant, RevisionError> {
        Variant::read_at(repo, rel, at, label, Some(skill_md))
    }

    fn read_at(
        repo: &crate::git::Repo,
        rel: &str,
        at: crate::git::At<'_>,
        label: &str,
        naming: Option<&str>,
    ) -> Result<Variant, RevisionError> {
        use crate::git::RegularBlob;
        let full = |path: &str| {
            if rel.is_empty() {
                path.to_owned()
            } else {
                format!("{rel}/{path}")
            }
        };
        let git = |source| RevisionError::Git {
            at: at.to_string(),
            source,
        };
        let not_there = |reason: String| RevisionError::NotThere {
            at: at.to_string(),
            path: full("SKILL.md"),
            reason,
        };
        let skill_md = match repo
            .regular_blob(
                at,
                &full("SKILL.md"),
                crate::skill::files::SKILL_MD_READ_CAP,
            )
            .map_err(git)?
        {
            RegularBlob::Regular(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            RegularBlob::Missing => return Err(not_there("there is no such file".into())),
            RegularBlob::Refused(reason) => return Err(not_there(reason)),
        };
        let prefix = if rel.is_empty() {
            String::new()
        } else {
            format!("{rel}/")
        };
        let listing = repo.list_under(at, &[rel.to_owned()]).map_err(git)?;
        let mut files = Vec::new();
        for entry in &listing.entries {
            let Some(path) = entry.path.strip_prefix(&prefix) else {
                continue;
            };
            // Only what that SKILL.md names is given to the agent (`Variant::view`).
            let names = naming.unwrap_or(&skill_md);
            if path == "SKILL.md" || path.starts_with("evals/") || !names.contains(path) {
                continue;
            }
            if let RegularBlob::Regular(bytes) = repo
                .regular_blob(at, &entry.path, FILES_BUDGET as u64)
                .map_err(git)?
            {
                files.push((path.to_owned(), bytes));
            }
        }
        Ok(Variant {
            label: label.to_owned(),
            skill_md,
            files,
        })
    }

    /// The skill as its directory holds it, without its evals (they are not what agents load
    /// for a task) and without links (never followed out of a skill).
    pub fn from_dir(dir: &Path, label: &str) -> Result<Variant, ReadError> {
        let skill_md_path = dir.join("SKILL.md");
        let skill_md =
            crate::fsutil::read_to_string(&skill_md_path).map_err(|source| ReadError {
                path: skill_md_path.clone(),
                source,
            })?;
        Variant::from_dir_with(dir, label, &skill_md)
    }

    /// The skill's folder with `skill_md` in place of its SKILL.md (a candidate): the files
    /// are those `skill_md` names.
    pub fn from_dir_with(dir: &Path, label: &str, skill_md: &str) -> Result<Variant, ReadError> {
        let fail = |path: &Path, source| ReadError {
            path: path.to_owned(),
            source,
        };
        let listing = SkillFiles::read(dir).map_err(|e| fail(&e.path, e.source))?;
        let skill_md = skill_md.to_owned();
        let mut files = Vec::new();
        for entry in &listing.entries {
            let FileKind::File { size, .. } = entry.kind else {
                continue;
            };
            if entry.path == "SKILL.md" || entry.path.starts_with("evals/") {
                continue;
            }
            // Only what SKILL.md names is given, so larger files are not read at all.
            if size > FILES_BUDGET as u64 || !skill_md.contains(entry.path.as_str()) {
                continue;
            }
            let path = dir.join(&entry.path);
            let bytes = crate::fsutil::read(&path).map_err(|e| fail(&path, e))?;
            files.push((entry.path.clone(), bytes));
        }
        Ok(Variant {
            label: label.to_owned(),
            skill_md,
            files,
        })
    }

    /// The skill as an agent sees it: name and description from the frontmatter (`fallback`
    /// when it has none), SKILL.md whole, and the text files SKILL.md names, in path order,
    /// until [`FILES_BUDGET`] is spent.
    pub fn view(&self, fallback: &str) -> EvalSkill {
        let meta = crate::skill::meta::parse(self.skill_md.as_bytes())
            .map(|(meta, _)| meta)
            .unwrap_or_default();
        let mut named: Vec<&(String, Vec<u8>)> = self
            .files
            .iter()
            .filter(|(path, _)| {
                path != "SKILL.md"
                    && !path.starts_with("evals/")
                    && self.skill_md.contains(path.as_str())
            })
            .collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let mut left = FILES_BUDGET;
        let mut files = Vec::new();
        for (path, bytes) in named {
            let Ok(text) = std::str::from_utf8(bytes) else {
                continue;
            };
            if text.len() > left {
                continue;
            }
            left -= text.len();
            files.push(EvalFile {
                path: path.clone(),
                text: text.to_owned(),
            });
        }
        EvalSkill {
            name: meta.name.unwrap_or_else(|| fallback.to_owned()),
            description: meta.description.unwrap_or_default(),
            text: self.skill_md.clone(),
            files,
        }
    }
}

/// One file of a skill's folder for an agent CLI: its path in the folder, its bytes, whether it
/// is executable.
pub type FolderFile = (String, Vec<u8>, bool);

/// A folder's files an agent CLI gets at most, together.
pub const FOLDER_BUDGET: u64 = 16 << 20;

/// The skill's folder as `dir` holds it: regular files (not SKILL.md, not `evals/`), each at
/// most a skill file's limit, links never followed, within [`FOLDER_BUDGET`].
pub fn folder_from_dir(dir: &Path) -> Result<Vec<FolderFile>, ReadError> {
    let fail = |path: &Path, source| ReadError {
        path: path.to_owned(),
        source,
    };
    let listing = SkillFiles::read(dir).map_err(|e| fail(&e.path, e.source))?;
    let mut out = Vec::new();
    let mut spent = 0;
    for entry in &listing.entries {
        let FileKind::File { size, executable } = entry.kind else {
            continue;
        };
        if entry.path == "SKILL.md" || entry.path.starts_with("evals/") {
            continue;
        }
        if size > crate::skill::limits::MAX_FILE_BYTES || spent + size > FOLDER_BUDGET {
            continue;
        }
        let path = dir.join(&entry.path);
        let Ok(Some(bytes)) =
            crate::fsutil::read_regular(&path, crate::skill::limits::MAX_FILE_BYTES)
        else {
            continue;
        };
        spent += bytes.len() as u64;
        out.push((entry.path.clone(), bytes, executable));
    }
    Ok(out)
}

/// [`folder_from_dir`] for the skill at `rel` as `at` has it.
pub fn folder_at(
    repo: &crate::git::Repo,
    rel: &str,
    at: crate::git::At<'_>,
) -> Result<Vec<FolderFile>, RevisionError> {
    use crate::git::{EntryKind, RegularBlob};
    let git = |source| RevisionError::Git {
        at: at.to_string(),
        source,
    };
    let prefix = if rel.is_empty() {
        String::new()
    } else {
        format!("{rel}/")
    };
    let listing = repo.list_under(at, &[rel.to_owned()]).map_err(git)?;
    let mut out = Vec::new();
    let mut spent = 0;
    for entry in &listing.entries {
        let EntryKind::File { executable } = entry.kind else {
            continue;
        };
        let Some(path) = entry.path.strip_prefix(&prefix) else {
            continue;
        };
        if path == "SKILL.md" || path.starts_with("evals/") {
            continue;
        }
        if let RegularBlob::Regular(bytes) = repo
            .regular_blob(at, &entry.path, crate::skill::limits::MAX_FILE_BYTES)
            .map_err(git)?
        {
            if spent + bytes.len() as u64 > FOLDER_BUDGET {
                continue;
            }
            spent += bytes.len() as u64;
            out.push((path.to_owned(), bytes, executable));
        }
    }
    Ok(out)
}

/// A case's request as the user gives it: the prompt, then each input file (text as it is,
/// at most [`INPUT_BYTES`]; a binary file by its size only).
pub fn request(prompt: &str, inputs: &[(String, Vec<u8>)]) -> String {
    let mut out = prompt.trim_end().to_owned();
    for (path, bytes) in inputs {
        out.push_str("\n\n");
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                let (shown, cut) = match text.char_indices().nth(INPUT_BYTES) {
                    Some((at, _)) if at < text.len() => (&text[..at], true),
                    _ => (text, false),
                };
                out.push_str(&crate::prompt::fence::fence(path, shown));
                if cut {
                    out.push_str(&format!("(the rest of {path} is not shown)\n"));
                }
            }
            Err(_) => out.push_str(&format!(
                "The file {path} is attached: {} bytes of binary data, not shown here.\n",
                bytes.len()
            )),
        }
    }
    out.push('\n');
    out
}

/// A case's input files, read from the skill's directory: regular files only, never through
/// a link (lint reports a missing one as SK033; here it is an error naming it).
pub fn inputs(dir: &Path, files: &[String]) -> Result<Vec<(String, Vec<u8>)>, ReadError> {
    files
        .iter()
        .map(|rel| {
            let path = dir.join(rel);
            let escapes = crate::skill::files::path_escapes(Path::new(rel));
            let bytes = if escapes {
                Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the path leaves the skill",
                ))
            } else {
                no_link_below(dir, rel).and_then(|()| {
                    crate::fsutil::read_regular(&path, INPUT_FILE_CAP)?.ok_or_else(|| {
                        std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")
                    })
                })
            };
            bytes
                .map(|b| (rel.clone(), b))
                .map_err(|source| ReadError { path, source })
        })
        .collect()
}

/// No folder between the skill and `rel` is a symbolic link.
pub fn no_link_below(dir: &Path, rel: &str) -> std::io::Result<()> {
    let mut at = dir.to_owned();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        if std::fs::symlink_metadata(&at)?.file_type().is_symlink() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a folder on the way is a symbolic link",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(skill_md: &str, files: &[(&str, &[u8])]) -> Variant {
        Variant {
            label: "work tree".into(),
            skill_md: skill_md.into(),
            files: files
                .iter()
                .map(|(p, b)| (p.to_string(), b.to_vec()))
                .collect(),
        }
    }

    #[test]
    fn the_agent_sees_what_skill_md_names_within_the_budget() {
        let big = "x".repeat(FILES_BUDGET - 1);
        let v = variant(
            "---\nname: csv\ndescription: Reports on CSV files.\n---\nSee references/a.md, references/b.md and scripts/bin.\n",
            &[
                ("references/a.md", b"A."),
                ("references/b.md", big.as_bytes()),
                ("references/unnamed.md", b"never"),
                ("scripts/bin", &[0xff, 0x00]),
                ("evals/evals.json", b"{}"),
            ],
        );
        let view = v.view("fallback");
        assert_eq!(view.name, "csv");
        assert_eq!(view.description, "Reports on CSV files.");
        let paths: Vec<&str> = view.files.iter().map(|f| f.path.as_str()).collect();
        // b.md does not fit beside a.md; the binary and the unnamed file are not given.
        assert_eq!(paths, ["references/a.md"]);
        let no_meta = variant("# No frontmatter\n", &[]).view("fallback");
        assert_eq!(
            (no_meta.name.as_str(), no_meta.description.as_str()),
            ("fallback", "")
        );
    }

    #[test]
    fn a_request_carries_its_inputs_fenced_and_binaries_by_size() {
        let text = request(
            "Summarise these. \u{1f600}",
            &[
                (
                    "evals/files/a.csv".into(),
                    b"region,total\n```\nnorth,3\n".to_vec(),
                ),
                ("evals/files/b.png".into(), vec![0x89, 0x50, 0xff, 0xfe]),
            ],
        );
        assert!(text.starts_with("Summarise these. \u{1f600}\n\n"));
        assert!(text.contains("````evals/files/a.csv\nregion,total\n```\nnorth,3\n````"));
        assert!(text.contains("The file evals/files/b.png is attached: 4 bytes of binary data"));
    }

    #[test]
    fn inputs_are_read_only_inside_the_skill_and_never_through_links() {
        let tmp = tempfile::tempdir().unwrap();
        let skill = tmp.path().join("skill");
        std::fs::create_dir_all(skill.join("evals/files")).unwrap();
        std::fs::write(skill.join("evals/files/a.csv"), "a,b\n").unwrap();
        std::fs::write(tmp.path().join("secret.txt"), "s").unwrap();
        let got = inputs(&skill, &["evals/files/a.csv".into()]).unwrap();
        assert_eq!(got[0].1, b"a,b\n");
        assert!(inputs(&skill, &["../secret.txt".into()]).is_err());
        assert!(inputs(&skill, &["evals/files/missing.csv".into()]).is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(tmp.path(), skill.join("evals/out")).unwrap();
            std::os::unix::fs::symlink(
                tmp.path().join("secret.txt"),
                skill.join("evals/files/link.txt"),
            )
            .unwrap();
            assert!(inputs(&skill, &["evals/out/secret.txt".into()]).is_err());
            assert!(inputs(&skill, &["evals/files/link.txt".into()]).is_err());
        }
    }
}
