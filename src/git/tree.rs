//! The staged state (the index) and revisions' trees, limited to the skill roots: the
//! pre-commit hook compares the two below each root only, so its cost follows the size of the
//! skills, not of the repository.
//!
//! Submodules are looked into: a gitlink at, above or below a root is replaced by the tree of
//! the commit it records, read from the submodule's own object store (its checkout's `.git`,
//! or `modules/` of the git directory). A gitlink whose objects are not here is listed as such,
//! so that callers refuse to pass what they could not read.

use std::path::{Path, PathBuf};

use super::{GitError, Repo};

/// What kind of entry a path is in the index or a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File {
        executable: bool,
    },
    Symlink,
    /// A submodule. When `available`, the entries of its commit follow in the listing under
    /// its path; when not, [`Listing::unavailable`] says why.
    Gitlink {
        available: bool,
    },
    /// Anything else that is not a blob.
    Other,
}

/// One path of the index or of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Relative to the top of the work tree, `/`-separated; for a file inside a submodule,
    /// the submodule's path and then the path inside it.
    pub path: String,
    pub id: gix::ObjectId,
    pub kind: EntryKind,
    /// Whose object store holds `id`: 0 the repository itself, n the n-th submodule opened.
    pub store: usize,
}

/// A submodule whose content could not be listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// The gitlink's path, relative to the top.
    pub path: String,
    /// The commit it records.
    pub commit: gix::ObjectId,
    pub reason: String,
}

/// The entries below some prefixes, sorted by path.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub entries: Vec<Entry>,
    pub unavailable: Vec<Unavailable>,
}

impl Listing {
    fn finish(mut self) -> Listing {
        self.entries.sort_by(|a, b| a.path.cmp(&b.path));
        self.entries.dedup_by(|a, b| a.path == b.path);
        self.unavailable.sort_by(|a, b| a.path.cmp(&b.path));
        self.unavailable.dedup_by(|a, b| a.path == b.path);
        self
    }
}

/// How deep submodules inside submodules are followed.
const MAX_MODULE_DEPTH: usize = 8;
/// The most entries one listing holds (submodules included): past it the listing is an error,
/// not a partial answer.
const MAX_LISTED: usize = 1_000_000;
/// A link text longer than this (Linux's PATH_MAX) is not a link any checkout can make.
const MAX_LINK_BYTES: u64 = 4096;
/// `.gitmodules` larger than this is not read.
const MAX_SMALL_FILE: u64 = 1 << 20;

/// An opened submodule repository.
pub(super) struct Module {
    repo: gix::Repository,
    /// Its git directory, canonical: two gitlinks naming the same one share it.
    git_dir: PathBuf,
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

fn join_path(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_owned()
    } else {
        format!("{base}/{name}")
    }
}

/// What the index says of HEAD's trees, through its cache tree (the `TREE` extension): the
/// tree that each directory's staged entries make, recorded by git when it wrote them and
/// dropped for a directory as soon as an entry below it changes.
struct Known<'a> {
    index: &'a gix::index::File,
}

impl Known<'_> {
    /// The entries below directory `path` (relative to the top), when the cache tree
    /// records `tree` for it, taken from the index: then they are that tree's, and git will
    /// commit that tree. `None` (read the tree) when the record is missing, invalidated,
    /// another tree, or does not count the entries found, or when an entry below is not a
    /// plain staged file, link or gitlink.
    fn same(
        &self,
        path: &str,
        tree: gix::ObjectId,
    ) -> Option<Vec<(String, gix::ObjectId, EntryKind)>> {
        let mut node = self.index.tree()?;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            node = node
                .children
                .iter()
                .find(|c| c.name.as_slice() == part.as_bytes())?;
        }
        if node.id != tree || path.is_empty() {
            return None;
        }
        let count = node.num_entries? as usize;
        let with_slash = format!("{path}/");
        let entries = self.index.prefixed_entries(with_slash.as_bytes().into())?;
        if entries.len() != count {
            return None;
        }
        entries
            .iter()
            .map(|e| {
                let kind = kind_of_index_mode(e.mode);
                (e.stage_raw() == 0 && kind != EntryKind::Other)
                    .then(|| (lossy(e.path(self.index)), e.id, kind))
            })
            .collect()
    }
}

fn kind_of_index_mode(mode: gix::index::entry::Mode) -> EntryKind {
    use gix::index::entry::Mode;
    if mode == Mode::FILE {
        EntryKind::File { executable: false }
    } else if mode == Mode::FILE_EXECUTABLE {
        EntryKind::File { executable: true }
    } else if mode == Mode::SYMLINK {
        EntryKind::Symlink
    } else if mode == Mode::COMMIT {
        EntryKind::Gitlink { available: false }
    } else {
        EntryKind::Other
    }
}

fn kind_of_tree_mode(mode: gix::objs::tree::EntryMode) -> Option<EntryKind> {
    Some(if mode.is_tree() {
        return None;
    } else if mode.is_link() {
        EntryKind::Symlink
    } else if mode.is_commit() {
        EntryKind::Gitlink { available: false }
    } else if mode.is_executable() {
        EntryKind::File { executable: true }
    } else if mode.is_blob() {
        EntryKind::File { executable: false }
    } else {
        EntryKind::Other
    })
}

impl Repo {
    fn with_store<R>(&self, store: usize, f: impl FnOnce(&gix::Repository) -> R) -> R {
        if store == 0 {
            f(&self.repo)
        } else {
            let modules = self.modules.borrow();
            f(&modules[store - 1].repo)
        }
    }

