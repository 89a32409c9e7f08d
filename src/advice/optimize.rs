//! Optimize, its checkpoints and rollback, and `skill_manage`'s writes.

use super::{git::FOREIGN_LOCK, Advice, Advise, Kind};
use crate::git::GitError;
use crate::llm::LlmError;
use crate::manage::ManageError;
use crate::optimize::checkpoint::CheckpointError;
use crate::optimize::rollback::RollbackError;
use crate::optimize::{OptimizeError, RunError};

impl Advise for CheckpointError {
    fn advice(&self) -> Advice {
        Advice::user("start again without it: git skill optimize <skill> --restart")
    }
}

impl Advise for RollbackError {
    fn advice(&self) -> Advice {
        match self {
            RollbackError::Git(e @ (GitError::RevertConflict { .. } | GitError::Revert { .. })) => {
                e.advice()
                    .and("nothing was changed; resolve by hand with git revert, then commit")
            }
            RollbackError::Git(e) => e.advice(),
            RollbackError::Store(e) => e.advice(),
            RollbackError::Busy { .. } => Advice::user("wait for it to finish"),
            RollbackError::Interrupted { skill } => Advice::user(format!(
                "finish it first: git skill optimize {skill} --resume"
            )),
            RollbackError::Dirty { .. } => Advice::user(
                "commit or stash them first; a rollback must not mix with work in progress",
            ),
            RollbackError::Nothing { skill, .. } => {
                Advice::user(format!("see its history: git skill log {skill}"))
            }
            RollbackError::NotGenuine { commit, .. } => Advice::user(format!(
                "if you mean to undo that commit, read it (git show {commit}) and revert it yourself: git revert {commit}"
            )),
            RollbackError::Blocked { .. } => Advice::user(
                "the revert would bring back what the gate refuses; undo the change by hand, or change the policy for this finding with a reason (git skill allow)",
            ),
        }
    }
}

impl Advise for ManageError {
    fn advice(&self) -> Advice {
        Advice::new(Kind::Internal, "nothing was written")
    }
}

/// Optimize's errors, with the skill and the kind of run they happened in: the hints name the
/// command to run next.
impl Advise for RunError {
    fn advice(&self) -> Advice {
        let kind = match &*self.error {
            OptimizeError::Llm(LlmError::Config(_)) | OptimizeError::Prompt(_) => Kind::Config,
            OptimizeError::EvalBudget { .. } => Kind::Config,
            OptimizeError::Read { .. }
            | OptimizeError::Store(_)
            | OptimizeError::Checkpoint(_)
            | OptimizeError::EvalStore(_) => Kind::Internal,
            _ => Kind::User,
        };
        Advice::maybe(kind, run_hint(self))
    }
}

fn run_hint(run: &RunError) -> Option<String> {
    use OptimizeError as O;
    let skill = &run.skill;
    let dry = if run.dry_run { " --dry-run" } else { "" };
    let resume = format!("the checkpoint is kept: git skill optimize {skill}{dry} --resume continues without repeating the calls that answered");
    let hint = match &*run.error {
        O::Dirty { paths, .. } => format!(
            "commit or stash them first: git add -- {} && git commit, or git stash",
            paths.join(" ")
        ),
        O::NoSignals { .. } => format!(
            "record feedback first: git skill record {skill} --type corrected --scenario ... --correction ..."
        ),
        O::Busy { .. } => "wait for it to finish".into(),
        O::StaleCheckpoint { .. } => format!(
            "SKILL.md changed since that run; start again: git skill optimize {skill}{dry} --restart"
        ),
        O::NothingToResume { .. } => format!("start a run: git skill optimize {skill}"),
        O::DryRunWaiting { .. } => format!(
            "commit exactly what it showed: git skill optimize {skill} --resume (add --yes not to be asked), or discard it: git skill optimize {skill} --restart"
        ),
        O::DryRunChanged { .. } => {
            format!("preview again: git skill optimize {skill} --dry-run --restart")
        }
        O::Conflicts(_) => format!(
            "choose the direction, once per pair: git skill optimize {skill}{dry} --prefer SIGNAL_ID (the other stays pending); the triage answer is kept, so this repeats no model call"
        ),
        O::Llm(l) => format!(
            "{}{resume}",
            l.hint().map(|h| format!("{h}; ")).unwrap_or_default()
        ),
        O::OptionsChanged { .. } => format!(
            "resume with the same options, or start again with the new ones: git skill optimize {skill} --restart"
        ),
        O::ChangedDuringRun(_) => format!(
            "look at the change (git status, git log); then git skill optimize {skill} --restart"
        ),
        O::InterruptedCommit { .. } => format!(
            "finish or undo it first: git skill optimize {skill} --resume (a dry run changes nothing, so it cannot)"
        ),
        O::NothingToArchive { .. } => format!(
            "see what is pending: git skill signals {skill}; start again with git skill optimize {skill} --restart"
        ),
        O::SecretInSignal { signal, .. } => format!(
            "take the secret out of that line of {skill}'s .skillopt/pending/signal.json by hand (the line of {signal}), then run git skill optimize {skill} again (with --resume if it says a run was cut short)"
        ),
        O::Diverged { .. } => "look at git log and git status: the run's files may still be in the work tree; put them right by hand, then start again with --restart".into(),
        O::CommittedCheckpoint { path } => format!(
            "remove it from git and from disk: git rm -r --cached {path} && rm -r {path}; then start again"
        ),
        O::NotADirectory { path } => format!(
            "remove it ({}); git-skill creates the directory itself",
            path.display()
        ),
        O::Git(g) if g.to_string().contains("if not, remove") => {
            format!("{FOREIGN_LOCK}, then --resume")
        }
        O::Prompt(_) => "check the template overrides: git skill prompt list".into(),
        O::Evals(_) => format!(
            "git skill lint {skill} shows what is wrong with evals/evals.json; the replay gate runs its cases before a change lands"
        ),
        O::EvalBudget { .. } => "raise it (git config skill.evalMaxCalls N), or keep fewer cases in evals/evals.json".into(),
        O::ReplayIncomplete { .. } => resume,
        _ => return None,
    };
    Some(hint)
}

impl Advise for crate::ops::rollback::RollbackOpError {
    fn advice(&self) -> Advice {
        use crate::ops::rollback::RollbackOpError as E;
        match self {
            E::Env(e) => e.advice(),
            E::Outside(_) => Advice::bare(Kind::User),
            E::Config(e) => e.advice(),
            E::Rollback(e) => e.advice(),
        }
    }
}
