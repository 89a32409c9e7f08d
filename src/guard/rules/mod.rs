//! The rule registry: one file per category, concatenated in a fixed order.

use std::sync::OnceLock;

use super::rule::Rule;

mod hidden_text;
mod structural;

/// Every rule, in id order within each category.
pub fn all() -> &'static [Rule] {
    static ALL: OnceLock<Vec<Rule>> = OnceLock::new();
    ALL.get_or_init(|| {
        let parts: &[&[Rule]] = &[hidden_text::RULES, structural::RULES];
        parts.iter().flat_map(|p| p.iter().copied()).collect()
    })
}

/// Looks a rule up by id, any case.
pub fn find(id: &str) -> Option<&'static Rule> {
    all().iter().find(|r| r.id.eq_ignore_ascii_case(id))
}
