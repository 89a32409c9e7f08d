//! The git layer's write and history operations (`git_skill::git`): `commit_files`,
//! `dirty_paths`, `revert_path_commit`, `log_path`, checked against the real `git`.
//!
//! The library reads identity, dates and configuration from its own process environment, so each
//! test re-runs itself in a child process (this test binary, `--exact`) with a pinned
//! environment: HOME and global config in a temporary directory, no system config, the same
//! identity and dates as `Sandbox` gives `git`. The test body runs only in the child.

use std::path::Path;
use std::process::Command;

use git_skill::git::{FileChange, GitError, Repo, RevertMethod};

use super::common::{Run, Sandbox};

const CHILD: &str = "GIT_SKILL_GIT_OPS_CHILD";
const SKILL: &str = "skills/a/SKILL.md";
const V1: &str = "---\nname: a\ndescription: Does a.\n---\n# a\n\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

/// Runs `body` in a child process with the pinned environment (see the module documentation).
fn hermetic(name: &str, body: impl FnOnce()) {
    hermetic_without(name, &[], body)
}

/// Like [`hermetic`], with the variables `unset` left out of the child's environment.
fn hermetic_without(name: &str, unset: &[&str], body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let gitconfig = home.path().join(".gitconfig");
    std::fs::write(&gitconfig, "").unwrap();
    let mut cmd = Command::new(std::env::current_exe().expect("current_exe"));
    cmd.args([
        &format!("git_ops::{name}"),
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ])
    .env_clear()
    .env("PATH", std::env::var("PATH").unwrap_or_default())
    .env("HOME", home.path())
    .env("GIT_CONFIG_GLOBAL", &gitconfig)
    .env("GIT_CONFIG_NOSYSTEM", "1")
    .env("GIT_AUTHOR_NAME", "Test Author")
    .env("GIT_AUTHOR_EMAIL", "author@example.com")
    .env("GIT_COMMITTER_NAME", "Test Committer")
    .env("GIT_COMMITTER_EMAIL", "committer@example.com")
    .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
    .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
    .env("TZ", "UTC")
    .env("LC_ALL", "C")
    .env(CHILD, "1");
    for key in unset {
        cmd.env_remove(key);
    }
    // A child's snapshots are blessed with its parent's.
    if let Some(bless) = std::env::var_os("GIT_SKILL_BLESS") {
        cmd.env("GIT_SKILL_BLESS", bless);
    }
    let out = cmd.output().expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "child test {name} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stdout.contains("1 passed"),
        "child test {name} ran no test\nstdout:\n{stdout}"
    );
}

fn open(sb: &Sandbox) -> Repo {
    Repo::discover(&sb.repo())
        .expect("discover")
        .expect("a repository")
}

#[track_caller]
fn git(sb: &Sandbox, args: &[&str]) -> String {
    let run: Run = sb.git(args);
    run.assert_ok();
    run.stdout
}

fn head(sb: &Sandbox) -> String {
    git(sb, &["rev-parse", "HEAD"]).trim().to_owned()
}

