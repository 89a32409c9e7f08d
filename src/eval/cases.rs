//! `evals/evals.json`: `{"skill_name": "...", "evals": [{"id": 1, "prompt": "...",
//! "expected_output": "...", "files": ["evals/files/a.csv"], "assertions": ["..."]}]}`, as the
//! Agent Skills authoring guide writes it (`expectations` is read as `assertions`, as
//! skill-creator names them). Read from hostile bytes: every problem is reported with the case
//! it is in, never by quoting the file.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a skill keeps its evals, relative to the skill's directory.
pub const EVALS_JSON: &str = "evals/evals.json";
/// The largest evals.json read: 1 MiB, the size limit of any skill file.
pub const MAX_EVALS_BYTES: usize = 1 << 20;
/// At most this many cases: each costs model calls.
pub const MAX_CASES: usize = 500;
/// A prompt, expected output or assertion: at most 32 KiB of text.
pub const MAX_TEXT_BYTES: usize = 32 << 10;

/// A case's id: the guide numbers them; a name is accepted too.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CaseId {
    Number(u64),
    Name(String),
}

impl std::fmt::Display for CaseId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaseId::Number(n) => write!(f, "{n}"),
            CaseId::Name(s) => f.write_str(s),
        }
    }
}

/// One eval case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    pub id: CaseId,
    /// What a user asks the agent.
    pub prompt: String,
    /// What a good answer does, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<String>,
    /// Input files, relative to the skill's directory (`evals/files/sample.csv`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Statements a good answer makes true, each graded on its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assertions: Vec<String>,
    /// Where the case came from (`signal:<id>` for one written from a corrected signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// A skill's eval cases.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct EvalSet {
    /// The skill the file says it is for (the guide's `skill_name`).
    pub skill_name: Option<String>,
    pub cases: Vec<Case>,
}

/// Why an evals.json cannot be used: `line` when the JSON itself is broken, `case` (its
/// position, from 1, and its id when it has one) when one case is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", where_(*line, *case, id.as_ref()))]
pub struct EvalsProblem {
    pub line: Option<usize>,
    pub case: Option<usize>,
    pub id: Option<CaseId>,
    pub message: String,
}

fn where_(line: Option<usize>, case: Option<usize>, id: Option<&CaseId>) -> String {
    match (line, case, id) {
        (Some(line), _, _) => format!("line {line}: "),
        (None, Some(n), Some(id)) => format!("case {n} (id {id}): "),
        (None, Some(n), None) => format!("case {n}: "),
        (None, None, _) => String::new(),
    }
}

impl EvalsProblem {
    fn whole(message: impl Into<String>) -> EvalsProblem {
        EvalsProblem {
            line: None,
            case: None,
            id: None,
            message: message.into(),
        }
    }
}

