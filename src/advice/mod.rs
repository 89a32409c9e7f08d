//! What a user can do about an error: how the run ends and what to try next.
//!
//! Every library error a command can return implements [`Advise`], here, beside the others, so
//! the wording of hints stays consistent and the binary only renders: `error:` (the error's
//! message), `caused by:` (its sources), `hint:` (the advice). Hints name the command to run or
//! the setting to change; they never repeat the message. Commands add a hint of their own only
//! where they know more (which flag, which revision).

mod git;
mod model;
mod nearest;
mod ops;
mod optimize;
mod signal;

/// What went wrong, broadly: it decides nothing of the message, only how the run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Something the user asked for or has in the repository: a path, a state, an argument.
    User,
    /// The configuration (git config, environment, a policy file) is wrong.
    Config,
    /// git-skill or the system failed: an I/O error, a bug.
    Internal,
}

/// How an error ends the run, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    pub kind: Kind,
    pub hints: Vec<String>,
}

impl Advice {
    /// No hint: the message says what to do, or there is nothing to do.
    pub fn bare(kind: Kind) -> Self {
        Advice {
            kind,
            hints: Vec::new(),
        }
    }

    pub fn new(kind: Kind, hint: impl Into<String>) -> Self {
        Advice {
            kind,
            hints: vec![hint.into()],
        }
    }

    pub fn user(hint: impl Into<String>) -> Self {
        Advice::new(Kind::User, hint)
    }

    /// `hint` when there is one.
    pub fn maybe(kind: Kind, hint: Option<String>) -> Self {
        Advice {
            kind,
            hints: hint.into_iter().collect(),
        }
    }

    /// One more hint after these.
    pub fn and(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }
}

/// An error that knows how it ends a run and what the user can do about it.
pub trait Advise: std::error::Error + Send + Sync + 'static {
    fn advice(&self) -> Advice;
}

/// At most a dozen items, then "and N more".
fn listing(items: &[String]) -> String {
    const LISTED: usize = 12;
    let mut text = items
        .iter()
        .take(LISTED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > LISTED {
        text.push_str(&format!(", and {} more", items.len() - LISTED));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_listing_is_cut_at_a_dozen() {
        let items: Vec<String> = (1..=14).map(|i| format!("s{i}")).collect();
        let text = listing(&items);
        assert!(text.ends_with("s12, and 2 more"), "{text}");
        assert_eq!(listing(&items[..2]), "s1, s2");
    }

    #[test]
    fn a_wrapper_forwards_the_advice_of_what_it_wraps() {
        let inner = crate::signal::HashError::NotAFile {
            path: "x/SKILL.md".into(),
        };
        let outer = crate::ops::signals::SignalsError::Hash(inner);
        assert_eq!(
            outer.advice(),
            Advice::user("replace the link with the file itself")
        );
    }
}
