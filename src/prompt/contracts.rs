//! The JSON answers the templates ask for, as Rust types, and the checks an answer must pass
//! before the pipeline acts on it. Each `validate` error is a sentence fit to quote back to
//! the model in a repair request.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::signal::SignalType;

/// An answer that parses but breaks the contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ContractError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, ContractError> {
    Err(ContractError(message.into()))
}

// ---- triage.md.j2 ----

/// `{"clusters":[...],"conflicts":[...],"stale_signals":[...],"priority_order":[...]}`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TriageAnswer {
    pub clusters: Vec<Cluster>,
    #[serde(default)]
    pub conflicts: Vec<Conflict>,
    #[serde(default)]
    pub stale_signals: Vec<String>,
    #[serde(default)]
    pub priority_order: Vec<String>,
}

/// Signals with one root cause. Also what reflect and the gate receive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cluster {
    pub cluster_id: String,
    pub root_cause: String,
    pub signal_ids: Vec<String>,
    /// `corrected` when the cluster holds at least one corrected signal.
    #[serde(rename = "type")]
    pub kind: SignalType,
    pub count: usize,
}

/// Two signals that ask for contradictory changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    pub signal_a: String,
    pub signal_b: String,
    pub reason: String,
}

impl TriageAnswer {
    /// Every signal of `signal_ids` in exactly one cluster, no other id anywhere, unique
    /// non-empty cluster ids, `count` equal to the number of ids.
    pub fn validate(&self, signal_ids: &[String]) -> Result<(), ContractError> {
        let known: HashSet<&str> = signal_ids.iter().map(String::as_str).collect();
        let check_known = |id: &str, field: &str| {
            if known.contains(id) {
                Ok(())
            } else {
                fail(format!(
                    "{field} names '{id}', which is not one of the signal ids given"
                ))
            }
        };
        if self.clusters.is_empty() && !signal_ids.is_empty() {
            return fail("`clusters` is empty; every signal belongs to one cluster");
        }
        let mut cluster_ids = HashSet::new();
        let mut clustered = HashSet::new();
        for c in &self.clusters {
            if c.cluster_id.trim().is_empty() {
                return fail("a cluster has an empty `cluster_id`");
            }
            // Ids are quoted back to the gate and used in file names: short and plain.
            let plain = c.cluster_id.len() <= 64
                && c.cluster_id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !plain {
                return fail(format!(
                    "cluster id '{}' must be at most 64 letters, digits, '_' or '-' (like c_001)",
                    c.cluster_id.chars().take(80).collect::<String>()
                ));
            }
            if !cluster_ids.insert(c.cluster_id.as_str()) {
                return fail(format!("cluster id '{}' is used twice", c.cluster_id));
            }
            if c.signal_ids.is_empty() {
                return fail(format!("cluster '{}' has no signal_ids", c.cluster_id));
            }
            if c.count != c.signal_ids.len() {
                return fail(format!(
                    "cluster '{}' has count {} but {} signal_ids",
                    c.cluster_id,
                    c.count,
                    c.signal_ids.len()
                ));
            }
            for id in &c.signal_ids {
                check_known(id, &format!("cluster '{}'", c.cluster_id))?;
                if !clustered.insert(id.as_str()) {
                    return fail(format!("signal '{id}' is in more than one cluster"));
                }
            }
        }
        if let Some(missing) = signal_ids
            .iter()
            .find(|id| !clustered.contains(id.as_str()))
        {
            return fail(format!("signal '{missing}' is in no cluster"));
        }
        for c in &self.conflicts {
            check_known(&c.signal_a, "a conflict")?;
            check_known(&c.signal_b, "a conflict")?;
        }
        for id in &self.stale_signals {
            check_known(id, "`stale_signals`")?;
        }
        for id in &self.priority_order {
            check_known(id, "`priority_order`")?;
        }
        Ok(())
    }
}

// ---- reflect.md.j2 ----

/// MODE 1 `{"diagnosis","edits":[...]}` or MODE 2
/// `{"diagnosis","rewrite_mode":true,"rewrite_content","reason"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawReflection", into = "RawReflection")]
pub enum Reflection {
    Edits {
        diagnosis: String,
        edits: Vec<Edit>,
    },
    Rewrite {
        diagnosis: String,
        content: String,
        reason: String,
    },
}

