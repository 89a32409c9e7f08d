//! `git skill hook agent` and `git skill sessions`: the payloads recorded from the real CLIs,
//! replayed against a real repository; the session-end decision in each of its branches; the
//! detached review it starts against a scripted model on 127.0.0.1; hostile payloads that must
//! never fail the agent.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::common::{Run, Sandbox};
use super::llm_server::{Reply, Server};

const SESSION: &str = "a37e00e7-0981-4f39-a05a-ad68ce83b22f";

fn fixture(rel: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agent")
        .join(rel);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A repository with one skill, hooks enabled at a threshold of 2, and the recorded Claude
/// session's transcript where Claude keeps it (under the sandbox's HOME).
fn setup() -> (Sandbox, PathBuf) {
    let sb = Sandbox::with_repo();
    sb.write(
        ".claude/skills/deploy-notes/SKILL.md",
        "---\nname: deploy-notes\ndescription: How to deploy the staging service.\n---\n\n# Deploy notes\n\n1. Build.\n",
    );
    sb.git(&["add", "-A"]).assert_ok();
    sb.git(&["commit", "-qm", "init"]).assert_ok();
    sb.git(&["config", "skill.autoSkill.enabled", "true"])
        .assert_ok();
    sb.git(&["config", "skill.autoSkill.threshold", "2"])
        .assert_ok();
    let dir = sb.home().join(".claude/projects/-repo");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join(format!("{SESSION}.jsonl"));
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts/claude/session.jsonl"),
        &transcript,
    )
    .unwrap();
    (sb, transcript)
}

/// The recorded payload `rel`, moved into this sandbox.
fn payload(sb: &Sandbox, rel: &str, transcript: &Path, session: &str) -> String {
    let mut v = fixture(rel);
    v["cwd"] = json!(sb.repo());
    if v.get("transcript_path").is_some() {
        v["transcript_path"] = json!(transcript);
    }
    if v.get("session_id").is_some() {
        v["session_id"] = json!(session);
    }
    v.to_string()
}

fn hook(sb: &Sandbox, args: &[&str], env: &[(&str, &str)], input: &str) -> Run {
    let run = sb
        .cmd(super::common::BIN)
        .args(&[&["hook", "agent"][..], args].concat())
        .envs(env)
        .stdin(input)
        .limit(Duration::from_secs(20))
        .run();
    assert_eq!(run.stdout, "", "a hook prints nothing on stdout");
    run
}

fn state(sb: &Sandbox, agent: &str, session: &str) -> Value {
    let p = sb
        .repo()
        .join(format!(".git/skill/sessions/{agent}-{session}.json"));
    serde_json::from_slice(&std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .unwrap()
}

fn last_reason(sb: &Sandbox, agent: &str, session: &str) -> String {
    state(sb, agent, session)["decisions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The review model: one create, then a summary.
fn review_model() -> Server {
    Server::start_with(|r, _| {
        let done = r.json()["messages"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
        if done == 0 {
            let args = json!({"action": "create", "name": "deploy-dry-run", "content": "---\nname: deploy-dry-run\ndescription: Preview a staging deploy with --dry-run before running it.\n---\n\n# Deploy dry run\n\n1. Run the deploy with --dry-run first.\n"}).to_string();
            Reply::json(
                200,
                json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "skill_manage", "arguments": args}}]}, "finish_reason": "tool_calls"}]}),
            )
        } else {
            Reply::openai("Save the dry-run habit")
        }
    })
}