    /// Index entries below each of `prefixes` (directories relative to the top, no trailing
    /// `/`), at stage 0, with submodules looked into. A path in conflict is an error: it has
    /// no one staged state to check. A prefix that is, or lies below, a symbolic link is
    /// listed as that link's entry.
    pub fn staged_under(&self, prefixes: &[String]) -> Result<Listing, GitError> {
        let index = self.staged_index()?;
        let mut out = Listing::default();
        // Submodules' names, for their git directories under `modules/`.
        let gitmodules = self.index_gitmodules(index);
        'prefixes: for prefix in prefixes {
            // A link or a submodule at the prefix or above it decides what lies below; so
            // does a sparse directory entry (a sparse index keeps a folder outside the cone
            // as one entry naming its tree): what lies below is read from that tree.
            let parts: Vec<&str> = prefix.split('/').collect();
            for i in 0..parts.len() {
                let at = parts[..=i].join("/");
                if let Some(dir) = index.entry_by_path(format!("{at}/").as_str().into()) {
                    if dir.mode == gix::index::entry::Mode::DIR {
                        if dir.stage_raw() != 0 {
                            return Err(err(
                                Path::new(&at),
                                "is in conflict; resolve it before committing",
                            ));
                        }
                        let rest = parts[i + 1..].join("/");
                        self.descend(
                            0,
                            dir.id,
                            &at,
                            &rest,
                            gitmodules.as_deref(),
                            0,
                            None,
                            &mut out,
                        )?;
                        continue 'prefixes;
                    }
                }
                let Some(entry) = index.entry_by_path(at.as_str().into()) else {
                    continue;
                };
                if entry.stage_raw() != 0 {
                    return Err(err(
                        Path::new(&at),
                        "is in conflict; resolve it before committing",
                    ));
                }
                let kind = kind_of_index_mode(entry.mode);
                match kind {
                    EntryKind::Symlink => out.entries.push(Entry {
                        path: at,
                        id: entry.id,
                        kind,
                        store: 0,
                    }),
                    EntryKind::Gitlink { .. } => {
                        let rest = parts[i + 1..].join("/");
                        self.expand_gitlink(
                            0,
                            &at,
                            &at,
                            entry.id,
                            gitmodules.as_deref(),
                            &rest,
                            0,
                            &mut out,
                        )?;
                    }
                    _ => {}
                }
                continue 'prefixes;
            }
            // The root "" is the whole index (`skill.roots = .`).
            let with_slash = if prefix.is_empty() {
                String::new()
            } else {
                format!("{prefix}/")
            };
            let entries = if prefix.is_empty() {
                index.entries()
            } else {
                match index.prefixed_entries(with_slash.as_bytes().into()) {
                    Some(entries) => entries,
                    None => continue,
                }
            };
            for entry in entries {
                let path = lossy(entry.path(index));
                if entry.stage_raw() != 0 {
                    return Err(err(
                        Path::new(&path),
                        "is in conflict; resolve it before committing",
                    ));
                }
                if entry.mode == gix::index::entry::Mode::DIR {
                    // A sparse directory entry below the prefix: its tree holds what is there.
                    let dir = path.trim_end_matches('/');
                    self.traverse(0, entry.id, dir, dir, gitmodules.as_deref(), 0, &mut out)?;
                    continue;
                }
                let kind = kind_of_index_mode(entry.mode);
                if let EntryKind::Gitlink { .. } = kind {
                    self.expand_gitlink(
                        0,
                        &path,
                        &path,
                        entry.id,
                        gitmodules.as_deref(),
                        "",
                        0,
                        &mut out,
                    )?;
                    continue;
                }
                out.entries.push(Entry {
                    path,
                    id: entry.id,
                    kind,
                    store: 0,
                });
            }
        }
        Ok(out.finish())
    }

    /// The path of every entry of the index, in index order, with what each is: what the
    /// loader model looks for agent roots in. A sparse directory entry whose tree is not
    /// HEAD's tree at that place is read (what the commit brings there); one that is HEAD's
    /// holds nothing the commit changes, and is left out.
    pub fn staged_paths(&self) -> Result<Vec<(String, EntryKind)>, GitError> {
        let mut out = Vec::new();
        self.visit_staged_paths(&mut |path, kind| out.push((lossy(path), kind)))?;
        Ok(out)
    }

    /// [`Repo::staged_paths`] one path at a time, as bytes, without a copy of each (the
    /// pre-commit hook looks at every path of the index for agent roots).
    pub fn visit_staged_paths(
        &self,
        visit: &mut dyn FnMut(&[u8], EntryKind),
    ) -> Result<(), GitError> {
        let index = self.staged_index()?;
        let head = if index.is_sparse() {
            self.repo.head_tree_id_or_empty().ok().map(|id| id.detach())
        } else {
            None
        };
        for entry in index.entries() {
            let raw: &[u8] = entry.path(index).as_ref();
            if entry.mode == gix::index::entry::Mode::DIR {
                let path = lossy(raw);
                let dir = path.trim_end_matches('/');
                if head.and_then(|h| self.subtree(h, dir)) != Some(entry.id) {
                    let mut below = Listing::default();
                    self.traverse(0, entry.id, dir, dir, None, MAX_MODULE_DEPTH, &mut below)?;
                    for e in below.entries {
                        visit(e.path.as_bytes(), e.kind);
                    }
                }
                continue;
            }
            visit(raw, kind_of_index_mode(entry.mode));
        }
        Ok(())
    }

    /// The path of every entry of the tree at `at` (a revision, or HEAD), submodules not
    /// looked into.
    pub fn tree_paths(&self, at: At<'_>) -> Result<Vec<(String, EntryKind)>, GitError> {
        let tree = match at {
            At::Index => return self.staged_paths(),
            At::Head => match self.repo.head_tree_id_or_empty() {
                Ok(id) => id.detach(),
                Err(e) => {
                    return Err(err(
                        self.repo.git_dir(),
                        format!("could not read HEAD: {e}"),
                    ))
                }
            },
            At::Revision(rev) => self.tree_of(rev)?,
        };
        let mut out = Listing::default();
        self.traverse(0, tree, "", "", None, MAX_MODULE_DEPTH, &mut out)?;
        Ok(out.entries.into_iter().map(|e| (e.path, e.kind)).collect())
    }

    /// Whether the index holds below `dir` (relative to the top) exactly what HEAD holds
    /// there: the index's cache tree records a tree for `dir` that is HEAD's tree at `dir`.
    /// `false` whenever that cannot be told cheaply (no record, an invalidated one, a link on
    /// the way, no HEAD): then the caller compares the entries.
    pub fn staged_same_as_head(&self, dir: &str) -> bool {
        if dir.is_empty() {
            return false;
        }
        let Ok(index) = self.staged_index() else {
            return false;
        };
        let Some(mut node) = index.tree() else {
            return false;
        };
        let Ok(head) = self.repo.head_tree_id() else {
            return false;
        };
        // From the top down: the first folder on the way that the index records with HEAD's
        // very tree settles it (what lies below it is the same too), so a commit in one
        // package reads no tree of the others.
        let mut head = head.detach();
        let mut parts = dir.split('/');
        loop {
            if node.num_entries.is_some() && node.id == head {
                return true;
            }
            let Some(part) = parts.next() else {
                return false;
            };
            match node
                .children
                .iter()
                .find(|c| c.name.as_slice() == part.as_bytes())
            {
                Some(child) => node = child,
                None => return false,
            }
            match self.subtree(head, part) {
                Some(id) => head = id,
                None => return false,
            }
        }
    }

    /// The id of the tree at `path` below `tree`, when there is one.
    fn subtree(&self, tree: gix::ObjectId, path: &str) -> Option<gix::ObjectId> {
        let mut current = tree;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            let tree = self.repo.find_tree(current).ok()?;
            let entry = tree.find_entry(part)?;
            if !entry.mode().is_tree() {
                return None;
            }
            current = entry.object_id();
        }
        Some(current)
    }

    /// HEAD's tree entries below each of `prefixes`; none on an unborn branch.
    pub fn head_under(&self, prefixes: &[String]) -> Result<Listing, GitError> {
        let tree = match self.repo.head_tree_id_or_empty() {
            Ok(id) => id,
            Err(e) => {
                return Err(err(
                    self.repo.git_dir(),
                    format!("could not read HEAD: {e}"),
                ))
            }
        };
        // HEAD is compared with the index: a directory the index's cache tree records with
        // HEAD's very tree holds what the index holds, and is not read. After a commit the
        // new trees are loose objects, one file each to open; reading those of every skill
        // was a pre-commit hook's largest cost in a repository of loose objects.
        let index = self.staged_index()?;
        self.list_tree(tree.detach(), prefixes, Some(&Known { index }))
    }

    /// A tree's entries below each of `prefixes`, with submodules looked into; a prefix that
    /// is, or lies below, a symbolic link is listed as that link's entry.
    pub fn tree_under(
        &self,
        tree: gix::ObjectId,
        prefixes: &[String],
    ) -> Result<Listing, GitError> {
        self.list_tree(tree, prefixes, None)
    }

    fn list_tree(
        &self,
        tree: gix::ObjectId,
        prefixes: &[String],
        known: Option<&Known<'_>>,
    ) -> Result<Listing, GitError> {
        let mut out = Listing::default();
        let gitmodules = self.tree_file(0, tree, ".gitmodules");
        for prefix in prefixes {
            self.descend(
                0,
                tree,
                "",
                prefix,
                gitmodules.as_deref(),
                0,
                known,
                &mut out,
            )?;
        }
        Ok(out.finish())
    }

    /// Walks `rest` (a `/`-separated path) down from `tree` of `store` (whose top is `base`
    /// relative to the top), then lists everything below it.
    #[allow(clippy::too_many_arguments)]
    fn descend(
        &self,
        store: usize,
        tree: gix::ObjectId,
        base: &str,
        rest: &str,
        gitmodules: Option<&[u8]>,
        depth: usize,
        known: Option<&Known<'_>>,
        out: &mut Listing,
    ) -> Result<(), GitError> {
        let join = |a: &str, b: &str| {
            if a.is_empty() {
                b.to_owned()
            } else if b.is_empty() {
                a.to_owned()
            } else {
                format!("{a}/{b}")
            }
        };
        let mut current = tree;
        let mut at = base.to_owned();
        let mut in_store = String::new();
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        for (i, part) in parts.iter().enumerate() {
            at = join(&at, part);
            in_store = join(&in_store, part);
            let found = self.with_store(store, |repo| -> Result<_, GitError> {
                let tree = repo.find_tree(current).map_err(|e| {
                    err(
                        Path::new(&at),
                        format!("could not read tree {current}: {e}"),
                    )
                })?;
                Ok(tree.find_entry(*part).map(|e| (e.mode(), e.object_id())))
            })?;
            let Some((mode, id)) = found else {
                return Ok(());
            };
            if mode.is_tree() {
                current = id;
                continue;
            }
            match kind_of_tree_mode(mode) {
                Some(EntryKind::Symlink) => out.entries.push(Entry {
                    path: at,
                    id,
                    kind: EntryKind::Symlink,
                    store,
                }),
                Some(EntryKind::Gitlink { .. }) => {
                    let below = parts[i + 1..].join("/");
                    self.expand_gitlink(store, &at, &in_store, id, gitmodules, &below, depth, out)?;
                }
                _ => {}
            }
            return Ok(());
        }
        match known {
            // The cache tree is the top repository's; submodules have their own indexes.
            Some(known) if store == 0 => self.traverse_known(current, &at, gitmodules, known, out),
            _ => self.traverse(store, current, &at, &in_store, gitmodules, depth, out),
        }
    }

    /// [`Repo::traverse`] of a tree of the top repository, taking from the index every
    /// directory that the index's cache tree records with the same tree.
    fn traverse_known(
        &self,
        tree: gix::ObjectId,
        base: &str,
        gitmodules: Option<&[u8]>,
        known: &Known<'_>,
        out: &mut Listing,
    ) -> Result<(), GitError> {
        // A stack, not recursion: a tree can nest as deep as its author likes.
        let mut stack = vec![(tree, base.to_owned())];
        while let Some((tree, at)) = stack.pop() {
            let entries = match known.same(&at, tree) {
                Some(entries) => entries,
                None => self.with_store(0, |repo| -> Result<_, GitError> {
                    let object = repo.find_tree(tree).map_err(|e| {
                        err(Path::new(&at), format!("could not read tree {tree}: {e}"))
                    })?;
                    let decoded = object.decode().map_err(|e| {
                        err(Path::new(&at), format!("could not read tree {tree}: {e}"))
                    })?;
                    let mut entries = Vec::with_capacity(decoded.entries.len());
                    for e in &decoded.entries {
                        let path = join_path(&at, &lossy(e.filename));
                        if e.mode.is_tree() {
                            stack.push((e.oid.to_owned(), path));
                        } else if let Some(kind) = kind_of_tree_mode(e.mode) {
                            entries.push((path, e.oid.to_owned(), kind));
                        }
                    }
                    Ok(entries)
                })?,
            };
            for (path, id, kind) in entries {
                if let EntryKind::Gitlink { .. } = kind {
                    self.expand_gitlink(0, &path, &path, id, gitmodules, "", 0, out)?;
                    continue;
                }
                out.entries.push(Entry {
                    path,
                    id,
                    kind,
                    store: 0,
                });
            }
            if out.entries.len() + stack.len() > MAX_LISTED {
                return Err(err(
                    Path::new(base),
                    format!("more than {MAX_LISTED} entries below the skill roots (submodules included); not checked"),
                ));
            }
        }
        Ok(())
    }

    /// Every entry of `tree` of `store`, with `base/` in front (`store_base/` for the path
    /// inside the store), submodules looked into.
    #[allow(clippy::too_many_arguments)]
    fn traverse(
        &self,
        store: usize,
        tree: gix::ObjectId,
        base: &str,
        store_base: &str,
        gitmodules: Option<&[u8]>,
        depth: usize,
        out: &mut Listing,
    ) -> Result<(), GitError> {
        let records = self.with_store(store, |repo| -> Result<_, GitError> {
            let tree = repo
                .find_tree(tree)
                .map_err(|e| err(Path::new(base), format!("could not read tree {tree}: {e}")))?;
            let mut recorder = gix::traverse::tree::Recorder::default();
            tree.traverse()
                .breadthfirst(&mut recorder)
                .map_err(|e| err(Path::new(base), e))?;
            Ok(recorder.records)
        })?;
        for record in records {
            let Some(kind) = kind_of_tree_mode(record.mode) else {
                continue;
            };
            let rel = lossy(&record.filepath);
            let path = if base.is_empty() {
                rel.clone()
            } else {
                format!("{base}/{rel}")
            };
            if let EntryKind::Gitlink { .. } = kind {
                let in_store = if store_base.is_empty() {
                    rel.clone()
                } else {
                    format!("{store_base}/{rel}")
                };
                self.expand_gitlink(
                    store, &path, &in_store, record.oid, gitmodules, "", depth, out,
                )?;
                continue;
            }
            out.entries.push(Entry {
                path,
                id: record.oid,
                kind,
                store,
            });
            if out.entries.len() > MAX_LISTED {
                return Err(err(
                    Path::new(base),
                    format!("more than {MAX_LISTED} entries below the skill roots (submodules included); not checked"),
                ));
            }
        }
        Ok(())
    }

    /// Lists the submodule at `path` (relative to the top; `in_store`: relative to the top
    /// of `store`, for its name in `.gitmodules`) at `commit`, below `rest` inside it.
    #[allow(clippy::too_many_arguments)]
    fn expand_gitlink(
        &self,
        store: usize,
        path: &str,
        in_store: &str,
        commit: gix::ObjectId,
        gitmodules: Option<&[u8]>,
        rest: &str,
        depth: usize,
        out: &mut Listing,
    ) -> Result<(), GitError> {
        let opened = if depth >= MAX_MODULE_DEPTH {
            Err(format!(
                "submodules are nested more than {MAX_MODULE_DEPTH} levels deep"
            ))
        } else {
            self.open_module(store, path, in_store, commit, gitmodules)
        };
        let (module, tree) = match opened {
            Ok(found) => found,
            Err(reason) => {
                out.unavailable.push(Unavailable {
                    path: path.to_owned(),
                    commit,
                    reason,
                });
                out.entries.push(Entry {
                    path: path.to_owned(),
                    id: commit,
                    kind: EntryKind::Gitlink { available: false },
                    store,
                });
                return Ok(());
            }
        };
        out.entries.push(Entry {
            path: path.to_owned(),
            id: commit,
            kind: EntryKind::Gitlink { available: true },
            store,
        });
        let inner_modules = self.tree_file(module, tree, ".gitmodules");
        self.descend(
            module,
            tree,
            path,
            rest,
            inner_modules.as_deref(),
            depth + 1,
            None,
            out,
        )
    }

    /// Opens the repository of the submodule at `path` and finds the tree of `commit` in it.
    /// Looks in the checkout's `.git` first, then in `modules/<name>` of the git directory
    /// that holds the gitlink. The reason, when it fails, says what was looked for.
    fn open_module(
        &self,
        store: usize,
        path: &str,
        in_store: &str,
        commit: gix::ObjectId,
        gitmodules: Option<&[u8]>,
    ) -> Result<(usize, gix::ObjectId), String> {
        let mut candidates: Vec<PathBuf> = Vec::new();
        // The checkout counts only when no link is on the way to it: a committed link in its
        // place must not make git-skill open a repository elsewhere.
        let checkout = self.workdir.join(path);
        let mut at = self.workdir.clone();
        let linked = path.split('/').chain([".git"]).any(|part| {
            at.push(part);
            crate::fsutil::is_link(&at)
        });
        if !linked && std::fs::symlink_metadata(checkout.join(".git")).is_ok() {
            candidates.push(checkout);
        }
        let common = self.with_store(store, |repo| repo.common_dir().to_owned());
        for name in module_names(gitmodules, in_store) {
            candidates.push(common.join("modules").join(name));
        }
        let mut tried = Vec::new();
        for candidate in candidates {
            let repo = match gix::open_opts(&candidate, gix::open::Options::isolated()) {
                Ok(repo) => repo,
                Err(_) => continue,
            };
            let git_dir = repo
                .git_dir()
                .canonicalize()
                .unwrap_or_else(|_| repo.git_dir().to_owned());
            tried.push(git_dir.display().to_string());
            let tree = match repo.find_commit(commit) {
                Ok(c) => match c.tree_id() {
                    Ok(t) => t.detach(),
                    Err(_) => continue,
                },
                Err(_) => continue,
            };
            let mut modules = self.modules.borrow_mut();
            let index = match modules.iter().position(|m| m.git_dir == git_dir) {
                Some(i) => i,
                None => {
                    modules.push(Module { repo, git_dir });
                    modules.len() - 1
                }
            };
            return Ok((index + 1, tree));
        }
        Err(if tried.is_empty() {
            "its repository is not here (not checked out, and not in the git directory's modules/)"
                .to_owned()
        } else {
            format!(
                "commit {commit} is not in its repository ({})",
                tried.join(", ")
            )
        })
    }

    /// A small file's bytes in a tree (`.gitmodules`), if it is there.
    fn tree_file(&self, store: usize, tree: gix::ObjectId, path: &str) -> Option<Vec<u8>> {
        self.with_store(store, |repo| {
            let tree = repo.find_tree(tree).ok()?;
            let entry = tree.lookup_entry_by_path(path).ok()??;
            if !entry.mode().is_blob() {
                return None;
            }
            // The size from the header first: a huge blob is not loaded to be refused.
            let size = repo.find_header(entry.object_id()).ok()?.size();
            if size > MAX_SMALL_FILE {
                return None;
            }
            Some(repo.find_object(entry.object_id()).ok()?.detach().data)
        })
    }

    /// The index's `.gitmodules`, when it is a small regular file.
    fn index_gitmodules(&self, index: &gix::index::File) -> Option<Vec<u8>> {
        let entry = index.entry_by_path(".gitmodules".into())?;
        let small = self
            .blob_size(entry.id, ".gitmodules")
            .is_ok_and(|size| size <= MAX_SMALL_FILE);
        small
            .then(|| self.blob(entry.id, ".gitmodules").ok())
            .flatten()
    }

    /// An entry's bytes, from the object store that holds it.
    pub fn entry_blob(&self, entry: &Entry) -> Result<Vec<u8>, GitError> {
        self.with_store(entry.store, |repo| {
            let object = repo.find_object(entry.id).map_err(|e| {
                err(
                    Path::new(&entry.path),
                    format!("could not read blob {}: {e}", entry.id),
                )
            })?;
            Ok(object.detach().data)
        })
    }

    /// A symbolic link's text, when it is of a size a file system allows (`None` otherwise:
    /// no checkout could make such a link).
    pub fn link_text(&self, entry: &Entry) -> Result<Option<String>, GitError> {
        if self.entry_size(entry)? > MAX_LINK_BYTES {
            return Ok(None);
        }
        Ok(Some(
            String::from_utf8_lossy(&self.entry_blob(entry)?).into_owned(),
        ))
    }

    /// An entry's size from its object's header, without loading it.
    pub fn entry_size(&self, entry: &Entry) -> Result<u64, GitError> {
        self.with_store(entry.store, |repo| {
            repo.find_header(entry.id).map(|h| h.size()).map_err(|e| {
                err(
                    Path::new(&entry.path),
                    format!("could not read object {}: {e}", entry.id),
                )
            })
        })
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

/// A state git holds: the index, HEAD (empty on an unborn branch), or a revision's tree.
#[derive(Debug, Clone, Copy)]
pub enum At<'a> {
    Index,
    Head,
    Revision(&'a str),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Index => f.write_str("(staged)"),
            At::Head => f.write_str("at HEAD"),
            At::Revision(rev) => write!(f, "at {rev}"),
        }
    }
}

