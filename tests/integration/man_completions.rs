//! Help, version, shell completions and man pages, checked with the real shells and `man`.

use crate::common::{skill_md, Sandbox, BIN};
use std::path::Path;

fn have(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn version_and_help() {
    let sb = Sandbox::with_repo();
    let run = sb.run(&["--version"]);
    run.assert_ok();
    assert_eq!(
        run.stdout.trim(),
        format!("git-skill {}", env!("CARGO_PKG_VERSION"))
    );
    let run = sb.git(&["skill", "-h"]);
    run.assert_ok();
    for cmd in ["lint", "list", "config", "completions", "man"] {
        assert!(
            run.stdout.contains(cmd),
            "help lists {cmd}:\n{}",
            run.stdout
        );
    }
    let run = sb.run(&["lint", "--help"]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "man-completions-version-and-help-1",
        &crate::snapshot::show(&sb, &run),
    );
    // Usage errors exit 2, like every other error.
    sb.run(&["lint", "--format", "yaml"]).assert_status(2);
    sb.run(&["no-such-command"]).assert_status(2);
}

#[test]
fn bash_completion_for_git_skill_and_git_skill_subcommand() {
    if !have("bash") {
        eprintln!("bash not installed; skipped");
        return;
    }
    let sb = Sandbox::new();
    let script = sb.tmp.path().join("git-skill.bash");
    let run = sb.run_in("", &["completions", "bash"], &[]);
    run.assert_ok();
    std::fs::write(&script, &run.stdout).unwrap();
    let probe = format!(
        r#"source '{}'
COMP_WORDS=(git-skill li); COMP_CWORD=1; _git__skill git-skill li git-skill; echo "direct: ${{COMPREPLY[*]}}"
COMPREPLY=(); COMP_WORDS=(git skill li); COMP_CWORD=2; _git_skill; echo "via git: ${{COMPREPLY[*]}}"
COMPREPLY=(); COMP_WORDS=(git skill lint --for); COMP_CWORD=3; _git_skill; echo "flag: ${{COMPREPLY[*]}}""#,
        script.display()
    );
    let run = sb.command("bash", sb.tmp.path(), &["-c", &probe]);
    // `li` completes to lint and list, called as git-skill and as `git skill`; `--for` to
    // --format.
    crate::snapshot::assert_run(&sb, "completions-bash-subcommands-and-flags", &run);
}

#[test]
fn bash_completes_skill_names_and_never_runs_one() {
    if !have("bash") {
        eprintln!("bash not installed; skipped");
        return;
    }
    let sb = Sandbox::with_repo();
    sb.write(".claude/skills/pdf/SKILL.md", skill_md("pdf", "PDFs."));
    sb.write(
        ".claude/skills/deploy/SKILL.md",
        skill_md("deploy", "Deploys."),
    );
    // A name that would run a command if a shell expanded it.
    sb.write(
        ".claude/skills/evil/SKILL.md",
        "---\nname: \"$(touch pwned)\"\ndescription: x\n---\nbody\n",
    );
    let names = sb.run(&["list", "--format", "names"]);
    names.assert_ok();
    assert_eq!(names.stdout, "deploy\npdf\n");
    let script = sb.tmp.path().join("git-skill.bash");
    let run = sb.run_in("", &["completions", "bash"], &[]);
    std::fs::write(&script, &run.stdout).unwrap();
    let probe = format!(
        r#"source '{}'
COMP_WORDS=(git-skill optimize ''); COMP_CWORD=2; _git_skill_with_names; echo "all: ${{COMPREPLY[*]}}"
COMPREPLY=(); COMP_WORDS=(git skill rollback p); COMP_CWORD=3; _git_skill; echo "via git: ${{COMPREPLY[*]}}"
COMPREPLY=(); COMP_WORDS=(git-skill record --type ''); COMP_CWORD=3; _git_skill_with_names; echo "value: ${{COMPREPLY[*]}}"
COMPREPLY=(); COMP_WORDS=(git-skill lint ''); COMP_CWORD=2; _git_skill_with_names; echo "lint: ${{COMPREPLY[*]}}""#,
        script.display()
    );
    let run = sb.command("bash", &sb.repo(), &["-c", &probe]);
    run.assert_ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].contains("pdf") && lines[0].contains("deploy"),
        "{}",
        run.stdout
    );
    assert_eq!(lines[1], "via git: pdf", "{}", run.stdout);
    assert!(
        !lines[2].contains("pdf"),
        "a flag's value is not a skill: {}",
        run.stdout
    );
    assert!(
        !lines[3].contains("pdf"),
        "lint takes paths: {}",
        run.stdout
    );
    assert!(!sb.repo().join("pwned").exists(), "a skill's name was run");
}

