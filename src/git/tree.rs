//! The staged state (the index) and HEAD's tree, limited to the skill roots: the pre-commit
//! hook compares the two below each root only, so its cost follows the size of the skills,
//! not of the repository.

use std::path::Path;

use super::{GitError, Repo};

/// What kind of entry a path is in the index or a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File {
        executable: bool,
    },
    Symlink,
    /// A submodule (gitlink) or anything else that is not a blob.
    Other,
}

/// One path of the index or of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Relative to the top of the work tree, `/`-separated.
    pub path: String,
    pub id: gix::ObjectId,
    pub kind: EntryKind,
}

fn lossy(path: &[u8]) -> String {
    String::from_utf8_lossy(path).into_owned()
}

fn err(path: &Path, message: impl std::fmt::Display) -> GitError {
    GitError::Read {
        path: path.to_owned(),
        message: message.to_string(),
    }
}

impl Repo {
    /// Index entries below each of `prefixes` (directories relative to the top, no trailing
    /// `/`), at stage 0. A path in conflict is an error: it has no one staged state to check.
    pub fn staged_under(&self, prefixes: &[String]) -> Result<Vec<Entry>, GitError> {
        let index = self.staged_index()?;
        let mut out = Vec::new();
        for prefix in prefixes {
            let with_slash = format!("{prefix}/");
            let Some(entries) = index.prefixed_entries(with_slash.as_bytes().into()) else {
                continue;
            };
            for entry in entries {
                let path = lossy(entry.path(index));
                if entry.stage_raw() != 0 {
                    return Err(err(
                        Path::new(&path),
                        "is in conflict; resolve it before committing",
                    ));
                }
                use gix::index::entry::Mode;
                let kind = if entry.mode == Mode::FILE {
                    EntryKind::File { executable: false }
                } else if entry.mode == Mode::FILE_EXECUTABLE {
                    EntryKind::File { executable: true }
                } else if entry.mode == Mode::SYMLINK {
                    EntryKind::Symlink
                } else {
                    EntryKind::Other
                };
                out.push(Entry {
                    path,
                    id: entry.id,
                    kind,
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|a, b| a.path == b.path);
        Ok(out)
    }

    /// HEAD's tree entries below each of `prefixes`; none on an unborn branch.
    pub fn head_under(&self, prefixes: &[String]) -> Result<Vec<Entry>, GitError> {
        let tree = match self.repo.head_tree_id_or_empty() {
            Ok(id) => id,
            Err(e) => {
                return Err(err(
                    self.repo.git_dir(),
                    format!("could not read HEAD: {e}"),
                ))
            }
        };
        self.tree_under(tree.detach(), prefixes)
    }

    /// A tree's entries below each of `prefixes`.
    pub fn tree_under(
        &self,
        tree: gix::ObjectId,
        prefixes: &[String],
    ) -> Result<Vec<Entry>, GitError> {
        let tree = self.repo.find_tree(tree).map_err(|e| {
            err(
                self.repo.git_dir(),
                format!("could not read tree {tree}: {e}"),
            )
        })?;
        let mut out = Vec::new();
        for prefix in prefixes {
            let sub = match tree.lookup_entry_by_path(prefix) {
                Ok(Some(entry)) if entry.mode().is_tree() => entry.object_id(),
                Ok(_) => continue,
                Err(e) => return Err(err(Path::new(prefix), e)),
            };
            let sub = self
                .repo
                .find_tree(sub)
                .map_err(|e| err(Path::new(prefix), e))?;
            let mut recorder = gix::traverse::tree::Recorder::default();
            sub.traverse()
                .breadthfirst(&mut recorder)
                .map_err(|e| err(Path::new(prefix), e))?;
            for record in recorder.records {
                let kind = if record.mode.is_tree() {
                    continue;
                } else if record.mode.is_link() {
                    EntryKind::Symlink
                } else if record.mode.is_executable() {
                    EntryKind::File { executable: true }
                } else if record.mode.is_blob() {
                    EntryKind::File { executable: false }
                } else {
                    EntryKind::Other
                };
                out.push(Entry {
                    path: format!("{prefix}/{}", lossy(&record.filepath)),
                    id: record.oid,
                    kind,
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|a, b| a.path == b.path);
        Ok(out)
    }

    /// A blob's bytes.
    pub fn blob(&self, id: gix::ObjectId, path: &str) -> Result<Vec<u8>, GitError> {
        let object = self
            .repo
            .find_object(id)
            .map_err(|e| err(Path::new(path), format!("could not read blob {id}: {e}")))?;
        Ok(object.detach().data)
    }
}
