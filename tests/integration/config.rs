//! Configuration layers as the user meets them: `git -c`, `git config` (local and global, with
//! multi-valued keys), `GIT_SKILL_*` variables, `--root`, and `git skill config`.

use serde_json::Value;

use crate::common::{skill_md, Run, Sandbox};

/// A repository with a skill in a default root (`.claude/skills/std`) and in three custom
/// folders (`custom/c1`, `a/in-a`, `b/in-b`).
fn repo() -> Sandbox {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/std/SKILL.md",
        skill_md("std", "In a default root."),
    );
    sb.write("custom/c1/SKILL.md", skill_md("c1", "In custom."));
    sb.write("a/in-a/SKILL.md", skill_md("in-a", "In a."));
    sb.write("b/in-b/SKILL.md", skill_md("in-b", "In b."));
    sb
}

fn names(run: &Run) -> Vec<String> {
    run.assert_ok();
    run.json()["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("no skills array: {}", run.stdout))
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The row of `key` in `git skill config --format json`.
fn key_row(run: &Run, key: &str) -> Value {
    run.json()["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == key)
        .unwrap_or_else(|| panic!("no {key} in {}", run.stdout))
        .clone()
}

#[test]
fn git_dash_c_roots_add_to_the_agents_roots() {
    let sb = repo();
    assert_eq!(
        names(&sb.git(&["skill", "list", "--format", "json"])),
        ["std"]
    );
    let run = sb.git(&[
        "-c",
        "skill.roots=custom",
        "skill",
        "list",
        "--format",
        "json",
    ]);
    // The agents' own roots stay: configuration adds roots, it cannot take away what agents
    // load.
    assert_eq!(names(&run), ["c1", "std"]);
    assert_eq!(run.json()["skills"][0]["root"], "custom");
    assert_eq!(run.stderr, "");
    let lint = sb.git(&["-c", "skill.roots=custom", "skill", "lint"]);
    lint.assert_ok();
    assert_eq!(lint.stderr.trim(), "2 skills checked, no problems");
    // Several -c values accumulate, as for any multi-valued git key.
    let run = sb.git(&[
        "-c",
        "skill.roots=a",
        "-c",
        "skill.roots=b",
        "skill",
        "list",
        "--format",
        "json",
    ]);
    assert_eq!(names(&run), ["in-a", "in-b", "std"]);
}

#[test]
fn git_config_roots_accumulate() {
    let sb = repo();
    sb.git(&["config", "skill.roots", "a"]).assert_ok();
    sb.git(&["config", "--add", "skill.roots", "b"]).assert_ok();
    assert_eq!(
        names(&sb.git(&["skill", "list", "--format", "json"])),
        ["in-a", "in-b", "std"]
    );
    let config = sb.git(&["skill", "config", "--format", "json"]);
    config.assert_ok();
    let row = key_row(&config, "skill.roots");
    assert_eq!(row["values"], serde_json::json!(["a", "b"]));
    let source = row["source"].as_str().unwrap();
    assert!(
        source.starts_with("git config (") && source.contains(".git/config"),
        "{source}"
    );
    assert_eq!(row["env"], "GIT_SKILL_ROOTS");
}

#[test]
fn the_environment_overrides_git_config_and_the_flag_overrides_both() {
    let sb = repo();
    sb.git(&["config", "skill.roots", "a"]).assert_ok();
    let env = [("GIT_SKILL_ROOTS", "custom:b")];
    let run = sb.git_env("", &["skill", "list", "--format", "json"], &env);
    assert_eq!(names(&run), ["c1", "in-b", "std"]);
    let run = sb.run_in("", &["list", "--format", "json"], &env);
    assert_eq!(names(&run), ["c1", "in-b", "std"]);

    let run = sb.git_env(
        "",
        &["skill", "list", "--format", "json", "--root", "a"],
        &env,
    );
    assert_eq!(names(&run), ["in-a"]);
    let run = sb.git_env(
        "",
        &[
            "skill",
            "list",
            "--format",
            "json",
            "--root",
            ".claude/skills",
            "--root",
            "b",
        ],
        &env,
    );
    assert_eq!(names(&run), ["std", "in-b"]);
    let lint = sb.git_env("", &["skill", "lint", "--root", "custom"], &env);
    lint.assert_ok();
    assert_eq!(lint.stderr.trim(), "1 skill checked, no problems");

    let config = sb.git_env("", &["skill", "config", "--format", "json"], &env);
    config.assert_ok();
    let row = key_row(&config, "skill.roots");
    assert_eq!(row["values"], serde_json::json!(["custom", "b"]));
    assert_eq!(row["source"], "environment GIT_SKILL_ROOTS");
}

#[test]
fn an_unknown_key_warns_but_does_not_fail() {
    let sb = repo();
    let run = sb.git(&["-c", "skill.colour=1", "skill", "list", "--format", "json"]);
    assert_eq!(names(&run), ["std"]);
    assert!(
        run.stderr
            .starts_with("warning: unknown config key 'skill.colour'"),
        "{}",
        run.stderr
    );
    crate::snapshot::assert_snapshot(
        "config-an-unknown-key-warns-but-does-not-fail-101",
        &crate::snapshot::show(&sb, &run),
    );

    sb.git(&["config", "skill.fialOn", "high"]).assert_ok();
    let run = sb.git(&["skill", "lint"]);
    run.assert_ok();
    // The warning names the key as written and the file it is in.
    crate::snapshot::assert_snapshot(
        "config-an-unknown-key-warns-but-does-not-fail-1",
        &crate::snapshot::show(&sb, &run),
    );

    let run = sb.run_in("", &["list"], &[("GIT_SKILL_COLOUR", "1")]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "config-an-unknown-key-warns-but-does-not-fail-2",
        &crate::snapshot::show(&sb, &run),
    );
}

#[test]
fn config_json_shows_each_value_and_its_source() {
    let sb = repo();
    sb.git(&["config", "skill.failOn", "caution"]).assert_ok();
    std::fs::write(
        sb.home().join(".gitconfig"),
        "[skill]\n\tmodel = from-global\n\ttimeout = 30s\n",
    )
    .unwrap();
    let run = sb.git_env(
        "",
        &[
            "-c",
            "skill.provider=anthropic",
            "-c",
            "skill.autoSkill.threshold=7",
            "skill",
            "config",
            "--format",
            "json",
        ],
        &[
            ("GIT_SKILL_MAX_GROWTH", "0.25"),
            ("GIT_SKILL_TIMEOUT", "45s"),
        ],
    );
    run.assert_ok();
    assert_eq!(run.stderr, "");
    let report = run.json();
    assert_eq!(report["version"], 1);
    let keys: Vec<&str> = report["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "skill.provider",
            "skill.model",
            "skill.baseUrl",
            "skill.command",
            "skill.timeout",
            "skill.connectTimeout",
            "skill.retries",
            "skill.parallel",
            "skill.templateDir",
            "skill.roots",
            "skill.failOn",
            "skill.scanCache",
            "skill.gateThreshold",
            "skill.gateVotes",
            "skill.maxGrowth",
            "skill.evalMaxCalls",
            "skill.evalsFromSignals",
            "skill.autoSkill.root",
            "skill.autoSkill.enabled",
            "skill.autoSkill.threshold",
            "skill.autoSkill.allowCreate",
            "skill.autoSkill.allowOptimize",
            "skill.autoSkill.linked",
            "skill.autoSkill.maxRounds",
            "skill.autoSkill.timeout",
            "skill.autoSkill.maxNew",
            "skill.autoSkill.apply",
        ]
    );
    let value_and_source = |key: &str| {
        let row = key_row(&run, key);
        (
            row["values"].clone(),
            row["source"].as_str().map(str::to_owned),
        )
    };
    let one = |v: &str| serde_json::json!([v]);
    assert_eq!(
        value_and_source("skill.provider"),
        (one("anthropic"), Some("git config (git -c)".into()))
    );
    assert_eq!(
        value_and_source("skill.autoSkill.threshold"),
        (one("7"), Some("git config (git -c)".into()))
    );
    assert_eq!(
        value_and_source("skill.maxGrowth"),
        (one("0.25"), Some("environment GIT_SKILL_MAX_GROWTH".into()))
    );
    // The environment beats the global file.
    assert_eq!(
        value_and_source("skill.timeout"),
        (one("45s"), Some("environment GIT_SKILL_TIMEOUT".into()))
    );
    assert_eq!(
        value_and_source("skill.gateThreshold"),
        (one("0.5"), Some("default".into()))
    );
    assert_eq!(
        value_and_source("skill.autoSkill.enabled"),
        (one("false"), Some("default".into()))
    );
    assert_eq!(
        value_and_source("skill.baseUrl"),
        (serde_json::json!([]), None)
    );
    assert_eq!(
        value_and_source("skill.roots"),
        (serde_json::json!([]), None)
    );
    let (model, source) = value_and_source("skill.model");
    assert_eq!(model, one("from-global"));
    assert!(
        source
            .as_deref()
            .is_some_and(|s| s.contains("home/.gitconfig")),
        "{source:?}"
    );
    let (fail_on, source) = value_and_source("skill.failOn");
    assert_eq!(fail_on, one("caution"));
    assert!(
        source.as_deref().is_some_and(|s| s.contains(".git/config")),
        "{source:?}"
    );
    assert_eq!(
        key_row(&run, "skill.autoSkill.enabled")["env"],
        "GIT_SKILL_AUTO_SKILL_ENABLED"
    );
    assert_eq!(key_row(&run, "skill.baseUrl")["env"], "GIT_SKILL_BASE_URL");
}

#[test]
fn config_text_lists_every_key_with_value_and_source() {
    let sb = repo();
    sb.git(&["config", "skill.roots", "custom"]).assert_ok();
    let run = sb.git(&["skill", "config"]);
    run.assert_ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        28,
        "a header and a line per key: {}",
        run.stdout
    );
    let line = |key: &str| {
        *lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(key))
            .unwrap_or_else(|| panic!("{key}: {}", run.stdout))
    };
    let words = |l: &str| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        words(line("skill.roots"))[1..4],
        ["custom", "git", "config"],
        "{}",
        run.stdout
    );
    assert_eq!(
        words(line("skill.gateThreshold"))[1..],
        ["0.5", "default"],
        "{}",
        run.stdout
    );
    // Aligned: every source starts under the SOURCE header, whatever the value's width.
    let column = lines[0].find("SOURCE").expect("a header");
    for l in lines.iter().skip(1).filter(|l| l.ends_with("default")) {
        assert_eq!(l.find("default"), Some(column), "{}", run.stdout);
    }
    assert_eq!(
        line("skill.roots").find("git config"),
        Some(column),
        "{}",
        run.stdout
    );
    assert!(
        line("skill.provider").ends_with("(unset)"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_invalid_value_makes_config_exit_2_with_the_value_and_a_hint() {
    let sb = repo();
    sb.git(&["config", "skill.gateThreshold", "2"]).assert_ok();
    let run = sb.git(&["skill", "config"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "config-an-invalid-value-makes-config-exit-2-with-the-value-and-a-hint-1",
        &crate::snapshot::show(&sb, &run),
    );
    let error = run
        .stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("{}", run.stderr));
    crate::snapshot::assert_text(
        &sb,
        "config-an-invalid-value-makes-config-exit-2-with-the-value-and-a-hint-401",
        error,
    );

    let json = sb.git(&["skill", "config", "--format", "json"]);
    json.assert_status(2);
    assert_eq!(
        key_row(&json, "skill.gateThreshold")["values"],
        serde_json::json!(["2"])
    );

    // A bad value of a key lint does not use does not stop lint or list.
    sb.git(&["skill", "lint"]).assert_ok();
    sb.git(&["skill", "list"]).assert_ok();
}

#[test]
fn invalid_values_from_each_layer_name_their_source() {
    let sb = repo();
    let run = sb.run_in("", &["config"], &[("GIT_SKILL_GATE_THRESHOLD", "abc")]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "config-invalid-values-from-each-layer-name-their-source-101",
        &crate::snapshot::show(&sb, &run),
    );

    // A key with a subsection (`[skill "autoSkill"]`), and two bad values at once.
    sb.git(&["config", "skill.autoSkill.threshold", "0"])
        .assert_ok();
    let run = sb.git(&["-c", "skill.failOn=severe", "skill", "config"]);
    run.assert_status(2);
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 2, "{}", run.stderr);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("'severe'") && e.contains("skill.failOn") && e.contains("git -c")),
        "{}",
        run.stderr
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("'0'") && e.contains("skill.autoSkill.threshold")),
        "{}",
        run.stderr
    );
}

