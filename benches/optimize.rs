//! `git skill optimize` against a model that takes 1 s per gate call: 8 clusters are judged in
//! parallel (about 1 s) rather than one after another (about 8 s), three judges a cluster
//! (`skill.gateVotes`) cost one more round of the same, and the pipeline's own overhead beside
//! the model is milliseconds, for a whole dry run and for the `--resume --yes` that commits its
//! candidate. The model is a scripted HTTP server on 127.0.0.1 (the one the integration tests
//! use). Run: `cargo bench --bench optimize`.

#[path = "../tests/integration/llm_server.rs"]
mod llm_server;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use llm_server::{Recorded, Reply, Server};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_git-skill");
const CLUSTERS: usize = 8;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn prompt_of(r: &Recorded) -> String {
    let body: Value = serde_json::from_str(&r.body).unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Triage: one cluster per signal; reflect: one edit; gate: "NO" after `gate_delay`.
fn model(gate_delay: Duration) -> Server {
    Server::start_with(move |r, _| {
        let prompt = prompt_of(r);
        if prompt.contains("You are a judge in the gate") {
            let at = prompt.find("`cluster_id` is \"").unwrap() + 17;
            let cluster = prompt[at..].split('"').next().unwrap();
            return Reply::openai(
                &json!({"cluster_id": cluster, "verdict": "NO", "reason": "fixed"}).to_string(),
            )
            .delay(gate_delay);
        }
        if prompt.contains("grouped into clusters by root cause") {
            return Reply::openai(
                &json!({"diagnosis": "Fields are filled by label.", "edits": [{"type": "replace", "target": "by its printed label", "new": "by its form field name", "reason": "r", "source_cluster_id": "c_001"}]})
                    .to_string(),
            );
        }
        let mut ids = Vec::new();
        let mut rest = prompt.as_str();
        while let Some(at) = rest.find("\"signal_id\": \"") {
            let tail = &rest[at + 14..];
            let id = tail.split('"').next().unwrap().to_owned();
            if !ids.contains(&id) {
                ids.push(id);
            }
            rest = tail;
        }
        let clusters: Vec<Value> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| json!({"cluster_id": format!("c_{:03}", i + 1), "root_cause": format!("cause {i}"), "signal_ids": [id], "type": "corrected", "count": 1}))
            .collect();
        Reply::openai(&json!({"clusters": clusters, "conflicts": [], "stale_signals": [], "priority_order": ids}).to_string())
    })
}

fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q"]);
    git(dir, &["config", "user.email", "bench@example.com"]);
    git(dir, &["config", "user.name", "bench"]);
    let skill = dir.join(".claude/skills/pdf-forms");
    std::fs::create_dir_all(&skill).unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sample_skill.md"),
    )
    .unwrap();
    std::fs::write(skill.join("SKILL.md"), text).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "skill"]);
    let signals: String = (0..CLUSTERS)
        .map(|i| format!("{{\"type\":\"corrected\",\"scenario\":\"form {i}\",\"correction\":\"use field names ({i})\"}}\n"))
        .collect();
    let mut child = Command::new(BIN)
        .args(["record", "pdf-forms", "--stdin"])
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(signals.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    tmp
}

/// One dry run from scratch (`--restart`: a dry run keeps its checkpoint, which the next
/// would reuse; it commits nothing, so runs repeat on the same repository); `parallel` sets
/// `skill.parallel`, the default (8) when `None`, and `votes` `skill.gateVotes`.
fn run(dir: &Path, server: &Server, parallel: Option<usize>, votes: u32) -> Duration {
    let start = Instant::now();
    let mut command = Command::new(BIN);
    if let Some(n) = parallel {
        command.env("GIT_SKILL_PARALLEL", n.to_string());
    }
    let out = command
        .env("GIT_SKILL_GATE_VOTES", votes.to_string())
        .args([
            "optimize",
            "pdf-forms",
            "--dry-run",
            "--restart",
            "--yes",
            "--format",
            "json",
        ])
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_SKILL_PROVIDER", "openai")
        .env("GIT_SKILL_BASE_URL", server.url("/v1"))
        .env("GIT_SKILL_MODEL", "bench")
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["gate"]["total"], CLUSTERS);
    assert_eq!(report["gate"]["passed"], CLUSTERS);
    elapsed
}

/// `--resume --yes` after a dry run, in a repository of its own: the two commits of the
/// previewed candidate, with no model call.
fn commit_after_dry_run(server: &Server) -> Duration {
    let tmp = repo();
    let dir = tmp.path();
    run(dir, server, None, 1);
    let calls = server.requests().len();
    let start = Instant::now();
    let out = Command::new(BIN)
        .args(["optimize", "pdf-forms", "--resume", "--yes"])
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_SKILL_PROVIDER", "openai")
        .env("GIT_SKILL_BASE_URL", server.url("/v1"))
        .env("GIT_SKILL_MODEL", "bench")
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(server.requests().len(), calls, "no model call");
    elapsed
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn main() {
    let tmp = repo();
    let dir = tmp.path();
    let slow = model(Duration::from_secs(1));
    let parallel = median((0..3).map(|_| run(dir, &slow, None, 1)).collect());
    let serial = run(dir, &slow, Some(1), 1);
    let votes = run(dir, &slow, None, 3);
    let instant = model(Duration::ZERO);
    let overhead = median((0..9).map(|_| run(dir, &instant, None, 1)).collect());
    let commit = median((0..9).map(|_| commit_after_dry_run(&instant)).collect());
    println!(
        "cores: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("{CLUSTERS} clusters, model 1 s per gate call:");
    println!(
        "  skill.parallel default (8): {:.2} s (median of 3)",
        parallel.as_secs_f64()
    );
    println!("  skill.parallel = 1: {:.2} s", serial.as_secs_f64());
    println!("  skill.gateVotes = 3: {:.2} s", votes.as_secs_f64());
    println!(
        "model answering at once (10 calls: triage, reflect, {CLUSTERS} judges): {:.1} ms a run, process start and git included (median of 9)",
        overhead.as_secs_f64() * 1000.0
    );
    println!();
    println!("| case | median |");
    println!("|---|---|");
    println!(
        "| {CLUSTERS} gate calls of 1 s, `skill.parallel` default (8) | {:.2} s |",
        parallel.as_secs_f64()
    );
    println!(
        "| {CLUSTERS} gate calls of 1 s, `skill.parallel` = 1 | {:.2} s |",
        serial.as_secs_f64()
    );
    println!(
        "| {} gate calls of 1 s (`skill.gateVotes` = 3), `skill.parallel` default (8) | {:.2} s |",
        CLUSTERS * 3,
        votes.as_secs_f64()
    );
    println!(
        "| whole dry run, model answering at once | {:.1} ms |",
        overhead.as_secs_f64() * 1000.0
    );
    println!(
        "| `--resume --yes` after a dry run: both commits, no model call | {:.1} ms |",
        commit.as_secs_f64() * 1000.0
    );
}
