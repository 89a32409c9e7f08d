//! `git skill list` (and `lint` over the same trees): the layouts of Claude Code, Codex and Qwen
//! Code, categories, paths relative to the current directory, explicit paths outside any
//! repository, discovery safety (symlinks, skipped folders) and closed pipes.

use std::path::Path;
use std::process::Stdio;

use serde_json::{json, Value};

use crate::common::{codes, copy_tree, fixtures, skill_md, Sandbox};

const PDF_DESCRIPTION: &str =
    "Fill in PDF forms from structured data. Use when the user asks to complete, fill or populate a PDF form.";

/// The `name`s of `list --format json`, in output order.
fn skill_names(run: &crate::common::Run) -> Vec<String> {
    run.json()["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Files and bytes of a skill directory as `list` counts them: every file, `.skillopt/` not.
fn tree_size(dir: &Path) -> (usize, u64) {
    let mut files = 0;
    let mut bytes = 0;
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                if !(d == dir && entry.file_name() == ".skillopt") {
                    stack.push(entry.path());
                }
            } else {
                files += 1;
                bytes += if meta.is_file() { meta.len() } else { 0 };
            }
        }
    }
    (files, bytes)
}

/// A repository with one skill in each layout:
/// Claude Code `.claude/skills/pdf-forms` (the full fixture, with support folders and LICENSE.txt),
/// Codex `.agents/skills/changelog` (an auto-skill), Qwen Code `.qwen/skills/review`, and a
/// category layout `skills/ops/deploy`.
fn layouts() -> Sandbox {
    let sb = Sandbox::with_repo();
    copy_tree(
        &fixtures().join("valid/pdf-forms"),
        &sb.repo().join(".claude/skills/pdf-forms"),
    );
    sb.write(
        ".agents/skills/changelog/SKILL.md",
        "---\nname: changelog\ndescription: Writes CHANGELOG entries from commits.\nmetadata:\n  source: auto-skill\n  extracted_at: \"2026-01-01\"\n---\n# Changelog\n\nRead the log.\n",
    );
    sb.write(
        ".agents/skills/changelog/scripts/log.sh",
        "git log --oneline\n",
    );
    sb.write(
        ".qwen/skills/review/SKILL.md",
        skill_md("review", "Reviews a pull request."),
    );
    sb.write(
        ".qwen/skills/review/references/checklist.md",
        "- tests\n- docs\n",
    );
    sb.write(
        "skills/ops/deploy/SKILL.md",
        skill_md("deploy", "Deploys the service."),
    );
    sb.write(
        "skills/ops/deploy/templates/release.j2",
        "Release {{ version }}\n",
    );
    sb
}

/// The `list --format json` rows of [`layouts`], with paths as seen from `prefix` (the way from
/// the current directory to the repository top). Files and bytes are counted on disk.
fn expected_rows(sb: &Sandbox, prefix: &str) -> Vec<Value> {
    // (root, category, name, description, provenance)
    let skills = [
        (
            ".claude/skills",
            None,
            "pdf-forms",
            PDF_DESCRIPTION,
            "authored",
        ),
        (
            ".agents/skills",
            None,
            "changelog",
            "Writes CHANGELOG entries from commits.",
            "auto-skill",
        ),
        (
            ".qwen/skills",
            None,
            "review",
            "Reviews a pull request.",
            "authored",
        ),
        (
            "skills",
            Some("ops"),
            "deploy",
            "Deploys the service.",
            "authored",
        ),
    ];
    skills
        .iter()
        .map(|(root, category, name, description, provenance)| {
            let rel = match category {
                Some(c) => format!("{root}/{c}/{name}"),
                None => format!("{root}/{name}"),
            };
            let (files, bytes) = tree_size(&sb.repo().join(&rel));
            json!({
                "name": name,
                "description": description,
                "category": category,
                "root": root,
                "path": format!("{prefix}{rel}"),
                "provenance": provenance,
                // The auto-skill fixture records when it was extracted.
                "extracted_at": if *provenance == "auto-skill" { json!("2026-01-01") } else { json!(null) },
                "files": files,
                "bytes": bytes,
                "invalid": null,
            })
        })
        .collect()
}