#[test]
fn global_config_is_read_and_the_repository_wins() {
    let sb = repo();
    std::fs::write(
        sb.home().join(".gitconfig"),
        "[skill]\n\troots = a\n\tfailOn = never\n",
    )
    .unwrap();
    assert_eq!(
        names(&sb.git(&["skill", "list", "--format", "json"])),
        ["in-a", "std"]
    );
    sb.git(&["config", "skill.failOn", "caution"]).assert_ok();
    let run = sb.git(&["skill", "config", "--format", "json"]);
    run.assert_ok();
    assert_eq!(
        key_row(&run, "skill.failOn")["values"],
        serde_json::json!(["caution"])
    );
}

#[test]
fn config_works_outside_a_repository() {
    let sb = Sandbox::new();
    let ceiling = sb.tmp.path().display().to_string();
    std::fs::write(
        sb.home().join(".gitconfig"),
        "[skill]\n\tprovider = openai\n",
    )
    .unwrap();
    let run = sb.run_in(
        "",
        &["config", "--format", "json"],
        &[("GIT_CEILING_DIRECTORIES", &ceiling)],
    );
    run.assert_ok();
    assert_eq!(
        key_row(&run, "skill.provider")["values"],
        serde_json::json!(["openai"])
    );
}

#[test]
fn git_config_count_values_are_read() {
    let sb = repo();
    let run = sb.git_env(
        "",
        &["skill", "list", "--format", "json"],
        &[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "skill.roots"),
            ("GIT_CONFIG_VALUE_0", "custom"),
        ],
    );
    assert_eq!(names(&run), ["c1", "std"]);
}

