//! The review's tools, as a registry: each has its stable name, what the model is told, the
//! JSON schema of its arguments, and the function that runs it against the [`Sandbox`]. A
//! call's arguments are hostile: capped, parsed, checked, and any refusal goes back to the
//! model as the result, with the rule that refused it.

use std::time::Duration;

use serde_json::{json, Value};

use super::sandbox::{Denied, Resolved, Sandbox};
use crate::llm::ToolSpec;
use crate::manage::Request;

/// The largest arguments of one call: a SKILL.md of 100,000 characters and its escapes fit.
pub const MAX_ARGUMENT_BYTES: usize = crate::manage::request::MAX_REQUEST_BYTES;
/// The most of a file `read_file` returns at once.
const MAX_READ: usize = 128 << 10;
/// The most entries `ls` returns.
const MAX_LS: usize = 500;

/// What a tool needs besides its arguments.
pub struct ToolContext<'a> {
    pub sandbox: &'a mut Sandbox,
    /// How long a shell command may run (never past the review's deadline).
    pub shell_limit: Duration,
}

pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub parameters: fn() -> Value,
    pub run: fn(&mut ToolContext<'_>, &Value) -> Result<String, Denied>,
}

/// Every tool, in the order the model is told them.
pub const TOOLS: &[Tool] = &[
    Tool {
        name: "skill_list",
        description: "List the repository's skills: name, description, category, provenance (auto-skill: written by a review; person: written by a person), path, whether this review may change it, and whether this review created it.",
        parameters: || {
            json!({
                "type": "object",
                "properties": { "category": { "type": "string", "description": "only skills of this category" } },
                "additionalProperties": false
            })
        },
        run: skill_list,
    },
    Tool {
        name: "read_file",
        description: "Read a text file of the repository (path relative to its top). Skills are read as this review left them. Never .git, never files git ignores, never outside the repository. Reading a skill's file is required before changing it.",
        parameters: || {
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string" },
                    "offset": { "type": "integer", "minimum": 1, "description": "first line (1-based)" },
                    "limit": { "type": "integer", "minimum": 1, "description": "number of lines" }
                },
                "required": ["path"],
                "additionalProperties": false
            })
        },
        run: read_file,
    },
    Tool {
        name: "ls",
        description: "List a directory of the repository (path relative to its top; empty for the top). Ignored files and .git are left out.",
        parameters: || {
            json!({
                "type": "object",
                "properties": { "path": { "type": "string" } },
                "additionalProperties": false
            })
        },
        run: ls,
    },
    Tool {
        name: "shell",
        description: "Run one read-only command in the repository, without a shell: cat, head, tail, wc, grep (no recursion), or git log|show|diff|status|ls-files|grep|blame|shortlog|rev-parse. No pipes, redirections, substitutions or globs; paths as for read_file.",
        parameters: || {
            json!({
                "type": "object",
                "properties": { "command": { "type": "string" } },
                "required": ["command"],
                "additionalProperties": false
            })
        },
        run: shell,
    },
    Tool {
        name: "skill_manage",
        description: "Create a skill, or change one you may change (see skill_list), checked by SkillGuard and lint before it is kept. create: name, content (the whole SKILL.md with frontmatter name and description), optional category. edit: name, content. patch: name, old_string (exact text, unique unless replace_all), new_string, optional file_path of a support file. write_file: name, file_path (under references/, templates/, scripts/ or assets/), file_content. Nothing is deleted.",
        parameters: || {
            json!({
                "type": "object",
                "properties": {
                    "action": { "type": "string", "enum": ["create", "edit", "patch", "write_file"] },
                    "name": { "type": "string" },
                    "content": { "type": "string" },
                    "old_string": { "type": "string" },
                    "new_string": { "type": "string" },
                    "replace_all": { "type": "boolean" },
                    "category": { "type": "string" },
                    "file_path": { "type": "string" },
                    "file_content": { "type": "string" }
                },
                "required": ["action", "name"],
                "additionalProperties": false
            })
        },
        run: skill_manage,
    },
];

/// The tools as the provider sends them.
pub fn specs() -> Vec<ToolSpec> {
    TOOLS
        .iter()
        .map(|t| ToolSpec {
            name: t.name.to_owned(),
            description: t.description.to_owned(),
            parameters: (t.parameters)(),
        })
        .collect()
}

/// What one call gave: the text the model gets, and the rule when it was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallResult {
    pub content: String,
    pub denied: Option<&'static str>,
}