/// Reads an evals.json. An empty `evals` list is a valid file with no cases (lint warns).
pub fn parse(bytes: &[u8]) -> Result<EvalSet, EvalsProblem> {
    if bytes.len() > MAX_EVALS_BYTES {
        return Err(EvalsProblem::whole(format!(
            "it is {} bytes; at most {MAX_EVALS_BYTES} are read",
            bytes.len()
        )));
    }
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(EvalsProblem::whole(
            "it is UTF-16; save it as UTF-8 (JSON files are UTF-8)",
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        EvalsProblem::whole(format!("it is not UTF-8 (at byte {})", e.valid_up_to()))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(text).map_err(|e| EvalsProblem {
        line: Some(e.line()),
        case: None,
        id: None,
        message: format!("not valid JSON: {}", json_reason(&e)),
    })?;
    let top = match value {
        Value::Object(map) => map,
        Value::Array(_) => {
            return Err(EvalsProblem::whole(
                "it is a JSON list; the format is an object with the cases in `evals`: {\"skill_name\": \"...\", \"evals\": [...]}",
            ))
        }
        _ => {
            return Err(EvalsProblem::whole(
                "it is not a JSON object with the cases in `evals`",
            ))
        }
    };
    let skill_name = match top.get("skill_name") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(EvalsProblem::whole("`skill_name` is not a string")),
    };
    let list = match top.get("evals") {
        Some(Value::Array(list)) => list,
        Some(_) => return Err(EvalsProblem::whole("`evals` is not a list of cases")),
        None => return Err(EvalsProblem::whole("it has no `evals` list")),
    };
    if list.len() > MAX_CASES {
        return Err(EvalsProblem::whole(format!(
            "it has {} cases; at most {MAX_CASES} are run",
            list.len()
        )));
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut cases = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let case = read_case(item).map_err(|(id, message)| EvalsProblem {
            line: None,
            case: Some(i + 1),
            id,
            message,
        })?;
        // `1` and `"1"`, or `A` and `a`, would share a results folder: one id.
        if !seen.insert(case.id.to_string().to_ascii_lowercase()) {
            return Err(EvalsProblem {
                line: None,
                case: Some(i + 1),
                id: Some(case.id),
                message: "another case has the same id".into(),
            });
        }
        cases.push(case);
    }
    Ok(EvalSet { skill_name, cases })
}

/// serde_json's message without its own "at line L column C" (the line is reported apart).
fn json_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

type CaseProblem = (Option<CaseId>, String);

fn read_case(item: &Value) -> Result<Case, CaseProblem> {
    let Value::Object(map) = item else {
        return Err((None, "it is not an object".into()));
    };
    let id = match map.get("id") {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(n) => CaseId::Number(n),
            None => return Err((None, "`id` is not a whole number of at least 0".into())),
        },
        Some(Value::String(s)) if valid_name(s) => CaseId::Name(s.clone()),
        Some(Value::String(_)) => return Err((
            None,
            "`id` names no case: use a number, or letters, digits, `-`, `_` and `.` (at most 64)"
                .into(),
        )),
        Some(_) => return Err((None, "`id` is not a number or a name".into())),
        None => return Err((None, "it has no `id`".into())),
    };
    let fail = |message: String| (Some(id.clone()), message);
    let text = |key: &str, required: bool| -> Result<Option<String>, CaseProblem> {
        match map.get(key) {
            None | Some(Value::Null) if !required => Ok(None),
            None | Some(Value::Null) => Err(fail(format!("it has no `{key}`"))),
            Some(Value::String(s)) if s.trim().is_empty() && required => {
                Err(fail(format!("`{key}` is empty")))
            }
            Some(Value::String(s)) if s.len() > MAX_TEXT_BYTES => Err(fail(format!(
                "`{key}` is {} bytes; at most {MAX_TEXT_BYTES}",
                s.len()
            ))),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(fail(format!("`{key}` is not a string"))),
        }
    };
    let prompt = text("prompt", true)?.unwrap_or_default();
    let expected_output = text("expected_output", false)?;
    let source = text("source", false)?;
    let strings = |key: &str| -> Result<Vec<String>, CaseProblem> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(n, v)| match v {
                    Value::String(s) if s.trim().is_empty() => {
                        Err(fail(format!("`{key}[{n}]` is empty")))
                    }
                    Value::String(s) if s.len() > MAX_TEXT_BYTES => Err(fail(format!(
                        "`{key}[{n}]` is {} bytes; at most {MAX_TEXT_BYTES}",
                        s.len()
                    ))),
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(fail(format!("`{key}[{n}]` is not a string"))),
                })
                .collect(),
            Some(_) => Err(fail(format!("`{key}` is not a list of strings"))),
        }
    };
    let files = strings("files")?;
    for (n, path) in files.iter().enumerate() {
        if let Some(reason) = bad_path(path) {
            return Err(fail(format!("`files[{n}]` {reason}")));
        }
        // An input is placed where an eval runner's agent starts: never what it loads itself.
        if let Some(what) = super::placed::agent_config(path) {
            return Err(fail(format!(
                "`files[{n}]` '{path}' is {what}: an eval case runs only the skill, so it may not bring an agent's configuration; name the file the task reads instead"
            )));
        }
    }
    let mut assertions = strings("assertions")?;
    if assertions.is_empty() {
        assertions = strings("expectations")?;
    }
    if expected_output.is_none() && assertions.is_empty() {
        return Err(fail(
            "it has neither `expected_output` nor `assertions`: nothing to grade the answer by"
                .into(),
        ));
    }
    Ok(Case {
        id,
        prompt,
        expected_output,
        files,
        assertions,
        source,
    })
}

fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && s != "."
        && s != ".."
}

