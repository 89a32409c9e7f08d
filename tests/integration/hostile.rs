//! Hostile SKILL.md files: every one must end in a diagnostic and an exit status, never in a
//! panic or a hang. Each run is killed (and the test failed) after `LIMIT`: a hang guard, not a
//! timing assertion.

use std::time::Duration;

use serde_json::Value;

use crate::common::{codes, Run, Sandbox};

const LIMIT: Duration = Duration::from_secs(20);

/// Writes `.claude/skills/<name>/SKILL.md` with `bytes`, lints the repository (JSON) and lists
/// it (`list` reads the same frontmatter another way; it must survive too and exit 0).
/// Returns the lint run, its report and the listed skill.
fn lint_and_list(name: &str, bytes: &[u8]) -> (Run, Value, Value) {
    let sb = Sandbox::with_repo();
    sb.write(&format!(".claude/skills/{name}/SKILL.md"), bytes);
    let run = sb.run_bounded("", &["lint", "--format", "json"], &[], LIMIT);
    run.assert_no_panic();
    let report = run.json();
    let list = sb.run_bounded("", &["list", "--format", "json"], &[], LIMIT);
    list.assert_no_panic().assert_ok();
    let listed = list.json()["skills"][0].clone();
    assert_eq!(listed["path"], format!(".claude/skills/{name}"));
    (run, report, listed)
}

fn lint_bytes(name: &str, bytes: &[u8]) -> (Run, Value) {
    let (run, report, _) = lint_and_list(name, bytes);
    (run, report)
}

fn diagnostic<'a>(report: &'a Value, code: &str) -> &'a Value {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("{code} not reported: {report}"))
}

fn frontmatter(name: &str, rest: &str) -> String {
    format!("---\nname: {name}\ndescription: A hostile input.\n{rest}")
}

#[test]
fn yaml_alias_bomb_is_refused() {
    // Billion laughs: 9 levels of 9 aliases each.
    let mut yaml = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(",");
        yaml.push_str(&format!("{}: &{} [{refs}]\n", w[1], w[1]));
    }
    let (run, report) = lint_bytes(
        "bomb",
        frontmatter("bomb", &format!("{yaml}---\nbody\n")).as_bytes(),
    );
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK003"]);
    let d = diagnostic(&report, "SK003");
    assert!(
        d["hint"].as_str().unwrap().contains("anchors and aliases"),
        "{d}"
    );
}

#[test]
fn ten_megabyte_frontmatter_is_not_parsed() {
    let mut md = frontmatter("big", "").into_bytes();
    md.extend(std::iter::repeat_n(b"# padding padding padding\n", 10 * 1024 * 1024 / 26).flatten());
    md.extend_from_slice(b"---\nbody\n");
    let (run, report) = lint_bytes("big", &md);
    run.assert_status(1);
    let got = codes(&report);
    assert!(got.contains(&"SK009".to_owned()), "{got:?}");
    assert!(
        !got.contains(&"SK003".to_owned()),
        "the YAML is not parsed: {got:?}"
    );
}

#[test]
fn ten_megabyte_frontmatter_is_reported_as_too_large_not_unclosed() {
    let mut md = frontmatter("big", "").into_bytes();
    md.extend(std::iter::repeat_n(b"# padding padding padding\n", 10 * 1024 * 1024 / 26).flatten());
    md.extend_from_slice(b"---\nbody\n");
    let (run, report) = lint_bytes("big", &md);
    run.assert_status(1);
    let got = codes(&report);
    assert!(got.contains(&"SK018".to_owned()), "{got:?}");
    assert!(
        !got.contains(&"SK002".to_owned()),
        "the frontmatter is closed: {got:?}"
    );
}

#[test]
fn ten_megabyte_skill_md_without_closing_line() {
    let mut md = frontmatter("open", "").into_bytes();
    md.extend(std::iter::repeat_n(b"key: value value value\n", 10 * 1024 * 1024 / 23).flatten());
    let (run, report) = lint_bytes("open", &md);
    run.assert_status(1);
    let got = codes(&report);
    // Only the first 1 MiB is read, so "never closed" and "closed after 10 MB" look the same:
    // both are a frontmatter too large to parse.
    assert!(
        got.contains(&"SK018".to_owned()) && got.contains(&"SK009".to_owned()),
        "{got:?}"
    );
    assert!(!got.contains(&"SK002".to_owned()), "{got:?}");
    assert_eq!(diagnostic(&report, "SK018")["line"], 1);
}

