//! Step 6, the dry run: MODE 1 edits are applied only where their target occurs exactly once
//! (and does not overlap another edit's); the rest are dropped with the reason kept. A MODE 2
//! rewrite must parse and keep the frontmatter's `name` and `description`.

use serde::{Deserialize, Serialize};

use crate::prompt::contracts::{Edit, EditKind};
use crate::skill::meta;

/// An edit that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    pub edit: Edit,
    pub reason: String,
}

/// The outcome of applying MODE 1 edits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    /// SKILL.md with the kept edits applied.
    pub text: String,
    pub kept: Vec<Edit>,
    pub dropped: Vec<Dropped>,
}

/// Applies `edits` to `original`. Each target must occur exactly once in the original text;
/// two edits whose targets overlap keep the first.
pub fn apply(original: &str, edits: &[Edit]) -> Applied {
    let mut kept: Vec<(usize, &Edit)> = Vec::new();
    let mut dropped = Vec::new();
    for edit in edits {
        let drop = |reason: String| Dropped {
            edit: edit.clone(),
            reason,
        };
        if edit.target.is_empty() {
            dropped.push(drop("the target is empty".into()));
            continue;
        }
        let mut found = original.match_indices(edit.target.as_str());
        let Some((at, _)) = found.next() else {
            dropped.push(drop("the target text does not occur in SKILL.md".into()));
            continue;
        };
        if found.next().is_some() {
            let n = 2 + found.count();
            dropped.push(drop(format!(
                "the target text occurs {n} times in SKILL.md; it must occur exactly once"
            )));
            continue;
        }
        let end = at + edit.target.len();
        if let Some((_, other)) = kept
            .iter()
            .find(|(start, e)| at < start + e.target.len() && *start < end)
        {
            dropped.push(drop(format!(
                "its target overlaps the target of an earlier edit (from {})",
                other.source_cluster_id
            )));
            continue;
        }
        if edit.kind != EditKind::Delete && edit.new.is_empty() {
            dropped.push(drop("a replace or add edit has no new text".into()));
            continue;
        }
        kept.push((at, edit));
    }
    kept.sort_by_key(|(at, _)| *at);
    let mut text = String::with_capacity(original.len());
    let mut from = 0;
    for (at, edit) in &kept {
        text.push_str(&original[from..*at]);
        let end = at + edit.target.len();
        match edit.kind {
            EditKind::Delete => {}
            EditKind::Replace => text.push_str(&edit.new),
            EditKind::Add => {
                text.push_str(&edit.target);
                text.push_str(&edit.new);
            }
        }
        from = end;
    }
    text.push_str(&original[from..]);
    Applied {
        text,
        kept: kept.into_iter().map(|(_, e)| e.clone()).collect(),
        dropped,
    }
}

/// Why a candidate SKILL.md is not acceptable as a rewrite (or after edits).
pub fn check_frontmatter(original: &str, candidate: &str) -> Result<(), String> {
    let (before, _) = meta::parse(original.as_bytes())
        .map_err(|e| format!("the current SKILL.md does not parse: {e}"))?;
    let (after, _) = meta::parse(candidate.as_bytes())
        .map_err(|e| format!("the new SKILL.md does not parse: {e}"))?;
    if after.name != before.name {
        return Err(format!(
            "the frontmatter `name` changed from {:?} to {:?}",
            before.name, after.name
        ));
    }
    if after.description != before.description {
        return Err("the frontmatter `description` changed; a rewrite must keep it".into());
    }
    let body = crate::skill::frontmatter::split(crate::skill::frontmatter::strip_bom(candidate))
        .map(|s| s.body.trim().to_owned())
        .unwrap_or_default();
    if body.is_empty() {
        return Err("the new SKILL.md has no body".into());
    }
    if !body.lines().any(|l| l.trim_start().starts_with('#')) {
        return Err("the new SKILL.md has no section heading".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(kind: EditKind, target: &str, new: &str) -> Edit {
        Edit {
            kind,
            target: target.into(),
            new: new.into(),
            reason: "r".into(),
            source_cluster_id: "c_001".into(),
        }
    }

    const SKILL: &str = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nFill fields by label.\nMerge with any tool.\nMerge with any tool.\n";

    #[test]
    fn edits_apply_where_their_target_occurs_once() {
        let a = apply(
            SKILL,
            &[
                edit(
                    EditKind::Replace,
                    "Fill fields by label.",
                    "Fill fields by their form field names.",
                ),
                edit(EditKind::Delete, "Merge with any tool.\n", ""),
                edit(EditKind::Add, "# PDF\n", "\nRead the form first.\n"),
                edit(EditKind::Replace, "not there", "x"),
                edit(EditKind::Replace, "by label", "overlapping"),
            ],
        );
        assert_eq!(
            a.text,
            "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nRead the form first.\n\nFill fields by their form field names.\nMerge with any tool.\nMerge with any tool.\n"
        );
        assert_eq!(a.kept.len(), 2);
        let reasons: Vec<&str> = a.dropped.iter().map(|d| d.reason.as_str()).collect();
        assert!(reasons[0].contains("occurs 2 times"), "{reasons:?}");
        assert!(reasons[1].contains("does not occur"));
        assert!(reasons[2].contains("overlaps"));
    }

    #[test]
    fn unicode_targets_apply_without_splitting_characters() {
        let text = "---\nname: a\ndescription: b\n---\n# 标题\n\n用标签填写。\n";
        let a = apply(
            text,
            &[edit(EditKind::Replace, "用标签填写。", "用字段名填写。")],
        );
        assert!(a.text.ends_with("用字段名填写。\n"));
    }

    #[test]
    fn rewrites_keep_name_and_description() {
        let ok = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nNew body.\n";
        check_frontmatter(SKILL, ok).unwrap();
        let renamed = ok.replace("name: pdf", "name: pdf2");
        assert!(check_frontmatter(SKILL, &renamed)
            .unwrap_err()
            .contains("`name` changed"));
        let redescribed = ok.replace("Fill PDF forms.", "Do anything.");
        assert!(check_frontmatter(SKILL, &redescribed)
            .unwrap_err()
            .contains("description"));
        assert!(check_frontmatter(SKILL, "no frontmatter")
            .unwrap_err()
            .contains("does not parse"));
        let headless = "---\nname: pdf\ndescription: Fill PDF forms.\n---\nplain text\n";
        assert!(check_frontmatter(SKILL, headless)
            .unwrap_err()
            .contains("heading"));
    }
}
