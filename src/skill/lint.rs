//! SKILL.md validation: the agentskills specification plus git-skill's limits. Works on a
//! [`SkillFiles`] snapshot, so a work tree and a staged state are checked the same way.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use serde_yaml::{Mapping, Value};

use super::codes::{self, *};
use super::files::{path_escapes, FileKind, SkillFiles, SKILL_MD_READ_CAP};
use super::frontmatter::{self, SplitError, MAX_FRONTMATTER_BYTES};
use crate::report::{Diagnostic, Level};

pub use super::limits::*;

/// Keys of the agentskills specification.
const SPEC_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Keys one client understands and the others ignore, with the client's name.
const CLIENT_KEYS: &[(&str, &str)] = &[
    ("when_to_use", "Claude Code"),
    ("argument-hint", "Claude Code"),
    ("disable-model-invocation", "Claude Code"),
    ("user-invocable", "Claude Code"),
    ("model", "Claude Code"),
    ("context", "Claude Code"),
    ("agent", "Claude Code"),
    ("hooks", "Claude Code"),
    ("paths", "Claude Code"),
    ("effort", "Claude Code"),
    ("shell", "Claude Code"),
    (
        "source",
        "git-skill (older provenance mark; use metadata.source)",
    ),
    (
        "extracted_at",
        "git-skill (older provenance mark; use metadata.extracted_at)",
    ),
];

/// What the linter needs to know about where the files came from.
#[derive(Debug, Clone)]
pub struct Target<'a> {
    /// The skill directory's own name.
    pub dir_name: &'a str,
    /// The skill directory as the user should see it (relative to the current directory).
    pub display_dir: PathBuf,
    /// Directories between the skill root and the skill.
    pub category: Option<&'a str>,
    /// Held to the limits of what git-skill writes ([`codes::WRITER_LIMITS`] as errors): true
    /// for an optimize candidate (and for manage and review, when they exist). A skill marked `source: auto-skill` is
    /// held to them whatever this says.
    pub written: bool,
}

struct Lint<'a> {
    target: &'a Target<'a>,
    skill_md: PathBuf,
    out: Vec<Diagnostic>,
    /// A skill people publish: the writer limits are warnings.
    published: bool,
}

impl Lint<'_> {
    fn push(
        &mut self,
        code: &'static str,
        path: PathBuf,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
        hint: Option<String>,
    ) {
        let level = if self.published && codes::WRITER_LIMITS.contains(&code) {
            Level::Warning
        } else {
            codes::get(code).level
        };
        self.push_at(code, level, path, line, column, message, hint);
    }

    #[allow(clippy::too_many_arguments)]
    fn push_at(
        &mut self,
        code: &'static str,
        level: Level,
        path: PathBuf,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
        hint: Option<String>,
    ) {
        self.out.push(Diagnostic {
            code,
            level,
            path,
            line,
            column,
            message,
            hint,
            setting: None,
        });
    }

    fn at_md(&mut self, code: &'static str, line: Option<usize>, message: String, hint: &str) {
        let path = self.skill_md.clone();
        self.push(code, path, line, None, message, Some(hint.to_owned()));
    }
}

/// Whether the skill's SKILL.md marks it `source: auto-skill` (written by an agent): held to the
/// writer limits, and no configuration softens them.
pub fn is_auto_skill(files: &SkillFiles) -> bool {
    files
        .skill_md
        .as_deref()
        .and_then(|bytes| super::meta::parse(bytes).ok())
        .is_some_and(|(meta, _)| meta.auto_skill)
}

/// Checks one skill. Diagnostics come sorted by file and line.
pub fn lint(files: &SkillFiles, target: &Target<'_>) -> Vec<Diagnostic> {
    let auto_skill = is_auto_skill(files);
    let mut l = Lint {
        target,
        skill_md: target.display_dir.join("SKILL.md"),
        out: Vec::new(),
        published: !target.written && !auto_skill,
    };
    check_layout(&mut l);
    check_files(&mut l, files);
    check_skill_md(&mut l, files);
    check_evals(&mut l, files);
    // Not in what an agent or git-skill writes: the writer could add the comment itself.
    if let (Some(bytes), true) = (files.skill_md.as_deref(), l.published) {
        apply_inline_allows(&mut l, &String::from_utf8_lossy(bytes));
    }
    l.out.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.code).cmp(&(&b.path, b.line, b.column, b.code))
    });
    l.out
}

/// `evals/evals.json`, when the skill has one: readable as an eval set (SK032), with cases
/// (SK034) whose input files the skill holds (SK033).
fn check_evals(l: &mut Lint<'_>, files: &SkillFiles) {
    use crate::eval::cases::{self, MAX_EVALS_BYTES};
    use crate::eval::EVALS_JSON;
    let Some(entry) = files.entry(EVALS_JSON) else {
        return;
    };
    let path = l.target.display_dir.join(EVALS_JSON);
    let bytes = match (&entry.kind, &files.evals_json) {
        (FileKind::File { .. }, Some(bytes)) => bytes,
        (FileKind::File { size, .. }, None) if *size > MAX_EVALS_BYTES as u64 => {
            l.push(
                INVALID_EVALS,
                path,
                None,
                None,
                format!("{EVALS_JSON} is {size} bytes; at most {MAX_EVALS_BYTES} are read"),
                Some("split the cases or shorten them".to_owned()),
            );
            return;
        }
        // Not read (over what a scan of git objects loads): the scan reports that.
        (FileKind::File { .. }, None) => return,
        _ => {
            l.push(
                INVALID_EVALS,
                path,
                None,
                None,
                format!("{EVALS_JSON} is not a regular file (a link or something else); eval cases are read only from a file"),
                Some("replace it with the file itself".to_owned()),
            );
            return;
        }
    };
    let set = match cases::parse(bytes) {
        Ok(set) => set,
        Err(problem) => {
            let line = problem.line;
            l.push(
                INVALID_EVALS,
                path,
                line,
                None,
                format!("{EVALS_JSON}: {problem}"),
                Some("see `git skill lint --explain SK032` for the format".to_owned()),
            );
            return;
        }
    };
    if set.cases.is_empty() {
        l.push(
            NO_EVAL_CASES,
            path.clone(),
            None,
            None,
            format!("{EVALS_JSON} has no cases"),
            Some("add cases, or delete the file".to_owned()),
        );
    }
    for case in &set.cases {
        for file in &case.files {
            let present = files
                .entry(file)
                .is_some_and(|e| matches!(e.kind, FileKind::File { .. }));
            if !present {
                l.push(
                    EVAL_FILE_MISSING,
                    path.clone(),
                    None,
                    None,
                    format!(
                        "case {} names '{file}', which is not a file of the skill",
                        case.id
                    ),
                    Some(format!(
                        "add '{file}' to the skill, or correct the path in {EVALS_JSON}"
                    )),
                );
            }
        }
    }
}

