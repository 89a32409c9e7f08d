//! The JSON schema of each answer in [`super::contracts`], sent with the request where the
//! provider can enforce it (OpenAI-compatible `response_format`, an Anthropic tool's
//! `input_schema`) and checked locally on every answer ([`crate::llm::schema`]). The review's
//! is here for the review agent, which does not exist yet; optimize sends the others.
//!
//! They are written for OpenAI's strict mode: every object closed
//! (`additionalProperties: false`) and every field listed in `required`, the optional ones
//! with a type that allows `null`. Locally a field that may be `null` may also be absent, so
//! an answer shaped as the templates describe it (MODE 1 without `rewrite_mode`) passes.
//! Lengths and id shapes are left to the contracts' `validate`: strict mode refuses
//! `maxLength`, and the contracts quote a better reason to the model.

use serde_json::{json, Value};

use super::contracts::GateMode;
use crate::llm::Schema;

fn schema(name: &str, schema: Value) -> Schema {
    Schema {
        name: name.to_owned(),
        schema,
    }
}

/// A closed object whose every field is required.
fn object(fields: Value) -> Value {
    let required: Vec<&String> = fields.as_object().expect("fields").keys().collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": required,
        "properties": fields,
    })
}

/// triage.md.j2: `{"clusters","conflicts","stale_signals","priority_order"}`.
pub fn triage() -> Schema {
    let cluster = object(json!({
        "cluster_id": {"type": "string"},
        "root_cause": {"type": "string"},
        "signal_ids": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "type": {"type": "string", "enum": ["corrected", "friction"]},
        "count": {"type": "integer"},
    }));
    let conflict = object(json!({
        "signal_a": {"type": "string"},
        "signal_b": {"type": "string"},
        "reason": {"type": "string"},
    }));
    schema(
        "triage",
        object(json!({
            "clusters": {"type": "array", "minItems": 1, "items": cluster},
            "conflicts": {"type": ["array", "null"], "items": conflict},
            "stale_signals": {"type": ["array", "null"], "items": {"type": "string"}},
            "priority_order": {"type": ["array", "null"], "items": {"type": "string"}},
        })),
    )
}

/// reflect.md.j2, both modes in one object (strict mode wants an object at the top, not a
/// choice): MODE 1 fills `edits`, MODE 2 sets `rewrite_mode` and `rewrite_content`.
pub fn reflect() -> Schema {
    let edit = object(json!({
        "type": {"type": "string", "enum": ["delete", "replace", "add"]},
        "target": {"type": "string"},
        "new": {"type": "string"},
        "reason": {"type": "string"},
        "source_cluster_id": {"type": "string"},
    }));
    schema(
        "reflect",
        object(json!({
            "diagnosis": {"type": "string"},
            "rewrite_mode": {"type": ["boolean", "null"]},
            "edits": {"type": ["array", "null"], "items": edit},
            "rewrite_content": {"type": ["string", "null"]},
            "reason": {"type": ["string", "null"]},
        })),
    )
}

/// gate_text_edit.md.j2 (`YES`/`NO`) and gate_rewrite.md.j2 (`COVERED`/`NOT_COVERED`).
pub fn gate(mode: GateMode) -> Schema {
    let (name, verdicts) = match mode {
        GateMode::TextEdit => ("gate_text_edit", json!(["YES", "NO"])),
        GateMode::Rewrite => ("gate_rewrite", json!(["COVERED", "NOT_COVERED"])),
    };
    schema(
        name,
        object(json!({
            "cluster_id": {"type": "string"},
            "verdict": {"type": "string", "enum": verdicts},
            "reason": {"type": ["string", "null"]},
        })),
    )
}

/// eval_grade.md.j2: `{"assertions": [{"text","passed","evidence"}], "expected_output_met",
/// "reason"}`.
pub fn eval_grade() -> Schema {
    let assertion = object(json!({
        "text": {"type": "string"},
        "passed": {"type": "boolean"},
        "evidence": {"type": "string"},
    }));
    schema(
        "eval_grade",
        object(json!({
            "assertions": {"type": "array", "items": assertion},
            "expected_output_met": {"type": "boolean"},
            "reason": {"type": "string"},
        })),
    )
}

