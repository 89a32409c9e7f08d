//! How each library error reaches the user: one `From` impl per error type, which classifies it
//! ([`ErrorKind`]) and says what to do about it. Commands add a hint of their own only where
//! they know more (which revision, which flag).

use git_skill::config::ConfigError;
use git_skill::git::hooks::HookError;
use git_skill::git::GitError;
use git_skill::guard::suppress::PolicyError;
use git_skill::llm::LlmError;
use git_skill::optimize::{checkpoint::CheckpointError, OptimizeError, RunError};
use git_skill::prompt::PromptError;
use git_skill::signal::input::InputError;
use git_skill::signal::store::StoreError;
use git_skill::skill::discover::PathError;
use git_skill::skill::files::ReadError;

use super::error::{broken_pipe, CommandError, ErrorKind};

fn hinted(kind: ErrorKind, e: impl Into<anyhow::Error>, hint: Option<String>) -> CommandError {
    let error = CommandError::with(kind, e);
    match hint {
        Some(hint) => error.hint(hint),
        None => error,
    }
}

impl From<std::io::Error> for CommandError {
    fn from(e: std::io::Error) -> Self {
        let kind = if e.kind() == std::io::ErrorKind::BrokenPipe {
            ErrorKind::BrokenPipe
        } else {
            ErrorKind::Internal
        };
        CommandError::with(kind, e)
    }
}

impl From<serde_json::Error> for CommandError {
    fn from(e: serde_json::Error) -> Self {
        let kind = if e.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe) {
            ErrorKind::BrokenPipe
        } else {
            ErrorKind::Internal
        };
        CommandError::with(kind, e)
    }
}

/// For errors the binary builds with context (`anyhow::Context`) itself.
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

impl From<GitError> for CommandError {
    fn from(e: GitError) -> Self {
        use GitError as G;
        let (kind, hint) = match &e {
            G::Parameters(_) => (
                ErrorKind::Config,
                Some("check the values given with `git -c key=value`"),
            ),
            G::Bare { .. } => (
                ErrorKind::User,
                Some("run it in a work tree (a clone or `git worktree add`), or name a path"),
            ),
            // These say what to do in their message already.
            G::UnbornHead { .. } | G::Identity { .. } | G::InProgress { .. } => {
                (ErrorKind::User, None)
            }
            G::InvalidPath { .. } | G::NothingToCommit { .. } | G::Revert { .. } => {
                (ErrorKind::User, None)
            }
            G::RevertConflict { .. } => (ErrorKind::User, None),
            G::Commit { message, .. } if message.contains("if not, remove") => (
                ErrorKind::User,
                Some("a lock that git-skill cannot prove is its own is left alone; remove it as the message says once no git command is running"),
            ),
            G::Discover { .. } | G::Config { .. } => (
                ErrorKind::User,
                Some("check the repository: git status"),
            ),
            _ => (ErrorKind::Internal, None),
        };
        hinted(kind, e, hint.map(str::to_owned))
    }
}

impl From<ConfigError> for CommandError {
    fn from(e: ConfigError) -> Self {
        hinted(
            ErrorKind::Config,
            e,
            Some("see git skill config for every value and where it comes from".into()),
        )
    }
}

impl From<PolicyError> for CommandError {
    fn from(e: PolicyError) -> Self {
        let (kind, hint) = match &e {
            PolicyError::Refused { .. } => (
                ErrorKind::Config,
                "it must be a regular file of at most 1 MiB, committed at the top of the repository; replace it with one",
            ),
            PolicyError::Invalid { .. } => (
                ErrorKind::Config,
                "fix it: every entry needs a known rule (git skill rules) and a reason; see git skill scan --help",
            ),
            PolicyError::Read { .. } => (ErrorKind::User, "check that it exists and can be read"),
        };
        hinted(kind, e, Some(hint.into()))
    }
}

impl From<HookError> for CommandError {
    fn from(e: HookError) -> Self {
        let hint = match &e {
            HookError::SavedExists { .. } => {
                "remove or rename the saved hook first, or run git skill hook uninstall"
            }
            HookError::Foreign { .. } => "remove it by hand if it should go",
            HookError::Io { .. } => "check the hooks directory's permissions",
        };
        hinted(ErrorKind::User, e, Some(hint.into()))
    }
}

