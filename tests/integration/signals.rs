//! `git skill record` and `git skill signals`: recording by name, path and stdin, the store on
//! disk as git sees it, the dashboard, one skill's list and the selection, malformed stores and
//! concurrent writers.

use std::io::Write as _;
use std::path::Path;

use super::common::{skill_md, Run, Sandbox};

const NOW: &str = "2026-11-30T12:00:00Z";
const STORE: &str = ".skillopt/pending/signal.json";

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A repository with skills `pdf` and `deploy` under `.claude/skills`.
fn repo() -> Sandbox {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        skill_md("pdf", "Fill PDF forms."),
    );
    sb.write(
        ".claude/skills/deploy/SKILL.md",
        skill_md("deploy", "Deploy the service."),
    );
    sb
}

fn at(sb: &Sandbox, now: &str, args: &[&str]) -> Run {
    sb.run_in("", args, &[("GIT_SKILL_NOW", now)])
}

fn with_stdin(sb: &Sandbox, args: &[&str], input: &str) -> Run {
    sb.run_with_stdin(args, &[("GIT_SKILL_NOW", NOW)], input)
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn corrected(sb: &Sandbox, now: &str, skill: &str, scenario: &str) -> Run {
    let run = at(
        sb,
        now,
        &[
            "record",
            skill,
            "--type",
            "corrected",
            "--scenario",
            scenario,
            "--correction",
            "use the form field names",
        ],
    );
    run.assert_ok();
    run
}

fn friction(sb: &Sandbox, now: &str, skill: &str, scenario: &str) -> Run {
    let run = at(
        sb,
        now,
        &[
            "record",
            skill,
            "--type",
            "friction",
            "--scenario",
            scenario,
            "--friction-detail",
            "guessed which script merges",
        ],
    );
    run.assert_ok();
    run
}

/// `record <skill> --type friction` with placeholder texts, run in `dir`, whatever the outcome.
fn try_friction(sb: &Sandbox, dir: &str, skill: &str) -> Run {
    sb.run_in(
        dir,
        &[
            "record",
            skill,
            "--type",
            "friction",
            "--scenario",
            "s",
            "--friction-detail",
            "d",
        ],
        &[],
    )
}

#[test]
fn record_by_name_fills_id_hash_and_time_and_git_sees_the_store() {
    let sb = repo();
    let run = at(
        &sb,
        NOW,
        &[
            "record",
            "pdf",
            "--type",
            "corrected",
            "--scenario",
            "fill a tax form",
            "--correction",
            "use the form field names, not the printed labels",
            "--user-intent",
            "file my taxes",
            "--problem-turn",
            "typed into the labels",
            "--user-correction",
            "no, the field names!",
        ],
    );
    run.assert_ok();
    let id = run.stdout.trim();
    assert!(id.starts_with("20261130T120000Z_pdf_"), "{id}");
    assert_eq!(id.len(), "20261130T120000Z_pdf_".len() + 8, "{id}");
    crate::snapshot::assert_snapshot(
        "signals-record-by-name-fills-id-hash-and-time-and-git-sees-the-store-1",
        &crate::snapshot::show(&sb, &run),
    );
    let store = sb.repo().join(".claude/skills/pdf").join(STORE);
    let stored = lines(&store);
    assert_eq!(stored.len(), 1);
    let s = &stored[0];
    assert_eq!(s["signal_id"], id);
    assert_eq!(s["skill"], "pdf");
    assert_eq!(s["type"], "corrected");
    assert_eq!(s["timestamp"], "2026-11-30T12:00:00Z");
    assert_eq!(s["context"]["user_correction"], "no, the field names!");
    let skill_md = std::fs::read(sb.repo().join(".claude/skills/pdf/SKILL.md")).unwrap();
    assert_eq!(s["skill_version_hash"], sha256_hex(&skill_md));

    // The pending store is for git to track; `work/` (optimize's checkpoints) is ignored.
    std::fs::create_dir_all(sb.repo().join(".claude/skills/pdf/.skillopt/work")).unwrap();
    sb.write(
        ".claude/skills/pdf/.skillopt/work/optimization_1.json",
        "{}",
    );
    sb.git(&["add", "-A"]).assert_ok();
    let status = sb.git(&["status", "--porcelain"]);
    crate::snapshot::assert_snapshot(
        "signals-record-by-name-fills-id-hash-and-time-and-git-sees-the-store-2",
        &crate::snapshot::show(&sb, &status),
    );
    // Committing it does not trip the guard or lint, and the repository stays sound.
    sb.git(&["commit", "-q", "-m", "skills and a signal"])
        .assert_ok();
    sb.git(&["fsck", "--no-progress"]).assert_ok();
    sb.run(&["lint"]).assert_ok();
}

#[test]
fn record_by_path_and_by_skill_md_append_to_the_same_store() {
    let sb = repo();
    corrected(&sb, NOW, ".claude/skills/pdf", "one");
    friction(&sb, NOW, "./.claude/skills/pdf/SKILL.md", "two");
    let run = sb.run_in(
        ".claude/skills",
        &[
            "record",
            "pdf",
            "--type",
            "friction",
            "--scenario",
            "three",
            "--friction-detail",
            "d",
        ],
        &[],
    );
    run.assert_ok();
    let stored = lines(&sb.repo().join(".claude/skills/pdf").join(STORE));
    let scenarios: Vec<&str> = stored
        .iter()
        .map(|s| s["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(scenarios, ["one", "two", "three"]);
    let ids: std::collections::HashSet<&str> = stored
        .iter()
        .map(|s| s["signal_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3, "ids are unique");
}

#[test]
fn unknown_and_ambiguous_names_list_the_candidates() {
    let sb = repo();
    let run = try_friction(&sb, "", "pfd");
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-unknown-and-ambiguous-names-list-the-candidates-1",
        &crate::snapshot::show(&sb, &run),
    );

    sb.write(
        ".agents/skills/pdf/SKILL.md",
        skill_md("pdf", "Another PDF skill."),
    );
    let run = try_friction(&sb, "", "pdf");
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-unknown-and-ambiguous-names-list-the-candidates-3",
        &crate::snapshot::show(&sb, &run),
    );
    for dir in [".claude/skills/pdf", ".agents/skills/pdf"] {
        assert!(
            !sb.repo().join(dir).join(".skillopt").exists(),
            "nothing written in {dir}"
        );
    }
    // A path settles it.
    friction(&sb, NOW, ".agents/skills/pdf", "s");

    let run = try_friction(&sb, "", "./nowhere");
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-unknown-and-ambiguous-names-list-the-candidates-4",
        &crate::snapshot::show(&sb, &run),
    );
    std::fs::create_dir_all(sb.repo().join("empty")).unwrap();
    let run = try_friction(&sb, "", "./empty");
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-unknown-and-ambiguous-names-list-the-candidates-5",
        &crate::snapshot::show(&sb, &run),
    );
}

#[test]
fn user_level_skills_are_found_by_name_after_the_repository() {
    let sb = repo();
    let home_skill = sb.home().join(".claude/skills/notes");
    std::fs::create_dir_all(&home_skill).unwrap();
    std::fs::write(
        home_skill.join("SKILL.md"),
        skill_md("notes", "Take notes."),
    )
    .unwrap();
    friction(&sb, NOW, "notes", "took notes");
    assert_eq!(lines(&home_skill.join(STORE)).len(), 1);
    // Outside any repository too.
    let outside = sb.tmp.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let run = sb.command(
        super::common::BIN,
        &outside,
        &[
            "record",
            "notes",
            "--type",
            "friction",
            "--scenario",
            "s",
            "--friction-detail",
            "d",
        ],
    );
    run.assert_ok();
    assert_eq!(lines(&home_skill.join(STORE)).len(), 2);
}

#[test]
fn what_the_schema_forbids_is_refused_and_nothing_is_written() {
    let sb = repo();
    let store = sb.repo().join(".claude/skills/pdf").join(STORE);
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["--type", "corrected", "--scenario", "s"],
            "a corrected signal needs a correction",
            "--correction",
        ),
        (
            &["--type", "friction", "--scenario", "s", "--correction", "c"],
            "a friction signal needs a friction detail",
            "--friction-detail",
        ),
        (
            &[
                "--type",
                "corrected",
                "--scenario",
                "  ",
                "--correction",
                "c",
            ],
            "the scenario is empty",
            "--scenario",
        ),
    ];
    // Each case names what its error and its hint must say; the snapshot holds both whole.
    for (flags, error, _hint) in cases {
        let mut args = vec!["record", "pdf"];
        args.extend_from_slice(flags);
        let run = sb.run(&args);
        crate::snapshot::assert_case_snapshot(
            "signals-record-refuses",
            &error,
            &crate::snapshot::show(&sb, &run),
        );
        assert!(run.stdout.is_empty());
        assert!(!store.exists(), "{args:?} wrote the store");
    }
    // Usage errors from clap: no type, an unknown type, flags mixed with --stdin.
    sb.run(&["record", "pdf", "--scenario", "s"])
        .assert_status(2);
    sb.run(&["record", "pdf", "--type", "praise", "--scenario", "s"])
        .assert_status(2);
    sb.run(&["record", "pdf", "--stdin", "--scenario", "s"])
        .assert_status(2);
    sb.run(&[
        "record",
        "--type",
        "friction",
        "--scenario",
        "s",
        "--friction-detail",
        "d",
    ])
    .assert_status(2);
    assert!(!store.exists());
}

