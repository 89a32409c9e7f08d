//! Property tests for the frontmatter parser and the linter: no input panics, and any valid
//! name and description survive a round trip through SKILL.md, whatever the line ends.
//! Bounded: a fixed number of cases (PROPTEST_CASES overrides), so CI time stays flat.

use std::path::PathBuf;

use proptest::prelude::*;

use super::files::SkillFiles;
use super::{frontmatter, lint, meta};
use crate::report::Level;

fn files_of(bytes: Vec<u8>) -> SkillFiles {
    SkillFiles::with_skill_md(bytes)
}

fn lint_bytes(dir: &str, bytes: Vec<u8>) -> Vec<crate::report::Diagnostic> {
    lint::lint(
        &files_of(bytes),
        &lint::Target {
            dir_name: dir,
            display_dir: PathBuf::from(dir),
            category: None,
            written: false,
        },
    )
}

/// Fragments that exercise YAML's corners: indicators, anchors, flow collections, quotes,
/// tabs, CR, BOM, document markers and multi-byte characters.
fn yamlish() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("---\n".to_owned()),
        Just("...\n".to_owned()),
        Just("name: ".to_owned()),
        Just("description: ".to_owned()),
        Just("metadata:\n  ".to_owned()),
        Just(": ".to_owned()),
        Just("- ".to_owned()),
        Just("&a ".to_owned()),
        Just("*a".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("\"".to_owned()),
        Just("'".to_owned()),
        Just("|\n".to_owned()),
        Just(">-\n".to_owned()),
        Just("\t".to_owned()),
        Just("\r\n".to_owned()),
        Just("\n".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("!!binary ".to_owned()),
        Just("% ".to_owned()),
        Just("#".to_owned()),
        Just("é漢🙂".to_owned()),
        "[a-z0-9 <>-]{0,12}",
        any::<String>(),
    ];
    prop::collection::vec(fragment, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in yamlish()) {
        let text = format!("---\n{text}");
        if let Ok(split) = frontmatter::split(&text) {
            let _ = frontmatter::parse_yaml(split.yaml, split.yaml_line);
        }
        let _ = meta::parse(text.as_bytes());
        let diagnostics = lint_bytes("x", text.into_bytes());
        for d in diagnostics {
            prop_assert!(!d.message.is_empty());
            prop_assert!(d.line.is_none_or(|l| l >= 1));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let mut input = b"---\nname: x\n".to_vec();
        input.extend(bytes);
        let _ = meta::parse(&input);
        let _ = lint_bytes("x", input);
    }

    #[test]
    fn valid_name_and_description_round_trip(
        name in "[a-z0-9]([a-z0-9]|-[a-z0-9]){0,20}",
        description in "\\PC{1,300}",
        crlf in any::<bool>(),
        bom in any::<bool>(),
    ) {
        // `<`/`>` only warn, and a blank description is an error on purpose: keep both out.
        // U+0085, U+2028 and U+2029 are line breaks to YAML, which trims the white space
        // before them even in a quoted scalar: not text a description keeps as written.
        let description = format!(
            "d{}",
            description.replace(['<', '>', '\u{85}', '\u{2028}', '\u{2029}'], "")
        );
        // JSON strings are valid YAML double-quoted scalars.
        // (A bare `name: 1` is a number to YAML, so the name is quoted too.)
        let quoted = serde_json::to_string(&description).unwrap();
        let mut md = format!("---\nname: \"{name}\"\ndescription: {quoted}\n---\n# {name}\n\nDo it.\n");
        if crlf {
            md = md.replace('\n', "\r\n");
        }
        if bom {
            md.insert(0, '\u{feff}');
        }
        let (parsed, _) = meta::parse(md.as_bytes()).unwrap();
        prop_assert_eq!(parsed.name.as_deref(), Some(name.as_str()));
        prop_assert_eq!(parsed.description.as_deref(), Some(description.as_str()));
        let diagnostics = lint_bytes(&name, md.into_bytes());
        let errors: Vec<_> = diagnostics.iter().filter(|d| d.level == Level::Error).collect();
        prop_assert!(errors.is_empty(), "{:?}", errors);
    }
}
