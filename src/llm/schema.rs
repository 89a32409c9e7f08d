//! Checks a model's JSON against the schema the request carried, so that a server that
//! ignores `response_format` (or a command that never saw it) cannot slip malformed data
//! past the pipeline. Only the keywords git-skill's own schemas use are understood
//! (`type`, `properties`, `required`, `additionalProperties: false`, `enum`, `items`,
//! `minItems`, `maxItems`, `minLength`, `maxLength`, `minimum`, `description`); a schema with
//! any other keyword is refused rather than half-checked. Two departures from the standard,
//! on purpose: a required field whose type allows `null` may be absent, and an enum string
//! may differ in ASCII case or a space for an underscore (the contracts take `yes` and
//! `NOT COVERED`, as the models write them). The crate's tests
//! hold this checker to the `jsonschema` crate on every schema git-skill sends.

use serde_json::Value;

/// How deep a value is followed: deeper answers are refused, not walked.
const MAX_DEPTH: usize = 64;

/// `Ok` when `value` follows `schema`; otherwise the first problem, naming where it is
/// (`clusters[0].count`), in a sentence fit to quote back to the model.
pub fn check(schema: &Value, value: &Value) -> Result<(), String> {
    check_at(schema, value, &mut String::new(), 0)
}

fn check_at(schema: &Value, value: &Value, path: &mut String, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("{} is nested too deeply", place(path)));
    }
    let Some(keywords) = schema.as_object() else {
        return Err(format!(
            "the schema at {} is not an object (git-skill's own error)",
            place(path)
        ));
    };
    for key in keywords.keys() {
        if !KNOWN.contains(&key.as_str()) {
            return Err(format!(
                "the schema at {} uses `{key}`, which git-skill does not check (its own error)",
                place(path)
            ));
        }
    }
    if let Some(types) = keywords.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.iter().any(|t| is_type(value, t)) {
            return Err(format!(
                "{} must be {}, not {}",
                place(path),
                allowed.join(" or "),
                type_name(value)
            ));
        }
    }
    if let Some(Value::Array(options)) = keywords.get("enum") {
        if !options.contains(value) && !options.iter().any(|o| loosely_equal(o, value)) {
            let list: Vec<String> = options.iter().map(Value::to_string).collect();
            return Err(format!(
                "{} must be one of {}",
                place(path),
                list.join(", ")
            ));
        }
    }
    match value {
        Value::Object(fields) => {
            let properties = keywords.get("properties").and_then(Value::as_object);
            if let Some(Value::Array(required)) = keywords.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    let nullable = properties
                        .and_then(|p| p.get(name))
                        .is_some_and(allows_null);
                    if !fields.contains_key(name) && !nullable {
                        return Err(format!("{} has no `{name}`", place(path)));
                    }
                }
            }
            let closed = keywords.get("additionalProperties") == Some(&Value::Bool(false));
            for (name, field) in fields {
                match properties.and_then(|p| p.get(name)) {
                    Some(sub) => {
                        let len = path.len();
                        push_field(path, name);
                        check_at(sub, field, path, depth + 1)?;
                        path.truncate(len);
                    }
                    None if closed => {
                        return Err(format!(
                            "{} has `{}`, which is not one of its fields",
                            place(path),
                            crate::report::one_line(name, 40)
                        ))
                    }
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            let count = |key: &str| keywords.get(key).and_then(Value::as_u64);
            if let Some(min) = count("minItems") {
                if (items.len() as u64) < min {
                    return Err(format!("{} needs at least {min} items", place(path)));
                }
            }
            if let Some(max) = count("maxItems") {
                if items.len() as u64 > max {
                    return Err(format!("{} may hold at most {max} items", place(path)));
                }
            }
            if let Some(sub) = keywords.get("items") {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    check_at(sub, item, path, depth + 1)?;
                    path.truncate(len);
                }
            }
        }
        Value::String(s) => {
            let chars = s.chars().count() as u64;
            if let Some(min) = keywords.get("minLength").and_then(Value::as_u64) {
                if chars < min {
                    return Err(format!("{} is shorter than {min} characters", place(path)));
                }
            }
            if let Some(max) = keywords.get("maxLength").and_then(Value::as_u64) {
                if chars > max {
                    return Err(format!("{} is longer than {max} characters", place(path)));
                }
            }
        }
        Value::Number(n) => {
            if let (Some(min), Some(x)) =
                (keywords.get("minimum").and_then(Value::as_f64), n.as_f64())
            {
                if x < min {
                    return Err(format!("{} must be at least {min}", place(path)));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

const KNOWN: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minimum",
    "description",
];

/// Two enum strings that differ only in ASCII case or a space for an underscore (`yes`,
/// `Not covered`): what the contracts' serde aliases accept, not worth a repair request.
fn loosely_equal(option: &Value, value: &Value) -> bool {
    let norm = |s: &str| s.to_ascii_uppercase().replace(' ', "_");
    match (option, value) {
        (Value::String(o), Value::String(v)) => norm(o) == norm(v),
        _ => false,
    }
}

/// A field whose type allows `null` may be left out: absent and `null` mean the same to
/// git-skill ([`strip_nulls`]), and answers shaped as the templates describe them leave
/// such fields out.
fn allows_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    }
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        // JSON Schema counts 1.0 as an integer.
        "integer" => {
            value.as_i64().is_some()
                || value.as_u64().is_some()
                || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Number(_) => "a number",
    }
}