#[test]
fn stdin_takes_one_object_json_lines_or_an_array() {
    let sb = repo();
    let store = sb.repo().join(".claude/skills/pdf").join(STORE);
    let run = with_stdin(
        &sb,
        &["record", "pdf", "--stdin"],
        "{\n  \"type\": \"corrected\",\n  \"scenario\": \"pretty printed\",\n  \"correction\": \"c\"\n}\n",
    );
    run.assert_ok();
    assert_eq!(run.stdout.lines().count(), 1);
    let jsonl = concat!(
        r#"{"type":"friction","scenario":"a","friction_detail":"d","agent":"codex"}"#,
        "\n",
        r#"{"type":"corrected","scenario":"b","correction":"c","skill":"pdf","timestamp":"2026-11-29T08:00:00Z"}"#,
        "\n",
        r#"{"type":"friction","scenario":"c","friction_detail":"d","context":{"user_intent":"i"}}"#,
        "\n"
    );
    let run = with_stdin(
        &sb,
        &["record", "pdf", "--stdin", "--format", "json"],
        jsonl,
    );
    run.assert_ok();
    let out = run.json();
    assert_eq!(out["signal_ids"].as_array().unwrap().len(), 3);
    let stored = lines(&store);
    assert_eq!(stored.len(), 4);
    assert_eq!(stored[1]["agent"], "codex", "unknown fields are kept");
    assert_eq!(
        stored[2]["timestamp"], "2026-11-29T08:00:00Z",
        "a given time is kept"
    );
    assert_eq!(stored[3]["context"]["user_intent"], "i");
    let array = r#"[{"type":"friction","scenario":"x","friction_detail":"d"},{"type":"friction","scenario":"y","friction_detail":"d"}]"#;
    with_stdin(&sb, &["record", "pdf", "--stdin"], array).assert_ok();
    assert_eq!(lines(&store).len(), 6);
}

