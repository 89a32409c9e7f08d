//! Turning what an agent or a person hands `git skill record` into signals: one JSON object,
//! JSON lines, or an array of objects, with the fields git-skill fills (`signal_id`,
//! `skill_version_hash`, `timestamp`, `skill`) left out. Credentials in any text are
//! redacted before anything is stored: signals are committed with the skill.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value};

use super::schema::{signal_id, Signal};
use super::store::MAX_LINE_BYTES;

/// How many signals one `record` call takes.
pub const MAX_SIGNALS: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("no signal given (expected a JSON object, JSON lines, or an array of objects)")]
    Empty,
    #[error("line {line}, column {column}: not JSON: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("signal {index} (line {line}) is not a JSON object")]
    NotAnObject { index: usize, line: usize },
    #[error("more than {MAX_SIGNALS} signals in one call")]
    TooMany,
    #[error("signal {index}: {message}")]
    Field { index: usize, message: String },
}

/// A signal as given, before git-skill completes it, with the line it started on.
#[derive(Debug, Clone, PartialEq)]
pub struct Given {
    pub line: usize,
    pub fields: Map<String, Value>,
}

/// Reads one JSON object (on any number of lines), JSON lines, or one array of objects.
pub fn parse(text: &str) -> Result<Vec<Given>, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    // Lines counted so far, up to `counted` (bytes): each byte is counted once.
    let (mut line, mut counted) = (1, 0);
    loop {
        let start = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(value)) => {
                // The line of the value's first byte, not of the whitespace before it.
                let skipped = text[start..].len() - text[start..].trim_start().len();
                let first = start + skipped;
                line += bytecount(&text.as_bytes()[counted..first]);
                counted = first;
                values.push((line, value));
                if values.len() > MAX_SIGNALS {
                    return Err(InputError::TooMany);
                }
            }
            Some(Err(e)) => {
                return Err(InputError::Syntax {
                    line: e.line(),
                    column: e.column(),
                    message: strip_position(&e.to_string()),
                })
            }
        }
    }
    // One array stands for its elements, all on the array's lines.
    if let [(line, Value::Array(items))] = values.as_mut_slice() {
        let line = *line;
        values = std::mem::take(items)
            .into_iter()
            .map(|v| (line, v))
            .collect();
        if values.len() > MAX_SIGNALS {
            return Err(InputError::TooMany);
        }
    }
    if values.is_empty() {
        return Err(InputError::Empty);
    }
    values
        .into_iter()
        .enumerate()
        .map(|(i, (line, value))| match value {
            Value::Object(fields) => Ok(Given { line, fields }),
            _ => Err(InputError::NotAnObject { index: i + 1, line }),
        })
        .collect()
}

fn bytecount(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// serde_json ends its messages with " at line L column C", which the error says already.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// What `record` knows about the skill and the moment.
#[derive(Debug, Clone)]
pub struct Stamp<'a> {
    pub skill: &'a str,
    /// sha256 (hex) of the skill's SKILL.md now.
    pub skill_hash: &'a str,
    pub now: DateTime<Utc>,
    /// Mixed into ids so that two processes recording the same text in the same second
    /// still get distinct ids.
    pub nonce: u64,
}

/// The outcome of [`complete`]: the signal, and how many credentials were masked in it.
#[derive(Debug)]
pub struct Completed {
    pub signal: Signal,
    pub redacted: usize,
}

