//! The rule set's tables, generated at build time from gitleaks' default configuration
//! (`build/gitleaks.rs`).

/// What an allowlist's regular expressions are matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The secret (the capture group a rule names).
    Secret,
    /// The whole match.
    Match,
    /// The line the match is on.
    Line,
}

/// What makes a match not a secret.
#[derive(Debug)]
pub struct Allowlist {
    pub target: Target,
    /// Every criterion it has must hold (gitleaks' `condition = "AND"`), not any one.
    pub and: bool,
    pub regexes: &'static [&'static str],
    /// Lower-case; a secret that holds one is not a secret.
    pub stopwords: &'static [&'static str],
    /// File paths (what a text alone has none of: never holds).
    pub paths: &'static [&'static str],
}

/// One rule of the set.
#[derive(Debug)]
pub struct Rule {
    /// gitleaks' id (`github-pat`).
    pub id: &'static str,
    pub description: &'static str,
    /// Empty for a rule about a file's path only.
    pub regex: &'static str,
    pub path: &'static str,
    /// The capture group that is the secret; 0: the first group that matched, else the match.
    pub secret_group: i64,
    /// The Shannon entropy the secret must exceed; 0: none.
    pub entropy: f64,
    /// Lower-case; a text without any of them is not searched with this rule.
    pub keywords: &'static [&'static str],
    pub allowlists: &'static [Allowlist],
}

include!(concat!(env!("OUT_DIR"), "/gitleaks_rules.rs"));