#[test]
fn bad_stdin_is_refused_whole_with_its_position() {
    let sb = repo();
    let store = sb.repo().join(".claude/skills/pdf").join(STORE);
    let good = r#"{"type":"friction","scenario":"a","friction_detail":"d"}"#;
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "no signal given"),
        (format!("{good}\n{{\"type\": \"friction\",\n"), "line 3"),
        (format!("{good}\nnot json\n"), "line 2, column 2: not JSON"),
        (format!("{good}\n42\n"), "signal 2 (line 2) is not a JSON object"),
        (
            format!("{good}\n{{\"type\":\"corrected\",\"scenario\":\"s\"}}\n"),
            "signal 2: a corrected signal needs a correction",
        ),
        (
            format!("{good}\n{{\"type\":\"friction\",\"scenario\":\"s\",\"friction_detail\":\"d\",\"skill\":\"deploy\"}}\n"),
            "names skill \"deploy\"",
        ),
        ("[".repeat(200_000), "not JSON"),
        (format!("{{\"type\":\"friction\",\"scenario\":\"s\",\"friction_detail\":\"{}\"}}", "x".repeat(2 << 20)), "shorten the context"),
    ];
    for (input, expected) in cases {
        let run = with_stdin(&sb, &["record", "pdf", "--stdin"], &input);
        crate::snapshot::assert_case_snapshot(
            "signals-stdin-refuses",
            &expected,
            &crate::snapshot::show(&sb, &run),
        );
        assert!(run.stdout.is_empty());
        assert!(!store.exists(), "{expected}: something was written");
    }
    // More than the 16 MiB the command reads.
    let huge = format!("{good}\n").repeat((17 << 20) / good.len());
    let run = with_stdin(&sb, &["record", "pdf", "--stdin"], &huge);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-bad-stdin-is-refused-whole-with-its-position-101",
        &crate::snapshot::show(&sb, &run),
    );
    // Not UTF-8.
    let run = with_stdin(&sb, &["record", "pdf", "--stdin"], "{\"a\":\"\u{0}\"}");
    assert_eq!(run.status, 2);
    assert!(!store.exists());
}

#[test]
fn credentials_are_masked_before_they_reach_the_store() {
    let sb = repo();
    let key = concat!("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    let correction = format!("push with the token {key}");
    let run = at(
        &sb,
        NOW,
        &[
            "record",
            "pdf",
            "--type",
            "corrected",
            "--scenario",
            "push",
            "--correction",
            &correction,
        ],
    );
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "signals-credentials-are-masked-before-they-reach-the-store-1",
        &crate::snapshot::show(&sb, &run),
    );
    let text = std::fs::read_to_string(sb.repo().join(".claude/skills/pdf").join(STORE)).unwrap();
    assert!(!text.contains(key), "{text}");
    crate::snapshot::assert_text(
        &sb,
        "signals-credentials-are-masked-before-they-reach-the-store-401",
        &text,
    );
    for args in [
        vec!["signals", "pdf"],
        vec!["signals", "pdf", "--format", "json"],
    ] {
        let run = sb.run(&args);
        assert!(!run.stdout.contains(key) && !run.stderr.contains(key));
    }
}

