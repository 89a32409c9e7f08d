//! The work tree as a [`Tree`] the closure walks: files read from disk, never through a link
//! that leads out of the top; the paths a scan knows (tracked, untracked, on disk in agent
//! folders) answer questions by name.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Tree;

pub struct WorkTree {
    /// The top, links resolved.
    top: PathBuf,
    /// Every path the scan knows, relative to the top.
    paths: Vec<String>,
    /// Folders already resolved (links followed), relative to the top: the closure asks
    /// about many files of few folders.
    folders: RefCell<HashMap<String, Option<PathBuf>>>,
}

impl WorkTree {
    pub fn new(top: &Path, paths: Vec<String>) -> WorkTree {
        WorkTree {
            top: top.canonicalize().unwrap_or_else(|_| top.to_owned()),
            paths,
            folders: RefCell::new(HashMap::new()),
        }
    }

    /// Where `path` is on disk, when it stays inside the top once links are resolved.
    fn inside(&self, path: &str) -> Option<PathBuf> {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let dir = self.folder(dir)?;
        let here = dir.join(name);
        let meta = std::fs::symlink_metadata(&here).ok()?;
        if !meta.file_type().is_symlink() {
            return Some(here);
        }
        let real = here.canonicalize().ok()?;
        real.starts_with(&self.top).then_some(real)
    }

    /// The folder `rel` on disk, links resolved, when it stays inside the top.
    fn folder(&self, rel: &str) -> Option<PathBuf> {
        if rel.is_empty() {
            return Some(self.top.clone());
        }
        if let Some(known) = self.folders.borrow().get(rel) {
            return known.clone();
        }
        let real = self
            .top
            .join(rel)
            .canonicalize()
            .ok()
            .filter(|r| r.starts_with(&self.top));
        self.folders
            .borrow_mut()
            .insert(rel.to_owned(), real.clone());
        real
    }
}

impl Tree for WorkTree {
    fn file(&self, path: &str, cap: u64) -> Result<Option<Vec<u8>>, String> {
        let Some(real) = self.inside(path) else {
            return Ok(None);
        };
        let meta = std::fs::metadata(&real).map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Ok(None);
        }
        if meta.len() > cap {
            return Err(format!("'{path}' is larger than {cap} bytes"));
        }
        crate::fsutil::read_following(&real)
            .map(Some)
            .map_err(|e| format!("'{path}': {e}"))
    }

    fn is_file(&self, path: &str) -> bool {
        self.inside(path).is_some_and(|p| p.is_file())
    }

    fn is_dir(&self, path: &str) -> bool {
        self.inside(path).is_some_and(|p| p.is_dir())
    }

    fn files_under(&self, dir: &str, limit: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_owned()];
        while let Some(rel) = stack.pop() {
            let Some(real) = self.inside(&rel) else {
                continue;
            };
            let Ok(entries) = std::fs::read_dir(real) else {
                continue;
            };
            for entry in entries.flatten() {
                if out.len() >= limit {
                    return out;
                }
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                let path = if rel.is_empty() {
                    name.clone()
                } else {
                    format!("{rel}/{name}")
                };
                match entry.file_type() {
                    Ok(t) if t.is_dir() && name != ".git" && name != "node_modules" => {
                        stack.push(path)
                    }
                    Ok(t) if t.is_file() || t.is_symlink() => out.push(path),
                    _ => {}
                }
            }
        }
        out.sort();
        out
    }

    fn named(&self, name: &str) -> Vec<String> {
        super::by_name(self.paths.iter(), name)
    }
}
