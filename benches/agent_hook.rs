//! `git-skill hook agent` as an agent runs it, a whole process with the payload on stdin: the
//! PostToolUse of a Read (Claude's recorded payload, with a file's content in it) and of a
//! shell command, and the SessionEnd of a session below the threshold (the state written, the
//! decision logged, nothing started) and of a busy one (a detached review started: only the
//! hook's own time counts, the review runs on). In a repository of 2,000 files with 20 skills.
//! 300 runs of each; p50, p90, p99. Budgets: PostToolUse p50 <= 5 ms, p99 <= 15 ms; SessionEnd
//! p99 <= 30 ms.
//! Run: `cargo bench --bench agent_hook`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_git-skill");
const RUNS: usize = 300;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn payload(rel: &str, repo: &Path, transcript: &Path, session: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agent")
        .join(rel);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["cwd"] = serde_json::json!(repo);
    v["session_id"] = serde_json::json!(session);
    if v.get("transcript_path").is_some() {
        v["transcript_path"] = serde_json::json!(transcript);
    }
    v.to_string()
}

/// One hook run: its wall time.
fn hook(repo: &Path, home: &Path, input: &str) -> Duration {
    let start = Instant::now();
    let mut child = Command::new(BIN)
        .args(["hook", "agent", "--agent", "claude", "--strict"])
        .current_dir(repo)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_SKILL_PROVIDER", "openai")
        .env("GIT_SKILL_BASE_URL", "http://127.0.0.1:9/v1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn percentiles(mut times: Vec<Duration>) -> (f64, f64, f64) {
    times.sort();
    let at =
        |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1000.0;
    (at(0.5), at(0.9), at(0.99))
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = B\n\temail = b@example.com\n",
    )
    .unwrap();
    git(&repo, &["init", "-q"]);
    for i in 0..2000 {
        let p = repo.join(format!("src/m{}/f{i}.txt", i % 40));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("file {i}\n")).unwrap();
    }
    for i in 0..20 {
        let p = repo.join(format!(".claude/skills/s{i}/SKILL.md"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(
            p,
            format!("---\nname: s{i}\ndescription: Skill {i}.\n---\n# S{i}\n"),
        )
        .unwrap();
    }
    git(
        &repo,
        &["-c", "user.name=b", "-c", "user.email=b@e", "add", "-A"],
    );
    git(
        &repo,
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@e",
            "commit",
            "-qm",
            "init",
        ],
    );
    git(&repo, &["config", "skill.autoSkill.enabled", "true"]);
    git(&repo, &["config", "skill.autoSkill.threshold", "1000000"]);
    let tdir = home.join(".claude/projects/-repo");
    std::fs::create_dir_all(&tdir).unwrap();
    let transcript: PathBuf = tdir.join("s.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts/claude/session.jsonl"),
        &transcript,
    )
    .unwrap();

    let read = payload("claude/PostToolUse.json", &repo, &transcript, "bench");
    let mut shell: serde_json::Value = serde_json::from_str(&read).unwrap();
    shell["tool_name"] = serde_json::json!("Bash");
    shell["tool_input"] =
        serde_json::json!({"command": "cargo test 2>&1 | tee out.log > /dev/null"});
    let shell = shell.to_string();
    let end = payload("claude/SessionEnd.json", &repo, &transcript, "bench");
    for _ in 0..10 {
        hook(&repo, &home, &read);
    }
    let mut rows = Vec::new();
    for (name, input, budget) in [
        ("PostToolUse (Read)", &read, (5.0, 15.0)),
        ("PostToolUse (Bash)", &shell, (5.0, 15.0)),
        ("SessionEnd, below the threshold", &end, (f64::MAX, 30.0)),
    ] {
        let times: Vec<Duration> = (0..RUNS).map(|_| hook(&repo, &home, input)).collect();
        rows.push((name, percentiles(times), budget));
    }
    // A busy session's end: the review starts detached (its model is unreachable, so it ends
    // at once with an error, in the background); the hook's own time only.
    git(&repo, &["config", "skill.autoSkill.threshold", "1"]);
    let mut times = Vec::new();
    for i in 0..60 {
        let session = format!("busy{i}");
        let t = transcript.with_file_name(format!("{session}.jsonl"));
        std::fs::copy(&transcript, &t).unwrap();
        hook(
            &repo,
            &home,
            &payload("claude/PostToolUse.json", &repo, &t, &session),
        );
        times.push(hook(
            &repo,
            &home,
            &payload("claude/SessionEnd.json", &repo, &t, &session),
        ));
        // The timing counts only if the hook did start a review.
        let state = repo.join(format!(".git/skill/sessions/claude-{session}.json"));
        let state: serde_json::Value =
            serde_json::from_slice(&std::fs::read(state).unwrap()).unwrap();
        let last = &state["decisions"].as_array().unwrap().last().unwrap()["reason"];
        assert_eq!(last, "scheduled", "session {session}");
        // One review at a time: let this one end (it waits half a second for its transcript
        // to settle, then fails on the unreachable model).
        let output = repo.join(format!(".git/skill/sessions/claude-{session}.review.log"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::fs::metadata(&output).map_or(0, |m| m.len()) == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    rows.push((
        "SessionEnd, a review started (60 runs)",
        percentiles(times),
        (f64::MAX, 30.0),
    ));
    println!("git-skill hook agent, whole processes ({RUNS} runs each):");
    let mut over = false;
    for (name, (p50, p90, p99), (b50, b99)) in rows {
        let ok = p50 <= b50 && p99 <= b99;
        over |= !ok;
        println!(
            "  {name:<40} p50 {p50:6.2} ms  p90 {p90:6.2} ms  p99 {p99:6.2} ms  {}",
            if ok { "within budget" } else { "OVER BUDGET" }
        );
    }
    if over {
        std::process::exit(1);
    }
}
