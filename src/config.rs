//! Layered configuration: flags > `GIT_SKILL_*` environment > `git config skill.*` > defaults.
//!
//! Values are kept as text with their source and parsed by typed getters when a command needs
//! them, so a bad `skill.gateThreshold` does not stop `lint`; `git skill config` checks them all.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::git::ConfigEntry;

/// Every key git-skill reads, as written after `skill.` in git config.
pub const KEYS: &[KeySpec] = &[
    KeySpec::new(
        "provider",
        "LLM provider: openai, anthropic, command, or the agent CLI you are logged into: claude-code, codex, gemini, qwen",
        None,
    ),
    KeySpec::new("model", "model name passed to the provider", None),
    KeySpec::new(
        "baseUrl",
        "API root of the provider (including /v1 for openai)",
        None,
    ),
    KeySpec::new("command", "command line of the `command` provider", None),
    KeySpec::new(
        "timeout",
        "LLM request timeout (seconds, or 30s / 2m)",
        Some("120s"),
    ),
    KeySpec::new(
        "connectTimeout",
        "LLM connection timeout (seconds, or 5s / 1m)",
        Some("10s"),
    ),
    KeySpec::new(
        "retries",
        "retries of a failed LLM request (connection errors, 408, 409, 429, 5xx)",
        Some("3"),
    ),
    KeySpec::new(
        "parallel",
        "LLM requests sent at once (gate checks, batches)",
        Some("8"),
    ),
    KeySpec::new(
        "templateDir",
        "directory whose *.j2 files override the embedded prompt templates",
        None,
    ),
    KeySpec::new(
        "roots",
        "skill roots, relative to the repository top (multi-valued; replaces the defaults)",
        None,
    ),
    KeySpec::new(
        "failOn",
        "scan verdict that fails a check: dangerous, caution or never",
        Some("dangerous"),
    ),
    KeySpec::new(
        "scanCache",
        "keep scan findings between runs, by content (in the git directory, or the user's cache directory outside a repository)",
        Some("true"),
    ),
    KeySpec::new(
        "gateThreshold",
        "share of gate checks that must pass (0..1)",
        Some("0.5"),
    ),
    KeySpec::new(
        "gateVotes",
        "judges asked per cluster in the optimize gate, each shown the skill and the signals in another order; the majority decides (1..9)",
        Some("1"),
    ),
    KeySpec::new(
        "maxGrowth",
        "largest growth of SKILL.md an optimize may cause (0.5 = +50%)",
        Some("0.5"),
    ),
    KeySpec::new(
        "evalMaxCalls",
        "model calls one `git skill eval`, one replay of optimize's gate, or the evals of one review's proposal may make; a run that would need more is refused before it starts",
        Some("200"),
    ),
    KeySpec::new(
        "evalsFromSignals",
        "optimize turns each corrected signal it resolves into an eval case of the skill (evals/evals.json), committed with the change the person approves",
        Some("true"),
    ),
    KeySpec::new(
        "autoSkill.root",
        "skill root that `git skill manage` (and the review agent) writes to, relative to the repository top [default: the first default root that exists]",
        None,
    ),
    KeySpec::new(
        "autoSkill.enabled",
        "opt in to reviews started by an agent's session-end hook (`git skill review` by hand needs no opt-in)",
        Some("false"),
    ),
    KeySpec::new(
        "autoSkill.threshold",
        "tool calls in a session before a hook starts a review",
        Some("20"),
    ),
    KeySpec::new(
        "autoSkill.allowCreate",
        "the review may create new skills",
        Some("true"),
    ),
    KeySpec::new(
        "autoSkill.allowOptimize",
        "the review may change skills it is allowed to touch (auto-skill ones, linked ones in propose mode)",
        Some("true"),
    ),
    KeySpec::new(
        "autoSkill.linked",
        "skills a review may improve besides those the session loaded (multi-valued names)",
        None,
    ),
    KeySpec::new(
        "autoSkill.maxRounds",
        "model rounds of one review (1..32)",
        Some("8"),
    ),
    KeySpec::new(
        "autoSkill.timeout",
        "wall-clock limit of one review (seconds, or 30s / 2m)",
        Some("120s"),
    ),
    KeySpec::new(
        "autoSkill.maxNew",
        "new skills one review may create (0..10)",
        Some("2"),
    ),
    KeySpec::new(
        "autoSkill.apply",
        "what a review does with its result: propose (a ref under refs/skill-proposals/), stage (work tree and index) or commit",
        Some("propose"),
    ),
];

