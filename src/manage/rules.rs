//! The validation rules of `skill-evolution-guard.md` §4.3, each a sentence when broken.

use crate::skill::limits::{
    ALLOWED_DIRS, MAX_CONTENT_CHARS, MAX_DESCRIPTION_CHARS, MAX_FILES, MAX_FILE_BYTES,
    MAX_NAME_CHARS, MAX_SKILL_BYTES,
};

/// `^[a-z0-9][a-z0-9._-]*$`, at most 64 characters: a skill's name (its directory).
pub fn name(name: &str) -> Result<(), String> {
    word(name, "name")
}

/// One directory level, named as a skill is.
pub fn category(category: &str) -> Result<(), String> {
    if category.contains('/') || category.contains('\\') {
        return Err(format!(
            "category '{}' has more than one level; one directory only",
            crate::report::one_line(category, 80)
        ));
    }
    word(category, "category")
}

fn word(text: &str, what: &str) -> Result<(), String> {
    let shown = crate::report::one_line(text, 80);
    if text.is_empty() {
        return Err(format!("the {what} is empty"));
    }
    if text.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "{what} '{shown}' has {} characters; at most {MAX_NAME_CHARS}",
            text.chars().count()
        ));
    }
    let mut bytes = text.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let rest_ok = text
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'));
    if !first_ok || !rest_ok {
        return Err(format!(
            "{what} '{shown}' must match ^[a-z0-9][a-z0-9._-]*$ (lowercase letters, digits, '.', '_', '-'; a letter or digit first)"
        ));
    }
    Ok(())
}

/// A support file's path, relative to the skill: under `references/`, `templates/`,
/// `scripts/` or `assets/`, with no `..`, no absolute path, no empty or dot component.
pub fn support_path(path: &str) -> Result<(), String> {
    let shown = crate::report::one_line(path, 120);
    if path.is_empty() {
        return Err("the file path is empty".into());
    }
    if path.starts_with('/') || path.starts_with('\\') || path.contains(':') {
        return Err(format!(
            "'{shown}' is absolute; give it relative to the skill"
        ));
    }
    if path.contains('\\') || path.contains('\0') {
        return Err(format!(
            "'{shown}' holds a backslash or a NUL; use '/' between directories"
        ));
    }
    let parts: Vec<&str> = path.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return Err(format!(
            "'{shown}' has an empty, '.' or '..' part; no path may leave its directory"
        ));
    }
    if parts.iter().any(|p| p.eq_ignore_ascii_case(".git")) {
        return Err(format!(
            "'{shown}' has a '.git' part; git keeps its own files there"
        ));
    }
    if parts.len() < 2 || !ALLOWED_DIRS.contains(&parts[0]) {
        return Err(format!(
            "'{shown}' is not under {}: support files live there only",
            ALLOWED_DIRS
                .iter()
                .map(|d| format!("{d}/"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(())
}

/// SKILL.md's size and frontmatter: at most 100,000 characters, `name` and `description`
/// present, the description at most 1,024 characters.
pub fn skill_md(text: &str) -> Result<(), String> {
    let chars = text.chars().count();
    if chars > MAX_CONTENT_CHARS {
        return Err(format!(
            "SKILL.md has {chars} characters; at most {MAX_CONTENT_CHARS}"
        ));
    }
    let meta = match crate::skill::meta::parse(text.as_bytes()) {
        Ok((meta, _)) => meta,
        Err(e) => return Err(format!("SKILL.md's frontmatter: {e}")),
    };
    if meta.name.as_deref().is_none_or(|n| n.trim().is_empty()) {
        return Err("SKILL.md's frontmatter has no `name`".into());
    }
    match meta.description.as_deref() {
        None => Err("SKILL.md's frontmatter has no `description`".into()),
        Some(d) if d.trim().is_empty() => Err("SKILL.md's `description` is empty".into()),
        Some(d) if d.chars().count() > MAX_DESCRIPTION_CHARS => Err(format!(
            "SKILL.md's `description` has {} characters; at most {MAX_DESCRIPTION_CHARS}",
            d.chars().count()
        )),
        Some(_) => Ok(()),
    }
}

/// One support file's size.
pub fn file_size(path: &str, bytes: usize) -> Result<(), String> {
    if bytes as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "'{}' has {bytes} bytes; at most {MAX_FILE_BYTES} a file",
            crate::report::one_line(path, 120)
        ));
    }
    Ok(())
}

/// The whole skill: at most 50 files and 1 MiB.
pub fn totals(files: usize, bytes: u64) -> Result<(), String> {
    if files > MAX_FILES {
        return Err(format!(
            "the skill would have {files} files; at most {MAX_FILES}"
        ));
    }
    if bytes > MAX_SKILL_BYTES {
        return Err(format!(
            "the skill would have {bytes} bytes; at most {MAX_SKILL_BYTES}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_categories_follow_the_seed() {
        for ok in ["a", "pdf-forms", "v2.1", "x_y", "0day"] {
            name(ok).unwrap();
            category(ok).unwrap();
        }
        for bad in [
            "",
            "-a",
            ".a",
            "_a",
            "A",
            "pdf forms",
            "é",
            "a/b",
            "../x",
            &"a".repeat(65),
        ] {
            assert!(name(bad).is_err(), "{bad:?}");
        }
        assert!(category("ops/deploy")
            .unwrap_err()
            .contains("one directory"));
        name(&"a".repeat(64)).unwrap();
    }

    #[test]
    fn support_paths_stay_in_their_directories() {
        for ok in [
            "references/a.md",
            "scripts/run.sh",
            "assets/img/x.png",
            "templates/t.j2",
        ] {
            support_path(ok).unwrap();
        }
        for (bad, why) in [
            ("", "empty"),
            ("/etc/passwd", "absolute"),
            ("C:/x", "absolute"),
            ("references/../SKILL.md", "'..'"),
            ("references//a", "empty"),
            ("references/./a", "'.'"),
            ("SKILL.md", "not under"),
            ("docs/a.md", "not under"),
            ("references", "not under"),
            ("references\\a.md", "backslash"),
            (".skillopt/pending/signal.json", "not under"),
        ] {
            let e = support_path(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn skill_md_needs_its_frontmatter_and_fits_the_limits() {
        skill_md("---\nname: a\ndescription: Does a.\n---\n# A\n").unwrap();
        for (text, why) in [
            ("# no frontmatter\n".to_owned(), "frontmatter"),
            ("---\ndescription: d\n---\n".to_owned(), "no `name`"),
            ("---\nname: a\n---\n".to_owned(), "no `description`"),
            (
                format!("---\nname: a\ndescription: {}\n---\n", "d".repeat(1025)),
                "1025 characters",
            ),
            (
                format!("---\nname: a\ndescription: d\n---\n{}", "x".repeat(100_001)),
                "at most 100000",
            ),
        ] {
            let e = skill_md(&text).unwrap_err();
            assert!(e.contains(why), "{why}: {e}");
        }
        assert!(file_size("scripts/a", (1 << 20) + 1).is_err());
        assert!(totals(51, 0).is_err() && totals(1, (1 << 20) + 1).is_err());
        totals(50, 1 << 20).unwrap();
    }
}
