//! The closure of what agents load at a state git holds, for the hook, the range scan and
//! `diff`: a file reached from the context files and SKILL.md files of `to` is checked, in the
//! role it is reached in, when it changed, or when the change is what makes it reached (an
//! import line, a manifest, a settings key added: "made live by" the file that changed). What
//! is reached at both states and did not change was checked when it landed.

use std::collections::{HashMap, HashSet};

use super::{context_snapshot, Entries, SkillChange};
use crate::closure::git_tree::GitTree;
use crate::closure::reach::{self, Reach};
use crate::closure::Entry;
use crate::git::{At, GitError, PathAt, Repo};
use crate::registry::Kind;

/// The closure of `to` from its `entries` and the SKILL.md files in `roots` (the skill roots
/// the check found: agent folders', plugins', configured ones).
pub(super) fn closure(
    repo: &Repo,
    to: At<'_>,
    entries: &Entries,
    roots: &[(String, String)],
) -> Reach {
    let tree = match &entries.listing {
        Some(paths) => GitTree::with_listing(repo, to, paths.clone()),
        None => GitTree::new(repo, to),
    };
    let roots: Vec<String> = roots.iter().map(|(p, _)| p.clone()).collect();
    reach::of(&tree, &starts(&entries.context, &entries.skill_mds, &roots))
}

/// Adds to `changes` the reached files of `to` (`reach`) that the change brings, and the
/// closure's findings to the files that name what could not be followed.
pub(super) fn add(
    repo: &Repo,
    (from, to): (At<'_>, At<'_>),
    reach: &Reach,
    context: &[(String, Kind)],
    changes: &mut Vec<SkillChange>,
    budget: &mut u64,
) -> Result<(), GitError> {
    if reach.files.is_empty() && reach.notes.is_empty() {
        return Ok(());
    }
    // A file whose references could not all be followed fails wherever it is checked, changed
    // or not (the work tree reports it too): what was cut may be what this change adds.
    for (from, notes) in &reach.notes {
        let cut = notes
            .iter()
            .any(|f| f.severity == crate::guard::Severity::Critical);
        let covered = changes
            .iter()
            .any(|c| c.after.dir == *from || from.starts_with(&format!("{}/", c.after.dir)));
        if !cut || covered {
            continue;
        }
        let kind = context
            .iter()
            .find(|(p, _)| p == from)
            .map(|(_, k)| *k)
            .or_else(|| reach.files.iter().find(|r| r.path == *from).map(|r| r.kind))
            .unwrap_or(Kind::Instructions);
        if let PathAt::Entry(e) = repo.path_at(to, from)? {
            let after = context_snapshot(repo, to, from, &e, kind, budget)?;
            changes.push(SkillChange {
                before: None,
                after,
            });
        }
    }
    let mut changed = Changed {
        repo,
        from,
        to,
        memo: HashMap::new(),
    };
    // What `from` reaches, asked once and only when a change on the way to a file that did
    // not change itself may be what brings it in.
    let mut before: Option<HashSet<(String, Kind)>> = None;
    for r in &reach.files {
        let live_by = if changed.path(&r.path)? {
            None
        } else {
            let Some(on_the_way) = first_changed(&mut changed, &r.chain)? else {
                continue;
            };
            let reached_before = match &before {
                Some(set) => set,
                None => before.insert(reached_at(repo, from)?.0),
            };
            if reached_before
                .iter()
                .any(|(p, k)| *p == r.path && k.strength() >= r.kind.strength())
            {
                continue;
            }
            Some(on_the_way)
        };
        let how = match &live_by {
            Some(file) => format!("{}, made live by {file}", r.by),
            None => r.by.clone(),
        };
        // Already checked as the context file it is: in the stronger of the two roles.
        if let Some(known) = changes
            .iter_mut()
            .find(|c| c.after.context.is_some() && c.after.dir == r.path)
        {
            if known
                .after
                .context
                .is_some_and(|k| k.strength() < r.kind.strength())
            {
                if let PathAt::Entry(e) = repo.path_at(to, &r.path)? {
                    known.after = context_snapshot(repo, to, &r.path, &e, r.kind, budget)?;
                }
            }
            known.after.reached = Some(how);
            continue;
        }
        let PathAt::Entry(after) = repo.path_at(to, &r.path)? else {
            continue;
        };
        let mut after = context_snapshot(repo, to, &r.path, &after, r.kind, budget)?;
        after.reached = Some(how);
        let before = match repo.path_at(from, &r.path)? {
            PathAt::Entry(e) => Some(context_snapshot(repo, from, &r.path, &e, r.kind, budget)?),
            _ => None,
        };
        changes.push(SkillChange { before, after });
    }
    notes(reach, changes);
    Ok(())
}

