//! The real agent CLIs (Claude Code, Qwen Code, Codex, Gemini CLI, Copilot CLI, from npm at
//! pinned versions) run a session offline in a repository set up by `git skill init`, against
//! the project's own scripted model (`tests/agents/model.py`), inside a loopback-only network
//! namespace where the machine allows one. Each test checks what git-skill's hooks counted and
//! decided, that the detached review ran against a second scripted model and left a proposal,
//! that the CLI was not kept waiting, and that nothing outside the test's directory changed.
//!
//! `.ci/run` installs the CLIs and sets `GIT_SKILL_REQUIRE_AGENTS=1`: a CLI that is missing
//! then fails its test with the reason. Elsewhere a missing CLI skips its test, said on stderr.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const REVIEW_SCRIPT: &str = r##"{
  "calls": [
    {"name": "skill_list", "args": {}},
    {"name": "skill_manage", "args": {"action": "create", "name": "readme-first", "content": "---\nname: readme-first\ndescription: Read README.md and list the files before changing a project.\n---\n\n# README first\n\n1. Read README.md.\n2. List the files with ls.\n"}}
  ],
  "final": "Read the README first in a new project",
  "delay_ms": 1500
}"##;

fn prefix() -> PathBuf {
    std::env::var_os("AGENTS_PREFIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/agent-clis"))
}

fn agents_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents")
}

