//! Where a symbolic link in a skill root leads, worked out the same way for a work tree and for
//! git objects: by reading link texts and looking paths up, never by asking the file system to
//! follow them. So the hook (the index), CI (a revision) and `scan` (the work tree) judge one
//! link alike, even when its target does not exist on this machine.

/// What a path is, as far as link resolution needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Dir,
    File,
    /// A symbolic link, with its text.
    Link(String),
    Missing,
}

/// How many links one resolution follows before it counts as a loop (as Linux's `ELOOP`).
const MAX_HOPS: usize = 40;

/// Resolves the symbolic link at `link` (relative to the top, `/`-separated) whose text is
/// `target`, following the links met on the way with POSIX semantics (`..` applies to the
/// path as resolved so far). `lookup` says what a resolved path (relative to the top) is.
/// `None` when the path leaves the top: an absolute target, `..` past the top, or a loop.
pub fn resolve(link: &str, target: &str, lookup: &dyn Fn(&str) -> Node) -> Option<String> {
    let mut resolved: Vec<String> = link.split('/').map(str::to_owned).collect();
    resolved.pop();
    let mut pending: std::collections::VecDeque<String> = Default::default();
    if !push_target(target, &mut pending) {
        return None;
    }
    let mut hops = 0;
    while let Some(part) = pending.pop_front() {
        match part.as_str() {
            "" | "." => {}
            ".." => {
                resolved.pop()?;
            }
            name => {
                resolved.push(name.to_owned());
                if let Node::Link(text) = lookup(&resolved.join("/")) {
                    hops += 1;
                    resolved.pop();
                    if hops > MAX_HOPS || !push_target(&text, &mut pending) {
                        return None;
                    }
                }
            }
        }
    }
    Some(resolved.join("/"))
}

/// Puts a link text's components in front of what is left to resolve; false when the text is
/// absolute (it leaves the top by definition).
fn push_target(target: &str, pending: &mut std::collections::VecDeque<String>) -> bool {
    if target.starts_with('/') || target.starts_with('\\') || target.contains(":\\") {
        return false;
    }
    for part in target.split('/').rev() {
        pending.push_front(part.to_owned());
    }
    true
}

/// Resolves a directory path that may pass through links (a skill root such as
/// `.claude/skills` when `.claude` is a link). `None` when it leaves the top.
pub fn resolve_path(path: &str, lookup: &dyn Fn(&str) -> Node) -> Option<String> {
    // A path is a link to itself, taken from the top: resolving `x/.` from the top.
    let mut at = String::new();
    for part in path.split('/').filter(|p| !p.is_empty() && *p != ".") {
        let next = if at.is_empty() {
            part.to_owned()
        } else {
            format!("{at}/{part}")
        };
        at = match lookup(&next) {
            Node::Link(text) => resolve(&next, &text, lookup)?,
            _ => next,
        };
    }
    Some(at)
}

/// How a symbolic link found in a skill root, outside any skill, is judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootLink {
    /// It leads into one of the skill roots (or to nothing, or to a file): what it reaches is
    /// checked there, or is nothing an agent loads as a skill.
    Harmless,
    /// It leads out of the repository: agents would load whatever it points to on each
    /// machine, which no check can see.
    LeavesRepository,
    /// It leads to a directory inside the repository but outside the roots; `skill` when that
    /// directory is a skill (agents load it through the link, unchecked).
    OutsideRoots { resolved: String, skill: bool },
}