impl From<StoreError> for CommandError {
    fn from(e: StoreError) -> Self {
        let (kind, hint) = match &e {
            StoreError::Link { .. } => (
                ErrorKind::User,
                "replace the link with a real directory or file",
            ),
            StoreError::Invalid { .. } => (ErrorKind::User, "nothing was recorded"),
            StoreError::Special { .. } => (
                ErrorKind::User,
                "replace it with a regular file (copy its content, not a link): git skill reads and writes nothing else",
            ),
            StoreError::Read { .. } | StoreError::Write { .. } => {
                (ErrorKind::Internal, "check the file's permissions and the free space")
            }
        };
        hinted(kind, e, Some(hint.into()))
    }
}

impl From<git_skill::ops::signals::SignalsError> for CommandError {
    fn from(e: git_skill::ops::signals::SignalsError) -> Self {
        use git_skill::ops::signals::SignalsError as E;
        match e {
            E::Store(e) => e.into(),
            E::Hash(e) => e.into(),
            E::Deleted { .. } => hinted(
                ErrorKind::User,
                e,
                Some("list its signals without --selected".into()),
            ),
        }
    }
}

impl From<git_skill::signal::HashError> for CommandError {
    fn from(e: git_skill::signal::HashError) -> Self {
        let hint = match &e {
            git_skill::signal::HashError::NotAFile { .. } => {
                "replace the link with the file itself"
            }
            git_skill::signal::HashError::Read { .. } => "check the file's permissions",
        };
        hinted(ErrorKind::User, e, Some(hint.into()))
    }
}

impl From<InputError> for CommandError {
    fn from(e: InputError) -> Self {
        hinted(
            ErrorKind::User,
            e,
            Some("give one JSON object, JSON lines, or an array of objects; see git skill record --help".into()),
        )
    }
}

impl From<LlmError> for CommandError {
    fn from(e: LlmError) -> Self {
        let hint = e.hint();
        let kind = match &e {
            LlmError::Config(_) => ErrorKind::Config,
            _ => ErrorKind::User,
        };
        hinted(kind, e, hint)
    }
}