/// The default skill roots, relative to the repository top: the `skills/` of every agent
/// folder the registry knows, then `skills/` and `agents/skills/` by convention.
pub fn default_roots() -> Vec<String> {
    crate::skill::loader::agent_roots()
        .chain(
            crate::skill::loader::CONVENTION_ROOTS
                .iter()
                .map(|r| (*r).to_owned()),
        )
        .collect()
}

/// `GIT_SKILL_*` variables that are not configuration keys: the clock for reproducible runs
/// and tests (RFC 3339), the switch that rewrites generated test tables, and the crash
/// points of optimize's recovery tests.
pub const NOT_CONFIG_ENV: &[&str] = &[
    "GIT_SKILL_NOW",
    "GIT_SKILL_BLESS",
    "GIT_SKILL_FAILPOINT",
    "GIT_SKILL_PURPOSE",
];

/// User-level roots, relative to HOME, looked at by the dashboard on request: the agents'
/// user-level `skills/` folders the registry lists.
pub fn user_roots() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for agent in crate::registry::all() {
        for file in agent.user_files {
            if let Some(rel) = file.strip_prefix("~/").filter(|f| f.ends_with("/skills")) {
                if !out.iter().any(|o| o == rel) {
                    out.push(rel.to_owned());
                }
            }
        }
    }
    out
}

#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    pub key: &'static str,
    pub help: &'static str,
    pub default: Option<&'static str>,
}

impl KeySpec {
    const fn new(key: &'static str, help: &'static str, default: Option<&'static str>) -> Self {
        KeySpec { key, help, default }
    }

    /// `GIT_SKILL_BASE_URL` for `baseUrl`, `GIT_SKILL_AUTO_SKILL_ENABLED` for `autoSkill.enabled`.
    pub fn env_var(&self) -> String {
        let mut out = String::from("GIT_SKILL_");
        for (i, c) in self.key.chars().enumerate() {
            if c == '.' {
                out.push('_');
            } else if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
                out.push(c);
            } else {
                out.push(c.to_ascii_uppercase());
            }
        }
        out
    }
}

/// Where a value came from, for `git skill config` and for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Flag(String),
    Env(String),
    Git(String),
    /// The repository's `.skillguard.yaml` (where it was read: the work tree, the index, a
    /// revision).
    Repo(String),
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag(flag) => write!(f, "flag {flag}"),
            Source::Env(var) => write!(f, "environment {var}"),
            Source::Git(origin) => write!(f, "git config ({origin})"),
            Source::Repo(origin) => f.write_str(origin),
            Source::Default => f.write_str("default"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub text: String,
    pub source: Source,
}

/// A value that does not parse; the message names the key and where the value came from.
#[derive(Debug, thiserror::Error)]
#[error("invalid value '{value}' for skill.{key} (from {source_}): {reason}")]
pub struct ConfigError {
    pub key: &'static str,
    pub value: String,
    pub source_: Source,
    pub reason: String,
}

/// The resolved configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Per known key, every value in precedence order (lowest first).
    layers: Vec<(&'static str, Vec<Value>)>,
    warnings: Vec<String>,
}

