//! Skills at a state git holds — the index (what a commit will record) or a revision — and
//! which of them changed: what the pre-commit hook, the range scan and `diff` check. Read from
//! git objects only, so unstaged edits never change a verdict.
//!
//! The layout rules are the work tree's (`skill::discover`): a skill is the first directory
//! from the root down that holds a `SKILL.md`, at most [`MAX_DEPTH`] levels below it (a
//! changed file deeper than that is an error note, as the work tree's walk reports it);
//! `node_modules` and `.skillopt` are not entered; links in a root are judged by
//! [`links::judge_root_link`]; submodules are looked into (see `git::tree`). So a skill gets the
//! same verdict here as in the work tree.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::check::Snapshot;
use crate::closure::git_tree::node_at;
use crate::git::SubmoduleAt;
use crate::git::{At, Entry, EntryKind, GitError, Listing, PathAt, Repo};
use crate::guard::{within_skill_budget, MAX_SCAN_BYTES};
use crate::skill::discover::Note;
use crate::skill::files::{MAX_ENTRIES, SKILL_MD_READ_CAP};
use crate::skill::limits::SKIPPED_DIRS;
use crate::skill::links::{self, RootLink};
use crate::skill::loader;
use crate::skill::{FileEntry, FileKind, SkillFiles};

mod reached;

/// Untracked files a work-tree check lists at most (`git ls-files --others`).
pub const MAX_UNTRACKED: usize = 100_000;

/// Depth below a root at which a `SKILL.md` is still looked for (as in discovery).
const MAX_DEPTH: usize = crate::skill::limits::MAX_DEPTH;
/// Files nested deeper than this below a skill are not listed (as `SkillFiles::read`).
const MAX_FILE_COMPONENTS: usize = 16;

/// The skills that changed, at their new state, and what could not be checked.
#[derive(Debug, Default)]
pub struct Changed {
    pub skills: Vec<Snapshot>,
    /// Links and submodules the change brings that no skill check covers, as the work tree's
    /// discovery words them (paths absolute). An error note must fail the check.
    pub notes: Vec<Note>,
}

/// A changed skill before and after (`before` is `None` for a new skill).
#[derive(Debug)]
pub struct SkillChange {
    pub before: Option<Snapshot>,
    pub after: Snapshot,
}

/// The roots a check of git's states reads.
#[derive(Debug, Clone, Default)]
pub struct Roots {
    /// Configured or named roots, relative to the top (`""` is the top), as `(path, label)`.
    pub named: Vec<(String, String)>,
    /// Only these: the agent roots of the trees are not added (`--root`, named on purpose).
    pub only: bool,
}

impl Roots {
    /// `named`, and every agent root the trees a check reads hold.
    pub fn with_agents(named: Vec<(String, String)>) -> Roots {
        Roots { named, only: false }
    }

    /// `named` alone.
    pub fn only(named: Vec<(String, String)>) -> Roots {
        Roots { named, only: true }
    }
}