fn check_layout(l: &mut Lint<'_>) {
    let Some(category) = l.target.category else {
        return;
    };
    let dir = l.target.display_dir.clone();
    if category.contains('/') {
        l.push(
            LAYOUT,
            dir,
            None,
            None,
            format!("the skill is nested {} levels below its root ('{category}'); agents load `<root>/<name>` and at most one category level", category.split('/').count() + 1),
            Some("move the skill to `<root>/<name>` or `<root>/<category>/<name>`".to_owned()),
        );
    } else if !valid_category(category) {
        l.push(
            LAYOUT,
            dir,
            None,
            None,
            format!("category '{category}' is not a valid name (lowercase letters, digits, `.`, `_`, `-`; starting with a letter or digit)"),
            Some(format!("rename the category directory, for example to '{}'", slug(category))),
        );
    }
}

fn valid_category(c: &str) -> bool {
    // openai/skills files skills under `.curated`, `.system` and `.experimental`.
    let c = c.strip_prefix('.').unwrap_or(c);
    c.len() <= MAX_NAME_CHARS
        && c.starts_with(|ch: char| ch.is_ascii_lowercase() || ch.is_ascii_digit())
        && c.chars().all(|ch| {
            ch.is_ascii_lowercase() || ch.is_ascii_digit() || matches!(ch, '.' | '_' | '-')
        })
}

/// A suggestion for a valid name: lowercase, runs of anything else turned into one hyphen.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-');
    let out: String = out.chars().take(MAX_NAME_CHARS).collect();
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "my-skill".to_owned()
    } else {
        out
    }
}

fn check_files(l: &mut Lint<'_>, files: &SkillFiles) {
    let dir = l.target.display_dir.clone();
    let mut total: u64 = 0;
    for entry in &files.entries {
        let path = dir.join(&entry.path);
        match &entry.kind {
            FileKind::Symlink { target } => {
                if files.link_escapes(&entry.path) {
                    l.push(
                        SYMLINK_ESCAPES,
                        path.clone(),
                        None,
                        None,
                        format!(
                            "symlink '{}' points outside the skill, to '{}'",
                            entry.path,
                            target.display()
                        ),
                        Some("replace the link with a copy of the file it points to".to_owned()),
                    );
                }
            }
            FileKind::Special if entry.path == "SKILL.md" => {}
            // Not something git stores or a loader reads, whoever wrote the skill.
            FileKind::Special => l.push_at(
                FILE_OUTSIDE_ALLOWED_DIRS,
                Level::Error,
                path.clone(),
                None,
                None,
                format!(
                    "'{}' is not a regular file (a FIFO, socket or device)",
                    entry.path
                ),
                Some("remove it from the skill".to_owned()),
            ),
            FileKind::File { size, .. } => {
                total = total.saturating_add(*size);
                if entry.path != "SKILL.md" && *size > MAX_FILE_BYTES {
                    l.push(
                        FILE_TOO_LARGE,
                        path.clone(),
                        None,
                        None,
                        format!("'{}' is {} bytes; the limit is {MAX_FILE_BYTES} bytes (1 MiB) per file", entry.path, size),
                        Some("shrink or split the file, or keep it outside the skill".to_owned()),
                    );
                }
            }
        }
        if entry.path != "SKILL.md"
            && entry.kind != FileKind::Special
            && !allowed_location(&entry.path)
        {
            l.push(
                FILE_OUTSIDE_ALLOWED_DIRS,
                path,
                None,
                None,
                format!(
                    "'{}' is outside the support folders ({})",
                    entry.path,
                    ALLOWED_DIRS.join("/, ") + "/"
                ),
                Some(format!(
                    "move it to {} and update links in SKILL.md, or delete it",
                    suggest_dir(&entry.path)
                )),
            );
        }
    }
    let count = files.entries.len();
    if count > MAX_FILES || files.truncated {
        l.push(
            TOO_MANY_FILES,
            dir.clone(),
            None,
            None,
            format!(
                "the skill has {}{count} files; the limit is {MAX_FILES}",
                if files.truncated { "more than " } else { "" }
            ),
            Some("merge small files or split the skill".to_owned()),
        );
    }
    if files.too_deep {
        l.push(
            TOO_MANY_FILES,
            dir.clone(),
            None,
            None,
            "the skill nests directories more than 16 levels deep; files below were not checked"
                .to_owned(),
            Some("flatten the directory tree".to_owned()),
        );
    }
    if total > MAX_SKILL_BYTES {
        l.push(
            SKILL_TOO_LARGE,
            dir,
            None,
            None,
            format!("the skill's files add up to {total} bytes; the limit is {MAX_SKILL_BYTES} bytes (1 MiB)"),
            Some("remove or shrink large files".to_owned()),
        );
    }
}

fn allowed_location(path: &str) -> bool {
    match path.split_once('/') {
        Some((top, _)) => ALLOWED_DIRS.contains(&top),
        // A license file next to SKILL.md is what the spec's `license` field refers to.
        None => {
            let upper = path.to_ascii_uppercase();
            ["LICENSE", "LICENCE", "NOTICE", "COPYING"]
                .iter()
                .any(|p| upper.starts_with(p))
        }
    }
}

fn suggest_dir(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "sh" | "bash" | "zsh" | "py" | "js" | "ts" | "mjs" | "rb" | "pl" | "ps1" | "go" | "rs" => {
            "scripts/"
        }
        "md" | "txt" | "rst" | "adoc" | "pdf" | "html" => "references/",
        "png" | "jpg" | "jpeg" | "gif" | "svg" | "webp" | "ico" | "ttf" | "woff" | "woff2"
        | "csv" | "json" | "yaml" | "yml" => "assets/",
        "j2" | "jinja" | "tmpl" | "tpl" | "hbs" | "mustache" => "templates/",
        _ => "references/, templates/, scripts/ or assets/",
    }
}