/// Runs tool `name` with the raw `arguments` text.
pub fn call(ctx: &mut ToolContext<'_>, name: &str, arguments: &str) -> CallResult {
    let outcome = (|| {
        let tool = TOOLS.iter().find(|t| t.name == name).ok_or_else(|| {
            Denied::new(
                "unknown-tool",
                format!(
                    "there is no tool '{}'; the tools are {}",
                    crate::report::one_line(name, 64),
                    TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        if arguments.len() > MAX_ARGUMENT_BYTES {
            return Err(Denied::new(
                "argument-size",
                format!(
                    "the arguments have {} bytes; at most {MAX_ARGUMENT_BYTES}",
                    arguments.len()
                ),
            ));
        }
        let args: Value = if arguments.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(arguments).map_err(|e| {
                Denied::new("bad-arguments", format!("the arguments are not JSON: {e}"))
            })?
        };
        if !args.is_object() {
            return Err(Denied::new(
                "bad-arguments",
                "the arguments must be a JSON object",
            ));
        }
        (tool.run)(ctx, &args)
    })();
    match outcome {
        Ok(content) => CallResult {
            content: crate::redact::redact(&content),
            denied: None,
        },
        Err(d) => CallResult {
            content: format!("denied ({}): {}", d.rule, d.message),
            denied: Some(d.rule),
        },
    }
}

fn string<'a>(args: &'a Value, key: &str) -> Result<Option<&'a str>, Denied> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(Denied::new(
            "bad-arguments",
            format!("`{key}` must be a string"),
        )),
    }
}

