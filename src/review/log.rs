//! The log of one review run, under the git directory (`$GIT_DIR/skill/reviews/<id>.json`),
//! never in the work tree: the configuration it ran with, every round (what was sent, the
//! answer, each tool call with its result or the rule that refused it, tokens, time), how it
//! ended. Arguments, answers and results are masked for credentials and cut.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::turns::{LoopEnd, RoundLog, Stop};
use super::{Options, Outcome};
use crate::agent::transcript::Conversation;
use crate::git::Repo;
use crate::llm::{Describe, Usage};

#[derive(Debug, Clone, Serialize)]
pub struct RunLog {
    pub version: u32,
    pub id: String,
    pub started: String,
    pub transcript: String,
    pub agent: String,
    pub session: Option<String>,
    pub skills_loaded: Vec<String>,
    pub model: Describe,
    /// HEAD when the review started: the proposal's parent.
    pub base: String,
    pub limits: Limits,
    /// The first request's text (system prompt and the user message with the session),
    /// masked: every later request is it plus the rounds below.
    pub prompt: Prompt,
    pub rounds: Vec<RoundLog>,
    pub stopped: Option<Stop>,
    pub outcome: Option<Outcome>,
    pub error: Option<String>,
    pub usage: Usage,
    pub elapsed_ms: u128,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Prompt {
    pub system: String,
    pub user: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Limits {
    pub max_rounds: u32,
    pub timeout_s: u64,
    pub max_new: u32,
    pub allow_create: bool,
    pub allow_optimize: bool,
    pub apply: crate::config::ApplyMode,
    pub dry_run: bool,
}

impl RunLog {
    pub fn start(
        id: &str,
        options: &Options,
        conversation: &Conversation,
        model: &Describe,
        base: gix::ObjectId,
    ) -> RunLog {
        RunLog {
            version: 1,
            id: id.to_owned(),
            started: options
                .now
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            transcript: options.transcript.display().to_string(),
            agent: conversation.agent.as_str().to_owned(),
            session: conversation.session.clone(),
            skills_loaded: conversation.skills.iter().cloned().collect(),
            model: model.clone(),
            base: base.to_string(),
            limits: Limits {
                max_rounds: options.max_rounds,
                timeout_s: options.timeout.as_secs(),
                max_new: options.max_new,
                allow_create: options.allow_create,
                allow_optimize: options.allow_optimize,
                apply: options.apply,
                dry_run: options.dry_run,
            },
            prompt: Prompt::default(),
            rounds: Vec::new(),
            stopped: None,
            outcome: None,
            error: None,
            usage: Usage::default(),
            elapsed_ms: 0,
        }
    }

    pub fn finish(
        &mut self,
        ended: &LoopEnd,
        outcome: Option<&Outcome>,
        error: Option<String>,
        elapsed: std::time::Duration,
    ) {
        self.rounds = ended.rounds.clone();
        self.stopped = error.is_none().then_some(ended.stop);
        self.outcome = outcome.cloned();
        self.error = error.map(|e| crate::redact::redact(&e));
        self.usage = ended.usage();
        self.elapsed_ms = elapsed.as_millis();
    }

    /// Writes the log (private to the user: it quotes the session).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
            crate::fsutil::private_dir(dir)?;
        }
        let mut bytes = crate::redact::to_json_pretty(self).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        crate::fsutil::write_private(path, &bytes)
    }
}

/// Where the log of review `id` goes.
pub fn path(repo: &Repo, id: &str) -> PathBuf {
    super::reviews_dir(repo).join(format!("{id}.json"))
}
