//! SKILL.md's frontmatter and layout through lint, and SKILL.md through the whole scan.
#![no_main]

use git_skill::skill::lint::{lint, Target};
use git_skill::skill::{FileEntry, FileKind, SkillFiles};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let files = SkillFiles {
        entries: vec![FileEntry {
            path: "SKILL.md".into(),
            kind: FileKind::File {
                size: data.len() as u64,
                executable: false,
            },
        }],
        skill_md: Some(data.to_vec()),
        skill_md_size: data.len() as u64,
        ..SkillFiles::default()
    };
    let _ = lint(
        &files,
        &Target {
            dir_name: "fuzz",
            display_dir: "skills/fuzz".into(),
            category: None,
            written: false,
        },
    );
    git_skill_fuzz::scan("SKILL.md", data);
});
