//! How each library error reaches the user: the library says how it ends the run and what to
//! do about it ([`git_skill::advice`]); this file turns that into a [`CommandError`]. One line
//! per error type: an error type without one does not compile.

use git_skill::advice::{Advise, Kind};

use super::error::{broken_pipe, CommandError, ErrorKind};

fn advised(e: impl Advise) -> CommandError {
    let advice = e.advice();
    let kind = match advice.kind {
        Kind::User => ErrorKind::User,
        Kind::Config => ErrorKind::Config,
        Kind::Internal => ErrorKind::Internal,
    };
    let mut error = CommandError::with(kind, e);
    for hint in advice.hints {
        error = error.hint(hint);
    }
    error
}

macro_rules! advised {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for CommandError {
            fn from(e: $error) -> Self {
                advised(e)
            }
        }
    )*};
}

advised!(
    git_skill::config::ConfigError,
    git_skill::env::EnvError,
    git_skill::env::NameError,
    git_skill::git::GitError,
    git_skill::git::hooks::HookError,
    git_skill::guard::suppress::PolicyError,
    git_skill::llm::LlmError,
    git_skill::manage::ManageError,
    git_skill::ops::allow::AllowError,
    git_skill::ops::baseline::BaselineError,
    git_skill::ops::diff::DiffError,
    git_skill::ops::eval::EvalError,
    git_skill::ops::init::InitError,
    git_skill::ops::lint::LintError,
    git_skill::ops::log::LogError,
    git_skill::ops::manage::TargetError,
    git_skill::ops::pre_commit::PreCommitError,
    git_skill::ops::prompt::PromptOpError,
    git_skill::ops::proposals::ProposalsError,
    git_skill::ops::quarantine::QuarantineOpError,
    git_skill::ops::record::RecordError,
    git_skill::ops::rollback::RollbackOpError,
    git_skill::ops::rules::UnknownRule,
    git_skill::ops::scan::ScanError,
    git_skill::ops::signals::SignalsError,
    git_skill::optimize::checkpoint::CheckpointError,
    git_skill::optimize::rollback::RollbackError,
    git_skill::optimize::RunError,
    git_skill::prompt::PromptError,
    git_skill::signal::input::InputError,
    git_skill::signal::store::StoreError,
    git_skill::signal::HashError,
    git_skill::skill::discover::PathError,
    git_skill::skill::files::ReadError,
);

/// A review that the model stopped is told as the review's end, with the model's error as its
/// cause (the library's message, for session logs, holds both on one line).
impl From<git_skill::review::ReviewError> for CommandError {
    fn from(e: git_skill::review::ReviewError) -> Self {
        use git_skill::review::ReviewError as R;
        match e {
            R::Llm {
                rounds,
                source,
                log,
            } => {
                let hints = source.hint();
                let error = anyhow::Error::new(source).context(format!(
                    "the review stopped after {rounds} rounds; nothing was proposed (log: {})",
                    log.display()
                ));
                let error = CommandError::with(ErrorKind::User, error);
                hints.into_iter().fold(error, CommandError::hint)
            }
            e => advised(e),
        }
    }
}

impl From<git_skill::ops::review::ReviewOpError> for CommandError {
    fn from(e: git_skill::ops::review::ReviewOpError) -> Self {
        match e {
            git_skill::ops::review::ReviewOpError::Review(e) => e.into(),
            e => advised(e),
        }
    }
}

/// What only the binary meets: its own output closing, and errors it builds with context.
fn io_kind(kind: Option<std::io::ErrorKind>) -> ErrorKind {
    if kind == Some(std::io::ErrorKind::BrokenPipe) {
        ErrorKind::BrokenPipe
    } else {
        ErrorKind::Internal
    }
}

impl From<std::io::Error> for CommandError {
    fn from(e: std::io::Error) -> Self {
        CommandError::with(io_kind(Some(e.kind())), e)
    }
}

impl From<serde_json::Error> for CommandError {
    fn from(e: serde_json::Error) -> Self {
        CommandError::with(io_kind(e.io_error_kind()), e)
    }
}

impl From<anyhow::Error> for CommandError {
    fn from(e: anyhow::Error) -> Self {
        let kind = if broken_pipe(&e) {
            ErrorKind::BrokenPipe
        } else {
            ErrorKind::Internal
        };
        CommandError::with(kind, e)
    }
}