impl Config {
    /// Builds the configuration from git's `skill.*` entries and the process environment
    /// (`env` yields `(name, value)` pairs; only `GIT_SKILL_*` ones are looked at).
    pub fn resolve(git: &[ConfigEntry], env: impl IntoIterator<Item = (String, String)>) -> Config {
        let mut config = Config {
            layers: KEYS.iter().map(|k| (k.key, Vec::new())).collect(),
            warnings: Vec::new(),
        };
        for entry in git {
            match lookup(&entry.key) {
                Some(spec) => config.push(
                    spec.key,
                    entry.value.clone(),
                    Source::Git(entry.origin.clone()),
                ),
                None => config.warnings.push(format!(
                    "unknown config key 'skill.{}' in {} (known keys: {})",
                    entry.key,
                    entry.origin,
                    KEYS.iter().map(|k| k.key).collect::<Vec<_>>().join(", ")
                )),
            }
        }
        let mut env: Vec<(String, String)> = env
            .into_iter()
            .filter(|(name, _)| {
                name.starts_with("GIT_SKILL_") && !NOT_CONFIG_ENV.contains(&name.as_str())
            })
            .collect();
        env.sort();
        for (name, value) in env {
            match KEYS.iter().find(|k| env_matches(k, &name)) {
                Some(spec) if spec.key == "roots" || spec.key == "autoSkill.linked" => {
                    // Like PATH: one variable, several values.
                    config.clear(spec.key);
                    for root in value.split(':').filter(|r| !r.is_empty()) {
                        config.push(spec.key, root.to_owned(), Source::Env(name.clone()));
                    }
                }
                Some(spec) => {
                    config.clear(spec.key);
                    config.push(spec.key, value, Source::Env(name));
                }
                None => config
                    .warnings
                    .push(format!("unknown environment variable {name} (git-skill reads GIT_SKILL_<KEY> for the keys of `git skill config`)")),
            }
        }
        config
    }

    /// Sets a value from a command-line flag; it wins over every other layer.
    pub fn set_flag(&mut self, key: &'static str, flag: &str, values: &[String]) {
        if values.is_empty() {
            return;
        }
        self.clear(key);
        for value in values {
            self.push(key, value.clone(), Source::Flag(flag.to_owned()));
        }
    }

    /// Puts the repository's settings (`.skillguard.yaml`, read at `origin`) under every
    /// other layer, in place of any read before: flags, environment and git config win.
    pub fn set_repo(&mut self, settings: &crate::guard::suppress::RepoSettings, origin: &str) {
        let source = || Source::Repo(origin.to_owned());
        let fail_on: Vec<String> = settings.fail_on.iter().cloned().collect();
        for (key, values) in [("failOn", &fail_on), ("roots", &settings.roots)] {
            if let Some((_, layer)) = self.layers.iter_mut().find(|(k, _)| *k == key) {
                layer.retain(|v| !matches!(v.source, Source::Repo(_)));
                let below: Vec<Value> = values
                    .iter()
                    .map(|text| Value {
                        text: text.clone(),
                        source: source(),
                    })
                    .collect();
                layer.splice(0..0, below);
            }
        }
    }

    fn push(&mut self, key: &'static str, text: String, source: Source) {
        if let Some((_, values)) = self.layers.iter_mut().find(|(k, _)| *k == key) {
            values.push(Value { text, source });
        }
    }

    fn clear(&mut self, key: &'static str) {
        if let Some((_, values)) = self.layers.iter_mut().find(|(k, _)| *k == key) {
            values.clear();
        }
    }

    /// Warnings about unknown keys, for the binary to print.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The effective value of a key: the last one set, or the default.
    pub fn get(&self, key: &str) -> Option<Value> {
        let spec = lookup(key)?;
        let values = &self.layers.iter().find(|(k, _)| *k == spec.key)?.1;
        values.last().cloned().or_else(|| {
            spec.default.map(|d| Value {
                text: d.to_owned(),
                source: Source::Default,
            })
        })
    }