#[test]
fn a_busy_claude_session_ends_in_a_proposal_from_a_detached_review() {
    let (sb, transcript) = setup();
    let server = review_model();
    let base = server.url("/v1");
    let env = [
        ("GIT_SKILL_PROVIDER", "openai"),
        ("GIT_SKILL_BASE_URL", base.as_str()),
        ("GIT_SKILL_MODEL", "scripted"),
        ("OPENAI_API_KEY", "sk-test"),
        ("GIT_SKILL_RETRIES", "0"),
    ];
    let tool = payload(&sb, "claude/PostToolUse.json", &transcript, SESSION);
    for _ in 0..3 {
        hook(&sb, &["--agent", "claude"], &env, &tool).assert_ok();
    }
    // Events that are not counted: a PreToolUse, a prompt, a turn's Stop.
    for rel in [
        "claude/PreToolUse.json",
        "claude/UserPromptSubmit.json",
        "claude/Stop.json",
    ] {
        hook(
            &sb,
            &["--agent", "claude"],
            &env,
            &payload(&sb, rel, &transcript, SESSION),
        )
        .assert_ok();
    }
    assert_eq!(state(&sb, "claude", SESSION)["tool_calls"], 3);
    let started = Instant::now();
    hook(
        &sb,
        &["--agent", "claude"],
        &env,
        &payload(&sb, "claude/SessionEnd.json", &transcript, SESSION),
    )
    .assert_ok();
    let returned = started.elapsed();
    assert_eq!(last_reason(&sb, "claude", SESSION), "scheduled");
    assert_eq!(
        state(&sb, "claude", SESSION)["tool_calls"],
        0,
        "the counter starts again"
    );
    // The review runs on its own; the hook did not wait for it.
    let deadline = Instant::now() + Duration::from_secs(30);
    while sb.proposal_refs().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let refs = sb.proposal_refs();
    assert_eq!(
        refs.len(),
        1,
        "review log: {}",
        std::fs::read_to_string(
            sb.repo()
                .join(format!(".git/skill/sessions/claude-{SESSION}.review.log"))
        )
        .unwrap_or_default()
    );
    assert!(returned < Duration::from_secs(5), "{returned:?}");
    let show = sb.run(&["proposals", "show", refs[0].rsplit('/').next().unwrap()]);
    // The proposal's id and date are the wall clock's: the hook's review is detached.
    assert!(
        show.stdout.contains("+name: deploy-dry-run")
            && show.stdout.contains(&format!("Session: {SESSION}")),
        "{}",
        show.stdout
    );
    // sessions shows it all.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut list = sb.run(&["sessions", "--format", "json"]).json();
    while list["sessions"][0]["review"]["outcome"].is_null() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        list = sb.run(&["sessions", "--format", "json"]).json();
    }
    let s = &list["sessions"][0];
    assert_eq!(
        (
            s["agent"].as_str(),
            s["reason"].as_str(),
            s["tool_calls_total"].as_u64()
        ),
        (Some("claude"), Some("scheduled"), Some(3))
    );
    assert_eq!(s["review"]["outcome"], "proposed");
    let text = sb.run(&["sessions"]);
    text.assert_ok();
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", text.stdout);
    assert!(
        lines[0].contains(&format!(
            "claude {SESSION}  0 tool calls (3 in all)  scheduled ("
        )) && !lines[0].contains("scheduled: scheduled"),
        "{}",
        text.stdout
    );
    assert!(
        lines[1].starts_with("    review ")
            && lines[1].ends_with(&format!("proposed {}", sb.proposal_refs()[0])),
        "{}",
        text.stdout
    );
    let log = std::fs::read_to_string(sb.repo().join(".git/skill/sessions/hook.log")).unwrap();
    let last: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["decision"], "scheduled", "{log}");
}

