//! A multilingual corpus, generated here from the repository's own fixtures and the prose
//! lexicons (CI has no network to fetch public skills): every fixture skill rewritten with
//! Chinese, Japanese, Korean, Russian, Arabic and Hebrew text, emoji with joiners and skin
//! tones, combining marks, right-to-left controls, fullwidth forms, CJK folder names, labels
//! before variables in shell (`echo "🔍 搜索: $q"`, which crashed the scan), and scripts saved
//! in UTF-16. The scan must read all of it without a crash, report every skill in every format,
//! give the index, a range and the work tree the same verdicts, and still find every attack.

use std::path::{Path, PathBuf};

use crate::common::Sandbox;

/// A small deterministic generator (no dependency, same corpus on every machine).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }

    fn pick<'a>(&mut self, items: &'a [String]) -> &'a str {
        &items[self.next(items.len())]
    }
}

const DECOR: &[&str] = &[
    "🔍",
    "❌",
    "✅",
    "👨\u{200D}👩\u{200D}👧",
    "👍🏽",
    "🚀",
    "\u{202E}",
    "\u{200F}",
    "e\u{301}",
    "ｔｏｋｅｎ",
    "：",
    "（注）",
    "مرحبا",
    "שלום",
    "한국어",
    "Привет",
    "ℌ𝔢𝔩𝔩𝔬",
    "\u{3000}",
];

/// Words of the prose lexicons in the languages that are not English.
fn lexicon_words() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/guard/analysis/prose/lexicon");
    let mut words = Vec::new();
    for lang in ["zh", "ja", "ru", "de", "fr", "es", "pt"] {
        let text = std::fs::read_to_string(dir.join(format!("{lang}.txt"))).unwrap();
        for line in text.lines() {
            if line.starts_with('#') || line.starts_with('[') || line.trim().is_empty() {
                continue;
            }
            words.extend(
                line.split(',')
                    .map(|w| w.trim().to_owned())
                    .filter(|w| !w.is_empty()),
            );
        }
    }
    assert!(words.len() > 500, "{} lexicon words", words.len());
    words
}

/// Every fixture skill: (kind, name, directory).
fn fixtures() -> Vec<(String, String, PathBuf)> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scan");
    let mut out = Vec::new();
    for kind in ["benign", "evasion"] {
        for entry in std::fs::read_dir(base.join(kind)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                out.push((kind.to_owned(), name, path));
            }
        }
    }
    out.sort();
    out
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            out.extend(files(&path));
        } else if meta.is_file() {
            out.push(path);
        }
    }
    out
}

