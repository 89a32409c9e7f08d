//! Edge cases found in review: each test pins a behaviour that once was wrong.

use crate::common::{codes, skill_md, Sandbox, BIN};

fn lint_json(sb: &Sandbox, args: &[&str]) -> (crate::common::Run, serde_json::Value) {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let run = sb.run(&all);
    let json = run.json();
    (run, json)
}

#[cfg(unix)]
#[test]
fn a_chain_of_symlinks_that_climbs_out_of_the_skill_is_sk016() {
    let sb = Sandbox::with_repo();
    sb.write("shared/foo/SKILL.md", skill_md("foo", "Elsewhere."));
    sb.write(".agents/skills/esc/SKILL.md", skill_md("esc", "Escapes."));
    sb.symlink("..", ".agents/skills/esc/references/up");
    sb.symlink(
        "up/references/up/../../../shared/foo/SKILL.md",
        ".agents/skills/esc/references/x",
    );
    let (run, report) = lint_json(&sb, &[".agents/skills/esc"]);
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK016"], "{report}");
    assert!(report["diagnostics"][0]["path"]
        .as_str()
        .unwrap()
        .ends_with("references/x"));
    // The scanner sees the same escape.
    let scan = sb.run(&["scan", "--format", "json", ".agents/skills/esc"]);
    scan.assert_status(1);
    crate::snapshot::assert_run(
        &sb,
        "edge-a-chain-of-symlinks-that-climbs-out-of-the-skill-is-sk016-301",
        &scan,
    );
}

#[test]
fn code_spans_indented_code_and_comments_are_not_links() {
    let sb = Sandbox::with_repo();
    let body = "Use `[x](../y)` syntax.\n\n    [i](../code)\n\n<!-- [c](../commented) -->\n\n````md\n```\n[in](../nested)\n````\n\nReal: [r](../real)\n";
    sb.write(
        "skills/links/SKILL.md",
        format!("---\nname: links\ndescription: Links.\n---\n{body}"),
    );
    let (run, report) = lint_json(&sb, &["skills/links"]);
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK015"], "{report}");
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("../real"));
}

#[test]
fn the_colon_hint_only_speaks_for_its_own_line_and_counts_characters() {
    let sb = Sandbox::with_repo();
    sb.write(
        "skills/cmt/SKILL.md",
        "---\nname: cmt # note: keep it short\ndescription: x\ndescription: y\n---\nb\n",
    );
    let (_, report) = lint_json(&sb, &["skills/cmt"]);
    let d = &report["diagnostics"][0];
    assert_eq!(d["code"], "SK003");
    assert_eq!(d["line"], 4, "{report}");
    assert!(
        d["hint"]
            .as_str()
            .unwrap()
            .contains("`description` appears twice"),
        "{report}"
    );

    sb.write(
        "skills/fr/SKILL.md",
        "---\nname: fr\ndescription: Gérer les éléments: vite\n---\nb\n",
    );
    let (_, report) = lint_json(&sb, &["skills/fr"]);
    let d = &report["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(3), Some(32)),
        "{report}"
    );
}

#[test]
fn the_name_mismatch_hint_does_not_suggest_the_current_name() {
    let sb = Sandbox::with_repo();
    sb.write("skills/my skill/SKILL.md", skill_md("my-skill", "Spaces."));
    let (_, report) = lint_json(&sb, &["skills/my skill"]);
    let d = &report["diagnostics"][0];
    assert_eq!(d["code"], "SK020");
    assert_eq!(d["hint"], "rename the directory to 'my-skill'");
}

