//! Pre-commit hook latency beside `git diff --cached --name-only`, in a generated repository
//! of 10,000 files, with 1 and with 20 staged skill files, then with one staged edit to a
//! skill of realistic prose and commands (the benign scan fixtures: security guidance, git
//! helpers, downloads, placeholder credentials). Both run as processes, as git runs them,
//! in turn, 31 times each; medians.
//! Run: `cargo bench --bench hook`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_git-skill");

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// Sets the modification time of every file below `dir` (`.git` left out) to `when`.
fn backdate(dir: &Path, when: std::time::SystemTime) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if path.is_dir() {
            backdate(&path, when);
        } else {
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(when).unwrap();
        }
    }
}

/// How long one run of `program args` takes.
fn run(dir: &Path, program: &str, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// The medians of `git diff --cached --name-only` and `git skill hook pre-commit`, run in
/// turn 31 times each, so that both see the same drift of the machine's speed.
fn medians(dir: &Path) -> (Duration, Duration) {
    let (mut diff, mut hook) = (Vec::new(), Vec::new());
    for _ in 0..31 {
        diff.push(run(dir, "git", &["diff", "--cached", "--name-only"]));
        hook.push(run(dir, BIN, &["hook", "pre-commit"]));
    }
    diff.sort();
    hook.sort();
    (diff[diff.len() / 2], hook[hook.len() / 2])
}

/// Where skill `s` lives: the first 20 at the top, the others in packages.
fn skill_dir(s: usize) -> String {
    if s < 20 {
        format!(".claude/skills/skill-{s}")
    } else {
        format!("packages/p{s}/.claude/skills/skill-{s}")
    }
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    git(repo, &["init", "-q"]);
    git(repo, &["config", "user.email", "bench@example.com"]);
    git(repo, &["config", "user.name", "bench"]);
    // No automatic gc: after 10,000 new objects a commit starts one in the background, which
    // would run during the timings and pack the objects halfway through them.
    git(repo, &["config", "gc.auto", "0"]);
    // 9,800 ordinary source files and 40 skills of 5 files: 10,000 files. Half the skills
    // sit in a monorepo's packages (`packages/p<i>/.claude/skills`), which the loader model
    // finds by their paths in the index.
    for i in 0..9_800 {
        let path = repo.join(format!("src/m{}/f{i}.rs", i / 100));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("pub fn f{i}() -> u32 {{ {i} }}\n")).unwrap();
    }
    for s in 0..40 {
        let dir = repo.join(skill_dir(s));
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::create_dir_all(dir.join("references")).unwrap();
        std::fs::write(dir.join("SKILL.md"), format!("---\nname: skill-{s}\ndescription: Skill {s}.\n---\n# Skill {s}\n\nRun the tests, then report.\n")).unwrap();
        for f in 0..4 {
            std::fs::write(
                dir.join(format!("references/r{f}.md")),
                "Reference text.\n".repeat(50),
            )
            .unwrap();
        }
    }
    // Files older than the index, as in a repository where they were written before the
    // last commit: files written in the second the index is written are "racily clean" to
    // git, and `git add .` hashes them again and drops their directories' cache-tree records.
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    backdate(repo, hour_ago);
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "init"]);
    let files = String::from_utf8(
        Command::new("git")
            .args(["ls-files"])
            .current_dir(repo)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .lines()
    .count();
    println!("repository: {files} files");

    for staged in [1usize, 20] {
        for s in 0..staged {
            std::fs::write(
                repo.join(format!("{}/references/r0.md", skill_dir(s))),
                format!("Changed {staged}.\n"),
            )
            .unwrap();
        }
        git(repo, &["add", "."]);
        let (diff, hook) = medians(repo);
        println!(
            "{staged:>2} staged skill file(s): git diff --cached --name-only {:.1} ms, git skill hook pre-commit {:.1} ms, ratio {:.2}",
            diff.as_secs_f64() * 1e3,
            hook.as_secs_f64() * 1e3,
            hook.as_secs_f64() / diff.as_secs_f64()
        );
        git(repo, &["commit", "-qm", "step", "--no-verify"]);
    }

    // One staged file in a skill of a package (a nested root).
    std::fs::write(
        repo.join(format!("{}/references/r1.md", skill_dir(30))),
        "Changed in a package.\n",
    )
    .unwrap();
    git(repo, &["add", "."]);
    let (diff, hook) = medians(repo);
    println!(
        " 1 staged file in a nested root: git diff --cached --name-only {:.1} ms, git skill hook pre-commit {:.1} ms, ratio {:.2}",
        diff.as_secs_f64() * 1e3,
        hook.as_secs_f64() * 1e3,
        hook.as_secs_f64() / diff.as_secs_f64()
    );
    git(repo, &["commit", "-qm", "nested", "--no-verify"]);

    // A realistic skill: the benign fixtures, one as SKILL.md and the rest as references.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scan/benign");
    let skill = repo.join(".claude/skills/realistic");
    std::fs::create_dir_all(skill.join("references")).unwrap();
    let mut bytes = 0;
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(dir.join("SKILL.md")).unwrap();
        bytes += text.len();
        let target = if name == "security-guidance" {
            skill.join("SKILL.md")
        } else {
            skill.join(format!("references/{name}.md"))
        };
        let text = if name == "security-guidance" {
            text.replacen("name: benign/security-guidance", "name: realistic", 1)
        } else {
            text
        };
        std::fs::write(target, text).unwrap();
    }
    backdate(&skill, hour_ago);
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "realistic", "--no-verify"]);
    let md = skill.join("SKILL.md");
    let mut text = std::fs::read_to_string(&md).unwrap();
    text.push_str("\nOne more line.\n");
    std::fs::write(&md, text).unwrap();
    git(repo, &["add", "."]);
    let (diff, hook) = medians(repo);
    println!(
        "realistic skill ({} bytes, 7 files), 1 staged file: git diff --cached --name-only {:.1} ms, git skill hook pre-commit {:.1} ms, ratio {:.2}",
        bytes,
        diff.as_secs_f64() * 1e3,
        hook.as_secs_f64() * 1e3,
        hook.as_secs_f64() / diff.as_secs_f64()
    );
}
