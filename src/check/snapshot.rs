//! One skill's content, from wherever it comes: a directory of the work tree, git objects (the
//! index or a revision), or either with some files replaced in memory (an optimize candidate).
//! Every check reads a skill through this type, so the same content gets the same verdict
//! wherever it is checked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::git::SubmoduleAt;
use crate::guard::MAX_SCAN_BYTES;
use crate::skill::files::{ReadError, EVALS_READ_CAP, SKILL_MD_READ_CAP};
use crate::skill::{meta, FileEntry, FileKind, SkillFiles};

#[derive(Debug, Clone)]
enum Content {
    /// Bytes read from git objects, by path relative to the skill (files over the scan limit
    /// are not loaded).
    Blobs(HashMap<String, Vec<u8>>),
    /// Read from this directory when asked.
    Dir(PathBuf),
}

/// A skill at some state.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The skill directory relative to the top of the work tree, `/`-separated (or the path
    /// as given, for a skill outside any repository).
    pub dir: String,
    pub dir_name: String,
    /// The root it was found under, as configured.
    pub root: String,
    pub category: Option<String>,
    pub files: SkillFiles,
    /// Submodules its files come from.
    pub submodules: Vec<SubmoduleAt>,
    content: Content,
    /// Files replaced in memory (optimize's candidate SKILL.md).
    overlay: HashMap<String, Vec<u8>>,
    /// The repository's Git LFS store: a pointer is read as the object it names when the
    /// store has it (what a checkout with LFS gives agents).
    lfs: Option<PathBuf>,
    /// What identifies this content without reading it, for a skill read from git objects
    /// (`staged::tree_key`): the key its scan is kept under.
    pub tree: Option<[u8; 32]>,
    /// The findings of a scan of this very content, kept from an earlier run: then only what
    /// lint needs was read, and the check does not scan it again.
    pub scanned: Option<Vec<crate::guard::Finding>>,
    /// Not a skill: one file of the agent context (`dir` is its path, its one file listed by
    /// name), checked as what it is and not linted.
    pub context: Option<crate::skill::context::Kind>,
    /// For a file the closure reached (`crate::closure`): how (`.claude/settings.json
    /// (command: bash .claude/hooks/format.sh)`), and in a range or at a commit, whether the
    /// change made it live.
    pub reached: Option<String>,
    /// Findings about what this content brings in that the scan of its text cannot give (the
    /// closure's: a bound reached, a file out of the repository).
    pub notes: Vec<crate::guard::Finding>,
}

impl Snapshot {
    /// A skill read from git objects: `files` lists it, `blobs` holds the bytes of its regular
    /// files (all but those over the scan limit).
    pub fn from_blobs(
        dir: String,
        dir_name: String,
        root: String,
        category: Option<String>,
        files: SkillFiles,
        blobs: HashMap<String, Vec<u8>>,
    ) -> Snapshot {
        Snapshot {
            dir,
            dir_name,
            root,
            category,
            files,
            submodules: Vec::new(),
            content: Content::Blobs(blobs),
            overlay: HashMap::new(),
            lfs: None,
            tree: None,
            scanned: None,
            context: None,
            reached: None,
            notes: Vec::new(),
        }
    }

