//! The signal record, exactly as `skill-optimizer.md` defines it, validated on write. Fields
//! this version does not know are kept, so that rewriting a file loses nothing.

use serde::{Deserialize, Serialize};

/// Why a signal was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignalType {
    /// The user corrected the agent: `correction` says what to do instead.
    Corrected,
    /// The agent hit friction (repeated an operation, guessed a step, was too slow):
    /// `friction_detail` says where.
    Friction,
}

impl SignalType {
    pub const ALL: [SignalType; 2] = [SignalType::Corrected, SignalType::Friction];

    /// The type named `name` (`corrected`, `friction`).
    pub fn from_name(name: &str) -> Option<SignalType> {
        SignalType::ALL.into_iter().find(|t| t.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SignalType::Corrected => "corrected",
            SignalType::Friction => "friction",
        }
    }
}

/// The conversation around the signal.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SignalContext {
    #[serde(default)]
    pub user_intent: String,
    #[serde(default)]
    pub problem_turn: String,
    #[serde(default)]
    pub user_correction: String,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// One signal, one line of `signal.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    /// `{timestamp}_{skill}_{shorthash}`.
    pub signal_id: String,
    pub skill: String,
    #[serde(rename = "type")]
    pub kind: SignalType,
    /// The task, in a sentence.
    pub scenario: String,
    /// What the agent should do instead (required for `corrected`).
    #[serde(default)]
    pub correction: String,
    /// What was unclear and how the agent got around it (required for `friction`).
    #[serde(default)]
    pub friction_detail: String,
    #[serde(default)]
    pub context: SignalContext,
    /// sha256 of SKILL.md when the signal was recorded.
    pub skill_version_hash: String,
    /// RFC 3339, UTC.
    pub timestamp: String,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Why a signal is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    #[error("'{0}' is empty")]
    Empty(&'static str),
    #[error("a corrected signal needs a correction")]
    NoCorrection,
    #[error("a friction signal needs a friction detail")]
    NoFrictionDetail,
    #[error("timestamp '{0}' is not RFC 3339")]
    Timestamp(String),
    #[error("skill_version_hash '{0}' is not a sha256 in hex")]
    Hash(String),
}

impl Signal {
    /// The signal with a secret in any of its texts masked, its id kept (the id is how the
    /// store finds it again): for a line `record` never saw, written into the store by hand.
    pub fn masked(&self) -> Signal {
        let mut value = serde_json::to_value(self).expect("a signal serialises");
        if crate::redact::redact_value(&mut value) == 0 {
            return self.clone();
        }
        match serde_json::from_value::<Signal>(value) {
            Ok(mut masked) => {
                masked.signal_id.clone_from(&self.signal_id);
                masked
            }
            // A field whose mask no longer parses (a date): mask the texts one by one.
            Err(_) => {
                let mut masked = self.clone();
                for text in [
                    &mut masked.scenario,
                    &mut masked.correction,
                    &mut masked.friction_detail,
                ] {
                    *text = crate::redact::redact(text);
                }
                masked
            }
        }
    }

    /// Checks what the schema promises readers.
    pub fn validate(&self) -> Result<(), Invalid> {
        for (name, value) in [
            ("signal_id", &self.signal_id),
            ("skill", &self.skill),
            ("scenario", &self.scenario),
        ] {
            if value.trim().is_empty() {
                return Err(Invalid::Empty(name));
            }
        }
        match self.kind {
            SignalType::Corrected if self.correction.trim().is_empty() => {
                return Err(Invalid::NoCorrection)
            }
            SignalType::Friction if self.friction_detail.trim().is_empty() => {
                return Err(Invalid::NoFrictionDetail)
            }
            _ => {}
        }
        if chrono::DateTime::parse_from_rfc3339(&self.timestamp).is_err() {
            return Err(Invalid::Timestamp(self.timestamp.clone()));
        }
        let hex = self.skill_version_hash.len() == 64
            && self
                .skill_version_hash
                .bytes()
                .all(|b| b.is_ascii_hexdigit());
        if !hex {
            return Err(Invalid::Hash(self.skill_version_hash.clone()));
        }
        Ok(())
    }

