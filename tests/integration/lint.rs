//! `git skill lint`: one fixture per lint code, limits at their boundaries, exit codes, the JSON
//! report, `--explain`, and paths that cannot be read.

use std::path::Path;

use git_skill::report::Level;
use git_skill::skill::codes::{Code, CODES};
use serde_json::Value;

use crate::common::{codes, copy_tree, fixtures, skill_md, Sandbox};

// ---- One fixture per code ----

/// What `tests/fixtures/lint/<CODE>/fixture.txt` says (see tests/fixtures/lint/README.md).
#[derive(Debug, Default)]
struct Fixture {
    path: String,
    line: Option<usize>,
    column: Option<usize>,
    also: Vec<String>,
    ops: Vec<Op>,
    /// The level the fixture is reported at, when not the code's default (a writer limit in a
    /// person's skill is a warning).
    level: Option<Level>,
}

#[derive(Debug)]
enum Op {
    Fill(String, usize),
    Expand(String, usize),
    Many(String, usize),
    Symlink(String, String),
}

impl Fixture {
    fn load(dir: &Path) -> Result<Fixture, String> {
        let meta = dir.join("fixture.txt");
        let text =
            std::fs::read_to_string(&meta).map_err(|e| format!("{}: {e}", meta.display()))?;
        let mut fx = Fixture::default();
        let mut has_path = false;
        let mut has_line = false;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || format!("{}:{}: cannot read '{line}'", meta.display(), n + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let number = |s: &str| s.parse::<usize>().map_err(|_| bad());
            match words.as_slice() {
                ["path", p] => {
                    fx.path = (*p).to_owned();
                    has_path = true;
                }
                ["line", "-"] => has_line = true,
                ["line", l] => {
                    fx.line = Some(number(l)?);
                    has_line = true;
                }
                ["column", c] => fx.column = Some(number(c)?),
                ["level", l] => fx.level = Some(Level::parse(l).ok_or_else(bad)?),
                ["also", rest @ ..] if !rest.is_empty() => {
                    fx.also.extend(rest.iter().map(|s| s.to_string()))
                }
                ["fill", p, n] => fx.ops.push(Op::Fill((*p).to_owned(), number(n)?)),
                ["expand", p, n] => fx.ops.push(Op::Expand((*p).to_owned(), number(n)?)),
                ["many", p, n] => fx.ops.push(Op::Many((*p).to_owned(), number(n)?)),
                ["symlink", p, t] => fx.ops.push(Op::Symlink((*p).to_owned(), (*t).to_owned())),
                _ => return Err(bad()),
            }
        }
        if !has_path || !has_line {
            return Err(format!(
                "{} needs a `path` and a `line` entry",
                meta.display()
            ));
        }
        Ok(fx)
    }

    /// Copies the fixture to `dest` (without fixture.txt) and does what it asks for.
    fn build(&self, src: &Path, dest: &Path) {
        copy_tree(src, dest);
        std::fs::remove_file(dest.join("fixture.txt")).unwrap();
        for op in &self.ops {
            match op {
                Op::Fill(rel, n) => {
                    let path = dest.join(rel);
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    let mut data = vec![b'x'; *n];
                    if let Some(last) = data.last_mut() {
                        *last = b'\n';
                    }
                    std::fs::write(path, data).unwrap();
                }
                Op::Expand(rel, n) => {
                    let path = dest.join(rel);
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert!(
                        text.contains("@@FILL@@"),
                        "{} has no @@FILL@@ marker",
                        path.display()
                    );
                    std::fs::write(&path, text.replace("@@FILL@@", &"x".repeat(*n))).unwrap();
                }
                Op::Many(prefix, count) => {
                    for i in 0..*count {
                        let path = dest.join(format!("{prefix}-{i}.md"));
                        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                        std::fs::write(path, format!("Note {i}.\n")).unwrap();
                    }
                }
                Op::Symlink(rel, target) => {
                    let path = dest.join(rel);
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    #[cfg(unix)]
                    std::os::unix::fs::symlink(target, &path).unwrap();
                    #[cfg(not(unix))]
                    panic!("symlink fixtures need a Unix file system ({target})");
                }
            }
        }
    }
}

fn diagnostic<'a>(report: &'a Value, code: &str) -> Option<&'a Value> {
    report["diagnostics"]
        .as_array()?
        .iter()
        .find(|d| d["code"] == code)
}

fn as_usize(v: &Value) -> Option<usize> {
    v.as_u64().map(|n| n as usize)
}

