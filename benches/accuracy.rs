//! SkillGuard's detection quality on labelled corpora laid out as in
//! `../shared/guard-corpora/README.md`: one folder per corpus, each holding case directories
//! and a `labels.tsv` (`case`, `label`, `category`, ...). The corpora are fetched, never
//! committed.
//!
//! Run: `cargo bench --bench accuracy -- DIR...` where each DIR is a corpus folder or a folder
//! of corpus folders. Prints, per corpus and per category, malicious flagged/blocked and benign
//! blocked/flagged, and the wall time. `ACCURACY_MISSES=1` also lists the malicious cases that
//! were not blocked and the benign ones that were flagged, with their findings.
//! `ACCURACY_STRICT=1` scans with the context demotions off (`scan --strict`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use git_skill::guard::{scan_skill, ScanOptions, Verdict};
use git_skill::skill::SkillFiles;

#[derive(Default, Clone, Copy)]
struct Tally {
    cases: usize,
    flagged: usize,
    blocked: usize,
}

impl Tally {
    fn add(&mut self, verdict: Verdict) {
        self.cases += 1;
        self.flagged += usize::from(verdict >= Verdict::Caution);
        self.blocked += usize::from(verdict == Verdict::Dangerous);
    }
    fn pct(n: usize, d: usize) -> String {
        if d == 0 {
            "-".into()
        } else {
            format!("{:.1}%", 100.0 * n as f64 / d as f64)
        }
    }
}

struct Case {
    dir: PathBuf,
    name: String,
    label: String,
    category: String,
}

fn corpora(args: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for a in args {
        let p = PathBuf::from(a);
        if p.join("labels.tsv").is_file() {
            out.push(p);
        } else if let Ok(rd) = std::fs::read_dir(&p) {
            let mut subs: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|d| d.join("labels.tsv").is_file())
                .collect();
            subs.sort();
            out.extend(subs);
        } else {
            eprintln!("accuracy: '{a}' is neither a corpus nor a folder of corpora");
            std::process::exit(2);
        }
    }
    out
}

fn cases(corpus: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(corpus.join("labels.tsv")).expect("labels.tsv");
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let (name, label, category) = (cols.first()?, cols.get(1)?, cols.get(2)?);
            Some(Case {
                dir: corpus.join(name),
                name: name.to_string(),
                label: label.to_string(),
                category: category.to_string(),
            })
        })
        .filter(|c| c.label != "ambiguous")
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if args.is_empty() {
        eprintln!("usage: cargo bench --bench accuracy -- CORPUS_DIR...");
        std::process::exit(2);
    }
    let show_misses = std::env::var_os("ACCURACY_MISSES").is_some();
    let options = ScanOptions {
        strict: std::env::var_os("ACCURACY_STRICT").is_some(),
        ..ScanOptions::default()
    };
    let mut total_mal = Tally::default();
    let mut total_ben = Tally::default();
    let mut by_category: BTreeMap<String, Tally> = BTreeMap::new();
    let mut total_time = 0.0;
    println!(
        "| corpus | malicious | flagged | blocked | benign | blocked | flagged | wall |\n|---|---|---|---|---|---|---|---|"
    );
    for corpus in corpora(&args) {
        let name = corpus.file_name().unwrap().to_string_lossy().into_owned();
        let list = cases(&corpus);
        let start = Instant::now();
        let verdicts =
            git_skill::parallel::map_ordered(&list, git_skill::parallel::default_jobs(), |case| {
                let files = match SkillFiles::read(&case.dir) {
                    Ok(f) => f,
                    Err(e) => return (Verdict::Dangerous, vec![format!("unreadable: {e}")]),
                };
                let scan = scan_skill(&files, &|rel| std::fs::read(case.dir.join(rel)), options);
                let notes = scan
                    .findings
                    .iter()
                    .filter(|f| f.suppressed.is_none())
                    .map(|f| {
                        format!(
                            "{} {:?} {}:{} {}",
                            f.rule, f.severity, f.file, f.line, f.excerpt
                        )
                    })
                    .collect();
                (scan.verdict(), notes)
            });
        let wall = start.elapsed().as_secs_f64();
        total_time += wall;
        let (mut mal, mut ben) = (Tally::default(), Tally::default());
        for (case, (verdict, notes)) in list.iter().zip(&verdicts) {
            if case.label == "malicious" {
                mal.add(*verdict);
                by_category
                    .entry(case.category.clone())
                    .or_default()
                    .add(*verdict);
                if show_misses && *verdict != Verdict::Dangerous {
                    eprintln!(
                        "MISS {name}/{} [{}] {}",
                        case.name,
                        case.category,
                        verdict.as_str()
                    );
                    for n in notes {
                        eprintln!("    {n}");
                    }
                }
            } else {
                ben.add(*verdict);
                if show_misses && *verdict != Verdict::Safe {
                    eprintln!("FALSE {name}/{} {}", case.name, verdict.as_str());
                    for n in notes {
                        eprintln!("    {n}");
                    }
                }
            }
        }
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {:.3} s |",
            mal.cases,
            Tally::pct(mal.flagged, mal.cases),
            Tally::pct(mal.blocked, mal.cases),
            ben.cases,
            Tally::pct(ben.blocked, ben.cases),
            Tally::pct(ben.flagged, ben.cases),
            wall
        );
        for (t, n) in [(&mut total_mal, mal), (&mut total_ben, ben)] {
            t.cases += n.cases;
            t.flagged += n.flagged;
            t.blocked += n.blocked;
        }
    }
    println!(
        "| **all** | {} | {} | {} | {} | {} | {} | {:.3} s |",
        total_mal.cases,
        Tally::pct(total_mal.flagged, total_mal.cases),
        Tally::pct(total_mal.blocked, total_mal.cases),
        total_ben.cases,
        Tally::pct(total_ben.blocked, total_ben.cases),
        Tally::pct(total_ben.flagged, total_ben.cases),
        total_time
    );
    println!("\n| category (malicious) | cases | flagged | blocked |\n|---|---|---|---|");
    for (cat, t) in &by_category {
        println!(
            "| {cat} | {} | {} | {} |",
            t.cases,
            Tally::pct(t.flagged, t.cases),
            Tally::pct(t.blocked, t.cases)
        );
    }
}
