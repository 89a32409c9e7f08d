//! One library operation per command, the way gitoxide-core has them: `Options` in, a report
//! out that serialises to the command's JSON, nothing printed. The binary turns arguments into
//! options and renders the report (text, JSON); what an operation passed over (a malformed
//! line, an unreadable store) is in the report, for the renderer to show as a warning or an
//! error.

pub mod agent_guard;
pub mod agent_hook;
mod agent_judge;
pub mod agent_watch;
pub mod allow;
pub mod baseline;
pub mod config;
pub mod diff;
pub mod doctor;
pub mod eval;
#[cfg(test)]
mod gate_table;
mod hook_log;
pub mod init;
pub mod lint;
pub mod list;
pub mod llm;
pub mod log;
pub mod manage;
pub mod pre_commit;
pub mod prompt;
pub mod proposals;
pub mod quarantine;
pub mod record;
pub mod review;
pub mod rollback;
pub mod rules;
pub mod scan;
pub mod sessions;
pub mod signals;

/// Times in reports: RFC 3339 to the second, in UTC (`2026-11-30T09:00:00Z`).
pub(crate) mod time {
    use chrono::{DateTime, SecondsFormat, Utc};

    pub fn secs<S: serde::Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_some(&t.to_rfc3339_opts(SecondsFormat::Secs, true)),
            None => s.serialize_none(),
        }
    }
}

/// The scan cache of `env` (`guard::cache`): the repository's, or the user's outside one;
/// none when `on` is false, there is nowhere to keep it, or no key to sign its entries with
/// (the run is then only slower: nothing is said). Leaked: scan options hold it by reference,
/// and a command opens one for the life of its process.
pub(crate) fn scan_cache(
    env: &crate::env::Env,
    on: bool,
) -> Option<&'static crate::guard::cache::ScanCache> {
    let base = cache_base(env).filter(|_| on)?;
    let cache = crate::guard::cache::ScanCache::open(
        &base,
        env.config_home.as_deref(),
        env.home.as_deref(),
    )
    .ok()?;
    Some(Box::leak(Box::new(cache)))
}

/// Where `env`'s scan cache lives: none in a repository owned by someone else.
pub(crate) fn cache_base(env: &crate::env::Env) -> Option<std::path::PathBuf> {
    match &env.repo {
        // Someone else's repository: nothing of ours is written into it.
        Some(repo) if repo.is_untrusted() => None,
        Some(repo) => Some(repo.scan_cache_dir()),
        None => crate::guard::cache::user_dir(env.cache_home.as_deref(), env.home.as_deref()),
    }
}

/// The skills a change touches, before and after, each with its directory as the user should
/// see it: what the gate judges.
pub(crate) fn changes(
    env: &crate::env::Env,
    repo: &crate::git::Repo,
    changed: Vec<crate::staged::SkillChange>,
) -> Vec<crate::check::Change> {
    changed
        .into_iter()
        .map(|c| crate::check::Change {
            display: env.display(&repo.workdir().join(&c.after.dir)),
            before: c.before,
            after: c.after,
        })
        .collect()
}

/// What a walk for skills passed over, in the order it met it: each but a warning note makes
/// the run exit 2 (nothing passes by not being looked at).
#[derive(Debug)]
pub enum Skipped {
    /// A link, a submodule, a folder that could not be read.
    Note(crate::skill::discover::Note),
    /// A path named that holds no skill or cannot be read.
    Path(crate::skill::discover::PathError),
    /// A skill whose files cannot be read.
    Unreadable(crate::skill::files::ReadError),
}

/// The skills named by `paths` (every skill of the roots when none), and what the walk passed
/// over; `command` names the command in an error about having nothing to check.
pub(crate) fn walk(
    env: &crate::env::Env,
    paths: &[std::path::PathBuf],
    command: &str,
) -> Result<(crate::skill::Discovery, Vec<Skipped>), crate::env::EnvError> {
    let named = env.skills(paths, command)?;
    let mut skipped: Vec<Skipped> = named.errors.into_iter().map(Skipped::Path).collect();
    let mut found = named.found;
    let notes = std::mem::take(&mut found.notes);
    skipped.extend(notes.into_iter().map(Skipped::Note));
    Ok((found, skipped))
}