/// Lints the fixture of `code` and returns every way in which the result is wrong.
fn check_fixture(code: &Code, dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            problems.push(format!("{}: {what}", code.code));
        }
    };
    let fx = match Fixture::load(dir) {
        Ok(fx) => fx,
        Err(e) => return vec![format!("{}: {e}", code.code)],
    };
    let sb = Sandbox::with_repo();
    fx.build(dir, &sb.repo().join("fixture"));
    let path = format!("fixture/{}", fx.path);
    let expected = fx.level.unwrap_or(code.level);
    let level = expected.as_str();
    let want_status = if expected == Level::Error { 1 } else { 0 };

    // JSON: the code, its level, path, line and a hint.
    let run = sb.run(&["lint", "--format", "json", "fixture"]);
    check(
        !run.stderr.contains("panicked"),
        format!("panicked: {}", run.stderr),
    );
    check(
        run.status == want_status,
        format!(
            "exit {} instead of {want_status}; stderr: {}",
            run.status, run.stderr
        ),
    );
    let Ok(report) = serde_json::from_str::<Value>(&run.stdout) else {
        check(false, format!("stdout is not JSON: {}", run.stdout));
        return problems;
    };
    let mut got = codes(&report);
    got.sort();
    got.dedup();
    let mut want: Vec<String> = fx.also.clone();
    want.push(code.code.to_owned());
    want.sort();
    check(
        got == want,
        format!("reported codes {got:?}, expected {want:?}: {}", run.stdout),
    );
    check(
        report["summary"]["skills"] == 1,
        format!("summary is not about one skill: {}", report["summary"]),
    );
    match diagnostic(&report, code.code) {
        None => check(false, "not reported".into()),
        Some(d) => {
            check(
                d["level"] == level,
                format!("level {} instead of {level}", d["level"]),
            );
            check(
                d["path"] == path.as_str(),
                format!("path {} instead of {path}", d["path"]),
            );
            check(
                as_usize(&d["line"]) == fx.line,
                format!("line {} instead of {:?}", d["line"], fx.line),
            );
            if fx.column.is_some() {
                check(
                    as_usize(&d["column"]) == fx.column,
                    format!("column {} instead of {:?}", d["column"], fx.column),
                );
            }
            if fx.line.is_some() {
                check(
                    path.ends_with("SKILL.md") || path.ends_with("evals/evals.json"),
                    format!("a line is given for {path}, which is not SKILL.md or evals.json"),
                );
            }
            check(
                d["hint"].as_str().is_some_and(|h| !h.trim().is_empty()),
                format!("no hint: {d}"),
            );
            check(
                d["message"].as_str().is_some_and(|m| !m.trim().is_empty()),
                format!("no message: {d}"),
            );
        }
    }

    // Text: `path[:line[:col]]: level[CODE]: message`, then an indented hint.
    let text = sb.run(&["lint", "fixture"]);
    check(
        text.status == want_status,
        format!("text mode exit {} instead of {want_status}", text.status),
    );
    let place = match fx.line {
        Some(line) => format!("{path}:{line}:"),
        None => format!("{path}: "),
    };
    let tag = format!("{level}[{}]: ", code.code);
    let lines: Vec<&str> = text.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&place) && l.contains(&tag));
    check(
        at.is_some(),
        format!(
            "no line starting with {place:?} holding {tag:?} in:\n{}",
            text.stdout
        ),
    );
    if let Some(i) = at {
        check(
            lines.get(i + 1).is_some_and(|l| l.starts_with("  hint: ")),
            format!("no hint line after the diagnostic:\n{}", text.stdout),
        );
    }
    check(
        text.stderr.contains("1 skill checked: "),
        format!("no summary on stderr: {}", text.stderr),
    );

    // --strict turns warnings into errors.
    if expected == Level::Warning {
        let strict = sb.run(&["lint", "--strict", "--format", "json", "fixture"]);
        check(
            strict.status == 1,
            format!("--strict exit {} instead of 1", strict.status),
        );
        let report: Value = serde_json::from_str(&strict.stdout).unwrap_or_default();
        check(
            diagnostic(&report, code.code).is_some_and(|d| d["level"] == "error"),
            format!("--strict does not report it as an error: {}", strict.stdout),
        );
        check(
            report["summary"]["warnings"] == 0,
            format!(
                "--strict summary still counts warnings: {}",
                report["summary"]
            ),
        );
    }
    problems
}

#[test]
fn every_code_has_a_fixture_that_triggers_it() {
    let root = fixtures().join("lint");
    let mut missing = Vec::new();
    let mut problems = Vec::new();
    for code in CODES {
        let dir = root.join(code.code);
        if !dir.is_dir() {
            missing.push(code.code);
            continue;
        }
        problems.extend(check_fixture(code, &dir));
    }
    assert!(
        missing.is_empty(),
        "lint codes without a fixture in {}: {missing:?}",
        root.display()
    );
    assert!(
        problems.is_empty(),
        "fixtures that do not lint as expected:\n{}",
        problems.join("\n")
    );
    // And no fixture for a code that does not exist (a renamed or removed code).
    let stray: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !CODES.iter().any(|c| c.code == name))
        .collect();
    assert!(stray.is_empty(), "fixtures for unknown codes: {stray:?}");
}