/// `roots` and, unless it names its roots alone, every agent root the trees at `ats` hold, at
/// any depth and in any case (`skill::loader`): what agents load there. The index's paths are
/// in memory; a revision's tree is read whole.
pub fn with_agent_roots(
    repo: &Repo,
    roots: &Roots,
    ats: &[At<'_>],
) -> Result<Vec<(String, String)>, GitError> {
    Ok(agent_roots(repo, roots, ats)?.roots)
}

/// Roots as `(path, label)`, relative to the top.
type RootList = Vec<(String, String)>;

/// What [`agent_roots`] found.
struct AgentRoots {
    roots: RootList,
    /// The symbolic links the index holds (when the index was read): what
    /// [`drop_unchanged`] needs.
    links: Option<Vec<String>>,
    /// Submodules that could not be looked into for agent roots.
    notes: Vec<Note>,
}

/// [`with_agent_roots`], and what goes with it. Agent roots inside a submodule are found
/// too, in a submodule whose commit the last of `ats` changes from the one before it (from
/// HEAD for the index; every one for a single revision): one whose commit did not change
/// brings nothing new.
fn agent_roots(repo: &Repo, roots: &Roots, ats: &[At<'_>]) -> Result<AgentRoots, GitError> {
    let mut out = AgentRoots {
        roots: roots.named.clone(),
        links: None,
        notes: Vec::new(),
    };
    if roots.only {
        return Ok(out);
    }
    for (i, at) in ats.iter().enumerate() {
        let mut finder = loader::RootFinder::default();
        let mut gitlinks = Vec::new();
        match at {
            At::Index => {
                let mut found = Vec::new();
                repo.visit_staged_paths(&mut |path, kind| {
                    finder.add_bytes(path);
                    match kind {
                        EntryKind::Symlink => {
                            found.push(String::from_utf8_lossy(path).into_owned())
                        }
                        EntryKind::Gitlink { .. } => {
                            gitlinks.push(String::from_utf8_lossy(path).into_owned())
                        }
                        _ => {}
                    }
                })?;
                out.links = Some(found);
            }
            _ => {
                for (path, kind) in repo.tree_paths(*at)? {
                    finder.add(&path);
                    if matches!(kind, EntryKind::Gitlink { .. }) {
                        gitlinks.push(path);
                    }
                }
            }
        }
        if i + 1 == ats.len() {
            let before = match (at, i) {
                (At::Index, _) => Some(At::Head),
                (_, 0) => None,
                _ => Some(ats[i - 1]),
            };
            for path in gitlinks {
                let commit = |side: At<'_>| match repo.path_at(side, &path) {
                    Ok(PathAt::Entry(e)) if matches!(e.kind, EntryKind::Gitlink { .. }) => {
                        Some(e.id)
                    }
                    _ => None,
                };
                if before.is_some_and(|b| commit(b) == commit(*at)) {
                    continue;
                }
                let listing = repo.list_under(*at, std::slice::from_ref(&path))?;
                for u in &listing.unavailable {
                    out.notes.push(Note::SubmoduleNotSearched {
                        path: repo.workdir().join(&u.path),
                        reason: u.reason.clone(),
                    });
                }
                for entry in &listing.entries {
                    finder.add(&entry.path);
                }
            }
        }
        let found = finder.finish_utf8().map_err(|path| GitError::Read {
            path: repo.workdir().join(&path),
            message:
                "is not valid UTF-8 and lies in an agent root: git-skill cannot check it; rename it"
                    .into(),
        })?;
        for found in found {
            if !out.roots.iter().any(|(p, _)| *p == found.path) {
                out.roots.push((found.path.clone(), found.path));
            }
        }
    }
    Ok(out)
}

/// Leaves out the roots below which the index holds what HEAD holds (its cache tree says
/// so): nothing there changes, and a monorepo's many roots need not be listed twice for a
/// commit that touches one. A root that holds a link stays: what the link leads to may have
/// changed elsewhere. Without the index's links (`None`), nothing is left out.
fn drop_unchanged(repo: &Repo, roots: &mut Vec<(String, String)>, links: Option<&[String]>) {
    let Some(links) = links else {
        return;
    };
    roots.retain(|(path, _)| {
        let holds_link = links
            .iter()
            .any(|l| path.is_empty() || l == path || l.starts_with(&format!("{path}/")));
        holds_link || !repo.staged_same_as_head(path)
    });
}

/// The agent roots of the work tree, relative to the top: those the index's paths lie in,
/// and those on disk in the folders git tracks (a root not yet added included) and in the
/// checkouts of submodules.
pub fn work_tree_roots(repo: &Repo) -> Result<Vec<loader::FoundRoot>, GitError> {
    let listing = repo.staged_paths()?;
    // What git does not track is loaded all the same (a freshly downloaded
    // `packages/web/.claude/skills/x`). A listing that fails (too many files) leaves the
    // index's roots; `scan` reports the failure itself.
    let untracked = repo.untracked_paths(MAX_UNTRACKED).unwrap_or_default();
    let paths = || {
        listing
            .iter()
            .map(|(p, _)| p.as_str())
            .chain(untracked.iter().map(String::as_str))
    };
    let mut found = loader::roots_in(paths());
    found.extend(loader::roots_on_disk(
        repo.workdir(),
        loader::folders_of(paths()),
    ));
    // A submodule's checkout: its folders, walked (its own index is not read here).
    for (path, kind) in &listing {
        if matches!(kind, EntryKind::Gitlink { .. }) {
            let folders = loader::folders_below(repo.workdir(), path);
            found.extend(loader::roots_on_disk(
                repo.workdir(),
                folders.iter().map(String::as_str),
            ));
        }
    }
    found.sort();
    found.dedup_by(|a, b| a.path == b.path);
    Ok(found)
}

/// The changes between HEAD and the index below the roots (`roots`: directories relative to
/// the top, as `(path, label)`; the agent roots the index holds are added), grouped by the
/// skill that owns them, each skill at its staged state.
pub fn changed_skills(repo: &Repo, roots: &Roots) -> Result<Changed, GitError> {
    let found = agent_roots(repo, roots, &[At::Index])?;
    let mut roots = found.roots;
    drop_unchanged(repo, &mut roots, found.links.as_deref());
    let new = Side::new(repo, At::Index, &roots)?;
    let old = Side::new(repo, At::Head, &roots)?;
    let mut changed = changed(repo, &old, &new, None)?.0;
    changed.notes.extend(found.notes);
    Ok(changed)
}

/// Every skill at `at` below the roots (the agent roots `at` holds added), each as a scan
/// reads it, and the notes about links and submodules: a whole state, compared with nothing.
pub fn skills_at(repo: &Repo, at: At<'_>, roots: &Roots) -> Result<Changed, GitError> {
    let found = agent_roots(repo, roots, &[at])?;
    let new = Side::new(repo, at, &found.roots)?;
    let old = Side {
        repo,
        at,
        roots: new.roots.clone(),
        listing: Listing::default(),
    };
    let mut changed = changed(repo, &old, &new, None)?.0;
    changed.notes.extend(found.notes);
    Ok(changed)
}

/// The same between two revisions (CI range mode): the skills changed from `from` to `to`,
/// each at its content in `to`.
pub fn changed_between_revisions(
    repo: &Repo,
    from: &str,
    to: &str,
    roots: &Roots,
) -> Result<Changed, GitError> {
    let found = agent_roots(repo, roots, &[At::Revision(from), At::Revision(to)])?;
    let old = Side::new(repo, At::Revision(from), &found.roots)?;
    let new = Side::new(repo, At::Revision(to), &found.roots)?;
    let mut changed = changed(repo, &old, &new, None)?.0;
    changed.notes.extend(found.notes);
    Ok(changed)
}

/// The skills changed from revision `from` to revision `to`, or to the index when `to` is
/// `None`, each with its state on both sides: what capability drift compares.
pub fn changes(
    repo: &Repo,
    from: &str,
    to: Option<&str>,
    roots: &Roots,
    known: Known<'_>,
) -> Result<(Vec<SkillChange>, Vec<Note>), GitError> {
    changes_at(
        repo,
        At::Revision(from),
        to.map_or(At::Index, At::Revision),
        roots,
        Content::All,
        known,
    )
}

/// The skills the index changes from HEAD, each at both states (`before` is `None` for a skill
/// HEAD does not have, or when there is no HEAD yet): what the pre-commit hook compares to
/// block only on what a commit introduces. `before` holds only what lint reads (the listing,
/// sizes, links and SKILL.md), not the other files' bytes: see [`staged_changes_whole`].
pub fn staged_changes(
    repo: &Repo,
    roots: &Roots,
    known: Known<'_>,
) -> Result<(Vec<SkillChange>, Vec<Note>), GitError> {
    changes_at(repo, At::Head, At::Index, roots, Content::SkillMd, known)
}

/// [`staged_changes`] with `before` whole, for when HEAD's findings matter (a suppression that
/// does not name its finding holds only for what HEAD suppressed); read only as far as lint
/// needs when HEAD's state was scanned before.
pub fn staged_changes_whole(
    repo: &Repo,
    roots: &Roots,
    known: Known<'_>,
) -> Result<(Vec<SkillChange>, Vec<Note>), GitError> {
    changes_at(repo, At::Head, At::Index, roots, Content::All, known)
}

fn changes_at(
    repo: &Repo,
    from: At<'_>,
    to: At<'_>,
    roots: &Roots,
    before_content: Content,
    known: Known<'_>,
) -> Result<(Vec<SkillChange>, Vec<Note>), GitError> {
    // The agent roots of both sides; HEAD's are not read for the hook (a root only HEAD has
    // holds nothing the commit adds), so its cost stays with the index.
    // Roots named on purpose (`--root`) are all a check looks at.
    let only = roots.only;
    let sides: &[At<'_>] = match from {
        At::Head => &[to],
        _ => &[from, to],
    };
    let found = agent_roots(repo, roots, sides)?;
    let mut roots = found.roots;
    let mut budget = MAX_CHANGE_BYTES;
    // Submodules the change moves that could not be looked into: said, never silently passed.
    let mut notes = found.notes;
    // The context files that changed, and what `to` reaches from all of them and its skills.
    let mut entries = Entries::default();
    let (context, reach) = if only {
        (Vec::new(), Default::default())
    } else {
        let context = context_changes(repo, from, to, &mut budget, &mut entries)?;
        let reach = reached::closure(repo, to, &entries, &roots);
        (context, reach)
    };
    // Skill roots the change makes live: a plugin's new manifest, a marketplace's new entry.
    // Their skills are checked as new, whatever they held before.
    for (root, _) in &reach.roots {
        if !roots.iter().any(|(p, _)| p == root) {
            roots.push((root.clone(), root.clone()));
        }
    }
    let live = live_roots(repo, from, to, &roots, &reach.roots)?;
    if matches!((from, to), (At::Head, At::Index)) {
        drop_unchanged(repo, &mut roots, found.links.as_deref());
        for (root, _) in &live {
            if !roots.iter().any(|(p, _)| p == root) {
                roots.push((root.clone(), root.clone()));
            }
        }
    }
    let mut old = Side::new(repo, from, &roots)?;
    old.listing.entries.retain(|e| {
        !live
            .iter()
            .any(|(root, _)| e.path.starts_with(&format!("{root}/")))
    });
    let new = Side::new(repo, to, &roots)?;
    let (changed, owners) = changed(repo, &old, &new, known)?;
    let mut out = Vec::new();
    for (mut after, (dir, root)) in changed.skills.into_iter().zip(owners) {
        let inside = format!("{dir}/");
        if let Some((_, by)) = live
            .iter()
            .find(|(r, _)| inside.starts_with(&format!("{r}/")))
        {
            after.reached = Some(format!("made live by {by}"));
        }
        let before = if old
            .listing
            .entries
            .iter()
            .any(|e| e.path.starts_with(&inside))
        {
            Some(load(
                repo,
                from,
                &dir,
                &root,
                &after.root,
                &old.listing,
                &mut budget,
                before_content,
                known,
            )?)
        } else {
            None
        };
        out.push(SkillChange { before, after });
    }
    out.extend(context);
    if !only {
        // What the files agents load bring in, as it is in `to`: what changed, or what the
        // change makes live, is checked in the role it is reached in.
        reached::add(
            repo,
            (from, to),
            &reach,
            &entries.context,
            &mut out,
            &mut budget,
        )?;
    }
    notes.extend(changed.notes);
    // A submodule in a skill root that could not be checked is an error of its own: the
    // warning that its agent roots were not searched says nothing more.
    let unavailable: Vec<std::path::PathBuf> = notes
        .iter()
        .filter_map(|n| match n {
            Note::SubmoduleUnavailable { path, .. } => Some(path.clone()),
            _ => None,
        })
        .collect();
    notes.retain(
        |n| !matches!(n, Note::SubmoduleNotSearched { path, .. } if unavailable.contains(path)),
    );
    Ok((out, notes))
}

/// The skill roots among `roots` that are roots at `to` and not at `from`, with what makes
/// them: a plugin's manifest that `from` does not hold, a marketplace entry (`markets`, the
/// roots the closure of `to` found) that `from`'s closure does not make.
fn live_roots(
    repo: &Repo,
    from: At<'_>,
    to: At<'_>,
    roots: &[(String, String)],
    markets: &[(String, String)],
) -> Result<Vec<(String, String)>, GitError> {
    let mut out = Vec::new();
    for (root, _) in roots {
        let Some(plugin) = root.strip_suffix(loader::SKILLS) else {
            continue;
        };
        let plugin = plugin.trim_end_matches('/');
        // An agent folder's `skills/` is a root by its name, not by a manifest.
        let last = plugin.rsplit('/').next().unwrap_or(plugin);
        if crate::registry::is_agent_dir(last) {
            continue;
        }
        for manifest in loader::plugin_manifests(plugin) {
            let at = |side| {
                repo.path_at(side, &manifest)
                    .map(|p| matches!(p, PathAt::Entry(_)))
            };
            if at(to)? && !at(from)? {
                out.push((root.clone(), manifest));
                break;
            }
        }
    }
    if !markets.is_empty() {
        let before = reached::reached_at(repo, from)?.1;
        for (root, by) in markets {
            if !before.contains(root) && !out.iter().any(|(r, _)| r == root) {
                out.push((root.clone(), by.clone()));
            }
        }
    }
    Ok(out)
}

/// What a state holds that the closure starts from: its agent context files and its SKILL.md
/// files (found in the one pass over its paths the context files take).
#[derive(Debug, Default)]
struct Entries {
    context: Vec<(String, crate::skill::context::Kind)>,
    skill_mds: Vec<String>,
    /// Every path of the state, when it was listed whole (a revision).
    listing: Option<Vec<String>>,
}

/// The agent context files (`skill::context`) that differ between `from` and `to`, each at its
/// state in `to` (a deleted one is nothing an agent reads). A symbolic link is read as the file
/// it leads to in the same tree, and always checked; one that leads out of it is left unread,
/// which the check reports (STR010): agents read something the check cannot.
fn context_changes(
    repo: &Repo,
    from: At<'_>,
    to: At<'_>,
    budget: &mut u64,
    entries: &mut Entries,
) -> Result<Vec<SkillChange>, GitError> {
    use crate::skill::context;
    let mut candidates: Vec<(String, EntryKind)> = Vec::new();
    let is_skill_md = |path: &[u8]| {
        let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
        name.eq_ignore_ascii_case(b"SKILL.md")
    };
    match to {
        At::Index => repo.visit_staged_paths(&mut |path, kind| {
            if is_skill_md(path) {
                entries
                    .skill_mds
                    .push(String::from_utf8_lossy(path).into_owned());
            }
            if context::may_be(path) {
                candidates.push((String::from_utf8_lossy(path).into_owned(), kind));
            }
        })?,
        _ => {
            let listing = repo.tree_paths(to)?;
            entries.skill_mds.extend(
                listing
                    .iter()
                    .filter(|(p, _)| is_skill_md(p.as_bytes()))
                    .map(|(p, _)| p.clone()),
            );
            candidates.extend(
                listing
                    .iter()
                    .filter(|(p, _)| context::may_be(p.as_bytes()))
                    .cloned(),
            );
            entries.listing = Some(listing.into_iter().map(|(p, _)| p).collect());
        }
    }
    let plugins = context::plugins(candidates.iter().map(|(p, _)| p.as_str()));
    // Each classified once: the closure starts from them all, the check takes the changed.
    let classified: Vec<(String, EntryKind, crate::skill::context::Kind)> = candidates
        .into_iter()
        .filter_map(|(p, e)| context::classify_in(&p, &plugins).map(|c| (p, e, c.kind)))
        .collect();
    entries.context = classified
        .iter()
        .map(|(p, _, kind)| (p.clone(), *kind))
        .collect();
    // The hook: a folder whose staged tree is HEAD's (the index's cache tree says so without
    // reading it) holds no changed file, asked once per folder.
    let hook = matches!((from, to), (At::Head, At::Index));
    let mut unchanged: HashMap<String, bool> = HashMap::new();
    let mut out = Vec::new();
    for (path, kind, found_kind) in classified {
        // A link is read as what it leads to, which may have changed while it did not: it is
        // always checked (links are few).
        let link = kind == EntryKind::Symlink;
        if hook && !link {
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            let same = *unchanged
                .entry(dir.to_owned())
                .or_insert_with(|| repo.staged_same_as_head(dir));
            if same {
                continue;
            }
        }
        let PathAt::Entry(after) = repo.path_at(to, &path)? else {
            continue;
        };
        let before = match repo.path_at(from, &path)? {
            PathAt::Entry(before)
                if !link && before.id == after.id && before.kind == after.kind =>
            {
                continue
            }
            // What it was, for capability drift (`diff`, the range scan).
            PathAt::Entry(before) => Some(context_snapshot(
                repo, from, &path, &before, found_kind, budget,
            )?),
            _ => None,
        };
        let after = context_snapshot(repo, to, &path, &after, found_kind, budget)?;
        out.push(SkillChange { before, after });
    }
    Ok(out)
}

/// One context file at `at`, as a one-file snapshot (`entry` is its entry there).
pub(crate) fn context_snapshot(
    repo: &Repo,
    at: At<'_>,
    path: &str,
    entry: &Entry,
    kind: crate::skill::context::Kind,
    budget: &mut u64,
) -> Result<Snapshot, GitError> {
    let name = path.rsplit('/').next().unwrap_or(path).to_owned();
    let target = match entry.kind {
        EntryKind::File { .. } => Some(entry.clone()),
        // Read as the file it leads to in the same tree, links on the way followed.
        EntryKind::Symlink => match repo.link_text(entry)? {
            Some(link) => {
                let lookup = |p: &str| node_at(repo, at, p);
                match links::resolve(path, &link, &lookup).map(|t| repo.path_at(at, &t)) {
                    Some(Ok(PathAt::Entry(e))) if matches!(e.kind, EntryKind::File { .. }) => {
                        Some(e)
                    }
                    Some(Err(e)) => return Err(e),
                    _ => None,
                }
            }
            None => None,
        },
        _ => None,
    };
    let mut files = SkillFiles::default();
    let mut blobs = HashMap::new();
    let size = match &target {
        Some(e) => repo.entry_size(e)?,
        None => 0,
    };
    if let Some(e) = &target {
        if size <= MAX_SCAN_BYTES && *budget >= size {
            *budget -= size;
            blobs.insert(name.clone(), repo.entry_blob(e)?);
        }
    }
    files.entries.push(FileEntry {
        path: name.clone(),
        kind: FileKind::File {
            size,
            executable: false,
        },
    });
    let mut snapshot =
        Snapshot::from_blobs(path.to_owned(), name, path.to_owned(), None, files, blobs);
    snapshot.context = Some(kind);
    Ok(snapshot.with_lfs(Some(repo.lfs_objects())))
}

/// One side of a comparison: where it is read from, its roots as they resolve there, and the
/// entries below them.
struct Side<'a> {
    repo: &'a Repo,
    at: At<'a>,
    /// `(configured prefix, effective prefix, label)`; effective `None` when the prefix leads
    /// out of the repository through a link.
    roots: Vec<(String, Option<String>, String)>,
    listing: Listing,
}

