//! `git skill doctor`: what a team's setup lacks, each finding with what to do: git-skill and
//! git on the PATH the hooks use, the commit hooks installed and current, the skill roots and
//! their skills, the model the review and optimize need (and, asked for, whether it answers),
//! each agent's hooks installed and the folder trusted where the agent asks for that, the
//! scan cache, and locks left in the git directory.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::agent::settings::{self, Places, Scope};
use crate::agent::Agent;
use crate::env::Env;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Works, but something a team would want is missing.
    Warn,
    /// Something git-skill promises does not work here.
    Problem,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: String,
    pub status: Status,
    pub detail: String,
    /// What to do, when it is not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Doctor {
    pub checks: Vec<Check>,
}

impl Doctor {
    pub fn problems(&self) -> usize {
        self.checks
            .iter()
            .filter(|c| c.status == Status::Problem)
            .count()
    }
}

/// What the model check found (the caller asks the model: the binary renders the wait).
#[derive(Debug, Clone)]
pub enum Model {
    /// No provider configured.
    Unset,
    /// Configured; not asked (`--no-ping`).
    NotAsked {
        describe: String,
    },
    Answered {
        describe: String,
        latency_ms: u64,
    },
    Failed {
        describe: String,
        error: String,
    },
}

pub struct Options {
    /// The PATH the hooks run with (the agent's, or this shell's).
    pub path: Option<std::ffi::OsString>,
    pub codex_home: Option<PathBuf>,
    pub copilot_home: Option<PathBuf>,
    pub model: Model,
    /// The git-skill binary the hooks should run (this one, by its absolute path).
    pub bin: PathBuf,
}

/// Whether a model is configured at all: a provider set, or the variables that choose one
/// (`var` reads the environment), and settings that resolve.
pub fn model_configured(
    config: &crate::config::Config,
    var: impl Fn(&str) -> Option<String> + Copy,
) -> bool {
    model_chosen(config, var) && crate::llm::Settings::resolve(config, var).is_ok()
}

/// The model check: the configured provider, asked one tiny question when `ask` (`asking`
/// hears which provider is asked, before the request leaves).
pub fn check_model(
    config: &crate::config::Config,
    var: impl Fn(&str) -> Option<String> + Copy,
    ask: bool,
    asking: impl FnOnce(&crate::llm::Describe),
) -> Model {
    if !model_chosen(config, var) {
        return Model::Unset;
    }
    let settings = match crate::llm::Settings::resolve(config, var) {
        Ok(s) => s,
        Err(e) => {
            return Model::Failed {
                describe: "the configured provider".into(),
                error: e.to_string(),
            }
        }
    };
    let describe =
        |d: &crate::llm::Describe| format!("{} {} at {}", d.provider, d.model, d.endpoint);
    if !ask {
        return Model::NotAsked {
            describe: describe(crate::llm::provider(&settings).describe()),
        };
    }
    let mut shown = String::new();
    let ping = super::llm::ping(&settings, |d| {
        shown = describe(d);
        asking(d);
    });
    match ping {
        Ok(p) => Model::Answered {
            describe: shown,
            latency_ms: p.latency_ms,
        },
        Err(e) => Model::Failed {
            describe: shown,
            error: e.to_string(),
        },
    }
}

/// Whether a provider is set, or a setting or variable that chooses one (what
/// [`crate::llm::Settings::resolve`] would otherwise fall back from: `skill.command`, the keys).
pub fn model_chosen(config: &crate::config::Config, var: impl Fn(&str) -> Option<String>) -> bool {
    config.provider().ok().flatten().is_some()
        || config
            .get("command")
            .is_some_and(|v| !v.text.trim().is_empty())
        || ["GIT_SKILL_BASE_URL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"]
            .iter()
            .any(|v| var(v).is_some_and(|x| !x.is_empty()))
}

