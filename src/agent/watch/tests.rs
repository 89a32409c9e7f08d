use std::path::Path;

use super::*;

fn watched(rel: &str) -> bool {
    rel.starts_with(".claude/skills/") || rel.ends_with("CLAUDE.md")
}

fn write(top: &Path, rel: &str, text: &str) {
    let path = top.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A moment later: a folder's mtime must move even on a coarse clock.
fn later() {
    std::thread::sleep(std::time::Duration::from_millis(15));
}

#[test]
fn new_changed_and_removed_files_are_seen_at_any_depth_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path();
    write(top, ".claude/skills/a/SKILL.md", "a\n");
    write(top, ".claude/skills/b/SKILL.md", "b\n");
    write(top, "src/lib.rs", "fn x() {}\n");
    write(top, ".git/config", "[core]\n");
    let before = Snapshot::take(top, &watched);
    assert!(before.files.contains_key(".claude/skills/a/SKILL.md"));
    assert!(!before.files.contains_key("src/lib.rs"));
    assert!(!before.dirs.keys().any(|d| d.starts_with(".git")));
    later();
    write(top, ".claude/skills/a/SKILL.md", "a changed\n");
    std::fs::remove_file(top.join(".claude/skills/b/SKILL.md")).unwrap();
    write(top, "deep/er/still/CLAUDE.md", "new\n");
    write(top, ".claude/skills/c/scripts/run.sh", "echo\n");
    write(top, "src/lib.rs", "fn y() {}\n");
    write(top, "src/CLAUDE.md.bak", "not watched\n");
    let (changes, after) = before.compare(top, &watched);
    assert_eq!(
        changes.added,
        [".claude/skills/c/scripts/run.sh", "deep/er/still/CLAUDE.md"]
    );
    assert_eq!(changes.modified, [".claude/skills/a/SKILL.md"]);
    assert_eq!(changes.removed, [".claude/skills/b/SKILL.md"]);
    assert_eq!(changes.new_dirs, [".claude/skills/c", "deep"]);
    assert!(!changes.cut);
    // The new snapshot sees no change in the same tree.
    let (again, _) = after.compare(top, &watched);
    assert!(again.is_empty(), "{again:?}");
}

#[test]
fn a_touch_is_no_change_and_a_rewrite_in_place_of_the_same_size_is_one() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path();
    write(top, "CLAUDE.md", "aaaa\n");
    let before = Snapshot::take(top, &watched);
    later();
    write(top, "CLAUDE.md", "aaaa\n");
    assert!(before.compare(top, &watched).0.is_empty());
    later();
    write(top, "CLAUDE.md", "bbbb\n");
    assert_eq!(before.compare(top, &watched).0.modified, ["CLAUDE.md"]);
}

#[cfg(unix)]
#[test]
fn links_and_special_files_are_entries_of_their_own() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path();
    write(top, ".claude/skills/a/SKILL.md", "a\n");
    let before = Snapshot::take(top, &watched);
    later();
    std::os::unix::fs::symlink("/etc", top.join(".claude/skills/evil")).unwrap();
    let fifo = std::ffi::CString::new(
        top.join(".claude/skills/a/pipe")
            .to_string_lossy()
            .as_bytes(),
    )
    .unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let (changes, after) = before.compare(top, &watched);
    assert_eq!(
        changes.added,
        [".claude/skills/a/pipe", ".claude/skills/evil"]
    );
    assert_eq!(after.files[".claude/skills/evil"].kind, FileKind::Link);
    assert_eq!(after.files[".claude/skills/a/pipe"].kind, FileKind::Special);
    // A link retargeted is a change.
    later();
    std::fs::remove_file(top.join(".claude/skills/evil")).unwrap();
    std::os::unix::fs::symlink("/root", top.join(".claude/skills/evil")).unwrap();
    assert_eq!(
        after.compare(top, &watched).0.modified,
        [".claude/skills/evil"]
    );
}

#[test]
fn the_file_round_trips_and_anything_else_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path();
    write(top, ".claude/skills/a b/SKILL.md", "a\n");
    write(top, "注意/CLAUDE.md", "b\n");
    write(top, "per%cent/CLAUDE.md", "c\n");
    let mut s = Snapshot::take(top, &watched);
    s.heads = vec!["4e5739a5689909e90606a3291e20f8b716a885d9".into()];
    s.reached
        .insert("tools/fmt.sh".into(), crate::registry::Kind::Script);
    let text = s.render();
    assert_eq!(Snapshot::parse(&text), Some(s.clone()), "{text}");
    let mut partial = s.clone();
    partial.partial = true;
    assert_eq!(Snapshot::parse(&partial.render()), Some(partial));
    // A line slipped in before the end (the count then no longer holds either).
    let body = &text[..text.rfind("end").unwrap()];
    let with = |line: &str| {
        let n = s.dirs.len() + s.files.len() + s.reached.len() + 1;
        format!("{body}{line}end {n}\n")
    };
    assert!(Snapshot::parse(&with("d 1 2 fine\n")).is_some());
    for bad in [
        "",
        "git-skill watch 1\n",
        "git-skill watch 2\n",
        &text.replace("d ", "x "),
        &with("f f 1 2 3 4 nothex x\n"),
        &with("d 1 2 bad%zz\n"),
        &with("f q 1 2 3 4 - x\n"),
        &with("f f 1 2 3 4 -\n"),
        &text[..text.len() / 2],
        &text[..text.rfind("end").unwrap()],
        &format!("{text}d 1 2 after-the-end\n"),
    ] {
        assert_eq!(Snapshot::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn a_new_tree_past_the_bound_is_cut_not_silently_short() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path();
    std::fs::create_dir_all(top.join("x")).unwrap();
    let before = Snapshot::take(top, &watched);
    later();
    // A chain deeper than the walk's room from where it starts is cut.
    let mut deep = top.join("x/new");
    for i in 0..40 {
        deep.push(format!("d{i}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    let (changes, after) = before.compare(top, &watched);
    assert!(!changes.cut);
    assert_eq!(after.dirs.len(), 3 + 40);
}