/// What a path is at some state (see [`Repo::path_at`]).
#[derive(Debug, Clone)]
pub enum PathAt {
    /// A directory (a tree, or a directory of the index).
    Tree,
    Entry(Entry),
    Missing,
}

/// A file git holds at some place, when it is a regular file small enough to read.
#[derive(Debug)]
pub enum RegularBlob {
    Missing,
    Regular(Vec<u8>),
    /// A link, a submodule, a directory, or over the size cap: not read. The reason never
    /// quotes content.
    Refused(String),
}

impl Repo {
    /// The file at `path` (relative to the top) in the index or a revision, read only when it
    /// is a regular file (mode 100644 or 100755) of at most `cap` bytes: the size is looked up
    /// in the object's header before the object is loaded.
    pub fn regular_blob(&self, at: At<'_>, path: &str, cap: u64) -> Result<RegularBlob, GitError> {
        let (id, kind) = match at {
            At::Index => {
                let index = self.staged_index()?;
                match index.entry_by_path(path.as_bytes().into()) {
                    Some(entry) => {
                        use gix::index::entry::Mode;
                        let kind =
                            if entry.mode == Mode::FILE || entry.mode == Mode::FILE_EXECUTABLE {
                                None
                            } else if entry.mode == Mode::SYMLINK {
                                Some("is a symbolic link in the index; it is not followed")
                            } else if entry.mode == Mode::COMMIT {
                                Some("is a submodule in the index, not a file")
                            } else {
                                Some("is not a regular file in the index")
                            };
                        (entry.id, kind)
                    }
                    None => {
                        let below = format!("{path}/");
                        if index
                            .prefixed_entries(below.as_bytes().into())
                            .is_some_and(|e| !e.is_empty())
                        {
                            return Ok(RegularBlob::Refused(
                                "is a directory in the index, not a file".into(),
                            ));
                        }
                        return Ok(RegularBlob::Missing);
                    }
                }
            }
            At::Head | At::Revision(_) => {
                let rev = match at {
                    At::Revision(rev) => rev,
                    _ => "HEAD",
                };
                let Some(tree) = self.tree_at(at)? else {
                    return Ok(RegularBlob::Missing);
                };
                let tree = self
                    .repo
                    .find_tree(tree)
                    .map_err(|e| err(Path::new(rev), e))?;
                match tree.lookup_entry_by_path(path) {
                    Ok(Some(entry)) => {
                        let mode = entry.mode();
                        let kind = if mode.is_blob() {
                            None
                        } else if mode.is_link() {
                            Some("is a symbolic link; it is not followed")
                        } else if mode.is_commit() {
                            Some("is a submodule, not a file")
                        } else {
                            Some("is a directory, not a file")
                        };
                        (entry.object_id(), kind)
                    }
                    Ok(None) => return Ok(RegularBlob::Missing),
                    Err(e) => return Err(err(Path::new(path), e)),
                }
            }
        };
        if let Some(reason) = kind {
            return Ok(RegularBlob::Refused(reason.to_owned()));
        }
        let size = self.blob_size(id, path)?;
        if size > cap {
            return Ok(RegularBlob::Refused(format!(
                "is {size} bytes, over the limit of {cap} bytes"
            )));
        }
        Ok(RegularBlob::Regular(self.blob(id, path)?))
    }

