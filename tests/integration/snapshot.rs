//! Whole-output snapshots: a run shown as its stdout, its stderr and its exit status (JSON
//! pretty-printed), with what changes from one run to the next normalised, compared with
//! `tests/snapshots/cli/<name>.txt`. `GIT_SKILL_BLESS=1` rewrites the files instead; the diff
//! is then what to review.

use std::path::{Path, PathBuf};

use regex::Regex;

use crate::common::{Run, Sandbox};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/cli")
}

/// What varies between runs, made stable: the sandbox's path, the random part of signal ids,
/// commit and object ids.
fn normalise(sb: &Sandbox, text: &str) -> String {
    let tmp = sb.tmp.path().display().to_string();
    let text = text.replace(&tmp, "[TMP]");
    // The binary the agents' hooks run, by its absolute path (where this build is).
    let bin =
        std::fs::canonicalize(crate::common::BIN).unwrap_or_else(|_| crate::common::BIN.into());
    let text = text.replace(&bin.display().to_string(), "[BIN]");
    let signal = Regex::new(r"(\d{8}T\d{6}Z_[A-Za-z0-9._-]+?_)[0-9a-f]{8}\b").unwrap();
    let text = signal.replace_all(&text, "${1}[hash]");
    // Review and proposal ids: the time, then a hash of the session, the process and the clock.
    let review = Regex::new(r"\b(\d{8}T\d{6}Z)-[0-9a-f]{6}\b").unwrap();
    let text = review.replace_all(&text, "${1}-[id]");
    // The scripted model's port.
    let port = Regex::new(r"127\.0\.0\.1:\d+").unwrap();
    let text = port.replace_all(&text, "127.0.0.1:[port]");
    let long = Regex::new(r"\b[0-9a-f]{40}\b").unwrap();
    let text = long.replace_all(&text, "[commit]");
    // Abbreviated ids at the start of a line (`  1a2b3c4 audit(skill): ...`).
    let short = Regex::new(r"(?m)^(\s*)[0-9a-f]{7} ").unwrap();
    let text = short.replace_all(&text, "${1}[sha] ");
    // And those a sentence names (`ROLLED BACK by 1e62619`, `returned by rollback 1e62619`):
    // commits git-skill makes carry the time they were made.
    // A terminal's progress lines say how long the run has taken.
    let elapsed = Regex::new(r"\b\d+\.\d s\)").unwrap();
    let text = elapsed.replace_all(&text, "[t] s)");
    let named = Regex::new(r"\b(by|rollback|with|as|reverted|committed) [0-9a-f]{7,12}\b").unwrap();
    let text = named.replace_all(&text, "${1} [sha]");
    text.into_owned()
}

/// The run as one text: stdout (pretty-printed when it is JSON), stderr, the exit status.
pub fn show(sb: &Sandbox, run: &Run) -> String {
    let stdout = match serde_json::from_str::<serde_json::Value>(&run.stdout) {
        Ok(value) if !run.stdout.trim().is_empty() => {
            format!("{}\n", serde_json::to_string_pretty(&value).unwrap())
        }
        _ => run.stdout.clone(),
    };
    normalise(
        sb,
        &format!(
            "{stdout}------- stderr -------\n{}[exit status: {}]\n",
            run.stderr, run.status
        ),
    )
}

/// Compares `actual` with the snapshot `name`, or writes it with `GIT_SKILL_BLESS=1`.
#[track_caller]
pub fn assert_snapshot(name: &str, actual: &str) {
    let path = dir().join(format!("{name}.txt"));
    if std::env::var_os("GIT_SKILL_BLESS").is_some() {
        std::fs::create_dir_all(dir()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}: run `GIT_SKILL_BLESS=1 cargo test --test integration` and review it\n--- actual ---\n{actual}",
            path.display()
        )
    });
    if expected != actual {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
            .unified_diff()
            .header("expected", "actual")
            .to_string();
        panic!(
            "the output differs from {}:\n{diff}\nif the change is intended: GIT_SKILL_BLESS=1 cargo test --test integration",
            path.display()
        );
    }
}

/// Runs `args` in the sandbox's repository and checks the whole output against `name`.
#[track_caller]
pub fn check(sb: &Sandbox, name: &str, args: &[&str]) -> Run {
    let run = sb.run(args);
    assert_snapshot(name, &show(sb, &run));
    run
}

/// [`assert_snapshot`] for one case of a table: the case's name joins the snapshot's, made fit
/// for a file name.
#[track_caller]
pub fn assert_case_snapshot(name: &str, case: &dyn std::fmt::Display, actual: &str) {
    let case: String = case
        .to_string()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    assert_snapshot(&format!("{name}-{}", case.trim_matches('-')), actual);
}

/// Checks a run's whole output (stdout, stderr, status) against the snapshot `name`.
#[track_caller]
pub fn assert_run(sb: &Sandbox, name: &str, run: &Run) {
    assert_snapshot(name, &show(sb, run));
}

/// Checks a text git-skill wrote (a file, a commit message, what the model was sent) against
/// the snapshot `name`, normalised like a run's output.
#[track_caller]
pub fn assert_text(sb: &Sandbox, name: &str, text: &str) {
    assert_snapshot(name, &normalise(sb, text));
}

/// Checks a message (a library error, a line a model was sent) against the snapshot `name`,
/// with the scripted model's port made stable.
#[track_caller]
pub fn assert_message(name: &str, text: &str) {
    let port = Regex::new(r"127\.0\.0\.1:\d+").unwrap();
    assert_snapshot(
        name,
        &format!("{}\n", port.replace_all(text, "127.0.0.1:[port]")),
    );
}