#[test]
fn each_branch_of_the_decision_and_each_agents_session_end() {
    let (sb, transcript) = setup();
    let end = |sb: &Sandbox, session: &str, env: &[(&str, &str)]| {
        hook(
            sb,
            &["--agent", "claude"],
            env,
            &payload(sb, "claude/SessionEnd.json", &transcript, session),
        )
        .assert_ok();
    };
    let tool = |sb: &Sandbox, session: &str, rel: &str| {
        hook(
            sb,
            &["--agent", "claude"],
            &[],
            &payload(sb, rel, &transcript, session),
        )
        .assert_ok();
    };
    // Below the threshold.
    tool(&sb, "s1", "claude/PostToolUse.json");
    end(&sb, "s1", &[]);
    assert_eq!(last_reason(&sb, "claude", "s1"), "below_threshold");
    // A session that wrote a skill itself.
    tool(&sb, "s2", "claude/PostToolUse.json");
    let mut write = fixture("claude/PostToolUse.json");
    write["cwd"] = json!(sb.repo());
    write["session_id"] = json!("s2");
    write["tool_name"] = json!("Bash");
    write["tool_input"] =
        json!({"command": "echo '- new step' >> .claude/skills/deploy-notes/SKILL.md"});
    hook(&sb, &["--agent", "claude"], &[], &write.to_string()).assert_ok();
    end(&sb, "s2", &[]);
    assert_eq!(
        last_reason(&sb, "claude", "s2"),
        "skills_modified_in_session"
    );
    // Inside a review's own model command.
    tool(&sb, "s3", "claude/PostToolUse.json");
    tool(&sb, "s3", "claude/PostToolUse.json");
    end(&sb, "s3", &[("GIT_SKILL_PURPOSE", "review")]);
    assert_eq!(last_reason(&sb, "claude", "s3"), "inside_review");
    // A review already running (its lock held).
    std::fs::create_dir_all(sb.repo().join(".git/skill")).unwrap();
    let lock = std::fs::File::create(sb.repo().join(".git/skill/review.lock")).unwrap();
    lock.lock().unwrap();
    end(&sb, "s3", &[]);
    assert_eq!(last_reason(&sb, "claude", "s3"), "already_running");
    drop(lock);
    // A transcript an attacker names outside the agents' directories.
    let elsewhere = sb.tmp.path().join("elsewhere.jsonl");
    std::fs::copy(&transcript, &elsewhere).unwrap();
    tool(&sb, "s4", "claude/PostToolUse.json");
    tool(&sb, "s4", "claude/PostToolUse.json");
    hook(
        &sb,
        &["--agent", "claude"],
        &[],
        &payload(&sb, "claude/SessionEnd.json", &elsewhere, "s4"),
    )
    .assert_ok();
    assert_eq!(last_reason(&sb, "claude", "s4"), "no_transcript");
    // Turned off.
    sb.git(&["config", "skill.autoSkill.enabled", "false"])
        .assert_ok();
    end(&sb, "s4", &[]);
    assert_eq!(last_reason(&sb, "claude", "s4"), "disabled");
    assert!(sb.proposal_refs().is_empty());

    // Each agent's own end of a session: Qwen's Stop, Codex's and Gemini's SessionEnd,
    // Copilot's sessionEnd (its transcript from the agentStop before it); a Claude or Codex
    // Stop is only a turn.
    sb.git(&["config", "skill.autoSkill.enabled", "true"])
        .assert_ok();
    sb.git(&["config", "skill.autoSkill.threshold", "1"])
        .assert_ok();
    for (agent, tool_rel, end_rel, event) in [
        ("qwen", "qwen/PostToolUse.json", "qwen/Stop.json", None),
        (
            "codex",
            "codex/PostToolUse.json",
            "codex/SessionEnd.json",
            None,
        ),
        (
            "gemini",
            "gemini/AfterTool.json",
            "gemini/SessionEnd.json",
            None,
        ),
        (
            "copilot",
            "copilot/postToolUse.json",
            "copilot/sessionEnd.json",
            Some(("postToolUse", "sessionEnd")),
        ),
    ] {
        let session = format!("{agent}-one");
        let mut t = fixture(tool_rel);
        let mut e = fixture(end_rel);
        for v in [&mut t, &mut e] {
            v["cwd"] = json!(sb.repo());
            if v.get("sessionId").is_some() {
                v["sessionId"] = json!(session);
            } else {
                v["session_id"] = json!(session);
            }
            if v.get("transcript_path").is_some() {
                v["transcript_path"] = json!(sb.tmp.path().join("nowhere.jsonl"));
            }
        }
        let (tool_event, end_event) = event.map_or((vec![], vec![]), |(a, b)| (vec![a], vec![b]));
        let args = |ev: &[&'static str]| [&["--agent", agent][..], ev].concat();
        hook(&sb, &args(&tool_event), &[], &t.to_string()).assert_ok();
        hook(&sb, &args(&end_event), &[], &e.to_string()).assert_ok();
        let s = state(&sb, agent, &session);
        assert_eq!(s["tool_calls_total"], 1, "{agent}");
        // The transcript named is not in the agent's directory: refused, but it was the end.
        assert_eq!(
            last_reason(&sb, agent, &session),
            "no_transcript",
            "{agent}"
        );
    }
}

#[test]
fn hostile_or_broken_payloads_never_fail_the_agent() {
    let (sb, transcript) = setup();
    let big = format!(
        "{{\"session_id\":\"s\",\"x\":\"{}\"}}",
        "x".repeat(17 << 20)
    );
    // Nothing says it is not a pre-tool event: refused, never let through unchecked.
    for input in ["", "not json", "[1,2]", "{}", &big] {
        let run = hook(&sb, &["--agent", "claude"], &[], input);
        run.assert_status(2);
        run.assert_no_panic();
        assert!(
            run.stderr.contains("could not check this tool call"),
            "{}",
            run.stderr
        );
    }
    // Any other event's problem is logged, and the agent goes on.
    for input in [
        r#"{"session_id":"../../../etc/passwd","hook_event_name":"PostToolUse"}"#,
        r#"{"session_id":"s","hook_event_name":"PostToolUse","cwd":"/nonexistent/dir","tool_name":7}"#,
        r#"{"session_id":"--dry-run","hook_event_name":"SessionEnd"}"#,
        &json!({"session_id": "s", "hook_event_name": "SessionEnd", "transcript_path": "/".repeat(5000)}).to_string(),
        &json!({"session_id": "s", "hook_event_name": "x".repeat(100)}).to_string(),
    ] {
        let run = hook(&sb, &["--agent", "claude"], &[], input);
        run.assert_ok();
        run.assert_no_panic();
        assert!(
            run.stderr.starts_with("git-skill hook: ") || run.stderr.is_empty(),
            "{}",
            run.stderr
        );
    }
    for (input, says) in [
        ("not json", "not a JSON object"),
        (
            r#"{"session_id":"-x","hook_event_name":"SessionEnd"}"#,
            "the session id '-x' is not one git-skill keeps state for",
        ),
        (
            &json!({"session_id": "s", "hook_event_name": "PostToolUse", "cwd": "a".repeat(4097)})
                .to_string(),
            "the hook payload's cwd is longer than 4096 bytes",
        ),
    ] {
        let run = hook(&sb, &["--agent", "claude", "--strict"], &[], input);
        run.assert_status(2);
        assert!(run.stderr.contains(says), "{}", run.stderr);
    }
    assert!(!sb
        .repo()
        .join(".git/skill/sessions/claude--x.json")
        .exists());
    assert!(!sb.repo().join(".git/skill/sessions/claude-..").exists());
    // A state file held by another hook: this event is given up after a short wait.
    std::fs::create_dir_all(sb.repo().join(".git/skill/sessions")).unwrap();
    let lock = std::fs::File::create(
        sb.repo()
            .join(format!(".git/skill/sessions/claude-{SESSION}.lock")),
    )
    .unwrap();
    lock.lock().unwrap();
    let run = hook(
        &sb,
        &["--agent", "claude"],
        &[],
        &payload(&sb, "claude/PostToolUse.json", &transcript, SESSION),
    );
    run.assert_ok();
    crate::snapshot::assert_run(
        &sb,
        "agent-hook-hostile-or-broken-payloads-never-fail-the-agent-301",
        &run,
    );
    drop(lock);
    // Outside a repository: nothing to do, nothing said.
    let mut v = fixture("claude/PostToolUse.json");
    v["cwd"] = json!(sb.tmp.path());
    let run = sb
        .cmd(super::common::BIN)
        .dir(sb.tmp.path())
        .args(&["hook", "agent", "--agent", "claude"])
        .stdin(&v.to_string())
        .run();
    run.assert_ok();
    assert_eq!(run.stdout, "");
}

#[test]
fn two_sessions_at_once_keep_their_own_counts() {
    let (sb, transcript) = setup();
    let threads: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|session| {
            let input = payload(&sb, "claude/PostToolUse.json", &transcript, session);
            let children: Vec<_> = (0..10)
                .map(|_| {
                    let mut c = sb.command_in("", &["hook", "agent", "--agent", "claude"]);
                    c.stdin(std::process::Stdio::piped())
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null());
                    let mut child = c.spawn().unwrap();
                    use std::io::Write as _;
                    child
                        .stdin
                        .take()
                        .unwrap()
                        .write_all(input.as_bytes())
                        .unwrap();
                    child
                })
                .collect();
            children
        })
        .collect();
    for children in threads {
        for mut c in children {
            assert!(c.wait().unwrap().success());
        }
    }
    assert_eq!(state(&sb, "claude", "a")["tool_calls"], 10);
    assert_eq!(state(&sb, "claude", "b")["tool_calls"], 10);
}