    /// The tree of a state that has one (`None`: the index, or HEAD on an unborn branch).
    pub fn tree_at(&self, at: At<'_>) -> Result<Option<gix::ObjectId>, GitError> {
        match at {
            At::Index => Ok(None),
            At::Head => match self.repo.head_tree_id_or_empty() {
                Ok(id) if id.detach() == gix::ObjectId::empty_tree(self.repo.object_hash()) => {
                    Ok(None)
                }
                Ok(id) => Ok(Some(id.detach())),
                Err(e) => Err(err(
                    self.repo.git_dir(),
                    format!("could not read HEAD: {e}"),
                )),
            },
            At::Revision(rev) => self.tree_of(rev).map(Some),
        }
    }

    /// The entries below `prefixes` at `at` (see [`Repo::staged_under`], [`Repo::tree_under`]).
    pub fn list_under(&self, at: At<'_>, prefixes: &[String]) -> Result<Listing, GitError> {
        match at {
            At::Index => self.staged_under(prefixes),
            At::Head => self.head_under(prefixes),
            At::Revision(rev) => self.tree_under(self.tree_of(rev)?, prefixes),
        }
    }

    /// What `path` (relative to the top, no links followed) is at `at`, looking into
    /// submodules on the way.
    pub fn path_at(&self, at: At<'_>, path: &str) -> Result<PathAt, GitError> {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        if parts.is_empty() {
            return Ok(PathAt::Tree);
        }
        let (mut store, mut tree, start) = match at {
            At::Index => {
                let index = self.staged_index()?;
                if let Some(entry) = index.entry_by_path(path.into()) {
                    let kind = kind_of_index_mode(entry.mode);
                    return Ok(PathAt::Entry(Entry {
                        path: path.to_owned(),
                        id: entry.id,
                        kind,
                        store: 0,
                    }));
                }
                // A submodule above the path: continue inside its commit's tree.
                let mut found = None;
                for i in 0..parts.len() - 1 {
                    let at_path = parts[..=i].join("/");
                    if let Some(entry) = index.entry_by_path(at_path.as_str().into()) {
                        if kind_of_index_mode(entry.mode)
                            == (EntryKind::Gitlink { available: false })
                        {
                            let gitmodules = self.index_gitmodules(index);
                            match self.open_module(
                                0,
                                &at_path,
                                &at_path,
                                entry.id,
                                gitmodules.as_deref(),
                            ) {
                                Ok((module, tree)) => found = Some((module, tree, i + 1)),
                                Err(_) => return Ok(PathAt::Missing),
                            }
                        } else {
                            return Ok(PathAt::Missing);
                        }
                        break;
                    }
                }
                match found {
                    Some(f) => f,
                    None => {
                        let below = format!("{path}/");
                        let has = index
                            .prefixed_entries(below.as_bytes().into())
                            .is_some_and(|e| !e.is_empty());
                        return Ok(if has { PathAt::Tree } else { PathAt::Missing });
                    }
                }
            }
            _ => match self.tree_at(at)? {
                Some(tree) => (0, tree, 0),
                None => return Ok(PathAt::Missing),
            },
        };
        // Read only when a submodule is met on the way.
        let mut top_tree = tree;
        let mut in_store = String::new();
        for (i, part) in parts.iter().enumerate().skip(start) {
            if !in_store.is_empty() {
                in_store.push('/');
            }
            in_store.push_str(part);
            let found = self.with_store(store, |repo| {
                repo.find_tree(tree)
                    .ok()
                    .and_then(|t| t.find_entry(*part).map(|e| (e.mode(), e.object_id())))
            });
            let Some((mode, id)) = found else {
                return Ok(PathAt::Missing);
            };
            let last = i + 1 == parts.len();
            if mode.is_tree() {
                if last {
                    return Ok(PathAt::Tree);
                }
                tree = id;
                continue;
            }
            let kind = kind_of_tree_mode(mode).unwrap_or(EntryKind::Other);
            if last {
                return Ok(PathAt::Entry(Entry {
                    path: path.to_owned(),
                    id,
                    kind,
                    store,
                }));
            }
            if let EntryKind::Gitlink { .. } = kind {
                let full = parts[..=i].join("/");
                let gitmodules = self.tree_file(store, top_tree, ".gitmodules");
                match self.open_module(store, &full, &in_store, id, gitmodules.as_deref()) {
                    Ok((module, sub_tree)) => {
                        store = module;
                        tree = sub_tree;
                        top_tree = sub_tree;
                        in_store.clear();
                        continue;
                    }
                    Err(_) => return Ok(PathAt::Missing),
                }
            }
            return Ok(PathAt::Missing);
        }
        Ok(PathAt::Missing)
    }

    /// A blob's bytes, by its id in hex.
    pub fn blob_hex(&self, id: &str) -> Result<Vec<u8>, GitError> {
        let oid = gix::ObjectId::from_hex(id.as_bytes()).map_err(|e| GitError::Read {
            path: PathBuf::from(id),
            message: format!("not an object id: {e}"),
        })?;
        self.blob(oid, id)
    }

    /// An object's size from its header, without loading it.
    pub fn blob_size(&self, id: gix::ObjectId, path: &str) -> Result<u64, GitError> {
        self.repo
            .find_header(id)
            .map(|h| h.size())
            .map_err(|e| err(Path::new(path), format!("could not read object {id}: {e}")))
    }
}

