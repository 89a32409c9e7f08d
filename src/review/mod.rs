//! `git skill review`: after an agent session, a model reads the session and saves what it
//! learned as a skill, or improves a skill it may touch, inside a sandbox (seed 000, seed 003
//! §6). The model works with tools on an in-memory overlay of the skills as HEAD holds them;
//! the work tree is never touched. What it wrote becomes one proposal commit under
//! `refs/skill-proposals/<id>` that a person inspects and accepts ([`proposals`]), or, when the
//! user chose so, is staged or committed at once. Every run leaves a log under
//! `$GIT_DIR/skill/reviews/<id>.json`.
//!
//! The library never prints: [`run`] returns a [`Report`] and reports progress through a
//! [`Progress`].

pub mod evals;
mod git_env;
pub mod log;
pub mod message;
pub mod proposals;
pub mod sandbox;
mod shell;
mod similar;
pub mod tools;
pub mod turns;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::agent::transcript::{self, Conversation, TranscriptError};
use crate::agent::Agent;
use crate::config::ApplyMode;
use crate::git::{At, FileChange, GitError, Repo};
use crate::llm::{Describe, Provider, Usage};
use crate::progress::Progress;
use crate::prompt::vars::{ReviewSystemVars, ReviewVars, ToolText};
use crate::prompt::{PromptError, PromptName, Prompts};

use sandbox::{Policy, Sandbox};
use turns::Stop;

/// Where proposals are kept.
pub const REF_PREFIX: &str = "refs/skill-proposals/";
/// The most a review may write in all.
const MAX_WRITTEN: u64 = 2 << 20;
/// The transcript's share of the prompt, in characters (about 15,000 tokens).
pub const TRANSCRIPT_BUDGET: usize = 60_000;

/// How a review runs.
#[derive(Debug, Clone)]
pub struct Options {
    pub transcript: PathBuf,
    /// The agent that wrote it; detected when `None`.
    pub agent: Option<Agent>,
    /// The session the caller expects the transcript to be.
    pub session: Option<String>,
    /// Run the model and show what would be proposed; write no reference.
    pub dry_run: bool,
    pub allow_create: bool,
    pub allow_optimize: bool,
    /// Linked skills from the configuration (the session's own are added).
    pub linked: Vec<String>,
    pub max_rounds: u32,
    pub timeout: Duration,
    pub max_new: u32,
    pub apply: ApplyMode,
    /// `skill.autoSkill.root`, relative to the top.
    pub create_root: Option<String>,
    /// The skill roots relative to the top, with labels.
    pub roots: Vec<(String, String)>,
    /// The verdict that fails a check (`skill.failOn`), for what stage and commit apply.
    pub fail_on: crate::config::FailOn,
    /// `skill.evalMaxCalls`: what the eval cases of the changed skills may cost together.
    pub eval_max_calls: usize,
    /// Eval cases at once (`skill.parallel`).
    pub eval_jobs: usize,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// One skill the review created or changed.
#[derive(Debug, Clone, Serialize)]
pub struct SkillResult {
    pub name: String,
    pub path: String,
    /// `created` or `changed`.
    pub change: &'static str,
    pub verdict: String,
    /// Files changed, relative to the skill.
    pub files: Vec<String>,
}

/// What became of the review's work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The model wrote nothing (or nothing that differs from HEAD).
    NothingToSave,
    /// A dry run: what would be proposed is in the report; no reference was written.
    DryRun,
    /// A proposal under `refname`.
    Proposed { refname: String, commit: String },
    /// Applied to the work tree and the index (`skill.autoSkill.apply=stage`).
    Staged { commit: String },
    /// Committed on the current branch (`skill.autoSkill.apply=commit`).
    Committed { commit: String },
    /// Stage or commit was asked but could not be done safely: the proposal stays.
    KeptAsProposal {
        refname: String,
        commit: String,
        reason: String,
    },
}