impl<'a> Side<'a> {
    fn new(repo: &'a Repo, at: At<'a>, roots: &[(String, String)]) -> Result<Side<'a>, GitError> {
        let prefixes: Vec<String> = roots.iter().map(|(p, _)| p.clone()).collect();
        let mut listing = repo.list_under(at, &prefixes)?;
        // A root that is, or lies below, a link is listed as that link: only those roots are
        // resolved (the common case costs no lookup) and listed where they lead.
        let on_the_way =
            |link: &str, prefix: &str| link == prefix || prefix.starts_with(&format!("{link}/"));
        let links: Vec<String> = listing
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Symlink)
            .filter(|e| prefixes.iter().any(|p| on_the_way(&e.path, p)))
            .map(|e| e.path.clone())
            .collect();
        let mut resolved = Vec::new();
        let mut elsewhere = Vec::new();
        for (prefix, label) in roots {
            let effective = if links.iter().any(|l| on_the_way(l, prefix)) {
                let target = links::resolve_path(prefix, &|p: &str| node_at(repo, at, p));
                elsewhere.extend(target.clone());
                target
            } else {
                Some(prefix.clone())
            };
            resolved.push((prefix.clone(), effective, label.clone()));
        }
        if !links.is_empty() {
            listing.entries.retain(|e| !links.contains(&e.path));
            elsewhere.sort();
            elsewhere.dedup();
            let more = repo.list_under(at, &elsewhere)?;
            listing.entries.extend(more.entries);
            listing.unavailable.extend(more.unavailable);
            listing.entries.sort_by(|a, b| a.path.cmp(&b.path));
            listing.entries.dedup_by(|a, b| a.path == b.path);
        }
        Ok(Side {
            repo,
            at,
            roots: resolved,
            listing,
        })
    }

    fn node(&self, path: &str) -> links::Node {
        node_at(self.repo, self.at, path)
    }

    /// The effective roots, longest first (a path belongs to the innermost root).
    fn effective_roots(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = self
            .roots
            .iter()
            .filter_map(|(_, e, l)| e.as_deref().map(|e| (e, l.as_str())))
            .collect();
        out.sort_by_key(|(e, _)| std::cmp::Reverse(e.len()));
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }
}

