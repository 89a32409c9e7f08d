//! The rule registry: one file per category, concatenated in a fixed order.

use std::sync::OnceLock;

use super::rule::Rule;

pub(crate) mod agent_config;
pub(crate) mod credential_exposure;
mod crypto_mining;
pub(crate) mod destructive;
pub(crate) mod execution;
pub(crate) mod exfiltration;
mod hidden_text;
pub(crate) mod network;
pub(crate) mod obfuscation;
mod path_traversal;
pub(crate) mod persistence;
pub(crate) mod privilege_escalation;
pub(crate) mod prompt_injection;
#[cfg(test)]
mod seed_check;
pub mod structural;
pub(crate) mod supply_chain;

/// Every rule, in id order within each category.
pub fn all() -> &'static [Rule] {
    static ALL: OnceLock<Vec<Rule>> = OnceLock::new();
    ALL.get_or_init(|| {
        let parts: &[&[Rule]] = &[
            exfiltration::RULES,
            prompt_injection::RULES,
            destructive::RULES,
            persistence::RULES,
            network::RULES,
            obfuscation::RULES,
            execution::RULES,
            path_traversal::RULES,
            crypto_mining::RULES,
            supply_chain::RULES,
            privilege_escalation::RULES,
            credential_exposure::RULES,
            hidden_text::RULES,
            structural::RULES,
            agent_config::RULES,
        ];
        parts.iter().flat_map(|p| p.iter().copied()).collect()
    })
}

/// The index in [`all`] of the rule with this exact id (analysis hits name their rule).
pub fn index_of(id: &str) -> Option<usize> {
    static INDEX: OnceLock<std::collections::HashMap<&'static str, usize>> = OnceLock::new();
    INDEX
        .get_or_init(|| all().iter().enumerate().map(|(i, r)| (r.id, i)).collect())
        .get(id)
        .copied()
}

/// Looks a rule up by id, any case.
pub fn find(id: &str) -> Option<&'static Rule> {
    all().iter().find(|r| r.id.eq_ignore_ascii_case(id))
}

/// GitHub's scale: over 9 critical, 7 to 8.9 high, 4 to 6.9 medium, under 4 low.
fn security_severity(s: super::Severity) -> &'static str {
    use super::Severity;
    match s {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "2.0",
    }
}

/// Every rule, described for a report's rule list (SARIF).
pub fn infos() -> Vec<crate::report::problem::RuleInfo> {
    use crate::report::problem::{Loudness, RuleInfo};
    all()
        .iter()
        .map(|r| RuleInfo {
            id: r.id,
            summary: r.message,
            explanation: r.explanation,
            labels: [r.category.as_str(), r.severity.as_str()],
            loudness: Loudness::of_severity(r.severity),
            security_severity: Some(security_severity(r.severity)),
            tags: vec!["security", r.category.as_str()],
        })
        .collect()
}
