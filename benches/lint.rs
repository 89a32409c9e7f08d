//! Lint throughput: discovery and lint of a large repository of skills, and of hostile
//! SKILL.md files. A small harness (median of several runs) rather than criterion, to keep
//! builds short on 2 cores. Run: `cargo bench --bench lint`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use git_skill::skill::{discover, lint, SkillFiles};

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut out = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        std::hint::black_box(f());
        out.push(start.elapsed());
    }
    median(out)
}

fn make_repo(root: &Path, skills: usize) {
    for i in 0..skills {
        let dir = root.join(format!(".claude/skills/cat{}/skill-{i}", i % 20));
        std::fs::create_dir_all(dir.join("references")).unwrap();
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        let body = "Follow the steps. See [ref](references/guide.md).\n".repeat(80);
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: skill-{i}\ndescription: \"Does task {i}: when the user asks.\"\nmetadata:\n  author: bench\n---\n# Skill {i}\n\n{body}"),
        )
        .unwrap();
        std::fs::write(dir.join("references/guide.md"), "# Guide\n".repeat(200)).unwrap();
        std::fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    }
}

fn lint_all(root: &Path) -> usize {
    let roots = discover::default_roots(root);
    let found = discover::discover(&roots, None);
    let mut n = 0;
    for skill in &found.skills {
        let files = SkillFiles::read(&skill.dir).unwrap();
        let target = lint::Target {
            dir_name: &skill.dir_name,
            display_dir: PathBuf::from(&skill.dir_name),
            category: skill.category.as_deref(),
            written: false,
        };
        n += lint::lint(&files, &target).len();
    }
    n
}

fn lint_one(md: Vec<u8>) -> usize {
    let files = SkillFiles::with_skill_md(md);
    lint::lint(
        &files,
        &lint::Target {
            dir_name: "x",
            display_dir: PathBuf::from("x"),
            category: None,
            written: false,
        },
    )
    .len()
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = 2_000;
    make_repo(tmp.path(), skills);
    let roots = discover::default_roots(tmp.path());
    let d = time(7, || discover::discover(&roots, None).skills.len());
    println!(
        "discover {skills} skills (10 roots): {:.2} ms",
        d.as_secs_f64() * 1e3
    );
    let d = time(5, || lint_all(tmp.path()));
    println!(
        "discover + read + lint {skills} skills: {:.1} ms ({:.1} µs per skill)",
        d.as_secs_f64() * 1e3,
        d.as_secs_f64() * 1e6 / skills as f64
    );

    let line = format!(
        "---\nname: x\ndescription: y\n---\n{}\n",
        "a".repeat(1 << 20)
    );
    let d = time(7, || lint_one(line.clone().into_bytes()));
    println!(
        "lint SKILL.md with one 1 MiB line: {:.2} ms",
        d.as_secs_f64() * 1e3
    );

    let big_fm = format!("---\n{}---\nbody\n", "k: v\n".repeat(12_000));
    let d = time(7, || lint_one(big_fm.clone().into_bytes()));
    println!(
        "lint 60 KiB frontmatter (12,000 keys): {:.2} ms",
        d.as_secs_f64() * 1e3
    );

    let huge = format!("---\n{}---\nbody\n", "k: v\n".repeat(2_000_000));
    let d = time(5, || lint_one(huge.clone().into_bytes()));
    println!(
        "lint 10 MB frontmatter (refused unparsed): {:.2} ms",
        d.as_secs_f64() * 1e3
    );

    let mut bomb =
        String::from("---\na: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
    for w in ["a", "b", "c", "d", "e", "f", "g", "h", "i"].windows(2) {
        bomb.push_str(&format!(
            "{}: &{} [{}]\n",
            w[1],
            w[1],
            vec![format!("*{}", w[0]); 9].join(",")
        ));
    }
    bomb.push_str("---\nbody\n");
    let d = time(7, || lint_one(bomb.clone().into_bytes()));
    println!(
        "lint YAML alias bomb (9 levels): {:.2} ms",
        d.as_secs_f64() * 1e3
    );
}