fn check_skill_md(l: &mut Lint<'_>, files: &SkillFiles) {
    match files.entry("SKILL.md").map(|e| &e.kind) {
        None => {
            let variant = files
                .entries
                .iter()
                .find(|e| !e.path.contains('/') && e.path.eq_ignore_ascii_case("SKILL.md"));
            match variant {
                Some(e) => l.at_md(
                    MISSING_FRONTMATTER,
                    None,
                    format!("the skill has no SKILL.md, but '{}': loaders on case-sensitive file systems miss it, the others load it", e.path),
                    "rename it to SKILL.md (git mv)",
                ),
                None => l.at_md(
                    MISSING_FRONTMATTER,
                    None,
                    "the skill has no SKILL.md".to_owned(),
                    "create SKILL.md with a `---` frontmatter holding name and description",
                ),
            }
            return;
        }
        Some(FileKind::File { .. }) => {}
        Some(_) => {
            l.at_md(
                NOT_A_REGULAR_FILE,
                None,
                "SKILL.md is a symlink or special file, not a regular file".to_owned(),
                "replace it with the file's contents",
            );
            return;
        }
    }
    let Some(bytes) = files.skill_md.as_deref() else {
        return;
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        // A cut at the read cap may split a character; that is not the file's fault.
        Err(e) if e.error_len().is_none() && files.skill_md_size > SKILL_MD_READ_CAP => {
            std::borrow::Cow::Borrowed(std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""))
        }
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            let col = String::from_utf8_lossy(&bytes[..e.valid_up_to()])
                .rsplit('\n')
                .next()
                .map_or(0, |s| s.chars().count())
                + 1;
            let path = l.skill_md.clone();
            l.push(
                NOT_UTF8,
                path,
                Some(line),
                Some(col),
                format!(
                    "SKILL.md is not valid UTF-8 (byte {} is not part of a UTF-8 character)",
                    e.valid_up_to()
                ),
                Some("re-save the file as UTF-8".to_owned()),
            );
            String::from_utf8_lossy(bytes)
        }
    };
    if files.skill_md_size > SKILL_MD_READ_CAP {
        l.at_md(
            CONTENT_TOO_LONG,
            None,
            format!(
                "SKILL.md is {} bytes, far over the limit of {MAX_CONTENT_CHARS} characters",
                files.skill_md_size
            ),
            "move reference material into references/",
        );
    } else {
        let chars = text.chars().count();
        if chars > MAX_CONTENT_CHARS {
            l.at_md(
                CONTENT_TOO_LONG,
                None,
                format!("SKILL.md has {chars} characters; the limit is {MAX_CONTENT_CHARS}"),
                "move reference material into references/",
            );
        }
    }
    if text.starts_with('\u{feff}') {
        l.at_md(
            BYTE_ORDER_MARK,
            Some(1),
            "SKILL.md starts with a UTF-8 byte order mark; the reference validator and Anthropic's find no frontmatter then".to_owned(),
            "save the file as UTF-8 without a byte order mark",
        );
    }
    let text = frontmatter::strip_bom(&text);
    let split = match frontmatter::split(text) {
        Ok(split) => split,
        Err(SplitError::Missing { found_at }) => {
            let (line, msg, hint) = match found_at {
                Some(n) => (
                    Some(n),
                    format!("the frontmatter starts on line {n}; it must start on line 1"),
                    "remove the blank lines before the opening `---`",
                ),
                None => (
                    Some(1),
                    "SKILL.md does not start with a `---` frontmatter block".to_owned(),
                    "start the file with `---`, `name: ...`, `description: ...`, `---`",
                ),
            };
            l.at_md(MISSING_FRONTMATTER, line, msg, hint);
            return;
        }
        Err(SplitError::Unclosed) if files.skill_md_size > SKILL_MD_READ_CAP => {
            l.at_md(
                FRONTMATTER_TOO_LARGE,
                Some(1),
                format!("the frontmatter is not closed within the first {SKILL_MD_READ_CAP} bytes; git-skill does not parse more than {MAX_FRONTMATTER_BYTES}"),
                "close the frontmatter after the last key and move text into the body",
            );
            return;
        }
        Err(SplitError::Unclosed) => {
            l.at_md(
                UNCLOSED_FRONTMATTER,
                Some(1),
                "the frontmatter opened on line 1 is never closed by a `---` line".to_owned(),
                "add a line `---` after the last frontmatter key",
            );
            return;
        }
    };
    check_body(l, &split);
    if split.yaml.len() > MAX_FRONTMATTER_BYTES {
        l.at_md(FRONTMATTER_TOO_LARGE, Some(split.yaml_line), format!("the frontmatter is {} bytes; git-skill does not parse more than {MAX_FRONTMATTER_BYTES}", split.yaml.len()), "close the frontmatter after the last key and move text into the body");
        return;
    }
    let value = match frontmatter::parse_yaml(split.yaml, split.yaml_line) {
        Ok(value) => value,
        Err(e) => {
            let path = l.skill_md.clone();
            l.push(
                INVALID_YAML,
                path,
                e.line,
                e.column,
                format!("invalid YAML in the frontmatter: {}", e.message),
                Some(e.hint),
            );
            return;
        }
    };
    let map = match value {
        Value::Mapping(map) => map,
        Value::Null => {
            l.at_md(
                NOT_A_MAPPING,
                Some(split.yaml_line),
                "the frontmatter is empty".to_owned(),
                "add `name:` and `description:` lines between the `---` lines",
            );
            return;
        }
        other => {
            l.at_md(
                NOT_A_MAPPING,
                Some(split.yaml_line),
                format!(
                    "the frontmatter is a {}, not a mapping of keys to values",
                    kind(&other)
                ),
                "write `key: value` lines, starting with `name:` and `description:`",
            );
            return;
        }
    };
    check_fields(l, &map, split.yaml, split.yaml_line);
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "mapping",
        Value::Tagged(_) => "tagged value",
    }
}

/// The file line of a top-level key, found by its `key:` at the start of a line.
fn key_line(yaml: &str, yaml_line: usize, key: &str) -> Option<usize> {
    yaml.lines()
        .position(|line| {
            let line = line.trim_end_matches('\r');
            let unquoted = line.strip_prefix(key).or_else(|| {
                line.strip_prefix('"')
                    .and_then(|l| l.strip_prefix(key))
                    .and_then(|l| l.strip_prefix('"'))
            });
            unquoted.is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
        })
        .map(|i| i + yaml_line)
}

