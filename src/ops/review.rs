//! `git skill review`: one session's transcript reviewed by the sandboxed review agent, under
//! the repository's review lock, with the review's settings read from the configuration.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::agent::Agent;
use crate::config::ConfigError;
use crate::env::{Env, EnvError};
use crate::llm::Settings;
use crate::progress::Progress;
use crate::prompt::{self, PromptError, Prompts};
use crate::review::{self, Report, ReviewError};

#[derive(Debug, thiserror::Error)]
pub enum ReviewOpError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Review(#[from] ReviewError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Prompt(#[from] PromptError),
}

pub struct Options {
    /// The session's transcript, relative to the current directory or absolute.
    pub transcript: PathBuf,
    pub agent: Option<Agent>,
    pub session: Option<String>,
    pub dry_run: bool,
    /// How long to wait for the transcript to exist and stop growing.
    pub wait_for_transcript: Duration,
    /// The model's settings (the provider, its key from the environment).
    pub settings: Settings,
    pub now: chrono::DateTime<chrono::Utc>,
}

pub fn review(
    env: &Env,
    options: Options,
    progress: &mut dyn Progress,
) -> Result<Report, ReviewOpError> {
    let repo = env.require_repo("review")?;
    // One review of a repository at a time, from now: a hook seeing it while this one waits
    // for its transcript does not start another.
    let running = review::lock(repo)?;
    let transcript = env.cwd.join(&options.transcript);
    if !options.wait_for_transcript.is_zero() {
        wait_for(&transcript, options.wait_for_transcript);
    }
    let config = &env.config;
    let timeout = config.auto_skill_timeout()?;
    let mut settings = options.settings;
    // No request outlives the review by much (the review itself stops at its deadline).
    settings.timeout = settings.timeout.min(timeout + Duration::from_secs(5));
    let provider: Arc<dyn crate::llm::Provider> = Arc::from(crate::llm::provider(&settings));
    let dirs = prompt::override_dirs(config, Some(repo.workdir()), &env.cwd, env.home.as_deref());
    let prompts = Prompts::load(&dirs)?;
    let review_options = review::Options {
        transcript,
        agent: options.agent,
        session: options.session,
        dry_run: options.dry_run,
        allow_create: config.auto_skill_allow_create()?,
        allow_optimize: config.auto_skill_allow_optimize()?,
        linked: config.auto_skill_linked(),
        max_rounds: config.auto_skill_max_rounds()?,
        timeout,
        max_new: config.auto_skill_max_new()?,
        apply: config.auto_skill_apply()?,
        create_root: config
            .get("autoSkill.root")
            .map(|v| v.text.trim().to_owned()),
        roots: env.repo_relative_roots().named,
        fail_on: config.fail_on()?,
        eval_max_calls: config.eval_max_calls()?,
        eval_jobs: config.parallel()?,
        now: options.now,
    };
    Ok(review::run(
        repo,
        &running,
        provider,
        &prompts,
        &review_options,
        progress,
    )?)
}

/// Waits until `path` exists and its size has not changed for half a second, or `limit`.
fn wait_for(path: &Path, limit: Duration) {
    let started = crate::clock::monotonic();
    let mut last: Option<(u64, std::time::Instant)> = None;
    while started.elapsed() < limit {
        if let Ok(meta) = std::fs::metadata(path) {
            match last {
                Some((size, since)) if size == meta.len() => {
                    if since.elapsed() >= Duration::from_millis(500) {
                        return;
                    }
                }
                _ => last = Some((meta.len(), crate::clock::monotonic())),
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
