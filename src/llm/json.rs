//! Structured answers: the JSON object in a model's text (the whole text, a fenced block, or
//! the first balanced object), deserialised and checked; one repair request quoting what was
//! wrong; and, when that fails too, the raw answers kept in a file the error names.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use super::{Completion, LlmError, Message, Provider, Request, Usage};

/// How many `{` an answer is searched from for an embedded object.
const MAX_CANDIDATES: usize = 32;

/// Finds the JSON value in `text`: the whole text, else the first ```json (or bare ```) block
/// that parses, else the first balanced `{...}` that parses.
pub fn extract(text: &str) -> Option<serde_json::Value> {
    let without_thinking = strip_thinking(text);
    let trimmed = without_thinking.trim().trim_start_matches('\u{feff}');
    if let Ok(v) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    for block in fenced_blocks(trimmed) {
        if let Ok(v) = serde_json::from_str(block.trim()) {
            return Some(v);
        }
    }
    // Each candidate costs a scan to its end: a bounded number keeps hostile text linear.
    let mut from = 0;
    let mut tried = 0;
    while let Some(offset) = trimmed[from..].find('{') {
        tried += 1;
        if tried > MAX_CANDIDATES {
            break;
        }
        let start = from + offset;
        if let Some(end) = balanced_end(&trimmed[start..]) {
            if let Ok(v) = serde_json::from_str(&trimmed[start..start + end]) {
                return Some(v);
            }
        }
        from = start + 1;
    }
    None
}