/// `text` with foreign words and decorations woven into its lines, and shell labels before
/// variables in its code.
fn weave(text: &str, rng: &mut Lcg, words: &[String], script: bool) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    // A command continued on the next line is left whole: the corpus must keep every attack
    // what it is, only in other company.
    let open = |i: usize| {
        let this = lines[i].trim_end();
        let next = lines.get(i + 1).map_or("", |l| l.trim_start());
        ["\\", "|", "&&", "||", "(", "{"]
            .iter()
            .any(|e| this.ends_with(e))
            || ["|", "&&", "||", ")", "}"]
                .iter()
                .any(|s| next.starts_with(s))
    };
    for (i, line) in lines.iter().enumerate() {
        let decor = DECOR[rng.next(DECOR.len())];
        let word = rng.pick(words);
        if open(i) {
            out.push_str(&format!("{line}\n"));
            continue;
        }
        match rng.next(4) {
            // Prose before the line, or a comment after it in a script.
            0 if !script => out.push_str(&format!("{decor} {word}\n{line}\n")),
            0 => out.push_str(&format!("{line} # {decor} {word}\n")),
            1 if script || line.starts_with("```") => {
                out.push_str(&format!("{line}\necho \"{decor} {word}: $q\"\n"))
            }
            2 => out.push_str(&format!("{line}{}\n", "\u{301}".repeat(rng.next(3)))),
            _ => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

fn utf16le(text: &str) -> Vec<u8> {
    let mut out = vec![0xff, 0xfe];
    out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

/// Writes the corpus below `root` (one skill a fixture and variant); the expected verdicts of
/// the attacks, by skill folder.
fn corpus(root: &Path, variants: usize) -> Vec<(String, String)> {
    let words = lexicon_words();
    let mut rng = Lcg(27);
    let mut expected = Vec::new();
    for (kind, name, dir) in fixtures() {
        for v in 0..variants {
            let folder = format!("{name}-{v}-{}", rng.pick(&words).replace(' ', ""));
            let target = root.join(&folder);
            for file in files(&dir) {
                let rel = file.strip_prefix(&dir).unwrap();
                let dest = target.join(rel);
                std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                let bytes = std::fs::read(&file).unwrap();
                let script = rel.starts_with("scripts");
                // Binary data (NUL bytes, an executable's magic) stays as it is.
                let text = String::from_utf8(bytes.clone())
                    .ok()
                    .filter(|t| !t.contains('\0') && !t.starts_with('\x7f'));
                let out = match text.ok_or(()) {
                    Ok(text) if rel.to_str() == Some("SKILL.md") => {
                        // The frontmatter stays valid; the body is woven.
                        let (front, body) =
                            text.split_at(text.find("\n---\n").map_or(0, |i| i + 5));
                        format!("{front}{}", weave(body, &mut rng, &words, false)).into_bytes()
                    }
                    Ok(text) if script && v == variants - 1 => {
                        utf16le(&weave(&text, &mut rng, &words, true))
                    }
                    Ok(text) => weave(&text, &mut rng, &words, script).into_bytes(),
                    Err(_) => bytes,
                };
                std::fs::write(&dest, out).unwrap();
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
                    std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(mode)).unwrap();
                }
            }
            if kind == "evasion" {
                let expect = std::fs::read_to_string(dir.with_extension("expect")).unwrap();
                let verdict = expect
                    .lines()
                    .find_map(|l| l.strip_prefix("verdict: "))
                    .unwrap()
                    .to_owned();
                expected.push((folder, verdict));
            }
        }
    }
    expected
}

fn verdicts(report: &serde_json::Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = report["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let path = s["path"].as_str().unwrap();
            let folder = path.rsplit('/').next().unwrap().to_owned();
            (folder, s["verdict"].as_str().unwrap().to_owned())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_multilingual_corpus_is_read_whole_in_every_mode() {
    let sb = Sandbox::with_repo();
    let root = sb.repo().join(".claude/skills");
    let expected = corpus(&root, 4);
    let count = fixtures().len() * 4;

    // The work tree: every skill, no error, no crash.
    let run = sb.run(&["scan", "--format", "json"]);
    assert!(
        run.status == 0 || run.status == 1,
        "exit {}: {}",
        run.status,
        run.stderr
    );
    let report = run.json();
    let tree = verdicts(&report);
    assert_eq!(tree.len(), count, "{}", run.stderr);
    for skill in report["skills"].as_array().unwrap() {
        assert!(skill["errors"].as_array().unwrap().is_empty(), "{skill}");
        for f in skill["findings"].as_array().unwrap() {
            assert_ne!(f["rule"], "STR017", "{f}");
        }
    }
    // Every attack is still found, whatever language surrounds it and however it is encoded.
    for (folder, verdict) in &expected {
        let got = tree
            .iter()
            .find(|(f, _)| f == folder)
            .map(|(_, v)| v.as_str());
        assert_eq!(got, Some(verdict.as_str()), "{folder}");
    }
    for format in ["sarif", "junit", "text"] {
        let run = sb.run(&["scan", "--format", format]);
        assert!(
            run.status == 0 || run.status == 1,
            "{format}: {}",
            run.stderr
        );
        if format == "sarif" {
            let results = run.json()["runs"][0]["results"].as_array().unwrap().len();
            assert!(results > 0);
        }
    }

    // The index and a range give the same verdicts as the work tree.
    let base = sb.git(&["rev-parse", "HEAD"]);
    let base = if base.status == 0 {
        base.stdout.trim().to_owned()
    } else {
        String::new()
    };
    assert!(base.is_empty(), "a fresh repository");
    sb.git(&["commit", "-q", "--allow-empty", "-m", "base"])
        .assert_ok();
    sb.git(&["add", "-A"]).assert_ok();
    let hook = sb.run(&["hook", "pre-commit"]);
    assert!(hook.status == 0 || hook.status == 1, "{}", hook.stderr);
    sb.git(&["commit", "-qm", "corpus", "--no-verify"])
        .assert_ok();
    let range = sb.run(&[
        "scan",
        "--format",
        "json",
        "--from-ref",
        "HEAD~1",
        "--to-ref",
        "HEAD",
    ]);
    assert!(range.status == 0 || range.status == 1, "{}", range.stderr);
    assert_eq!(verdicts(&range.json()), tree);
}