    /// All values of a multi-valued key from the layer that sets it (the repository's
    /// `.skillguard.yaml` only when nothing above it does).
    pub fn get_all(&self, key: &str) -> Vec<Value> {
        let values = lookup(key)
            .and_then(|spec| self.layers.iter().find(|(k, _)| *k == spec.key))
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let repo = |v: &Value| matches!(v.source, Source::Repo(_));
        match values.iter().all(repo) {
            true => values,
            false => values.into_iter().filter(|v| !repo(v)).collect(),
        }
    }

    /// Configured roots, or `None` for the defaults. Empty entries are ignored.
    pub fn roots(&self) -> Option<Vec<PathBuf>> {
        let roots: Vec<PathBuf> = self
            .get_all("roots")
            .into_iter()
            .filter(|v| !v.text.trim().is_empty())
            .map(|v| PathBuf::from(v.text.trim()))
            .collect();
        (!roots.is_empty()).then_some(roots)
    }

    pub fn fail_on(&self) -> Result<FailOn, ConfigError> {
        self.parse("failOn", |s| match s.to_ascii_lowercase().as_str() {
            "dangerous" => Ok(FailOn::Dangerous),
            "caution" => Ok(FailOn::Caution),
            "never" => Ok(FailOn::Never),
            _ => Err("expected dangerous, caution or never".to_owned()),
        })
        .map(|v| v.unwrap_or(FailOn::Dangerous))
    }

    pub fn gate_threshold(&self) -> Result<f64, ConfigError> {
        self.parse("gateThreshold", parse_ratio)
            .map(|v| v.unwrap_or(0.5))
    }

    pub fn gate_votes(&self) -> Result<u32, ConfigError> {
        self.parse("gateVotes", |s| {
            s.parse::<u32>()
                .ok()
                .filter(|n| (1..=9).contains(n))
                .ok_or_else(|| "expected a whole number from 1 to 9".to_owned())
        })
        .map(|v| v.unwrap_or(1))
    }

    pub fn max_growth(&self) -> Result<f64, ConfigError> {
        self.parse("maxGrowth", |s| {
            let v: f64 = s
                .parse()
                .map_err(|_| "expected a number such as 0.5".to_owned())?;
            if v.is_finite() && v >= 0.0 {
                Ok(v)
            } else {
                Err("expected a number >= 0".to_owned())
            }
        })
        .map(|v| v.unwrap_or(0.5))
    }

