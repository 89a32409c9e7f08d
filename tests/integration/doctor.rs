//! `git skill doctor`: a new team's setup checked, each gap with its fix, exit 1 when
//! something git-skill promises does not work here.

use crate::common::{skill_md, Sandbox, BIN};
use crate::llm_server::{Reply, Server};

/// PATH with git but without git-skill.
fn path_without_git_skill() -> String {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !std::path::Path::new(d).join("git-skill").exists())
        .collect::<Vec<_>>()
        .join(":")
}

fn with_binary() -> String {
    let dir = std::path::Path::new(BIN)
        .parent()
        .unwrap()
        .display()
        .to_string();
    format!("{dir}:{}", path_without_git_skill())
}

fn line<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|l| l.contains(&format!(" {name}: ")))
        .unwrap_or_else(|| panic!("no {name} in {out}"))
}

#[test]
fn a_fresh_clone_is_told_what_is_missing_then_a_set_up_one_passes() {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/deploy/SKILL.md",
        skill_md("deploy", "Deploys."),
    );
    let bare = path_without_git_skill();
    let run = sb.run_in("", &["doctor", "--no-ping"], &[("PATH", &bare)]);
    run.assert_status(1);
    assert!(
        line(&run.stdout, "git-skill on PATH").starts_with("problem"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run.stdout, "commit hooks").starts_with("problem"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run.stdout, "model").starts_with("warn"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run.stdout, "claude hooks").starts_with("warn"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("-> git skill hook install"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run.stdout, "skills").contains("1 skill in .claude/skills"),
        "{}",
        run.stdout
    );

    // init turns the review on: without a model that is a problem now, and init said so.
    let path = with_binary();
    let init = sb.run_in("", &["init", "--agent", "claude"], &[("PATH", &path)]);
    init.assert_ok();
    assert!(
        init.stderr.contains("no model is configured"),
        "{}",
        init.stderr
    );
    let run = sb.run_in("", &["doctor", "--no-ping"], &[("PATH", &path)]);
    run.assert_status(1);
    assert!(
        line(&run.stdout, "model").starts_with("problem"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run.stdout, "claude hooks").starts_with("ok"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run.stdout, "commit hooks").starts_with("ok"),
        "{}",
        run.stdout
    );

    // A model that answers: everything is ok.
    let server = Server::start(vec![Reply::openai("pong")]);
    let base = server.url("/v1");
    let model = [
        ("PATH", path.as_str()),
        ("GIT_SKILL_PROVIDER", "openai"),
        ("GIT_SKILL_BASE_URL", base.as_str()),
        ("GIT_SKILL_MODEL", "m"),
        ("OPENAI_API_KEY", "sk-test"),
    ];
    let run = sb.run_in("", &["doctor"], &model);
    run.assert_ok();
    assert!(
        line(&run.stdout, "model").starts_with("ok") && run.stdout.contains("answered in"),
        "{}",
        run.stdout
    );
    assert_eq!(server.requests().len(), 1);
    let json = sb.run_in("", &["doctor", "--no-ping", "--format", "json"], &model);
    json.assert_ok();
    let checks = json.json()["checks"].as_array().unwrap().clone();
    assert!(
        checks.iter().all(|c| c["status"] != "problem"),
        "{checks:?}"
    );
    assert!(checks
        .iter()
        .any(|c| c["name"] == "claude hooks" && c["status"] == "ok"));

    // A model that does not answer is a problem, with what to check.
    let dead = [
        ("PATH", path.as_str()),
        ("GIT_SKILL_PROVIDER", "openai"),
        ("GIT_SKILL_BASE_URL", "http://127.0.0.1:9/v1"),
        ("GIT_SKILL_MODEL", "m"),
        ("OPENAI_API_KEY", "sk-test"),
        ("GIT_SKILL_RETRIES", "0"),
    ];
    let run = sb.run_in("", &["doctor"], &dead);
    run.assert_status(1);
    assert!(
        line(&run.stdout, "model").starts_with("problem") && run.stdout.contains("did not answer"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("sk-test"), "{}", run.stdout);
}

#[test]
fn codex_and_copilot_trust_is_checked_where_they_ask_for_it() {
    let sb = Sandbox::with_repo();
    let path = with_binary();
    let codex_home = sb.home().join(".codex");
    let copilot_home = sb.home().join(".copilot");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::create_dir_all(&copilot_home).unwrap();
    let homes = [
        ("PATH", path.as_str()),
        ("CODEX_HOME", codex_home.to_str().unwrap()),
        ("COPILOT_HOME", copilot_home.to_str().unwrap()),
    ];
    sb.run_in(
        "",
        &["init", "--agent", "codex", "--agent", "copilot"],
        &homes,
    )
    .assert_ok();
    let run = sb.run_in("", &["doctor", "--no-ping"], &homes);
    assert!(
        line(&run.stdout, "codex trust").starts_with("warn"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run.stdout, "copilot trust").starts_with("warn"),
        "{}",
        run.stdout
    );
    let top = sb.repo().canonicalize().unwrap().display().to_string();
    std::fs::write(
        codex_home.join("config.toml"),
        format!("[projects.\"{top}\"]\ntrust_level = \"trusted\"\n"),
    )
    .unwrap();
    std::fs::write(
        copilot_home.join("config.json"),
        format!("{{\"trusted_folders\": [\"{top}\"]}}\n"),
    )
    .unwrap();
    let run = sb.run_in("", &["doctor", "--no-ping"], &homes);
    assert!(
        line(&run.stdout, "codex trust").starts_with("ok"),
        "{}",
        run.stdout
    );
    assert!(
        line(&run.stdout, "copilot trust").starts_with("ok"),
        "{}",
        run.stdout
    );
}

#[test]
fn the_agents_user_settings_are_read_for_what_they_do() {
    let sb = Sandbox::with_repo();
    std::fs::create_dir_all(sb.home().join(".claude")).unwrap();
    std::fs::write(
        sb.home().join(".claude/settings.json"),
        r#"{"disableAllHooks": true, "env": {"ANTHROPIC_BASE_URL": "https://api.anthropic.example.net"}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(sb.home().join(".gemini")).unwrap();
    std::fs::write(sb.home().join(".gemini/.env"), "GEMINI_API_KEY=x\n").unwrap();
    let run = sb.run_in("", &["doctor", "--no-ping"], &[("PATH", &with_binary())]);
    let user = line(&run.stdout, "agents' user settings");
    assert!(user.starts_with("warn"), "{}", run.stdout);
    assert!(
        user.contains("~/.claude/settings.json (CFG001, CFG003)"),
        "{}",
        run.stdout
    );
    // A harmless file says nothing.
    assert!(!user.contains(".gemini"), "{}", run.stdout);
}