#[test]
fn skills_in_every_layout_lint_clean() {
    let sb = layouts();
    let run = sb.git(&["skill", "lint"]);
    run.assert_ok();
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.trim(), "4 skills checked, no problems");
    let strict = sb.run(&["lint", "--strict", "--format", "json"]);
    strict.assert_ok();
    assert_eq!(
        strict.json()["summary"],
        json!({"skills": 4, "errors": 0, "warnings": 0, "off": 0})
    );
}

#[test]
fn list_json_describes_each_layout() {
    let sb = layouts();
    let run = sb.git(&["skill", "list", "--format", "json"]);
    run.assert_ok();
    assert_eq!(run.stderr, "");
    let report = run.json();
    assert_eq!(report["version"], 1);
    assert_eq!(
        report["skills"].as_array().unwrap(),
        &expected_rows(&sb, ""),
        "{}",
        run.stdout
    );
    // The committed fixture: SKILL.md, LICENSE.txt and one file in each support folder.
    assert_eq!(report["skills"][0]["files"], 6);
}

#[test]
fn list_text_is_a_table_with_one_row_per_skill() {
    let sb = layouts();
    let run = sb.run(&["list"]);
    run.assert_ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", run.stdout);
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "NAME",
            "CATEGORY",
            "PROVENANCE",
            "FILES",
            "SIZE",
            "PATH",
            "DESCRIPTION"
        ]
    );
    let deploy: Vec<&str> = lines[4].split_whitespace().collect();
    assert_eq!(&deploy[..3], ["deploy", "ops", "authored"], "{}", lines[4]);
    assert!(
        lines[4].contains("skills/ops/deploy") && lines[4].ends_with("Deploys the service."),
        "{}",
        lines[4]
    );
    assert!(
        lines[2].starts_with("changelog ") && lines[2].contains(" auto-skill "),
        "{}",
        lines[2]
    );
    // Columns line up: PATH starts at the same offset on every line.
    let col = lines[0].find("PATH").unwrap();
    assert_eq!(
        &lines[1][col..col + ".claude/skills/pdf-forms".len()],
        ".claude/skills/pdf-forms"
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn list_category_filters_by_category() {
    let sb = layouts();
    let run = sb.run(&["list", "--category", "ops", "--format", "json"]);
    run.assert_ok();
    let names = skill_names(&run);
    assert_eq!(names, ["deploy"]);
    let none = sb.run(&["list", "--category", "nope"]);
    none.assert_ok();
    assert_eq!(none.stdout, "");
    assert_eq!(none.stderr.trim(), "no skills found");
}

#[test]
fn paths_are_relative_to_the_current_directory() {
    let sb = layouts();
    std::fs::create_dir_all(sb.repo().join("docs/guide")).unwrap();
    let run = sb.git_in("docs/guide", &["skill", "list", "--format", "json"]);
    run.assert_ok();
    assert_eq!(
        run.json()["skills"].as_array().unwrap(),
        &expected_rows(&sb, "../../")
    );
    let direct = sb.run_in("docs/guide", &["list", "--format", "json"], &[]);
    assert_eq!(direct.json(), run.json());

    // Inside a root, below the skills: still every skill, paths climbing out.
    let inside = sb.run_in(
        ".agents/skills/changelog/scripts",
        &["list", "--format", "json"],
        &[],
    );
    inside.assert_ok();
    assert_eq!(
        inside.json()["skills"][0]["path"],
        "../../../../.claude/skills/pdf-forms"
    );
    assert_eq!(inside.json()["skills"][1]["path"], "..");

    // A diagnostic names the file the same way.
    sb.write(
        ".qwen/skills/review/SKILL.md",
        skill_md("reviewer", "Reviews."),
    );
    let lint = sb.git_in("docs/guide", &["skill", "lint"]);
    lint.assert_ok();
    assert!(
        lint.stdout
            .starts_with("../../.qwen/skills/review/SKILL.md:2: warning[SK020]: "),
        "{}",
        lint.stdout
    );
}

/// A sandbox whose `repo/` is a plain directory, with discovery stopped above it so that a
/// repository around the temporary directory cannot change the outcome.
fn outside_repo() -> (Sandbox, String) {
    let sb = Sandbox::new();
    let ceiling = sb.tmp.path().display().to_string();
    (sb, ceiling)
}

#[test]
fn explicit_paths_work_outside_any_repository() {
    let (sb, ceiling) = outside_repo();
    let env = [("GIT_CEILING_DIRECTORIES", ceiling.as_str())];
    copy_tree(
        &fixtures().join("valid/pdf-forms"),
        &sb.repo().join("collection/pdf-forms"),
    );
    sb.write(
        "collection/ops/deploy/SKILL.md",
        skill_md("deploy", "Deploys the service."),
    );
    assert!(!sb.repo().join(".git").exists());

    let run = sb.run_in("", &["lint", "collection"], &env);
    run.assert_ok();
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.trim(), "2 skills checked, no problems");

    let run = sb.run_in("", &["list", "--format", "json", "collection"], &env);
    run.assert_ok();
    let skills = run.json()["skills"].as_array().unwrap().clone();
    let got: Vec<(&str, &str, Value)> = skills
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap(),
                s["path"].as_str().unwrap(),
                s["category"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("deploy", "collection/ops/deploy", json!("ops")),
            ("pdf-forms", "collection/pdf-forms", Value::Null)
        ]
    );
    assert_eq!(skills[1]["root"], "collection");
    assert_eq!(skills[1]["files"], 6);

    // One skill by its directory, by its SKILL.md, and by an absolute path from elsewhere.
    let abs = sb.repo().join("collection/pdf-forms");
    for path in ["collection/pdf-forms", "collection/pdf-forms/SKILL.md"] {
        let run = sb.run_in("", &["lint", path], &env);
        run.assert_ok();
        assert_eq!(run.stderr.trim(), "1 skill checked, no problems");
    }
    sb.write("collection/bad/SKILL.md", "---\nname: bad\n---\nbody\n");
    let run = sb.run_in(
        "collection",
        &["lint", "--format", "json", abs.to_str().unwrap(), "bad"],
        &env,
    );
    run.assert_status(1);
    let report = run.json();
    assert_eq!(codes(&report), ["SK007"]);
    assert_eq!(report["diagnostics"][0]["path"], "bad/SKILL.md");
    assert_eq!(report["summary"]["skills"], 2);
}