    pub fn eval_max_calls(&self) -> Result<usize, ConfigError> {
        self.parse("evalMaxCalls", |s| {
            s.parse::<usize>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| "expected a whole number of at least 1".to_owned())
        })
        .map(|v| v.unwrap_or(200))
    }

    pub fn evals_from_signals(&self) -> Result<bool, ConfigError> {
        self.parse("evalsFromSignals", parse_bool)
            .map(|v| v.unwrap_or(true))
    }

    pub fn timeout(&self) -> Result<Duration, ConfigError> {
        self.parse("timeout", parse_duration)
            .map(|v| v.unwrap_or(Duration::from_secs(120)))
    }

    pub fn connect_timeout(&self) -> Result<Duration, ConfigError> {
        self.parse("connectTimeout", parse_duration)
            .map(|v| v.unwrap_or(Duration::from_secs(10)))
    }

    pub fn retries(&self) -> Result<u32, ConfigError> {
        self.parse("retries", |s| {
            s.parse::<u32>()
                .ok()
                .filter(|n| *n <= 10)
                .ok_or_else(|| "expected a whole number from 0 to 10".to_owned())
        })
        .map(|v| v.unwrap_or(3))
    }

    pub fn parallel(&self) -> Result<usize, ConfigError> {
        self.parse("parallel", |s| {
            s.parse::<usize>()
                .ok()
                .filter(|n| (1..=64).contains(n))
                .ok_or_else(|| "expected a whole number from 1 to 64".to_owned())
        })
        .map(|v| v.unwrap_or(8))
    }

    pub fn provider(&self) -> Result<Option<String>, ConfigError> {
        self.parse("provider", |s| match s.to_ascii_lowercase().as_str() {
            p @ ("openai" | "anthropic" | "command" | "claude-code" | "codex" | "gemini"
            | "qwen") => Ok(p.to_owned()),
            _ => Err(
                "expected openai, anthropic, command, claude-code, codex, gemini or qwen"
                    .to_owned(),
            ),
        })
    }

    pub fn auto_skill_enabled(&self) -> Result<bool, ConfigError> {
        self.parse("autoSkill.enabled", parse_bool)
            .map(|v| v.unwrap_or(false))
    }

    pub fn scan_cache(&self) -> Result<bool, ConfigError> {
        self.parse("scanCache", parse_bool)
            .map(|v| v.unwrap_or(true))
    }

    pub fn auto_skill_threshold(&self) -> Result<u32, ConfigError> {
        self.parse("autoSkill.threshold", |s| {
            s.parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| "expected a whole number > 0".to_owned())
        })
        .map(|v| v.unwrap_or(20))
    }

    pub fn auto_skill_allow_create(&self) -> Result<bool, ConfigError> {
        self.parse("autoSkill.allowCreate", parse_bool)
            .map(|v| v.unwrap_or(true))
    }

    pub fn auto_skill_allow_optimize(&self) -> Result<bool, ConfigError> {
        self.parse("autoSkill.allowOptimize", parse_bool)
            .map(|v| v.unwrap_or(true))
    }

    /// Names from `autoSkill.linked`, empty entries dropped.
    pub fn auto_skill_linked(&self) -> Vec<String> {
        self.get_all("autoSkill.linked")
            .into_iter()
            .map(|v| v.text.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect()
    }

    pub fn auto_skill_max_rounds(&self) -> Result<u32, ConfigError> {
        self.parse("autoSkill.maxRounds", |s| {
            s.parse::<u32>()
                .ok()
                .filter(|n| (1..=32).contains(n))
                .ok_or_else(|| "expected a whole number from 1 to 32".to_owned())
        })
        .map(|v| v.unwrap_or(8))
    }

    pub fn auto_skill_timeout(&self) -> Result<Duration, ConfigError> {
        self.parse("autoSkill.timeout", parse_duration)
            .map(|v| v.unwrap_or(Duration::from_secs(120)))
    }

    pub fn auto_skill_max_new(&self) -> Result<u32, ConfigError> {
        self.parse("autoSkill.maxNew", |s| {
            s.parse::<u32>()
                .ok()
                .filter(|n| *n <= 10)
                .ok_or_else(|| "expected a whole number from 0 to 10".to_owned())
        })
        .map(|v| v.unwrap_or(2))
    }

    pub fn auto_skill_apply(&self) -> Result<ApplyMode, ConfigError> {
        self.parse("autoSkill.apply", |s| {
            match s.to_ascii_lowercase().as_str() {
                "propose" => Ok(ApplyMode::Propose),
                "stage" => Ok(ApplyMode::Stage),
                "commit" => Ok(ApplyMode::Commit),
                _ => Err("expected propose, stage or commit".to_owned()),
            }
        })
        .map(|v| v.unwrap_or(ApplyMode::Propose))
    }

    /// Checks every key that has a value; used by `git skill config`.
    pub fn validate_all(&self) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        let mut check = |r: Result<(), ConfigError>| {
            if let Err(e) = r {
                errors.push(e);
            }
        };
        check(self.fail_on().map(drop));
        check(self.scan_cache().map(drop));
        check(self.gate_threshold().map(drop));
        check(self.gate_votes().map(drop));
        check(self.max_growth().map(drop));
        check(self.timeout().map(drop));
        check(self.connect_timeout().map(drop));
        check(self.retries().map(drop));
        check(self.parallel().map(drop));
        check(self.provider().map(drop));
        check(self.auto_skill_enabled().map(drop));
        check(self.auto_skill_threshold().map(drop));
        check(self.auto_skill_allow_create().map(drop));
        check(self.auto_skill_allow_optimize().map(drop));
        check(self.auto_skill_max_rounds().map(drop));
        check(self.auto_skill_timeout().map(drop));
        check(self.auto_skill_max_new().map(drop));
        check(self.auto_skill_apply().map(drop));
        errors
    }

    fn parse<T>(
        &self,
        key: &'static str,
        f: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, ConfigError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        f(value.text.trim())
            .map(Some)
            .map_err(|reason| ConfigError {
                key,
                value: value.text.clone(),
                source_: value.source.clone(),
                reason,
            })
    }
}