#[test]
fn the_recorder_skill_is_printed_and_lints_clean() {
    let sb = repo();
    let run = sb.run(&["record", "--print-skill"]);
    run.assert_ok();
    let template = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/skills/skill-recorder/SKILL.md"),
    )
    .unwrap();
    assert_eq!(run.stdout, template);
    crate::snapshot::assert_snapshot(
        "signals-the-recorder-skill-is-printed-and-lints-clean-101",
        &crate::snapshot::show(&sb, &run),
    );
    sb.write(".claude/skills/skill-recorder/SKILL.md", &run.stdout);
    sb.run(&["lint", "--strict", ".claude/skills/skill-recorder"])
        .assert_ok();
    let scan = sb.run(&["scan", ".claude/skills/skill-recorder", "--format", "json"]);
    scan.assert_ok();
    assert_eq!(
        scan.json()["skills"][0]["verdict"],
        "safe",
        "{}",
        scan.stdout
    );
}

fn dashboard_repo() -> Sandbox {
    let sb = repo();
    sb.write(
        ".claude/skills/ops/backup/SKILL.md",
        skill_md("backup", "Back up."),
    );
    sb.write(
        ".agents/skills/quiet/SKILL.md",
        skill_md("quiet", "Nothing to say."),
    );
    // pdf: 1 corrected, 2 friction (highlighted); deploy: 2 corrected; backup: 1 friction.
    corrected(&sb, "2026-11-28T12:00:00Z", "pdf", "a");
    friction(&sb, "2026-11-29T12:00:00Z", "pdf", "b");
    friction(&sb, "2026-11-30T11:00:00Z", "pdf", "c");
    corrected(&sb, "2026-11-20T12:00:00Z", "deploy", "d");
    corrected(&sb, "2026-11-25T12:00:00Z", "deploy", "e");
    friction(&sb, "2026-11-25T12:00:00Z", "backup", "f");
    // A skill deleted with its signals left behind.
    friction(&sb, "2026-11-01T12:00:00Z", "quiet", "g");
    std::fs::remove_file(sb.repo().join(".agents/skills/quiet/SKILL.md")).unwrap();
    sb
}

#[test]
fn the_dashboard_shows_the_neediest_first_and_deleted_skills_last() {
    use crate::snapshot::{assert_snapshot, show};
    let sb = dashboard_repo();
    // Scores: deploy 2x2 = 4 (latest 5 days ago), pdf 2+2 = 4 (1 hour ago), backup 1; the
    // deleted skill last; skills without signals are not listed.
    assert_snapshot("signals-dashboard", &show(&sb, &at(&sb, NOW, &["signals"])));
    assert_snapshot(
        "signals-dashboard-json",
        &show(&sb, &at(&sb, NOW, &["signals", "--format", "json"])),
    );

    // Highlighting: only the pdf row, only with colour.
    let coloured = sb.run_in(
        "",
        &["signals", "--color", "always"],
        &[("GIT_SKILL_NOW", NOW)],
    );
    let highlighted: Vec<&str> = coloured
        .stdout
        .lines()
        .filter(|l| l.starts_with("\x1b[1;33m"))
        .collect();
    assert_eq!(highlighted.len(), 1, "{}", coloured.stdout);
    assert!(highlighted[0].contains("pdf"));
}

