//! The build script: turns SkillGuard's data into static tables that the library includes
//! from `OUT_DIR`, so that no process pays for reading it at start-up (a pre-commit hook
//! runs one process per commit, and these were most of its own work):
//!
//! - `lexicon_tables.rs` ([`lexicon`]): the prose lexicon (`src/guard/analysis/prose/lexicon/`)
//!   as hash tables of its terms. Parsing it cost every process 16 million instructions.
//! - `typosquat_words.rs` ([`typosquat`]): the typosquat vocabulary and its exceptions
//!   (`src/guard/analysis/data/`), sorted for binary search.
//! - `prefilter_index.rs` ([`prefilter`]): the lookup tables of the rule prefilter, worked
//!   out from `src/guard/needs_table.rs` by `src/guard/prefilter_index.rs`; 2.4 million
//!   instructions at start-up.
//!
//! - `engine.rs` ([`engine`]): a fingerprint of the sources, which the scan cache keys its
//!   findings by, so that a build whose rules or analyses changed never reads what another
//!   build found.
//!
//! The tables are arrays of numbers and ranges of one string, not slices of `&str`: every
//! reference in a static is a relocation the loader applies, page by page, at each start.
//! A malformed list stops the build with its file and line.

use std::path::PathBuf;

mod engine;
mod lexicon;
mod prefilter;
mod typosquat;

fn main() {
    println!("cargo::rerun-if-changed=src/guard/analysis/prose/lexicon");
    println!("cargo::rerun-if-changed={}", typosquat::VOCABULARY);
    println!("cargo::rerun-if-changed={}", typosquat::NOT_TYPOS);
    println!("cargo::rerun-if-changed=src/guard/needs_table.rs");
    println!("cargo::rerun-if-changed=src/guard/prefilter_index.rs");
    for input in engine::INPUTS {
        println!("cargo::rerun-if-changed={input}");
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let tables = lexicon::tables().unwrap_or_else(|e| panic!("prose lexicon: {e}"));
    let files = [
        ("lexicon_tables.rs", tables),
        ("typosquat_words.rs", typosquat::words()),
        ("prefilter_index.rs", prefilter::arrays()),
        ("engine.rs", engine::fingerprint()),
    ];
    for (name, text) in files {
        std::fs::write(out.join(name), text).unwrap_or_else(|e| panic!("write {name}: {e}"));
    }
}
