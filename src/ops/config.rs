//! `git skill config`: every key, its value and where the value comes from, and the values
//! that are not valid.

use serde::Serialize;

use crate::config::{ConfigError, KEYS};
use crate::env::Env;
use crate::git::At;
use crate::guard::suppress::{Policy, PolicyError, POLICY_FILE};

#[derive(Debug, Serialize)]
pub struct Effective {
    pub keys: Vec<Row>,
    /// The values that are not valid, each naming its key and source.
    #[serde(skip)]
    pub errors: Vec<ConfigError>,
    /// The work tree's `.skillguard.yaml` could not be read: its settings are not in `keys`.
    #[serde(skip)]
    pub policy_error: Option<PolicyError>,
}

/// One key.
#[derive(Debug, Serialize)]
pub struct Row {
    /// `skill.<key>`.
    pub key: String,
    /// The `GIT_SKILL_*` variable that sets it.
    pub env: String,
    /// Every value, in order; `roots` has several, the others one at most.
    pub values: Vec<String>,
    /// Where the last value comes from.
    pub source: Option<String>,
    pub description: &'static str,
}

pub fn effective(env: &Env) -> Effective {
    let keys = KEYS
        .iter()
        .map(|spec| {
            let values = if spec.key == "roots" {
                env.config.get_all("roots")
            } else {
                env.config.get(spec.key).into_iter().collect()
            };
            Row {
                key: format!("skill.{}", spec.key),
                env: spec.env_var(),
                source: values.last().map(|v| v.source.to_string()),
                values: values.into_iter().map(|v| v.text).collect(),
                description: spec.help,
            }
        })
        .collect();
    let policy_error = env.repo.as_ref().and_then(|repo| {
        crate::guard::suppress::Policy::load(&repo.workdir().join(POLICY_FILE)).err()
    });
    Effective {
        keys,
        errors: env.config.validate_all(),
        policy_error,
    }
}

/// Puts the team's settings of the policy file as git holds it at `at` (the index for the
/// hook, the base revision in range mode) in place of the work tree's: what is checked is
/// judged by the policy of the same state. No file there means no such settings.
pub fn use_policy_at(env: &mut Env, at: At<'_>) -> Result<(), PolicyError> {
    let Some(repo) = &env.repo else {
        return Ok(());
    };
    let policy = crate::check::policy_at(repo, at)?;
    use_settings_of(env, policy.as_ref(), at);
    Ok(())
}

/// Puts the settings a range is judged by in place: the base's widened by the target's
/// ([`crate::guard::suppress::RepoSettings::widened`]; `None`: no file on that side).
pub fn use_range_settings(
    env: &mut Env,
    base: Option<&Policy>,
    target: Option<&Policy>,
    (from, to): (&str, &str),
) {
    let settings = |p: Option<&Policy>| p.map(|p| p.settings().clone()).unwrap_or_default();
    let widened = settings(base).widened(&settings(target));
    env.config.set_repo(
        &widened,
        &format!("{POLICY_FILE} at {from}, widened by {to}"),
    );
}

/// [`use_policy_at`] with the policy already read from `at` (`None`: there is no file).
pub fn use_settings_of(env: &mut Env, policy: Option<&Policy>, at: At<'_>) {
    let settings = policy.map(|p| p.settings().clone()).unwrap_or_default();
    env.config
        .set_repo(&settings, &format!("{POLICY_FILE} {at}"));
}
