//! The model, the prompt templates and the review agent.

use super::{Advice, Advise, Kind};
use crate::llm::LlmError;
use crate::ops::review::ReviewOpError;
use crate::prompt::PromptError;
use crate::review::ReviewError;

impl Advise for LlmError {
    fn advice(&self) -> Advice {
        let kind = match self {
            LlmError::Config(_) => Kind::Config,
            _ => Kind::User,
        };
        Advice::maybe(kind, self.hint())
    }
}

impl Advise for PromptError {
    fn advice(&self) -> Advice {
        let hint = match self {
            // Rendering: only the caller knows which variables it passed, and says so.
            PromptError::Render { .. } | PromptError::Vars { .. } | PromptError::VarsNotObject { .. } => {
                return Advice::bare(Kind::Config);
            }
            PromptError::Unknown(_) => "list the templates with: git skill prompt list",
            PromptError::MissingDirectory { .. } | PromptError::NotADirectory { .. } => {
                "create the directory, or unset skill.templateDir (git config --unset skill.templateDir)"
            }
            PromptError::Parse { .. } => {
                "fix the template (minijinja syntax), or remove it to use the embedded one"
            }
            PromptError::Escapes { .. } | PromptError::DanglingSymlink { .. } => {
                "put the template file itself in the directory instead of a symlink"
            }
            _ => "check the template override, or remove it to use the embedded one",
        };
        Advice::new(Kind::Config, hint)
    }
}

impl Advise for ReviewError {
    fn advice(&self) -> Advice {
        match self {
            ReviewError::Git(e) => e.advice(),
            ReviewError::Prompt(e) => e.advice(),
            ReviewError::Transcript(_) => Advice::user(
                "nothing was reviewed; give the transcript file the agent wrote (--agent names its format when it is not detected)",
            ),
            ReviewError::WrongSession { .. } => Advice::bare(Kind::User),
            ReviewError::RootOutside { .. } => Advice::new(
                Kind::Config,
                "set skill.autoSkill.root to a directory of skill.roots (git skill config shows both)",
            ),
            ReviewError::Llm { source, .. } => Advice::maybe(Kind::User, source.hint()),
            ReviewError::Log { .. } => Advice::bare(Kind::Internal),
            ReviewError::NoAnswer { .. } => Advice::user(
                "give it more time (skill.autoSkill.timeout) or check the model with git skill llm ping, then run the review again",
            ),
            ReviewError::Busy { .. } => Advice::user(
                "wait for it to end (git skill sessions shows what runs), then run this again",
            ),
        }
    }
}

impl Advise for ReviewOpError {
    fn advice(&self) -> Advice {
        match self {
            ReviewOpError::Env(e) => e.advice(),
            ReviewOpError::Review(e) => e.advice(),
            ReviewOpError::Config(e) => e.advice(),
            ReviewOpError::Prompt(e) => e.advice(),
        }
    }
}

impl Advise for crate::ops::prompt::PromptOpError {
    fn advice(&self) -> Advice {
        use crate::ops::prompt::PromptOpError as E;
        use crate::prompt::TemplateSource;
        match self {
            E::Prompt(e) => e.advice(),
            E::Render(e) => e.advice().and(match e {
                PromptError::Render {
                    variable: Some(v), ..
                } => format!(
                    "give `{}` in the --vars file; the template's first lines list its variables",
                    v.split('.').next().unwrap_or(v)
                ),
                PromptError::Render {
                    source_: TemplateSource::Override(path),
                    ..
                } => format!(
                    "check the override '{}', or remove it to use the embedded template",
                    path.display()
                ),
                _ => "check the --vars file against the template's variables".to_owned(),
            }),
            E::VarsTooLarge { .. } => Advice::user(
                "prompts are rendered from small JSON objects; check that this is the right file",
            ),
            E::VarsDirectory { .. } => Advice::user("give a JSON file, or - for stdin"),
            E::VarsRead { .. } => Advice::new(
                Kind::Internal,
                "give a JSON file of the template's variables, or - for stdin",
            ),
            E::VarsJson { .. } => Advice::user(
                "the variables are one JSON object, such as {\"skill_name\": \"pdf\", ...}",
            ),
            E::VarsNotObject { .. } => {
                Advice::user("wrap them in an object: {\"name\": value, ...}")
            }
        }
    }
}
