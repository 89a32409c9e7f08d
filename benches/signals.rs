//! The signal store at scale: streaming a JSON-lines store of 10,000, 100,000 and 1,000,000
//! signals into the optimiser's selection (`select::Selector`) and into the dashboard's counts
//! (`dashboard::tally`), with time, throughput and peak heap (a counting global allocator);
//! `store::load`, which keeps every signal in memory, for contrast. Then the dashboard of a
//! repository of 1,000 skills, as the library computes it and as `git skill signals` prints
//! it (the release binary, run as a process). A small harness (medians), like the other
//! benches. Run: `cargo bench --bench signals`; `SIGNALS_BENCH_MAX=N` caps the largest store.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use chrono::{DateTime, SecondsFormat, Utc};
use git_skill::signal::select::Selector;
use git_skill::signal::store::{self, Line};
use git_skill::signal::{dashboard, Signal, SignalContext, SignalType};
use git_skill::skill::discover;

const BIN: &str = env!("CARGO_BIN_EXE_git-skill");

// ---------------------------------------------------------------------------------------------
// Heap accounting: bytes currently allocated and the high-water mark since the last reset.
// A `realloc` counts as a change of size in place (the bytes a program asked for, not the
// allocator's transient copy).

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = CURRENT.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

fn shrank(n: usize) {
    CURRENT.fetch_sub(n, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` once: its result, its time, and the peak heap it added over what was live before.
fn measure<T>(f: impl FnOnce() -> T) -> (T, Duration, usize) {
    let base = CURRENT.load(Relaxed);
    PEAK.store(base, Relaxed);
    let start = Instant::now();
    let out = std::hint::black_box(f());
    let elapsed = start.elapsed();
    let peak = PEAK.load(Relaxed).saturating_sub(base);
    (out, elapsed, peak)
}

/// Median time and largest peak heap of `runs` runs; `check` looks at each result.
/// One measured case of a store of `n` signals (`bytes` long): a progress line and a table row.
fn report_size(
    table: &mut Vec<[String; 5]>,
    short: &str,
    long: &str,
    n: usize,
    bytes: u64,
    time: Duration,
    peak: usize,
) {
    println!(
        "  {short}: {} ({}), peak heap {}",
        dur(time),
        throughput(bytes, n, time),
        heap(peak)
    );
    table.push([
        format!("{long}, {} signals", grouped(n)),
        format!("{:.1} MB", bytes as f64 / 1e6),
        dur(time),
        throughput(bytes, n, time),
        heap(peak),
    ]);
}

fn bench<T>(runs: usize, mut f: impl FnMut() -> T, check: impl Fn(&T)) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut peak = 0;
    for _ in 0..runs {
        let (out, time, heap) = measure(&mut f);
        check(&out);
        drop(out);
        times.push(time);
        peak = peak.max(heap);
    }
    times.sort();
    (times[times.len() / 2], peak)
}

// ---------------------------------------------------------------------------------------------
// Generated signals.

/// splitmix64: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn hash(&mut self) -> String {
        (0..4)
            .map(|_| format!("{:016x}", self.next_u64()))
            .collect()
    }
}

const SCENARIOS: &[&str] = &[
    "Fill in a PDF form from a spreadsheet",
    "Extract the tables of a scanned invoice",
    "Merge three quarterly reports into one",
    "Rotate the landscape pages of a contract",
    "Split a long manual into chapters",
];
const CORRECTIONS: &[&str] = &[
    "Use the form's field names, not the printed labels.",
    "Check the page count first; one report has a cover.",
    "Keep the original; write the result beside it.",
    "Run OCR only on pages without a text layer.",
];
const FRICTIONS: &[&str] = &[
    "Guessed the helper script's name twice.",
    "Read the reference three times to find one flag.",
    "Retried after a timeout; no duration is given.",
    "Unclear whether to overwrite the input file.",
];
const INTENTS: &[&str] = &[
    "Fill the form without a PDF editor.",
    "Get the invoice totals into a spreadsheet.",
    "Send a single file for the board pack.",
];
const PROBLEMS: &[&str] = &[
    "Turn 4: filled the labels, left the fields empty.",
    "Turn 7: merged the files in the wrong order.",
    "Turn 2: overwrote the user's annotated original.",
];
const USER_CORRECTIONS: &[&str] = &[
    "No, list the internal field names first.",
    "Keep my original, it has my notes in it.",
    "Only pages 3 and 9 are scans; copy the rest.",
];

/// One realistic signal, recorded up to 60 days before `now`; one in three is `corrected`,
/// one in five was recorded against an older SKILL.md.
fn make_signal(rng: &mut Rng, now: DateTime<Utc>, skill: &str, hash: &str, old: &str) -> Signal {
    let time = now - chrono::Duration::seconds(rng.below(60 * 86_400) as i64);
    let corrected = rng.below(3) == 0;
    let (kind, correction, friction_detail) = if corrected {
        (SignalType::Corrected, rng.pick(CORRECTIONS), "")
    } else {
        (SignalType::Friction, "", rng.pick(FRICTIONS))
    };
    Signal {
        signal_id: format!(
            "{}_{skill}_{:08x}",
            time.format("%Y%m%dT%H%M%SZ"),
            rng.next_u64() as u32
        ),
        skill: skill.to_owned(),
        kind,
        scenario: rng.pick(SCENARIOS).to_owned(),
        correction: correction.to_owned(),
        friction_detail: friction_detail.to_owned(),
        context: SignalContext {
            user_intent: rng.pick(INTENTS).to_owned(),
            problem_turn: rng.pick(PROBLEMS).to_owned(),
            user_correction: rng.pick(USER_CORRECTIONS).to_owned(),
            extra: Default::default(),
        },
        skill_version_hash: if rng.below(5) == 0 { old } else { hash }.to_owned(),
        timestamp: time.to_rfc3339_opts(SecondsFormat::Secs, true),
        extra: Default::default(),
    }
}

/// Writes `n` signals as JSON lines to `path` (directories created); returns the byte size.
fn write_store(path: &Path, n: usize, seed: u64, now: DateTime<Utc>, skill: &str) -> u64 {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut rng = Rng(seed);
    let hash = rng.hash();
    let old = rng.hash();
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
    for _ in 0..n {
        let signal = make_signal(&mut rng, now, skill, &hash, &old);
        serde_json::to_writer(&mut out, &signal).unwrap();
        out.write_all(b"\n").unwrap();
    }
    out.into_inner().unwrap().sync_all().unwrap();
    std::fs::metadata(path).unwrap().len()
}

// ---------------------------------------------------------------------------------------------
// Formatting.

fn grouped(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn dur(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 0.01 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.2} ms", s * 1e3)
    }
}

fn heap(bytes: usize) -> String {
    let b = bytes as f64;
    if b >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

fn throughput(bytes: u64, signals: usize, d: Duration) -> String {
    let s = d.as_secs_f64();
    format!(
        "{:.1} MB/s, {} signals/s",
        bytes as f64 / 1e6 / s,
        grouped((signals as f64 / s) as usize)
    )
}

// ---------------------------------------------------------------------------------------------
// The dashboard as a process.

fn run_bin(repo: &Path, home: &Path, args: &[&str]) -> (Duration, String) {
    let start = Instant::now();
    let out = Command::new(BIN)
        .args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NO_COLOR", "1")
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("GIT_SKILL_NOW")
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    assert!(
        out.status.success(),
        "git-skill {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (elapsed, String::from_utf8(out.stdout).unwrap())
}

fn bin_median(repo: &Path, home: &Path, args: &[&str], rows: impl Fn(&str) -> usize) -> Duration {
    let mut times = Vec::new();
    let mut counted = Vec::new();
    for _ in 0..15 {
        let (time, stdout) = run_bin(repo, home, args);
        times.push(time);
        counted.push(rows(&stdout));
    }
    assert!(counted.windows(2).all(|w| w[0] == w[1]));
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("cores: {cores}");
    let now = Utc::now();
    let tmp = tempfile::tempdir().unwrap();
    let mut table: Vec<[String; 5]> = Vec::new();

    // The generated lines are valid signals, both kinds.
    let small = store::pending_path(&tmp.path().join("check"));
    write_store(&small, 500, 1, now, "pdf");
    let loaded = store::load(&small).unwrap();
    assert!(loaded.bad.is_empty(), "{:?}", loaded.bad);
    assert_eq!(loaded.signals.len(), 500);
    assert!(loaded
        .signals
        .iter()
        .any(|(_, s)| s.kind == SignalType::Corrected));
    assert!(loaded
        .signals
        .iter()
        .any(|(_, s)| s.kind == SignalType::Friction));

    // 1. Big stores, streamed.
    let max: usize = std::env::var("SIGNALS_BENCH_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let mut sizes: Vec<usize> = [10_000, 100_000, 1_000_000]
        .into_iter()
        .filter(|&n| n <= max)
        .collect();
    if sizes.is_empty() {
        sizes.push(max.max(1));
    }
    let mut stream_peaks = Vec::new();
    for &n in &sizes {
        let path = store::pending_path(&tmp.path().join(format!("big-{n}")));
        let start = Instant::now();
        let bytes = write_store(&path, n, n as u64, now, "pdf");
        let mb = bytes as f64 / 1e6;
        println!(
            "{} signals: {mb:.1} MB ({} bytes a line), generated in {}",
            grouped(n),
            bytes / n as u64,
            dur(start.elapsed())
        );
        let hash = {
            // The current hash of this store: the one most of its signals carry.
            let mut rng = Rng(n as u64);
            rng.hash()
        };
        let runs = match n {
            0..=10_000 => 9,
            10_001..=100_000 => 5,
            _ => 3,
        };

        let (time, peak) = bench(
            runs,
            || {
                let mut selector = Selector::new(now, 30, 20);
                let mut bad = 0;
                store::stream(&path, |entry| match entry {
                    Line::Signal(_, signal) => selector.push(signal),
                    Line::Bad(_) => bad += 1,
                })
                .unwrap();
                (bad, selector.finish(&hash))
            },
            |(bad, selection)| {
                assert_eq!(*bad, 0);
                assert_eq!(selection.selected.len(), 20);
                assert_eq!(selection.left_out + selection.too_old + 20, n);
            },
        );
        stream_peaks.push(peak);
        report_size(
            &mut table,
            "stream + select 20 of the last 30 days",
            "stream + select (30 days, 20)",
            n,
            bytes,
            time,
            peak,
        );

        let (time, peak) = bench(
            runs,
            || dashboard::tally(&path).unwrap(),
            |t| {
                assert_eq!(t.total(), n);
                assert_eq!(t.bad_count, 0);
            },
        );
        stream_peaks.push(peak);
        report_size(
            &mut table,
            "dashboard::tally",
            "dashboard::tally",
            n,
            bytes,
            time,
            peak,
        );

        if n <= 100_000 {
            let (time, peak) = bench(
                runs.min(5),
                || store::load(&path).unwrap(),
                |l| {
                    assert!(l.bad.is_empty());
                    assert_eq!(l.signals.len(), n);
                },
            );
            report_size(
                &mut table,
                "store::load (contrast: all in memory)",
                "store::load (all in memory)",
                n,
                bytes,
                time,
                peak,
            );
        }
        std::fs::remove_file(&path).unwrap();
    }

    // 2. The dashboard of 1,000 skills (and 10 deleted ones).
    let repo_dir = tmp.path().join("repo");
    std::fs::create_dir_all(&repo_dir).unwrap();
    let repo = repo_dir.canonicalize().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", &home)
        .status()
        .unwrap();
    assert!(status.success(), "git init");
    let mut rng = Rng(42);
    let mut with_signals = 0;
    let mut total_signals = 0;
    let mut store_bytes = 0;
    for i in 0..1_000 {
        let name = format!("skill-{i:04}");
        let dir = repo.join(".claude/skills").join(&name);
        std::fs::create_dir_all(&dir).unwrap();
        let front = format!("---\nname: {name}\ndescription: Handles task {i} when asked.\n---\n");
        let body = format!("# Skill {i}\n\nRun the steps, then report.\n");
        std::fs::write(dir.join("SKILL.md"), front + &body).unwrap();
        if rng.below(10) < 9 {
            let count = rng.below(51) as usize;
            store_bytes += write_store(
                &store::pending_path(&dir),
                count,
                rng.next_u64(),
                now,
                &name,
            );
            total_signals += count;
            with_signals += usize::from(count > 0);
        }
    }
    for i in 0..10 {
        let name = format!("gone-{i:02}");
        let dir = repo.join(".claude/skills").join(&name);
        let count = 1 + rng.below(50) as usize;
        store_bytes += write_store(
            &store::pending_path(&dir),
            count,
            rng.next_u64(),
            now,
            &name,
        );
        total_signals += count;
    }
    let expected = with_signals + 10;
    println!(
        "dashboard repository: 1,000 skills ({with_signals} with signals) and 10 deleted ones, \
         {} signals, {:.1} MB of stores",
        grouped(total_signals),
        store_bytes as f64 / 1e6
    );
    let dashboard_size = format!("{:.1} MB", store_bytes as f64 / 1e6);
    let per_second = |d: Duration| {
        format!(
            "{} skills/s, {} signals/s",
            grouped((1_010.0 / d.as_secs_f64()) as usize),
            grouped((total_signals as f64 / d.as_secs_f64()) as usize)
        )
    };

    let library = || {
        let found = discover::discover(&discover::default_roots(&repo), Some(&repo));
        let mut rows = 0;
        for (skill, deleted) in found
            .skills
            .iter()
            .map(|s| (s, false))
            .chain(found.deleted.iter().map(|s| (s, true)))
        {
            let t = dashboard::tally(&store::pending_path(&skill.dir)).unwrap();
            rows += usize::from(t.total() > 0 || deleted);
        }
        (found.skills.len(), found.deleted.len(), rows)
    };
    let (time, peak) = bench(15, library, |&(skills, deleted, rows)| {
        assert_eq!((skills, deleted, rows), (1_000, 10, expected));
    });
    println!(
        "  library: discover + tally each store (1 thread): {} ({}), peak heap {}",
        dur(time),
        per_second(time),
        heap(peak)
    );
    table.push([
        "dashboard, 1,000 skills: discover + tally (library, 1 thread)".into(),
        dashboard_size.clone(),
        dur(time),
        per_second(time),
        heap(peak),
    ]);

    let text = bin_median(&repo, &home, &["signals"], |out| {
        let rows = out.lines().count().saturating_sub(1);
        assert_eq!(rows, expected, "{out}");
        assert_eq!(out.matches("[deleted]").count(), 10);
        rows
    });
    println!("  git skill signals: {} ({})", dur(text), per_second(text));
    table.push([
        "dashboard, 1,000 skills: `git skill signals` (process)".into(),
        dashboard_size.clone(),
        dur(text),
        per_second(text),
        "-".into(),
    ]);

    let json = bin_median(&repo, &home, &["signals", "--format", "json"], |out| {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        let skills = v["skills"].as_array().unwrap();
        assert_eq!(skills.len(), expected);
        assert_eq!(skills.iter().filter(|s| s["deleted"] == true).count(), 10);
        skills.len()
    });
    println!(
        "  git skill signals --format json: {} ({})",
        dur(json),
        per_second(json)
    );
    table.push([
        "dashboard, 1,000 skills: `git skill signals --format json` (process)".into(),
        dashboard_size,
        dur(json),
        per_second(json),
        "-".into(),
    ]);

    let (low, high) = (
        stream_peaks.iter().min().copied().unwrap_or(0),
        stream_peaks.iter().max().copied().unwrap_or(0),
    );
    println!(
        "streaming peak heap, all sizes: {} to {}",
        heap(low),
        heap(high)
    );

    println!();
    println!("Markdown ({cores} cores, release; stores in the page cache, just written):");
    println!();
    println!("| case | data | median | throughput | peak heap |");
    println!("|---|---|---|---|---|");
    for row in &table {
        println!("| {} |", row.join(" | "));
    }
}