#[test]
fn outside_a_repository_without_a_path_is_a_usage_error() {
    let (sb, ceiling) = outside_repo();
    let env = [("GIT_CEILING_DIRECTORIES", ceiling.as_str())];
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        skill_md("pdf", "Fills PDFs."),
    );
    for cmd in ["lint", "list", "scan"] {
        let run = sb.run_in("", &[cmd], &env);
        run.assert_status(2);
        assert_eq!(run.stdout, "", "{cmd}");
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(
            lines.first(),
            Some(&"error: not inside a git repository, and no path given"),
            "{cmd}: {}",
            run.stderr
        );
        assert!(
            lines.iter().any(|l| l.starts_with("hint: ")
                && l.contains(&format!("git skill {cmd} path/to/skill"))),
            "{cmd}: {}",
            run.stderr
        );
    }
}

#[test]
fn invalid_skills_are_listed_as_invalid() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/broken/SKILL.md",
        "---\nname: broken\ndescription: Use when: asked\n---\nbody\n",
    );
    sb.write(".claude/skills/bare/SKILL.md", "# no frontmatter\n");
    let run = sb.run(&["list", "--format", "json"]);
    run.assert_ok();
    let skills = run.json()["skills"].as_array().unwrap().clone();
    assert_eq!(skills.len(), 2);
    assert_eq!(skills[0]["name"], "bare", "the directory name stands in");
    assert_eq!(skills[0]["invalid"], "no frontmatter");
    assert_eq!(skills[1]["name"], "broken");
    assert_eq!(skills[1]["invalid"], "invalid YAML at line 3");
    assert_eq!(skills[1]["description"], Value::Null);
    let text = sb.run(&["list"]);
    crate::snapshot::assert_snapshot(
        "list-invalid-skills-are-listed-as-invalid-1",
        &crate::snapshot::show(&sb, &text),
    );
}