#[test]
fn a_session_end_clears_sessions_long_gone_and_the_log_stays_small() {
    let (sb, transcript) = setup();
    let dir = sb.repo().join(".git/skill/sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(31 * 24 * 3600);
    let aged = |name: &str| {
        let p = dir.join(name);
        std::fs::write(&p, "{}").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
        p
    };
    let gone = [
        aged("claude-old.json"),
        aged("claude-old.lock"),
        aged("claude-old.review.log"),
    ];
    // A log past 1 MiB is set aside before the next line.
    std::fs::write(dir.join("hook.log"), vec![b'x'; (1 << 20) + 10]).unwrap();
    let tool = payload(&sb, "claude/PostToolUse.json", &transcript, "new");
    hook(&sb, &["--agent", "claude"], &[], &tool).assert_ok();
    assert!(
        gone.iter().all(|p| p.exists()),
        "a tool call does no housekeeping"
    );
    let end = payload(&sb, "claude/SessionEnd.json", &transcript, "new");
    hook(&sb, &["--agent", "claude"], &[], &end).assert_ok();
    for p in &gone {
        assert!(!p.exists(), "{} is still there", p.display());
    }
    assert_eq!(state(&sb, "claude", "new")["tool_calls_total"], 1);
    assert_eq!(
        std::fs::metadata(dir.join("hook.log.1")).unwrap().len(),
        (1 << 20) + 10
    );
    let log = std::fs::read_to_string(dir.join("hook.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    let entry: serde_json::Value = serde_json::from_str(log.trim()).unwrap();
    assert_eq!(entry["reason"], "below_threshold", "{log}");
    let listed = sb.run(&["sessions", "--format", "json"]);
    listed.assert_ok();
    assert_eq!(listed.json()["sessions"].as_array().unwrap().len(), 1);
}

#[test]
fn a_review_that_cannot_start_leaves_the_count_for_the_next_end() {
    let (sb, transcript) = setup();
    for _ in 0..3 {
        let tool = payload(&sb, "claude/PostToolUse.json", &transcript, SESSION);
        hook(&sb, &["--agent", "claude"], &[], &tool).assert_ok();
    }
    // Where the review's output goes, a directory: the review cannot start.
    let blocked = sb
        .repo()
        .join(format!(".git/skill/sessions/claude-{SESSION}.review.log"));
    std::fs::create_dir_all(&blocked).unwrap();
    let end = payload(&sb, "claude/SessionEnd.json", &transcript, SESSION);
    let run = hook(&sb, &["--agent", "claude"], &[], &end);
    run.assert_ok();
    crate::snapshot::assert_run(
        &sb,
        "agent-hook-a-review-that-cannot-start-leaves-the-count-for-the-next-end-301",
        &run,
    );
    let s = state(&sb, "claude", SESSION);
    assert_eq!(s["tool_calls"], 3, "{s:#}");
    let last = s["decisions"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["decision"].as_str(), last["reason"].as_str()),
        (Some("failed"), Some("spawn"))
    );
    assert!(sb.proposal_refs().is_empty());
    // Once the way is clear, the next end starts it with the count kept.
    std::fs::remove_dir(&blocked).unwrap();
    sb.git(&["config", "skill.autoSkill.enabled", "false"])
        .assert_ok();
    hook(&sb, &["--agent", "claude"], &[], &end).assert_ok();
    assert_eq!(last_reason(&sb, "claude", SESSION), "disabled");
    assert_eq!(state(&sb, "claude", SESSION)["tool_calls"], 3);
}

#[test]
fn a_review_waiting_for_its_transcript_already_counts_as_running() {
    let (sb, transcript) = setup();
    let later = transcript.with_file_name("later.jsonl");
    let mut waiting = sb
        .cmd(super::common::BIN)
        .args(&[
            "review",
            "--transcript",
            later.to_str().unwrap(),
            "--wait-for-transcript",
            "5",
        ])
        .into_command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let lock = sb.repo().join(".git/skill/review.lock");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !lock.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..2 {
        let tool = payload(&sb, "claude/PostToolUse.json", &transcript, SESSION);
        hook(&sb, &["--agent", "claude"], &[], &tool).assert_ok();
    }
    let end = payload(&sb, "claude/SessionEnd.json", &transcript, SESSION);
    hook(&sb, &["--agent", "claude"], &[], &end).assert_ok();
    assert_eq!(last_reason(&sb, "claude", SESSION), "already_running");
    assert_eq!(state(&sb, "claude", SESSION)["tool_calls"], 2);
    let _ = waiting.kill();
    let _ = waiting.wait();
}

#[test]
fn a_payload_too_large_is_read_to_its_end_so_the_agent_can_write_it_all() {
    use std::io::Write as _;
    let (sb, _) = setup();
    let mut child = sb
        .cmd(super::common::BIN)
        .args(&["hook", "agent", "--agent", "claude"])
        .into_command()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        (0..24).try_for_each(|_| stdin.write_all(&chunk))
    });
    let out = child.wait_with_output().unwrap();
    // The agent's side: all 24 MiB written, no broken pipe; a payload that does not say which
    // event it is may be a pre-tool one, and is refused rather than let through unread.
    writer.join().unwrap().expect("the whole payload was taken");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stdout, b"");
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than 16 MiB"));
    // A post-tool payload that large (a Read of a huge file) is logged, and the agent goes on.
    let mut child = sb
        .cmd(super::common::BIN)
        .args(&["hook", "agent", "--agent", "claude"])
        .into_command()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(
            br#"{"session_id": "s", "hook_event_name": "PostToolUse", "tool_response": ""#,
        )?;
        let chunk = vec![b'x'; 1 << 20];
        (0..24).try_for_each(|_| stdin.write_all(&chunk))
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().expect("the whole payload was taken");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than 16 MiB"));
}