    /// When it was recorded, if the timestamp parses.
    pub fn time(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        chrono::DateTime::parse_from_rfc3339(&self.timestamp)
            .ok()
            .map(|t| t.with_timezone(&chrono::Utc))
    }
}

/// `{timestamp}_{skill}_{shorthash}`: the compact UTC time, the skill, and 8 hex digits of the
/// sha256 of the signal's content, so that two signals recorded in the same second differ.
pub fn signal_id(time: chrono::DateTime<chrono::Utc>, skill: &str, content: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{time:?}\n{skill}\n{content}").as_bytes());
    let short: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!(
        "{}_{}_{short}",
        time.format("%Y%m%dT%H%M%SZ"),
        id_safe(skill)
    )
}

/// The skill's name as it appears in ids: ASCII letters, digits, `.` and `-`, anything else
/// as `-`, so that an id is one printable word whatever the directory is called.
///
/// A name that holds a secret (a folder named like a token) appears masked, as everywhere else.
pub fn id_safe(skill: &str) -> String {
    crate::redact::redact(skill)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Signal {
        Signal {
            signal_id: "20261130T090000Z_pdf_0a1b2c3d".into(),
            skill: "pdf".into(),
            kind: SignalType::Corrected,
            scenario: "fill a PDF form".into(),
            correction: "use the field names from the form, not the labels".into(),
            friction_detail: String::new(),
            context: SignalContext::default(),
            skill_version_hash: "a".repeat(64),
            timestamp: "2026-11-30T09:00:00Z".into(),
            extra: Default::default(),
        }
    }

    #[test]
    fn the_seed_schema_round_trips_with_unknown_fields_kept() {
        let line = r#"{"signal_id":"x_pdf_00000000","skill":"pdf","type":"friction","scenario":"s","correction":"","friction_detail":"guessed the step","context":{"user_intent":"i","problem_turn":"p","user_correction":"c","mood":"tired"},"skill_version_hash":"AAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaa","timestamp":"2026-11-30T09:00:00+01:00","agent":"codex"}"#;
        let signal: Signal = serde_json::from_str(line).unwrap();
        assert_eq!(signal.kind, SignalType::Friction);
        assert_eq!(signal.extra["agent"], "codex");
        assert_eq!(signal.context.extra["mood"], "tired");
        signal.validate().unwrap();
        let again: serde_json::Value = serde_json::to_value(&signal).unwrap();
        let original: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(again, original);
    }

    #[test]
    fn validation_refuses_what_the_schema_forbids() {
        let mut s = sample();
        s.correction = " ".into();
        assert_eq!(s.validate(), Err(Invalid::NoCorrection));
        let mut s = sample();
        s.kind = SignalType::Friction;
        assert_eq!(s.validate(), Err(Invalid::NoFrictionDetail));
        let mut s = sample();
        s.scenario = String::new();
        assert_eq!(s.validate(), Err(Invalid::Empty("scenario")));
        let mut s = sample();
        s.timestamp = "yesterday".into();
        assert!(matches!(s.validate(), Err(Invalid::Timestamp(_))));
        let mut s = sample();
        s.skill_version_hash = "abc".into();
        assert!(matches!(s.validate(), Err(Invalid::Hash(_))));
        assert_eq!(sample().validate(), Ok(()));
    }

    #[test]
    fn ids_follow_the_seed_and_differ_by_content() {
        let t = chrono::DateTime::parse_from_rfc3339("2026-11-30T09:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let a = signal_id(t, "pdf", "one");
        let b = signal_id(t, "pdf", "two");
        assert!(a.starts_with("20261130T090000Z_pdf_"), "{a}");
        assert_eq!(a.len(), "20261130T090000Z_pdf_".len() + 8);
        assert_ne!(a, b);
    }
}
