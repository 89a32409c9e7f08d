//! The closure as the scans report it: the files reached beyond those agents load by
//! themselves, each with the role it is reached in and how, and the findings about what could
//! not be followed, the same in every mode (the work tree, the hook, a range, `diff`).

use std::collections::BTreeMap;

use super::{Entry, Tree};
use crate::guard::rules::agent_config::{CFG011, CFG012};
use crate::guard::Finding;
use crate::registry::Kind;

/// What the closure adds to a scan.
#[derive(Debug, Default)]
pub struct Reach {
    /// Files reached, each with the role it is reached in and how (`.claude/settings.json:
    /// command: bash .claude/hooks/format.sh`), and the files on the way to it.
    pub files: Vec<Reached>,
    /// Findings about what a file brings in, by that file's path.
    pub notes: BTreeMap<String, Vec<Finding>>,
    /// Skill roots a marketplace made live, with the marketplace.
    pub roots: Vec<(String, String)>,
}

/// One file reached.
#[derive(Debug, Clone)]
pub struct Reached {
    pub path: String,
    pub kind: Kind,
    /// How, for reports: the file that brings it in and the words that do.
    pub by: String,
    /// The files from an entry down to the one that brings it in.
    pub chain: Vec<String>,
}

/// The closure of `entries` in `tree`, with the default bounds.
pub fn of(tree: &dyn Tree, entries: &[Entry]) -> Reach {
    let found = super::follow(tree, entries, super::Limits::default());
    let mut notes: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    for cut in &found.cut {
        notes
            .entry(cut.from.clone())
            .or_default()
            .push(crate::guard::context::note(
                &CFG011, &cut.from, 0, &cut.what, &cut.what,
            ));
    }
    for out in &found.outside {
        notes
            .entry(out.from.clone())
            .or_default()
            .push(crate::guard::context::note(
                &CFG012,
                &out.from,
                out.line,
                &out.target,
                &out.target,
            ));
    }
    // One finding per rule and line of a file: a hundred cuts are one reason to fail.
    for list in notes.values_mut() {
        list.sort_by(|a, b| (a.rule, a.line).cmp(&(b.rule, b.line)));
        list.dedup_by(|a, b| a.rule == b.rule && a.line == b.line);
    }
    Reach {
        files: found
            .reached
            .into_iter()
            .map(|r| Reached {
                // What names it can be a command line with a key in it.
                by: crate::redact::redact(&crate::report::one_line(
                    &format!("{} ({})", r.from, r.how),
                    200,
                )),
                path: r.path,
                kind: r.kind,
                chain: r.chain,
            })
            .collect(),
        notes,
        roots: found.roots,
    }
}

/// The entry of a skill's SKILL.md at `path` (`<skill>/SKILL.md`).
pub fn skill_entry(path: &str) -> Entry {
    Entry {
        path: path.to_owned(),
        kind: Kind::Instructions,
        skill: Some(path.rsplit_once('/').map_or("", |(d, _)| d).to_owned()),
    }
}