#[test]
fn sessions_and_the_hooks_answers_whole() {
    use super::snapshot::{assert_snapshot, show};
    let (sb, transcript) = setup();
    let now = [("GIT_SKILL_NOW", "2026-12-03T09:00:00Z")];
    let send = |session: &str, rel: &str, env: &[(&str, &str)]| {
        hook(
            &sb,
            &["--agent", "claude"],
            env,
            &payload(&sb, rel, &transcript, session),
        )
    };
    // One session below the threshold, one counted still in progress, one inside a review.
    send("s1", "claude/PostToolUse.json", &now).assert_ok();
    send("s1", "claude/SessionEnd.json", &now).assert_ok();
    send("s2", "claude/PostToolUse.json", &now).assert_ok();
    send("s3", "claude/PostToolUse.json", &now).assert_ok();
    send("s3", "claude/PostToolUse.json", &now).assert_ok();
    let inside = [now[0], ("GIT_SKILL_PURPOSE", "review")];
    send("s3", "claude/SessionEnd.json", &inside).assert_ok();
    let sessions = sb.run(&["sessions"]);
    assert_snapshot("sessions", &show(&sb, &sessions));
    let json = sb.run(&["sessions", "--format", "json"]);
    assert_snapshot("sessions-json", &show(&sb, &json));
    // What the hook says about a payload it cannot read: one line, exit 0; an error with
    // --strict.
    for (name, args) in [
        ("hook-agent-bad-payload", &["--agent", "claude"][..]),
        (
            "hook-agent-bad-payload-strict",
            &["--agent", "claude", "--strict"],
        ),
    ] {
        let run = hook(&sb, args, &now, "{\"hook_event_name\": \"SessionEnd\"}");
        assert_snapshot(name, &show(&sb, &run));
    }
}