/// Judges the link at `link` (relative to the top) with text `target`; `roots` are the skill
/// roots relative to the top, resolved with [`resolve_path`].
pub fn judge_root_link(
    link: &str,
    target: &str,
    roots: &[String],
    lookup: &dyn Fn(&str) -> Node,
) -> RootLink {
    let Some(resolved) = resolve(link, target, lookup) else {
        return RootLink::LeavesRepository;
    };
    // Inside a root counts only where a walk goes: not into `.git`, not deeper than
    // discovery looks.
    let reached = |root: &str| {
        let rest = if root.is_empty() {
            resolved.as_str()
        } else if resolved == root {
            ""
        } else if let Some(rest) = resolved.strip_prefix(&format!("{root}/")) {
            rest
        } else {
            return false;
        };
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        parts.len() <= super::limits::MAX_DEPTH
            && !parts
                .iter()
                .any(|p| super::limits::SKIPPED_DIRS.contains(p))
    };
    if roots.iter().any(|r| reached(r)) {
        return RootLink::Harmless;
    }
    match lookup(&resolved) {
        Node::Dir => {
            let skill = lookup(&format!("{resolved}/SKILL.md")) != Node::Missing;
            RootLink::OutsideRoots { resolved, skill }
        }
        _ => RootLink::Harmless,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn tree(entries: &[(&str, Node)]) -> impl Fn(&str) -> Node {
        let map: HashMap<String, Node> = entries
            .iter()
            .map(|(p, n)| (p.to_string(), n.clone()))
            .collect();
        move |p: &str| {
            if let Some(n) = map.get(p) {
                return n.clone();
            }
            let dir = format!("{p}/");
            if map.keys().any(|k| k.starts_with(&dir)) {
                Node::Dir
            } else {
                Node::Missing
            }
        }
    }

    #[test]
    fn links_resolve_like_posix_paths() {
        let t = tree(&[
            ("a/SKILL.md", Node::File),
            ("skills/up", Node::Link("..".into())),
            ("skills/loop1", Node::Link("loop2".into())),
            ("skills/loop2", Node::Link("loop1".into())),
        ]);
        assert_eq!(resolve("skills/x", "../a", &t).as_deref(), Some("a"));
        assert_eq!(resolve("skills/x", "/etc", &t), None);
        assert_eq!(resolve("skills/x", "../../etc", &t), None);
        // `up` is the top; `up/..` climbs out of it.
        assert_eq!(resolve("skills/x", "up/a", &t).as_deref(), Some("a"));
        assert_eq!(resolve("skills/x", "up/../x", &t), None);
        assert_eq!(resolve("skills/x", "loop1", &t), None);
        assert_eq!(resolve_path("skills/up/a", &t).as_deref(), Some("a"));
    }

    #[test]
    fn root_links_are_judged_by_where_they_lead() {
        let t = tree(&[
            ("outside-skill/SKILL.md", Node::File),
            ("docs/readme.md", Node::File),
            (".agents/skills/real/SKILL.md", Node::File),
        ]);
        let roots = vec![".claude/skills".to_owned(), ".agents/skills".to_owned()];
        let judge = |target: &str| judge_root_link(".claude/skills/linked", target, &roots, &t);
        assert_eq!(
            judge("../../outside-skill"),
            RootLink::OutsideRoots {
                resolved: "outside-skill".into(),
                skill: true
            }
        );
        assert_eq!(judge("/home/me/skill"), RootLink::LeavesRepository);
        assert_eq!(judge("../../../elsewhere"), RootLink::LeavesRepository);
        assert_eq!(judge("../../.agents/skills/real"), RootLink::Harmless);
        assert_eq!(judge("../../docs/readme.md"), RootLink::Harmless);
        assert_eq!(judge("../../nothing"), RootLink::Harmless);
        // Into a root, but where no walk goes: as good as outside. (A walk goes into
        // `node_modules`: agents load skills there.)
        let hidden = tree(&[
            (".claude/skills/node_modules/evil/SKILL.md", Node::File),
            (".claude/skills/a/.skillopt/x/SKILL.md", Node::File),
            (".claude/skills/.git/x/SKILL.md", Node::File),
        ]);
        assert_eq!(
            judge_root_link(
                ".claude/skills/linked",
                "node_modules/evil",
                &roots,
                &hidden
            ),
            RootLink::Harmless
        );
        assert_eq!(
            judge_root_link(".claude/skills/linked", ".git/x", &roots, &hidden),
            RootLink::OutsideRoots {
                resolved: ".claude/skills/.git/x".into(),
                skill: true
            }
        );
        assert_eq!(
            judge("../../docs"),
            RootLink::OutsideRoots {
                resolved: "docs".into(),
                skill: false
            }
        );
    }
}