/// One text edit of MODE 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    #[serde(rename = "type")]
    pub kind: EditKind,
    /// Exact text of SKILL.md, occurring once: what is deleted or replaced, or the anchor
    /// after which an `add` inserts.
    pub target: String,
    /// The replacement or the inserted text; empty for `delete`.
    #[serde(default)]
    pub new: String,
    #[serde(default)]
    pub reason: String,
    pub source_cluster_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditKind {
    Delete,
    Replace,
    /// Inserts `new` right after `target`, which stays.
    Add,
}

#[derive(Serialize, Deserialize)]
struct RawReflection {
    diagnosis: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    rewrite_mode: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    edits: Option<Vec<Edit>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rewrite_content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

impl TryFrom<RawReflection> for Reflection {
    type Error = String;

    fn try_from(raw: RawReflection) -> Result<Self, Self::Error> {
        if raw.rewrite_mode {
            let content = raw
                .rewrite_content
                .ok_or("`rewrite_mode` is true but `rewrite_content` is missing")?;
            Ok(Reflection::Rewrite {
                diagnosis: raw.diagnosis,
                content,
                reason: raw.reason.unwrap_or_default(),
            })
        } else {
            let edits = raw
                .edits
                .ok_or("`edits` is missing (MODE 1), and `rewrite_mode` is not true (MODE 2)")?;
            Ok(Reflection::Edits {
                diagnosis: raw.diagnosis,
                edits,
            })
        }
    }
}

impl From<Reflection> for RawReflection {
    fn from(r: Reflection) -> Self {
        match r {
            Reflection::Edits { diagnosis, edits } => RawReflection {
                diagnosis,
                rewrite_mode: false,
                edits: Some(edits),
                rewrite_content: None,
                reason: None,
            },
            Reflection::Rewrite {
                diagnosis,
                content,
                reason,
            } => RawReflection {
                diagnosis,
                rewrite_mode: true,
                edits: None,
                rewrite_content: Some(content),
                reason: Some(reason),
            },
        }
    }
}

impl Reflection {
    pub fn diagnosis(&self) -> &str {
        match self {
            Reflection::Edits { diagnosis, .. } | Reflection::Rewrite { diagnosis, .. } => {
                diagnosis
            }
        }
    }

    /// Edits name known clusters and have a target (and text to put in, unless they
    /// delete); a rewrite is not empty, and is refused when sections were omitted from the
    /// skill shown (it would lose them). Whether targets match SKILL.md is the dry run's
    /// business, not the contract's.
    pub fn validate(
        &self,
        cluster_ids: &[String],
        sections_omitted: bool,
    ) -> Result<(), ContractError> {
        match self {
            Reflection::Edits { edits, .. } => {
                for (i, e) in edits.iter().enumerate() {
                    let n = i + 1;
                    if e.target.is_empty() {
                        return fail(format!("edit {n} has an empty `target`"));
                    }
                    if e.kind != EditKind::Delete && e.new.is_empty() {
                        return fail(format!("edit {n} ({:?}) has an empty `new`", e.kind));
                    }
                    if e.target.contains("<omit ") {
                        return fail(format!(
                            "edit {n} targets an <omit/> marker; omitted sections cannot be edited"
                        ));
                    }
                    if !cluster_ids.contains(&e.source_cluster_id) {
                        return fail(format!(
                            "edit {n} names cluster '{}', which is not one of the clusters given",
                            e.source_cluster_id
                        ));
                    }
                }
                Ok(())
            }
            Reflection::Rewrite { content, .. } => {
                if sections_omitted {
                    return fail("MODE 2 is not available when sections of the skill were omitted; answer with MODE 1 edits");
                }
                if content.trim().is_empty() {
                    return fail("`rewrite_content` is empty");
                }
                Ok(())
            }
        }
    }
}

// ---- gate_text_edit.md.j2 and gate_rewrite.md.j2 ----

/// Which gate question was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateMode {
    /// "Would this signal still occur?" `YES` or `NO` (NO passes).
    TextEdit,
    /// "Is the root cause covered?" `COVERED` or `NOT_COVERED` (COVERED passes).
    Rewrite,
}