#[test]
fn the_dashboard_looks_at_user_level_roots_only_when_asked() {
    let sb = dashboard_repo();
    let home_skill = sb.home().join(".config/opencode/skills/notes");
    std::fs::create_dir_all(&home_skill).unwrap();
    std::fs::write(
        home_skill.join("SKILL.md"),
        skill_md("notes", "Take notes."),
    )
    .unwrap();
    friction(&sb, NOW, home_skill.to_str().unwrap(), "n");
    let run = at(&sb, NOW, &["signals", "--format", "json"]);
    assert!(!run.stdout.contains("\"notes\""), "{}", run.stdout);
    let run = at(&sb, NOW, &["signals", "--all-roots", "--format", "json"]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "signals-the-dashboard-looks-at-user-level-roots-only-when-asked-101",
        &crate::snapshot::show(&sb, &run),
    );

    // Outside a repository, the dashboard needs --all-roots.
    let outside = sb.tmp.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let run = sb.command(super::common::BIN, &outside, &["signals"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-the-dashboard-looks-at-user-level-roots-only-when-asked-102",
        &crate::snapshot::show(&sb, &run),
    );
    let run = sb
        .cmd(super::common::BIN)
        .dir(&outside)
        .args(&["signals", "--all-roots"])
        .envs(&[("GIT_SKILL_NOW", NOW)])
        .run();
    crate::snapshot::assert_run(
        &sb,
        "signals-the-dashboard-looks-at-user-level-roots-only-when-asked-301",
        &run,
    );
}

#[test]
fn an_empty_dashboard_says_how_to_record() {
    use crate::snapshot::check;
    let sb = repo();
    check(&sb, "signals-empty", &["signals"]);
    check(&sb, "signals-empty-json", &["signals", "--format", "json"]);
}

#[test]
fn one_skill_lists_its_signals_filtered_by_type_and_time() {
    let sb = dashboard_repo();
    crate::snapshot::assert_snapshot(
        "signals-one-skill",
        &crate::snapshot::show(&sb, &at(&sb, NOW, &["signals", "pdf"])),
    );

    let run = at(
        &sb,
        NOW,
        &["signals", "pdf", "--type", "friction", "--format", "json"],
    );
    let signals = run.json()["signals"].as_array().unwrap().clone();
    assert_eq!(signals.len(), 2);
    assert!(signals.iter().all(|s| s["type"] == "friction"));
    assert_eq!(signals[0]["line"], 2);
    assert_eq!(signals[0]["stale"], false);

    for since in ["2026-11-29", "2026-11-29T00:00:00Z", "2d"] {
        let run = at(
            &sb,
            NOW,
            &["signals", "pdf", "--since", since, "--format", "json"],
        );
        run.assert_ok();
        let scenarios: Vec<String> = run.json()["signals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["scenario"].as_str().unwrap().to_owned())
            .collect();
        let expected: &[&str] = if since == "2d" {
            &["a", "b", "c"]
        } else {
            &["b", "c"]
        };
        assert_eq!(scenarios, expected, "--since {since}");
    }
    let run = at(&sb, NOW, &["signals", "pdf", "--since", "last week"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-one-skill-lists-its-signals-filtered-by-type-and-time-1",
        &crate::snapshot::show(&sb, &run),
    );
    // Filters need a skill.
    sb.run(&["signals", "--type", "friction"]).assert_status(2);

    // A deleted skill's signals can still be read.
    let run = at(&sb, NOW, &["signals", "quiet"]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "signals-one-skill-lists-its-signals-filtered-by-type-and-time-2",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(run.stdout.lines().count(), 2);
    let run = at(&sb, NOW, &["signals", "quiet", "--selected"]);
    run.assert_status(2);
    crate::snapshot::assert_run(
        &sb,
        "signals-one-skill-lists-its-signals-filtered-by-type-and-time-301",
        &run,
    );
}

#[test]
fn selected_shows_what_optimize_would_use() {
    let sb = repo();
    // 3 corrected and 22 friction within the window, 1 of each older than 30 days.
    corrected(&sb, "2026-10-01T00:00:00Z", "pdf", "old corrected");
    friction(&sb, "2026-10-01T00:00:00Z", "pdf", "old friction");
    let mut input = String::new();
    for i in 0..22 {
        input.push_str(&format!(
            "{{\"type\":\"friction\",\"scenario\":\"f{i}\",\"friction_detail\":\"d\",\"timestamp\":\"2026-11-{:02}T10:00:00Z\"}}\n",
            i + 1
        ));
    }
    with_stdin(&sb, &["record", "pdf", "--stdin"], &input).assert_ok();
    corrected(&sb, "2026-11-02T00:00:00Z", "pdf", "c-early");
    // SKILL.md changes: the signals so far are stale.
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        skill_md("pdf", "Fill PDF forms, better."),
    );
    corrected(&sb, "2026-11-28T00:00:00Z", "pdf", "c-late");
    corrected(&sb, "2026-11-10T00:00:00Z", "pdf", "c-mid");

    let run = at(
        &sb,
        NOW,
        &["signals", "pdf", "--selected", "--format", "json"],
    );
    run.assert_ok();
    let v = run.json();
    let scenarios: Vec<&str> = v["selected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["scenario"].as_str().unwrap())
        .collect();
    let mut expected = vec!["c-late", "c-mid", "c-early"];
    let friction: Vec<String> = (5..22).rev().map(|i| format!("f{i}")).collect();
    expected.extend(friction.iter().map(String::as_str));
    assert_eq!(scenarios, expected);
    assert_eq!(v["left_out"], 5);
    assert_eq!(v["too_old"], 2);
    let stale = v["stale"].as_array().unwrap();
    assert_eq!(stale.len(), 18, "all but c-late and c-mid: {v}");
    assert_eq!(v["selected"][0]["stale"], false);
    assert_eq!(v["selected"][2]["stale"], true);

    // Since 2026-11-20T12:00: c-late, f21 and f20; two kept.
    let run = at(
        &sb,
        NOW,
        &[
            "signals",
            "pdf",
            "--selected",
            "--days",
            "10",
            "--max-signals",
            "2",
        ],
    );
    // The newest corrected first, then the newest friction; which SKILL.md each was against.
    crate::snapshot::assert_run(&sb, "signals-selected-newest-within-the-limit", &run);
    crate::snapshot::assert_snapshot(
        "signals-selected-shows-what-optimize-would-use-1",
        &crate::snapshot::show(&sb, &run),
    );
}

#[test]
fn malformed_stores_are_reported_by_line_and_never_changed() {
    let sb = repo();
    let good = |n: usize| {
        format!(
            r#"{{"signal_id":"20261130T000000Z_pdf_{n:08x}","skill":"pdf","type":"friction","scenario":"s{n}","friction_detail":"d","skill_version_hash":"{}","timestamp":"2026-11-29T00:00:00Z"}}"#,
            "a".repeat(64)
        )
    };
    let mut text = Vec::new();
    text.extend_from_slice(b"\xEF\xBB\xBF");
    text.extend_from_slice(good(1).as_bytes());
    text.push(b'\n');
    text.extend_from_slice(good(2).as_bytes());
    text.push(b'\n');
    text.extend_from_slice(b"garbage, not JSON\n");
    text.extend_from_slice(good(4).as_bytes());
    text.extend_from_slice(b"\r\n");
    text.extend_from_slice(br#"{"signal_id":"x","skill":"pdf","type":"friction"}"#);
    text.push(b'\n');
    text.extend_from_slice(&vec![b'x'; 10 << 20]);
    text.push(b'\n');
    text.extend_from_slice(good(7).as_bytes());
    text.push(b'\n');
    text.extend_from_slice(&good(8).as_bytes()[..40]);
    let path = sb.write(&format!(".claude/skills/pdf/{STORE}"), &text);

    let run = at(&sb, NOW, &["signals", "pdf", "--format", "json"]);
    run.assert_ok();
    let v = run.json();
    let scenarios: Vec<&str> = v["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(scenarios, ["s2", "s7"]);
    let bad: Vec<u64> = v["malformed_lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["line"].as_u64().unwrap())
        .collect();
    assert_eq!(bad, [1, 3, 4, 5, 6, 8]);
    let shown = ".claude/skills/pdf/.skillopt/pending/signal.json";
    for (line, reason) in [
        (1, "byte order mark"),
        (3, "not a signal"),
        (4, "CR LF"),
        (5, "missing field"),
        (6, "longer than"),
        (8, "no line break"),
    ] {
        let expected = format!("warning: {shown}:{line}: ");
        let found = run
            .stderr
            .lines()
            .find(|l| l.starts_with(&expected))
            .unwrap_or_else(|| panic!("no warning for line {line}:\n{}", run.stderr));
        assert!(found.contains(reason), "{found}");
    }
    // The dashboard and the selection read the same way and warn the same way.
    let dash = at(&sb, NOW, &["signals", "--format", "json"]);
    dash.assert_ok();
    assert_eq!(dash.json()["skills"][0]["friction"], 2);
    assert_eq!(dash.json()["skills"][0]["malformed_lines"], 6);
    crate::snapshot::assert_run(
        &sb,
        "signals-malformed-stores-are-reported-by-line-and-never-changed-301",
        &dash,
    );
    at(&sb, NOW, &["signals", "pdf", "--selected"]).assert_ok();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        text,
        "the store is unchanged"
    );

    // Recording after a cut-off last line ends that line first: it stays one bad line.
    friction(&sb, NOW, "pdf", "after");
    let after = std::fs::read(&path).unwrap();
    assert_eq!(&after[..text.len()], &text[..], "only appended");
    let run = at(&sb, NOW, &["signals", "pdf", "--format", "json"]);
    let v = run.json();
    assert_eq!(v["signals"].as_array().unwrap().len(), 3);
    assert_eq!(v["signals"][2]["scenario"], "after");
    assert_eq!(v["signals"][2]["line"], 9);
}

#[cfg(unix)]
#[test]
fn a_store_linked_out_of_the_skill_is_refused() {
    let sb = repo();
    let outside = sb.tmp.path().join("outside");
    std::fs::create_dir_all(outside.join("pending")).unwrap();
    std::os::unix::fs::symlink(&outside, sb.repo().join(".claude/skills/pdf/.skillopt")).unwrap();
    let run = try_friction(&sb, "", "pdf");
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-a-store-linked-out-of-the-skill-is-refused-101",
        &crate::snapshot::show(&sb, &run),
    );
    assert!(!outside.join("pending/signal.json").exists());
    std::fs::write(outside.join("pending/signal.json"), "").unwrap();
    let run = sb.run(&["signals", "pdf"]);
    run.assert_status(2);
    let run = sb.run(&["signals"]);
    run.assert_status(2);
    crate::snapshot::assert_run(
        &sb,
        "signals-a-store-linked-out-of-the-skill-is-refused-301",
        &run,
    );
}

/// 16 writer processes, each recording 250 signals one `git skill record` at a time, while a
/// reader lists the store over and over: 4,000 valid lines at the end, unique ids, and the
/// reader never sees an error or a malformed line.
#[test]
fn concurrent_writers_and_a_reader() {
    let sb = repo();
    let store = sb.repo().join(".claude/skills/pdf").join(STORE);
    const WRITERS: usize = 16;
    const EACH: usize = 250;
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut reads = 0;
            let mut last = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let run = sb.run(&["signals", "pdf", "--format", "json"]);
                run.assert_ok();
                assert!(!run.stderr.contains("warning"), "{}", run.stderr);
                let n = run.json()["signals"].as_array().unwrap().len();
                assert!(n >= last, "the store shrank from {last} to {n}");
                last = n;
                reads += 1;
            }
            reads
        });
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let sb = &sb;
                s.spawn(move || {
                    for i in 0..EACH {
                        let scenario = format!("writer {w} signal {i}");
                        sb.run(&[
                            "record",
                            "pdf",
                            "--type",
                            "friction",
                            "--scenario",
                            &scenario,
                            "--friction-detail",
                            "d",
                        ])
                        .assert_ok();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
    });
    let text = std::fs::read_to_string(&store).unwrap();
    let stored: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is a whole signal"))
        .collect();
    assert_eq!(stored.len(), WRITERS * EACH);
    let ids: std::collections::HashSet<&str> = stored
        .iter()
        .map(|s| s["signal_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), WRITERS * EACH, "ids are unique");
    for w in 0..WRITERS {
        let mine: Vec<usize> = stored
            .iter()
            .filter_map(|s| {
                let scenario = s["scenario"].as_str().unwrap();
                let rest = scenario.strip_prefix(&format!("writer {w} signal "))?;
                rest.parse().ok()
            })
            .collect();
        assert_eq!(
            mine,
            (0..EACH).collect::<Vec<_>>(),
            "writer {w}'s signals in order"
        );
    }
    let run = sb.run(&["signals", "--format", "json"]);
    assert_eq!(run.json()["skills"][0]["friction"], (WRITERS * EACH) as u64);
}

/// Batches of large lines from several processes: each batch lands whole and contiguous (the
/// exclusive lock covers the batch, which `O_APPEND` alone would not), and a reader running
/// alongside never sees a partial line.
#[test]
fn concurrent_batches_of_large_lines_stay_contiguous() {
    let sb = repo();
    const WRITERS: usize = 8;
    const BATCHES: usize = 5;
    const LINES: usize = 40;
    let padding = "p".repeat(3000);
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let run = sb.run(&["signals", "--format", "json"]);
                run.assert_ok();
                assert!(!run.stderr.contains("warning"), "{}", run.stderr);
            }
        });
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (sb, padding) = (&sb, &padding);
                s.spawn(move || {
                    for b in 0..BATCHES {
                        let mut input = String::new();
                        for l in 0..LINES {
                            input.push_str(&format!(
                                "{{\"type\":\"friction\",\"scenario\":\"w{w} b{b} l{l}\",\"friction_detail\":\"{padding}\"}}\n"
                            ));
                        }
                        with_stdin(sb, &["record", "pdf", "--stdin"], &input).assert_ok();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        reader.join().unwrap();
    });
    let stored = lines(&sb.repo().join(".claude/skills/pdf").join(STORE));
    assert_eq!(stored.len(), WRITERS * BATCHES * LINES);
    for chunk in stored.chunks(LINES) {
        let first = chunk[0]["scenario"].as_str().unwrap();
        let batch = first.rsplit_once(' ').unwrap().0;
        for (l, s) in chunk.iter().enumerate() {
            assert_eq!(s["scenario"], format!("{batch} l{l}"), "a batch was split");
        }
    }
}

#[test]
fn a_huge_window_and_null_fields_are_handled() {
    let sb = repo();
    friction(&sb, "2000-01-01T00:00:00Z", "pdf", "ancient");
    let run = at(
        &sb,
        NOW,
        &[
            "signals",
            "pdf",
            "--selected",
            "--days",
            "4294967295",
            "--format",
            "json",
        ],
    );
    run.assert_ok();
    assert_eq!(run.json()["selected"].as_array().unwrap().len(), 1);
    // --days without --selected would be silently ignored: it is a usage error.
    sb.run(&["signals", "pdf", "--days", "3"]).assert_status(2);
    let run = with_stdin(
        &sb,
        &["record", "pdf", "--stdin"],
        r#"{"type":"friction","scenario":"s","friction_detail":"d","correction":null,"context":null}"#,
    );
    run.assert_ok();
}

#[test]
fn secrets_in_stdin_keys_ids_and_errors_are_never_stored_or_printed() {
    let sb = repo();
    let key = concat!("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    let store = sb.repo().join(".claude/skills/pdf").join(STORE);
    let input = format!(
        r#"{{"type":"friction","scenario":"s","friction_detail":"token {key}","{key}":1}}"#
    );
    let run = with_stdin(&sb, &["record", "pdf", "--stdin"], &input);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "signals-secrets-in-stdin-keys-ids-and-errors-are-never-stored-or-printed-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert!(!std::fs::read_to_string(&store).unwrap().contains(key));
    for bad in [
        format!(
            r#"{{"type":"friction","scenario":"s","friction_detail":"d","signal_id":"{key}"}}"#
        ),
        format!(r#"{{"type":"friction","scenario":"s","friction_detail":"d","skill":"{key}"}}"#),
        format!(r#"{{"type":"{key}","scenario":"s"}}"#),
    ] {
        let run = with_stdin(&sb, &["record", "pdf", "--stdin"], &bad);
        run.assert_status(2);
        assert!(!run.stderr.contains(key), "{}", run.stderr);
    }
    // A store written by something else: its secrets are masked in every output.
    let line = format!(
        "{{\"signal_id\":\"id {key}\",\"skill\":\"pdf\",\"type\":\"friction\",\"scenario\":\"{key}\",\"friction_detail\":\"d\",\"skill_version_hash\":\"{}\",\"timestamp\":\"2026-11-29T00:00:00Z\"}}\n{{\"type\":\"{key}\"}}\n",
        "a".repeat(64)
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(&store)
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    for args in [
        vec!["signals", "pdf"],
        vec!["signals", "pdf", "--format", "json"],
        vec!["signals", "pdf", "--selected", "--format", "json"],
        vec!["signals"],
    ] {
        let run = at(&sb, NOW, &args);
        run.assert_ok();
        assert!(!run.stdout.contains(key), "{args:?}: {}", run.stdout);
        assert!(!run.stderr.contains(key), "{args:?}: {}", run.stderr);
    }
}

#[cfg(unix)]
#[test]
fn links_out_of_the_repository_are_refused_and_unrelated_ones_do_not_fail_a_record() {
    let sb = repo();
    let outside = sb.tmp.path().join("ext/evil");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("SKILL.md"), skill_md("evil", "Outside.")).unwrap();
    std::os::unix::fs::symlink(&outside, sb.repo().join(".claude/skills/evil")).unwrap();
    // Recording for pdf succeeds (exit 0) whatever else the roots hold.
    friction(&sb, NOW, "pdf", "s");
    let run = try_friction(&sb, "", ".claude/skills/evil");
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-links-out-of-the-repository-are-refused-and-unrelated-ones-do-not-fail-a-record-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert!(!outside.join(".skillopt").exists());
    // A link that stays in the repository is fine.
    std::os::unix::fs::symlink(
        sb.repo().join(".claude/skills/pdf"),
        sb.repo().join("pdf-link"),
    )
    .unwrap();
    friction(&sb, NOW, "pdf-link", "through an inner link");
    assert_eq!(
        lines(&sb.repo().join(".claude/skills/pdf").join(STORE)).len(),
        2
    );
}

#[test]
fn a_name_held_by_the_repository_the_user_and_the_current_directory_is_ambiguous() {
    let sb = repo();
    let home_skill = sb.home().join(".claude/skills/pdf");
    std::fs::create_dir_all(&home_skill).unwrap();
    std::fs::write(home_skill.join("SKILL.md"), skill_md("pdf", "Mine.")).unwrap();
    let run = try_friction(&sb, "", "pdf");
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-a-name-held-by-the-repository-the-user-and-the-current-directory-is-ambiguous-101",
        &crate::snapshot::show(&sb, &run),
    );
    // A skill directory in the current directory, outside the roots, counts too.
    sb.write("tools/lone/SKILL.md", skill_md("lone", "Alone."));
    let lone_home = sb.home().join(".agents/skills/lone");
    std::fs::create_dir_all(&lone_home).unwrap();
    std::fs::write(lone_home.join("SKILL.md"), skill_md("lone", "Also.")).unwrap();
    let run = try_friction(&sb, "tools", "lone");
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "signals-a-name-held-by-the-repository-the-user-and-the-current-directory-is-ambiguous-102",
        &crate::snapshot::show(&sb, &run),
    );
    std::fs::remove_dir_all(&lone_home).unwrap();
    try_friction(&sb, "tools", "lone").assert_ok();
    // Inside a skill, its SKILL.md names it.
    try_friction(&sb, "tools/lone", "SKILL.md").assert_ok();
    assert_eq!(lines(&sb.repo().join("tools/lone").join(STORE)).len(), 2);
}

#[test]
fn odd_directory_names_give_clean_ids_and_escaped_messages() {
    let sb = repo();
    let name = "we\u{1b}[2Jird\nname";
    sb.write(&format!("odd/{name}/SKILL.md"), skill_md("weird", "Odd."));
    let path = format!("odd/{name}");
    let run = try_friction(&sb, "", &path);
    run.assert_ok();
    assert_eq!(run.stdout.lines().count(), 1, "{:?}", run.stdout);
    assert!(
        run.stdout.trim().contains("_we--2Jird-name_"),
        "{:?}",
        run.stdout
    );
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
    assert!(!run.stdout.contains('\u{1b}'));
}