/// A review whose model cannot be reached leaves a session that `sessions` offers to review
/// again, with the command; that command, with a model that answers, makes the proposal.
#[test]
fn a_failed_review_can_be_run_again_from_sessions() {
    let (sb, transcript) = setup();
    let dead = [
        ("GIT_SKILL_PROVIDER", "openai"),
        ("GIT_SKILL_BASE_URL", "http://127.0.0.1:9/v1"),
        ("GIT_SKILL_MODEL", "scripted"),
        ("OPENAI_API_KEY", "sk-test"),
        ("GIT_SKILL_RETRIES", "0"),
    ];
    let tool = payload(&sb, "claude/PostToolUse.json", &transcript, SESSION);
    for _ in 0..3 {
        hook(&sb, &["--agent", "claude"], &dead, &tool).assert_ok();
    }
    hook(
        &sb,
        &["--agent", "claude"],
        &dead,
        &payload(&sb, "claude/SessionEnd.json", &transcript, SESSION),
    )
    .assert_ok();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut list = sb.run(&["sessions", "--format", "json"]).json();
    while list["sessions"][0]["retry"].is_null() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        list = sb.run(&["sessions", "--format", "json"]).json();
    }
    let retry = list["sessions"][0]["retry"]
        .as_str()
        .unwrap_or_else(|| panic!("no retry: {list:#}"))
        .to_owned();
    assert!(
        retry.starts_with("git skill review --transcript ")
            && retry.ends_with(&format!("--agent claude --session {SESSION}")),
        "{retry}"
    );
    let text = sb.run(&["sessions"]);
    assert!(
        text.stdout.contains(&format!("run it again: {retry}")),
        "{}",
        text.stdout
    );
    // The command, as printed, with a model that answers.
    let server = review_model();
    let base = server.url("/v1");
    let words: Vec<String> = retry
        .split(' ')
        .skip(2)
        .map(|w| w.trim_matches('\'').to_owned())
        .collect();
    let args: Vec<&str> = words.iter().map(String::as_str).collect();
    let run = sb.run_in(
        "",
        &args,
        &[
            ("GIT_SKILL_PROVIDER", "openai"),
            ("GIT_SKILL_BASE_URL", base.as_str()),
            ("GIT_SKILL_MODEL", "scripted"),
            ("OPENAI_API_KEY", "sk-test"),
        ],
    );
    run.assert_ok();
    assert_eq!(sb.proposal_refs().len(), 1, "{}", run.stdout);
}