fn sb_explain(code: &str) -> String {
    Sandbox::new().run(&["lint", "--explain", code]).stdout
}

#[test]
fn the_code_registry_is_dense_and_every_code_explains_itself() {
    assert_eq!(
        CODES.len(),
        34,
        "SK001..SK034; add a fixture when adding a code"
    );
    // Errors break loaders; warnings are portability and style (client keys, layout, ...).
    let warnings: Vec<&str> = CODES
        .iter()
        .filter(|c| c.level == Level::Warning)
        .map(|c| c.code)
        .collect();
    assert_eq!(
        warnings,
        [
            "SK020", "SK021", "SK022", "SK023", "SK024", "SK025", "SK026", "SK027", "SK028",
            "SK029", "SK030", "SK034"
        ]
    );
    // The writer limits say when they are errors.
    let run = sb_explain("SK011");
    assert!(
        run.contains("Level: error for skills that git-skill writes")
            && run.contains("a warning for skills people publish"),
        "{run}"
    );
    let sb = Sandbox::new();
    for (i, code) in CODES.iter().enumerate() {
        assert_eq!(code.code, format!("SK{:03}", i + 1));
        for query in [code.code, code.name] {
            let run = sb.run(&["lint", "--explain", query]);
            run.assert_ok();
            let head = format!(
                "{} ({}, {}): {}",
                code.code,
                code.name,
                code.level.as_str(),
                code.summary
            );
            assert!(
                run.stdout.starts_with(&head),
                "--explain {query}:\n{}",
                run.stdout
            );
            assert!(
                run.stdout.contains("Fix:"),
                "--explain {query} says how to fix:\n{}",
                run.stdout
            );
            assert_eq!(run.stderr, "");
        }
    }
}

#[test]
fn a_valid_skill_with_every_optional_field_and_support_folder_is_clean() {
    let sb = Sandbox::with_repo();
    copy_tree(
        &fixtures().join("valid/pdf-forms"),
        &sb.repo().join(".claude/skills/pdf-forms"),
    );
    copy_tree(
        &fixtures().join("valid/pdf-forms"),
        &sb.repo().join("skills/documents/pdf-forms"),
    );
    let run = sb.run(&["lint", "--strict", "--format", "json"]);
    run.assert_ok();
    let report = run.json();
    assert_eq!(codes(&report), Vec::<String>::new(), "{}", run.stdout);
    assert_eq!(
        report["summary"],
        serde_json::json!({"skills": 2, "errors": 0, "warnings": 0, "off": 0})
    );
    assert_eq!(run.stderr, "");
    let text = sb.run(&["lint", "--strict"]);
    text.assert_ok();
    assert_eq!(text.stdout, "", "nothing on stdout for clean skills");
    assert_eq!(text.stderr.trim(), "2 skills checked, no problems");
    for code in CODES {
        assert!(!text.stdout.contains(code.code) && !text.stderr.contains(code.code));
    }
}

// ---- Variants of some codes ----

#[test]
fn frontmatter_after_blank_lines_is_reported_where_it_starts() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".agents/skills/late/SKILL.md",
        format!("\n\n{}", skill_md("late", "Starts late.")),
    );
    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_status(1);
    let report = run.json();
    assert_eq!(codes(&report), ["SK001"]);
    let d = &report["diagnostics"][0];
    assert_eq!(d["line"], 3);
    assert!(d["message"].as_str().unwrap().contains("line 3"), "{d}");
    assert!(d["hint"].as_str().unwrap().contains("blank lines"), "{d}");
}

#[test]
fn skills_nested_deeper_than_one_category_are_flagged() {
    let sb = Sandbox::with_repo();
    sb.write("skills/ops/deploy/SKILL.md", skill_md("deploy", "Deploys."));
    sb.write(
        "skills/ops/cloud/aws/SKILL.md",
        skill_md("aws", "Deploys to AWS."),
    );
    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_ok();
    let report = run.json();
    assert_eq!(codes(&report), ["SK027"], "{}", run.stdout);
    let d = &report["diagnostics"][0];
    assert_eq!(d["path"], "skills/ops/cloud/aws");
    assert_eq!(d["level"], "warning");
    assert!(d["message"].as_str().unwrap().contains("ops/cloud"), "{d}");
}

#[test]
fn an_unquoted_colon_is_explained_with_its_line_and_a_quoting_hint() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Use when: the user asks for a PDF\n---\nbody\n",
    );
    let run = sb.run(&["lint"]);
    run.assert_status(1);
    assert!(
        run.stdout
            .starts_with(".claude/skills/pdf/SKILL.md:3:22: error[SK003]: invalid YAML"),
        "{}",
        run.stdout
    );
    crate::snapshot::assert_snapshot(
        "lint-an-unquoted-colon-is-explained-with-its-line-and-a-quoting-hint-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(run.stderr.trim(), "1 skill checked: 1 error, 0 warnings");
}