/// Every schema: the tests hold each to strict mode and to the `jsonschema` crate.
pub fn all() -> Vec<Schema> {
    vec![
        triage(),
        reflect(),
        gate(GateMode::TextEdit),
        gate(GateMode::Rewrite),
        eval_grade(),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::contracts::{GateAnswer, Reflection, TriageAnswer};
    use super::*;
    use crate::llm::schema::{check, strip_nulls};

    /// Strict mode's rules: closed objects, every field required, names OpenAI accepts.
    #[test]
    fn every_schema_is_strict_mode_shaped() {
        fn walk(v: &Value, at: &str) {
            if v.get("type")
                .is_some_and(|t| t == "object" || t == &json!(["object", "null"]))
            {
                assert_eq!(v["additionalProperties"], json!(false), "{at}");
                let props: Vec<&String> = v["properties"].as_object().unwrap().keys().collect();
                let required: Vec<&str> = v["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap())
                    .collect();
                assert_eq!(props.len(), required.len(), "{at}");
                for (name, sub) in v["properties"].as_object().unwrap() {
                    walk(sub, &format!("{at}.{name}"));
                }
            }
            if let Some(items) = v.get("items") {
                walk(items, &format!("{at}[]"));
            }
            for key in ["maxLength", "minLength", "pattern", "minimum"] {
                assert!(v.get(key).is_none(), "{at}: {key} is not sent");
            }
        }
        for s in all() {
            assert!(s
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'));
            walk(&s.schema, &s.name);
        }
    }

    /// What the templates' own examples say passes the schema and then the contract types,
    /// in the shape they are documented (optional fields left out) and in strict mode's
    /// (every field present, `null` where unused).
    #[test]
    fn documented_answers_pass_and_become_the_contract_types() {
        let triage = json!({"clusters": [{"cluster_id": "c_001", "root_cause": "labels", "signal_ids": ["s1"], "type": "corrected", "count": 1}], "conflicts": [], "stale_signals": [], "priority_order": ["s1"]});
        check(&super::triage().schema, &triage).unwrap();
        let short = json!({"clusters": [{"cluster_id": "c_001", "root_cause": "labels", "signal_ids": ["s1"], "type": "friction", "count": 1}]});
        check(&super::triage().schema, &short).unwrap();
        let strict = json!({"clusters": triage["clusters"], "conflicts": null, "stale_signals": null, "priority_order": null});
        check(&super::triage().schema, &strict).unwrap();
        let mut v = strict.clone();
        strip_nulls(&mut v);
        serde_json::from_value::<TriageAnswer>(v).unwrap();

        let mode1 = json!({"diagnosis": "d", "edits": [{"type": "replace", "target": "a", "new": "b", "reason": "r", "source_cluster_id": "c_001"}]});
        let mode1_strict = json!({"diagnosis": "d", "rewrite_mode": false, "edits": mode1["edits"], "rewrite_content": null, "reason": null});
        let mode2 = json!({"diagnosis": "d", "rewrite_mode": true, "rewrite_content": "---\nname: x\n---\n", "reason": "r"});
        let mode2_strict = json!({"diagnosis": "d", "rewrite_mode": true, "edits": null, "rewrite_content": "c", "reason": "r"});
        for v in [mode1, mode1_strict, mode2, mode2_strict] {
            check(&reflect().schema, &v).unwrap();
            let mut v = v;
            strip_nulls(&mut v);
            serde_json::from_value::<Reflection>(v).unwrap();
        }

        let gate_answer = json!({"cluster_id": "c_001", "verdict": "NO", "reason": null});
        check(&gate(GateMode::TextEdit).schema, &gate_answer).unwrap();
        assert!(check(&gate(GateMode::Rewrite).schema, &gate_answer).is_err());
        let mut v = gate_answer;
        strip_nulls(&mut v);
        serde_json::from_value::<GateAnswer>(v).unwrap();
    }

    #[test]
    fn answers_that_break_a_schema_say_where() {
        let e = check(
            &super::triage().schema,
            &json!({"clusters": [{"cluster_id": "c", "root_cause": "r", "signal_ids": [], "type": "corrected", "count": 0}]}),
        )
        .unwrap_err();
        assert!(
            e.contains("`clusters[0].signal_ids` needs at least 1"),
            "{e}"
        );
        let e = check(
            &reflect().schema,
            &json!({"diagnosis": "d", "edits": [{"type": "move", "target": "a", "new": "b", "reason": "r", "source_cluster_id": "c"}]}),
        )
        .unwrap_err();
        assert!(e.contains("`edits[0].type` must be one of"), "{e}");
        let e = check(
            &gate(GateMode::Rewrite).schema,
            &json!({"cluster_id": "c", "verdict": "NO"}),
        )
        .unwrap_err();
        assert!(e.contains("\"COVERED\", \"NOT_COVERED\""), "{e}");
    }

    /// The local checker agrees with the `jsonschema` crate on every schema: on the
    /// documented answers and on each of them with one field broken. (Absent nullable fields
    /// are given as `null` to the reference, which reads `required` literally.)
    #[test]
    fn the_local_checker_agrees_with_jsonschema() {
        let samples = [
            (
                super::triage(),
                json!({"clusters": [{"cluster_id": "c_001", "root_cause": "r", "signal_ids": ["s1"], "type": "corrected", "count": 1}], "conflicts": [{"signal_a": "s1", "signal_b": "s2", "reason": "r"}], "stale_signals": [], "priority_order": ["s1"]}),
            ),
            (
                reflect(),
                json!({"diagnosis": "d", "rewrite_mode": false, "edits": [{"type": "add", "target": "a", "new": "b", "reason": "r", "source_cluster_id": "c"}], "rewrite_content": null, "reason": null}),
            ),
            (
                gate(GateMode::TextEdit),
                json!({"cluster_id": "c", "verdict": "YES", "reason": "r"}),
            ),
            (
                gate(GateMode::Rewrite),
                json!({"cluster_id": "c", "verdict": "COVERED", "reason": "r"}),
            ),
        ];
        let breakages = [
            json!(null),
            json!(7),
            json!("text"),
            json!([]),
            json!({}),
            json!([{}]),
            json!(true),
            json!(1.5),
        ];
        for (schema, sample) in samples {
            let reference = jsonschema::validator_for(&schema.schema).unwrap();
            assert!(reference.is_valid(&sample), "{}", schema.name);
            assert_eq!(check(&schema.schema, &sample), Ok(()), "{}", schema.name);
            let mut variants = vec![json!([]), json!({"unexpected": 1})];
            let mut paths = Vec::new();
            collect_paths(&sample, &mut Vec::new(), &mut paths);
            for path in &paths {
                for b in &breakages {
                    let mut v = sample.clone();
                    *pointer(&mut v, path) = b.clone();
                    variants.push(v);
                }
                let (last, parent) = path.split_last().unwrap();
                let mut removed = sample.clone();
                if let Value::Object(map) = pointer(&mut removed, parent) {
                    map.remove(last);
                }
                let mut extra = removed.clone();
                if let Value::Object(map) = pointer(&mut extra, parent) {
                    map.insert("extra".into(), json!(1));
                }
                variants.push(removed);
                variants.push(extra);
            }
            for v in variants {
                let ours = check(&schema.schema, &v).is_ok();
                let mut filled = v.clone();
                fill_nullable(&schema.schema, &mut filled);
                assert_eq!(ours, reference.is_valid(&filled), "{}: {v}", schema.name);
            }
        }
    }

    fn collect_paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        if let Value::Object(map) = v {
            for (k, sub) in map {
                at.push(k.clone());
                out.push(at.clone());
                collect_paths(sub, at, out);
                at.pop();
            }
        }
        if let Value::Array(items) = v {
            if let Some(first) = items.first() {
                at.push("0".into());
                collect_paths(first, at, out);
                at.pop();
            }
        }
    }

    fn pointer<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
        path.iter().fold(v, |v, k| match v {
            Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
            other => &mut other[k.as_str()],
        })
    }

    /// Absent fields whose schema allows `null` set to `null`, as strict mode sends them.
    fn fill_nullable(schema: &Value, v: &mut Value) {
        if let (Some(props), Value::Object(map)) = (schema["properties"].as_object(), &mut *v) {
            for (name, sub) in props {
                let nullable = sub["type"]
                    .as_array()
                    .is_some_and(|t| t.contains(&json!("null")));
                if nullable && !map.contains_key(name) {
                    map.insert(name.clone(), Value::Null);
                }
                if let Some(field) = map.get_mut(name) {
                    fill_nullable(sub, field);
                }
            }
        }
        if let (Some(items), Value::Array(list)) = (schema.get("items"), v) {
            for item in list {
                fill_nullable(items, item);
            }
        }
    }
}