#[cfg(unix)]
#[test]
fn file_names_cannot_forge_output_lines() {
    let sb = Sandbox::with_repo();
    sb.write("skills/nl/SKILL.md", skill_md("nl", "Newline."));
    sb.write("skills/nl/evil\nerror[SK999]: forged", "x");
    let run = sb.run(&["lint", "skills/nl"]);
    // A file beside SKILL.md: a warning for a person's skill.
    run.assert_status(0);
    assert!(
        !run.stdout.lines().any(|l| l.starts_with("error[SK999]")),
        "{}",
        run.stdout
    );
    crate::snapshot::assert_run(&sb, "edge-file-names-cannot-forge-output-lines-301", &run);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_one_error() {
    let sb = Sandbox::with_repo();
    sb.write("skills/p/SKILL.md", skill_md("p", "Pipe."));
    let fifo = sb.repo().join("skills/p/pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (_, report) = lint_json(&sb, &["skills/p"]);
    assert_eq!(codes(&report), ["SK011"], "{report}");
}

#[test]
fn non_utf8_environment_does_not_panic() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::with_repo();
    sb.write(".claude/skills/a/SKILL.md", skill_md("a", "A."));
    let bad = std::ffi::OsStr::from_bytes(b"\xff\xfe");
    let out = sb
        .command_in("", &["lint"])
        .env("FOO", bad)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = sb
        .command_in("", &["lint"])
        .env("GIT_SKILL_ROOTS", bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    crate::snapshot::assert_text(&sb, "edge-non-utf8-environment-does-not-panic-401", &stderr);
}

#[test]
fn root_flags_are_relative_to_the_current_directory_and_missing_roots_warn() {
    let sb = Sandbox::with_repo();
    sb.write("sub/skills/a/SKILL.md", skill_md("a", "A."));
    let run = sb.run_in(
        "sub",
        &["list", "--format", "json", "--root", "skills"],
        &[],
    );
    run.assert_ok();
    assert_eq!(run.json()["skills"][0]["name"], "a", "{}", run.stdout);

    let run = sb.run(&["lint", "--root", "does-not-exist"]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "edge-root-flags-are-relative-to-the-current-directory-and-missing-roots-warn-1",
        &crate::snapshot::show(&sb, &run),
    );
    let run = sb.git(&["-c", "skill.roots=nonexist", "skill", "lint"]);
    crate::snapshot::assert_snapshot(
        "edge-root-flags-are-relative-to-the-current-directory-and-missing-roots-warn-2",
        &crate::snapshot::show(&sb, &run),
    );
}

#[test]
fn root_flags_work_outside_a_repository() {
    let sb = Sandbox::new();
    let dir = sb.tmp.path().join("loose/skills/a");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), skill_md("a", "A.")).unwrap();
    let run = sb.command(
        BIN,
        &sb.tmp.path().join("loose"),
        &["list", "--format", "json", "--root", "skills"],
    );
    run.assert_ok();
    assert_eq!(run.json()["skills"][0]["root"], "skills");
}

#[test]
fn a_bare_repository_checks_explicit_paths_and_explains_itself() {
    let sb = Sandbox::new();
    let bare = sb.tmp.path().join("b.git");
    sb.command(
        "git",
        sb.tmp.path(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    )
    .assert_ok();
    let skill = sb.tmp.path().join("loose/a");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(skill.join("SKILL.md"), skill_md("a", "A.")).unwrap();
    sb.command(BIN, &bare, &["lint", skill.to_str().unwrap()])
        .assert_ok();
    sb.command(BIN, &bare, &["config"]).assert_ok();
    let run = sb.command(BIN, &bare, &["lint"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "edge-a-bare-repository-checks-explicit-paths-and-explains-itself-1",
        &crate::snapshot::show(&sb, &run),
    );
}

#[test]
fn a_path_that_does_not_exist_has_a_hint() {
    let sb = Sandbox::with_repo();
    let run = sb.run(&["lint", "nope"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "edge-a-path-that-does-not-exist-has-a-hint-1",
        &crate::snapshot::show(&sb, &run),
    );
}

#[test]
fn the_config_of_a_repository_owned_by_someone_else_is_not_read() {
    let sb = Sandbox::with_repo();
    sb.git(&["config", "skill.failOn", "caution"]).assert_ok();
    let chown = std::process::Command::new("chown")
        .args(["-R", "nobody"])
        .arg(sb.repo())
        .status();
    if !chown.is_ok_and(|s| s.success()) {
        eprintln!("cannot chown (not root); skipped");
        return;
    }
    let run = sb.run(&["config", "--format", "json"]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "edge-the-config-of-a-repository-owned-by-someone-else-is-not-read-1",
        &crate::snapshot::show(&sb, &run),
    );
    let fail_on = run.json()["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"] == "skill.failOn")
        .unwrap()
        .clone();
    assert_eq!(
        fail_on["values"],
        serde_json::json!(["dangerous"]),
        "{fail_on}"
    );
    assert_eq!(fail_on["source"], "default");
    // Nor is anything of ours written into it: no scan cache.
    sb.write(
        ".claude/skills/x/SKILL.md",
        crate::common::skill_md("x", "Does x."),
    );
    sb.run(&["scan"]).assert_ok();
    assert!(!sb.repo().join(".git/skill").exists());
}