/// Whether `unshare -rn` works here (a loopback-only namespace for the CLI and the models).
fn namespace() -> bool {
    Command::new("unshare")
        .args(["-rn", "true"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// The user's own agent settings, to show that a run changed none of them.
fn real_home_settings() -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return Vec::new();
    };
    [
        ".claude/settings.json",
        ".qwen/settings.json",
        ".codex/hooks.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".copilot/hooks/git-skill.json",
    ]
    .iter()
    .map(|r| (home.join(r), std::fs::read(home.join(r)).ok()))
    .collect()
}

/// One CLI at a time: each takes about a core for seconds.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run_cli(cli: &str, scope: &str) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bin = prefix().join(cli).join("node_modules/.bin").join(cli);
    if !bin.exists() {
        let npm = std::fs::read_to_string(prefix().join(cli).join(".failed"))
            .map(|log| format!("; npm install failed:\n{log}"))
            .unwrap_or_default();
        let why = format!("{cli}: the CLI is not installed at {}{npm}", bin.display());
        if std::env::var_os("GIT_SKILL_REQUIRE_AGENTS").is_some() {
            panic!("{why} (.ci/run installs it)");
        }
        eprintln!("skipped: {why}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path();
    let home = work.join("home");
    let proj = work.join("proj");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = Agent Test\n\temail = agent@example.com\n[init]\n\tdefaultBranch = main\n",
    )
    .unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&proj)
            .env("HOME", &home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    std::fs::write(
        proj.join("README.md"),
        "# Demo\n\nA project for the agent to look at.\n",
    )
    .unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-qm", "init"]);
    // Codex and Copilot run a repository's own hooks only in a folder the person trusted (init
    // says so); the test trusts it as the person would, in the CLI's own settings.
    let trust = match (cli, scope) {
        ("codex", "project") => {
            "printf '\\n[projects.\"%s\"]\\ntrust_level = \"trusted\"\\n' \"$PWD\" >> \"$CODEX_HOME/config.toml\"\n"
        }
        ("copilot", "project") => {
            "printf '{\"trusted_folders\": [\"%s\"]}\\n' \"$PWD\" > \"$COPILOT_HOME/config.json\"\n"
        }
        _ => "",
    };
    std::fs::write(
        work.join("before.sh"),
        format!("set -e\ngit skill init --agent {cli} --scope {scope}\n{trust}"),
    )
    .unwrap();
    let review_script = work.join("review-script.json");
    std::fs::write(&review_script, REVIEW_SCRIPT).unwrap();
    let before = real_home_settings();

    let bin_dir = Path::new(super::common::BIN).parent().unwrap().to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ns = namespace();
    let mut cmd = if ns {
        let mut c = Command::new("unshare");
        c.args(["-rn", "bash"]);
        c
    } else {
        eprintln!("{cli}: unshare -rn is not allowed here; running without a network namespace");
        Command::new("bash")
    };
    cmd.arg(agents_dir().join("run.sh"))
        .arg(cli)
        .arg(work)
        .env("PATH", &path)
        .env("AGENTS_PREFIX", prefix())
        .env("REVIEW_SCRIPT", &review_script)
        .env("GIT_SKILL_AUTO_SKILL_THRESHOLD", "2")
        .env_remove("GIT_SKILL_PURPOSE");
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report: Value =
        serde_json::from_slice(&std::fs::read(work.join("cli.json")).unwrap_or_default())
            .unwrap_or_else(|_| panic!("{cli}: run.sh wrote no cli.json: {stderr}"));
    let files = |name: &str| std::fs::read_to_string(work.join(name)).unwrap_or_default();
    let context = || {
        format!(
            "run.sh: {stderr}\ncli.json: {report}\nbefore.log: {}\ncli.stderr: {}\nsessions: {:?}",
            files("before.log"),
            files("cli.stderr"),
            std::fs::read_dir(proj.join(".git/skill/sessions"))
                .map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
                .ok(),
        )
    };
    assert!(out.status.success(), "{cli}: {}", context());
    assert_eq!(report["exit"], 0, "{cli}: the CLI failed: {}", context());
    assert_eq!(report["timed_out"], false, "{}", context());

    // What the hooks counted and decided.
    let sessions = proj.join(".git/skill/sessions");
    let state: Value = std::fs::read_dir(&sessions)
        .unwrap_or_else(|e| panic!("{cli}: no sessions ({e}): {}", context()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
        .next()
        .unwrap_or_else(|| panic!("{cli}: no session state: {}", context()));
    assert_eq!(state["agent"], cli);
    assert_eq!(
        state["tool_calls_total"], 3,
        "{cli}: three tool calls: {state}"
    );
    let decision = state["decisions"]
        .as_array()
        .and_then(|d| d.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        decision["reason"],
        "scheduled",
        "{cli}: {state}\n{}",
        context()
    );

    // The detached review ran against the second model and left a proposal.
    assert_eq!(report["review_wait"], "finished", "{cli}: {}", context());
    let reviews = report["reviews"].as_array().cloned().unwrap_or_default();
    assert_eq!(reviews.len(), 1, "{cli}: {}", context());
    assert_eq!(
        reviews[0]["outcome"]["kind"],
        "proposed",
        "{cli}: {}\nreview log: {}",
        context(),
        files(&format!(
            "proj/.git/skill/sessions/{cli}-{}.review.log",
            state["session"].as_str().unwrap_or("")
        ))
    );
    let refs = git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/skill-proposals/",
    ]);
    assert_eq!(refs.lines().count(), 1, "{cli}: {refs}");
    // The new skill goes to the first skill root the repository has: the agent's own, once
    // init put the recorder skill there.
    let listed_files = git(&["ls-tree", "-r", "--name-only", refs.trim()]);
    let skill_path = listed_files
        .lines()
        .find(|p| p.ends_with("/readme-first/SKILL.md"))
        .unwrap_or_else(|| panic!("{cli}: no readme-first skill in {listed_files}"))
        .to_owned();
    let file = git(&["show", &format!("{}:{skill_path}", refs.trim())]);
    assert!(file.contains("source: auto-skill"), "{file}");
    let message = git(&["log", "-1", "--format=%B", refs.trim()]);
    assert!(
        message.contains(&format!("Session: {}", state["session"].as_str().unwrap())),
        "{message}"
    );
    // What the README promises the person: `sessions` names the proposal, `proposals show`
    // displays it.
    let skill = |args: &[&str]| {
        let out = Command::new(super::common::BIN)
            .args(args)
            .current_dir(&proj)
            .env("HOME", &home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git skill {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let listed: Value = serde_json::from_str(&skill(&["sessions", "--format", "json"])).unwrap();
    assert_eq!(
        listed["sessions"][0]["review"]["proposal"],
        refs.trim(),
        "{listed:#}"
    );
    let id = refs.trim().trim_start_matches("refs/skill-proposals/");
    let shown = skill(&["proposals", "show", id]);
    assert!(
        shown.contains(&format!("+++ b/{skill_path}")) && shown.contains("+  source: auto-skill"),
        "{shown}"
    );
    let review_requests = files("review-model.log").lines().count();
    assert!(
        review_requests >= 3,
        "{cli}: the review asked its model {review_requests} times"
    );

    // The CLI was not kept waiting: it had ended well before its review did (three answers of
    // the review's model take 1.5 s each).
    let log: Value = serde_json::from_slice(
        &std::fs::read(work.join(reviews[0]["file"].as_str().unwrap())).unwrap(),
    )
    .unwrap();
    let review_started = chrono::DateTime::parse_from_rfc3339(log["started"].as_str().unwrap())
        .unwrap()
        .timestamp_millis();
    let review_ended = review_started + log["elapsed_ms"].as_i64().unwrap();
    let cli_ended = report["ended_ms"].as_i64().unwrap();
    // `started` is cut to the second: a second of slack.
    assert!(
        cli_ended + 1000 < review_ended,
        "{cli}: the CLI ended at {cli_ended}, its review at {review_ended}"
    );
    // Nothing of the user's own settings changed.
    assert_eq!(
        real_home_settings(),
        before,
        "{cli}: the user's agent settings changed"
    );
    // The settings init wrote are in the test's HOME.
    let hook_written = std::fs::read_dir(&home).unwrap().count();
    assert!(hook_written > 0);
}

#[test]
fn claude_code_session_ends_in_a_proposal() {
    run_cli("claude", "project");
}

/// The user's own settings (`--scope user`), for every repository.
#[test]
fn claude_code_with_user_settings_ends_in_a_proposal() {
    run_cli("claude", "user");
}

#[test]
fn qwen_code_session_ends_in_a_proposal() {
    run_cli("qwen", "project");
}

#[test]
fn codex_session_ends_in_a_proposal() {
    run_cli("codex", "project");
}

#[test]
fn gemini_cli_session_ends_in_a_proposal() {
    run_cli("gemini", "project");
}

#[test]
fn copilot_cli_session_ends_in_a_proposal() {
    run_cli("copilot", "project");
}