/// Skills with a difference between `old` and `new`, at their `new` state, with the
/// `(dir, effective root)` of each, and the notes about links and submodules.
fn changed(
    repo: &Repo,
    old: &Side<'_>,
    new: &Side<'_>,
    known: Known<'_>,
) -> Result<(Changed, Vec<(String, String)>), GitError> {
    let new_map: BTreeMap<&str, &Entry> = new
        .listing
        .entries
        .iter()
        .map(|e| (e.path.as_str(), e))
        .collect();
    let old_map: BTreeMap<&str, &Entry> = old
        .listing
        .entries
        .iter()
        .map(|e| (e.path.as_str(), e))
        .collect();
    let mut out = Changed::default();
    let abs = |rel: &str| repo.workdir().join(rel);

    // Roots that now lead out of the repository through a link.
    for ((prefix, effective, _), (_, old_effective, _)) in new.roots.iter().zip(&old.roots) {
        if effective.is_none() && old_effective.is_some() {
            out.notes.push(Note::RootOutside {
                path: abs(prefix),
                target: abs(prefix),
            });
        }
    }

    let mut changed: Vec<&str> = Vec::new();
    for (path, entry) in &new_map {
        match old_map.get(path) {
            Some(before) if before.id == entry.id && before.kind == entry.kind => {}
            _ => changed.push(path),
        }
    }
    changed.extend(
        old_map
            .keys()
            .filter(|p| !new_map.contains_key(*p))
            .copied(),
    );
    // A root that now resolves elsewhere: everything in it is new to the roots.
    let moved_roots: BTreeSet<&str> = new
        .roots
        .iter()
        .zip(&old.roots)
        .filter(|((_, e, _), (_, o, _))| e.is_some() && e != o)
        .filter_map(|((_, e, _), _)| e.as_deref())
        .collect();
    if !moved_roots.is_empty() {
        for path in new_map.keys() {
            if moved_roots.iter().any(|r| below(path, r).is_some()) {
                changed.push(path);
            }
        }
        changed.sort_unstable();
        changed.dedup();
    }

    // A SKILL.md in any case marks a skill, as on the case-insensitive file systems where
    // agents load `skill.md` as SKILL.md (the work tree's walk counts it too; lint then says).
    let marked = |map: &BTreeMap<&str, &Entry>| -> BTreeSet<String> {
        map.keys()
            .filter_map(|p| {
                let (dir, name) = p.rsplit_once('/')?;
                name.eq_ignore_ascii_case("SKILL.md")
                    .then(|| dir.to_owned())
            })
            .collect()
    };
    let (new_marked, old_marked) = (marked(&new_map), marked(&old_map));
    // A folder that differs only in case from a skill's is that skill on macOS and Windows
    // checkouts: it is checked as a skill (without a SKILL.md of its own, lint says so).
    let new_folded: BTreeSet<String> = new_marked.iter().map(|d| d.to_ascii_lowercase()).collect();
    let is_skill = |dir: &str| {
        let inside = format!("{dir}/");
        let remains = new_map
            .range(inside.as_str()..)
            .next()
            .is_some_and(|(p, _)| p.starts_with(&inside));
        new_marked.contains(dir)
            || (old_marked.contains(dir) && remains)
            || (remains && new_folded.contains(&dir.to_ascii_lowercase()))
    };
    let new_roots = new.effective_roots();
    let old_roots = old.effective_roots();
    let unavailable: HashMap<&str, &crate::git::Unavailable> = new
        .listing
        .unavailable
        .iter()
        .map(|u| (u.path.as_str(), u))
        .collect();
    let mut owners: BTreeMap<String, (String, String)> = BTreeMap::new(); // dir -> (root, label)
    for path in changed {
        // A submodule whose content could not be listed: whatever it holds is unchecked.
        if let Some(u) = unavailable.get(path) {
            out.notes.push(Note::SubmoduleUnavailable {
                path: abs(&u.path),
                commit: u.commit.to_string(),
                reason: u.reason.clone(),
            });
        }
        let Some((root, label)) = new_roots
            .iter()
            .chain(old_roots.iter())
            .find(|(r, _)| below(path, r).is_some())
            .copied()
        else {
            continue;
        };
        match owner(path, root, &is_skill) {
            Owner::Skill(dir) => {
                owners
                    .entry(dir)
                    .or_insert_with(|| (root.to_owned(), label.to_owned()));
            }
            Owner::TooDeep(dir) => {
                let note = Note::TooDeep { path: abs(&dir) };
                if !out.notes.iter().any(|n| n.to_string() == note.to_string()) {
                    out.notes.push(note);
                }
            }
            Owner::Skipped | Owner::None => {}
        }
    }

    // Links in the roots outside any skill, judged as the work tree judges them: reported when
    // the commit brings the link or changes what it leads to.
    for (path, entry) in &new_map {
        if entry.kind != EntryKind::Symlink {
            continue;
        }
        let Some((root, _)) = new_roots
            .iter()
            .find(|(r, _)| below(path, r).is_some())
            .copied()
        else {
            continue;
        };
        if !matches!(
            owner(path, root, &is_skill),
            Owner::None | Owner::TooDeep(_)
        ) {
            continue;
        }
        let judge = |side: &Side<'_>, entry: &Entry| -> Result<(String, RootLink), GitError> {
            let Some(target) = repo.link_text(entry)? else {
                return Ok((String::new(), RootLink::LeavesRepository));
            };
            let roots: Vec<String> = side
                .effective_roots()
                .iter()
                .map(|(r, _)| (*r).to_owned())
                .collect();
            let verdict = links::judge_root_link(path, &target, &roots, &|p: &str| side.node(p));
            Ok((target, verdict))
        };
        let (target, verdict) = judge(new, entry)?;
        if verdict == RootLink::Harmless {
            continue;
        }
        let before = match old_map.get(path) {
            Some(old_entry) if old_entry.kind == EntryKind::Symlink => {
                Some(judge(old, old_entry)?.1)
            }
            _ => None,
        };
        if before.as_ref() == Some(&verdict) {
            continue;
        }
        out.notes.push(match verdict {
            RootLink::LeavesRepository => Note::LinkLeavesRepository {
                path: abs(path),
                target,
            },
            RootLink::OutsideRoots { resolved, skill } => Note::SymlinkLeavesRoot {
                path: abs(path),
                target: abs(&resolved),
                skill,
            },
            RootLink::Harmless => continue,
        });
    }

    // A root spelled otherwise than agents spell it is one on case-insensitive checkouts.
    let mut variants: Vec<&str> = owners
        .values()
        .map(|(root, _)| root.as_str())
        .filter(|root| loader::is_case_variant(root))
        .collect();
    variants.sort_unstable();
    variants.dedup();
    for root in variants {
        out.notes.push(Note::CaseVariant {
            path: abs(root),
            canonical: loader::canonical(root),
        });
    }
    let mut dirs = Vec::new();
    let mut budget = MAX_CHANGE_BYTES;
    for (dir, (root, label)) in owners {
        out.skills.push(load(
            repo,
            new.at,
            &dir,
            &root,
            &label,
            &new.listing,
            &mut budget,
            Content::All,
            known,
        )?);
        dirs.push((dir, root));
    }
    Ok((out, dirs))
}

