//! What every fuzz target shares: a skill of one file, scanned whole or analysed, with the
//! scanner's panic containment turned off (a contained panic would hide the bug from the
//! fuzzer: the targets call the analyses directly, below the containment).

use git_skill::guard::analysis::{analyze, Input};
use git_skill::guard::{scan_skill, ScanOptions};
use git_skill::skill::{FileEntry, FileKind, SkillFiles};

/// The analyses of one file named `path` (its extension picks the language), as the scanner
/// runs them: text read lossily, as the scan reads bytes that are not UTF-8.
pub fn analyse(path: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let _ = analyze(&Input {
        path,
        text: &text,
        markdown: path.ends_with(".md"),
        lang: None,
    });
}

/// The whole scan of a skill holding `SKILL.md` and one more file: structure, every view,
/// archives, decoding, Markdown context. A panic surfaces as a `STR017` finding: turned back
/// into a panic here so that the fuzzer sees it.
pub fn scan(path: &str, bytes: &[u8]) {
    let skill_md = b"---\nname: fuzz\ndescription: A skill under test.\n---\nRun it.\n".to_vec();
    let mut files = SkillFiles::default();
    files.entries.push(FileEntry {
        path: "SKILL.md".into(),
        kind: FileKind::File {
            size: skill_md.len() as u64,
            executable: false,
        },
    });
    if path != "SKILL.md" {
        files.entries.push(FileEntry {
            path: path.into(),
            kind: FileKind::File {
                size: bytes.len() as u64,
                executable: false,
            },
        });
    }
    files.entries.sort_by(|a, b| a.path.cmp(&b.path));
    let read = |rel: &str| -> std::io::Result<Vec<u8>> {
        Ok(if rel == path {
            bytes.to_vec()
        } else {
            skill_md.clone()
        })
    };
    let result = scan_skill(&files, &read, ScanOptions::default());
    if let Some(failed) = result.findings.iter().find(|f| f.rule == "STR017") {
        panic!("{}", failed.message);
    }
}
