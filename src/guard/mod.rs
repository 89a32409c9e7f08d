//! SkillGuard: decides whether a skill is `safe`, `caution` or `dangerous`.
//!
//! Every file of a skill is read (whatever its name, lossily when it is not UTF-8) and matched
//! by all rules in one pass per view: the raw text, a normalised view (invisible characters
//! removed, look-alikes folded, continuations and soft wraps joined) and the payloads decoded
//! from base64 and hex blobs. Findings point at the original file, line and column.

pub mod analysis;
pub mod archive;
mod ascii;
pub mod baseline;
pub mod cache;
pub mod contain;
pub mod context;
pub mod decode;
pub mod described;
pub mod encoding;
pub mod engine;
mod finding;
pub mod fingerprint;
pub mod glob;
pub mod lfs;
mod limits;
pub mod markdown;
mod memo;
#[cfg(test)]
mod needs;
mod needs_table;
pub mod normalize;
pub mod notebook;
pub mod parallel;
pub mod policy_edit;
mod prefilter;
mod prefilter_index;
#[cfg(test)]
mod proptests;
mod refused;
pub mod rule;
pub mod rules;
pub mod runs;
mod scan;
#[cfg(test)]
mod shapes;
pub mod suppress;

pub use finding::{verdict_of, Context, Finding, SkillScan, Suppression, Verdict};
pub use limits::{MAX_SCAN_BYTES, MAX_SKILL_SCAN_BYTES};
pub use rule::{Category, Matcher, Rule, Severity};
pub use scan::{
    failure, failure_to_read, scan_skill, scan_skill_in, within_skill_budget, ScanOptions,
};