/// `{"cluster_id": "...", "verdict": "YES"|"NO"|"COVERED"|"NOT_COVERED", "reason": "..."}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateAnswer {
    pub cluster_id: String,
    pub verdict: Verdict,
    #[serde(default)]
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    #[serde(rename = "YES", alias = "yes", alias = "Yes")]
    Yes,
    #[serde(rename = "NO", alias = "no", alias = "No")]
    No,
    #[serde(rename = "COVERED", alias = "covered", alias = "Covered")]
    Covered,
    #[serde(
        rename = "NOT_COVERED",
        alias = "not_covered",
        alias = "Not_Covered",
        alias = "NOT COVERED"
    )]
    NotCovered,
}

impl GateAnswer {
    /// Whether the cluster counts as fixed: `NO` (the signal would not occur again) or
    /// `COVERED`.
    pub fn passes(&self) -> bool {
        matches!(self.verdict, Verdict::No | Verdict::Covered)
    }

    /// The verdict belongs to `mode`, and the answer is about the cluster that was asked.
    pub fn validate(&self, mode: GateMode, cluster_id: &str) -> Result<(), ContractError> {
        let fits = match mode {
            GateMode::TextEdit => matches!(self.verdict, Verdict::Yes | Verdict::No),
            GateMode::Rewrite => matches!(self.verdict, Verdict::Covered | Verdict::NotCovered),
        };
        if !fits {
            let expected = match mode {
                GateMode::TextEdit => "\"YES\" or \"NO\"",
                GateMode::Rewrite => "\"COVERED\" or \"NOT_COVERED\"",
            };
            return fail(format!("`verdict` must be {expected}"));
        }
        if self.cluster_id != cluster_id {
            return fail(format!(
                "`cluster_id` is '{}' but the question was about '{cluster_id}'",
                self.cluster_id
            ));
        }
        Ok(())
    }
}

/// Secrets the model quoted in its prose (root causes, reasons, the diagnosis) are masked as
/// the answer comes in: that prose becomes commit messages, records and terminal lines, often
/// reflowed, and a secret broken over lines is no longer recognisable. What is quoted
/// exactly (an edit's `target` and `new`, a rewrite's content) stays as it is: the guard
/// judges what reaches SKILL.md.
pub trait MaskSecrets {
    fn mask_secrets(&mut self);
}

impl MaskSecrets for TriageAnswer {
    fn mask_secrets(&mut self) {
        for c in &mut self.clusters {
            c.root_cause = crate::redact::redact(&c.root_cause);
        }
        for c in &mut self.conflicts {
            c.reason = crate::redact::redact(&c.reason);
        }
    }
}

impl MaskSecrets for Reflection {
    fn mask_secrets(&mut self) {
        use crate::redact::redact;
        match self {
            Reflection::Edits { diagnosis, edits } => {
                *diagnosis = redact(diagnosis);
                for e in edits {
                    e.reason = redact(&e.reason);
                }
            }
            Reflection::Rewrite {
                diagnosis, reason, ..
            } => {
                *diagnosis = redact(diagnosis);
                *reason = redact(reason);
            }
        }
    }
}