fn read(sb: &Sandbox, rel: &str) -> String {
    std::fs::read_to_string(sb.repo().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

#[track_caller]
fn assert_fsck_clean(sb: &Sandbox) {
    let run = sb.git(&["fsck", "--no-progress", "--strict"]);
    run.assert_ok();
    assert_eq!(run.stdout.trim(), "", "fsck reported:\n{}", run.stdout);
}

#[track_caller]
fn assert_status_clean(sb: &Sandbox) {
    // Without refreshing first: the stat data written for committed files must match.
    assert_eq!(
        git(sb, &["diff-files", "--name-only"]),
        "",
        "stat data stale"
    );
    assert_eq!(git(sb, &["status", "--porcelain"]), "");
}

/// A repository with `skills/a/SKILL.md`, `skills/a/references/guide.md`, `skills/b/SKILL.md`
/// and `README.md`, committed.
fn repo() -> Sandbox {
    let sb = Sandbox::with_repo();
    sb.write(SKILL, V1);
    sb.write("skills/a/references/guide.md", "guide\n");
    sb.write(
        "skills/b/SKILL.md",
        "---\nname: b\ndescription: Does b.\n---\n",
    );
    sb.write("README.md", "readme\n");
    git(&sb, &["add", "-A"]);
    git(&sb, &["commit", "-q", "-m", "initial"]);
    sb
}

fn names_in_head(sb: &Sandbox) -> Vec<String> {
    git(sb, &["show", "--name-only", "--format=", "HEAD"])
        .lines()
        .map(str::to_owned)
        .collect()
}

// ---- commit_files ----

#[test]
fn commit_files_makes_a_commit_like_git() {
    hermetic("commit_files_makes_a_commit_like_git", || {
        let sb = repo();
        let before = head(&sb);
        let repo = open(&sb);
        let v2 = V1.replace("\n5\n", "\nfive\n");
        let id = repo
            .commit_files(
                "optimize(skill): a: spell five\n\nBody line.",
                &[
                    FileChange::write(SKILL, v2.clone()),
                    FileChange::write("skills/a/references/new/deep.md", "deep\n"),
                ],
            )
            .expect("commit");
        assert_eq!(id.to_string(), head(&sb));
        assert_eq!(
            git(
                &sb,
                &[
                    "log",
                    "-1",
                    "--format=%s%n%an <%ae>%n%cn <%ce>%n%at %ct%n%b"
                ]
            ),
            "optimize(skill): a: spell five\nTest Author <author@example.com>\n\
             Test Committer <committer@example.com>\n1767225600 1767225600\nBody line.\n\n"
        );
        assert_eq!(git(&sb, &["rev-parse", "HEAD~1"]).trim(), before);
        assert_eq!(
            names_in_head(&sb),
            vec!["skills/a/SKILL.md", "skills/a/references/new/deep.md"]
        );
        assert_eq!(read(&sb, SKILL), v2);
        assert_eq!(read(&sb, "skills/a/references/new/deep.md"), "deep\n");
        assert_eq!(
            git(&sb, &["ls-tree", "HEAD", "skills/a/references/new/deep.md"])
                .split_whitespace()
                .next(),
            Some("100644")
        );
        assert_fsck_clean(&sb);
        assert_status_clean(&sb);
        assert_eq!(
            git(&sb, &["reflog", "-1", "--format=%gs"]).trim(),
            "commit: optimize(skill): a: spell five"
        );
        assert_eq!(
            git(&sb, &["reflog", "-1", "--format=%gs", "main"]).trim(),
            "commit: optimize(skill): a: spell five"
        );
    });
}

#[test]
fn an_unrelated_staged_change_stays_staged() {
    hermetic("an_unrelated_staged_change_stays_staged", || {
        let sb = repo();
        sb.write("README.md", "readme, staged\n");
        sb.write("notes.txt", "new, staged\n");
        git(&sb, &["add", "README.md", "notes.txt"]);
        sb.write("skills/b/SKILL.md", "unstaged edit\n");
        let status_before = git(&sb, &["status", "--porcelain"]);
        let repo = open(&sb);
        repo.commit_files(
            "optimize(skill): a: x",
            &[FileChange::write(SKILL, "changed\n")],
        )
        .expect("commit");
        assert_eq!(names_in_head(&sb), vec![SKILL]);
        assert_eq!(git(&sb, &["status", "--porcelain"]), status_before);
        assert_eq!(
            git(&sb, &["diff", "--cached", "--name-only"]),
            "README.md\nnotes.txt\n"
        );
        assert_fsck_clean(&sb);
        // The index's cached trees must not bring the old SKILL.md back in git's next commit.
        git(&sb, &["commit", "-q", "-m", "user commit"]);
        assert_eq!(names_in_head(&sb), vec!["README.md", "notes.txt"]);
        assert_eq!(
            git(&sb, &["show", "HEAD:skills/a/SKILL.md"]),
            "changed\n",
            "git's next commit kept the new SKILL.md"
        );
        assert_eq!(
            git(&sb, &["status", "--porcelain"]),
            " M skills/b/SKILL.md\n"
        );
    });
}

#[test]
fn deleting_the_last_file_of_a_directory_removes_it() {
    hermetic("deleting_the_last_file_of_a_directory_removes_it", || {
        let sb = repo();
        let repo = open(&sb);
        repo.commit_files(
            "audit(skill): drop guide",
            &[FileChange::delete("skills/a/references/guide.md")],
        )
        .expect("commit");
        assert_eq!(names_in_head(&sb), vec!["skills/a/references/guide.md"]);
        assert_eq!(
            git(&sb, &["ls-tree", "-r", "--name-only", "HEAD"]),
            "README.md\nskills/a/SKILL.md\nskills/b/SKILL.md\n"
        );
        assert_eq!(git(&sb, &["ls-tree", "HEAD", "skills/a/references"]), "");
        assert!(!sb.repo().join("skills/a/references").exists());
        assert_fsck_clean(&sb);
        assert_status_clean(&sb);
    });
}

#[test]
fn two_commits_in_a_row_chain() {
    hermetic("two_commits_in_a_row_chain", || {
        let sb = repo();
        let repo = open(&sb);
        let first = repo
            .commit_files(
                "audit(skill): archive 1 signals for a",
                &[
                    FileChange::write("skills/a/.skillopt/resolved/26-01-01_x/signal.json", "{}\n"),
                    FileChange::write(
                        "skills/a/.skillopt/resolved/26-01-01_x/optimization.json",
                        "{}\n",
                    ),
                ],
            )
            .expect("first");
        let second = repo
            .commit_files("optimize(skill): a: y", &[FileChange::write(SKILL, "v2\n")])
            .expect("second");
        assert_eq!(head(&sb), second.to_string());
        assert_eq!(git(&sb, &["rev-parse", "HEAD~1"]).trim(), first.to_string());
        assert_eq!(repo.head_commit_id().unwrap(), Some(second));
        assert_eq!(
            git(&sb, &["log", "--format=%s", "-2"]),
            "optimize(skill): a: y\naudit(skill): archive 1 signals for a\n"
        );
        assert_eq!(
            git(&sb, &["reflog", "-2", "--format=%gs"]),
            "commit: optimize(skill): a: y\ncommit: audit(skill): archive 1 signals for a\n"
        );
        assert_fsck_clean(&sb);
        assert_status_clean(&sb);
    });
}

#[test]
fn a_chain_of_commits_lands_whole_or_not_at_all() {
    hermetic("a_chain_of_commits_lands_whole_or_not_at_all", || {
        let sb = repo();
        let repo = open(&sb);
        let before = head(&sb);
        let audit = [FileChange::write(
            "skills/a/.skillopt/resolved/26-01-01_x/signal.json",
            "{}\n",
        )];
        let ids = repo
            .commit_chain(&[
                ("audit(skill): archive 1 signals for a", &audit),
                ("optimize(skill): a: y", &[FileChange::write(SKILL, "v2\n")]),
            ])
            .expect("chain");
        assert_eq!(ids.len(), 2);
        assert_eq!(head(&sb), ids[1].to_string());
        assert_eq!(
            git(&sb, &["rev-parse", "HEAD~1"]).trim(),
            ids[0].to_string()
        );
        assert_eq!(git(&sb, &["rev-parse", "HEAD~2"]).trim(), before.trim());
        assert_eq!(
            git(&sb, &["log", "--format=%s", "-2"]),
            "optimize(skill): a: y\naudit(skill): archive 1 signals for a\n"
        );
        assert_eq!(
            git(&sb, &["show", "--name-only", "--format=", "HEAD"]).trim(),
            SKILL
        );
        assert_fsck_clean(&sb);
        assert_status_clean(&sb);

        // The second commit changes nothing: neither lands, and nothing is written.
        let now = head(&sb);
        let audit = [FileChange::write(
            "skills/a/.skillopt/resolved/26-01-02_z/signal.json",
            "{}\n",
        )];
        let e = repo
            .commit_chain(&[
                ("audit(skill): archive 1 signals for a", &audit),
                (
                    "optimize(skill): a: same",
                    &[FileChange::write(SKILL, "v2\n")],
                ),
            ])
            .unwrap_err();
        assert!(e.to_string().contains("nothing to commit"), "{e}");
        assert_eq!(head(&sb), now);
        assert!(!sb
            .repo()
            .join("skills/a/.skillopt/resolved/26-01-02_z")
            .exists());
        assert_status_clean(&sb);
    });
}

#[test]
fn an_executable_file_stays_executable() {
    hermetic("an_executable_file_stays_executable", || {
        let sb = repo();
        sb.write("skills/a/scripts/run.sh", "#!/bin/sh\necho 1\n");
        git(&sb, &["add", "--chmod=+x", "skills/a/scripts/run.sh"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let path = sb.repo().join("skills/a/scripts/run.sh");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        git(&sb, &["commit", "-q", "-m", "script"]);
        let repo = open(&sb);
        repo.commit_files(
            "change script",
            &[FileChange::write(
                "skills/a/scripts/run.sh",
                "#!/bin/sh\necho 2\n",
            )],
        )
        .expect("commit");
        assert!(git(&sb, &["ls-tree", "HEAD", "skills/a/scripts/run.sh"]).starts_with("100755"));
        assert_status_clean(&sb);
    });
}

#[test]
fn commit_files_refusals_change_nothing() {
    hermetic("commit_files_refusals_change_nothing", || {
        let sb = repo();
        sb.write("README.md", "local edit\n");
        let head_before = head(&sb);
        let status_before = git(&sb, &["status", "--porcelain"]);
        let repo = open(&sb);
        let cases: Vec<(Vec<FileChange>, &str)> = vec![
            (vec![FileChange::write("../outside.md", "x")], ".."),
            (vec![FileChange::write("skills/../README.md", "x")], ".."),
            (vec![FileChange::write("/tmp/x.md", "x")], "absolute"),
            (vec![FileChange::write(".git/config", "x")], ".git"),
            (vec![FileChange::write("skills/a", "x")], "directory"),
            (
                vec![FileChange::write(SKILL, "x"), FileChange::delete(SKILL)],
                "twice",
            ),
            (vec![FileChange::write(SKILL, V1)], "nothing to commit"),
            (vec![], "nothing to commit"),
        ];
        for (changes, expected) in cases {
            let err = repo
                .commit_files("msg", &changes)
                .expect_err("must be refused");
            assert!(
                err.to_string().contains(expected),
                "{changes:?}: {err} (expected to mention {expected:?})"
            );
        }
        let err = repo
            .commit_files(" \n", &[FileChange::write(SKILL, "x")])
            .expect_err("empty message");
        assert!(err.to_string().contains("message is empty"), "{err}");
        #[cfg(unix)]
        {
            sb.symlink("a", "skills/link");
            let err = repo
                .commit_files("msg", &[FileChange::write("skills/link/SKILL.md", "x")])
                .expect_err("symlinked parent");
            assert!(matches!(err, GitError::InvalidPath { .. }), "{err}");
            crate::snapshot::assert_message(
                "git-ops-commit-files-refusals-change-nothing-401",
                &err.to_string(),
            );
            std::fs::remove_file(sb.repo().join("skills/link")).unwrap();
        }
        assert_eq!(head(&sb), head_before);
        assert_eq!(git(&sb, &["status", "--porcelain"]), status_before);
        assert_eq!(read(&sb, SKILL), V1);
        assert_fsck_clean(&sb);
    });
}

#[test]
fn an_unborn_head_is_refused() {
    hermetic("an_unborn_head_is_refused", || {
        let sb = Sandbox::with_repo();
        let repo = open(&sb);
        assert_eq!(repo.head_commit_id().unwrap(), None);
        let err = repo
            .commit_files("first", &[FileChange::write("a.md", "a\n")])
            .expect_err("unborn");
        assert!(matches!(err, GitError::UnbornHead { .. }), "{err}");
        assert!(err.to_string().contains("no commit yet"), "{err}");
        assert!(!sb.repo().join("a.md").exists());
        assert!(repo.log_path("a.md", 10).unwrap().is_empty());
    });
}

#[test]
fn a_missing_identity_is_refused_with_a_hint() {
    hermetic_without(
        "a_missing_identity_is_refused_with_a_hint",
        &[
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "GIT_COMMITTER_NAME",
            "GIT_COMMITTER_EMAIL",
        ],
        || {
            let sb = repo();
            let before = head(&sb);
            let repo = open(&sb);
            let err = repo
                .commit_files("msg", &[FileChange::write(SKILL, "x\n")])
                .expect_err("no identity");
            assert!(matches!(err, GitError::Identity { .. }), "{err}");
            assert!(err.to_string().contains("git config user.name"), "{err}");
            assert_eq!(head(&sb), before);
            assert_eq!(read(&sb, SKILL), V1);
            // With user.name and user.email in the repository's config, it works.
            git(&sb, &["config", "user.name", "Config User"]);
            git(&sb, &["config", "user.email", "config@example.com"]);
            let repo = open(&sb);
            repo.commit_files("msg", &[FileChange::write(SKILL, "x\n")])
                .expect("commit with config identity");
            assert_eq!(
                git(&sb, &["log", "-1", "--format=%an <%ae>"]).trim(),
                "Config User <config@example.com>"
            );
        },
    );
}

#[test]
fn a_failure_before_head_moves_restores_the_work_tree() {
    hermetic("a_failure_before_head_moves_restores_the_work_tree", || {
        let sb = repo();
        // The temporary file of the second write cannot be created: a directory has its name.
        let blocker = format!(
            "skills/b/.SKILL.md.git-skill-{}.tmp/keep",
            std::process::id()
        );
        sb.write(&blocker, "x");
        let before = head(&sb);
        let status_before = git(&sb, &["status", "--porcelain"]);
        let index_before = std::fs::read(sb.repo().join(".git/index")).unwrap();
        let repo = open(&sb);
        let err = repo
            .commit_files(
                "msg",
                &[
                    FileChange::write(SKILL, "new a\n"),
                    FileChange::write("skills/a/new/dir/file.md", "new\n"),
                    FileChange::delete("skills/a/references/guide.md"),
                    FileChange::write("skills/b/SKILL.md", "new b\n"),
                ],
            )
            .expect_err("the last write fails");
        assert!(matches!(err, GitError::Commit { .. }), "{err}");
        assert!(err.to_string().contains("as they were"), "{err}");
        assert_eq!(head(&sb), before);
        assert_eq!(read(&sb, SKILL), V1);
        assert_eq!(read(&sb, "skills/a/references/guide.md"), "guide\n");
        assert!(!sb.repo().join("skills/a/new").exists());
        assert_eq!(
            std::fs::read(sb.repo().join(".git/index")).unwrap(),
            index_before
        );
        assert!(!sb.repo().join(".git/index.lock").exists());
        assert_eq!(git(&sb, &["status", "--porcelain"]), status_before);

        // A held lock on the branch: refused before anything changes, the lock left alone.
        std::fs::remove_dir_all(
            sb.repo()
                .join("skills/b")
                .join(Path::new(&blocker).parent().unwrap().file_name().unwrap()),
        )
        .unwrap();
        std::fs::write(sb.repo().join(".git/refs/heads/main.lock"), "").unwrap();
        let err = repo
            .commit_files("msg", &[FileChange::write(SKILL, "new a\n")])
            .expect_err("locked");
        assert!(err.to_string().contains("could not lock HEAD"), "{err}");
        assert!(sb.repo().join(".git/refs/heads/main.lock").exists());
        assert_eq!(read(&sb, SKILL), V1);
        assert_eq!(head(&sb), before);
        std::fs::remove_file(sb.repo().join(".git/refs/heads/main.lock")).unwrap();

        // A held index lock: the same.
        std::fs::write(sb.repo().join(".git/index.lock"), "").unwrap();
        let err = repo
            .commit_files("msg", &[FileChange::write(SKILL, "new a\n")])
            .expect_err("index locked");
        assert!(
            err.to_string().contains("could not lock the index"),
            "{err}"
        );
        assert_eq!(read(&sb, SKILL), V1);
        assert_eq!(head(&sb), before);
        std::fs::remove_file(sb.repo().join(".git/index.lock")).unwrap();
        assert_eq!(git(&sb, &["status", "--porcelain"]), "");
    });
}

#[test]
fn a_merge_in_progress_is_refused() {
    hermetic("a_merge_in_progress_is_refused", || {
        let sb = repo();
        let head_id = head(&sb);
        std::fs::write(sb.repo().join(".git/MERGE_HEAD"), format!("{head_id}\n")).unwrap();
        let err = open(&sb)
            .commit_files("msg", &[FileChange::write(SKILL, "x\n")])
            .expect_err("merge in progress");
        assert!(matches!(err, GitError::InProgress { .. }), "{err}");
        assert!(err.to_string().contains("merge"), "{err}");
        assert_eq!(read(&sb, SKILL), V1);
    });
}

#[test]
fn split_and_version_4_indexes_keep_their_entries() {
    hermetic("split_and_version_4_indexes_keep_their_entries", || {
        let sb = repo();
        git(&sb, &["config", "core.splitIndex", "true"]);
        git(&sb, &["config", "index.version", "4"]);
        git(
            &sb,
            &["update-index", "--split-index", "--index-version", "4"],
        );
        sb.write("staged.md", "staged\n");
        git(&sb, &["add", "staged.md"]);
        let repo = open(&sb);
        repo.commit_files("msg", &[FileChange::write(SKILL, "v2\n")])
            .expect("commit");
        assert_eq!(
            git(&sb, &["ls-files"]),
            "README.md\nskills/a/SKILL.md\nskills/a/references/guide.md\nskills/b/SKILL.md\nstaged.md\n"
        );
        assert_eq!(git(&sb, &["status", "--porcelain"]), "A  staged.md\n");
        assert_fsck_clean(&sb);
    });
}

// ---- dirty_paths ----

/// What `git status` reports below `dir`, minus `ignore`: every path of
/// `git status --porcelain=v1 -z --untracked-files=all --no-renames -- dir`.
fn git_dirty(sb: &Sandbox, dir: &str, ignore: &str) -> Vec<String> {
    let out = git(
        sb,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--",
            &format!(":(literal){dir}"),
        ],
    );
    let mut paths: Vec<String> = out
        .split('\0')
        .filter(|e| e.len() > 3)
        .map(|e| e[3..].to_owned())
        .filter(|p| ignore.is_empty() || !p.starts_with(ignore))
        .collect();
    paths.sort();
    paths
}

/// `dirty_paths` agrees with git, with and without the `.skillopt/` prefix ignored; returns
/// what it found with the prefix ignored.
#[track_caller]
fn check_dirty(sb: &Sandbox, dir: &str) -> Vec<String> {
    let ignore = format!("{dir}/.skillopt/");
    let repo = open(sb);
    let ours = repo.dirty_paths(dir, &[&ignore]).expect("dirty_paths");
    assert_eq!(ours, git_dirty(sb, dir, &ignore), "with {ignore} ignored");
    let all = repo.dirty_paths(dir, &[]).expect("dirty_paths");
    assert_eq!(all, git_dirty(sb, dir, ""), "with nothing ignored");
    ours
}

#[test]
fn dirty_paths_agrees_with_git_status() {
    hermetic("dirty_paths_agrees_with_git_status", || {
        let sb = repo();
        sb.write(".gitignore", "*.log\n");
        sb.write("skills/a/.skillopt/resolved/old/signal.json", "{}\n");
        git(&sb, &["add", "-A"]);
        git(&sb, &["commit", "-q", "-m", "ignore logs"]);
        let dir = "skills/a";
        assert_eq!(check_dirty(&sb, dir), Vec::<String>::new(), "clean");

        // Only below .skillopt: a new pending signal, a tracked file changed.
        sb.write("skills/a/.skillopt/pending/signal.json", "{\"a\":1}\n");
        sb.write("skills/a/.skillopt/resolved/old/signal.json", "{\"b\":2}\n");
        assert_eq!(
            check_dirty(&sb, dir),
            Vec::<String>::new(),
            ".skillopt only"
        );

        // Ignored and outside changes, a sibling sharing the prefix, an empty directory.
        sb.write("skills/a/debug.log", "ignored\n");
        sb.write("skills/b/SKILL.md", "outside\n");
        sb.write("skills/ab/SKILL.md", "sibling\n");
        std::fs::create_dir_all(sb.repo().join("skills/a/empty/dir")).unwrap();
        assert_eq!(
            check_dirty(&sb, dir),
            Vec::<String>::new(),
            "nothing of ours"
        );

        // Unstaged modification.
        sb.write(SKILL, V1.replace("\n1\n", "\none\n"));
        assert_eq!(check_dirty(&sb, dir), vec![SKILL]);

        // Staged, then modified again; an untracked file in a new directory.
        git(&sb, &["add", SKILL]);
        assert_eq!(check_dirty(&sb, dir), vec![SKILL]);
        sb.write(SKILL, V1.replace("\n1\n", "\nuno\n"));
        sb.write("skills/a/sub/deep/new.md", "new\n");
        assert_eq!(
            check_dirty(&sb, dir),
            vec![SKILL.to_owned(), "skills/a/sub/deep/new.md".to_owned()]
        );

        // Deleted in the work tree; a staged deletion; a staged rename.
        git(&sb, &["checkout", "--", SKILL]);
        git(&sb, &["reset", "-q", "--", SKILL]);
        std::fs::remove_file(sb.repo().join(SKILL)).unwrap();
        git(
            &sb,
            &[
                "mv",
                "skills/a/references/guide.md",
                "skills/a/references/moved.md",
            ],
        );
        assert_eq!(
            check_dirty(&sb, dir),
            vec![
                SKILL.to_owned(),
                "skills/a/references/guide.md".to_owned(),
                "skills/a/references/moved.md".to_owned(),
                "skills/a/sub/deep/new.md".to_owned(),
            ]
        );
        git(&sb, &["rm", "-q", "--cached", SKILL]);
        check_dirty(&sb, dir);

        // A directory name with glob characters means itself.
        sb.write("skills/[a]/SKILL.md", "glob\n");
        sb.write("skills/x/SKILL.md", "not matched by [a]\n");
        assert_eq!(check_dirty(&sb, "skills/[a]"), vec!["skills/[a]/SKILL.md"]);

        // The whole work tree, and a file path as `dir`.
        check_dirty(&sb, "skills");
        let repo = open(&sb);
        assert_eq!(
            repo.dirty_paths("", &[]).unwrap(),
            git_dirty(&sb, ".", ""),
            "whole work tree"
        );
        assert_eq!(
            repo.dirty_paths("skills/a/sub/deep/new.md", &[]).unwrap(),
            vec!["skills/a/sub/deep/new.md"]
        );
    });
}

#[test]
fn dirty_paths_sees_same_size_edits_and_mode_changes() {
    hermetic("dirty_paths_sees_same_size_edits_and_mode_changes", || {
        let sb = repo();
        let repo = open(&sb);
        // Right after commit_files wrote it: same size, same second.
        repo.commit_files("msg", &[FileChange::write(SKILL, "aaaa\n")])
            .expect("commit");
        assert_eq!(check_dirty(&sb, "skills/a"), Vec::<String>::new());
        std::fs::write(sb.repo().join(SKILL), "bbbb\n").unwrap();
        assert_eq!(check_dirty(&sb, "skills/a"), vec![SKILL]);
        git(&sb, &["checkout", "--", SKILL]);
        assert_eq!(check_dirty(&sb, "skills/a"), Vec::<String>::new());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let path = sb.repo().join(SKILL);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(check_dirty(&sb, "skills/a"), vec![SKILL]);
        }
    });
}

#[test]
fn dirty_paths_does_not_depend_on_the_current_directory() {
    hermetic(
        "dirty_paths_does_not_depend_on_the_current_directory",
        || {
            let sb = repo();
            sb.write(SKILL, "changed\n");
            sb.write("skills/b/SKILL.md", "changed\n");
            // Only this child process runs here, so changing its directory is safe.
            std::env::set_current_dir(sb.repo().join("skills/b")).unwrap();
            let repo = open(&sb);
            assert_eq!(repo.dirty_paths("skills/a", &[]).unwrap(), vec![SKILL]);
        },
    );
}

// ---- revert_path_commit ----

/// `repo()` plus an optimize commit changing line 5 of SKILL.md; returns its id.
fn optimized(sb: &Sandbox) -> gix::ObjectId {
    open(sb)
        .commit_files(
            "optimize(skill): a: five",
            &[FileChange::write(SKILL, V1.replace("\n5\n", "\nfive\n"))],
        )
        .expect("optimize commit")
}

#[test]
fn revert_is_a_tree_edit_when_nothing_changed_since() {
    hermetic("revert_is_a_tree_edit_when_nothing_changed_since", || {
        let sb = repo();
        let optimize = optimized(&sb);
        // An unrelated later commit does not matter.
        sb.write("README.md", "later\n");
        git(&sb, &["commit", "-qam", "later"]);
        let base = head(&sb);
        let repo = open(&sb);
        let outcome = repo
            .revert_path_commit(optimize, SKILL, &[], &mut |_| Ok(()))
            .expect("revert");
        assert_eq!(outcome.method, RevertMethod::TreeEdit);
        assert_eq!(outcome.commit.to_string(), head(&sb));
        assert_eq!(read(&sb, SKILL), V1);
        let message = git(&sb, &["log", "-1", "--format=%B"]);
        assert_eq!(
            message,
            format!("Revert \"optimize(skill): a: five\"\n\nThis reverts commit {optimize}.\n\n")
        );
        assert_eq!(names_in_head(&sb), vec![SKILL]);
        assert!(git(&sb, &["reflog", "-1", "--format=%gs"]).starts_with("revert: Revert"));
        let err = repo
            .revert_path_commit(optimize, SKILL, &[], &mut |_| Ok(()))
            .expect_err("already reverted");
        assert!(err.to_string().contains("reverted already"), "{err}");
        assert_fsck_clean(&sb);
        assert_status_clean(&sb);
        // The same commit as git's own revert: same tree, message, identity and dates.
        let ours_tree = git(&sb, &["rev-parse", "HEAD^{tree}"]);
        git(&sb, &["reset", "-q", "--hard", &base]);
        git(&sb, &["revert", "--no-edit", &optimize.to_string()]);
        assert_eq!(git(&sb, &["rev-parse", "HEAD^{tree}"]), ours_tree);
        assert_eq!(git(&sb, &["log", "-1", "--format=%B"]), message);
        assert_eq!(head(&sb), outcome.commit.to_string(), "identical commit");
    });
}

#[test]
fn reverting_the_commit_that_added_a_file_deletes_it() {
    hermetic("reverting_the_commit_that_added_a_file_deletes_it", || {
        let sb = repo();
        let repo = open(&sb);
        let added = repo
            .commit_files("add c", &[FileChange::write("skills/c/SKILL.md", "c\n")])
            .expect("commit");
        let outcome = repo
            .revert_path_commit(added, "skills/c/SKILL.md", &[], &mut |_| Ok(()))
            .expect("revert");
        assert_eq!(outcome.method, RevertMethod::TreeEdit);
        assert!(!sb.repo().join("skills/c").exists());
        assert_eq!(git(&sb, &["ls-tree", "HEAD", "skills/c"]), "");
        assert_fsck_clean(&sb);
        assert_status_clean(&sb);
    });
}

#[test]
fn revert_merges_through_gix_when_the_file_changed_since() {
    hermetic(
        "revert_merges_through_gix_when_the_file_changed_since",
        || {
            let sb = repo();
            let optimize = optimized(&sb);
            // A later, distant edit of the same file: the revert merges in cleanly, as
            // `git revert` would, without running git.
            let later = V1.replace("\n5\n", "\nfive\n").replace("\n10\n", "\nten\n");
            sb.write(SKILL, &later);
            git(&sb, &["commit", "-qam", "edit line 10"]);
            let repo = open(&sb);
            let outcome = repo
                .revert_path_commit(optimize, SKILL, &[], &mut |_| Ok(()))
                .expect("revert");
            assert_eq!(outcome.method, RevertMethod::TreeMerge);
            assert_eq!(outcome.commit.to_string(), head(&sb));
            assert_eq!(read(&sb, SKILL), V1.replace("\n10\n", "\nten\n"));
            assert_eq!(
                git(&sb, &["log", "-1", "--format=%s"]).trim(),
                "Revert \"optimize(skill): a: five\""
            );
            assert_fsck_clean(&sb);
            assert_status_clean(&sb);
        },
    );
}

#[test]
fn paths_named_together_are_reverted_together_without_git_revert() {
    hermetic(
        "paths_named_together_are_reverted_together_without_git_revert",
        || {
            const EVALS: &str = "skills/a/evals/evals.json";
            let sb = repo();
            let repo = open(&sb);
            let change = |repo: &git_skill::git::Repo| {
                repo.commit_files(
                    "optimize(skill): a: five",
                    &[
                        FileChange::write(SKILL, V1.replace("\n5\n", "\nfive\n")),
                        FileChange::write(EVALS, "{\"evals\": []}\n"),
                    ],
                )
                .expect("commit")
            };
            // Nothing changed since: a tree edit, the new evals.json deleted.
            let optimize = change(&repo);
            let outcome = repo
                .revert_paths_commit(optimize, &[SKILL, EVALS], &[], &mut |_| Ok(()))
                .expect("revert");
            assert_eq!(outcome.method, RevertMethod::TreeEdit);
            assert_eq!(read(&sb, SKILL), V1);
            assert!(!sb.repo().join(EVALS).exists());
            assert_eq!(names_in_head(&sb), vec![SKILL, EVALS]);
            // Named but not changed by the commit: left alone.
            let only = repo
                .commit_files(
                    "optimize(skill): a: six",
                    &[FileChange::write(SKILL, V1.replace("\n6\n", "\nsix\n"))],
                )
                .expect("commit");
            repo.revert_paths_commit(only, &[SKILL, EVALS], &[], &mut |_| Ok(()))
                .expect("revert");
            assert_eq!(read(&sb, SKILL), V1);
            // Both changed since: one three-way merge for both.
            let cases = "{\n\"evals\": [\n1,\n2,\n3,\n4,\n5\n]\n}\n";
            repo.commit_files("evals", &[FileChange::write(EVALS, cases)])
                .expect("commit");
            let optimize = repo
                .commit_files(
                    "optimize(skill): a: five",
                    &[
                        FileChange::write(SKILL, V1.replace("\n5\n", "\nfive\n")),
                        FileChange::write(EVALS, cases.replace("5\n", "5,\n6\n")),
                    ],
                )
                .expect("commit");
            sb.write(
                SKILL,
                V1.replace("\n5\n", "\nfive\n").replace("\n10\n", "\nten\n"),
            );
            sb.write(EVALS, cases.replace("5\n", "5,\n6\n").replace("1,", "0,"));
            git(&sb, &["commit", "-qam", "later edits"]);
            let outcome = repo
                .revert_paths_commit(optimize, &[SKILL, EVALS], &[], &mut |_| Ok(()))
                .expect("revert");
            assert_eq!(outcome.method, RevertMethod::TreeMerge);
            assert_eq!(read(&sb, SKILL), V1.replace("\n10\n", "\nten\n"));
            assert_eq!(read(&sb, EVALS), cases.replace("1,", "0,"));
            assert_fsck_clean(&sb);
            assert_status_clean(&sb);
        },
    );
}

#[test]
fn a_commit_that_changed_more_than_the_path_is_reverted_by_git() {
    hermetic(
        "a_commit_that_changed_more_than_the_path_is_reverted_by_git",
        || {
            let sb = repo();
            let repo = open(&sb);
            let both = repo
                .commit_files(
                    "two files",
                    &[
                        FileChange::write(SKILL, "v2\n"),
                        FileChange::write("README.md", "readme 2\n"),
                    ],
                )
                .expect("commit");
            let outcome = repo
                .revert_path_commit(both, SKILL, &[], &mut |_| Ok(()))
                .expect("revert");
            assert_eq!(outcome.method, RevertMethod::GitRevert);
            assert_eq!(read(&sb, SKILL), V1);
            assert_eq!(read(&sb, "README.md"), "readme\n");
            assert_status_clean(&sb);
        },
    );
}

#[test]
fn a_conflicting_revert_is_aborted_and_explained() {
    hermetic("a_conflicting_revert_is_aborted_and_explained", || {
        let sb = repo();
        let optimize = optimized(&sb);
        sb.write(SKILL, V1.replace("\n5\n", "\nFIVE!\n"));
        git(&sb, &["commit", "-qam", "edit line 5 again"]);
        let before = head(&sb);
        let repo = open(&sb);
        let err = repo
            .revert_path_commit(optimize, SKILL, &[], &mut |_| Ok(()))
            .expect_err("conflict");
        assert!(matches!(err, GitError::RevertConflict { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains(SKILL) && text.contains("changed since"),
            "{text}"
        );
        assert!(text.contains(&format!("git show {optimize}")), "{text}");
        assert_eq!(head(&sb), before);
        assert_eq!(git(&sb, &["status", "--porcelain"]), "");
        assert!(!sb.repo().join(".git/REVERT_HEAD").exists());
        assert!(!sb.repo().join(".git/sequencer").exists());
        assert_eq!(read(&sb, SKILL), V1.replace("\n5\n", "\nFIVE!\n"));
    });
}

#[test]
fn revert_refusals() {
    hermetic("revert_refusals", || {
        let sb = repo();
        let root = head(&sb);
        let optimize = optimized(&sb);
        let repo = open(&sb);
        let root_id = gix::ObjectId::from_hex(root.as_bytes()).unwrap();
        let err = repo
            .revert_path_commit(root_id, SKILL, &[], &mut |_| Ok(()))
            .expect_err("root");
        assert!(err.to_string().contains("root commit"), "{err}");
        let err = repo
            .revert_path_commit(optimize, "README.md", &[], &mut |_| Ok(()))
            .expect_err("does not touch it");
        assert!(
            err.to_string().contains("does not change 'README.md'"),
            "{err}"
        );
        sb.write(SKILL, "dirty\n");
        let err = repo
            .revert_path_commit(optimize, SKILL, &[], &mut |_| Ok(()))
            .expect_err("dirty");
        assert!(err.to_string().contains("uncommitted changes"), "{err}");
        git(&sb, &["checkout", "--", SKILL]);

        // A merge commit.
        git(&sb, &["checkout", "-q", "-b", "side", &root]);
        sb.write("side.md", "side\n");
        git(&sb, &["add", "side.md"]);
        git(&sb, &["commit", "-q", "-m", "side"]);
        git(&sb, &["checkout", "-q", "main"]);
        git(&sb, &["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
        let merge = gix::ObjectId::from_hex(head(&sb).as_bytes()).unwrap();
        let err = repo
            .revert_path_commit(merge, "side.md", &[], &mut |_| Ok(()))
            .expect_err("merge");
        assert!(err.to_string().contains("merge commit"), "{err}");
        assert_eq!(head(&sb), merge.to_string());
    });
}

// ---- history ----

fn commit_at(sb: &Sandbox, date: &str, message: &str) -> String {
    sb.git_env(
        "",
        &["commit", "-q", "-am", message],
        &[("GIT_COMMITTER_DATE", date), ("GIT_AUTHOR_DATE", date)],
    )
    .assert_ok();
    head(sb)
}

#[test]
fn log_path_lists_the_commits_that_changed_a_path() {
    hermetic("log_path_lists_the_commits_that_changed_a_path", || {
        let sb = repo();
        let c1 = head(&sb);
        sb.write(SKILL, "v2\n");
        let c2 = commit_at(
            &sb,
            "2026-01-02T00:00:00Z",
            "optimize(skill): a: v2\n\nwhy v2",
        );
        sb.write("README.md", "other\n");
        commit_at(&sb, "2026-01-03T00:00:00Z", "readme only");
        sb.write("skills/b/SKILL.md", "b2\n");
        commit_at(&sb, "2026-01-04T00:00:00Z", "b only");
        sb.write(SKILL, "v3\n");
        let c5 = commit_at(&sb, "2026-01-05T00:00:00Z", "optimize(skill): a: v3");
        let repo = open(&sb);

        let log = repo.log_path(SKILL, 10).expect("log");
        let ids: Vec<String> = log.iter().map(|e| e.id.to_string()).collect();
        assert_eq!(ids, vec![c5.clone(), c2.clone(), c1.clone()]);
        let git_ids: Vec<String> = git(&sb, &["log", "--format=%H", "--", SKILL])
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(ids, git_ids);
        assert_eq!(log[0].subject, "optimize(skill): a: v3");
        assert_eq!(log[0].body, "");
        assert_eq!(log[1].subject, "optimize(skill): a: v2");
        assert_eq!(log[1].body, "why v2");
        assert_eq!(log[1].time, 1767312000);
        assert_eq!(log[1].author, "Test Author");
        assert_eq!(log[1].author_email, "author@example.com");
        assert_eq!(log[2].subject, "initial");

        let two = repo.log_path(SKILL, 2).unwrap();
        assert_eq!(two.len(), 2);
        assert_eq!(two[1].id.to_string(), c2);
        assert!(repo.log_path(SKILL, 0).unwrap().is_empty());
        assert!(repo
            .log_path("skills/none/SKILL.md", 10)
            .unwrap()
            .is_empty());
        // A directory: every commit that changed something below it.
        let dir: Vec<String> = repo
            .log_path("skills/a", 10)
            .unwrap()
            .iter()
            .map(|e| e.id.to_string())
            .collect();
        assert_eq!(dir, vec![c5.clone(), c2.clone(), c1.clone()]);

        // Reading single commits.
        let c2_id = gix::ObjectId::from_hex(c2.as_bytes()).unwrap();
        assert_eq!(
            repo.commit_message(c2_id).unwrap(),
            "optimize(skill): a: v2\n\nwhy v2\n"
        );
        assert_eq!(
            repo.blob_at_commit(c2_id, SKILL).unwrap(),
            Some(b"v2\n".to_vec())
        );
        assert_eq!(repo.blob_at_commit(c2_id, "skills/a").unwrap(), None);
        assert_eq!(repo.blob_at_commit(c2_id, "nope.md").unwrap(), None);
        assert_eq!(repo.head_commit_id().unwrap().unwrap().to_string(), c5);
    });
}

/// Changes that belong with a revert land in its commit, whether it is a tree edit or made
/// by `git revert` (then `--no-commit`, the changes added, one commit with git's message);
/// the latter refuses a staged change that would slip into that commit.
#[test]
fn changes_that_go_with_a_revert_land_with_it() {
    hermetic("changes_that_go_with_a_revert_land_with_it", || {
        let sb = repo();
        let optimize = optimized(&sb);
        let r = open(&sb);
        let also = [FileChange::write("returned.txt", "back\n")];
        let outcome = r
            .revert_path_commit(optimize, SKILL, &also, &mut |_| Ok(()))
            .expect("revert");
        assert_eq!(outcome.method, RevertMethod::TreeEdit);
        assert_eq!(names_in_head(&sb), vec!["returned.txt", SKILL]);
        assert_eq!(read(&sb, "returned.txt"), "back\n");
        assert_fsck_clean(&sb);
        assert_status_clean(&sb);

        let sb = repo();
        let r = open(&sb);
        let both = r
            .commit_files(
                "two files",
                &[
                    FileChange::write(SKILL, "v2\n"),
                    FileChange::write("README.md", "readme 2\n"),
                ],
            )
            .expect("commit");
        // A staged change elsewhere (a removal: no new object): git revert --no-commit
        // would take it along.
        git(&sb, &["rm", "-q", "--cached", "skills/b/SKILL.md"]);
        let head_before = head(&sb);
        let err = open(&sb)
            .revert_path_commit(both, SKILL, &also, &mut |_| Ok(()))
            .expect_err("a staged change");
        assert!(err.to_string().contains("unstage"), "{err}");
        assert_eq!(head(&sb), head_before);
        git(&sb, &["reset", "-q", "--", "skills/b/SKILL.md"]);

        let outcome = open(&sb)
            .revert_path_commit(both, SKILL, &also, &mut |_| Ok(()))
            .expect("revert");
        assert_eq!(outcome.method, RevertMethod::GitRevert);
        assert_eq!(outcome.commit.to_string(), head(&sb));
        assert_eq!(
            git(&sb, &["log", "-1", "--format=%B"]),
            format!("Revert \"two files\"\n\nThis reverts commit {both}.\n\n")
        );
        let mut names = names_in_head(&sb);
        names.sort();
        assert_eq!(names, vec!["README.md", "returned.txt", SKILL]);
        assert_eq!(read(&sb, "returned.txt"), "back\n");
        assert_eq!(read(&sb, SKILL), V1);
        assert_fsck_clean(&sb);
        assert_status_clean(&sb);
    });
}