// ---- Discovery safety ----

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_repository_is_not_followed() {
    let sb = Sandbox::with_repo();
    sb.write(".claude/skills/own/SKILL.md", skill_md("own", "Ours."));
    let outside = sb.tmp.path().join("outside/stolen");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("SKILL.md"),
        skill_md("stolen", "Not part of the repository."),
    )
    .unwrap();
    sb.symlink(&outside, ".claude/skills/stolen");
    sb.symlink("../../../outside/stolen", ".claude/skills/relative");

    // A skill that agents would load through the link but git-skill does not check: the run
    // must not pass.
    let run = sb.run(&["list", "--format", "json"]);
    run.assert_status(2);
    let names = skill_names(&run);
    assert_eq!(names, ["own"], "{}", run.stdout);
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 2, "{}", run.stderr);
    assert!(
        errors
            .iter()
            .any(|w| w.contains("stolen") && w.contains("outside the repository")),
        "{}",
        run.stderr
    );
    assert!(
        errors.iter().any(|w| w.contains("relative")),
        "{}",
        run.stderr
    );
    crate::snapshot::assert_snapshot(
        "list-a-symlink-out-of-the-repository-is-not-followed-1",
        &crate::snapshot::show(&sb, &run),
    );

    let lint = sb.run(&["lint"]);
    lint.assert_status(2);
    assert!(!lint.stdout.contains("stolen"), "{}", lint.stdout);
}

#[cfg(unix)]
#[test]
fn a_root_that_is_a_symlink_out_of_the_repository_fails_the_run() {
    let sb = Sandbox::with_repo();
    let outside = sb.tmp.path().join("elsewhere/skills");
    std::fs::create_dir_all(outside.join("far")).unwrap();
    std::fs::write(outside.join("far/SKILL.md"), skill_md("far", "Far away.")).unwrap();
    sb.symlink(&outside, ".agents/skills");
    // Agents load what the root leads to; git-skill does not read outside the repository, so
    // the run cannot pass.
    let run = sb.run(&["list", "--format", "json"]);
    run.assert_status(2);
    assert_eq!(run.json()["skills"], json!([]));
    crate::snapshot::assert_snapshot(
        "list-a-root-that-is-a-symlink-out-of-the-repository-fails-the-run-1",
        &crate::snapshot::show(&sb, &run),
    );
    // Named on purpose, it is checked.
    let far = outside.display().to_string();
    sb.run(&["list", "--root", &far]).assert_ok();
}

#[cfg(unix)]
#[test]
fn a_mirrored_root_lists_each_skill_once() {
    let sb = Sandbox::with_repo();
    sb.write(".agents/skills/one/SKILL.md", skill_md("one", "One."));
    sb.write(".agents/skills/ops/two/SKILL.md", skill_md("two", "Two."));
    sb.symlink("../.agents/skills", ".claude/skills");
    // A loop inside the root terminates too.
    sb.symlink("..", ".agents/skills/ops/up");

    let run = sb.run(&["list", "--format", "json"]);
    run.assert_ok();
    let mut names = skill_names(&run);
    names.sort();
    assert_eq!(names, ["one", "two"], "{}", run.stdout);
    let lint = sb.run(&["lint"]);
    lint.assert_ok();
    assert_eq!(lint.stderr.trim(), "2 skills checked, no problems");
}

#[test]
fn git_is_not_walked_but_node_modules_and_skillopt_folders_are() {
    let sb = Sandbox::with_repo();
    sb.write(".agents/skills/real/SKILL.md", skill_md("real", "Real."));
    sb.write(
        ".agents/skills/.git/pkg/SKILL.md",
        skill_md("pkg", "Hidden."),
    );
    // Agents load a skill in a category named node_modules or .skillopt like any other.
    for loaded in [
        ".agents/skills/node_modules/pkg",
        ".agents/skills/.skillopt/pkg",
    ] {
        sb.write(&format!("{loaded}/SKILL.md"), skill_md("pkg", "Loaded."));
    }
    // git-skill's own store inside a skill is not part of the skill.
    sb.write(
        ".agents/skills/real/.skillopt/pending/signal.json",
        "{}\n".repeat(1000),
    );
    let run = sb.run(&["list", "--format", "json"]);
    run.assert_ok();
    let skills = run.json()["skills"].as_array().unwrap().clone();
    let paths: Vec<&str> = skills.iter().map(|s| s["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            ".agents/skills/.skillopt/pkg",
            ".agents/skills/node_modules/pkg",
            ".agents/skills/real"
        ],
        "{}",
        run.stdout
    );
    assert_eq!(skills[2]["files"], 1);
    assert_eq!(skills[2]["bytes"], skill_md("real", "Real.").len());
    let lint = sb.run(&["lint"]);
    crate::snapshot::assert_run(
        &sb,
        "list-git-is-not-walked-but-node-modules-and-skillopt-folders-are-301",
        &lint,
    );
}

