//! Files a person or a repository could replace with something that is not a regular file:
//! a FIFO (whose open or read would wait forever for a writer), or a hard link to a file
//! elsewhere (whose appends or reads would reach that file). Each is refused at once, with an
//! error naming the path; nothing outside is read or written.

use std::path::Path;
use std::time::Duration;

use super::common::{skill_md, Run, Sandbox};

/// Long enough for a slow machine, far shorter than a hang.
const LIMIT: Duration = Duration::from_secs(20);

fn fifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn repo() -> Sandbox {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        skill_md("pdf", "Fill PDF forms."),
    );
    sb
}

fn refused(run: &Run, path: &str, what: &str) {
    run.assert_status(2);
    assert!(
        run.stderr.contains(path) && run.stderr.contains(what),
        "{}",
        run.stderr
    );
}

const RECORD: &[&str] = &[
    "record",
    "pdf",
    "--type",
    "friction",
    "--scenario",
    "s",
    "--friction-detail",
    "d",
];

#[test]
fn a_fifo_for_a_signal_store_is_refused_at_once() {
    let sb = repo();
    fifo(
        &sb.repo()
            .join(".claude/skills/pdf/.skillopt/pending/signal.json"),
    );
    for args in [&["signals", "pdf"][..], &["signals"], RECORD] {
        let run = sb.run_bounded("", args, &[], LIMIT);
        refused(&run, "signal.json", "is not a regular file (a FIFO)");
    }
    let run = sb.run_bounded("", RECORD, &[], LIMIT);
    super::snapshot::assert_snapshot("record-fifo-store", &super::snapshot::show(&sb, &run));
}

#[test]
fn a_hard_linked_signal_store_is_refused_and_the_other_file_is_untouched() {
    let sb = repo();
    let outside = sb.tmp.path().join("elsewhere.json");
    std::fs::write(&outside, "").unwrap();
    let store = sb
        .repo()
        .join(".claude/skills/pdf/.skillopt/pending/signal.json");
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    std::fs::hard_link(&outside, &store).unwrap();
    let run = sb.run_bounded("", RECORD, &[], LIMIT);
    refused(&run, "signal.json", "has 2 hard links");
    crate::snapshot::assert_run(
        &sb,
        "special-files-a-hard-linked-signal-store-is-refused-and-the-other-file-is-untouched-301",
        &run,
    );
    assert_eq!(
        std::fs::read(&outside).unwrap(),
        b"",
        "nothing reached the other file"
    );
    let run = sb.run_bounded("", &["signals", "pdf"], &[], LIMIT);
    refused(&run, "signal.json", "has 2 hard links");
}

#[test]
fn a_fifo_for_an_agents_settings_is_refused_at_once() {
    let sb = repo();
    fifo(&sb.repo().join(".claude/settings.json"));
    let run = sb.run_bounded("", &["init", "--agent", "claude"], &[], LIMIT);
    refused(&run, "settings.json", "is not a regular file (a FIFO)");
}

#[test]
fn a_fifo_for_a_git_hook_is_refused_at_once() {
    let sb = repo();
    fifo(&sb.repo().join(".git/hooks/pre-commit"));
    let run = sb.run_bounded("", &["hook", "install"], &[], LIMIT);
    refused(&run, "pre-commit", "is not a regular file (a FIFO)");
}

#[test]
fn a_fifo_or_a_hard_link_for_a_transcript_is_refused_at_once() {
    let sb = repo();
    let transcript = sb.tmp.path().join("session.jsonl");
    fifo(&transcript);
    let t = transcript.to_str().unwrap();
    let env = [
        ("GIT_SKILL_PROVIDER", "command"),
        ("GIT_SKILL_COMMAND", "false"),
    ];
    let run = sb.run_bounded("", &["review", "--transcript", t], &env, LIMIT);
    refused(&run, "session.jsonl", "not a regular file (a FIFO)");
    std::fs::remove_file(&transcript).unwrap();
    // A hard link would carry another file (a key, a password store) to the model.
    let secret = sb.tmp.path().join("id_rsa");
    std::fs::write(&secret, "{}\n").unwrap();
    std::fs::hard_link(&secret, &transcript).unwrap();
    let run = sb.run_bounded("", &["review", "--transcript", t], &env, LIMIT);
    refused(&run, "session.jsonl", "has 2 hard links");
}