#[test]
fn zsh_and_fish_completions_name_the_subcommands() {
    let sb = Sandbox::new();
    for shell in ["zsh", "fish"] {
        let run = sb.run_in("", &["completions", shell], &[]);
        run.assert_ok();
        crate::snapshot::assert_case_snapshot(
            "man-completions-zsh-and-fish-completions-name-the-subcommands-201",
            &shell,
            &crate::snapshot::show(&sb, &run),
        );
    }
    let run = sb.run_in("", &["completions", "tcsh"], &[]);
    run.assert_status(2);
}

#[test]
fn man_page_on_stdout_and_installed_for_git_help() {
    let sb = Sandbox::new();
    let run = sb.run_in("", &["man"], &[]);
    run.assert_ok();
    assert!(
        run.stdout.starts_with(".ie") || run.stdout.contains(".TH git-skill"),
        "{}",
        &run.stdout[..200.min(run.stdout.len())]
    );

    // Install next to a copy of the binary, as `cargo install` lays it out.
    let prefix = sb.tmp.path().join("prefix");
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    let exe = prefix.join("bin/git-skill");
    // A hard link, not a copy: a copy is a file open for writing, and a child that another
    // test thread forks meanwhile inherits it, making exec fail with "text file busy".
    if std::fs::hard_link(BIN, &exe).is_err() {
        std::fs::copy(BIN, &exe).unwrap();
        wait_until_executable(&exe);
    }
    let run = sb.command(exe.to_str().unwrap(), sb.tmp.path(), &["man", "--install"]);
    run.assert_ok();
    let man1 = prefix.join("share/man/man1");
    for page in ["git-skill.1", "git-skill-lint.1", "git-skill-list.1"] {
        assert!(man1.join(page).is_file(), "{page} installed");
    }
    crate::snapshot::assert_snapshot(
        "man-completions-man-page-on-stdout-and-installed-for-git-help-101",
        &crate::snapshot::show(&sb, &run),
    );

    if !have("man") {
        eprintln!("man not installed; `git help skill` not exercised");
        return;
    }
    // man finds <prefix>/share/man through PATH's <prefix>/bin, so `git help skill` works.
    let path = format!(
        "{}:{}",
        prefix.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    let out = std::process::Command::new("git")
        .args(["help", "skill"])
        .current_dir(sb.tmp.path())
        .env("PATH", path)
        .env("HOME", sb.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", sb.home().join(".gitconfig"))
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env_remove("MANPATH")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "git help skill failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::snapshot::assert_text(
        &sb,
        "man-completions-man-page-on-stdout-and-installed-for-git-help-401",
        &text,
    );
}

#[test]
fn man_output_dir_must_be_writable() {
    let sb = Sandbox::new();
    let file = sb.tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let run = sb.run_in(
        "",
        &["man", "--output-dir", file.join("sub").to_str().unwrap()],
        &[],
    );
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "man-completions-man-output-dir-must-be-writable-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert!(!Path::new(&file.join("sub")).exists());
}

/// Waits out "text file busy" (ETXTBSY) after a copy, for at most a few seconds.
fn wait_until_executable(exe: &Path) {
    for _ in 0..200 {
        match std::process::Command::new(exe).arg("--version").output() {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            _ => return,
        }
    }
}