/// `text` without the `<think>…</think>` blocks reasoning models (Qwen3, DeepSeek-R1) put
/// before their answer: a draft object in there must not be taken for the answer. An
/// unclosed block runs to the end.
fn strip_thinking(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("<think>") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("<think>") {
        out.push_str(&rest[..open]);
        match rest[open..].find("</think>") {
            Some(close) => rest = &rest[open + close + "</think>".len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// The contents of Markdown code fences, in order.
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // The info string (`json`) runs to the end of the line.
        let Some(newline) = after.find('\n') else {
            break;
        };
        let body = &after[newline + 1..];
        let Some(close) = body.find("```") else {
            break;
        };
        blocks.push(&body[..close]);
        rest = &body[close + 3..];
    }
    blocks
}

/// Where the object starting at `text[0] == '{'` ends (exclusive), minding strings and escapes;
/// linear in the length, whatever the nesting.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Reads `T` from an answer: extraction, deserialisation, then `check`.
pub fn parse<T: DeserializeOwned>(
    text: &str,
    check: &dyn Fn(&T) -> Result<(), String>,
) -> Result<T, String> {
    parse_with(text, None, check)
}

/// [`parse`], the extracted value first checked against `schema` (the one the request
/// carried: a server may have ignored it), then its `null` fields dropped.
pub fn parse_with<T: DeserializeOwned>(
    text: &str,
    schema: Option<&serde_json::Value>,
    check: &dyn Fn(&T) -> Result<(), String>,
) -> Result<T, String> {
    parse_noting(text, schema, check).map(|(value, _)| value)
}

/// [`parse_with`], and the fields the answer had that the schema does not (left out).
fn parse_noting<T: DeserializeOwned>(
    text: &str,
    schema: Option<&serde_json::Value>,
    check: &dyn Fn(&T) -> Result<(), String>,
) -> Result<(T, Vec<String>), String> {
    let mut value = extract(text).ok_or_else(|| "no JSON object found in the answer".to_owned())?;
    let mut ignored = Vec::new();
    if let Some(schema) = schema {
        // Fields the contract does not have are left out, not a reason to ask again.
        ignored = super::schema::strip_extras(schema, &mut value);
        super::schema::check(schema, &value)
            .map_err(|e| format!("the JSON does not follow the schema: {e}"))?;
        super::schema::strip_nulls(&mut value);
    }
    let parsed: T = serde_json::from_value(value)
        .map_err(|e| format!("the JSON does not fit the contract: {e}"))?;
    check(&parsed)?;
    Ok((parsed, ignored))
}

/// A structured answer and what it cost.
#[derive(Debug)]
pub struct Structured<T> {
    pub value: T,
    pub usage: Usage,
    /// Requests sent (retries and the repair request included).
    pub attempts: u32,
    /// Whether a repair request was needed.
    pub repaired: bool,
    /// The server refused the schema's field on this call (see [`Completion::dropped`]).
    pub dropped: Option<&'static str>,
    /// Fields of the used answer that its schema does not have, left out (`diagnosis`,
    /// `clusters[0].note`): free-text models add them; strict servers never do.
    pub ignored: Vec<String>,
}

/// Sends `request` and reads a `T` from the answer; when that fails, asks once more, quoting
/// the problem. When the second answer fails too, both answers are written to a new file in
/// `raw_dir` (created if needed; a temporary directory when `None`) and the error names it.
pub fn complete_json<T: DeserializeOwned>(
    provider: &dyn Provider,
    request: &Request,
    check: &dyn Fn(&T) -> Result<(), String>,
    raw_dir: Option<&Path>,
) -> Result<Structured<T>, LlmError> {
    let schema = request.schema.as_ref().map(|s| &s.schema);
    let first: Completion = provider.complete(request)?;
    let problem = match parse_noting::<T>(&first.text, schema, check) {
        Ok((value, ignored)) => {
            return Ok(Structured {
                value,
                usage: first.usage,
                attempts: first.attempts,
                repaired: false,
                dropped: first.dropped,
                ignored,
            })
        }
        Err(problem) => problem,
    };
    let mut repair = request.clone();
    repair.messages.push(Message::assistant(first.text.clone()));
    repair.messages.push(Message::user(format!(
        "Your answer could not be used: {problem}.\nAnswer again with only the JSON object that the instructions above describe, and nothing else."
    )));
    let second = provider.complete(&repair)?;
    match parse_noting::<T>(&second.text, schema, check) {
        Ok((value, ignored)) => Ok(Structured {
            value,
            usage: first.usage + second.usage,
            attempts: first.attempts + second.attempts,
            repaired: true,
            dropped: first.dropped.or(second.dropped),
            ignored,
        }),
        Err(second_problem) => {
            // The first answer's problem is usually the cause; the second often only
            // repeats or adds to it.
            let reason = if second_problem == problem {
                problem
            } else {
                format!("{problem}; asked again: {second_problem}")
            };
            let raw = keep_raw(raw_dir, &[&first.text, &second.text]).map_err(|e| {
                LlmError::Config(format!(
                    "the model's answer is not usable JSON ({reason}), and it could not be kept: {e}"
                ))
            })?;
            Err(LlmError::Json { reason, raw })
        }
    }
}

/// Writes the answers to a new file `llm-answer-<time>-<n>.txt` in `dir`, readable by its
/// owner only: answers quote skills and transcripts. Outside a repository the directory is
/// the user's own under the temporary directory.
fn keep_raw(dir: Option<&Path>, answers: &[&str]) -> std::io::Result<PathBuf> {
    let dir = match dir {
        Some(d) => {
            crate::fsutil::private_dir(d)?;
            d.to_owned()
        }
        None => private_temp_dir()?,
    };
    let stamp = crate::clock::now().format("%Y%m%dT%H%M%S");
    let mut text = String::new();
    for (i, a) in answers.iter().enumerate() {
        text.push_str(&format!("===== answer {} =====\n{a}\n", i + 1));
    }
    for n in 0..1000 {
        let path = dir.join(format!("llm-answer-{stamp}-{n}.txt"));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            // Created private, whatever the umask: answers quote skills and transcripts.
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        match options.open(&path) {
            Ok(mut f) => {
                use std::io::Write;
                f.write_all(crate::redact::redact(&text).as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free file name"))
}

/// `<temp>/git-skill-<uid>`, created `0700`; one that another user made first is refused.
pub(crate) fn private_temp_dir() -> std::io::Result<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        // SAFETY: geteuid has no preconditions and touches no memory.
        let uid = unsafe { libc::geteuid() };
        let dir = std::env::temp_dir().join(format!("git-skill-{uid}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let meta = std::fs::symlink_metadata(&dir)?;
        if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
            return Err(std::io::Error::other(format!(
                "'{}' is not a private directory of this user",
                dir.display()
            )));
        }
        Ok(dir)
    }
    #[cfg(not(unix))]
    {
        let dir = std::env::temp_dir().join("git-skill");
        std::fs::create_dir_all(&dir)?;
        Ok(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_is_found_whole_fenced_or_embedded() {
        assert_eq!(extract(r#" {"a":1} "#), Some(json!({"a":1})));
        assert_eq!(extract("[1,2]"), Some(json!([1, 2])));
        let fenced = "Here you go:\n```json\n{\"a\": {\"b\": [1, 2]}}\n```\nDone.";
        assert_eq!(extract(fenced), Some(json!({"a": {"b": [1, 2]}})));
        let bare = "```\n{\"a\":2}\n```";
        assert_eq!(extract(bare), Some(json!({"a":2})));
        let embedded = r#"Sure! {"reason": "a } in a string, and \" quotes {", "n": 3} trailing {"#;
        assert_eq!(
            extract(embedded),
            Some(json!({"reason": "a } in a string, and \" quotes {", "n": 3}))
        );
        // A reasoning model's draft is not the answer.
        let thinking = "<think>maybe {\"verdict\": \"YES\"}? no.</think>\n{\"verdict\": \"NO\"}";
        assert_eq!(extract(thinking), Some(json!({"verdict": "NO"})));
        // A first candidate that is not JSON does not hide a later one.
        assert_eq!(
            extract("{not json} then {\"ok\":true}"),
            Some(json!({"ok": true}))
        );
    }

    #[test]
    fn hostile_answers_find_nothing_without_blowing_up() {
        for text in [
            "",
            "no json here",
            "{",
            "}}}}",
            "```json\n{",
            "{\"a\":",
            "\u{feff}",
            "{\"é\":\"\\",
        ] {
            assert_eq!(extract(text), None, "{text:?}");
        }
        let deep = "{".repeat(100_000);
        assert_eq!(extract(&deep), None);
        let nested = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        // serde_json's recursion limit refuses it; the scan stays linear.
        assert_eq!(extract(&nested), None);
        let big = format!("noise {} {{\"a\":1}}", "x{".repeat(50_000));
        let _ = extract(&big);
    }

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Verdict {
        verdict: String,
    }

    #[test]
    fn parse_checks_the_contract() {
        let check = |v: &Verdict| {
            if v.verdict == "YES" || v.verdict == "NO" {
                Ok(())
            } else {
                Err(format!("verdict must be YES or NO, not {:?}", v.verdict))
            }
        };
        assert_eq!(
            parse::<Verdict>(r#"{"verdict":"NO"}"#, &check)
                .unwrap()
                .verdict,
            "NO"
        );
        let e = parse::<Verdict>(r#"{"verdict":"MAYBE"}"#, &check).unwrap_err();
        assert!(e.contains("YES or NO"), "{e}");
        let e = parse::<Verdict>(r#"{"answer":"NO"}"#, &check).unwrap_err();
        assert!(e.contains("missing field `verdict`"), "{e}");
        let e = parse::<Verdict>("I think no.", &check).unwrap_err();
        assert!(e.contains("no JSON object"), "{e}");
    }
}
