//! What shaped a run besides SKILL.md and the signals: the prompt templates and the gate's
//! settings. A dry run records it, and the `--resume` that commits its candidate refuses
//! when it changed: the preview would no longer be what the configuration gives.

use serde::{Deserialize, Serialize};

use super::Job;
use crate::prompt::PromptName;

/// The prompts optimize sends.
const PROMPTS: &[PromptName] = &[
    PromptName::Triage,
    PromptName::Reflect,
    PromptName::GateTextEdit,
    PromptName::GateRewrite,
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// sha256 of the templates' text (embedded or overridden).
    pub prompts: String,
    pub gate_threshold: f64,
    pub gate_votes: u32,
    pub max_growth: f64,
    /// `skill.failOn`.
    pub fail_on: String,
}

impl Fingerprint {
    pub fn of(job: &Job<'_>) -> Fingerprint {
        Fingerprint {
            prompts: job.prompts.fingerprint(PROMPTS),
            gate_threshold: job.gate_threshold,
            gate_votes: job.gate_votes,
            max_growth: job.max_growth,
            fail_on: format!("{:?}", job.fail_on).to_ascii_lowercase(),
        }
    }

    /// What differs from `now`, in words (`the gate threshold (0.5, now 0.8)`).
    pub fn changes(&self, now: &Fingerprint) -> Vec<String> {
        let mut out = Vec::new();
        if self.prompts != now.prompts {
            out.push("the prompt templates (an override was added, changed or removed)".into());
        }
        let mut setting = |name: &str, was: String, is: String| {
            if was != is {
                out.push(format!("{name} ({was}, now {is})"));
            }
        };
        setting(
            "skill.gateThreshold",
            self.gate_threshold.to_string(),
            now.gate_threshold.to_string(),
        );
        setting(
            "skill.gateVotes",
            self.gate_votes.to_string(),
            now.gate_votes.to_string(),
        );
        setting(
            "skill.maxGrowth",
            self.max_growth.to_string(),
            now.max_growth.to_string(),
        );
        setting("skill.failOn", self.fail_on.clone(), now.fail_on.clone());
        out
    }
}