/// Fills what the caller left out, redacts credentials, and validates. `index` is 1-based,
/// for messages. A `skill` field naming another skill is refused; a given `timestamp` or
/// `skill_version_hash` is kept (it must be valid), so that a signal can be recorded late.
pub fn complete(
    mut fields: Map<String, Value>,
    index: usize,
    stamp: &Stamp<'_>,
) -> Result<Completed, InputError> {
    let field = |message: String| InputError::Field { index, message };
    // Agents send `null` for what they do not know: the same as leaving it out.
    fields.retain(|_, v| !v.is_null());
    if let Some(Value::Object(context)) = fields.get_mut("context") {
        context.retain(|_, v| !v.is_null());
    }
    match fields.get("skill") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s == stamp.skill => {}
        Some(other) => {
            return Err(field(format!(
                "names skill {}, but it is being recorded for '{}'",
                crate::redact::redact(&crate::report::one_line(&other.to_string(), 80)),
                stamp.skill
            )))
        }
    }
    if let Some(id) = fields.get("signal_id") {
        let ok = id.as_str().is_some_and(|id| is_signal_id(id, stamp.skill));
        if !ok {
            return Err(field(format!(
                "signal_id {} is not of the form {{YYYYMMDDTHHMMSSZ}}_{}_{{8 hex digits}}; leave it out and git-skill makes one",
                crate::redact::redact(&crate::report::one_line(&id.to_string(), 80)),
                id_skill(stamp.skill)
            )));
        }
    }
    // Every text, keys included; a masked time or hash then fails validation below.
    let mut whole = Value::Object(std::mem::take(&mut fields));
    let redacted = crate::redact::redact_value(&mut whole);
    if let Value::Object(map) = whole {
        fields = map;
    }
    fields.insert("skill".into(), stamp.skill.into());
    if matches!(fields.get("timestamp"), None | Some(Value::Null)) {
        let now = stamp.now.to_rfc3339_opts(SecondsFormat::Secs, true);
        fields.insert("timestamp".into(), now.into());
    }
    if matches!(fields.get("skill_version_hash"), None | Some(Value::Null)) {
        fields.insert("skill_version_hash".into(), stamp.skill_hash.into());
    }
    if matches!(fields.get("signal_id"), None | Some(Value::Null)) {
        let content = serde_json::to_string(&fields).expect("a JSON map serialises");
        let time = fields
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map_or(stamp.now, |t| t.with_timezone(&Utc));
        let content = format!("{content}\n{}\n{index}", stamp.nonce);
        fields.insert(
            "signal_id".into(),
            signal_id(time, stamp.skill, &content).into(),
        );
    }
    let signal: Signal = serde_json::from_value(Value::Object(fields))
        .map_err(|e| field(crate::redact::redact(&strip_position(&e.to_string()))))?;
    signal
        .validate()
        .map_err(|e| field(crate::redact::redact(&e.to_string())))?;
    // A signal from the future would sort first and never age out of the selection window.
    if let Some(time) = signal.time() {
        if time > stamp.now + chrono::Duration::days(1) {
            return Err(field(format!(
                "timestamp {} is more than a day after now ({}); leave it out and git-skill fills in the time",
                signal.timestamp,
                stamp.now.to_rfc3339_opts(SecondsFormat::Secs, true)
            )));
        }
    }
    let size = serde_json::to_vec(&signal).map_or(usize::MAX, |v| v.len());
    if size >= MAX_LINE_BYTES {
        return Err(field(format!(
            "{size} bytes as a line; a signal must stay under {MAX_LINE_BYTES} bytes (shorten the context)"
        )));
    }
    Ok(Completed { signal, redacted })
}

/// Whether `id` has the form git-skill gives ids, for `skill`.
fn is_signal_id(id: &str, skill: &str) -> bool {
    let b = id.as_bytes();
    let prefix_ok = b.len() > 17
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'Z'
        && b[16] == b'_';
    if !prefix_ok {
        return false;
    }
    // The first 17 bytes are ASCII, so 17 is a character boundary.
    let Some(tail) = id[17..].strip_prefix(id_skill(skill).as_str()) else {
        return false;
    };
    let Some(hex) = tail.strip_prefix('_') else {
        return false;
    };
    hex.len() == 8 && hex.bytes().all(|c| c.is_ascii_hexdigit())
}

