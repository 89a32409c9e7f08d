//! The signal store under kills and failed writes: a batch (`record --stdin`) is in the store
//! whole or not at all. Faults are injected into the real binary from outside: strace sends
//! SIGKILL at the Nth `write`, `fsync` or `rename`, or fails the Nth `write` with ENOSPC (a
//! full disk); prlimit caps the file size (a quota). After each, the store holds exactly the
//! signals it had, or those and the whole batch; `signals` reads it; the next `record` removes
//! what the interrupted one left, says so, and appends.

use std::path::PathBuf;

use super::common::{skill_md, Run, Sandbox, BIN};

const STORE: &str = ".claude/skills/pdf/.skillopt/pending/signal.json";
const NOW: (&str, &str) = ("GIT_SKILL_NOW", "2026-11-30T09:00:00Z");

/// A repository whose skill has three signals.
fn repo() -> (Sandbox, Vec<u8>) {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        skill_md("pdf", "Fill PDF forms."),
    );
    let three: String = (0..3)
        .map(|i| {
            format!("{{\"type\":\"friction\",\"scenario\":\"s{i}\",\"friction_detail\":\"d\"}}\n")
        })
        .collect();
    sb.run_with_stdin(&["record", "pdf", "--stdin"], &[NOW], &three)
        .assert_ok();
    let before = std::fs::read(sb.repo().join(STORE)).unwrap();
    (sb, before)
}

/// `n` friction signals as JSON lines, each about `detail` bytes long.
fn batch(n: usize, detail: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"type\":\"friction\",\"scenario\":\"batch {i}\",\"friction_detail\":\"{}\"}}\n",
                "x".repeat(detail)
            )
        })
        .collect()
}

/// `record pdf --stdin` with `input`, under `strace` injecting `inject`.
fn record_under(sb: &Sandbox, inject: &str, input: &str) -> Run {
    sb.cmd("strace")
        .args(&[
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            &format!("inject={inject}"),
            "--",
        ])
        .args(&[BIN, "record", "pdf", "--stdin"])
        .envs(&[NOW])
        .stdin(input)
        .run()
}

/// What a batch left behind in `.skillopt/work/`.
fn leftovers(sb: &Sandbox) -> Vec<PathBuf> {
    std::fs::read_dir(sb.repo().join(".claude/skills/pdf/.skillopt/work"))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().contains("signal.json.batch-"))
                .collect()
        })
        .unwrap_or_default()
}

/// The store is what it was, or that and the whole batch of `n`; every line is a signal.
/// Returns whether the batch landed.
fn assert_whole(sb: &Sandbox, before: &[u8], n: usize, what: &str) -> bool {
    let now = std::fs::read(sb.repo().join(STORE)).unwrap();
    assert!(now.starts_with(before), "{what}: the old signals are kept");
    let lines = now.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
    assert!(now.ends_with(b"\n"), "{what}: no torn last line");
    assert!(lines == 3 || lines == 3 + n, "{what}: {lines} signals");
    let listed = sb.run(&["signals", "pdf", "--format", "json"]);
    listed.assert_ok();
    assert_eq!(listed.json()["malformed_count"], 0, "{what}");
    assert_eq!(
        listed.stderr.contains("is what an interrupted record left"),
        !leftovers(sb).is_empty(),
        "{what}: {}",
        listed.stderr
    );
    lines == 3 + n
}

/// The next record removes what was left, says so, and appends after the whole store.
fn assert_next_record_recovers(sb: &Sandbox, what: &str) {
    let left = leftovers(sb);
    let before = std::fs::read(sb.repo().join(STORE)).unwrap();
    let run = sb.run_with_stdin(
        &["record", "pdf", "--stdin"],
        &[NOW],
        "{\"type\":\"friction\",\"scenario\":\"next\",\"friction_detail\":\"d\"}\n",
    );
    run.assert_ok();
    if !left.is_empty() {
        assert!(
            run.stderr
                .contains("a record that was interrupted before its signals reached the store"),
            "{what}: {}",
            run.stderr
        );
    }
    assert!(leftovers(sb).is_empty(), "{what}: nothing left behind");
    let after = std::fs::read(sb.repo().join(STORE)).unwrap();
    assert!(after.starts_with(&before), "{what}");
    assert_eq!(
        after[before.len()..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        1,
        "{what}: one signal more"
    );
}

#[test]
fn a_kill_at_any_write_fsync_or_rename_leaves_the_batch_whole_or_absent() {
    let n = 2000;
    let input = batch(n, 300);
    for syscall in ["write", "fsync,fdatasync", "rename,renameat,renameat2"] {
        let mut point = 1;
        loop {
            let (sb, before) = repo();
            let what = format!("SIGKILL at {syscall} #{point}");
            let run = record_under(&sb, &format!("{syscall}:signal=KILL:when={point}"), &input);
            let landed = assert_whole(&sb, &before, n, &what);
            if run.status == 0 {
                assert!(landed, "{what}: a record that succeeded stored its batch");
                assert!(
                    point > 1 || syscall.starts_with("rename"),
                    "{what}: nothing to kill"
                );
                break;
            }
            assert_eq!(run.status, 137, "{what}: {}", run.stderr);
            assert_next_record_recovers(&sb, &what);
            point += 1;
            assert!(point < 200, "{what}: the record never finished");
        }
    }
}

#[test]
fn a_full_disk_at_any_write_stores_nothing_and_leaves_nothing() {
    let n = 2000;
    let input = batch(n, 300);
    let mut point = 1;
    loop {
        let (sb, before) = repo();
        let what = format!("ENOSPC at write #{point}");
        let run = record_under(&sb, &format!("write:error=ENOSPC:when={point}"), &input);
        let landed = assert_whole(&sb, &before, n, &what);
        if run.status == 0 {
            assert!(landed, "{what}");
            break;
        }
        // The batch's own writes fail the command; a failed write to stderr does not
        // matter to the store.
        if !landed {
            assert_eq!(run.status, 2, "{what}: {}", run.stderr);
            assert!(
                leftovers(&sb).is_empty(),
                "{what}: the batch file is removed"
            );
        }
        assert_next_record_recovers(&sb, &what);
        point += 1;
        assert!(point < 200, "{what}: the record never finished");
    }
}

#[test]
fn a_file_size_limit_stores_nothing() {
    // 6,000 signals of about 600 bytes: 3.6 MB under a 2 MiB limit.
    let (sb, before) = repo();
    let n = 6000;
    let run = sb
        .cmd("prlimit")
        .args(&["--fsize=2097152", "--", BIN, "record", "pdf", "--stdin"])
        .envs(&[NOW])
        .stdin(&batch(n, 500))
        .run();
    assert_ne!(run.status, 0, "{}", run.stderr);
    assert!(!assert_whole(&sb, &before, n, "fsize"), "nothing landed");
    assert_eq!(std::fs::read(sb.repo().join(STORE)).unwrap(), before);
    assert_next_record_recovers(&sb, "fsize");
}