pub fn doctor(env: &Env, options: &Options) -> Doctor {
    let mut checks = Vec::new();
    let mut add = |name: &str, status: Status, detail: String, fix: Option<&str>| {
        checks.push(Check {
            name: name.to_owned(),
            status,
            detail,
            fix: fix.map(str::to_owned),
        })
    };
    match on_path(options.path.as_deref(), "git-skill") {
        Some(p) => add(
            "git-skill on PATH",
            Status::Ok,
            p.display().to_string(),
            None,
        ),
        None => add(
            "git-skill on PATH",
            Status::Problem,
            "not found: the commit hooks and the agents' hooks run `git-skill`".into(),
            Some("put the folder of the binary on PATH (cargo install puts it in ~/.cargo/bin)"),
        ),
    }
    match on_path(options.path.as_deref(), "git") {
        Some(p) => add("git on PATH", Status::Ok, p.display().to_string(), None),
        None => add(
            "git on PATH",
            Status::Problem,
            "not found".into(),
            Some("install git"),
        ),
    }
    let Some(repo) = &env.repo else {
        add(
            "repository",
            Status::Warn,
            "not in a git repository: only the user-level checks ran".into(),
            Some("run git skill doctor in the repository whose skills you check"),
        );
        return Doctor { checks };
    };
    let top = repo.workdir().to_owned();
    let hooks_dir = repo.hooks_dir(env.home.as_deref());
    if crate::git::hooks::current(&hooks_dir) {
        add(
            "commit hooks",
            Status::Ok,
            format!("installed in {}", hooks_dir.display()),
            None,
        );
    } else {
        let any = ["pre-commit", "pre-merge-commit"].iter().any(|h| {
            crate::fsutil::read_to_string(&hooks_dir.join(h)).is_ok_and(|t| t.contains("git-skill"))
        });
        add(
            "commit hooks",
            Status::Problem,
            if any {
                "installed by another version of git-skill".into()
            } else {
                format!("not installed in {}", hooks_dir.display())
            },
            Some("git skill hook install (or use the pre-commit framework's git-skill-guard hook)"),
        );
    }
    let roots = env.roots();
    let found = crate::skill::discover::discover(&roots, Some(&top));
    // The roots that exist, as the person names them (from the top).
    let names: Vec<String> = roots
        .iter()
        .filter(|r| r.path.is_dir())
        .map(|r| {
            r.path
                .strip_prefix(&top)
                .unwrap_or(&r.path)
                .display()
                .to_string()
        })
        .collect();
    let (status, fix) = match found.skills.len() {
        0 => (
            Status::Warn,
            Some("add a skill under .claude/skills/<name>/SKILL.md (or another agent's root), or name your folder in .skillguard.yaml `roots:`"),
        ),
        _ => (Status::Ok, None),
    };
    add(
        "skills",
        status,
        match names.is_empty() {
            true => "no skill root here".to_owned(),
            false => format!(
                "{} in {}",
                crate::report::plural(found.skills.len(), "skill"),
                names.join(", ")
            ),
        },
        fix,
    );
    let review_on = env.config.auto_skill_enabled().unwrap_or(false);
    match &options.model {
        Model::Unset => add(
            "model",
            if review_on { Status::Problem } else { Status::Warn },
            if review_on {
                "none configured, and reviews at the end of busy sessions are on (init): each would fail".into()
            } else {
                "none configured: optimize and the review need one".into()
            },
            Some("git config skill.provider openai|anthropic|command|claude-code|codex|gemini|qwen and skill.model NAME (see git skill llm ping)"),
        ),
        Model::NotAsked { describe } => add(
            "model",
            Status::Ok,
            format!("{describe} (not asked: --no-ping)"),
            None,
        ),
        Model::Answered {
            describe,
            latency_ms,
        } => add(
            "model",
            Status::Ok,
            format!("{describe} answered in {latency_ms} ms"),
            None,
        ),
        Model::Failed { describe, error } => add(
            "model",
            Status::Problem,
            format!("{describe} did not answer: {error}"),
            Some("check skill.baseUrl, the key's variable and the network (git skill llm ping shows the request)"),
        ),
    }
    for agent in Agent::ALL {
        agent_checks(env, options, agent, &top, &mut checks);
    }
    if let Some(home) = &env.home {
        checks.extend(user_files_check(home));
    }
    let git_dir = repo.git_dir().to_owned();
    let mut locks = Vec::new();
    for dir in [git_dir.join("skill"), git_dir.join("skill/sessions")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().ends_with(".lock") {
                    locks.push(e.path());
                }
            }
        }
    }
    locks.sort();
    checks.push(match locks.is_empty() {
        true => Check {
            name: "locks".into(),
            status: Status::Ok,
            detail: "none held".into(),
            fix: None,
        },
        false => Check {
            name: "locks".into(),
            status: Status::Warn,
            detail: format!(
                "{} ({}): a command is running, or one was killed",
                locks
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                crate::report::plural(locks.len(), "lock")
            ),
            fix: Some("a lock names its owner; a command waiting on one says so, and a lock whose process is gone is taken over".into()),
        },
    });
    let detail = match (
        env.config.scan_cache().unwrap_or(true),
        super::cache_base(env),
    ) {
        (false, _) => "off (skill.scanCache)".to_owned(),
        (true, None) => "not kept: the repository is owned by someone else".to_owned(),
        (true, Some(cache)) => match count_files(&cache, 0) {
            0 => format!("empty ({})", cache.display()),
            n => format!("{n} entries in {}", cache.display()),
        },
    };
    checks.push(Check {
        name: "scan cache".into(),
        status: Status::Ok,
        detail,
        fix: None,
    });
    Doctor { checks }
}

