//! The parts of the frontmatter that other commands read: name, description, provenance.

use serde_yaml::{Mapping, Value};

use super::frontmatter;

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SkillMeta {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `metadata.source: auto-skill` (or the older top-level `source: auto-skill`).
    pub auto_skill: bool,
    pub extracted_at: Option<String>,
}

impl SkillMeta {
    pub fn from_mapping(map: &Mapping) -> SkillMeta {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let metadata = map.get("metadata").and_then(Value::as_mapping);
        let source =
            text(metadata.and_then(|m| m.get("source"))).or_else(|| text(map.get("source")));
        SkillMeta {
            name: text(map.get("name")),
            description: text(map.get("description")),
            auto_skill: source.as_deref() == Some("auto-skill"),
            extracted_at: text(metadata.and_then(|m| m.get("extracted_at")))
                .or_else(|| text(map.get("extracted_at"))),
        }
    }
}

/// Frontmatter fields that widen what a skill may do, as the agents read them: tools it may
/// use without asking (`allowed-tools`, a subagent's `tools`), hooks it installs (Claude
/// Code's `hooks`), the permission mode it runs in, MCP servers it starts. Only a person
/// grants these; compared with `-` and `_` removed and in any case.
pub const GRANTING_FIELDS: &[&str] = &[
    "allowedtools",
    "tools",
    "hooks",
    "permissionmode",
    "mcpservers",
    "mcp",
];

/// The fields of `map` that grant something, by their names as written, with their values.
pub fn grants(map: &Mapping) -> Vec<(String, Value)> {
    map.iter()
        .filter_map(|(k, v)| {
            let key = k.as_str()?;
            let folded: String = key
                .chars()
                .filter(|c| *c != '-' && *c != '_')
                .flat_map(char::to_lowercase)
                .collect();
            GRANTING_FIELDS
                .contains(&folded.as_str())
                .then(|| (key.to_owned(), v.clone()))
        })
        .collect()
}

/// Why a SKILL.md's metadata could not be read; `git skill lint` tells the details.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetaError {
    #[error("no frontmatter")]
    NoFrontmatter,
    #[error("frontmatter too large")]
    TooLarge,
    #[error("invalid YAML{}", line.map(|l| format!(" at line {l}")).unwrap_or_default())]
    Yaml { line: Option<usize> },
    #[error("frontmatter is not a mapping")]
    NotMapping,
}

/// Reads the frontmatter of a SKILL.md's bytes (lossily decoded, BOM and CRLF tolerated).
pub fn parse(bytes: &[u8]) -> Result<(SkillMeta, Mapping), MetaError> {
    let text = String::from_utf8_lossy(bytes);
    let text = frontmatter::strip_bom(&text);
    let split = frontmatter::split(text).map_err(|_| MetaError::NoFrontmatter)?;
    if split.yaml.len() > frontmatter::MAX_FRONTMATTER_BYTES {
        return Err(MetaError::TooLarge);
    }
    let value = frontmatter::parse_yaml(split.yaml, split.yaml_line)
        .map_err(|e| MetaError::Yaml { line: e.line })?;
    match value {
        Value::Mapping(map) => Ok((SkillMeta::from_mapping(&map), map)),
        _ => Err(MetaError::NotMapping),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_under_metadata_or_top_level() {
        let (m, _) = parse(b"---\nname: a\ndescription: b\nmetadata:\n  source: auto-skill\n  extracted_at: '2026-01-01'\n---\n").unwrap();
        assert!(m.auto_skill);
        assert_eq!(m.extracted_at.as_deref(), Some("2026-01-01"));
        let (m, _) = parse(b"\xef\xbb\xbf---\r\nname: a\r\nsource: auto-skill\r\n---\r\n").unwrap();
        assert!(m.auto_skill);
        assert_eq!(m.name.as_deref(), Some("a"));
        let (m, _) = parse(b"---\nname: a\n---\n").unwrap();
        assert!(!m.auto_skill);
    }

    #[test]
    fn fields_that_grant_tools_hooks_or_permissions() {
        let (_, map) = parse(b"---\nname: a\ndescription: b\nallowed-tools: Bash Write\nHooks:\n  PreToolUse: []\npermission_mode: bypassPermissions\nmcpServers: {x: {command: sh}}\nlicense: MIT\nmetadata:\n  tools: none\n---\n").unwrap();
        let keys: Vec<String> = grants(&map).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            ["allowed-tools", "Hooks", "permission_mode", "mcpServers"]
        );
    }

    #[test]
    fn errors() {
        assert_eq!(parse(b"# x").unwrap_err(), MetaError::NoFrontmatter);
        assert_eq!(
            parse(b"---\n- a\n---\n").unwrap_err(),
            MetaError::NotMapping
        );
        assert!(matches!(
            parse(b"---\na: b: c\n---\n").unwrap_err(),
            MetaError::Yaml { line: Some(2) }
        ));
    }
}