/// The names `.gitmodules` gives the submodule at `path` (relative to the top of the
/// repository that holds it), then the path itself, git's default name.
fn module_names(gitmodules: Option<&[u8]>, path: &str) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(bytes) = gitmodules {
        if let Ok(file) = gix::config::File::from_bytes_no_includes(
            bytes,
            gix::config::file::Metadata::from(gix::config::Source::Local),
            Default::default(),
        ) {
            if let Some(sections) = file.sections_by_name("submodule") {
                for section in sections {
                    let Some(name) = section.header().subsection_name() else {
                        continue;
                    };
                    let matches = section
                        .value("path")
                        .is_some_and(|p| AsRef::<[u8]>::as_ref(&*p) == path.as_bytes());
                    if matches {
                        names.push(name.to_string());
                    }
                }
            }
        }
    }
    let safe =
        |n: &str| !n.is_empty() && !n.split('/').any(|c| c.is_empty() || c == "." || c == "..");
    names.retain(|n| safe(n));
    if safe(path) && !names.iter().any(|n| n == path) {
        names.push(path.to_owned());
    }
    names
}

impl Repo {
    /// Gitlinks of the index at, above or below `prefixes`: `(path, commit)`.
    pub fn gitlinks_under(
        &self,
        prefixes: &[String],
    ) -> Result<Vec<(String, gix::ObjectId)>, GitError> {
        let index = self.staged_index()?;
        let mut out = Vec::new();
        for prefix in prefixes {
            let parts: Vec<&str> = prefix.split('/').collect();
            for i in 0..parts.len() {
                let at = parts[..=i].join("/");
                if let Some(e) = index.entry_by_path(at.as_str().into()) {
                    if e.mode == gix::index::entry::Mode::COMMIT {
                        out.push((at, e.id));
                    }
                }
            }
            let below = format!("{prefix}/");
            let entries = if prefix.is_empty() {
                Some(index.entries())
            } else {
                index.prefixed_entries(below.as_bytes().into())
            };
            if let Some(entries) = entries {
                for e in entries {
                    if e.mode == gix::index::entry::Mode::COMMIT {
                        out.push((lossy(e.path(index)), e.id));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

impl Repo {
    /// Whether the index or HEAD holds anything at or below `path` (relative to the top).
    pub fn tracks_anything_under(&self, path: &str) -> Result<bool, GitError> {
        // The index is read fresh: a caller that commits may have changed it since.
        let index = gix::index::File::at_or_default(
            self.repo.index_path(),
            self.repo.object_hash(),
            false,
            gix::index::decode::Options::default(),
        )
        .map_err(|e| err(&self.repo.index_path(), e))?;
        let below = format!("{path}/");
        if index.entry_by_path(path.into()).is_some()
            || index
                .prefixed_entries(below.as_bytes().into())
                .is_some_and(|e| !e.is_empty())
        {
            return Ok(true);
        }
        Ok(!matches!(self.path_at(At::Head, path)?, PathAt::Missing))
    }
}

/// A submodule that holds some of a skill's files (or the whole skill).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SubmoduleAt {
    /// The gitlink's path, relative to the top of the work tree.
    pub path: String,
    /// The commit it records.
    pub commit: String,
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::process::Command;

    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "commit.gpgsign=false", "-c", "gc.auto=0"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The loose object file of `id`.
    fn object_file(dir: &Path, id: gix::ObjectId) -> std::path::PathBuf {
        let hex = id.to_string();
        dir.join(".git/objects").join(&hex[..2]).join(&hex[2..])
    }

    fn listing(repo: &Repo, prefixes: &[String], known: bool) -> Result<Listing, GitError> {
        if known {
            repo.head_under(prefixes)
        } else {
            let head = repo.repo.head_tree_id_or_empty().unwrap().detach();
            repo.tree_under(head, prefixes)
        }
    }

    /// HEAD's listing through the index's cache tree is the listing read from HEAD's trees:
    /// unchanged skills come from the index, changed ones (whose cache-tree records git
    /// dropped) from their trees, with links, executables and nested directories.
    #[test]
    fn head_through_the_cache_tree_is_head() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        for s in ["a", "b", "c"] {
            write(dir, &format!("skills/{s}/SKILL.md"), &format!("# {s}\n"));
            write(dir, &format!("skills/{s}/references/deep/x/y.md"), "y\n");
            write(dir, &format!("skills/{s}/scripts/run.sh"), "echo\n");
        }
        write(dir, "other/file.txt", "o\n");
        std::os::unix::fs::symlink("../a/SKILL.md", dir.join("skills/b/link.md")).unwrap();
        git(dir, &["add", "."]);
        git(
            dir,
            &["update-index", "--chmod=+x", "skills/c/scripts/run.sh"],
        );
        git(dir, &["commit", "-qm", "one"]);
        // Staged after the commit: an edit in a, a new file in b, c deleted in part.
        // (Named paths: `git add .` also drops the records of directories whose files are
        // racily clean, as all are in a test.)
        write(dir, "skills/a/SKILL.md", "# a changed\n");
        write(dir, "skills/b/references/new.md", "n\n");
        git(
            dir,
            &["add", "skills/a/SKILL.md", "skills/b/references/new.md"],
        );
        git(dir, &["rm", "-q", "--cached", "skills/c/scripts/run.sh"]);

        let repo = Repo::discover(dir).unwrap().unwrap();
        let prefixes = vec!["skills".to_owned(), "other".to_owned()];
        let through = listing(&repo, &prefixes, true).unwrap();
        let read = listing(&repo, &prefixes, false).unwrap();
        assert_eq!(through.entries, read.entries);
        assert!(read.entries.iter().any(|e| e.path == "skills/a/SKILL.md"));
        assert!(read
            .entries
            .iter()
            .any(|e| e.path == "skills/b/link.md" && e.kind == EntryKind::Symlink));
        assert!(read
            .entries
            .iter()
            .any(|e| e.path == "skills/c/scripts/run.sh"
                && e.kind == EntryKind::File { executable: true }));
        assert!(!read
            .entries
            .iter()
            .any(|e| e.path == "skills/b/references/new.md"));
    }

    /// The shortcut is taken: with the tree objects of an unchanged directory gone, HEAD is
    /// still listed through the index, and only a tree read finds them missing. A changed
    /// directory's trees are read, so their loss is an error, never a silent pass.
    #[test]
    fn unchanged_trees_are_not_read_and_changed_ones_are() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        write(dir, "skills/a/SKILL.md", "# a\n");
        write(dir, "skills/b/references/r.md", "r\n");
        git(dir, &["add", "."]);
        git(dir, &["commit", "-qm", "one"]);
        write(dir, "skills/a/SKILL.md", "# a changed\n");
        git(dir, &["add", "skills/a/SKILL.md"]);

        let tree_of = |rev: &str| {
            let out = Command::new("git")
                .args(["rev-parse", rev])
                .current_dir(dir)
                .output()
                .unwrap();
            gix::ObjectId::from_hex(String::from_utf8(out.stdout).unwrap().trim().as_bytes())
                .unwrap()
        };
        let b = tree_of("HEAD:skills/b");
        let b_refs = tree_of("HEAD:skills/b/references");
        let a = tree_of("HEAD:skills/a");
        std::fs::remove_file(object_file(dir, b)).unwrap();
        std::fs::remove_file(object_file(dir, b_refs)).unwrap();

        let prefixes = vec!["skills".to_owned()];
        let repo = Repo::discover(dir).unwrap().unwrap();
        let through = listing(&repo, &prefixes, true).unwrap();
        assert!(through
            .entries
            .iter()
            .any(|e| e.path == "skills/b/references/r.md"));
        let repo = Repo::discover(dir).unwrap().unwrap();
        assert!(listing(&repo, &prefixes, false).is_err());

        std::fs::remove_file(object_file(dir, a)).unwrap();
        let repo = Repo::discover(dir).unwrap().unwrap();
        let e = listing(&repo, &prefixes, true).unwrap_err().to_string();
        assert!(e.contains("skills/a"), "{e}");
    }
}