/// The binary `agent`'s installed hooks run (`g='/path/git-skill'` in the hook command), in
/// the project's settings or the user's.
fn recorded_binary(agent: Agent, places: &Places) -> Option<PathBuf> {
    [Scope::Project, Scope::User].into_iter().find_map(|scope| {
        let edits = settings::plan(agent, scope, places, false).ok()?;
        edits.iter().find_map(|e| {
            let text = e.before.as_deref()?;
            let start = text.find("g='")? + 3;
            let end = start + text[start..].find('\'')?;
            Some(PathBuf::from(&text[start..end]))
        })
    })
}

/// One agent: its hooks installed (project or user settings) and current, and the trust it
/// asks for before it runs a project's hooks. Agents the repository shows no sign of, with no
/// hooks installed, are left out.
fn agent_checks(env: &Env, options: &Options, agent: Agent, top: &Path, checks: &mut Vec<Check>) {
    let places = Places {
        top: top.to_owned(),
        bin: options.bin.clone(),
        home: env.home.clone(),
        codex_home: options.codex_home.clone(),
        copilot_home: options.copilot_home.clone(),
    };
    let current = |scope| {
        settings::plan(agent, scope, &places, false)
            .is_ok_and(|edits| edits.iter().all(|e| !e.changes()))
    };
    let present = |scope| {
        settings::plan(agent, scope, &places, false).is_ok_and(|edits| {
            edits.iter().any(|e| {
                e.before
                    .as_deref()
                    .is_some_and(|t| t.contains(settings::MARKER))
            })
        })
    };
    let (project, user) = (current(Scope::Project), current(Scope::User));
    let used = top.join(super::init::skill_root(agent)).is_dir()
        || present(Scope::Project)
        || present(Scope::User);
    if !used {
        return;
    }
    let name = format!("{} hooks", agent.as_str());
    let fix = format!("git skill init --agent {}", agent.as_str());
    checks.push(match (project, user) {
        (true, _) | (_, true) => Check {
            name: name.clone(),
            status: Status::Ok,
            detail: format!(
                "installed and current ({} settings)",
                if project { "project" } else { "user" }
            ),
            fix: None,
        },
        _ if present(Scope::Project) || present(Scope::User) => Check {
            name: name.clone(),
            status: Status::Warn,
            detail: match recorded_binary(agent, &places) {
                Some(p) if !p.exists() => format!(
                    "the hooks run git-skill at '{}', which is not there: they let only reading tools run",
                    p.display()
                ),
                Some(p) if p != options.bin => format!(
                    "the hooks run git-skill at '{}', not this one ('{}')",
                    p.display(),
                    options.bin.display()
                ),
                _ => "installed by another version of git-skill (the guard may be missing)".into(),
            },
            fix: Some(fix),
        },
        _ => Check {
            name: name.clone(),
            status: Status::Warn,
            detail: format!(
                "not installed: sessions are not counted and writes are not guarded (the repository has {})",
                super::init::skill_root(agent)
            ),
            fix: Some(fix),
        },
    });
    if !project {
        return;
    }
    let home = env.home.clone();
    let top_s = top.display().to_string();
    let trusted = |path: Option<PathBuf>, needle: &str| {
        path.and_then(|p| crate::fsutil::read_to_string(&p).ok())
            .is_some_and(|t| t.contains(needle))
    };
    let trust = match agent {
        Agent::Codex => Some((
            trusted(
                options
                    .codex_home
                    .clone()
                    .or_else(|| home.as_ref().map(|h| h.join(".codex")))
                    .map(|d| d.join("config.toml")),
                &format!("[projects.\"{top_s}\"]"),
            ),
            "Codex reads a project's .codex/ only in a project you trusted, and runs only hooks you trusted: start codex, open /hooks and trust git-skill's",
        )),
        Agent::Copilot => Some((
            trusted(
                options
                    .copilot_home
                    .clone()
                    .or_else(|| home.as_ref().map(|h| h.join(".copilot")))
                    .map(|d| d.join("config.json")),
                &format!("\"{top_s}\""),
            ),
            "Copilot CLI loads .github/hooks/ only in a folder you trusted (trusted_folders in $COPILOT_HOME/config.json; it asks when it starts here)",
        )),
        Agent::Gemini => Some((
            trusted(
                home.as_ref().map(|h| h.join(".gemini/trustedFolders.json")),
                &format!("\"{top_s}\""),
            ),
            "Gemini CLI runs a project's hooks only in a folder you trusted (it asks when it starts here), unless folder trust is off in its settings",
        )),
        _ => None,
    };
    if let Some((ok, why)) = trust {
        checks.push(Check {
            name: format!("{} trust", agent.as_str()),
            status: if ok { Status::Ok } else { Status::Warn },
            detail: if ok {
                "this folder is trusted".into()
            } else {
                "this folder is not trusted yet".into()
            },
            fix: (!ok).then(|| why.to_owned()),
        });
    }
}