#[test]
fn non_utf8_bytes_in_the_description() {
    let (run, report) = lint_bytes(
        "latin",
        b"---\nname: latin\ndescription: caf\xe9 cr\xe8me \xff\xfe\n---\nbody\n",
    );
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK017"]);
    let d = diagnostic(&report, "SK017");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(3), Some(17))
    );
}

#[test]
fn tabs_used_for_indentation() {
    let (run, report) = lint_bytes(
        "tabs",
        frontmatter("tabs", "metadata:\n\tauthor: me\n---\nbody\n").as_bytes(),
    );
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK003"]);
    let d = diagnostic(&report, "SK003");
    assert_eq!(d["line"], 5);
    assert!(d["hint"].as_str().unwrap().contains("tabs"), "{d}");
}

#[test]
fn missing_closing_line() {
    let (run, report) = lint_bytes(
        "open",
        frontmatter("open", "\n# Body\n\nSteps.\n").as_bytes(),
    );
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK002"]);
    assert_eq!(diagnostic(&report, "SK002")["line"], 1);
}

#[test]
fn description_that_is_a_yaml_list() {
    let (run, report) = lint_bytes(
        "listed",
        b"---\nname: listed\ndescription:\n  - one\n  - two\n---\nbody\n",
    );
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK008"]);
    let d = diagnostic(&report, "SK008");
    assert_eq!(d["line"], 3);
    assert!(d["message"].as_str().unwrap().contains("list"), "{d}");
}

#[test]
fn deeply_nested_flow_sequences() {
    let depth = 10_000;
    let value = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let (run, report) = lint_bytes(
        "nested",
        frontmatter("nested", &format!("deep: {value}\n---\nbody\n")).as_bytes(),
    );
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK003"]);
    assert_eq!(diagnostic(&report, "SK003")["line"], 4);
}

#[test]
fn one_megabyte_single_line_in_the_body() {
    let mut md = frontmatter("wide", "---\n").into_bytes();
    md.extend(std::iter::repeat_n(b'w', 1_000_000));
    md.push(b'\n');
    let (run, report) = lint_bytes("wide", &md);
    // Over git-skill's own 100,000 characters: a warning for a person's skill.
    run.assert_status(0);
    assert_eq!(codes(&report), ["SK009"]);
}

#[test]
fn one_megabyte_single_line_in_the_frontmatter() {
    let md = format!(
        "---\nname: wide\ndescription: {}\n---\nbody\n",
        "d".repeat(1_000_000)
    );
    let (run, report) = lint_bytes("wide", md.as_bytes());
    run.assert_status(1);
    let mut got = codes(&report);
    got.sort();
    assert_eq!(got, ["SK009", "SK018"]);
    assert_eq!(diagnostic(&report, "SK018")["line"], 2);
}

#[test]
fn nul_byte_in_the_frontmatter() {
    let (run, report) = lint_bytes("nul", b"---\nname: nul\ndescription: a\x00b\n---\nbody\n");
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK003"]);
}

#[test]
fn nul_byte_is_reported_on_its_line() {
    let (_, report) = lint_bytes("nul", b"---\nname: nul\ndescription: a\x00b\n---\nbody\n");
    assert_eq!(diagnostic(&report, "SK003")["line"], 3);
}

#[test]
fn duplicate_keys() {
    let (run, report) = lint_bytes(
        "twice",
        b"---\nname: twice\nname: twice\ndescription: x\n---\nbody\n",
    );
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK003"]);
    assert!(
        diagnostic(&report, "SK003")["hint"]
            .as_str()
            .unwrap()
            .contains("once"),
        "{report}"
    );
}