#[test]
fn walks_go_deeper_than_any_agent_and_a_deeper_folder_is_an_error() {
    let sb = Sandbox::with_repo();
    // Copilot CLI loads skills eight levels down.
    let eight = "skills/a/b/c/d/e/f/g/eight";
    sb.write(&format!("{eight}/SKILL.md"), skill_md("eight", "Deep."));
    let run = sb.run(&["list", "--format", "json"]);
    run.assert_ok();
    assert_eq!(skill_names(&run), ["eight"]);
    // Past the walk's depth: not a silent pass.
    let deep = format!("skills/{}too-deep", "d/".repeat(25));
    sb.write(
        &format!("{deep}/SKILL.md"),
        skill_md("too-deep", "Too deep."),
    );
    let run = sb.run(&["list", "--format", "json"]);
    run.assert_status(2);
    assert_eq!(skill_names(&run), ["eight"]);
    crate::snapshot::assert_snapshot(
        "list-walks-go-deeper-than-any-agent-and-a-deeper-folder-is-an-error-1",
        &crate::snapshot::show(&sb, &run),
    );
}

// ---- Closed pipes ----

/// Runs git-skill with its stdout read end closed before it writes anything.
fn run_into_closed_pipe(sb: &Sandbox, args: &[&str]) -> (i32, String) {
    let mut child = sb
        .command_in("", args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn git-skill");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for git-skill");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn many_skills(sb: &Sandbox, n: usize, extra: &str) {
    let description = "word ".repeat(100);
    for i in 0..n {
        let name = format!("skill-{i:04}-with-a-long-name-so-that-the-output-fills-the-pipe");
        sb.write(
            &format!(".agents/skills/{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n{extra}---\nbody\n"),
        );
    }
}

#[test]
fn list_into_a_closed_pipe_exits_0_quietly() {
    let sb = Sandbox::with_repo();
    many_skills(&sb, 300, "");
    // Enough output that it cannot all sit in a pipe buffer.
    assert!(sb.run(&["list"]).stdout.len() > 64 * 1024);
    let (status, stderr) = run_into_closed_pipe(&sb, &["list"]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status, 0, "stderr: {stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn lint_into_a_closed_pipe_exits_0_quietly() {
    let sb = Sandbox::with_repo();
    many_skills(&sb, 300, "colour: blue\n");
    let text = sb.run(&["lint"]);
    assert!(text.stdout.len() > 64 * 1024);
    assert_eq!(text.status, 0, "warnings only");
    for args in [&["lint"][..], &["lint", "--format", "json"][..]] {
        let (status, stderr) = run_into_closed_pipe(&sb, args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(status, 0, "{args:?}: stderr: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}

#[test]
fn list_json_into_a_closed_pipe_exits_0_quietly() {
    let sb = Sandbox::with_repo();
    many_skills(&sb, 300, "");
    assert!(sb.run(&["list", "--format", "json"]).stdout.len() > 64 * 1024);
    let (status, stderr) = run_into_closed_pipe(&sb, &["list", "--format", "json"]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status, 0, "stderr: {stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn listing_the_repository_top_by_path_uses_the_skill_roots() {
    let sb = layouts();
    let run = sb.run(&["list", "--format", "json", "."]);
    run.assert_ok();
    let mut got = run.json()["skills"].as_array().unwrap().clone();
    let mut want = expected_rows(&sb, "");
    let key = |v: &Value| v["path"].as_str().unwrap().to_owned();
    got.sort_by_key(key);
    want.sort_by_key(key);
    assert_eq!(got, want);
}
