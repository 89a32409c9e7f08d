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
//! - `gitleaks_rules.rs` ([`gitleaks`]): gitleaks' default rule set, the secret detector's
//!   rules (`src/secrets/`).
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
mod gitleaks;
mod lexicon;
mod prefilter;
mod typosquat;

fn main() {
    println!("cargo::rerun-if-changed=src/guard/analysis/prose/lexicon");
    println!("cargo::rerun-if-changed={}", typosquat::VOCABULARY);
    println!("cargo::rerun-if-changed={}", typosquat::NOT_TYPOS);
    println!("cargo::rerun-if-changed=src/guard/needs_table.rs");
    println!("cargo::rerun-if-changed=src/guard/prefilter_index.rs");
    println!("cargo::rerun-if-changed={}", gitleaks::CONFIG);
    println!("cargo::rerun-if-changed={}", gitleaks::VERSION);
    for input in engine::INPUTS {
        println!("cargo::rerun-if-changed={input}");
    }
    agent_clis();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let tables = lexicon::tables().unwrap_or_else(|e| panic!("prose lexicon: {e}"));
    let files = [
        ("lexicon_tables.rs", tables),
        ("typosquat_words.rs", typosquat::words()),
        ("prefilter_index.rs", prefilter::arrays()),
        ("engine.rs", engine::fingerprint()),
        (
            "gitleaks_rules.rs",
            gitleaks::tables().unwrap_or_else(|e| panic!("gitleaks rules: {e}")),
        ),
    ];
    for (name, text) in files {
        std::fs::write(out.join(name), text).unwrap_or_else(|e| panic!("write {name}: {e}"));
    }
}

/// The real agents' end-to-end tests (`tests/integration/agents_e2e.rs`) run when their CLIs
/// are installed under `AGENTS_PREFIX` (default `target/agent-clis`, where `.ci/run` puts
/// them), or when `GIT_SKILL_REQUIRE_AGENTS` is set (CI: then a missing CLI fails its test);
/// elsewhere the test runner reports them `ignored`, not passed. The prefix is handed to the
/// tests, so that both read the same one.
fn agent_clis() {
    println!("cargo::rustc-check-cfg=cfg(agent_clis)");
    println!("cargo::rerun-if-env-changed=AGENTS_PREFIX");
    println!("cargo::rerun-if-env-changed=GIT_SKILL_REQUIRE_AGENTS");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let prefix = std::env::var_os("AGENTS_PREFIX")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target/agent-clis"));
    println!(
        "cargo::rustc-env=GIT_SKILL_AGENTS_PREFIX={}",
        prefix.display()
    );
    let installed = ["claude", "qwen", "codex", "gemini", "copilot"]
        .iter()
        .any(|cli| {
            prefix
                .join(cli)
                .join("node_modules/.bin")
                .join(cli)
                .exists()
        });
    if installed || std::env::var_os("GIT_SKILL_REQUIRE_AGENTS").is_some() {
        println!("cargo::rustc-cfg=agent_clis");
    }
}
