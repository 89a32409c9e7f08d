//! The one integration-test runner: every module builds real temporary repositories with the
//! real `git` binary and runs the real `git-skill` binary in a pinned environment.

mod action;
mod agent_hook;
mod agents_e2e;
mod archive;
mod borrowed_trust;
mod closure;
mod common;
mod config;
mod context;
mod docs;
mod doctor;
mod durability;
mod edge;
mod eval;
mod git_ops;
mod guard_defends;
mod hook;
mod hostile;
mod init;
mod landings;
mod lint;
mod list;
mod llm;
mod llm_server;
mod man_completions;
mod manage;
mod multilingual;
mod optimize;
mod optimize_evals;
mod optimize_review;
mod paper_cuts;
mod prewrite;
mod prompt;
mod pty;
mod refuses;
mod review;
mod scan;
mod scan_cache;
mod secrets;
mod signals;
mod snapshot;
mod special_files;
mod watch;
mod ways_in;
mod whole;

/// Every file of this directory is a module of the runner: a test file nobody declared would
/// never run.
#[test]
fn no_test_file_is_forgotten() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if module != "main" {
            assert!(
                main.contains(&format!("mod {module};")),
                "tests/integration/{name} is not declared in main.rs"
            );
        }
    }
}