fn check_fields(l: &mut Lint<'_>, map: &Mapping, yaml: &str, yaml_line: usize) {
    let line_of = |key: &str| key_line(yaml, yaml_line, key);

    match map.get("name") {
        None => l.at_md(
            MISSING_NAME,
            Some(yaml_line),
            "the frontmatter has no `name`".to_owned(),
            &format!("add `name: {}`", slug(l.target.dir_name)),
        ),
        Some(Value::String(name)) => {
            if name_problem(name).is_some() && unicode_name(name) && l.published {
                l.at_md(
                    NON_ASCII_NAME,
                    line_of("name"),
                    format!("name '{name}' has lowercase letters outside ASCII: valid for the specification's reference validator, refused by Anthropic's and by many loaders"),
                    "for a shared skill, use an ASCII name and keep the other script in the description",
                );
                if nfkc(name) != nfkc(l.target.dir_name) {
                    l.at_md(
                        NAME_MISMATCH,
                        line_of("name"),
                        format!(
                            "name '{name}' differs from the directory name '{}'",
                            l.target.dir_name
                        ),
                        &format!("rename the directory to '{name}'"),
                    );
                }
            } else if let Some(problem) = name_problem(name) {
                l.at_md(
                    INVALID_NAME,
                    line_of("name"),
                    format!("name '{name}' {problem}"),
                    &format!(
                        "use lowercase letters, digits and single hyphens, for example `name: {}`",
                        slug(name)
                    ),
                );
            } else if name != l.target.dir_name {
                l.at_md(
                    NAME_MISMATCH,
                    line_of("name"),
                    format!(
                        "name '{name}' differs from the directory name '{}'",
                        l.target.dir_name
                    ),
                    &if slug(l.target.dir_name) == *name {
                        format!("rename the directory to '{name}'")
                    } else {
                        format!(
                            "rename the directory to '{name}' or set `name: {}`",
                            slug(l.target.dir_name)
                        )
                    },
                );
            }
        }
        Some(other @ (Value::Number(_) | Value::Bool(_))) => {
            let text = serde_yaml::to_string(other).unwrap_or_default();
            l.at_md(
                INVALID_NAME,
                line_of("name"),
                format!(
                    "name must be a string; YAML reads `{}` as a {}",
                    text.trim(),
                    kind(other)
                ),
                &format!("quote it: `name: \"{}\"`", text.trim()),
            );
        }
        Some(other) => l.at_md(
            INVALID_NAME,
            line_of("name"),
            format!("name must be a string, not a {}", kind(other)),
            &format!("write `name: {}`", slug(l.target.dir_name)),
        ),
    }

    match map.get("description") {
        None => l.at_md(MISSING_DESCRIPTION, Some(yaml_line), "the frontmatter has no `description`".to_owned(), "add `description:` saying what the skill does and when to use it"),
        Some(Value::String(d)) => {
            let chars = d.chars().count();
            if d.trim().is_empty() {
                l.at_md(INVALID_DESCRIPTION, line_of("description"), "description is empty".to_owned(), "say in a sentence what the skill does and when to use it");
            } else if chars > MAX_DESCRIPTION_CHARS {
                l.at_md(INVALID_DESCRIPTION, line_of("description"), format!("description has {chars} characters; the limit is {MAX_DESCRIPTION_CHARS}"), "shorten it; move detail into the body");
            }
            if d.contains(['<', '>']) {
                l.at_md(ANGLE_BRACKETS, line_of("description"), "description contains `<` or `>`".to_owned(), "write the words out instead of angle brackets");
            }
        }
        Some(Value::Null) => l.at_md(INVALID_DESCRIPTION, line_of("description"), "description is empty".to_owned(), "say in a sentence what the skill does and when to use it"),
        Some(other) => l.at_md(INVALID_DESCRIPTION, line_of("description"), format!("description must be a string, not a {}", kind(other)), "write the description as one quoted string: a `- ` starts a list, and an unquoted `: ` starts a mapping"),
    }

    if let Some(v) = map.get("license") {
        if !v.is_string() {
            l.at_md(
                INVALID_FIELD,
                line_of("license"),
                format!("license must be a string, not a {}", kind(v)),
                "write an SPDX id such as `license: Apache-2.0`, or the name of a bundled file",
            );
        }
    }
    if let Some(v) = map.get("compatibility") {
        match v.as_str() {
            Some(s) if s.chars().count() > MAX_COMPATIBILITY_CHARS => l.at_md(
                INVALID_FIELD,
                line_of("compatibility"),
                format!(
                    "compatibility has {} characters; the limit is {MAX_COMPATIBILITY_CHARS}",
                    s.chars().count()
                ),
                "shorten it to the requirements that matter",
            ),
            Some(s) if s.trim().is_empty() => l.at_md(
                INVALID_FIELD,
                line_of("compatibility"),
                "compatibility is empty; the specification wants 1 to 500 characters when it is given".to_owned(),
                "say what the skill needs (a product, packages, network access), or remove the field",
            ),
            Some(_) => {}
            None => l.at_md(
                INVALID_FIELD,
                line_of("compatibility"),
                format!("compatibility must be a string, not a {}", kind(v)),
                "describe the environment needs in one string",
            ),
        }
    }
    if let Some(v) = map.get("allowed-tools") {
        let ok = match v {
            Value::String(_) => true,
            Value::Sequence(items) => items.iter().all(Value::is_string),
            _ => false,
        };
        if ok && v.is_sequence() {
            l.at_md(
                ALLOWED_TOOLS_LIST,
                line_of("allowed-tools"),
                "allowed-tools is a YAML list; the specification says a space-separated string, and clients other than Claude Code ignore a list".to_owned(),
                "write the tools on one line: `allowed-tools: Read Grep Bash(git:*)`",
            );
        }
        if !ok {
            l.at_md(
                INVALID_FIELD,
                line_of("allowed-tools"),
                format!(
                    "allowed-tools must be a string or a list of strings, not a {}",
                    kind(v)
                ),
                "write `allowed-tools: Read Grep Bash(git:*)`",
            );
        }
    }
    if let Some(v) = map.get("metadata") {
        check_metadata(l, v, line_of("metadata"));
    }

    for key in map.keys() {
        let Some(key) = key.as_str() else {
            l.at_md(
                UNKNOWN_KEY,
                Some(yaml_line),
                format!(
                    "frontmatter key {} is not a string",
                    serde_yaml::to_string(key).unwrap_or_default().trim()
                ),
                "use text keys",
            );
            continue;
        };
        if SPEC_KEYS.contains(&key) {
            continue;
        }
        if let Some((_, client)) = CLIENT_KEYS.iter().find(|(k, _)| *k == key) {
            l.at_md(CLIENT_KEY, line_of(key), format!("`{key}` is specific to {client}; other agents ignore it"), "keep it only if the skill targets that client; otherwise fold it into the description or metadata");
        } else {
            // Short keys are close to everything: allow one edit there.
            let allowed = if key.len() <= 5 { 1 } else { 2 };
            let close = SPEC_KEYS.iter().find(|k| edit_distance(k, key) <= allowed);
            let hint = match close {
                Some(k) => format!("did you mean `{k}`?"),
                None => format!(
                    "put custom data under `metadata:` (for example `metadata:\\n  {key}: ...`)"
                ),
            };
            l.at_md(
                UNKNOWN_KEY,
                line_of(key),
                format!("`{key}` is not a key of the skill format; agents ignore it"),
                &hint,
            );
        }
    }
}

