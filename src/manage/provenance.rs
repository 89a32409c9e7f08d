//! The provenance mark of skills an agent writes: `metadata.source: auto-skill` and
//! `metadata.extracted_at` in SKILL.md's frontmatter. git-skill writes it itself, so that a
//! model can neither leave it out (and pass its skill off as a person's) nor forge another.

use serde_yaml::{Mapping, Value};

/// `text` (a SKILL.md) with the mark set: `source: auto-skill` under `metadata`, and
/// `extracted_at` kept when there is one, else `now`. The frontmatter is written again by
/// serde_yaml (key order kept, comments not).
pub fn stamp(text: &str, now: &str) -> Result<String, String> {
    let text = crate::skill::frontmatter::strip_bom(text);
    let split = crate::skill::frontmatter::split(text)
        .map_err(|_| "SKILL.md has no frontmatter between --- lines".to_owned())?;
    let value = crate::skill::frontmatter::parse_yaml(split.yaml, split.yaml_line)
        .map_err(|e| format!("SKILL.md's frontmatter: {}", e.message))?;
    let Value::Mapping(mut map) = value else {
        return Err("SKILL.md's frontmatter is not a mapping of keys".into());
    };
    // The older top-level spelling would disagree with the one written here.
    map.remove("source");
    let top_level_time = map.remove("extracted_at");
    let mut metadata = match map.remove("metadata") {
        Some(Value::Mapping(m)) => m,
        Some(Value::Null) | None => Mapping::new(),
        Some(_) => return Err("`metadata` in SKILL.md's frontmatter is not a mapping".into()),
    };
    metadata.insert("source".into(), "auto-skill".into());
    let kept = metadata
        .get("extracted_at")
        .or(top_level_time.as_ref())
        .and_then(Value::as_str)
        .filter(|t| chrono::DateTime::parse_from_rfc3339(t).is_ok())
        .map(str::to_owned);
    metadata.insert(
        "extracted_at".into(),
        Value::String(kept.unwrap_or_else(|| now.to_owned())),
    );
    map.insert("metadata".into(), Value::Mapping(metadata));
    let yaml = serde_yaml::to_string(&map).map_err(|e| e.to_string())?;
    Ok(format!("---\n{yaml}---\n{}", split.body))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-12-02T10:00:00Z";

    fn meta(text: &str) -> crate::skill::meta::SkillMeta {
        crate::skill::meta::parse(text.as_bytes()).unwrap().0
    }

    #[test]
    fn the_mark_is_set_whatever_the_model_wrote() {
        let plain = "---\nname: notes\ndescription: Take notes.\n---\n# Notes\n\nBody.\n";
        let out = stamp(plain, NOW).unwrap();
        let m = meta(&out);
        assert!(m.auto_skill);
        assert_eq!(m.extracted_at.as_deref(), Some(NOW));
        assert_eq!(m.name.as_deref(), Some("notes"));
        assert!(out.ends_with("---\n# Notes\n\nBody.\n"), "{out}");
        // A forged source, a metadata mapping of its own, a top-level spelling.
        for text in [
            "---\nname: n\ndescription: d\nmetadata:\n  source: person\n  owner: x\n---\nB\n",
            "---\nname: n\ndescription: d\nsource: auto-skill\nextracted_at: '2026-01-01T00:00:00Z'\n---\nB\n",
            "---\nname: n\ndescription: d\nmetadata:\n---\nB\n",
        ] {
            let out = stamp(text, NOW).unwrap();
            let m = meta(&out);
            assert!(m.auto_skill, "{out}");
            assert!(!out.contains("source: person"), "{out}");
        }
        // An existing time is kept (an edit of an auto-skill), a broken one replaced.
        let dated = "---\nname: n\ndescription: d\nmetadata:\n  source: auto-skill\n  extracted_at: '2026-01-01T00:00:00Z'\n---\nB\n";
        assert_eq!(
            meta(&stamp(dated, NOW).unwrap()).extracted_at.as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
        let broken = dated.replace("2026-01-01T00:00:00Z", "yesterday");
        assert_eq!(
            meta(&stamp(&broken, NOW).unwrap()).extracted_at.as_deref(),
            Some(NOW)
        );
        assert!(stamp("no frontmatter", NOW).is_err());
        assert!(stamp("---\n- a list\n---\n", NOW).is_err());
        assert!(stamp("---\nname: n\nmetadata: 3\n---\n", NOW).is_err());
    }
}
