//! Skills: where they live (discovery), what they hold (files), and whether agents can load
//! them (frontmatter parsing and lint).

pub mod codes;
pub mod context;
pub mod discover;
pub mod files;
pub mod frontmatter;
pub mod layout;
pub mod limits;
pub mod links;
pub mod lint;
pub mod loader;
pub mod meta;
#[cfg(test)]
mod proptests;

pub use discover::{Discovery, Note, Root, Skill};
pub use files::{FileEntry, FileKind, SkillFiles};