/// What follows `root` in `path` (both relative to the top; the root "" is the top itself),
/// when `path` lies below it.
fn below<'a>(path: &'a str, root: &str) -> Option<&'a str> {
    if root.is_empty() {
        return (!path.is_empty()).then_some(path);
    }
    path.strip_prefix(root)?.strip_prefix('/')
}

enum Owner {
    Skill(String),
    /// Below the depth a walk goes (the directory where it stopped).
    TooDeep(String),
    /// Below `.git`, or one of a skill's own records.
    Skipped,
    None,
}

/// The skill that owns `path` (below `root`): the first directory from the root down that is a
/// skill, as the work tree's walk finds it.
fn owner(path: &str, root: &str, is_skill: &dyn Fn(&str) -> bool) -> Owner {
    let Some(rest) = below(path, root) else {
        return Owner::None;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let mut dir = root.to_owned();
    for (depth, part) in parts.iter().enumerate() {
        if depth > MAX_DEPTH {
            // Deeper than the walk of the work tree goes: a skill there is not checked, and
            // that fails the check as the work tree's note does.
            return Owner::TooDeep(dir);
        }
        if is_skill(&dir) {
            // git-skill's own records inside the skill are not skill content; any other file
            // under `.skillopt/` is.
            return if crate::skill::layout::is_record(&parts[depth..].join("/")) {
                Owner::Skipped
            } else {
                Owner::Skill(dir)
            };
        }
        if depth + 1 == parts.len() {
            break;
        }
        if SKIPPED_DIRS.contains(part) {
            return Owner::Skipped;
        }
        dir = if dir.is_empty() {
            (*part).to_owned()
        } else {
            format!("{dir}/{part}")
        };
    }
    Owner::None
}

/// The most bytes read from git for the skills of one check, all together: a commit touching
/// many large skills makes the check refuse (the files left unread are findings), not exhaust
/// memory.
const MAX_CHANGE_BYTES: u64 = 256 << 20;

/// Scans made before, by what identifies a skill's content without reading its files
/// ([`tree_key`]): a skill found there is read only as far as lint needs (the listing and
/// SKILL.md), and carries the findings (`Snapshot::scanned`).
pub type Known<'a> = Option<&'a KnownScans<'a>>;

/// See [`Known`].
pub struct KnownScans<'a> {
    /// The findings kept for a tree key, if any.
    pub scans: &'a dyn Fn(&[u8; 32]) -> Option<Vec<crate::guard::Finding>>,
    /// Leave the files of a skill found unread (the hook: nothing else reads them). The range
    /// scan reads them still, for capability drift.
    pub skip_reads: bool,
}

