//! Feedback becomes a regression suite: each corrected signal an accepted optimization
//! resolves becomes an eval case of the skill (its scenario the prompt, its correction what a
//! good answer does, `signal:<id>` its source), committed with the change the person approved,
//! so that the replay gate of every later optimization runs it.

use serde_json::{Map, Value};

use crate::eval::cases::{self, Case, CaseId, EvalSet, MAX_TEXT_BYTES};
use crate::signal::{Signal, SignalType};

/// The source of a case written from the signal `id`.
pub fn source_of(id: &str) -> String {
    format!("signal:{id}")
}

/// The cases `signals` give: their corrected ones that no case comes from yet, numbered after
/// the highest numbered id of `existing`. Texts are masked (a signal may quote a secret the
/// recorder missed) and cut to what a case may hold.
pub fn cases_from(signals: &[&Signal], existing: Option<&EvalSet>) -> Vec<Case> {
    let cases = existing.map_or(&[][..], |set| set.cases.as_slice());
    let mut next = cases
        .iter()
        .filter_map(|c| match c.id {
            CaseId::Number(n) => Some(n),
            CaseId::Name(_) => None,
        })
        .max()
        .unwrap_or(0);
    // Ids are unique ignoring case and form (`7` and `"7"` would share a results folder).
    let mut taken: std::collections::HashSet<String> = cases
        .iter()
        .map(|c| c.id.to_string().to_lowercase())
        .collect();
    let mut out: Vec<Case> = Vec::new();
    for signal in signals {
        let source = source_of(&signal.signal_id);
        let known = cases
            .iter()
            .chain(&out)
            .any(|c| c.source.as_deref() == Some(source.as_str()));
        if signal.kind != SignalType::Corrected || known || signal.correction.trim().is_empty() {
            continue;
        }
        let id = loop {
            let Some(n) = next.checked_add(1) else {
                return out;
            };
            next = n;
            if taken.insert(n.to_string()) {
                break n;
            }
        };
        out.push(Case {
            id: CaseId::Number(id),
            prompt: text(&signal.scenario),
            expected_output: Some(text(&signal.correction)),
            files: Vec::new(),
            assertions: Vec::new(),
            source: Some(source),
        });
    }
    out
}

fn text(s: &str) -> String {
    let masked = crate::redact::redact(s.trim());
    match masked.char_indices().nth(MAX_TEXT_BYTES / 4) {
        Some((at, _)) => masked[..at].to_owned(),
        None => masked,
    }
}

/// `evals/evals.json` with `cases` appended: the file as it was otherwise (its other fields and
/// cases kept as they are), or a new one named for `skill`. `Err` says why not (the file is not
/// an eval set, or the result would not be one: too many cases, too large).
pub fn append(existing: Option<&[u8]>, skill: &str, cases: &[Case]) -> Result<Vec<u8>, String> {
    let mut top = match existing {
        None => {
            let mut map = Map::new();
            map.insert("skill_name".into(), Value::String(skill.to_owned()));
            map.insert("evals".into(), Value::Array(Vec::new()));
            map
        }
        Some(bytes) => open(bytes)?,
    };
    let list = cases_of(&mut top)?;
    for case in cases {
        list.push(serde_json::to_value(case).map_err(|e| e.to_string())?);
    }
    let bytes = to_file(top)?;
    // What is committed must be what the next eval and replay gate read.
    cases::parse(&bytes).map_err(|p| format!("with the new cases, {p}"))?;
    Ok(bytes)
}

/// `evals/evals.json` without the cases a rolled-back optimization added: those of `ids`
/// whose `source` is one of `sources`; the rest of the file as it is. `None` (the file goes)
/// when the optimization `created` the file and nothing but its name and an empty list is
/// left. `Err` when it is not an eval set to edit.
pub fn remove_cases(
    bytes: &[u8],
    ids: &[CaseId],
    sources: &std::collections::HashSet<String>,
    created: bool,
) -> Result<Option<Vec<u8>>, String> {
    let mut top = open(bytes)?;
    let list = cases_of(&mut top)?;
    list.retain(|case| {
        let ours = case
            .get("source")
            .and_then(Value::as_str)
            .is_some_and(|s| sources.contains(s));
        let id = case
            .get("id")
            .and_then(|v| serde_json::from_value::<CaseId>(v.clone()).ok());
        !(ours && id.is_some_and(|id| ids.contains(&id)))
    });
    let only_ours = list.is_empty() && top.keys().all(|k| k == "skill_name" || k == "evals");
    if created && only_ours {
        return Ok(None);
    }
    to_file(top).map(Some)
}