fn id_skill(skill: &str) -> String {
    super::schema::id_safe(skill)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::SignalType;

    fn stamp() -> Stamp<'static> {
        Stamp {
            skill: "pdf",
            skill_hash: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            now: DateTime::parse_from_rfc3339("2026-11-30T09:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
            nonce: 7,
        }
    }

    #[test]
    fn one_object_over_several_lines_jsonl_and_an_array() {
        let one = parse("\n  {\n \"type\": \"friction\"\n}\n").unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].line, 2);
        let lines = parse("{\"a\":1}\n{\"a\":2}\n\n{\"a\":3}").unwrap();
        assert_eq!(lines.iter().map(|g| g.line).collect::<Vec<_>>(), [1, 2, 4]);
        let array = parse("[{\"a\":1},{\"a\":2}]").unwrap();
        assert_eq!(array.len(), 2);
        let bom = parse("\u{feff}{\"a\":1}").unwrap();
        assert_eq!(bom.len(), 1);
    }

    #[test]
    fn malformed_input_is_refused_with_its_position() {
        assert_eq!(parse(""), Err(InputError::Empty));
        assert_eq!(parse("  \n\t"), Err(InputError::Empty));
        assert_eq!(parse("[]"), Err(InputError::Empty));
        let e = parse("{\"a\":1}\n{\"a\": tru}\n").unwrap_err();
        assert!(matches!(e, InputError::Syntax { line: 2, .. }), "{e:?}");
        assert!(!e.to_string().contains(" at line "), "{e}");
        let e = parse("{\"a\":1}\n{\"a\":").unwrap_err();
        assert!(matches!(e, InputError::Syntax { line: 2, .. }), "{e:?}");
        assert_eq!(
            parse("{\"a\":1}\n42\n"),
            Err(InputError::NotAnObject { index: 2, line: 2 })
        );
        assert_eq!(
            parse("[1]"),
            Err(InputError::NotAnObject { index: 1, line: 1 })
        );
        // Deep nesting stops at serde_json's recursion limit instead of overflowing the stack.
        let deep = "[".repeat(100_000);
        assert!(matches!(parse(&deep), Err(InputError::Syntax { .. })));
        let many = "{}\n".repeat(MAX_SIGNALS + 1);
        assert_eq!(parse(&many), Err(InputError::TooMany));
    }

    fn given(json: &str) -> Map<String, Value> {
        parse(json).unwrap().remove(0).fields
    }

    #[test]
    fn completion_fills_ids_hash_time_and_skill() {
        let c = complete(
            given(r#"{"type":"corrected","scenario":"fill a form","correction":"use field names","context":{"user_intent":"send the form"},"agent":"codex"}"#),
            1,
            &stamp(),
        )
        .unwrap();
        let s = c.signal;
        assert_eq!(s.kind, SignalType::Corrected);
        assert_eq!(s.skill, "pdf");
        assert_eq!(s.timestamp, "2026-11-30T09:00:00Z");
        assert_eq!(s.skill_version_hash, stamp().skill_hash);
        assert!(
            s.signal_id.starts_with("20261130T090000Z_pdf_"),
            "{}",
            s.signal_id
        );
        assert_eq!(s.context.user_intent, "send the form");
        assert_eq!(s.extra["agent"], "codex", "unknown fields are kept");
        assert_eq!(c.redacted, 0);
        // The same text as the second signal of a call gets another id.
        let again = complete(
            given(r#"{"type":"corrected","scenario":"fill a form","correction":"use field names","context":{"user_intent":"send the form"},"agent":"codex"}"#),
            2,
            &stamp(),
        )
        .unwrap();
        assert_ne!(again.signal.signal_id, s.signal_id);
    }

    #[test]
    fn given_times_and_hashes_are_kept_but_must_be_valid() {
        let c = complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"guessed","timestamp":"2026-11-01T10:00:00+02:00"}"#),
            1,
            &stamp(),
        )
        .unwrap();
        assert_eq!(c.signal.timestamp, "2026-11-01T10:00:00+02:00");
        assert!(c.signal.signal_id.starts_with("20261101T080000Z_pdf_"));
        let e = complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"f","timestamp":"last tuesday"}"#),
            3,
            &stamp(),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("signal 3: timestamp"), "{e}");
        let e = complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"f","timestamp":"9999-12-31T23:59:59Z"}"#),
            4,
            &stamp(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("more than a day after now"), "{e}");
        // Within a day ahead (a clock a little fast) is kept.
        complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"f","timestamp":"2026-11-30T20:00:00Z"}"#),
            5,
            &stamp(),
        )
        .unwrap();
        let e = complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"f","skill_version_hash":"xyz"}"#),
            1,
            &stamp(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("sha256"), "{e}");
    }

    #[test]
    fn what_the_schema_forbids_is_refused_with_the_reason() {
        let cases = [
            (
                r#"{"scenario":"s","correction":"c"}"#,
                "missing field `type`",
            ),
            (
                r#"{"type":"praise","scenario":"s"}"#,
                "unknown variant `praise`",
            ),
            (
                r#"{"type":"corrected","scenario":"s"}"#,
                "needs a correction",
            ),
            (
                r#"{"type":"friction","scenario":"s"}"#,
                "needs a friction detail",
            ),
            (
                r#"{"type":"corrected","scenario":" ","correction":"c"}"#,
                "'scenario' is empty",
            ),
            (
                r#"{"type":"corrected","scenario":"s","correction":3}"#,
                "invalid type",
            ),
            (
                r#"{"type":"corrected","scenario":"s","correction":"c","skill":"other"}"#,
                "names skill \"other\"",
            ),
            (
                r#"{"type":"corrected","scenario":"s","correction":"c","context":"flat"}"#,
                "invalid type",
            ),
        ];
        for (json, expected) in cases {
            let e = complete(given(json), 1, &stamp()).unwrap_err();
            assert!(e.to_string().contains(expected), "{json}: {e}");
        }
    }

    #[test]
    fn credentials_are_masked_before_storing() {
        let key = concat!("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        let json = format!(
            r#"{{"type":"corrected","scenario":"push","correction":"use the token {key}","context":{{"user_correction":"no, use {key}"}}}}"#
        );
        let c = complete(given(&json), 1, &stamp()).unwrap();
        let stored = serde_json::to_string(&c.signal).unwrap();
        assert!(!stored.contains(key), "{stored}");
        assert!(stored.contains("ghp_…[redacted]"), "{stored}");
        assert_eq!(c.redacted, 2);
    }

    #[test]
    fn nulls_count_as_absent() {
        let c = complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"d","correction":null,"context":null,"timestamp":null,"signal_id":null}"#),
            1,
            &stamp(),
        )
        .unwrap();
        assert_eq!(c.signal.correction, "");
        assert_eq!(c.signal.timestamp, "2026-11-30T09:00:00Z");
        let c = complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"d","context":{"user_intent":null,"problem_turn":"p"}}"#),
            1,
            &stamp(),
        )
        .unwrap();
        assert_eq!(c.signal.context.problem_turn, "p");
    }

    #[test]
    fn given_ids_must_have_the_form_git_skill_gives() {
        let ok = r#"{"type":"friction","scenario":"s","friction_detail":"d","signal_id":"20261130T090000Z_pdf_0a1b2c3d"}"#;
        assert_eq!(
            complete(given(ok), 1, &stamp()).unwrap().signal.signal_id,
            "20261130T090000Z_pdf_0a1b2c3d"
        );
        for id in [
            "x",
            "20261130T090000Z_other_0a1b2c3d",
            "20261130T090000Z_pdf_0a1b2c3",
            "20261130T090000Z_pdf_0a1b2c3g",
            "2026113XT090000Z_pdf_0a1b2c3d",
            "20261130T090000Z_pdf_0a1b2c3d\\n",
            "é0261130T090000Z_pdf_0a1b2c3d",
        ] {
            let json = format!(
                r#"{{"type":"friction","scenario":"s","friction_detail":"d","signal_id":"{id}"}}"#
            );
            let e = complete(given(&json), 1, &stamp()).unwrap_err();
            assert!(e.to_string().contains("is not of the form"), "{id}: {e}");
        }
        let e = complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"d","signal_id":3}"#),
            1,
            &stamp(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("signal_id 3"), "{e}");
    }

    #[test]
    fn credentials_in_keys_ids_and_errors_never_get_through() {
        let key = concat!("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        let json = format!(
            r#"{{"type":"friction","scenario":"s","friction_detail":"d","{key}":1,"context":{{"{key}":"x"}}}}"#
        );
        let c = complete(given(&json), 1, &stamp()).unwrap();
        let stored = serde_json::to_string(&c.signal).unwrap();
        assert!(!stored.contains(key), "{stored}");
        assert_eq!(c.redacted, 2);
        for json in [
            format!(
                r#"{{"type":"friction","scenario":"s","friction_detail":"d","signal_id":"id {key}"}}"#
            ),
            format!(
                r#"{{"type":"friction","scenario":"s","friction_detail":"d","skill":"{key}"}}"#
            ),
            format!(r#"{{"type":"{key}","scenario":"s"}}"#),
            format!(
                r#"{{"type":"friction","scenario":"s","friction_detail":"d","timestamp":"{key}"}}"#
            ),
            format!(
                r#"{{"type":"friction","scenario":"s","friction_detail":"d","skill_version_hash":"{key}"}}"#
            ),
        ] {
            let e = complete(given(&json), 1, &stamp()).unwrap_err();
            assert!(!e.to_string().contains(key), "{e}");
        }
    }

    #[test]
    fn ids_of_odd_directory_names_stay_one_printable_word() {
        let odd = Stamp {
            skill: "x\u{1b}[2J y\nz",
            ..stamp()
        };
        let c = complete(
            given(r#"{"type":"friction","scenario":"s","friction_detail":"d"}"#),
            1,
            &odd,
        )
        .unwrap();
        let id = &c.signal.signal_id;
        assert!(id.starts_with("20261130T090000Z_x--2J-y-z_"), "{id}");
        assert!(id.chars().all(|c| c.is_ascii_graphic()), "{id}");
    }

    #[test]
    fn line_numbers_stay_right_over_many_values() {
        let text = "{}\n".repeat(5000);
        let parsed = parse(&text).unwrap();
        assert_eq!(parsed[4999].line, 5000);
    }

    #[test]
    fn a_signal_too_big_for_one_line_is_refused() {
        let big = "x".repeat(MAX_LINE_BYTES);
        let json = format!(r#"{{"type":"friction","scenario":"s","friction_detail":"{big}"}}"#);
        let e = complete(given(&json), 1, &stamp()).unwrap_err();
        assert!(e.to_string().contains("shorten the context"), "{e}");
    }
}
