//! The near-duplicate check before a review creates a skill: how close a new skill's name and
//! description come to an existing one's. Hermes users found 152 near-identical skills after a
//! few weeks; one look at names and descriptions catches most of them, and the model is told
//! which skill to patch instead.

use std::collections::BTreeSet;
use std::fmt;

/// Words that say nothing about what a skill is for.
const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "into", "is",
    "it", "its", "of", "on", "or", "that", "the", "this", "to", "use", "used", "using", "when",
    "with", "you", "your", "skill", "skills",
];

/// Name and description closeness, each from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    pub name: f64,
    pub description: f64,
}

impl Score {
    /// Close enough to be the same skill: nearly the same name, or much the same
    /// description, or a related name with an overlapping description.
    pub fn near(&self) -> bool {
        self.name >= 0.8
            || self.description >= 0.6
            || (self.name >= 0.5 && self.description >= 0.35)
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "name {:.0}% alike, description {:.0}% alike",
            self.name * 100.0,
            self.description * 100.0
        )
    }
}

pub fn similarity(name_a: &str, desc_a: &str, name_b: &str, desc_b: &str) -> Score {
    let na = words(name_a);
    let nb = words(name_b);
    // Names: the better of word overlap and character closeness (`deploy-notes` and
    // `deploy-note`).
    let name = jaccard(&na, &nb).max(edit_closeness(&squash(name_a), &squash(name_b)));
    let description = jaccard(&words(desc_a), &words(desc_b));
    Score { name, description }
}

/// Lower-case words of at least two letters, stop words out, a plural `s` dropped.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 2 && !STOP.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.chars().count() >= 3 && !stem.ends_with('s') => stem.to_owned(),
            _ => w,
        })
        .collect()
}

fn squash(name: &str) -> Vec<char> {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let common = a.intersection(b).count();
    common as f64 / (a.len() + b.len() - common) as f64
}

/// 1 - Levenshtein distance / longer length. Names are at most 64 characters.
fn edit_closeness(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    1.0 - prev[b.len()] as f64 / a.len().max(b.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: (&str, &str), b: (&str, &str)) -> bool {
        similarity(a.0, a.1, b.0, b.1).near()
    }

    #[test]
    fn the_same_skill_under_another_name_is_near() {
        assert!(near(
            ("deploy-staging", "How to deploy the staging service."),
            ("staging-deploy", "Deploy the staging service with care.")
        ));
        assert!(near(
            ("deploy-note", "Notes."),
            ("deploy-notes", "Something else entirely.")
        ));
        assert!(near(
            ("pdf-tables", "Extract tables from PDF files into CSV."),
            (
                "pdf-table-extraction",
                "Extracting tables out of PDF files as CSV."
            )
        ));
    }

    #[test]
    fn different_skills_are_not() {
        assert!(!near(
            ("deploy-staging", "How to deploy the staging service."),
            ("pdf-tables", "Extract tables from PDF files into CSV.")
        ));
        assert!(!near(
            (
                "git-bisect",
                "Find the commit that broke a test with git bisect."
            ),
            (
                "git-rebase",
                "Rebase a branch onto main and resolve conflicts."
            )
        ));
        assert!(!near(("a", ""), ("b", "")));
    }
}