/// An eval set to edit as JSON, the fields git-skill does not read kept: checked by the
/// parser every reader uses first.
fn open(bytes: &[u8]) -> Result<Map<String, Value>, String> {
    cases::parse(bytes).map_err(|p| p.to_string())?;
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err("it is not a JSON object".into()),
    }
}

fn cases_of(top: &mut Map<String, Value>) -> Result<&mut Vec<Value>, String> {
    match top.get_mut("evals") {
        Some(Value::Array(list)) => Ok(list),
        _ => Err("it has no `evals` list".into()),
    }
}

/// The file's bytes: pretty JSON and a final newline.
fn to_file(top: Map<String, Value>) -> Result<Vec<u8>, String> {
    let mut bytes = serde_json::to_vec_pretty(&Value::Object(top)).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The optimize commit's message with its `Eval-Cases:` line naming `ids` (none: no line),
/// before the `Optimization-Id:` trailer.
pub fn with_cases_line(message: &str, ids: &[CaseId]) -> String {
    // Only the trailers (the last paragraph): the body is the model's words, and may say
    // anything.
    let at = message.trim_end().rfind("\n\n").map_or(0, |i| i + 2);
    let (body, trailers) = message.split_at(at);
    let mut out = body.to_owned();
    for line in trailers.split_inclusive('\n') {
        if line.starts_with(CASES_KEY) {
            continue;
        }
        if line.starts_with("Optimization-Id:") && !ids.is_empty() {
            out.push_str(&cases_line(ids));
        }
        out.push_str(line);
    }
    out
}

const CASES_KEY: &str = "Eval-Cases: ";

/// `Eval-Cases: 4, 5 (added from corrected signals)`.
pub fn cases_line(ids: &[CaseId]) -> String {
    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    format!(
        "{CASES_KEY}{} (added from corrected signals)\n",
        ids.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signal(id: &str, kind: SignalType, scenario: &str, correction: &str) -> Signal {
        Signal {
            signal_id: id.into(),
            skill: "csv".into(),
            kind,
            scenario: scenario.into(),
            correction: correction.into(),
            friction_detail: if kind == SignalType::Friction {
                "unclear".into()
            } else {
                String::new()
            },
            context: Default::default(),
            skill_version_hash: "0".repeat(64),
            timestamp: "2026-12-01T10:00:00Z".into(),
            extra: Default::default(),
        }
    }

    #[test]
    fn corrected_signals_become_numbered_cases_once_with_their_source() {
        let existing = cases::parse(
            br#"{"skill_name": "csv", "evals": [{"id": 4, "prompt": "p", "expected_output": "e"},
                {"id": "named", "prompt": "q", "expected_output": "f", "source": "signal:b"}]}"#,
        )
        .unwrap();
        let a = signal(
            "a",
            SignalType::Corrected,
            "Sum the 東京 column 😀",
            "Use the header row",
        );
        let b = signal("b", SignalType::Corrected, "again", "already a case");
        let f = signal("f", SignalType::Friction, "friction", "");
        let key = "ghp_R8x2Kq9Zt4Lm7Vw3Nc6Hb1Jd5Fs0Gy8Pa2Qe";
        let s = signal(
            "s",
            SignalType::Corrected,
            &format!("Call with {key}"),
            "Never paste keys",
        );
        let got = cases_from(&[&a, &b, &f, &s, &a], Some(&existing));
        let ids: Vec<String> = got.iter().map(|c| c.id.to_string()).collect();
        assert_eq!(ids, ["5", "6"]);
        assert_eq!(got[0].prompt, "Sum the 東京 column 😀");
        assert_eq!(
            got[0].expected_output.as_deref(),
            Some("Use the header row")
        );
        assert_eq!(got[0].source.as_deref(), Some("signal:a"));
        assert!(!got[1].prompt.contains(key), "{}", got[1].prompt);
        assert_eq!(cases_from(&[&a], None)[0].id, CaseId::Number(1));
        // A name that reads as the next number is skipped; the largest id ends the numbering.
        let named = cases::parse(br#"{"evals": [{"id": 1, "prompt": "p", "expected_output": "e"}, {"id": "2", "prompt": "p", "expected_output": "e"}]}"#).unwrap();
        assert_eq!(cases_from(&[&a], Some(&named))[0].id, CaseId::Number(3));
        let full = cases::parse(
            format!(
                r#"{{"evals": [{{"id": {}, "prompt": "p", "expected_output": "e"}}]}}"#,
                u64::MAX
            )
            .as_bytes(),
        )
        .unwrap();
        assert!(cases_from(&[&a], Some(&full)).is_empty());
    }

    #[test]
    fn a_rollback_takes_out_only_its_own_cases() {
        let file = br#"{"skill_name": "x", "evals": [
            {"id": 1, "prompt": "p", "expected_output": "e"},
            {"id": 2, "prompt": "p", "expected_output": "e", "source": "signal:a"},
            {"id": 3, "prompt": "p", "expected_output": "e", "source": "signal:b"}]}"#;
        let ours: std::collections::HashSet<String> =
            ["signal:a".to_owned(), "signal:b".to_owned()].into();
        let two = [CaseId::Number(2)];
        // Case 3 comes from one of its signals but another run added it: it stays.
        let left = remove_cases(file, &two, &ours, true).unwrap().unwrap();
        let set = cases::parse(&left).unwrap();
        let ids: Vec<String> = set.cases.iter().map(|c| c.id.to_string()).collect();
        assert_eq!(ids, ["1", "3"]);
        let single = br#"{"evals": [{"id": 2, "prompt": "p", "expected_output": "e", "source": "signal:a"}]}"#;
        assert_eq!(remove_cases(single, &two, &ours, true).unwrap(), None);
        // A file the person had before keeps existing, empty.
        let kept = remove_cases(single, &two, &ours, false).unwrap().unwrap();
        assert!(cases::parse(&kept).unwrap().cases.is_empty());
        let noted = br#"{"note": "mine", "evals": [{"id": 2, "prompt": "p", "expected_output": "e", "source": "signal:a"}]}"#;
        assert!(remove_cases(noted, &two, &ours, true).unwrap().is_some());
        assert!(remove_cases(b"not json", &two, &ours, true).is_err());
    }

    #[test]
    fn the_message_names_the_cases_that_land() {
        let message = "optimize(skill): x\n\nWhy.\n\nMode: text_edit\nGate: 1/1 passed\nEval-Cases: 4, 5 (added from corrected signals)\nOptimization-Id: opt_1\n";
        let four = with_cases_line(message, &[CaseId::Number(4)]);
        assert!(four.ends_with("Gate: 1/1 passed\nEval-Cases: 4 (added from corrected signals)\nOptimization-Id: opt_1\n"), "{four}");
        // A body line that reads like a trailer is the model's, and stays as it is.
        let tricky = message.replace("Why.", "Why.\nOptimization-Id: said\nEval-Cases: too");
        let one = with_cases_line(&tricky, &[CaseId::Number(4)]);
        assert!(
            one.contains("Why.\nOptimization-Id: said\nEval-Cases: too\n\nMode"),
            "{one}"
        );
        assert_eq!(one.matches("Eval-Cases: 4 (added").count(), 1, "{one}");
        let none = with_cases_line(message, &[]);
        assert!(!none.contains("Eval-Cases"), "{none}");
        assert_eq!(
            with_cases_line(&none, &[CaseId::Number(4), CaseId::Number(5)]),
            message
        );
    }

    #[test]
    fn appending_keeps_the_file_and_refuses_what_would_break_it() {
        let a = signal("a", SignalType::Corrected, "scenario", "correction");
        let new = cases_from(&[&a], None);
        let fresh = append(None, "csv", &new).unwrap();
        let set = cases::parse(&fresh).unwrap();
        assert_eq!(set.skill_name.as_deref(), Some("csv"));
        assert_eq!(set.cases, new);

        let old = br#"{"skill_name": "csv", "note": "kept", "evals": [{"id": 1, "prompt": "p", "expected_output": "e"}]}"#;
        let added = cases_from(&[&a], Some(&cases::parse(old).unwrap()));
        let out = append(Some(old), "csv", &added).unwrap();
        let value: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["note"], "kept");
        assert_eq!(value["evals"][1]["id"], 2);
        assert_eq!(value["evals"][1]["source"], "signal:a");

        assert!(append(Some(b"[1, 2]"), "csv", &added).is_err());
        assert!(append(Some(b"{\"evals\": 3}"), "csv", &added).is_err());
        let full = format!(
            "{{\"evals\": [{}]}}",
            (1..=cases::MAX_CASES)
                .map(|i| format!("{{\"id\": {i}, \"prompt\": \"p\", \"expected_output\": \"e\"}}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let too_many = append(Some(full.as_bytes()), "csv", &added).unwrap_err();
        assert!(too_many.starts_with("with the new cases"), "{too_many}");
    }
}
