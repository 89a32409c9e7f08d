//! Where template overrides come from, and reading them without trusting the directory: no
//! symlink out of it, no special files, a size cap.
//!
//! Precedence, highest first: the directory of `skill.templateDir` (`GIT_SKILL_TEMPLATE_DIR`),
//! then `<repository top>/.skillopt/templates/`, then the templates embedded in the binary.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::{PromptError, PromptName};
use crate::config::Config;

/// The largest override read. Prompts are a few KiB; anything near this is a mistake.
pub const MAX_TEMPLATE_BYTES: u64 = 1 << 20;

/// Directory entries looked at for misnamed templates; a bound, not a limit anyone meets.
const MAX_DIR_ENTRIES: usize = 10_000;

/// The repository's override directory, relative to the top of the work tree.
pub const REPO_TEMPLATE_DIR: &str = crate::skill::layout::REPO_TEMPLATES;

/// A directory that may hold overrides, named `<name>.md.j2` like the embedded templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverrideDir {
    /// `skill.templateDir`: it must exist. The directory may itself be a symlink (the user
    /// chose it); the files in it may not lead out of it.
    Configured {
        path: PathBuf,
        /// Where the setting came from, for messages (`git config (...)`, `environment ...`).
        origin: String,
    },
    /// `<top>/.skillopt/templates`: optional. Committed with the repository, so it must stay
    /// inside the work tree, and so must every file in it.
    Repository { top: PathBuf },
}

impl OverrideDir {
    pub fn path(&self) -> PathBuf {
        match self {
            OverrideDir::Configured { path, .. } => path.clone(),
            OverrideDir::Repository { top } => top.join(REPO_TEMPLATE_DIR),
        }
    }
}

/// The override directories in precedence order. A relative `skill.templateDir` is relative
/// to the top of the work tree (like `skill.roots`), or to `cwd` outside a repository; `~/`
/// means HOME.
pub fn override_dirs(
    config: &Config,
    repo_top: Option<&Path>,
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<OverrideDir> {
    let mut dirs = Vec::new();
    if let Some(value) = config.get("templateDir") {
        let text = value.text.trim();
        if !text.is_empty() {
            let path = match (text.strip_prefix("~/"), home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => repo_top.unwrap_or(cwd).join(text),
            };
            dirs.push(OverrideDir::Configured {
                path,
                origin: value.source.to_string(),
            });
        }
    }
    if let Some(top) = repo_top {
        dirs.push(OverrideDir::Repository {
            top: top.to_owned(),
        });
    }
    dirs
}

/// What one directory holds: the templates found (name, file, text) and `*.j2` files that
/// match no template name (probably misnamed).
#[derive(Debug, Default)]
pub(super) struct Found {
    pub templates: Vec<(PromptName, PathBuf, String)>,
    pub ignored: Vec<PathBuf>,
}

/// Reads the overrides of `dir` for the names in `wanted`.
pub(super) fn read_dir(dir: &OverrideDir, wanted: &[PromptName]) -> Result<Found, PromptError> {
    let path = dir.path();
    let Some(real_dir) = real_dir(dir, &path)? else {
        return Ok(Found::default());
    };
    let mut found = Found::default();
    for &name in wanted {
        let file = path.join(name.file_name());
        if let Some(text) = read_template(&file, &real_dir)? {
            found.templates.push((name, file, text));
        }
    }
    let entries = std::fs::read_dir(&real_dir).map_err(|source| PromptError::Io {
        path: path.clone(),
        source,
    })?;
    for entry in entries.take(MAX_DIR_ENTRIES).flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        if file_name.ends_with(".j2") && file_name.parse::<PromptName>().is_err() {
            found.ignored.push(path.join(&*file_name));
        }
    }
    found.ignored.sort();
    Ok(found)
}

/// The directory's real path, or `None` when an optional directory is absent.
fn real_dir(dir: &OverrideDir, path: &Path) -> Result<Option<PathBuf>, PromptError> {
    match dir {
        OverrideDir::Configured { origin, .. } => match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => Ok(Some(canonical(path)?)),
            Ok(_) => Err(PromptError::NotADirectory {
                path: path.to_owned(),
                origin: origin.clone(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(PromptError::MissingDirectory {
                    path: path.to_owned(),
                    origin: origin.clone(),
                })
            }
            Err(source) => Err(PromptError::Io {
                path: path.to_owned(),
                source,
            }),
        },
        OverrideDir::Repository { top } => {
            match std::fs::symlink_metadata(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(source) => {
                    return Err(PromptError::Io {
                        path: path.to_owned(),
                        source,
                    })
                }
                Ok(_) => {}
            }
            let real = canonical(path)?;
            let real_top = canonical(top)?;
            if !real.starts_with(&real_top) {
                return Err(PromptError::Escapes {
                    path: path.to_owned(),
                    target: real,
                });
            }
            if !real.is_dir() {
                return Err(PromptError::NotADirectory {
                    path: path.to_owned(),
                    origin: REPO_TEMPLATE_DIR.to_owned(),
                });
            }
            Ok(Some(real))
        }
    }
}

/// The text of one override, `None` when there is none. The file must resolve to a regular
/// file inside `real_dir`: a symlink that leads out could put any file of the user's (a key,
/// a token) into a prompt sent to a model.
fn read_template(file: &Path, real_dir: &Path) -> Result<Option<String>, PromptError> {
    match std::fs::symlink_metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(PromptError::Io {
                path: file.to_owned(),
                source,
            })
        }
        Ok(_) => {}
    }
    let real = canonical(file)?;
    if !real.starts_with(real_dir) {
        return Err(PromptError::Escapes {
            path: file.to_owned(),
            target: real,
        });
    }
    let io = |source| PromptError::Io {
        path: file.to_owned(),
        source,
    };
    // Checked before opening: opening a FIFO would block.
    let meta = std::fs::metadata(&real).map_err(io)?;
    if !meta.is_file() {
        return Err(PromptError::NotAFile {
            path: file.to_owned(),
        });
    }
    let too_large = || PromptError::TooLarge {
        path: file.to_owned(),
        limit: MAX_TEMPLATE_BYTES,
    };
    if meta.len() > MAX_TEMPLATE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    crate::fsutil::open_regular(&real, crate::fsutil::Links::One)
        .map_err(std::io::Error::from)
        .and_then(|f| f.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound)))
        .and_then(|f| f.take(MAX_TEMPLATE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() as u64 > MAX_TEMPLATE_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| PromptError::NotUtf8 {
            path: file.to_owned(),
            byte: e.utf8_error().valid_up_to(),
        })
}