/// Every limit, exactly at it and one past it.
#[test]
fn limits_hold_exactly_at_their_boundaries() {
    let sb = Sandbox::with_repo();
    let root = ".agents/skills";
    let fm = |name: &str, extra: &str| {
        format!("---\nname: {name}\ndescription: A skill at a limit.\n{extra}---\n")
    };
    let put = |name: &str, md: String| {
        sb.write(&format!("{root}/{name}/SKILL.md"), md);
    };
    let mut expected: Vec<(String, Vec<&str>)> = Vec::new();

    // name: 64 characters.
    for (n, codes) in [(64, vec![]), (65, vec!["SK006"])] {
        let name = "n".repeat(n);
        put(&name, fm(&name, "") + "body\n");
        expected.push((name, codes));
    }
    // description: 1024 characters (two bytes each, so characters are counted, not bytes).
    for (n, name, codes) in [
        (1024, "desc-1024", vec![]),
        (1025, "desc-1025", vec!["SK008"]),
    ] {
        put(
            name,
            format!(
                "---\nname: {name}\ndescription: {}\n---\nbody\n",
                "é".repeat(n)
            ),
        );
        expected.push((name.into(), codes));
    }
    // compatibility: 500 characters.
    for (n, name, codes) in [
        (500, "compat-500", vec![]),
        (501, "compat-501", vec!["SK010"]),
    ] {
        put(
            name,
            fm(name, &format!("compatibility: {}\n", "c".repeat(n))) + "body\n",
        );
        expected.push((name.into(), codes));
    }
    // SKILL.md: 100,000 characters.
    for (n, name, codes) in [
        (100_000, "content-100000", vec![]),
        (100_001, "content-100001", vec!["SK009"]),
    ] {
        let head = fm(name, "") + "body\n";
        let pad = n - head.chars().count() - 1;
        put(name, format!("{head}{}\n", "é".repeat(pad)));
        expected.push((name.into(), codes));
    }
    // SKILL.md: 500 lines, frontmatter included.
    for (n, name, codes) in [
        (500, "lines-500", vec![]),
        (501, "lines-501", vec!["SK023"]),
    ] {
        let head = fm(name, "");
        let body = n - head.lines().count();
        put(name, head + &"line\n".repeat(body));
        expected.push((name.into(), codes));
    }
    // frontmatter: 65,536 bytes between the `---` lines.
    for (n, name, codes) in [
        (65_536, "yaml-65536", vec![]),
        (65_537, "yaml-65537", vec!["SK018"]),
    ] {
        let keys = format!("name: {name}\ndescription: A skill at a limit.\n");
        let comment = n - keys.len() - 2; // `#` and the newline
        put(
            name,
            format!("---\n{keys}#{}\n---\nbody\n", "x".repeat(comment)),
        );
        expected.push((name.into(), codes));
    }
    // files: 50, SKILL.md included.
    for (n, name, codes) in [(50, "files-50", vec![]), (51, "files-51", vec!["SK013"])] {
        put(name, fm(name, "") + "body\n");
        for i in 1..n {
            sb.write(&format!("{root}/{name}/references/r{i}.md"), "x\n");
        }
        expected.push((name.into(), codes));
    }
    // one support file: 1 MiB (the skill is then over 1 MiB as a whole).
    for (n, name, codes) in [
        (1 << 20, "file-1mib", vec!["SK014"]),
        ((1 << 20) + 1, "file-1mib-1", vec!["SK012", "SK014"]),
    ] {
        put(name, fm(name, "") + "body\n");
        sb.write(&format!("{root}/{name}/assets/data.bin"), vec![b'x'; n]);
        expected.push((name.into(), codes));
    }
    // the whole skill: 1 MiB.
    for (extra, name, codes) in [
        (0, "skill-1mib", vec![]),
        (1, "skill-1mib-1", vec!["SK014"]),
    ] {
        let md = fm(name, "") + "body\n";
        let rest = (1usize << 20) - md.len() + extra;
        put(name, md);
        sb.write(&format!("{root}/{name}/assets/data.bin"), vec![b'x'; rest]);
        expected.push((name.into(), codes));
    }

    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_status(1);
    let report = run.json();
    assert_eq!(report["summary"]["skills"], expected.len());
    let mut wrong = Vec::new();
    for (name, want) in &expected {
        let prefix = format!("{root}/{name}");
        let mut got: Vec<&str> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                let p = d["path"].as_str().unwrap();
                p == prefix || p.starts_with(&format!("{prefix}/"))
            })
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        got.sort();
        if got != *want {
            wrong.push(format!("{name}: got {got:?}, expected {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn links_that_leave_the_skill_are_found_in_every_form_outside_code_blocks() {
    let sb = Sandbox::with_repo();
    let body = "\
See [a](../x \"title\") and ![i](/etc/passwd).
<img src=\"../../z.png\">
[ref]: ../shared/notes.md
Fine: [local](references/a.md), [up and back](scripts/../references/b.md), [anchor](#steps),
[web](https://example.com/../y), [mail](mailto:a@example.com).
```
[in code](../ignored)
```
~~~
[in tildes](../ignored)
~~~
";
    sb.write(
        ".claude/skills/links/SKILL.md",
        format!("---\nname: links\ndescription: Links.\n---\n{body}"),
    );
    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_status(1);
    let report = run.json();
    let places: Vec<(u64, u64, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["code"], "SK015", "{d}");
            let target = d["message"]
                .as_str()
                .unwrap()
                .split('\'')
                .nth(1)
                .unwrap()
                .to_owned();
            (
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                target,
            )
        })
        .collect();
    assert_eq!(
        places,
        [
            (5, 9, "../x".to_owned()),
            (5, 32, "/etc/passwd".to_owned()),
            (6, 11, "../../z.png".to_owned()),
            (7, 8, "../shared/notes.md".to_owned()),
        ]
    );
}

#[test]
fn support_files_outside_the_four_folders_are_named_with_a_suggestion() {
    let sb = Sandbox::with_repo();
    let dir = ".agents/skills/loose";
    sb.write(
        &format!("{dir}/SKILL.md"),
        skill_md("loose", "Loose files."),
    );
    sb.write(&format!("{dir}/run.sh"), "echo\n");
    sb.write(&format!("{dir}/docs/guide.md"), "guide\n");
    // Allowed: license files beside SKILL.md, git-skill's store, and the four folders.
    sb.write(&format!("{dir}/LICENSE"), "MIT\n");
    sb.write(&format!("{dir}/NOTICE.md"), "notice\n");
    sb.write(&format!("{dir}/.skillopt/pending/signal.json"), "{}\n");
    for folder in ["references", "templates", "scripts", "assets"] {
        sb.write(&format!("{dir}/{folder}/deep/er/file.txt"), "x\n");
    }
    // A person's skill: warnings (see the level policy).
    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_status(0);
    let report = run.json();
    let got: Vec<(&str, &str)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("SK011", ".agents/skills/loose/docs/guide.md"),
            ("SK011", ".agents/skills/loose/run.sh")
        ]
    );
    assert!(
        report["diagnostics"][0]["hint"]
            .as_str()
            .unwrap()
            .contains("references/"),
        "{report}"
    );
    assert!(
        report["diagnostics"][1]["hint"]
            .as_str()
            .unwrap()
            .contains("scripts/"),
        "{report}"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_inside_a_skill_are_judged_by_where_they_lead() {
    let sb = Sandbox::with_repo();
    let dir = ".agents/skills/linked";
    sb.write(&format!("{dir}/SKILL.md"), skill_md("linked", "Links."));
    sb.write(&format!("{dir}/references/real.md"), "real\n");
    sb.symlink("real.md", &format!("{dir}/references/same-folder.md"));
    sb.symlink(
        "../references/real.md",
        &format!("{dir}/scripts/sibling.md"),
    );
    sb.symlink(
        "../../other/SKILL.md",
        &format!("{dir}/references/climbs-out.md"),
    );
    sb.symlink("/etc", &format!("{dir}/assets/etc"));
    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_status(1);
    let report = run.json();
    let got: Vec<(&str, &str)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("SK016", ".agents/skills/linked/assets/etc"),
            ("SK016", ".agents/skills/linked/references/climbs-out.md")
        ]
    );
}