fn unknown_keys(args: &Value, known: &[&str]) -> Result<(), Denied> {
    if let Some(map) = args.as_object() {
        if let Some(k) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(Denied::new(
                "bad-arguments",
                format!(
                    "unknown argument `{}` (this tool takes {})",
                    crate::report::one_line(k, 64),
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn skill_list(ctx: &mut ToolContext<'_>, args: &Value) -> Result<String, Denied> {
    unknown_keys(args, &["category"])?;
    let category = string(args, "category")?;
    let sandbox = &*ctx.sandbox;
    let list: Vec<Value> = sandbox
        .skills
        .iter()
        .enumerate()
        .filter(|(_, s)| category.is_none() || s.place.category.as_deref() == category)
        .map(|(i, s)| {
            json!({
                "name": s.name,
                "description": s.description(),
                "category": s.place.category,
                "provenance": if s.auto_skill || s.created() { "auto-skill" } else { "person" },
                "path": s.dir,
                "linked": s.linked,
                "may_change": sandbox.may_change_now(i),
                "created_in_this_review": s.created(),
            })
        })
        .collect();
    Ok(serde_json::to_string_pretty(&list).expect("JSON values serialise"))
}

fn read_file(ctx: &mut ToolContext<'_>, args: &Value) -> Result<String, Denied> {
    unknown_keys(args, &["path", "offset", "limit"])?;
    let path = string(args, "path")?
        .ok_or_else(|| Denied::new("bad-arguments", "read_file needs `path`"))?;
    let line_arg = |key: &str| -> Result<Option<usize>, Denied> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|n| *n >= 1)
                .map(|n| Some(n as usize))
                .ok_or_else(|| {
                    Denied::new(
                        "bad-arguments",
                        format!("`{key}` must be a whole number >= 1"),
                    )
                }),
        }
    };
    let offset = line_arg("offset")?;
    let limit = line_arg("limit")?;
    let bytes = match ctx.sandbox.resolve_read(path)? {
        Resolved::Skill(i, rel) => {
            if rel.is_empty() || ctx.sandbox.skills[i].current.files.entry(&rel).is_none() {
                let is_dir = ctx.sandbox.skills[i]
                    .current
                    .files
                    .entries
                    .iter()
                    .any(|e| e.path.starts_with(&format!("{rel}/")));
                return Err(Denied::new(
                    "not-found",
                    if rel.is_empty() || is_dir {
                        format!("'{path}' is a directory; use ls")
                    } else {
                        format!("'{path}' does not exist")
                    },
                ));
            }
            let bytes = ctx.sandbox.skills[i]
                .current
                .read(&rel)
                .map_err(|e| Denied::new("not-found", format!("'{path}' cannot be read: {e}")))?;
            ctx.sandbox.mark_read(i, &rel);
            bytes
        }
        Resolved::Tree(real, _) => {
            if real.is_dir() {
                return Err(Denied::new(
                    "not-found",
                    format!("'{path}' is a directory; use ls"),
                ));
            }
            match crate::fsutil::read_regular(&real, 8 << 20) {
                Ok(Some(bytes)) => bytes,
                Ok(None) => {
                    return Err(Denied::new("not-found", format!("'{path}' does not exist")))
                }
                Err(e) => {
                    return Err(Denied::new(
                        "not-found",
                        format!("'{path}' cannot be read: {e}"),
                    ))
                }
            }
        }
    };
    if bytes.contains(&0) {
        return Ok(format!(
            "'{path}' is a binary file of {} bytes",
            bytes.len()
        ));
    }
    let text = String::from_utf8_lossy(&bytes);
    let (text, partial) = match (offset, limit) {
        (None, None) => (text.into_owned(), false),
        (o, l) => {
            let start = o.unwrap_or(1) - 1;
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let end = l.map_or(lines.len(), |l| (start + l).min(lines.len()));
            (lines.get(start..end).unwrap_or(&[]).concat(), true)
        }
    };
    if text.len() > MAX_READ {
        let mut cut = MAX_READ;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        return Ok(format!(
            "{}\n[cut at {MAX_READ} bytes of {}; read the rest with offset and limit]",
            &text[..cut],
            text.len()
        ));
    }
    let _ = partial;
    Ok(text)
}

fn ls(ctx: &mut ToolContext<'_>, args: &Value) -> Result<String, Denied> {
    unknown_keys(args, &["path"])?;
    let path = string(args, "path")?.unwrap_or("");
    let path = if path.trim().is_empty() { "." } else { path };
    let mut entries: Vec<String> = Vec::new();
    match ctx.sandbox.resolve_read(path)? {
        Resolved::Skill(i, rel) => {
            let prefix = if rel.is_empty() {
                String::new()
            } else {
                format!("{rel}/")
            };
            let mut seen = std::collections::BTreeSet::new();
            for e in &ctx.sandbox.skills[i].current.files.entries {
                let Some(below) = e.path.strip_prefix(&prefix) else {
                    continue;
                };
                match below.split_once('/') {
                    Some((dir, _)) => {
                        seen.insert(format!("{dir}/"));
                    }
                    None => {
                        seen.insert(below.to_owned());
                    }
                }
            }
            if seen.is_empty() {
                return Err(Denied::new(
                    "not-found",
                    format!("'{path}' is not a directory"),
                ));
            }
            entries.extend(seen);
        }
        Resolved::Tree(real, rel) => {
            if !real.is_dir() {
                return Err(Denied::new(
                    "not-found",
                    format!("'{path}' is not a directory"),
                ));
            }
            let read = std::fs::read_dir(&real)
                .map_err(|e| Denied::new("not-found", format!("'{path}' cannot be listed: {e}")))?;
            let mut found: Vec<(String, bool)> = Vec::new();
            for e in read.flatten().take(10 * MAX_LS) {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.eq_ignore_ascii_case(".git") {
                    continue;
                }
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                found.push((name, is_dir));
            }
            let rels: Vec<String> = found
                .iter()
                .map(|(n, _)| {
                    if rel.is_empty() {
                        n.clone()
                    } else {
                        format!("{rel}/{n}")
                    }
                })
                .collect();
            let ignored = ctx.sandbox.ignored_among(&rels);
            for ((name, is_dir), full) in found.into_iter().zip(rels) {
                if !ignored.contains(&full) {
                    entries.push(if is_dir { format!("{name}/") } else { name });
                }
            }
            // Skills this review created here exist only in the overlay.
            for s in &ctx.sandbox.skills {
                if s.created() {
                    if let Some((parent, name)) = s.dir.rsplit_once('/') {
                        if parent == rel {
                            entries.push(format!("{name}/"));
                        }
                    }
                }
            }
        }
    }
    entries.sort();
    entries.dedup();
    let total = entries.len();
    entries.truncate(MAX_LS);
    let mut out = entries.join("\n");
    if total > MAX_LS {
        out.push_str(&format!("\n[{} more entries not shown]", total - MAX_LS));
    }
    Ok(out)
}

fn shell(ctx: &mut ToolContext<'_>, args: &Value) -> Result<String, Denied> {
    unknown_keys(args, &["command"])?;
    let command = string(args, "command")?
        .ok_or_else(|| Denied::new("bad-arguments", "shell needs `command`"))?;
    let out = super::shell::run(ctx.sandbox, command, ctx.shell_limit)?;
    Ok(match out.status {
        Some(0) => out.text,
        Some(code) => format!("[exit status {code}]\n{}", out.text),
        None => format!("[killed by a signal]\n{}", out.text),
    })
}

fn skill_manage(ctx: &mut ToolContext<'_>, args: &Value) -> Result<String, Denied> {
    let request: Request = serde_json::from_value(args.clone())
        .map_err(|e| Denied::new("bad-arguments", format!("not a skill_manage request: {e}")))?;
    let outcome = ctx.sandbox.manage(&request)?;
    Ok(serde_json::to_string(&outcome).expect("an outcome serialises"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each tool's schema is a valid JSON schema that takes the documented form of a call and
    /// refuses unknown arguments, and the names are unique: what a provider is sent is sound.
    #[test]
    fn every_tool_schema_takes_its_examples_and_refuses_strangers() {
        let examples = [
            ("skill_list", json!({"category": "ops"})),
            (
                "read_file",
                json!({"path": "README.md", "offset": 1, "limit": 20}),
            ),
            ("ls", json!({"path": ".claude/skills"})),
            ("shell", json!({"command": "git log -3 --stat"})),
            (
                "skill_manage",
                json!({"action": "patch", "name": "x", "old_string": "a", "new_string": "b"}),
            ),
        ];
        let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len());
        for tool in TOOLS {
            let schema = (tool.parameters)();
            let validator = jsonschema::validator_for(&schema).unwrap();
            let (_, example) = examples.iter().find(|(n, _)| *n == tool.name).unwrap();
            assert!(validator.is_valid(example), "{}", tool.name);
            assert!(
                !validator.is_valid(&json!({"surprise": 1})),
                "{}",
                tool.name
            );
            assert!(!tool.description.is_empty());
        }
        let manage = jsonschema::validator_for(&(TOOLS[4].parameters)()).unwrap();
        assert!(!manage.is_valid(&json!({"action": "delete", "name": "x"})));
        assert_eq!(specs().len(), TOOLS.len());
    }
}