fn canonical(path: &Path) -> Result<PathBuf, PromptError> {
    std::fs::canonicalize(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            // It exists (we saw it), so a symlink that leads nowhere.
            PromptError::DanglingSymlink {
                path: path.to_owned(),
            }
        } else {
            PromptError::Io {
                path: path.to_owned(),
                source,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn template_dir_is_relative_to_the_top_and_first() {
        let config = Config::resolve(&[], [("GIT_SKILL_TEMPLATE_DIR".into(), "prompts".into())]);
        let dirs = override_dirs(&config, Some(Path::new("/r")), Path::new("/r/sub"), None);
        assert_eq!(
            dirs,
            [
                OverrideDir::Configured {
                    path: PathBuf::from("/r/prompts"),
                    origin: "environment GIT_SKILL_TEMPLATE_DIR".into()
                },
                OverrideDir::Repository {
                    top: PathBuf::from("/r")
                }
            ]
        );
        let config = Config::resolve(&[], [("GIT_SKILL_TEMPLATE_DIR".into(), "~/p".into())]);
        let dirs = override_dirs(&config, None, Path::new("/c"), Some(Path::new("/h")));
        assert_eq!(dirs[0].path(), PathBuf::from("/h/p"));
        assert_eq!(dirs.len(), 1);
        let none = override_dirs(&Config::resolve(&[], []), None, Path::new("/c"), None);
        assert!(none.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn files_never_lead_out_of_their_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().join("repo");
        let dir = top.join(REPO_TEMPLATE_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(tmp.path().join("secret"), "token").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), dir.join("triage.md.j2")).unwrap();
        let repo = OverrideDir::Repository { top: top.clone() };
        let err = read_dir(&repo, &[PromptName::Triage]).unwrap_err();
        assert!(matches!(err, PromptError::Escapes { .. }), "{err}");
        assert!(err.to_string().contains("triage.md.j2"), "{err}");

        // A link inside the directory is fine.
        std::fs::remove_file(dir.join("triage.md.j2")).unwrap();
        std::fs::write(dir.join("base.txt"), "hello").unwrap();
        std::os::unix::fs::symlink("base.txt", dir.join("triage.md.j2")).unwrap();
        std::fs::write(dir.join("triage.j2"), "misnamed").unwrap();
        let found = read_dir(&repo, &[PromptName::Triage]).unwrap();
        assert_eq!(found.templates[0].2, "hello");
        assert_eq!(found.ignored, [dir.join("triage.j2")]);

        // The repository's directory itself must stay inside the repository.
        std::fs::remove_dir_all(top.join(".skillopt")).unwrap();
        std::fs::create_dir_all(top.join(".skillopt")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), &dir).unwrap();
        let err = read_dir(&repo, &[PromptName::Triage]).unwrap_err();
        assert!(matches!(err, PromptError::Escapes { .. }), "{err}");
    }

    #[test]
    fn size_cap_and_missing_configured_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = OverrideDir::Configured {
            path: tmp.path().to_owned(),
            origin: "test".into(),
        };
        let big = vec![b'a'; MAX_TEMPLATE_BYTES as usize + 1];
        std::fs::write(tmp.path().join("reflect.md.j2"), big).unwrap();
        let err = read_dir(&dir, &[PromptName::Reflect]).unwrap_err();
        assert!(matches!(err, PromptError::TooLarge { .. }), "{err}");

        let missing = OverrideDir::Configured {
            path: tmp.path().join("nope"),
            origin: "git config (.git/config)".into(),
        };
        let err = read_dir(&missing, &[PromptName::Reflect]).unwrap_err();
        assert!(err.to_string().contains("nope"), "{err}");
        assert!(
            err.to_string().contains("git config (.git/config)"),
            "{err}"
        );

        let absent = OverrideDir::Repository {
            top: tmp.path().to_owned(),
        };
        assert!(read_dir(&absent, &PromptName::ALL)
            .unwrap()
            .templates
            .is_empty());
    }
}