// ---- Exit codes and flags ----

#[test]
fn errors_exit_1_and_warnings_exit_0_unless_strict() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/warned/SKILL.md",
        skill_md("other-name", "Named differently."),
    );
    let run = sb.run(&["lint"]);
    run.assert_ok();
    assert!(
        run.stdout.starts_with(
            ".claude/skills/warned/SKILL.md:2: warning[SK020]: name 'other-name' differs"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr.trim(), "1 skill checked: 0 errors, 1 warning");

    let strict = sb.run(&["lint", "--strict"]);
    strict.assert_status(1);
    crate::snapshot::assert_snapshot(
        "lint-errors-exit-1-and-warnings-exit-0-unless-strict-1",
        &crate::snapshot::show(&sb, &strict),
    );
    assert_eq!(strict.stderr.trim(), "1 skill checked: 1 error, 0 warnings");

    let json = sb.run(&["lint", "--strict", "--format", "json"]);
    json.assert_status(1);
    let report = json.json();
    assert_eq!(report["diagnostics"][0]["level"], "error");
    assert_eq!(
        report["summary"],
        serde_json::json!({"skills": 1, "errors": 1, "warnings": 0, "off": 0})
    );

    sb.write(
        ".claude/skills/broken/SKILL.md",
        "---\nname: broken\n---\nbody\n",
    );
    let run = sb.run(&["lint"]);
    run.assert_status(1);
    crate::snapshot::assert_snapshot(
        "lint-errors-exit-1-and-warnings-exit-0-unless-strict-2",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(run.stderr.trim(), "2 skills checked: 1 error, 1 warning");
}

#[test]
fn json_report_has_the_documented_shape() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/a/SKILL.md",
        "---\nname: a\ndescription: Use when: asked\n---\nbody\n",
    );
    sb.write(
        ".claude/skills/b/SKILL.md",
        "---\nname: b\ndescription: Has <tags>.\n---\nbody\n",
    );
    sb.write(".claude/skills/c/SKILL.md", skill_md("c", "Clean."));
    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_status(1);
    assert_eq!(
        run.stderr, "",
        "JSON mode keeps stderr free of status lines"
    );
    assert_eq!(
        run.stdout.matches('\n').count(),
        1,
        "one line of JSON: {}",
        run.stdout
    );
    let report = run.json();
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&report), ["diagnostics", "summary", "version"]);
    assert_eq!(report["version"], 1);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 2);
    for d in diagnostics {
        assert_eq!(
            keys(d),
            ["code", "column", "hint", "level", "line", "message", "path", "setting"]
        );
        let code = d["code"].as_str().unwrap();
        assert!(CODES.iter().any(|c| c.code == code), "{code}");
        assert!(d["level"] == "error" || d["level"] == "warning");
        assert!(d["path"].is_string() && d["message"].is_string() && d["hint"].is_string());
        assert!(d["line"].is_u64() || d["line"].is_null());
        assert!(d["column"].is_u64() || d["column"].is_null());
    }
    assert_eq!(diagnostics[0]["code"], "SK003");
    assert_eq!(diagnostics[0]["path"], ".claude/skills/a/SKILL.md");
    assert_eq!(
        (
            diagnostics[0]["line"].as_u64(),
            diagnostics[0]["column"].as_u64()
        ),
        (Some(3), Some(22))
    );
    assert_eq!(diagnostics[1]["code"], "SK024");
    assert_eq!(diagnostics[1]["level"], "warning");
    assert_eq!(diagnostics[1]["column"], Value::Null);
    assert_eq!(
        report["summary"],
        serde_json::json!({"skills": 3, "errors": 1, "warnings": 1, "off": 0})
    );
}