impl From<PromptError> for CommandError {
    fn from(e: PromptError) -> Self {
        let hint = match &e {
            // Rendering: only the caller knows which variables it passed, and says so.
            PromptError::Render { .. } | PromptError::Vars { .. } | PromptError::VarsNotObject { .. } => {
                return CommandError::with(ErrorKind::Config, e);
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
        hinted(ErrorKind::Config, e, Some(hint.into()))
    }
}

impl From<git_skill::env::EnvError> for CommandError {
    fn from(e: git_skill::env::EnvError) -> Self {
        use git_skill::env::EnvError as E;
        match e {
            E::Git(e) => e.into(),
            E::NotUtf8 { ref name } => {
                let hint = match name.as_str() {
                    "GIT_CONFIG_PARAMETERS" => "check the values given with `git -c`".to_owned(),
                    _ => format!("unset {name} or give it a UTF-8 value"),
                };
                hinted(ErrorKind::Config, e, Some(hint))
            }
            E::NoWorkTree { .. } => hinted(
                ErrorKind::User,
                e,
                Some("run it inside the repository that holds the skills".into()),
            ),
            E::NothingToCheck { ref command, .. } => {
                let hint = format!("run inside a work tree, or name what to check: git skill {command} path/to/skill (or --root DIR)");
                hinted(ErrorKind::User, e, Some(hint))
            }
        }
    }
}

impl From<git_skill::env::NameError> for CommandError {
    fn from(e: git_skill::env::NameError) -> Self {
        use git_skill::env::NameError as E;
        let by_path =
            "a skill is a directory holding SKILL.md; give that directory or its SKILL.md";
        let hints: Vec<String> = match &e {
            E::NotFound { known, .. } if known.is_empty() => vec![
                "no skills found in the repository or the user-level roots".into(),
                "a path works too: .claude/skills/<name>".into(),
            ],
            E::NotFound { known, .. } => vec![
                format!("known skills: {}", listing(known)),
                "a path works too: .claude/skills/<name>".into(),
            ],
            E::Ambiguous { paths, .. } => {
                let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                vec![format!("name one by its path: {}", listing(&paths))]
            }
            E::NoDirectory { .. } | E::NoSkillMd { .. } => vec![by_path.into()],
            E::LinkOut { .. } => vec!["git-skill does not follow links out of where skills live; give the real path, or add its folder to skill.roots".into()],
            E::Path(_) | E::Read { .. } => Vec::new(),
        };
        let mut error = match e {
            E::Path(e) => return e.into(),
            E::Read { .. } => CommandError::with(ErrorKind::Internal, e),
            e => CommandError::with(ErrorKind::User, e),
        };
        for hint in hints {
            error = error.hint(hint);
        }
        error
    }
}

/// At most a dozen items, then "and N more".
fn listing(items: &[String]) -> String {
    const LISTED: usize = 12;
    let mut text = items
        .iter()
        .take(LISTED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > LISTED {
        text.push_str(&format!(", and {} more", items.len() - LISTED));
    }
    text
}

impl From<git_skill::ops::pre_commit::PreCommitError> for CommandError {
    fn from(e: git_skill::ops::pre_commit::PreCommitError) -> Self {
        use git_skill::ops::pre_commit::PreCommitError as E;
        match e {
            E::Env(e) => e.into(),
            E::Git(e) => e.into(),
            E::Policy(e) => e.into(),
        }
    }
}

impl From<git_skill::ops::scan::ScanError> for CommandError {
    fn from(e: git_skill::ops::scan::ScanError) -> Self {
        use git_skill::ops::scan::ScanError as E;
        match e {
            E::Env(e) => e.into(),
            E::RangeNeedsRepo(e) => {
                CommandError::from(e).hint("or drop --from-ref/--to-ref to scan the paths given")
            }
            E::Baseline(e) => hinted(
                ErrorKind::User,
                e,
                Some("create one with --write-baseline FILE".into()),
            ),
            e @ E::NoPolicy { .. } => CommandError::with(ErrorKind::User, e),
            E::Policy(e) => e.into(),
            E::RangePolicy(e) => CommandError::from(e).hint(
                "fix the policy file in that revision; every entry needs a known rule and a reason",
            ),
            E::Revisions(e) => CommandError::from(e).hint(
                "check that both revisions exist here (CI checkouts may need fetch-depth: 0)",
            ),
            E::Git(e) => e.into(),
            e @ E::WriteBaseline { .. } => CommandError::with(ErrorKind::Internal, e),
        }
    }
}

impl From<git_skill::ops::init::InitError> for CommandError {
    fn from(e: git_skill::ops::init::InitError) -> Self {
        use git_skill::ops::init::InitError as E;
        match e {
            E::Env(e) => e.into(),
            e @ E::NoAgent => hinted(
                ErrorKind::User,
                e,
                Some("name the agents: git skill init --agent claude (or --agent all)".into()),
            ),
            e @ E::Settings(_) => CommandError::new(e),
            E::Git(e) => e.into(),
            E::Hook(e) => e.into(),
            e @ E::Write { .. } => CommandError::with(ErrorKind::Internal, e),
        }
    }
}

impl From<git_skill::ops::proposals::ProposalsError> for CommandError {
    fn from(e: git_skill::ops::proposals::ProposalsError) -> Self {
        use git_skill::ops::proposals::ProposalsError as E;
        use git_skill::review::proposals::ProposalError as P;
        match e {
            E::Env(e) => e.into(),
            e @ E::Age(_) => CommandError::new(e),
            E::Proposal(e) => {
                let hint = match &e {
                    P::NotFound { .. } | P::Ambiguous { .. } => {
                        Some("git skill proposals list shows the ids")
                    }
                    P::Malformed { .. } => {
                        Some("delete it with git update-ref -d <ref> if it is not a proposal")
                    }
                    _ => None,
                };
                hinted(ErrorKind::User, e, hint.map(Into::into))
            }
        }
    }
}

impl From<git_skill::ops::lint::LintError> for CommandError {
    fn from(e: git_skill::ops::lint::LintError) -> Self {
        use git_skill::ops::lint::LintError as E;
        match e {
            E::Env(e) => e.into(),
            E::Policy(e) => e.into(),
        }
    }
}

impl From<git_skill::ops::manage::TargetError> for CommandError {
    fn from(e: git_skill::ops::manage::TargetError) -> Self {
        use git_skill::ops::manage::TargetError as E;
        let hint = match e {
            E::NoDefaultRoot => "name one: git skill manage ... --root .claude/skills (or git config skill.autoSkill.root)",
            E::OutsideRepository => "name one with --root DIR",
        };
        hinted(ErrorKind::User, e, Some(hint.into()))
    }
}

impl From<git_skill::ops::review::ReviewOpError> for CommandError {
    fn from(e: git_skill::ops::review::ReviewOpError) -> Self {
        use git_skill::ops::review::ReviewOpError as E;
        match e {
            E::Env(e) => e.into(),
            E::Review(e) => e.into(),
            E::Config(e) => e.into(),
            E::Prompt(e) => e.into(),
        }
    }
}

impl From<git_skill::ops::record::RecordError> for CommandError {
    fn from(e: git_skill::ops::record::RecordError) -> Self {
        use git_skill::ops::record::RecordError as E;
        match e {
            E::Hash(e) => e.into(),
            E::Store(e) => e.into(),
            E::Invalid { error, .. } => {
                CommandError::with(ErrorKind::User, error).hint("nothing was recorded")
            }
        }
    }
}

impl From<git_skill::ops::log::LogError> for CommandError {
    fn from(e: git_skill::ops::log::LogError) -> Self {
        use git_skill::ops::log::LogError as E;
        match e {
            E::Env(e) => e.into(),
            E::Git(e) => e.into(),
            e @ E::Outside(_) => CommandError::with(ErrorKind::User, e),
        }
    }
}

impl From<git_skill::ops::diff::DiffError> for CommandError {
    fn from(e: git_skill::ops::diff::DiffError) -> Self {
        use git_skill::ops::diff::DiffError as E;
        match e {
            E::Env(e) => e.into(),
            E::Revisions(e) => CommandError::from(e)
                .hint("check that the revisions exist here (CI checkouts may need fetch-depth: 0)"),
        }
    }
}

impl From<PathError> for CommandError {
    fn from(e: PathError) -> Self {
        let hint = match &e {
            PathError::NoSkill { .. } => "a skill is a directory holding SKILL.md; give that directory, its SKILL.md, or a folder of skills",
            PathError::NotSkillMd { .. } => {
                "give a skill directory, its SKILL.md, or a folder of skills"
            }
            PathError::Io { .. } => "check the path; it must exist and be readable",
        };
        hinted(ErrorKind::User, e, Some(hint.into()))
    }
}

impl From<ReadError> for CommandError {
    fn from(e: ReadError) -> Self {
        hinted(
            ErrorKind::User,
            e,
            Some("fix the permissions, or move it out of the skill".into()),
        )
    }
}

impl From<CheckpointError> for CommandError {
    fn from(e: CheckpointError) -> Self {
        hinted(
            ErrorKind::User,
            e,
            Some("start again without it: git skill optimize <skill> --restart".into()),
        )
    }
}

impl From<git_skill::optimize::rollback::RollbackError> for CommandError {
    fn from(e: git_skill::optimize::rollback::RollbackError) -> Self {
        use git_skill::optimize::rollback::RollbackError as R;
        match e {
            R::Git(e @ (GitError::RevertConflict { .. } | GitError::Revert { .. })) => {
                CommandError::from(e)
                    .hint("nothing was changed; resolve by hand with git revert, then commit")
            }
            R::Git(e) => CommandError::from(e),
            R::Store(e) => CommandError::from(e),
            R::Busy { .. } => hinted(ErrorKind::User, e, Some("wait for it to finish".into())),
            R::Interrupted { ref skill } => {
                let hint = format!("finish it first: git skill optimize {skill} --resume");
                hinted(ErrorKind::User, e, Some(hint))
            }
            R::Dirty { .. } => hinted(
                ErrorKind::User,
                e,
                Some(
                    "commit or stash them first; a rollback must not mix with work in progress"
                        .into(),
                ),
            ),
            R::Nothing { ref skill, .. } => {
                let hint = format!("see its history: git skill log {skill}");
                hinted(ErrorKind::User, e, Some(hint))
            }
        }
    }
}

impl From<git_skill::manage::ManageError> for CommandError {
    fn from(e: git_skill::manage::ManageError) -> Self {
        hinted(ErrorKind::Internal, e, Some("nothing was written".into()))
    }
}

/// Optimize's errors, with the skill and the kind of run they happened in: the hints name the
/// command to run next.
impl From<RunError> for CommandError {
    fn from(run: RunError) -> Self {
        let RunError {
            skill,
            dry_run,
            error,
        } = run;
        let resume = format!("the checkpoint is kept: git skill optimize {skill}{} --resume continues without repeating the calls that answered", if dry_run { " --dry-run" } else { "" });
        let dry = if dry_run { " --dry-run" } else { "" };
        use OptimizeError as O;
        let error = *error;
        let hint: Option<String> = match &error {
            O::Dirty { paths, .. } => Some(format!(
                "commit or stash them first: git add -- {} && git commit, or git stash",
                paths.join(" ")
            )),
            O::NoSignals { .. } => Some(format!(
                "record feedback first: git skill record {skill} --type corrected --scenario ... --correction ..."
            )),
            O::Busy { .. } => Some("wait for it to finish".into()),
            O::StaleCheckpoint { .. } => Some(format!(
                "SKILL.md changed since that run; start again: git skill optimize {skill}{dry} --restart"
            )),
            O::NothingToResume { .. } => {
                Some(format!("start a run: git skill optimize {skill}"))
            }
            O::DryRunWaiting { .. } => Some(format!(
                "commit exactly what it showed: git skill optimize {skill} --resume (add --yes not to be asked), or discard it: git skill optimize {skill} --restart"
            )),
            O::DryRunChanged { .. } => Some(format!(
                "preview again: git skill optimize {skill} --dry-run --restart"
            )),
            O::Conflicts(_) => Some(format!(
                "choose the direction, once per pair: git skill optimize {skill}{dry} --prefer SIGNAL_ID (the other stays pending); the triage answer is kept, so this repeats no model call"
            )),
            O::Llm(l) => Some(format!(
                "{}{resume}",
                l.hint().map(|h| format!("{h}; ")).unwrap_or_default()
            )),
            O::OptionsChanged { .. } => Some(format!(
                "resume with the same options, or start again with the new ones: git skill optimize {skill} --restart"
            )),
            O::ChangedDuringRun(_) => Some(format!(
                "look at the change (git status, git log); then git skill optimize {skill} --restart"
            )),
            O::InterruptedCommit { .. } => Some(format!(
                "finish or undo it first: git skill optimize {skill} --resume (a dry run changes nothing, so it cannot)"
            )),
            O::NothingToArchive { .. } => Some(format!(
                "see what is pending: git skill signals {skill}; start again with git skill optimize {skill} --restart"
            )),
            O::Diverged { .. } => Some(
                "look at git log and git status: the run's files may still be in the work tree; put them right by hand, then start again with --restart".into(),
            ),
            O::CommittedCheckpoint { path } => Some(format!(
                "remove it from git and from disk: git rm -r --cached {path} && rm -r {path}; then start again"
            )),
            O::NotADirectory { path } => Some(format!(
                "remove it ({}); git-skill creates the directory itself",
                path.display()
            )),
            O::Git(g) if g.to_string().contains("if not, remove") => Some(
                "a lock that git-skill cannot prove is its own is left alone; remove it as the message says once no git command is running, then --resume".into(),
            ),
            O::Prompt(_) => Some("check the template overrides: git skill prompt list".into()),
            _ => None,
        };
        let kind = match &error {
            O::Llm(LlmError::Config(_)) | O::Prompt(_) => ErrorKind::Config,
            O::Read { .. } | O::Store(_) | O::Checkpoint(_) => ErrorKind::Internal,
            _ => ErrorKind::User,
        };
        hinted(kind, error, hint)
    }
}

impl From<git_skill::review::ReviewError> for CommandError {
    fn from(e: git_skill::review::ReviewError) -> Self {
        use git_skill::review::ReviewError as R;
        match e {
            R::Git(e) => e.into(),
            R::Prompt(e) => e.into(),
            R::Transcript(e) => hinted(
                ErrorKind::User,
                e,
                Some("nothing was reviewed; give the transcript file the agent wrote (--agent names its format when it is not detected)".into()),
            ),
            e @ R::WrongSession { .. } => hinted(ErrorKind::User, e, None),
            e @ R::RootOutside { .. } => hinted(
                ErrorKind::Config,
                e,
                Some("set skill.autoSkill.root to a directory of skill.roots (git skill config shows both)".into()),
            ),
            R::Llm { rounds, source, log } => {
                let hint = source.hint();
                let error = CommandError::with(
                    ErrorKind::User,
                    anyhow::Error::new(source).context(format!(
                        "the review stopped after {rounds} rounds; nothing was proposed (log: {})",
                        log.display()
                    )),
                );
                match hint {
                    Some(h) => error.hint(h),
                    None => error,
                }
            }
            e @ R::Log { .. } => hinted(ErrorKind::Internal, e, None),
            e @ R::NoAnswer { .. } => hinted(
                ErrorKind::User,
                e,
                Some("give it more time (skill.autoSkill.timeout) or check the model with git skill llm ping, then run the review again".into()),
            ),
            e @ R::Busy { .. } => hinted(
                ErrorKind::User,
                e,
                Some("wait for it to end (git skill sessions shows what runs), then run this again".into()),
            ),
        }
    }
}