fn check_metadata(l: &mut Lint<'_>, v: &Value, line: Option<usize>) {
    let Value::Mapping(meta) = v else {
        l.at_md(
            INVALID_FIELD,
            line,
            format!(
                "metadata must be a mapping of strings to strings, not a {}",
                kind(v)
            ),
            "write `metadata:` followed by indented `key: \"value\"` lines",
        );
        return;
    };
    for (k, value) in meta {
        let key = k.as_str().map(str::to_owned).unwrap_or_else(|| {
            serde_yaml::to_string(k)
                .unwrap_or_default()
                .trim()
                .to_owned()
        });
        match value {
            Value::String(_) => {}
            // The reference validator turns these into strings too: one level for all shapes.
            Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => l.at_md(
                METADATA_NOT_STRING,
                line,
                format!(
                    "metadata.{key} is a {}; metadata values are strings",
                    kind(value)
                ),
                "flatten it into a string",
            ),
            _ => l.at_md(
                METADATA_NOT_STRING,
                line,
                format!("metadata.{key} is a {}, not a string", kind(value)),
                &format!(
                    "quote the value: `{key}: \"{}\"`",
                    serde_yaml::to_string(value).unwrap_or_default().trim()
                ),
            ),
        }
        if !k.is_string() {
            l.at_md(
                METADATA_NOT_STRING,
                line,
                format!("metadata key {key} is not a string"),
                &format!("quote the key: `\"{key}\": ...`"),
            );
        }
    }
}

fn nfkc(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfkc().collect()
}

/// Whether a name is valid for the specification's reference validator though not ASCII:
/// after NFKC, 1 to 64 lowercase letters or digits of any script and single hyphens inside.
fn unicode_name(name: &str) -> bool {
    if name.is_ascii() {
        return false;
    }
    let name = nfkc(name);
    if name_problem(&name).is_none() {
        // `ﬁle` is `file` after NFKC.
        return true;
    }
    let chars = name.chars().count();
    (1..=MAX_NAME_CHARS).contains(&chars)
        && name
            .chars()
            .all(|c| c == '-' || (c.is_alphanumeric() && c.to_lowercase().eq(std::iter::once(c))))
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// What is wrong with a name, if anything.
pub fn name_problem(name: &str) -> Option<String> {
    let chars = name.chars().count();
    if name.trim().is_empty() {
        return Some("is empty".to_owned());
    }
    if chars > MAX_NAME_CHARS {
        return Some(format!(
            "has {chars} characters; the limit is {MAX_NAME_CHARS}"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Some(format!(
            "contains {bad:?}; only lowercase letters, digits and hyphens are allowed"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("starts or ends with a hyphen".to_owned());
    }
    if name.contains("--") {
        return Some("contains two hyphens in a row".to_owned());
    }
    None
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn link_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // Inline links and images `](target)`, reference definitions `[x]: target`, and HTML
        // `src=`/`href=` attributes.
        Regex::new(r#"\]\(\s*<?([^)\s>]+)|^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)|(?:src|href)\s*=\s*["']([^"']+)["']"#)
            .expect("valid link regex")
    })
}

/// Markdown lines with code and comments blanked out, so that only real links are checked:
/// fenced blocks (closed by a run of the same character at least as long), indented code
/// blocks, inline code spans and HTML comments. Columns are kept: blanked text becomes spaces.
#[derive(Default)]
struct ProseLines {
    fence: Option<(char, usize)>,
    in_comment: bool,
    previous_blank_or_code: bool,
}

impl ProseLines {
    fn next(&mut self, line: &str) -> Option<String> {
        let trimmed = line.trim_start();
        let run = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        if let Some((c, n)) = self.fence {
            if run(c) >= n && trimmed.trim_start_matches(c).trim().is_empty() {
                self.fence = None;
            }
            return None;
        }
        for c in ['`', '~'] {
            if run(c) >= 3 {
                self.fence = Some((c, run(c)));
                return None;
            }
        }
        let indented = line.starts_with("    ") || line.starts_with('\t');
        if indented && self.previous_blank_or_code && !self.in_comment {
            return None;
        }
        self.previous_blank_or_code = line.trim().is_empty();
        let mut out: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < out.len() {
            if self.in_comment {
                if out[i..].starts_with(&['-', '-', '>']) {
                    out[i..i + 3].fill(' ');
                    self.in_comment = false;
                    i += 3;
                } else {
                    out[i] = ' ';
                    i += 1;
                }
            } else if out[i..].starts_with(&['<', '!', '-', '-']) {
                self.in_comment = true;
            } else if out[i] == '`' {
                let n = out[i..].iter().take_while(|&&c| c == '`').count();
                let close = (i + n..out.len()).find(|&j| {
                    out[j..].iter().take_while(|&&c| c == '`').count() == n
                        && (j == 0 || out[j - 1] != '`')
                });
                match close {
                    Some(j) => {
                        out[i..j + n].fill(' ');
                        i = j + n;
                    }
                    None => i += n,
                }
            } else {
                i += 1;
            }
        }
        Some(out.into_iter().collect())
    }
}

fn check_body(l: &mut Lint<'_>, split: &frontmatter::Split<'_>) {
    let body = split.body;
    if body.trim().is_empty() {
        l.at_md(
            EMPTY_BODY,
            Some(split.body_line.saturating_sub(1)),
            "SKILL.md has no body after the frontmatter".to_owned(),
            "write the instructions: when to use the skill, the steps, the rules",
        );
        return;
    }
    // The specification's "keep your main SKILL.md under 500 lines" counts the whole file.
    let lines = split.body_line - 1 + body.lines().count();
    if lines > MAX_BODY_LINES {
        l.at_md(
            BODY_TOO_LONG,
            Some(MAX_BODY_LINES + 1),
            format!("SKILL.md has {lines} lines; keep it under {MAX_BODY_LINES}"),
            "move detail into references/ and link to it",
        );
    }
    let mut prose = ProseLines::default();
    for (i, raw_line) in body.lines().enumerate() {
        let Some(line) = prose.next(raw_line) else {
            continue;
        };
        let line = line.as_str();
        // Each branch of the pattern needs one of these: most lines have no link, and
        // building the pattern costs a process about a million instructions.
        if !["](", "]:", "src", "href"].iter().any(|w| line.contains(w)) {
            continue;
        }
        for caps in link_regex().captures_iter(line) {
            let Some(m) = caps.get(1).or_else(|| caps.get(2)).or_else(|| caps.get(3)) else {
                continue;
            };
            let target = m.as_str();
            if target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:")
                || target.starts_with("data:")
            {
                continue;
            }
            let path = target.split(['#', '?']).next().unwrap_or(target);
            if path_escapes(Path::new(path)) {
                let col = line[..m.start()].chars().count() + 1;
                let skill_md = l.skill_md.clone();
                let level = if l.published && sibling_skill_file(path) {
                    Level::Warning
                } else {
                    Level::Error
                };
                l.push_at(
                    PATH_ESCAPES,
                    level,
                    skill_md,
                    Some(split.body_line + i),
                    Some(col),
                    format!("link target '{target}' leads outside the skill"),
                    Some("copy what it needs into references/ and link there".to_owned()),
                );
            }
        }
    }
}

fn allow_lint_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?:<!--|#|//)[ \t]*git-skill:allow-lint(?:[ \t]+([^\n]*?))?[ \t]*(?:-->)?[ \t]*$",
        )
        .expect("valid allow-lint regex")
    })
}

