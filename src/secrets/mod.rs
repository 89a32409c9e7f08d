//! The one secret detector: what the guard's credential findings and the redactor of
//! everything git-skill writes agree a secret is. Its rules are gitleaks' default rule set
//! (<https://github.com/gitleaks/gitleaks>, MIT; the release in [`rules::VERSION`], the file and
//! its notice in `build/gitleaks/`), read at build time into static tables, with gitleaks'
//! semantics: a rule runs only on a text that holds one of its keywords (one Aho-Corasick pass
//! for all of them), its secret is the capture group it names, must be more random than its
//! entropy threshold, and is not a secret when an allowlist (the set's own, or the rule's)
//! says so.
//!
//! | part | what it holds |
//! |---|---|
//! | [`rules`] | the generated tables: rules, allowlists, the release |
//! | [`find`] | every secret in a text, with the rule that found it |
//! | `extra` | shapes the set does not cover (passwords in any syntax, `.netrc`, `.pgpass`, Azure signatures, webhooks) and secrets written in hex or base64 |

mod detect;
mod extra;
mod placeholder;
pub mod rules;

pub use detect::{find, find_in, Found};
