//! The variables each template takes, as types: build one, pass it to
//! [`Prompts::render_with`](super::Prompts::render_with). Every field is required by the
//! template (variables are strict); `git skill prompt render NAME --vars FILE.json` takes the
//! same fields as JSON.

use serde::Serialize;

use super::contracts::Cluster;
use super::long_skill;
use crate::signal::{Signal, SignalType};

/// `triage.md.j2`.
#[derive(Debug, Clone, Serialize)]
pub struct TriageVars {
    pub skill_name: String,
    /// sha256 (hex) of the current SKILL.md, for the stale check.
    pub current_hash: String,
    pub signals: Vec<SignalSummary>,
}

/// A signal as triage sees it: what happened, without the conversation (`skill-optimizer.md` step 3).
#[derive(Debug, Clone, Serialize)]
pub struct SignalSummary {
    pub signal_id: String,
    #[serde(rename = "type")]
    pub kind: SignalType,
    pub scenario: String,
    /// `None` (JSON null) when the signal has none.
    pub correction: Option<String>,
    pub friction_detail: Option<String>,
    pub skill_version_hash: String,
}

/// A signal with its context, for reflect and the gate (`skill-optimizer.md` steps 4-5).
#[derive(Debug, Clone, Serialize)]
pub struct SignalDetail {
    pub signal_id: String,
    #[serde(rename = "type")]
    pub kind: SignalType,
    pub scenario: String,
    pub correction: Option<String>,
    pub friction_detail: Option<String>,
    pub context: ContextVars,
}

#[derive(Debug, Clone, Serialize)]
pub struct ContextVars {
    pub user_intent: Option<String>,
    pub problem_turn: Option<String>,
    pub user_correction: Option<String>,
}

fn non_empty(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.to_owned())
}

impl From<&Signal> for SignalSummary {
    fn from(s: &Signal) -> Self {
        SignalSummary {
            signal_id: s.signal_id.clone(),
            kind: s.kind,
            scenario: s.scenario.clone(),
            correction: non_empty(&s.correction),
            friction_detail: non_empty(&s.friction_detail),
            skill_version_hash: s.skill_version_hash.clone(),
        }
    }
}

impl From<&Signal> for SignalDetail {
    fn from(s: &Signal) -> Self {
        SignalDetail {
            signal_id: s.signal_id.clone(),
            kind: s.kind,
            scenario: s.scenario.clone(),
            correction: non_empty(&s.correction),
            friction_detail: non_empty(&s.friction_detail),
            context: ContextVars {
                user_intent: non_empty(&s.context.user_intent),
                problem_turn: non_empty(&s.context.problem_turn),
                user_correction: non_empty(&s.context.user_correction),
            },
        }
    }
}

/// `reflect.md.j2`.
#[derive(Debug, Clone, Serialize)]
pub struct ReflectVars {
    pub skill_name: String,
    /// SKILL.md, or its focused form for a long skill ([`long_skill::focus`]).
    pub skill_text: String,
    /// Headings of the sections replaced by `<omit/>` markers; when not empty the template
    /// offers MODE 1 only.
    pub omitted_sections: Vec<String>,
    pub signals: Vec<SignalDetail>,
    pub clusters: Vec<Cluster>,
}

impl ReflectVars {
    /// Applies the long-skill rule of step 5 to `skill_md` with the signals' texts.
    pub fn new(
        skill_name: &str,
        skill_md: &str,
        signals: &[Signal],
        clusters: Vec<Cluster>,
    ) -> Self {
        let focus = long_skill::focus_for_signals(skill_md, signals);
        ReflectVars {
            skill_name: skill_name.to_owned(),
            skill_text: focus.text,
            omitted_sections: focus.omitted,
            signals: signals.iter().map(SignalDetail::from).collect(),
            clusters,
        }
    }
}

/// `gate_text_edit.md.j2` and `gate_rewrite.md.j2`: one cluster, judged against the
/// candidate SKILL.md.
#[derive(Debug, Clone, Serialize)]
pub struct GateVars {
    pub skill_name: String,
    /// The whole candidate SKILL.md (edits applied, or the rewrite).
    pub candidate_skill: String,
    pub cluster: Cluster,
    /// The cluster's signals.
    pub signals: Vec<SignalDetail>,
    /// Where the skill stands beside the cluster and its signals: `skill_first` (the
    /// default), `signals_first` or `skill_between`, so that the judges of
    /// `skill.gateVotes` read the question in different orders.
    pub order: String,
}

/// `review_system.md.j2`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReviewSystemVars {
    pub max_rounds: u32,
    pub max_calls: usize,
    /// The provider has no native tool calling: the tools are described in the prompt and
    /// called with a JSON answer.
    pub text_protocol: bool,
    pub tools: Vec<ToolText>,
}

/// A tool as the text protocol describes it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolText {
    pub name: String,
    pub description: String,
    /// Its arguments' JSON schema, as compact JSON.
    pub parameters: String,
}

/// `review.md.j2`.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewVars {
    /// The session to review, as bounded text.
    pub transcript: String,
    /// The agent CLI's name (`Claude Code`).
    pub agent: String,
    /// The session id, or empty.
    pub session: String,
    /// Every skill of the repository, as `skill_list` shows them.
    pub skills: Vec<serde_json::Value>,
    /// Linked skills the review may change.
    pub linked: Vec<String>,
    pub allow_create: bool,
    pub allow_optimize: bool,
    pub max_new: u32,
    /// Where new skills go, relative to the repository top.
    pub create_root: String,
}

/// `eval_agent.md.j2`: the agent a case runs against.
#[derive(Debug, Clone, Serialize)]
pub struct EvalAgentVars {
    /// The skill as the agent sees it; `None` for the run without it.
    pub skill: Option<EvalSkill>,
}

/// A skill as an eval's agent sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvalSkill {
    pub name: String,
    pub description: String,
    /// SKILL.md, whole.
    pub text: String,
    /// The files SKILL.md links to, within the budget.
    pub files: Vec<EvalFile>,
}

/// A file given with a prompt: a skill's referenced file, or a case's input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvalFile {
    pub path: String,
    pub text: String,
}

/// `eval_grade.md.j2`: one answer of one case.
#[derive(Debug, Clone, Serialize)]
pub struct EvalGradeVars {
    pub prompt: String,
    pub expected_output: Option<String>,
    pub assertions: Vec<String>,
    pub answer: String,
    /// The names of the case's input files.
    pub files: Vec<String>,
}