/// `git-skill:allow-lint SK011, SK013 -- reason` comments of SKILL.md turn those codes off for
/// the whole skill (most lint codes are about the skill's files, not a line of SKILL.md).
fn apply_inline_allows(l: &mut Lint<'_>, text: &str) {
    if !text.contains("git-skill:allow-lint") {
        return;
    }
    let mut allowed: Vec<(&'static str, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(c) = allow_lint_regex().captures(line) else {
            continue;
        };
        let rest = c.get(1).map_or("", |m| m.as_str());
        let (list, reason) = rest.split_once("--").unwrap_or((rest, ""));
        let reason = reason.trim();
        let mut problems = Vec::new();
        let mut codes_here = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match codes::find(name) {
                Some(code) if code.code != INVALID_LINT_ALLOW => codes_here.push(code.code),
                Some(_) => problems.push(format!("{INVALID_LINT_ALLOW} cannot be turned off")),
                // Shown only when it has a code's shape: the comment may hold anything.
                None if name.len() <= 40
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') =>
                {
                    problems.push(format!("'{name}' is not a lint code"))
                }
                None => problems.push("it names something that is not a lint code".to_owned()),
            }
        }
        if codes_here.is_empty() && problems.is_empty() {
            problems.push("it names no lint code".to_owned());
        }
        if reason.is_empty() {
            problems.push("it gives no reason after `--`".to_owned());
        }
        if problems.is_empty() {
            allowed.extend(codes_here.into_iter().map(|c| (c, reason.to_owned())));
        } else {
            let path = l.skill_md.clone();
            l.push_at(
                INVALID_LINT_ALLOW,
                Level::Error,
                path,
                Some(i + 1),
                None,
                format!(
                    "this git-skill:allow-lint comment does nothing: {}",
                    problems.join("; ")
                ),
                Some(
                    "write `<!-- git-skill:allow-lint SK011 -- why this skill needs it -->`"
                        .to_owned(),
                ),
            );
        }
    }
    for d in &mut l.out {
        if let Some((_, reason)) = allowed.iter().find(|(c, _)| *c == d.code) {
            d.level = Level::Off;
            d.setting = Some(crate::report::Setting {
                kind: "inline",
                reason: reason.clone(),
            });
        }
    }
}

/// Whether a link target is a file of a sibling skill: one `../`, then a directory name and a
/// file below it (`../requesting-code-review/code-reviewer.md`). Two levels up, an absolute
/// path or `..` again further on leads elsewhere.
fn sibling_skill_file(target: &str) -> bool {
    // `..\` climbs on Windows loaders.
    if target.contains('\\') {
        return false;
    }
    let Some(rest) = target.strip_prefix("../") else {
        return false;
    };
    let mut parts = rest.split('/');
    let dir = parts.next().unwrap_or_default();
    let below: Vec<&str> = parts.collect();
    !dir.is_empty()
        && dir != ".."
        && dir != "."
        && !below.is_empty()
        && below
            .iter()
            .all(|p| !p.is_empty() && *p != ".." && *p != ".")
}

/// What identifies a diagnostic across two states of a skill: its code, its file and its
/// message with the numbers masked, not its line (an edit above it moves it) nor its counts
/// ("52 files" and "53 files" are the same problem).
pub fn fingerprint(d: &Diagnostic) -> String {
    let mut message = String::with_capacity(d.message.len());
    let mut in_number = false;
    for c in d.message.chars() {
        let digit = c.is_ascii_digit() || (in_number && c == ',');
        if digit && !in_number {
            message.push('#');
        } else if !digit {
            message.push(c);
        }
        in_number = digit;
    }
    format!("{}\u{0}{}\u{0}{message}", d.code, d.path.display())
}