/// How much of a skill [`load`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    /// Every file within the bounds: for a scan.
    All,
    /// The listing, sizes and links, and SKILL.md: enough to lint.
    SkillMd,
}

/// The skill at `dir` as `listing` holds it, as much of it as `content` says.
#[allow(clippy::too_many_arguments)]
fn load(
    repo: &Repo,
    at: At<'_>,
    dir: &str,
    root: &str,
    label: &str,
    listing: &Listing,
    budget: &mut u64,
    content: Content,
    known: Known<'_>,
) -> Result<Snapshot, GitError> {
    let prefix = format!("{dir}/");
    let mut files = SkillFiles::default();
    let mut blobs = HashMap::new();
    let mut submodules = Vec::new();
    let mut read_total = 0;
    let start = listing
        .entries
        .partition_point(|e| e.path.as_str() < prefix.as_str());
    let entries = || {
        listing.entries[start..]
            .iter()
            .take_while(|e| e.path.starts_with(&prefix))
    };
    let rel_to_root = below(dir, root).unwrap_or(dir);
    let (category, dir_name) = match rel_to_root.rsplit_once('/') {
        Some((c, n)) => (Some(c.to_owned()), n.to_owned()),
        None => (None, rel_to_root.to_owned()),
    };
    // A skill scanned before in this very state is read only as far as lint needs.
    let (mut tree, mut scanned, mut encodings) = (None, None, None);
    if let (Content::All, Some(known)) = (content, known) {
        let names: Vec<&str> = entries()
            .filter(|e| matches!(e.kind, EntryKind::File { .. }))
            .map(|e| &e.path[prefix.len()..])
            .collect();
        let found = crate::git::attributes::working_tree_encodings(repo, at, dir, &names)?;
        let key = tree_key(repo, &dir_name, prefix.len(), entries(), &found)?;
        scanned = (known.scans)(&key);
        tree = Some(key);
        encodings = Some(found);
    }
    let content = match (&scanned, known) {
        (Some(_), Some(k)) if k.skip_reads => Content::SkillMd,
        _ => content,
    };
    for entry in entries() {
        let rel = entry.path[prefix.len()..].to_owned();
        if crate::skill::layout::is_record(&rel) {
            // Read like any file (a scan looks at what a record holds), listed apart; one
            // that is not a regular file is listed with the skill's files, as what it is.
            if let EntryKind::File { executable } = entry.kind {
                let size = repo.entry_size(entry)?;
                if content == Content::All && size <= MAX_SCAN_BYTES && *budget >= size {
                    *budget -= size;
                    blobs.insert(rel.clone(), repo.entry_blob(entry)?);
                }
                files.records.push(FileEntry {
                    path: rel,
                    kind: FileKind::File { size, executable },
                });
                continue;
            }
        }
        if rel.split('/').count() > MAX_FILE_COMPONENTS {
            files.too_deep = true;
            continue;
        }
        if files.entries.len() >= MAX_ENTRIES {
            files.truncated = true;
            break;
        }
        let kind = match entry.kind {
            EntryKind::File { executable } => {
                let size = repo.entry_size(entry)?;
                // Over the scan limits (the file's, or what is left of the skill's): listed with
                // its size, never loaded; the scan refuses it by the same rules.
                let wanted =
                    content == Content::All || rel == "SKILL.md" || rel == crate::eval::EVALS_JSON;
                if wanted
                    && size <= MAX_SCAN_BYTES
                    && within_skill_budget(&mut read_total, size)
                    && *budget >= size
                {
                    *budget -= size;
                    let bytes = repo.entry_blob(entry)?;
                    if rel == "SKILL.md" {
                        files.skill_md =
                            Some(bytes[..bytes.len().min(SKILL_MD_READ_CAP as usize)].to_vec());
                    }
                    if rel == crate::eval::EVALS_JSON {
                        files.evals_json = Some(bytes.clone());
                    }
                    blobs.insert(rel.clone(), bytes);
                }
                if rel == "SKILL.md" {
                    files.skill_md_size = size;
                }
                FileKind::File { size, executable }
            }
            EntryKind::Symlink => match repo.link_text(entry)? {
                Some(target) => FileKind::Symlink {
                    target: target.into(),
                },
                None => FileKind::Special,
            },
            // Its files follow in the listing; the gitlink itself is not a file.
            EntryKind::Gitlink { .. } => {
                submodules.push(SubmoduleAt {
                    path: entry.path.clone(),
                    commit: entry.id.to_string(),
                });
                continue;
            }
            EntryKind::Other => FileKind::Special,
        };
        files.entries.push(FileEntry { path: rel, kind });
    }
    files.entries.sort_by(|a, b| a.path.cmp(&b.path));
    if content == Content::All {
        files.checkout_encodings = match encodings.take() {
            Some(found) => found,
            None => {
                let names: Vec<&str> = files
                    .entries
                    .iter()
                    .filter(|e| matches!(e.kind, FileKind::File { .. }))
                    .map(|e| e.path.as_str())
                    .collect();
                crate::git::attributes::working_tree_encodings(repo, at, dir, &names)?
            }
        };
    }
    // Submodules that hold the whole skill (a gitlink above it).
    for entry in &listing.entries {
        if matches!(entry.kind, EntryKind::Gitlink { .. })
            && prefix.starts_with(&format!("{}/", entry.path))
        {
            submodules.push(SubmoduleAt {
                path: entry.path.clone(),
                commit: entry.id.to_string(),
            });
        }
    }
    submodules.sort_by(|a, b| a.path.cmp(&b.path));
    let mut snapshot = Snapshot::from_blobs(
        dir.to_owned(),
        dir_name,
        label.to_owned(),
        category,
        files,
        blobs,
    );
    snapshot.submodules = submodules;
    snapshot.tree = tree;
    snapshot.scanned = scanned;
    Ok(snapshot.with_lfs(Some(repo.lfs_objects())))
}