fn push_field(path: &mut String, name: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(&crate::report::one_line(name, 40));
}

fn place(path: &str) -> String {
    if path.is_empty() {
        "the answer".to_owned()
    } else {
        format!("`{path}`")
    }
}

/// `value` without the object fields whose value is `null`, at any depth: a model answering
/// a schema whose optional fields are nullable (as OpenAI's strict mode wants them) writes
/// `null` where serde expects the field to be absent.
/// Takes out the fields of `value` that a closed object of `schema` does not name (a
/// free-text model's `diagnosis` beside the contract's fields), and returns where they were
/// (`clusters[0].note`). Strict-schema servers never add one; other models often do, and the
/// answer is still whole without them.
pub fn strip_extras(schema: &Value, value: &mut Value) -> Vec<String> {
    let mut out = Vec::new();
    strip_at(schema, value, &mut String::new(), 0, &mut out);
    out
}

fn strip_at(
    schema: &Value,
    value: &mut Value,
    path: &mut String,
    depth: usize,
    out: &mut Vec<String>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(keywords) = schema.as_object() else {
        return;
    };
    match value {
        Value::Object(fields) => {
            let properties = keywords.get("properties").and_then(Value::as_object);
            if keywords.get("additionalProperties") == Some(&Value::Bool(false)) {
                let known = |name: &String| properties.is_some_and(|p| p.contains_key(name));
                let extra: Vec<String> = fields.keys().filter(|k| !known(k)).cloned().collect();
                for name in extra {
                    fields.remove(&name);
                    let len = path.len();
                    push_field(path, &name);
                    out.push(crate::report::one_line(path, 80));
                    path.truncate(len);
                }
            }
            for (name, field) in fields.iter_mut() {
                if let Some(sub) = properties.and_then(|p| p.get(name)) {
                    let len = path.len();
                    push_field(path, name);
                    strip_at(sub, field, path, depth + 1, out);
                    path.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = keywords.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    strip_at(sub, item, path, depth + 1, out);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
}

pub fn strip_nulls(value: &mut Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(fields) => {
                fields.retain(|_, f| !f.is_null());
                stack.extend(fields.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_the_contract_does_not_have_are_taken_out_and_named() {
        let schema = json!({
            "type": "object", "additionalProperties": false, "required": ["edits"],
            "properties": {"edits": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["new"],
                "properties": {"new": {"type": "string"}}}}}
        });
        let mut value = json!({"diagnosis": "why", "edits": [{"new": "x", "note": "漢字"}]});
        let extras = strip_extras(&schema, &mut value);
        assert_eq!(extras, ["diagnosis", "edits[0].note"]);
        assert_eq!(value, json!({"edits": [{"new": "x"}]}));
        assert!(check(&schema, &value).is_ok());
        // An open object keeps what it has.
        let open = json!({"type": "object", "properties": {}});
        let mut v = json!({"a": 1});
        assert!(strip_extras(&open, &mut v).is_empty());
        assert_eq!(v, json!({"a": 1}));
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["id", "items", "mode"],
            "properties": {
                "id": {"type": "string", "minLength": 1, "maxLength": 8},
                "count": {"type": "integer", "minimum": 0},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "note": {"type": ["string", "null"]},
                "items": {"type": "array", "minItems": 1, "maxItems": 2, "items": {
                    "type": "object", "additionalProperties": false, "required": ["x"],
                    "properties": {"x": {"type": "boolean"}}
                }}
            }
        })
    }

    #[test]
    fn what_the_schema_allows_passes_and_each_breach_is_named() {
        let s = schema();
        let ok =
            json!({"id": "c_1", "count": 2, "mode": "a", "note": null, "items": [{"x": true}]});
        assert_eq!(check(&s, &ok), Ok(()));
        let loose = json!({"id": "c_1", "mode": "A", "items": [{"x": true}]});
        assert_eq!(check(&s, &loose), Ok(()), "case differs only");
        let cases = [
            (json!([]), "the answer must be object, not an array"),
            (
                json!({"items": [{"x": true}], "mode": "a"}),
                "the answer has no `id`",
            ),
            (
                json!({"id": "", "items": [{"x": true}], "mode": "a"}),
                "`id` is shorter than 1",
            ),
            (
                json!({"id": "123456789", "items": [{"x": true}], "mode": "a"}),
                "`id` is longer than 8",
            ),
            (
                json!({"id": "a", "items": [{"x": true}], "mode": "c"}),
                "`mode` must be one of \"a\", \"b\"",
            ),
            (
                json!({"id": "a", "items": [{"x": true}], "mode": "a b"}),
                "`mode` must be one of",
            ),
            (
                json!({"id": "a", "items": [], "mode": "a"}),
                "`items` needs at least 1",
            ),
            (
                json!({"id": "a", "items": [{"x": true}, {"x": true}, {"x": true}], "mode": "a"}),
                "`items` may hold at most 2",
            ),
            (
                json!({"id": "a", "items": [{"x": 1}], "mode": "a"}),
                "`items[0].x` must be boolean, not a number",
            ),
            (
                json!({"id": "a", "items": [{"x": true, "y": 1}], "mode": "a"}),
                "`items[0]` has `y`",
            ),
            (
                json!({"id": "a", "count": 1.5, "items": [{"x": true}], "mode": "a"}),
                "`count` must be integer",
            ),
            (
                json!({"id": "a", "count": -1, "items": [{"x": true}], "mode": "a"}),
                "`count` must be at least 0",
            ),
            (
                json!({"id": "a", "note": 3, "items": [{"x": true}], "mode": "a"}),
                "`note` must be string or null",
            ),
        ];
        for (value, expected) in cases {
            let e = check(&s, &value).unwrap_err();
            assert!(e.contains(expected), "{value}: {e}");
        }
    }

    #[test]
    fn an_unknown_keyword_is_refused_not_skipped() {
        let s = json!({"type": "string", "pattern": "^a$"});
        let e = check(&s, &json!("b")).unwrap_err();
        assert!(e.contains("`pattern`"), "{e}");
    }

    #[test]
    fn hostile_values_are_bounded() {
        let s = json!({"type": "array", "items": {"type": "array", "items": {}}});
        let mut deep = json!(1);
        for _ in 0..200 {
            deep = json!([deep]);
        }
        let e = check(&json!({"type": "array", "items": {"type": "array"}}), &deep);
        assert!(e.is_ok(), "only the levels the schema describes are walked");
        let nested_schema = {
            let mut s = json!({});
            for _ in 0..100 {
                s = json!({"type": "array", "items": s});
            }
            s
        };
        let e = check(&nested_schema, &deep).unwrap_err();
        assert!(e.contains("nested too deeply"), "{e}");
        let long = Value::String("x".repeat(1 << 20));
        assert!(check(&s, &long).unwrap_err().contains("must be array"));
    }

    #[test]
    fn nulls_are_stripped_at_every_depth() {
        let mut v = json!({"a": null, "b": {"c": null, "d": 1}, "e": [{"f": null}], "g": [null]});
        strip_nulls(&mut v);
        assert_eq!(v, json!({"b": {"d": 1}, "e": [{}], "g": [null]}));
    }
}