/// What a review does with its result (`skill.autoSkill.apply`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ApplyMode {
    /// A commit under `refs/skill-proposals/<id>`; the work tree is untouched.
    Propose,
    /// The proposal applied to the work tree and the index.
    Stage,
    /// Applied and committed on the current branch.
    Commit,
}

/// Which scan verdict fails a check (`skill.failOn`, `--fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    Dangerous,
    Caution,
    Never,
}

impl FailOn {
    /// Whether a skill with this verdict fails the check.
    pub fn fails(self, verdict: crate::guard::Verdict) -> bool {
        use crate::guard::Verdict;
        match self {
            FailOn::Dangerous => verdict == Verdict::Dangerous,
            FailOn::Caution => verdict >= Verdict::Caution,
            FailOn::Never => false,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Dangerous => "dangerous",
            FailOn::Caution => "caution",
            FailOn::Never => "never",
        }
    }
}

fn lookup(key: &str) -> Option<&'static KeySpec> {
    // git lowercases section and key names; subsections keep their case. Compare loosely so
    // `skill.autoskill.enabled` and `skill.autoSkill.enabled` mean the same.
    KEYS.iter().find(|k| k.key.eq_ignore_ascii_case(key))
}

fn env_matches(spec: &KeySpec, var: &str) -> bool {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '.')
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    var.strip_prefix("GIT_SKILL_")
        .is_some_and(|rest| squash(rest) == squash(spec.key))
}

fn parse_ratio(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| "expected a number between 0 and 1".to_owned())?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err("expected a number between 0 and 1".to_owned())
    }
}

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Ok(true),
        "false" | "no" | "off" | "0" | "" => Ok(false),
        _ => Err("expected true or false".to_owned()),
    }
}