/// Why `path` cannot name a file of the skill, if it cannot.
fn bad_path(path: &str) -> Option<&'static str> {
    if path.starts_with('/') || path.contains('\\') || path.contains(':') {
        return Some("is not a path relative to the skill's directory (`evals/files/a.csv`)");
    }
    if path
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Some("has an empty, `.` or `..` part: it must name a file inside the skill");
    }
    if path.chars().any(char::is_control) {
        return Some("holds a control character");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str) -> String {
        parse(text.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn the_guides_format_is_read() {
        let set = parse(
            br#"{"skill_name": "csv-report", "evals": [
                {"id": 1, "prompt": "Summarise sales.csv", "expected_output": "A table by region",
                 "files": ["evals/files/sales.csv"], "assertions": ["Totals are given"]},
                {"id": "no-file", "prompt": "\u65e5\u672c\u8a9e \ud83d\ude00", "expectations": ["Answers in Japanese"]}
            ]}"#,
        )
        .unwrap();
        assert_eq!(set.skill_name.as_deref(), Some("csv-report"));
        assert_eq!(set.cases.len(), 2);
        assert_eq!(set.cases[0].id, CaseId::Number(1));
        assert_eq!(set.cases[0].files, ["evals/files/sales.csv"]);
        assert_eq!(set.cases[1].id.to_string(), "no-file");
        assert_eq!(set.cases[1].prompt, "\u{65e5}\u{672c}\u{8a9e} \u{1f600}");
        assert_eq!(set.cases[1].assertions, ["Answers in Japanese"]);
        assert!(parse(br#"{"evals": []}"#).unwrap().cases.is_empty());
        // A byte order mark is skipped, as editors write one.
        assert!(parse("\u{feff}{\"evals\": []}".as_bytes()).is_ok());
    }

    #[test]
    fn malformed_files_say_where_and_why() {
        assert_eq!(
            problem("{\"evals\": [\n{\"id\": 1,}\n]}"),
            "line 2: not valid JSON: trailing comma"
        );
        assert!(problem("[{\"id\": 1}]").contains("is a JSON list"));
        assert_eq!(problem("{\"cases\": []}"), "it has no `evals` list");
        assert_eq!(
            problem(r#"{"evals": [{"prompt": "x", "assertions": ["y"]}]}"#),
            "case 1: it has no `id`"
        );
        assert_eq!(
            problem(
                r#"{"evals": [{"id": 1, "prompt": "x", "assertions": ["y"]}, {"id": 1, "prompt": "z", "assertions": ["y"]}]}"#
            ),
            "case 2 (id 1): another case has the same id"
        );
        assert_eq!(
            problem(
                r#"{"evals": [{"id": "Tax", "prompt": "x", "assertions": ["y"]}, {"id": "tax", "prompt": "z", "assertions": ["y"]}]}"#
            ),
            "case 2 (id tax): another case has the same id"
        );
        assert_eq!(
            problem(r#"{"evals": [{"id": 7, "prompt": " ", "assertions": ["y"]}]}"#),
            "case 1 (id 7): `prompt` is empty"
        );
        assert!(problem(r#"{"evals": [{"id": 7, "prompt": "x"}]}"#).contains("nothing to grade"));
        assert!(
            problem(r#"{"evals": [{"id": -1, "prompt": "x", "assertions": ["y"]}]}"#)
                .contains("whole number")
        );
        assert!(
            problem(r#"{"evals": [{"id": "a b", "prompt": "x", "assertions": ["y"]}]}"#)
                .contains("names no case")
        );
        assert!(
            problem(r#"{"evals": [{"id": 1, "prompt": "x", "assertions": "y"}]}"#)
                .contains("not a list of strings")
        );
        assert!(
            problem(r#"{"evals": [{"id": 1, "prompt": "x", "assertions": [3]}]}"#)
                .contains("`assertions[0]` is not a string")
        );
    }

    #[test]
    fn input_files_must_stay_inside_the_skill() {
        for path in [
            "/etc/passwd",
            "../other/x",
            "evals/../../x",
            "C:\\x",
            "evals//x",
            "./x",
            "a\u{7}b",
        ] {
            let json = serde_json::json!({"evals": [{"id": 1, "prompt": "x", "assertions": ["y"], "files": [path]}]});
            let text = problem(&json.to_string());
            assert!(
                text.starts_with("case 1 (id 1): `files[0]`"),
                "{path}: {text}"
            );
        }
    }

    #[test]
    fn hostile_sizes_and_encodings_are_refused_whole() {
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend("{}".encode_utf16().flat_map(|u| u.to_le_bytes()));
        assert!(parse(&utf16).unwrap_err().message.contains("UTF-16"));
        assert!(parse(b"{\"evals\": [\xff]}")
            .unwrap_err()
            .message
            .contains("not UTF-8"));
        let huge = format!(
            "{{\"evals\": [], \"x\": \"{}\"}}",
            "a".repeat(MAX_EVALS_BYTES)
        );
        assert!(parse(huge.as_bytes())
            .unwrap_err()
            .message
            .contains("at most"));
        let many: Vec<_> = (0..=MAX_CASES)
            .map(|i| serde_json::json!({"id": i, "prompt": "x", "assertions": ["y"]}))
            .collect();
        let text = serde_json::json!({ "evals": many }).to_string();
        assert!(parse(text.as_bytes())
            .unwrap_err()
            .message
            .contains("cases; at most"));
        let long = serde_json::json!({"evals": [{"id": 1, "prompt": "x".repeat(MAX_TEXT_BYTES + 1), "assertions": ["y"]}]});
        assert!(problem(&long.to_string()).contains("`prompt` is"));
        // Deeply nested JSON is refused by the parser's own depth limit, not a stack overflow.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(deep.as_bytes()).is_err());
    }
}