    /// A skill directory of the work tree (`dir`: as the repository knows it, `path`: where it
    /// is), listed now and read file by file when checked.
    pub fn from_dir(
        path: &Path,
        dir: String,
        root: String,
        category: Option<String>,
    ) -> Result<Snapshot, ReadError> {
        let files = SkillFiles::read(path)?;
        let dir_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Snapshot {
            dir,
            dir_name,
            root,
            category,
            files,
            submodules: Vec::new(),
            content: Content::Dir(path.to_owned()),
            overlay: HashMap::new(),
            lfs: None,
            tree: None,
            scanned: None,
            context: None,
            reached: None,
            notes: Vec::new(),
        })
    }

    /// One file of the agent context in the work tree: `path` where it is, `rel` its path from
    /// the top (what it is called in reports and policies).
    /// A symbolic link (`CLAUDE.md -> AGENTS.md`) is read through when it leads to a file
    /// inside `top` (the repository's work tree), and refused otherwise.
    pub fn context_file(
        path: &Path,
        rel: String,
        kind: crate::skill::context::Kind,
        top: Option<&Path>,
    ) -> Result<Snapshot, ReadError> {
        let error = |source| ReadError {
            path: path.to_owned(),
            source,
        };
        let mut meta = std::fs::symlink_metadata(path).map_err(error)?;
        let mut path = path.to_owned();
        if meta.file_type().is_symlink() {
            let target = std::fs::canonicalize(&path).map_err(error)?;
            let inside = top
                .and_then(|t| std::fs::canonicalize(t).ok())
                .is_some_and(|t| target.starts_with(t));
            if !inside {
                return Err(error(std::io::Error::other(format!(
                    "it is a link to '{}', outside the repository, which agents read and this check does not",
                    target.display()
                ))));
            }
            meta = std::fs::symlink_metadata(&target).map_err(error)?;
            path = target;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut files = SkillFiles::default();
        files.entries.push(FileEntry {
            path: name.clone(),
            kind: FileKind::File {
                size: meta.len(),
                executable: false,
            },
        });
        Ok(Snapshot {
            dir: rel.clone(),
            dir_name: name,
            root: rel,
            category: None,
            files,
            submodules: Vec::new(),
            content: Content::Dir(path.parent().unwrap_or(Path::new(".")).to_owned()),
            overlay: HashMap::new(),
            lfs: None,
            tree: None,
            scanned: None,
            context: Some(kind),
            reached: None,
            notes: Vec::new(),
        })
    }

    /// Takes the closure's findings about what this content's files bring in (`notes`, by the
    /// path from the top of the file that names it): a context file's own, or those of a
    /// skill's files, each pointed at its file.
    pub fn add_notes(
        &mut self,
        notes: &std::collections::BTreeMap<String, Vec<crate::guard::Finding>>,
    ) {
        for (from, found) in notes {
            let file = if self.context.is_some() {
                (*from == self.dir).then(|| ".".to_owned())
            } else {
                from.strip_prefix(&format!("{}/", self.dir))
                    .map(str::to_owned)
            };
            if let Some(file) = file {
                self.notes.extend(found.iter().cloned().map(|mut f| {
                    f.file = file.clone();
                    f
                }));
            }
        }
    }

    /// The same skill, its Git LFS pointers read through the store `objects`
    /// (`<git dir>/lfs/objects`).
    pub fn with_lfs(mut self, objects: Option<PathBuf>) -> Snapshot {
        self.lfs = objects;
        self
    }

    /// The same skill with the regular file `rel` set to `bytes` (added when new); its mode
    /// stays, a new file is not executable.
    pub fn with_file(mut self, rel: &str, bytes: Vec<u8>) -> Snapshot {
        self.forget_scan();
        let size = bytes.len() as u64;
        match self
            .files
            .entries
            .binary_search_by(|e| e.path.as_str().cmp(rel))
        {
            Ok(i) => {
                let executable = matches!(
                    self.files.entries[i].kind,
                    FileKind::File {
                        executable: true,
                        ..
                    }
                );
                self.files.entries[i].kind = FileKind::File { size, executable };
            }
            Err(i) => self.files.entries.insert(
                i,
                FileEntry {
                    path: rel.to_owned(),
                    kind: FileKind::File {
                        size,
                        executable: false,
                    },
                },
            ),
        }
        if rel == "SKILL.md" {
            self.files.skill_md_size = size;
            self.files.skill_md =
                Some(bytes[..bytes.len().min(SKILL_MD_READ_CAP as usize)].to_vec());
        }
        if rel == crate::eval::EVALS_JSON {
            self.files.evals_json =
                Some(bytes[..bytes.len().min(EVALS_READ_CAP as usize)].to_vec());
        }
        self.overlay.insert(rel.to_owned(), bytes);
        self
    }

    /// The same skill without the file `rel` (nothing when it has none).
    pub fn without_file(mut self, rel: &str) -> Snapshot {
        self.forget_scan();
        self.files.entries.retain(|e| e.path != rel);
        self.overlay.remove(rel);
        if rel == "SKILL.md" {
            self.files.skill_md = None;
            self.files.skill_md_size = 0;
        }
        if rel == crate::eval::EVALS_JSON {
            self.files.evals_json = None;
        }
        self
    }

    /// Changed content is not what was scanned or keyed.
    fn forget_scan(&mut self) {
        self.tree = None;
        self.scanned = None;
    }

    /// The SKILL.md frontmatter, when it parses.
    pub fn meta(&self) -> Option<meta::SkillMeta> {
        let bytes = self.files.skill_md.as_deref()?;
        meta::parse(bytes).ok().map(|(m, _)| m)
    }

    /// The frontmatter's `name`, or the directory's; a context file's path from the top.
    pub fn name(&self) -> String {
        if self.context.is_some() {
            return self.dir.clone();
        }
        self.meta()
            .and_then(|m| m.name)
            .unwrap_or_else(|| self.dir_name.clone())
    }

    /// A file's bytes, by path relative to the skill, as agents get them (a Git LFS pointer
    /// as its object, when the store has it). A work-tree file is read only when it is still a
    /// regular file of at most the scan limit (no link is followed, no FIFO opened), whatever
    /// happened to it since it was listed.
    pub fn read(&self, rel: &str) -> std::io::Result<Vec<u8>> {
        if let Some(bytes) = self.overlay.get(rel) {
            return Ok(bytes.clone());
        }
        let bytes = self.read_stored(rel)?;
        Ok(crate::guard::lfs::smudged(
            bytes,
            self.lfs.as_deref(),
            MAX_SCAN_BYTES,
        ))
    }

    fn read_stored(&self, rel: &str) -> std::io::Result<Vec<u8>> {
        match &self.content {
            Content::Blobs(blobs) => blobs.get(rel).cloned().ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("'{rel}' was not read from git: the skills of this check hold more than the bytes one check reads"),
                )
            }),
            Content::Dir(dir) => {
                match crate::fsutil::read_regular_linked(&dir.join(rel), MAX_SCAN_BYTES) {
                    Ok(Some(bytes)) => Ok(bytes),
                    Ok(None) => Err(std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "it disappeared while the skill was checked",
                    )),
                    Err(crate::fsutil::RegularFileError::Io(e)) => Err(e),
                    Err(e) => Err(std::io::Error::other(e.to_string())),
                }
            }
        }
    }

    /// Bytes of all regular files.
    pub fn total_bytes(&self) -> u64 {
        self.files.total_bytes()
    }
}