impl MaskSecrets for GateAnswer {
    fn mask_secrets(&mut self) {
        self.reason = crate::redact::redact(&self.reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn triage_answer_parses_and_checks_ids() {
        let answer: TriageAnswer = serde_json::from_value(json!({
            "clusters": [
                {"cluster_id": "c_001", "root_cause": "r", "signal_ids": ["a", "b"], "type": "corrected", "count": 2},
                {"cluster_id": "c_002", "root_cause": "r", "signal_ids": ["c"], "type": "friction", "count": 1}
            ],
            "conflicts": [{"signal_a": "a", "signal_b": "b", "reason": "x"}],
            "stale_signals": ["c"],
            "priority_order": ["a", "c", "b"]
        }))
        .unwrap();
        answer.validate(&ids(&["a", "b", "c"])).unwrap();
        let err = answer.validate(&ids(&["a", "b", "c", "d"])).unwrap_err();
        assert_eq!(err.to_string(), "signal 'd' is in no cluster");
        let err = answer.validate(&ids(&["a", "b"])).unwrap_err();
        assert!(err.to_string().contains("'c'"), "{err}");
        for bad in ["c 001".to_owned(), "x".repeat(65), "c/../1".to_owned()] {
            let mut long = serde_json::to_value(&answer).unwrap();
            long["clusters"][0]["cluster_id"] = json!(bad);
            let long: TriageAnswer = serde_json::from_value(long).unwrap();
            let err = long.validate(&ids(&["a", "b", "c"])).unwrap_err();
            assert!(err.to_string().contains("at most 64 letters"), "{err}");
        }

        let mut bad = answer.clone();
        bad.clusters[0].count = 3;
        assert!(bad.validate(&ids(&["a", "b", "c"])).is_err());
        let mut twice = answer.clone();
        twice.clusters[1].signal_ids = ids(&["a"]);
        assert!(twice
            .validate(&ids(&["a", "b", "c"]))
            .unwrap_err()
            .to_string()
            .contains("more than one cluster"));
    }

    #[test]
    fn reflection_modes() {
        let edits: Reflection = serde_json::from_value(json!({
            "diagnosis": "d",
            "edits": [{"type": "replace", "target": "old", "new": "new", "reason": "r", "source_cluster_id": "c_001"}]
        }))
        .unwrap();
        assert!(matches!(edits, Reflection::Edits { .. }));
        edits.validate(&ids(&["c_001"]), true).unwrap();
        assert!(edits.validate(&ids(&["c_002"]), false).is_err());

        let rewrite: Reflection = serde_json::from_value(json!({
            "diagnosis": "d", "rewrite_mode": true, "rewrite_content": "---\nname: x\n---\n", "reason": "r"
        }))
        .unwrap();
        assert_eq!(rewrite.diagnosis(), "d");
        rewrite.validate(&[], false).unwrap();
        assert!(rewrite.validate(&[], true).is_err());

        let neither = serde_json::from_value::<Reflection>(json!({"diagnosis": "d"}));
        assert!(neither
            .unwrap_err()
            .to_string()
            .contains("`edits` is missing"));
        let delete: Reflection = serde_json::from_value(json!({
            "diagnosis": "d",
            "edits": [{"type": "delete", "target": "old", "source_cluster_id": "c_001"}]
        }))
        .unwrap();
        delete.validate(&ids(&["c_001"]), false).unwrap();
        // The round trip keeps the shape `skill-optimizer.md` gives.
        let back = serde_json::to_value(&rewrite).unwrap();
        assert_eq!(back["rewrite_mode"], true);
    }

    #[test]
    fn gate_verdicts() {
        let a: GateAnswer = serde_json::from_value(
            json!({"cluster_id": "c_001", "verdict": "NO", "reason": "fixed"}),
        )
        .unwrap();
        assert!(a.passes());
        a.validate(GateMode::TextEdit, "c_001").unwrap();
        assert!(a.validate(GateMode::Rewrite, "c_001").is_err());
        assert!(a.validate(GateMode::TextEdit, "c_002").is_err());
        let b: GateAnswer = serde_json::from_value(
            json!({"cluster_id": "c", "verdict": "NOT_COVERED", "reason": ""}),
        )
        .unwrap();
        assert!(!b.passes());
        b.validate(GateMode::Rewrite, "c").unwrap();
        assert!(serde_json::from_value::<GateAnswer>(
            json!({"cluster_id": "c", "verdict": "MAYBE"})
        )
        .is_err());
    }
}

// ---- eval_grade.md.j2 ----

/// One graded statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GradedAssertion {
    pub text: String,
    pub passed: bool,
    #[serde(default)]
    pub evidence: String,
}

/// `{"assertions": [...], "expected_output_met": true, "reason": "..."}`
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvalGrade {
    #[serde(default)]
    pub assertions: Vec<GradedAssertion>,
    pub expected_output_met: bool,
    #[serde(default)]
    pub reason: String,
}

impl EvalGrade {
    /// The grade answers the case's `assertions`: one entry each, in order (the text may be
    /// reworded; its position is what counts).
    pub fn validate(&self, assertions: &[String]) -> Result<(), String> {
        if self.assertions.len() != assertions.len() {
            return Err(format!(
                "`assertions` has {} entries; the case has {} statements, one entry each",
                self.assertions.len(),
                assertions.len()
            ));
        }
        Ok(())
    }

    /// The case passes: the expected output met and every statement true.
    pub fn passed(&self) -> bool {
        self.expected_output_met && self.assertions.iter().all(|a| a.passed)
    }
}