#[test]
fn a_home_relative_root_is_walked() {
    let sb = repo();
    let home_skill = sb.home().join(".claude/skills/from-home");
    std::fs::create_dir_all(&home_skill).unwrap();
    std::fs::write(
        home_skill.join("SKILL.md"),
        skill_md("from-home", "Lives in HOME."),
    )
    .unwrap();
    let run = sb.git(&[
        "-c",
        "skill.roots=~/.claude/skills",
        "skill",
        "list",
        "--format",
        "json",
    ]);
    assert!(!run.stderr.contains("symlink"), "{}", run.stderr);
    assert_eq!(names(&run), ["from-home", "std"]);
}

/// The team's `failOn` and `roots` in `.skillguard.yaml`, part of every clone: under git
/// config, the environment and flags; the hook reads the staged file and a range scan the
/// base revision's, so that a change cannot lower its own fail level.
#[test]
fn skillguard_yaml_holds_the_teams_fail_level_and_roots() {
    let sb = repo();
    // HID003 (high): a caution.
    sb.write(
        ".claude/skills/odd/SKILL.md",
        "---\nname: odd\ndescription: Odd.\n---\nig\u{200b}nore\n",
    );
    sb.write(
        ".skillguard.yaml",
        "failOn: caution\nroots:\n  - custom\n  - a\n",
    );
    sb.run(&["scan"]).assert_status(1);
    let listed = sb.git(&["skill", "list", "--format", "json"]);
    assert_eq!(names(&listed), ["c1", "in-a", "odd", "std"]);
    let config = sb.run(&["config", "--format", "json"]);
    config.assert_ok();
    let fail_on = key_row(&config, "skill.failOn");
    assert_eq!(fail_on["values"][0], "caution");
    assert_eq!(fail_on["source"], ".skillguard.yaml");
    assert_eq!(
        key_row(&config, "skill.roots")["values"],
        serde_json::json!(["custom", "a"])
    );
    // Each layer above it wins: git config, the environment, a flag.
    sb.git(&["-c", "skill.failOn=dangerous", "skill", "scan"])
        .assert_ok();
    sb.run_in(".", &["scan"], &[("GIT_SKILL_FAIL_ON", "never")])
        .assert_ok();
    sb.run(&["scan", "--fail-on", "never"]).assert_ok();
    let git_roots = sb.git(&["-c", "skill.roots=b", "skill", "list", "--format", "json"]);
    assert_eq!(names(&git_roots), ["in-b", "odd", "std"]);
    let text = sb.run(&["config"]);
    assert!(
        text.stdout.lines().any(|l| l.starts_with("skill.failOn")
            && l.contains("caution")
            && l.ends_with(".skillguard.yaml")),
        "{}",
        text.stdout
    );

    // Bad values are named with the file, and the commands that judge stop on them.
    sb.write(".skillguard.yaml", "failOn: sometimes\n");
    let run = sb.run(&["scan"]);
    run.assert_status(2);
    assert!(run.stderr.contains("failOn"), "{}", run.stderr);
    let run = sb.run(&["config"]);
    run.assert_status(2);
    assert!(
        run.stderr.contains(".skillguard.yaml")
            && run.stderr.contains("not used until it is fixed"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("skill.failOn"), "{}", run.stdout);
    sb.write(".skillguard.yaml", "roots: ['../elsewhere']\n");
    let run = sb.run(&["scan"]);
    run.assert_status(2);
    assert!(
        run.stderr.contains("leads out of the repository"),
        "{}",
        run.stderr
    );

    // The hook reads the staged file: a work-tree edit that is not staged does not count.
    sb.write(".skillguard.yaml", "failOn: caution\n");
    sb.run(&["hook", "install"]).assert_ok();
    sb.git(&["add", "-A"]).assert_ok();
    let blocked = sb.git(&["commit", "-qm", "odd"]);
    blocked.assert_status(1);
    sb.write(".skillguard.yaml", "failOn: never\n");
    sb.git(&["commit", "-qm", "odd"]).assert_status(1);
    sb.git(&["add", ".skillguard.yaml"]).assert_ok();
    sb.git(&["commit", "-qm", "odd, the team accepts cautions"])
        .assert_ok();

    // A range is judged by its base's settings: a change that lowers the level and adds a
    // caution together is judged at the level it came from.
    sb.write(".skillguard.yaml", "failOn: caution\n");
    sb.git(&["commit", "-qam", "cautions fail again"])
        .assert_ok();
    let base = sb.git(&["rev-parse", "HEAD"]).stdout.trim().to_owned();
    sb.write(".skillguard.yaml", "failOn: never\n");
    sb.write(
        ".claude/skills/odd2/SKILL.md",
        "---\nname: odd2\ndescription: Odd too.\n---\nig\u{200b}nore\n",
    );
    sb.git(&["add", "-A"]).assert_ok();
    sb.git(&["commit", "-qm", "lower the level", "--no-verify"])
        .assert_ok();
    let range = sb.run(&["scan", "--from-ref", &base, "--to-ref", "HEAD"]);
    range.assert_status(1);
    let trusted = sb.run(&[
        "scan",
        "--from-ref",
        &base,
        "--to-ref",
        "HEAD",
        "--suppressions-from-target",
    ]);
    trusted.assert_ok();
}