#[test]
fn explain_prints_the_long_explanation_by_code_or_name() {
    let sb = Sandbox::new();
    for query in ["SK003", "invalid-yaml", "sk003"] {
        let run = sb.run(&["lint", "--explain", query]);
        run.assert_ok();
        assert!(
            run.stdout
                .starts_with("SK003 (invalid-yaml, error): the frontmatter is not valid YAML\n"),
            "{}",
            run.stdout
        );
        assert!(
            run.stdout
                .contains("description: \"Use when: the user asks for a PDF\""),
            "{}",
            run.stdout
        );
        assert_eq!(run.stderr, "");
    }
    let via_git = sb.command("git", &sb.repo(), &["skill", "lint", "--explain", "SK020"]);
    via_git.assert_ok();
    assert!(
        via_git
            .stdout
            .starts_with("SK020 (name-mismatch, warning): "),
        "{}",
        via_git.stdout
    );
}

#[test]
fn explain_of_an_unknown_code_exits_2_listing_the_codes() {
    let sb = Sandbox::new();
    let run = sb.run(&["lint", "--explain", "SK999"]);
    run.assert_status(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("error: unknown lint code 'SK999'\n"),
        "{}",
        run.stderr
    );
    let hint = run
        .stderr
        .lines()
        .find(|l| l.starts_with("hint: "))
        .expect("a hint line");
    for code in CODES {
        assert!(hint.contains(code.code), "hint lacks {}: {hint}", code.code);
    }
}