/// What a review did.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub id: String,
    pub session: Option<String>,
    pub agent: Agent,
    pub transcript: String,
    pub model: Describe,
    pub rounds: usize,
    pub max_rounds: u32,
    pub tool_calls: usize,
    pub denied: usize,
    pub stopped: Stop,
    pub summary: String,
    pub skills: Vec<SkillResult>,
    /// The eval cases of the skills it changed, before and after.
    pub evals: Vec<evals::EvalLine>,
    pub outcome: Outcome,
    /// The proposal's full message (also for a dry run).
    pub message: String,
    pub usage: Usage,
    pub elapsed_ms: u128,
    /// The run log.
    pub log: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    #[error("the transcript '{}' is session {found}, not {expected}", .path.display())]
    WrongSession {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Prompt(#[from] PromptError),
    #[error("the model failed after {rounds} rounds: {source}; nothing was proposed (the run log is '{}')", .log.display())]
    Llm {
        rounds: usize,
        #[source]
        source: crate::llm::LlmError,
        log: PathBuf,
    },
    #[error("skill.autoSkill.root '{root}' is not inside a skill root ({roots}); new skills there would be checked by nothing")]
    RootOutside { root: String, roots: String },
    #[error("another review of this repository is running (it holds '{}'); one at a time", .path.display())]
    Busy { path: PathBuf },
    #[error("the review ended before the model answered at all ({stopped}); nothing was reviewed (the run log is '{}')", .log.display())]
    NoAnswer { stopped: String, log: PathBuf },
    #[error("cannot write the run log '{}': {source}", .path.display())]
    Log {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Runs a review of one session, under the repository's review lock (taken with [`lock`]).
pub fn run(
    repo: &Repo,
    _running: &ReviewLock,
    provider: Arc<dyn Provider>,
    prompts: &Prompts,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Report, ReviewError> {
    let started = crate::clock::monotonic();
    let deadline = started + options.timeout;
    let conversation = transcript::read(&options.transcript, options.agent)?;
    if let (Some(expected), Some(found)) = (&options.session, &conversation.session) {
        if expected != found {
            return Err(ReviewError::WrongSession {
                path: options.transcript.clone(),
                found: found.clone(),
                expected: expected.clone(),
            });
        }
    }
    let session = conversation.session.clone().or(options.session.clone());
    let head = repo.head_commit_id()?.ok_or_else(|| GitError::UnbornHead {
        path: repo.workdir().to_owned(),
    })?;
    let at_head = crate::staged::skills_at(
        repo,
        At::Head,
        &crate::staged::Roots::with_agents(options.roots.clone()),
    )?;
    let mut linked: BTreeSet<String> = options.linked.iter().cloned().collect();
    linked.extend(conversation.skills.iter().cloned());
    let create_root = create_root(repo, options, &at_head.skills)?;
    let now = options
        .now
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let mut sandbox = Sandbox::new(
        repo.workdir(),
        repo.git_dir(),
        at_head.skills,
        Policy {
            allow_create: options.allow_create,
            allow_optimize: options.allow_optimize,
            apply: options.apply,
            linked,
            max_new: options.max_new,
            max_written: MAX_WRITTEN,
            create_root: create_root.clone(),
            now,
        },
    );
    let id = review_id(options.now, session.as_deref());
    let log_path = log::path(repo, &id);
    let turn_prompts = render_prompts(prompts, options, &conversation, &mut sandbox, &create_root)?;
    let mut run_log = log::RunLog::start(&id, options, &conversation, provider.describe(), head);
    run_log.prompt = log::Prompt {
        system: crate::redact::redact(if provider.native_tools() {
            &turn_prompts.system_native
        } else {
            &turn_prompts.system_text
        }),
        user: crate::redact::redact(&turn_prompts.user),
    };
    let ended = turns::drive(
        Arc::clone(&provider),
        &turn_prompts,
        &turns::Limits {
            max_rounds: options.max_rounds,
            deadline,
        },
        &mut sandbox,
        progress,
    );
    let ended = match ended {
        Ok(e) => e,
        Err(e) => {
            let rounds = e.partial.rounds.len();
            run_log.finish(
                &e.partial,
                None,
                Some(e.error.to_string()),
                started.elapsed(),
            );
            save(&run_log, &log_path)?;
            return Err(ReviewError::Llm {
                rounds,
                source: e.error,
                log: log_path,
            });
        }
    };
    if ended.rounds.is_empty() {
        // Not "nothing to save": nothing was looked at. A hook retries a failed review; it
        // must not take this one for done.
        let stopped = stop_text(ended.stop).to_owned();
        run_log.finish(
            &ended,
            None,
            Some(format!("no model answer ({stopped})")),
            started.elapsed(),
        );
        run_log.stopped = Some(ended.stop);
        save(&run_log, &log_path)?;
        return Err(ReviewError::NoAnswer {
            stopped,
            log: log_path,
        });
    }
    let changes = sandbox.file_changes();
    let skills = skill_results(&sandbox, &changes);
    let lines: Vec<message::SkillLine> = skills
        .iter()
        .map(|s| message::SkillLine {
            change: s.change.to_owned(),
            path: s.path.clone(),
            verdict: s.verdict.clone(),
        })
        .collect();
    // The evidence a person reads before accepting: the eval cases of each skill it changed.
    let evals = if changes.is_empty() {
        Vec::new()
    } else {
        evals::run(
            repo,
            provider.as_ref(),
            prompts,
            &skills,
            &changes,
            &evals::Limits {
                max_calls: options.eval_max_calls,
                jobs: options.eval_jobs,
                deadline,
            },
            progress,
        )
    };
    let describe = provider.describe().clone();
    let facts = message::Facts {
        summary: message::summary(&crate::redact::redact(&ended.final_text), &lines),
        session: session.clone().unwrap_or_else(|| "unknown".into()),
        agent: conversation.agent.product().to_owned(),
        model: describe.to_string(),
        rounds: format!("{} of {}", ended.rounds.len(), options.max_rounds),
        tool_calls: format!("{} ({} denied)", ended.calls(), ended.denied()),
        stopped: stop_text(ended.stop).to_owned(),
        skills: lines,
        evals: evals.clone(),
    };
    let text = message::compose(&facts, &crate::redact::redact(&ended.final_text));
    let outcome = (|| -> Result<Outcome, ReviewError> {
        if changes.is_empty() {
            return Ok(Outcome::NothingToSave);
        }
        if options.dry_run {
            return Ok(Outcome::DryRun);
        }
        let refname = format!("{REF_PREFIX}{id}");
        let commit = repo.commit_to_ref(&refname, head, &text, &changes)?;
        apply(
            repo, options, &ended, head, &refname, commit, &text, &changes,
        )
    })();
    // The log is written whatever happened.
    match &outcome {
        Ok(o) => run_log.finish(&ended, Some(o), None, started.elapsed()),
        Err(e) => run_log.finish(&ended, None, Some(e.to_string()), started.elapsed()),
    }
    save(&run_log, &log_path)?;
    let outcome = outcome?;
    Ok(Report {
        id,
        session,
        agent: conversation.agent,
        transcript: options.transcript.display().to_string(),
        model: describe,
        rounds: ended.rounds.len(),
        max_rounds: options.max_rounds,
        tool_calls: ended.calls(),
        denied: ended.denied(),
        stopped: ended.stop,
        summary: facts.summary,
        skills,
        evals,
        outcome,
        message: text,
        usage: ended.usage(),
        elapsed_ms: started.elapsed().as_millis(),
        log: log_path,
    })
}

/// `stage` and `commit`: done only when the review finished, HEAD is where it started and
/// the paths have no uncommitted changes; otherwise the proposal stays, with the reason.
#[allow(clippy::too_many_arguments)]
fn apply(
    repo: &Repo,
    options: &Options,
    ended: &turns::LoopEnd,
    head: gix::ObjectId,
    refname: &str,
    commit: gix::ObjectId,
    text: &str,
    changes: &[FileChange],
) -> Result<Outcome, ReviewError> {
    let kept = |reason: String| Outcome::KeptAsProposal {
        refname: refname.to_owned(),
        commit: commit.to_string(),
        reason,
    };
    if options.apply == ApplyMode::Propose {
        return Ok(Outcome::Proposed {
            refname: refname.to_owned(),
            commit: commit.to_string(),
        });
    }
    if ended.stop != Stop::Finished {
        return Ok(kept(format!(
            "the review did not finish ({}), so its work is not applied on its own",
            stop_text(ended.stop)
        )));
    }
    if repo.head_commit_id()? != Some(head) {
        return Ok(kept("HEAD moved while the review ran".into()));
    }
    let mut dirty = Vec::new();
    for change in changes {
        let dir = change.path.rsplit_once('/').map_or("", |(d, _)| d);
        for p in repo.dirty_paths(dir, &[])? {
            if changes.iter().any(|c| c.path == p) && !dirty.contains(&p) {
                dirty.push(p);
            }
        }
    }
    if !dirty.is_empty() {
        return Ok(kept(format!(
            "these files have uncommitted changes: {}",
            dirty.join(", ")
        )));
    }
    // What lands without a person's look passes what the pre-commit hook would ask.
    if let Err(reasons) = proposals::check_skills(
        repo,
        &options.roots,
        changes,
        options.fail_on,
        options.now.date_naive(),
    )? {
        return Ok(kept(format!(
            "the pre-commit check would refuse it: {}",
            reasons.join("; ")
        )));
    }
    let outcome = match options.apply {
        ApplyMode::Stage => {
            repo.stage_files(changes)?;
            Outcome::Staged {
                commit: commit.to_string(),
            }
        }
        _ => {
            let made = repo.commit_files(text, changes)?;
            Outcome::Committed {
                commit: made.to_string(),
            }
        }
    };
    repo.delete_ref(refname, commit)?;
    Ok(outcome)
}

fn save(run_log: &log::RunLog, path: &std::path::Path) -> Result<(), ReviewError> {
    run_log.write(path).map_err(|source| ReviewError::Log {
        path: path.to_owned(),
        source,
    })
}

fn stop_text(stop: Stop) -> &'static str {
    match stop {
        Stop::Finished => "finished",
        Stop::Rounds => "out of rounds",
        Stop::Timeout => "out of time",
    }
}

/// Where new skills go: `skill.autoSkill.root` (which must lie in a skill root, or the hook
/// and `accept` would not see its skills), else the first skill root the repository has (in
/// HEAD or the work tree), else `.agents/skills` (read by most agents) when it is a root, else
/// the first root.
fn create_root(
    repo: &Repo,
    options: &Options,
    skills: &[crate::check::Snapshot],
) -> Result<String, ReviewError> {
    let roots: Vec<&str> = options
        .roots
        .iter()
        .map(|(r, _)| r.trim_end_matches('/'))
        .collect();
    let within = |dir: &str| {
        roots
            .iter()
            .any(|r| dir == *r || dir.starts_with(&format!("{r}/")))
    };
    if let Some(root) = options
        .create_root
        .as_deref()
        .map(|r| r.trim().trim_matches('/'))
        .filter(|r| !r.is_empty())
    {
        if !within(root) {
            return Err(ReviewError::RootOutside {
                root: root.to_owned(),
                roots: roots.join(", "),
            });
        }
        return Ok(root.to_owned());
    }
    if let Some(found) = roots.iter().find(|r| {
        repo.workdir().join(r).is_dir()
            || skills.iter().any(|s| s.dir.starts_with(&format!("{r}/")))
    }) {
        return Ok((*found).to_owned());
    }
    if roots.contains(&".agents/skills") {
        return Ok(".agents/skills".to_owned());
    }
    roots
        .first()
        .map(|r| (*r).to_owned())
        .ok_or_else(|| ReviewError::RootOutside {
            root: String::new(),
            roots: String::new(),
        })
}

/// `20261202T101500Z-3fa9c1`: sortable by time, unique by a hash of the session, the
/// process and the clock.
fn review_id(now: chrono::DateTime<chrono::Utc>, session: Option<&str>) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(session.unwrap_or("").as_bytes());
    h.update(std::process::id().to_le_bytes());
    h.update(crate::clock::entropy().to_le_bytes());
    let digest = h.finalize();
    let hex: String = digest[..3].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", now.format("%Y%m%dT%H%M%SZ"))
}

fn render_prompts(
    prompts: &Prompts,
    options: &Options,
    conversation: &Conversation,
    sandbox: &mut Sandbox,
    create_root: &str,
) -> Result<turns::Prompts, ReviewError> {
    let tools: Vec<ToolText> = tools::TOOLS
        .iter()
        .map(|t| ToolText {
            name: t.name.to_owned(),
            description: t.description.to_owned(),
            parameters: (t.parameters)().to_string(),
        })
        .collect();
    let system = |text_protocol: bool| {
        prompts.render_with(
            PromptName::ReviewSystem,
            &ReviewSystemVars {
                max_rounds: options.max_rounds,
                max_calls: turns::MAX_CALLS_PER_ROUND,
                text_protocol,
                tools: tools.clone(),
            },
        )
    };
    let listing = {
        let mut ctx = tools::ToolContext {
            sandbox,
            shell_limit: Duration::from_secs(1),
        };
        tools::call(&mut ctx, "skill_list", "{}").content
    };
    let skills: Vec<serde_json::Value> = serde_json::from_str(&listing).unwrap_or_default();
    let linked: Vec<String> = sandbox
        .skills
        .iter()
        .enumerate()
        .filter(|(i, s)| s.linked && sandbox.may_change_now(*i))
        .map(|(_, s)| s.name.clone())
        .collect();
    let user = prompts.render_with(
        PromptName::Review,
        &ReviewVars {
            transcript: transcript::render(conversation, TRANSCRIPT_BUDGET),
            agent: conversation.agent.product().to_owned(),
            session: conversation.session.clone().unwrap_or_default(),
            skills,
            linked,
            allow_create: options.allow_create,
            allow_optimize: options.allow_optimize,
            max_new: options.max_new,
            create_root: create_root.to_owned(),
        },
    )?;
    Ok(turns::Prompts {
        system_native: system(false)?,
        system_text: system(true)?,
        user,
    })
}

fn skill_results(sandbox: &Sandbox, changes: &[FileChange]) -> Vec<SkillResult> {
    let mut out: Vec<SkillResult> = sandbox
        .skills
        .iter()
        .filter_map(|s| {
            let prefix = format!("{}/", s.dir);
            let files: Vec<String> = changes
                .iter()
                .filter_map(|c| c.path.strip_prefix(&prefix).map(str::to_owned))
                .collect();
            (!files.is_empty()).then(|| SkillResult {
                name: s.name.clone(),
                path: s.dir.clone(),
                change: if s.created() {
                    "created"
                } else if s.auto_skill {
                    "changed"
                } else {
                    // A person's skill, changed because the session loaded it (or the
                    // configuration links it): said in the proposal.
                    "changed-linked"
                },
                verdict: s.verdict.unwrap_or("unchecked").to_owned(),
                files,
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The lock a running review holds: `$GIT_DIR/skill/review.lock`.
fn lock_path(repo: &Repo) -> PathBuf {
    repo.git_dir().join("skill").join("review.lock")
}

/// The lock one running review of a repository holds, from before it waits for its transcript
/// to its end: a session ending meanwhile sees it and does not start another.
#[derive(Debug)]
pub struct ReviewLock {
    _lock: crate::fsutil::Lock,
}

/// Takes the review lock of `repo`; `Busy` when another review holds it. Tries for a fifth of
/// a second: a hook asking [`is_running`] holds it for an instant.
pub fn lock(repo: &Repo) -> Result<ReviewLock, ReviewError> {
    use crate::fsutil::lock::{Lock, LockError, Wait};
    let path = lock_path(repo);
    if let Some(dir) = path.parent() {
        crate::fsutil::private_dir(dir).map_err(|source| ReviewError::Log {
            path: path.clone(),
            source,
        })?;
    }
    match Lock::exclusive(&path, Wait::For(Duration::from_millis(200))) {
        Ok(lock) => Ok(ReviewLock { _lock: lock }),
        Err(LockError::Busy { path, .. }) => Err(ReviewError::Busy { path }),
        Err(LockError::Io { path, source }) => Err(ReviewError::Log { path, source }),
    }
}

/// Whether a review of this repository is running now.
pub fn is_running(repo: &Repo) -> bool {
    // Asked on every agent's SessionEnd: a FIFO there must not hang the agent's hook.
    crate::fsutil::lock::is_held(&lock_path(repo))
}

/// The directory of run logs.
pub fn reviews_dir(repo: &Repo) -> PathBuf {
    repo.git_dir().join("skill").join("reviews")
}

/// The id part of a proposal's reference name.
pub fn id_of(refname: &str) -> &str {
    refname.strip_prefix(REF_PREFIX).unwrap_or(refname)
}