/// The errors of `after` that `before` does not have (by [`fingerprint`]): what a change
/// introduces. A problem that occurs more often than before counts as introduced too.
pub fn introduced<'a>(before: &[Diagnostic], after: &'a [Diagnostic]) -> Vec<&'a Diagnostic> {
    let mut known: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for d in before.iter().filter(|d| d.level == Level::Error) {
        *known.entry(fingerprint(d)).or_default() += 1;
    }
    after
        .iter()
        .filter(|d| d.level == Level::Error)
        .filter(|d| match known.get_mut(&fingerprint(d)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

/// Whether the diagnostics fail the check. `--strict` raises warnings to errors before this.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.level == Level::Error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::FileEntry;

    fn lint_text(dir_name: &str, md: &str) -> Vec<Diagnostic> {
        let files = SkillFiles::with_skill_md(md.as_bytes().to_vec());
        lint(
            &files,
            &Target {
                dir_name,
                display_dir: PathBuf::from(dir_name),
                category: None,
                written: false,
            },
        )
    }

    fn codes_of(d: &[Diagnostic]) -> Vec<&'static str> {
        d.iter().map(|d| d.code).collect()
    }

    /// A skill laid out as people publish them: a reference next to SKILL.md, 60 files, 2 MiB
    /// in all, a link to a sibling skill and one out of the root.
    fn published_layout(md: &str, written: bool) -> Vec<(&'static str, Level)> {
        let mut files = SkillFiles::with_skill_md(md.as_bytes().to_vec());
        for i in 0..60 {
            files.entries.push(FileEntry {
                path: format!("ref{i:02}.md"),
                kind: FileKind::File {
                    size: 40 << 10,
                    executable: false,
                },
            });
        }
        let mut out: Vec<(&'static str, Level)> = lint(
            &files,
            &Target {
                dir_name: "pdf",
                display_dir: PathBuf::from("pdf"),
                category: None,
                written,
            },
        )
        .iter()
        .map(|d| (d.code, d.level))
        .collect();
        out.dedup();
        out
    }

    #[test]
    fn writer_limits_are_warnings_for_people_and_errors_for_what_agents_write() {
        use Level::{Error, Warning};
        let md = "---\nname: pdf\ndescription: Fill PDF forms.\n---\nSee [review](../code-review/reviewer.md) and [keys](../../.ssh/id_rsa).\n";
        assert_eq!(
            published_layout(md, false),
            [
                (TOO_MANY_FILES, Warning),
                (SKILL_TOO_LARGE, Warning),
                (PATH_ESCAPES, Warning),
                (PATH_ESCAPES, Error),
                (FILE_OUTSIDE_ALLOWED_DIRS, Warning),
            ]
        );
        let all_errors = [
            (TOO_MANY_FILES, Error),
            (SKILL_TOO_LARGE, Error),
            (PATH_ESCAPES, Error),
            (FILE_OUTSIDE_ALLOWED_DIRS, Error),
        ];
        assert_eq!(
            published_layout(md, true),
            all_errors,
            "written by git-skill"
        );
        let auto = md.replace(
            "description: Fill PDF forms.\n",
            "description: Fill PDF forms.\nmetadata:\n  source: auto-skill\n",
        );
        assert_eq!(
            published_layout(&auto, false),
            all_errors,
            "source: auto-skill"
        );
    }

    /// A frontmatter (or name) case: the input, the directory, the (code, level) pairs wanted.
    type Case<T> = (T, &'static str, Vec<(&'static str, Level)>);

    /// Where the specification is explicit, and where its reference validator (`skills-ref`)
    /// and Anthropic's differ: each frontmatter with the (code, level) pairs it must give
    /// beyond a valid skill's none.
    #[test]
    fn specification_agreement_table() {
        use Level::{Error, Warning};
        let long = |n: usize| "x".repeat(n);
        let cases: Vec<Case<String>> = vec![
            (
                "compatibility: \"\"".into(),
                "pdf",
                vec![(INVALID_FIELD, Error)],
            ),
            (format!("compatibility: {}", long(500)), "pdf", vec![]),
            (
                format!("compatibility: {}", long(501)),
                "pdf",
                vec![(INVALID_FIELD, Error)],
            ),
            (
                "metadata:\n  version: 1.0".into(),
                "pdf",
                vec![(METADATA_NOT_STRING, Warning)],
            ),
            (
                "metadata:\n  a:\n    b: c".into(),
                "pdf",
                vec![(METADATA_NOT_STRING, Warning)],
            ),
            (
                "metadata:\n  a: [x]".into(),
                "pdf",
                vec![(METADATA_NOT_STRING, Warning)],
            ),
            (
                "metadata:\n  1: x".into(),
                "pdf",
                vec![(METADATA_NOT_STRING, Warning)],
            ),
            ("metadata: x".into(), "pdf", vec![(INVALID_FIELD, Error)]),
            ("allowed-tools: Read Grep".into(), "pdf", vec![]),
            (
                "allowed-tools: [Read, Grep]".into(),
                "pdf",
                vec![(ALLOWED_TOOLS_LIST, Warning)],
            ),
            (
                "allowed-tools: 3".into(),
                "pdf",
                vec![(INVALID_FIELD, Error)],
            ),
            (format!("description: {}", long(1024)), "pdf", vec![]),
            (
                format!("description: {}", long(1025)),
                "pdf",
                vec![(INVALID_DESCRIPTION, Error)],
            ),
            (
                "description: \"\"".into(),
                "pdf",
                vec![(INVALID_DESCRIPTION, Error)],
            ),
        ];
        let named: Vec<Case<&str>> = vec![
            ("навык", "навык", vec![(NON_ASCII_NAME, Warning)]),
            ("技能", "技能", vec![(NON_ASCII_NAME, Warning)]),
            ("\u{fb01}le", "\u{fb01}le", vec![(NON_ASCII_NAME, Warning)]),
            (
                "навык",
                "other",
                vec![(NAME_MISMATCH, Warning), (NON_ASCII_NAME, Warning)],
            ),
            ("Навык", "Навык", vec![(INVALID_NAME, Error)]),
            // skills-ref's own cases: a hyphen, all capitals, decomposed against composed.
            ("мой-навык", "мой-навык", vec![(NON_ASCII_NAME, Warning)]),
            ("НАВЫК", "НАВЫК", vec![(INVALID_NAME, Error)]),
            ("cafe\u{301}", "caf\u{e9}", vec![(NON_ASCII_NAME, Warning)]),
            ("на--вык", "на--вык", vec![(INVALID_NAME, Error)]),
            ("pdf_forms", "pdf_forms", vec![(INVALID_NAME, Error)]),
        ];
        let got = |md: &str, dir: &str| -> Vec<(&'static str, Level)> {
            lint_text(dir, md)
                .iter()
                .map(|d| (d.code, d.level))
                .collect()
        };
        for (extra, dir, want) in cases {
            let (key, _) = extra.split_once(':').unwrap();
            let mut fm = String::from("name: pdf\ndescription: Fill PDF forms.\n");
            if key == "description" {
                fm = String::from("name: pdf\n");
            }
            let md = format!("---\n{fm}{extra}\n---\n# PDF\n");
            assert_eq!(got(&md, dir), want, "{extra}");
        }
        for (name, dir, want) in named {
            let md = format!("---\nname: {name}\ndescription: A skill.\n---\n# Body\n");
            assert_eq!(got(&md, dir), want, "{name} in {dir}");
        }
        // What an agent writes keeps to ASCII names.
        let auto = "---\nname: навык\ndescription: A skill.\nmetadata:\n  source: auto-skill\n---\n# Body\n";
        assert_eq!(got(auto, "навык"), [(INVALID_NAME, Error)]);
        // A byte order mark: accepted, with a portability warning.
        let bom = "\u{feff}---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n";
        assert_eq!(got(bom, "pdf"), [(BYTE_ORDER_MARK, Warning)]);
        // "Keep your main SKILL.md under 500 lines": the whole file, frontmatter included.
        let head = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n";
        let at = |lines: usize| format!("{head}{}", "text\n".repeat(lines - 4));
        assert_eq!(got(&at(500), "pdf"), []);
        assert_eq!(got(&at(501), "pdf"), [(BODY_TOO_LONG, Warning)]);
    }

    #[test]
    fn inline_allow_lint_turns_codes_off_for_people_s_skills_only() {
        let md = |meta: &str, comment: &str| {
            format!("---\nname: pdf\ndescription: Fill PDF forms.\n{meta}---\n{comment}\nSee [review](../review/reviewer.md).\n")
        };
        let levels = |text: &str| -> Vec<(&'static str, Level, Option<String>)> {
            lint_text("pdf", text)
                .into_iter()
                .map(|d| (d.code, d.level, d.setting.map(|s| s.reason)))
                .collect()
        };
        let allow = "<!-- git-skill:allow-lint SK015, path-escapes-skill -- the review skill ships with it -->";
        assert_eq!(
            levels(&md("", allow)),
            [(
                PATH_ESCAPES,
                Level::Off,
                Some("the review skill ships with it".to_owned())
            )]
        );
        // An auto-skill cannot switch its own checks off.
        let auto = md("metadata:\n  source: auto-skill\n", allow);
        assert_eq!(levels(&auto), [(PATH_ESCAPES, Level::Error, None)]);
        // Comments that would do nothing are errors, on their line.
        for bad in [
            "<!-- git-skill:allow-lint SK015 -->",
            "<!-- git-skill:allow-lint SK999 -- x -->",
            "<!-- git-skill:allow-lint -- x -->",
            "<!-- git-skill:allow-lint SK031 -- x -->",
        ] {
            let d = lint_text("pdf", &md("", bad));
            let invalid: Vec<_> = d.iter().filter(|d| d.code == INVALID_LINT_ALLOW).collect();
            assert_eq!(invalid.len(), 1, "{bad}: {d:?}");
            assert_eq!(
                (invalid[0].line, invalid[0].level),
                (Some(5), Level::Error),
                "{bad}"
            );
        }
    }

    #[test]
    fn dot_directories_are_categories() {
        let md = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n";
        let files = SkillFiles::with_skill_md(md.as_bytes().to_vec());
        let at = |category: &str| {
            codes_of(&lint(
                &files,
                &Target {
                    dir_name: "pdf",
                    display_dir: PathBuf::from("pdf"),
                    category: Some(category),
                    written: false,
                },
            ))
        };
        for fine in [".curated", ".system", ".experimental", "ops"] {
            assert!(at(fine).is_empty(), "{fine}");
        }
        for bad in ["..", ".Curated", "My Skills", "."] {
            assert_eq!(at(bad), [LAYOUT], "{bad}");
        }
    }

    #[test]
    fn sibling_skill_files() {
        assert!(sibling_skill_file(
            "../requesting-code-review/code-reviewer.md"
        ));
        assert!(sibling_skill_file("../other/references/a.md"));
        for elsewhere in [
            "../../x/a.md",
            "../other",
            "../other/",
            "../other/../../a",
            "/etc/passwd",
            "../",
            "../../",
            "../other/./a",
            "../a/..\\..\\x",
        ] {
            assert!(!sibling_skill_file(elsewhere), "{elsewhere}");
        }
    }

    #[test]
    fn introduced_errors_ignore_lines_and_counts() {
        let d = |code, line, message: &str| Diagnostic {
            code,
            level: Level::Error,
            path: PathBuf::from("pdf/SKILL.md"),
            line: Some(line),
            column: None,
            message: message.to_owned(),
            hint: None,
            setting: None,
        };
        let before = [
            d(INVALID_DESCRIPTION, 3, "description has 1,068 characters"),
            d(
                PATH_ESCAPES,
                9,
                "link target '../../a' leads outside the skill",
            ),
        ];
        let after = [
            d(INVALID_DESCRIPTION, 4, "description has 1,070 characters"),
            d(
                PATH_ESCAPES,
                10,
                "link target '../../a' leads outside the skill",
            ),
            d(
                PATH_ESCAPES,
                11,
                "link target '../../a' leads outside the skill",
            ),
            d(
                PATH_ESCAPES,
                12,
                "link target '../../b' leads outside the skill",
            ),
        ];
        let new: Vec<Option<usize>> = introduced(&before, &after).iter().map(|d| d.line).collect();
        // The second copy of an old link is new, as is a link to somewhere else.
        assert_eq!(new, [Some(11), Some(12)]);
        let mut warning = after[3].clone();
        warning.level = Level::Warning;
        assert!(
            introduced(&[], &[warning]).is_empty(),
            "warnings never block"
        );
    }

    #[test]
    fn valid_skill_is_clean() {
        let d = lint_text("pdf", "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\nmetadata:\n  author: me\nallowed-tools: Read Bash(git:*)\n---\n# PDF\n\nSee [forms](references/forms.md).\n");
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn names() {
        assert!(name_problem("pdf-forms").is_none());
        assert!(name_problem("a").is_none());
        for bad in [
            "",
            "PDF",
            "-a",
            "a-",
            "a--b",
            "a_b",
            "a.b",
            "é",
            &"a".repeat(65),
        ] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(slug("My Skill!"), "my-skill");
    }

    #[test]
    fn description_as_list_and_bad_name_type() {
        let d = lint_text(
            "x",
            "---\nname: 12\ndescription:\n  - a\n  - b\n---\nbody\n",
        );
        assert_eq!(codes_of(&d), vec![INVALID_NAME, INVALID_DESCRIPTION]);
        assert_eq!(d[0].line, Some(2));
        assert_eq!(d[1].line, Some(3));
    }

    #[test]
    fn unquoted_colon_in_description_reports_line_and_hint() {
        let d = lint_text(
            "x",
            "---\nname: x\ndescription: Use when: asked\n---\nbody\n",
        );
        assert_eq!(codes_of(&d), vec![INVALID_YAML]);
        assert_eq!(d[0].line, Some(3));
        assert!(d[0].hint.as_deref().unwrap().contains("double quotes"));
    }

    #[test]
    fn links_escaping_the_skill() {
        let d = lint_text("x", "---\nname: x\ndescription: y\n---\nsee [a](../other/SKILL.md) and [b](references/ok.md)\n```\n[c](../in-code)\n```\n[d]: /etc/passwd\n");
        assert_eq!(codes_of(&d), vec![PATH_ESCAPES, PATH_ESCAPES]);
        assert_eq!((d[0].line, d[0].column), (Some(5), Some(9)));
        assert_eq!(d[1].line, Some(9));
    }

    #[test]
    fn warnings() {
        let body = "line\n".repeat(501);
        let md = format!("---\nname: y\ndescription: a <b> c\nwhen_to_use: now\ndescripton: typo\nmetadata:\n  version: 1.0\n---\n{body}");
        let d = lint_text("x", &md);
        assert_eq!(
            codes_of(&d),
            vec![
                NAME_MISMATCH,
                ANGLE_BRACKETS,
                CLIENT_KEY,
                UNKNOWN_KEY,
                METADATA_NOT_STRING,
                BODY_TOO_LONG
            ]
        );
        assert!(d.iter().all(|d| d.level == Level::Warning));
        assert!(d[3].hint.as_deref().unwrap().contains("description"));
        assert!(!has_errors(&d));
    }

    #[test]
    fn non_utf8_is_reported_and_rest_still_checked() {
        let mut md = b"---\nname: x\ndescription: caf".to_vec();
        md.extend_from_slice(&[0xff, 0xfe]);
        md.extend_from_slice(b"\n---\nbody\n");
        let files = SkillFiles::with_skill_md(md);
        let d = lint(
            &files,
            &Target {
                dir_name: "x",
                display_dir: PathBuf::from("x"),
                category: None,
                written: false,
            },
        );
        assert_eq!(codes_of(&d), vec![NOT_UTF8]);
        assert_eq!(d[0].line, Some(3));
    }
}
