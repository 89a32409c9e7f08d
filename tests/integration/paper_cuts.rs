//! The small things a new team trips over on its first day (issue 32, point 9), each as the
//! person meets it.

use crate::common::{skill_md, Sandbox};

#[test]
fn a_mistyped_skill_name_gets_a_did_you_mean() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/deploy/SKILL.md",
        skill_md("deploy", "Deploys."),
    );
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        skill_md("pdf", "Reads PDFs."),
    );
    let run = sb.run(&["signals", "deplyo"]);
    run.assert_status(2);
    assert!(
        run.stderr.contains("did you mean 'deploy'?"),
        "{}",
        run.stderr
    );
    // Nothing close: the list, no guess.
    let run = sb.run(&["signals", "optimizer"]);
    run.assert_status(2);
    assert!(!run.stderr.contains("did you mean"), "{}", run.stderr);
    assert!(
        run.stderr.contains("known skills: deploy, pdf"),
        "{}",
        run.stderr
    );
}

#[test]
fn proposals_without_a_subcommand_lists_them() {
    let sb = Sandbox::with_repo();
    let bare = sb.run(&["proposals"]);
    bare.assert_ok();
    let list = sb.run(&["proposals", "list"]);
    assert_eq!((bare.stdout, bare.stderr), (list.stdout, list.stderr));
}

#[test]
fn init_dry_run_does_not_offer_hooks_that_are_installed() {
    let sb = Sandbox::with_repo();
    let before = sb.run(&["init", "--agent", "claude", "--dry-run"]);
    before.assert_ok();
    assert!(
        before.stdout.contains("would install the pre-commit"),
        "{}",
        before.stdout
    );
    sb.run(&["hook", "install"]).assert_ok();
    let after = sb.run(&["init", "--agent", "claude", "--dry-run"]);
    after.assert_ok();
    assert!(
        !after.stdout.contains("would install the pre-commit"),
        "{}",
        after.stdout
    );
}

#[test]
fn manage_names_its_actions_as_the_command_line_spells_them() {
    let sb = Sandbox::with_repo();
    sb.write(".claude/skills/notes/SKILL.md", skill_md("notes", "Notes."));
    let run = sb.run_with_stdin(
        &[
            "manage",
            "write-file",
            "notes",
            "--file",
            "references/x.md",
            "--file-content",
            "-",
            "--category",
            "misc",
        ],
        &[],
        "x\n",
    );
    assert_ne!(run.status, 0);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("write-file takes no `category`"), "{all}");
    assert!(!all.contains("write_file"), "{all}");
}

#[test]
fn lint_explain_says_how_to_silence_a_code() {
    let sb = Sandbox::with_repo();
    let run = sb.run(&["lint", "--explain", "SK011"]);
    run.assert_ok();
    assert!(
        run.stdout
            .contains("<!-- git-skill:allow-lint SK011 -- why -->")
            && run.stdout.contains("lint:\n      - code: SK011"),
        "{}",
        run.stdout
    );
    let run = sb.run(&["lint", "--explain", "SK031"]);
    assert!(
        run.stdout.contains("It cannot be silenced"),
        "{}",
        run.stdout
    );
}