/// The closure's findings on the files of `changes` that name what could not be followed (a
/// SKILL.md's on its skill).
fn notes(reach: &Reach, changes: &mut [SkillChange]) {
    for change in changes {
        change.after.add_notes(&reach.notes);
    }
}

/// The closure's starting points: the context files, and each SKILL.md in a skill root.
fn starts(context: &[(String, Kind)], skill_mds: &[String], roots: &[String]) -> Vec<Entry> {
    let mut out: Vec<Entry> = context
        .iter()
        .map(|(path, kind)| Entry {
            path: path.clone(),
            kind: *kind,
            skill: None,
        })
        .collect();
    out.extend(
        skill_mds
            .iter()
            .filter(|p| {
                !crate::skill::loader::roots_of(p).is_empty()
                    || p.starts_with("skills/")
                    || p.starts_with("agents/skills/")
                    || roots
                        .iter()
                        .any(|r| r.is_empty() || p.starts_with(&format!("{r}/")))
            })
            .map(|p| reach::skill_entry(p)),
    );
    out
}

/// What a state's closure reaches: each path with its role, and the skill roots marketplaces
/// make there.
type ReachedAt = (HashSet<(String, Kind)>, Vec<String>);

/// What the closure reaches at `at` (a revision or HEAD).
pub(super) fn reached_at(repo: &Repo, at: At<'_>) -> Result<ReachedAt, GitError> {
    let listing: Vec<String> = match repo.tree_paths(at) {
        Ok(paths) => paths.into_iter().map(|(p, _)| p).collect(),
        // No HEAD yet: nothing was reached.
        Err(_) if matches!(at, At::Head) => return Ok((HashSet::new(), Vec::new())),
        Err(e) => return Err(e),
    };
    let plugins = crate::skill::context::plugins(listing.iter().map(String::as_str));
    let context: Vec<(String, Kind)> = listing
        .iter()
        .filter_map(|p| {
            crate::skill::context::classify_in(p, &plugins).map(|c| (p.clone(), c.kind))
        })
        .collect();
    let skill_mds: Vec<String> = listing
        .iter()
        .filter(|p| {
            p.rsplit('/')
                .next()
                .is_some_and(|n| n.eq_ignore_ascii_case("SKILL.md"))
        })
        .cloned()
        .collect();
    let roots: Vec<String> = crate::skill::context::plugins(listing.iter().map(String::as_str))
        .into_iter()
        .map(|plugin| match plugin.as_str() {
            "" => crate::registry::SKILLS.to_owned(),
            p => format!("{p}/{}", crate::registry::SKILLS),
        })
        .collect();
    let tree = GitTree::with_listing(repo, at, listing);
    let found = reach::of(&tree, &starts(&context, &skill_mds, &roots));
    Ok((
        found.files.into_iter().map(|r| (r.path, r.kind)).collect(),
        found.roots.into_iter().map(|(root, _)| root).collect(),
    ))
}

/// The first of `chain` that changed.
fn first_changed(changed: &mut Changed<'_>, chain: &[String]) -> Result<Option<String>, GitError> {
    for path in chain {
        if changed.path(path)? {
            return Ok(Some(path.clone()));
        }
    }
    Ok(None)
}

/// Whether a path differs between the two states, asked once per path.
struct Changed<'r> {
    repo: &'r Repo,
    from: At<'r>,
    to: At<'r>,
    memo: HashMap<String, bool>,
}

impl Changed<'_> {
    fn path(&mut self, path: &str) -> Result<bool, GitError> {
        if let Some(&known) = self.memo.get(path) {
            return Ok(known);
        }
        let entry = |at| -> Result<Option<(gix::ObjectId, crate::git::EntryKind)>, GitError> {
            Ok(match self.repo.path_at(at, path)? {
                PathAt::Entry(e) => Some((e.id, e.kind)),
                _ => None,
            })
        };
        // A link is read as what it leads to, which may change while it does not.
        let after = entry(self.to)?;
        let differs = matches!(after, Some((_, crate::git::EntryKind::Symlink)))
            || entry(self.from)? != after;
        self.memo.insert(path.to_owned(), differs);
        Ok(differs)
    }
}
