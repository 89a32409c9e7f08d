//! The prompt templates git-skill ships, by name.

use std::fmt;
use std::str::FromStr;

/// One of the embedded prompt templates (`templates/<name>.md.j2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PromptName {
    /// Optimize step 3: cluster the signals by root cause, flag conflicts and stale signals.
    Triage,
    /// Optimize step 5: diagnose the skill and propose edits (or a rewrite).
    Reflect,
    /// Optimize step 7 after text edits: would this cluster's signals still occur?
    GateTextEdit,
    /// Optimize step 7 after a rewrite: does the rewrite cover this cluster's root cause?
    GateRewrite,
    /// Background review: the system prompt of the skill reviewer.
    ReviewSystem,
    /// Background review: the session to review and the answer format.
    Review,
    /// `git skill eval`: the system prompt of the agent a case runs against.
    EvalAgent,
    /// `git skill eval`: the judge grading one answer of one case.
    EvalGrade,
}

impl PromptName {
    pub const ALL: [PromptName; 8] = [
        PromptName::Triage,
        PromptName::Reflect,
        PromptName::GateTextEdit,
        PromptName::GateRewrite,
        PromptName::ReviewSystem,
        PromptName::Review,
        PromptName::EvalAgent,
        PromptName::EvalGrade,
    ];

    /// The short name, as `git skill prompt` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            PromptName::Triage => "triage",
            PromptName::Reflect => "reflect",
            PromptName::GateTextEdit => "gate_text_edit",
            PromptName::GateRewrite => "gate_rewrite",
            PromptName::ReviewSystem => "review_system",
            PromptName::Review => "review",
            PromptName::EvalAgent => "eval_agent",
            PromptName::EvalGrade => "eval_grade",
        }
    }

    /// The file name, embedded and in override directories.
    pub fn file_name(self) -> &'static str {
        match self {
            PromptName::Triage => "triage.md.j2",
            PromptName::Reflect => "reflect.md.j2",
            PromptName::GateTextEdit => "gate_text_edit.md.j2",
            PromptName::GateRewrite => "gate_rewrite.md.j2",
            PromptName::ReviewSystem => "review_system.md.j2",
            PromptName::Review => "review.md.j2",
            PromptName::EvalAgent => "eval_agent.md.j2",
            PromptName::EvalGrade => "eval_grade.md.j2",
        }
    }

    /// What the template is for, in a line.
    pub fn purpose(self) -> &'static str {
        match self {
            PromptName::Triage => {
                "optimize step 3: cluster signals by root cause; conflicts, stale signals, priority"
            }
            PromptName::Reflect => {
                "optimize step 5: diagnose the skill; text edits (mode 1) or a rewrite (mode 2)"
            }
            PromptName::GateTextEdit => {
                "optimize step 7, text edits: would this cluster's signals still occur? YES/NO"
            }
            PromptName::GateRewrite => {
                "optimize step 7, rewrite: is this cluster's root cause covered? COVERED/NOT_COVERED"
            }
            PromptName::ReviewSystem => {
                "review agent: system prompt (rules, the tools in text for providers without tool calling)"
            }
            PromptName::Review => {
                "review agent: the session, the repository's skills, what the review may do"
            }
            PromptName::EvalAgent => {
                "eval: the agent a case runs against, with the skill loaded or without it"
            }
            PromptName::EvalGrade => {
                "eval: grade one answer against the expected output and each assertion"
            }
        }
    }

    /// The template shipped in the binary.
    pub fn embedded(self) -> &'static str {
        match self {
            PromptName::Triage => include_str!("../../templates/triage.md.j2"),
            PromptName::Reflect => include_str!("../../templates/reflect.md.j2"),
            PromptName::GateTextEdit => include_str!("../../templates/gate_text_edit.md.j2"),
            PromptName::GateRewrite => include_str!("../../templates/gate_rewrite.md.j2"),
            PromptName::ReviewSystem => include_str!("../../templates/review_system.md.j2"),
            PromptName::Review => include_str!("../../templates/review.md.j2"),
            PromptName::EvalAgent => include_str!("../../templates/eval_agent.md.j2"),
            PromptName::EvalGrade => include_str!("../../templates/eval_grade.md.j2"),
        }
    }

    /// The short names, comma-separated, for messages.
    pub fn known() -> String {
        PromptName::ALL
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for PromptName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the templates.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown prompt template '{name}' (known: {known})", known = PromptName::known())]
pub struct UnknownPrompt {
    pub name: String,
}

impl FromStr for PromptName {
    type Err = UnknownPrompt;

    /// The short name (`triage`) or the file name (`triage.md.j2`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PromptName::ALL
            .into_iter()
            .find(|n| n.as_str() == s || n.file_name() == s)
            .ok_or_else(|| UnknownPrompt { name: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in PromptName::ALL {
            assert_eq!(name.as_str().parse::<PromptName>().unwrap(), name);
            assert_eq!(name.file_name().parse::<PromptName>().unwrap(), name);
            assert_eq!(name.file_name(), format!("{}.md.j2", name.as_str()));
        }
        let err = "triage.j2".parse::<PromptName>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown prompt template 'triage.j2' (known: triage, reflect, gate_text_edit, gate_rewrite, review_system, review, eval_agent, eval_grade)"
        );
    }
}