#[test]
fn explain_conflicts_with_paths() {
    let sb = Sandbox::new();
    let run = sb.run(&["lint", "--explain", "SK003", "some/path"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "lint-explain-conflicts-with-paths-101",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn a_missing_path_exits_2_but_the_other_paths_are_still_checked() {
    use crate::snapshot::check;
    let sb = Sandbox::with_repo();
    sb.write("work/pdf/SKILL.md", "---\nname: pdf\n---\nbody\n");
    check(
        &sb,
        "lint-missing-path",
        &["lint", "does/not-exist", "work/pdf"],
    );
    // The same in JSON, and when the missing path comes last.
    check(
        &sb,
        "lint-missing-path-json",
        &["lint", "--format", "json", "work/pdf", "does/not-exist"],
    );
    // A clean skill beside a missing path still fails: an error never looks like a pass.
    sb.write("work/ok/SKILL.md", skill_md("ok", "Fine."));
    check(
        &sb,
        "lint-clean-beside-missing",
        &["lint", "work/ok", "nope"],
    );
}

#[test]
fn a_path_without_skills_or_a_file_that_is_not_skill_md_exits_2() {
    use crate::snapshot::check;
    let sb = Sandbox::with_repo();
    sb.write("empty/readme.txt", "nothing here\n");
    check(&sb, "lint-no-skill-in-path", &["lint", "empty"]);
    check(&sb, "lint-not-a-skill-md", &["lint", "empty/readme.txt"]);
}

#[test]
fn a_skill_md_path_is_linted_as_its_skill() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: x\n---\n",
    );
    sb.write(".claude/skills/other/SKILL.md", "not a skill file\n");
    let run = sb.run(&["lint", "--format", "json", ".claude/skills/pdf/SKILL.md"]);
    run.assert_ok();
    let report = run.json();
    assert_eq!(codes(&report), ["SK025"]);
    assert_eq!(
        report["diagnostics"][0]["path"],
        ".claude/skills/pdf/SKILL.md"
    );
    assert_eq!(report["summary"]["skills"], 1);
}

#[test]
fn a_repository_without_skills_says_where_it_looked() {
    let sb = Sandbox::with_repo();
    let run = sb.run(&["lint"]);
    run.assert_ok();
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with(
            "no skills found (looked in .claude/skills, .agents/skills, .codex/skills"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn quiet_drops_the_summary_but_not_the_diagnostics() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".qwen/skills/q/SKILL.md",
        "---\nname: q\ndescription: x\n---\n",
    );
    let run = sb.run(&["lint", "--quiet"]);
    run.assert_ok();
    crate::snapshot::assert_snapshot(
        "lint-quiet-drops-the-summary-but-not-the-diagnostics-1",
        &crate::snapshot::show(&sb, &run),
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn lint_through_git_finds_the_binary_and_reports_relative_paths_from_a_subdirectory() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".agents/skills/x/SKILL.md",
        "---\nname: x\ndescription: x\ndescripton: typo\n---\nbody\n",
    );
    std::fs::create_dir_all(sb.repo().join("docs/guide")).unwrap();
    let run = sb.git_in("docs/guide", &["skill", "lint"]);
    run.assert_ok();
    assert!(
        run.stdout.starts_with(
            "../../.agents/skills/x/SKILL.md:4: warning[SK022]: `descripton` is not a key"
        ),
        "{}",
        run.stdout
    );
    crate::snapshot::assert_snapshot(
        "lint-lint-through-git-finds-the-binary-and-reports-relative-paths-from-a-subdirectory-1",
        &crate::snapshot::show(&sb, &run),
    );
}

// ---- Bugs ----

fn three_layouts(sb: &Sandbox) {
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        skill_md("pdf", "Fills PDFs."),
    );
    sb.write(
        ".agents/skills/ops/deploy/SKILL.md",
        skill_md("deploy", "Deploys."),
    );
    sb.write(
        ".qwen/skills/review/SKILL.md",
        skill_md("review", "Reviews."),
    );
}

#[test]
fn linting_the_repository_top_by_path_matches_linting_without_a_path() {
    let sb = Sandbox::with_repo();
    three_layouts(&sb);
    let without = sb.run(&["lint", "--format", "json"]);
    without.assert_ok();
    assert_eq!(codes(&without.json()), Vec::<String>::new());
    let with_dot = sb.run(&["lint", "--format", "json", "."]);
    with_dot.assert_ok();
    assert_eq!(
        codes(&with_dot.json()),
        Vec::<String>::new(),
        "{}",
        with_dot.stdout
    );
}

#[test]
fn a_directory_named_skill_md_is_not_a_regular_file() {
    let sb = Sandbox::with_repo();
    std::fs::create_dir_all(sb.repo().join(".claude/skills/odd/SKILL.md")).unwrap();
    sb.write(
        ".claude/skills/odd/SKILL.md/readme.md",
        "a directory, not a file\n",
    );
    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_status(1);
    let report = run.json();
    assert!(
        codes(&report).contains(&"SK019".to_owned()),
        "{}",
        run.stdout
    );
    assert!(
        !codes(&report).contains(&"SK001".to_owned()),
        "{}",
        run.stdout
    );
}

