//! A state git holds (the index, HEAD, a revision) as a [`Tree`] the closure walks: files read
//! from git objects, links followed inside the tree, listings read once and only when a glob
//! or a name asks for them.

use std::cell::OnceCell;

use super::Tree;
use crate::git::{At, EntryKind, PathAt, Repo};
use crate::skill::links;

pub struct GitTree<'r> {
    repo: &'r Repo,
    at: At<'r>,
    /// Every file path at `at`, read on the first question that needs it.
    listing: OnceCell<Vec<String>>,
}

impl<'r> GitTree<'r> {
    pub fn new(repo: &'r Repo, at: At<'r>) -> GitTree<'r> {
        GitTree {
            repo,
            at,
            listing: OnceCell::new(),
        }
    }

    /// With the paths already listed (the hook has the index's in hand).
    pub fn with_listing(repo: &'r Repo, at: At<'r>, paths: Vec<String>) -> GitTree<'r> {
        let tree = GitTree::new(repo, at);
        let _ = tree.listing.set(paths);
        tree
    }

    fn listing(&self) -> &[String] {
        self.listing.get_or_init(|| {
            self.repo
                .tree_paths(self.at)
                .map(|paths| paths.into_iter().map(|(p, _)| p).collect())
                .unwrap_or_default()
        })
    }

    /// The regular file `path` is, links on the way followed inside the tree.
    fn target(&self, path: &str) -> Option<crate::git::Entry> {
        let entry = match self.repo.path_at(self.at, path).ok()? {
            PathAt::Entry(e) => e,
            // A folder on the way may be a link (`scripts -> tools`): read where it leads.
            PathAt::Missing => {
                let lookup = |p: &str| node_at(self.repo, self.at, p);
                let resolved = links::resolve_path(path, &lookup)?;
                if resolved == path {
                    return None;
                }
                return self.target(&resolved);
            }
            PathAt::Tree => return None,
        };
        match entry.kind {
            EntryKind::File { .. } => Some(entry),
            EntryKind::Symlink => {
                let text = self.repo.link_text(&entry).ok()??;
                let lookup = |p: &str| node_at(self.repo, self.at, p);
                let resolved = links::resolve(path, &text, &lookup)?;
                match self.repo.path_at(self.at, &resolved).ok()? {
                    PathAt::Entry(e) if matches!(e.kind, EntryKind::File { .. }) => Some(e),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

impl Tree for GitTree<'_> {
    fn file(&self, path: &str, cap: u64) -> Result<Option<Vec<u8>>, String> {
        let Some(entry) = self.target(path) else {
            return Ok(None);
        };
        let size = self.repo.entry_size(&entry).map_err(|e| e.to_string())?;
        if size > cap {
            return Err(format!("'{path}' is larger than {cap} bytes"));
        }
        self.repo
            .entry_blob(&entry)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    fn is_file(&self, path: &str) -> bool {
        self.target(path).is_some()
    }

    fn is_dir(&self, path: &str) -> bool {
        if path.is_empty() || matches!(self.repo.path_at(self.at, path), Ok(PathAt::Tree)) {
            return true;
        }
        let lookup = |p: &str| node_at(self.repo, self.at, p);
        links::resolve_path(path, &lookup).is_some_and(|r| {
            r != path && matches!(self.repo.path_at(self.at, &r), Ok(PathAt::Tree))
        })
    }

    fn files_under(&self, dir: &str, limit: usize) -> Vec<String> {
        let prefix = format!("{dir}/");
        // As the work tree's: dependencies are not a plugin's own files.
        let own = |p: &String| !p.split('/').any(|part| part == "node_modules");
        match self.listing.get() {
            Some(paths) => paths
                .iter()
                .filter(|p| dir.is_empty() || p.starts_with(&prefix))
                .filter(|p| own(p))
                .take(limit)
                .cloned()
                .collect(),
            None => self
                .repo
                .list_under(self.at, &[dir.to_owned()])
                .map(|l| {
                    l.entries
                        .into_iter()
                        .filter(|e| matches!(e.kind, EntryKind::File { .. } | EntryKind::Symlink))
                        .map(|e| e.path)
                        .filter(|p| own(p))
                        .take(limit)
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    fn named(&self, name: &str) -> Vec<String> {
        super::by_name(self.listing().iter(), name)
    }
}

/// What `path` is at `at`, for link resolution. Unreadable counts as missing: the link then
/// leads nowhere an agent could load a skill from.
pub fn node_at(repo: &Repo, at: At<'_>, path: &str) -> links::Node {
    match repo.path_at(at, path) {
        Ok(PathAt::Tree) => links::Node::Dir,
        Ok(PathAt::Entry(entry)) => match entry.kind {
            EntryKind::Symlink => match repo.link_text(&entry) {
                Ok(Some(text)) => links::Node::Link(text),
                // A link no checkout can make leads nowhere.
                _ => links::Node::Missing,
            },
            EntryKind::Gitlink { .. } => links::Node::Dir,
            _ => links::Node::File,
        },
        Ok(PathAt::Missing) | Err(_) => links::Node::Missing,
    }
}