/// `90`, `90s`, `2m`, `1h`, `500ms`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let err = || format!("expected a duration such as 90, 90s, 2m or 500ms, got '{s}'");
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: u64 = digits.parse().map_err(|_| err())?;
    let d = match unit.trim() {
        "" | "s" => Duration::from_secs(n),
        "ms" => Duration::from_millis(n),
        "m" => Duration::from_secs(n.checked_mul(60).ok_or_else(err)?),
        "h" => Duration::from_secs(n.checked_mul(3600).ok_or_else(err)?),
        _ => return Err(err()),
    };
    if d.is_zero() {
        return Err("a timeout of zero would fail every call".to_owned());
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repositorys_settings_lie_under_every_layer() {
        use crate::guard::suppress::RepoSettings;
        let repo = RepoSettings {
            fail_on: Some("caution".into()),
            roots: vec!["prompts".into()],
        };
        let mut c = Config::resolve(&[], []);
        c.set_repo(&repo, ".skillguard.yaml");
        assert_eq!(c.fail_on().unwrap(), FailOn::Caution);
        assert_eq!(c.roots(), Some(vec![PathBuf::from("prompts")]));
        assert_eq!(
            c.get("failOn").unwrap().source,
            Source::Repo(".skillguard.yaml".into())
        );
        // Git config wins, for a single value and for a list.
        let entries = [git("failOn", "never"), git("roots", "team")];
        let mut c = Config::resolve(&entries, []);
        c.set_repo(&repo, ".skillguard.yaml");
        assert_eq!(c.fail_on().unwrap(), FailOn::Never);
        assert_eq!(c.roots(), Some(vec![PathBuf::from("team")]));
        // Another revision's file replaces the first; an empty one takes its values away.
        let mut c = Config::resolve(&[], [("GIT_SKILL_FAIL_ON".into(), "dangerous".into())]);
        c.set_repo(&repo, ".skillguard.yaml");
        c.set_repo(&RepoSettings::default(), ".skillguard.yaml (staged)");
        assert_eq!(c.fail_on().unwrap(), FailOn::Dangerous);
        assert_eq!(c.roots(), None);
        c.set_flag("failOn", "--fail-on", &["never".into()]);
        c.set_repo(&repo, ".skillguard.yaml at main");
        assert_eq!(c.fail_on().unwrap(), FailOn::Never);
    }

    fn git(key: &str, value: &str) -> ConfigEntry {
        ConfigEntry {
            key: key.into(),
            value: value.into(),
            origin: ".git/config".into(),
        }
    }

    #[test]
    fn env_var_names() {
        let names: Vec<String> = KEYS.iter().map(|k| k.env_var()).collect();
        assert!(names.contains(&"GIT_SKILL_BASE_URL".to_owned()));
        assert!(names.contains(&"GIT_SKILL_AUTO_SKILL_ENABLED".to_owned()));
        assert!(names.contains(&"GIT_SKILL_FAIL_ON".to_owned()));
    }

    #[test]
    fn precedence_flag_env_git_default() {
        let entries = [git("failOn", "never")];
        let c = Config::resolve(&entries, []);
        assert_eq!(c.fail_on().unwrap(), FailOn::Never);
        let mut c = Config::resolve(&entries, [("GIT_SKILL_FAIL_ON".into(), "caution".into())]);
        assert_eq!(c.fail_on().unwrap(), FailOn::Caution);
        c.set_flag("failOn", "--fail-on", &["dangerous".into()]);
        assert_eq!(c.fail_on().unwrap(), FailOn::Dangerous);
        assert_eq!(
            Config::resolve(&[], []).fail_on().unwrap(),
            FailOn::Dangerous
        );
        assert_eq!(
            Config::resolve(&[], []).get("failOn").unwrap().source,
            Source::Default
        );
    }

    #[test]
    fn env_accepts_squashed_names() {
        let c = Config::resolve(&[], [("GIT_SKILL_BASEURL".into(), "http://x/v1".into())]);
        assert_eq!(c.get("baseUrl").unwrap().text, "http://x/v1");
        assert!(c.warnings().is_empty());
    }

    #[test]
    fn roots_accumulate_in_git_and_are_replaced_by_env() {
        let entries = [git("roots", "a"), git("ROOTS", "b")];
        let c = Config::resolve(&entries, []);
        assert_eq!(
            c.roots().unwrap(),
            vec![PathBuf::from("a"), PathBuf::from("b")]
        );
        let c = Config::resolve(&entries, [("GIT_SKILL_ROOTS".into(), "x:y".into())]);
        assert_eq!(
            c.roots().unwrap(),
            vec![PathBuf::from("x"), PathBuf::from("y")]
        );
        assert!(Config::resolve(&[], []).roots().is_none());
    }

    #[test]
    fn unknown_keys_warn_and_bad_values_error_with_source() {
        let entries = [
            git("colour", "x"),
            git("gateThreshold", "1.5"),
            git("autoskill.enabled", "maybe"),
        ];
        let c = Config::resolve(&entries, [("GIT_SKILL_NOPE".into(), "1".into())]);
        assert_eq!(c.warnings().len(), 2);
        assert!(c.warnings()[0].contains("skill.colour"));
        let errors = c.validate_all();
        assert_eq!(errors.len(), 2);
        let msg = errors[0].to_string();
        assert!(
            msg.contains("gateThreshold") && msg.contains(".git/config"),
            "{msg}"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("x").is_err());
        assert!(parse_duration("99999999999999999999h").is_err());
    }
}