/// The agents' user-level files (the registry's: `~/.claude/settings.json`,
/// `~/.gemini/.env`, ...), judged as the repository's are: a user setting that turns hooks off,
/// loads code or sends the API key elsewhere applies to every repository, git-skill's guard
/// among what it switches off. One check when any holds a finding of high severity or more.
fn user_files_check(home: &Path) -> Option<Check> {
    let mut found: Vec<String> = Vec::new();
    for agent in crate::registry::all() {
        for file in agent.user_files {
            let Some(rel) = file.strip_prefix("~/") else {
                continue;
            };
            let path = home.join(rel);
            if !path.is_file() {
                continue;
            }
            // Read as the repository's file of the same place is (`.claude/settings.json`).
            let Some(kind) = crate::registry::classify(rel).map(|f| f.kind) else {
                continue;
            };
            let Ok(bytes) = crate::fsutil::read_following(&path) else {
                continue;
            };
            let scan = crate::guard::context::scan(
                rel,
                kind,
                &bytes,
                crate::guard::ScanOptions::default(),
            );
            let mut rules: Vec<&str> = scan
                .findings
                .iter()
                .filter(|f| f.severity >= crate::guard::Severity::High)
                .map(|f| f.rule)
                .collect();
            rules.dedup();
            if !rules.is_empty() {
                found.push(format!("{file} ({})", rules.join(", ")));
            }
        }
    }
    found.dedup();
    (!found.is_empty()).then(|| Check {
        name: "agents' user settings".into(),
        status: Status::Warn,
        detail: found.join("; "),
        fix: Some("read them with git skill scan <file> and remove what you did not put there: a user setting applies to every repository".into()),
    })
}

/// Where `program` is on `path`.
fn on_path(path: Option<&std::ffi::OsStr>, program: &str) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.with_extension("exe").is_file() || p.is_file()
    }
}

/// Files below `dir`, to a depth of four (the cache's layout), links not followed.
fn count_files(dir: &Path, depth: usize) -> usize {
    if depth > 4 {
        return 0;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => count_files(&e.path(), depth + 1),
            Ok(t) if t.is_file() => 1,
            _ => 0,
        })
        .sum()
}