#[test]
fn duplicate_key_is_reported_on_its_line() {
    let (_, report) = lint_bytes(
        "twice",
        b"---\nname: twice\nname: twice\ndescription: x\n---\nbody\n",
    );
    assert_eq!(diagnostic(&report, "SK003")["line"], 3);
}

#[test]
fn nul_byte_in_the_body_is_accepted() {
    let (run, report) = lint_bytes(
        "nulbody",
        b"---\nname: nulbody\ndescription: x\n---\nbody \x00 text\n",
    );
    run.assert_ok();
    assert_eq!(codes(&report), Vec::<String>::new());
}

#[test]
fn crlf_line_ends_are_valid() {
    let md = b"---\r\nname: crlf\r\ndescription: Written on Windows.\r\n---\r\n# Steps\r\n\r\nDo it.\r\n";
    let (run, report, listed) = lint_and_list("crlf", md);
    run.assert_ok();
    assert_eq!(codes(&report), Vec::<String>::new(), "{}", run.stdout);
    assert_eq!(listed["name"], "crlf");
    assert_eq!(listed["description"], "Written on Windows.");
    assert_eq!(listed["invalid"], Value::Null);
}

#[test]
fn utf8_bom_is_valid() {
    let md = b"\xef\xbb\xbf---\nname: bom\ndescription: Saved with a BOM.\n---\nbody\n";
    let (run, report, listed) = lint_and_list("bom", md);
    run.assert_ok();
    // Read, with a portability warning: the reference validator and Anthropic's reject it.
    assert_eq!(codes(&report), ["SK030"], "{}", run.stdout);
    assert_eq!(listed["name"], "bom");
    assert_eq!(listed["description"], "Saved with a BOM.");
    assert_eq!(listed["invalid"], Value::Null);
}

#[test]
fn bom_and_crlf_together_keep_line_numbers() {
    let md = b"\xef\xbb\xbf---\r\nname: both\r\ndescription: Use when: asked\r\n---\r\nbody\r\n";
    let (run, report) = lint_bytes("both", md);
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK030", "SK003"]);
    assert_eq!(diagnostic(&report, "SK003")["line"], 3);
}

#[test]
fn an_empty_skill_md() {
    let (run, report) = lint_bytes("empty", b"");
    run.assert_status(1);
    assert_eq!(codes(&report), ["SK001"]);
}

#[test]
fn many_keys_and_long_keys() {
    let keys: String = (0..5000).map(|i| format!("key{i}: v\n")).collect();
    let (run, report) = lint_bytes(
        "keys",
        frontmatter("keys", &format!("{keys}---\nbody\n")).as_bytes(),
    );
    run.assert_ok();
    let codes = codes(&report);
    assert_eq!(codes.iter().filter(|c| *c == "SK022").count(), 5000);
    // And the file is over 500 lines.
    assert_eq!(
        codes.iter().filter(|c| *c != "SK022").collect::<Vec<_>>(),
        ["SK023"]
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_skill_md_is_not_opened() {
    let sb = Sandbox::with_repo();
    let dir = sb.repo().join(".claude/skills/pipe");
    std::fs::create_dir_all(&dir).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.join("SKILL.md"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let run = sb.run_bounded("", &["lint", "--format", "json"], &[], LIMIT);
    run.assert_no_panic().assert_status(1);
    assert!(
        codes(&run.json()).contains(&"SK019".to_owned()),
        "{}",
        run.stdout
    );
    let list = sb.run_bounded("", &["list", "--format", "json"], &[], LIMIT);
    list.assert_no_panic().assert_ok();
    assert_eq!(
        list.json()["skills"][0]["invalid"],
        "SKILL.md is not a regular file"
    );
}

#[test]
fn hostile_git_config_parameters_are_an_error_not_a_panic() {
    let sb = Sandbox::with_repo();
    let run = sb.run_bounded(
        "",
        &["list"],
        &[("GIT_CONFIG_PARAMETERS", "'skill.roots")],
        LIMIT,
    );
    run.assert_no_panic().assert_status(2);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    crate::snapshot::assert_snapshot(
        "hostile-hostile-git-config-parameters-are-an-error-not-a-panic-1",
        &crate::snapshot::show(&sb, &run),
    );
}