#[test]
fn the_policy_file_sets_lint_levels_with_a_reason_and_the_hook_reads_it_staged() {
    let sb = Sandbox::with_repo();
    let long = "x".repeat(1100);
    sb.write(
        ".claude/skills/pdf/SKILL.md",
        format!("---\nname: pdf\ndescription: {long}\n---\nbody\n"),
    );
    sb.write(".claude/skills/pdf/forms.md", "# Forms\n");
    // Without configuration: the over-long description is an error.
    sb.run(&["lint"]).assert_status(1);
    sb.write(
        ".skillguard.yaml",
        "lint:\n  - code: SK008\n    level: warning\n    skill: pdf\n    reason: upstream's description, reported to them\n  - code: file-outside-allowed-dirs\n    level: off\n    path: '*.md'\n    reason: Anthropic's layout\n",
    );
    let run = sb.run(&["lint", "--format", "json"]);
    run.assert_ok();
    let report = run.json();
    let by_code = |code: &str| diagnostic(&report, code).cloned().unwrap_or_default();
    assert_eq!(by_code("SK008")["level"], "warning");
    assert_eq!(
        by_code("SK008")["setting"],
        serde_json::json!({"kind": "policy", "reason": "upstream's description, reported to them"})
    );
    assert_eq!(by_code("SK011")["level"], "off");
    assert_eq!(
        report["summary"],
        serde_json::json!({"skills": 1, "errors": 0, "warnings": 1, "off": 1})
    );
    // Off is not printed in text.
    let text = sb.run(&["lint"]);
    text.assert_ok();
    assert!(!text.stdout.contains("SK011"), "{}", text.stdout);
    crate::snapshot::assert_snapshot(
        "lint-the-policy-file-sets-lint-levels-with-a-reason-and-the-hook-reads-it-staged-101",
        &crate::snapshot::show(&sb, &text),
    );

    // The hook reads the policy as staged: committed together, the skill passes.
    sb.git(&["skill", "hook", "install"]).assert_ok();
    sb.git(&["add", "."]).assert_ok();
    sb.git(&["commit", "-qm", "pdf"]).assert_ok();

    // Not for a skill an agent wrote: its limits are not the repository's to soften.
    sb.write(
        ".claude/skills/auto/SKILL.md",
        "---\nname: auto\ndescription: x\nmetadata:\n  source: auto-skill\n---\nbody\n",
    );
    sb.write(".claude/skills/auto/notes.md", "x\n");
    let run = sb.run(&["lint", "--format", "json", ".claude/skills/auto"]);
    run.assert_status(1);
    assert_eq!(diagnostic(&run.json(), "SK011").unwrap()["level"], "error");
    // A malformed entry fails closed, naming the entry.
    sb.write(
        ".skillguard.yaml",
        "lint:\n  - code: SK999\n    level: off\n    reason: x\n",
    );
    let run = sb.run(&["lint"]);
    run.assert_status(2);
    crate::snapshot::assert_snapshot(
        "lint-the-policy-file-sets-lint-levels-with-a-reason-and-the-hook-reads-it-staged-1",
        &crate::snapshot::show(&sb, &run),
    );
}

// ---- SARIF and JUnit, the same rendering as scan's ----

#[test]
fn lint_reports_sarif_and_junit_with_paths_from_the_top() {
    let sb = Sandbox::with_repo();
    sb.write(
        "packages/web/.claude/skills/broken/SKILL.md",
        "---\nname: broken\n---\nbody\n",
    );
    sb.write(
        ".claude/skills/fine/SKILL.md",
        "---\nname: fine\ndescription: Formats the changelog. Use when asked to update it.\n---\nbody\n",
    );
    sb.git(&["add", "-A"]).assert_ok();
    // From a subdirectory: the SARIF's URIs are still relative to the top.
    let run = sb.run_in("packages", &["lint", "--format", "sarif"], &[]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    let sarif: Value = serde_json::from_str(&run.stdout).unwrap();
    let run0 = &sarif["runs"][0];
    assert_eq!(sarif["version"], "2.1.0");
    let rules: Vec<&str> = run0["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules.len(), CODES.len(), "every lint code is described");
    let results = run0["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:#?}");
    let r = &results[0];
    assert_eq!(r["ruleId"], "SK007");
    assert_eq!(r["level"], "error");
    assert_eq!(
        rules[r["ruleIndex"].as_u64().unwrap() as usize],
        "SK007",
        "the index points at the rule"
    );
    let location = &r["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "packages/web/.claude/skills/broken/SKILL.md"
    );
    assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert!(location["region"]["startLine"].as_u64().unwrap() >= 1);
    assert!(r["message"]["text"]
        .as_str()
        .unwrap()
        .contains("no `description`"));

    let run = sb.run(&["lint", "--format", "junit"]);
    assert_eq!(run.status, 1);
    crate::snapshot::assert_snapshot("lint-junit", &crate::snapshot::show(&sb, &run));
}

#[test]
fn github_format_annotates_each_diagnostic() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/bare/SKILL.md",
        "---\nname: bare\n---\nNo description.\n",
    );
    let run = sb.run(&["lint", "--format", "github"]);
    run.assert_status(1);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("title=SK007"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        line.starts_with("::error file=.claude/skills/bare/SKILL.md"),
        "{line}"
    );
    assert!(
        run.stdout.lines().all(|l| l.starts_with("::")),
        "{}",
        run.stdout
    );
}