/// What identifies the content of a skill read from git, as a scan of it sees it, without
/// reading its files: each entry's path, kind, mode and object id (submodules' files
/// included), the folder's name (run instructions resolve paths through it), the encodings a
/// checkout writes files in, and for each Git LFS pointer (when the repository has an LFS
/// store, blobs of at most a pointer's size are read to tell) whether the store holds its
/// object, by the object file's size and modification time. Two states with one key get one scan.
fn tree_key<'e>(
    repo: &Repo,
    dir_name: &str,
    prefix: usize,
    entries: impl Iterator<Item = &'e Entry>,
    encodings: &[(String, String)],
) -> Result<[u8; 32], GitError> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(b"git-skill skill tree 1");
    field(dir_name.as_bytes());
    let objects = repo.lfs_objects();
    // Without a store no pointer is read as an object: no blob needs reading to tell.
    let lfs = objects.is_dir();
    for entry in entries {
        field(&entry.path.as_bytes()[prefix..]);
        let kind: &[u8] = match entry.kind {
            EntryKind::File { executable: true } => b"x",
            EntryKind::File { executable: false } => b"f",
            EntryKind::Symlink => b"l",
            EntryKind::Gitlink { .. } => b"g",
            EntryKind::Other => b"o",
        };
        field(kind);
        field(entry.id.as_bytes());
        if lfs
            && matches!(entry.kind, EntryKind::File { .. })
            && repo.entry_size(entry)? <= crate::guard::lfs::MAX_POINTER_BYTES as u64
        {
            if let Some(pointer) = crate::guard::lfs::parse(&repo.entry_blob(entry)?) {
                let object = crate::guard::lfs::object_path(&objects, &pointer.oid);
                let state = match std::fs::symlink_metadata(&object) {
                    Ok(m) => format!(
                        "{} {:?}",
                        m.len(),
                        m.modified()
                            .ok()
                            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    ),
                    Err(_) => "missing".to_owned(),
                };
                field(state.as_bytes());
            }
        }
    }
    for (path, encoding) in encodings {
        field(path.as_bytes());
        field(encoding.as_bytes());
    }
    Ok(h.finalize().into())
}
