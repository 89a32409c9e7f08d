//! Scanning many skills on several threads. The engine is shared (built once, read-only), so
//! workers only pull the next skill and scan it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::scan::{scan_skill, ScanOptions, SkillScan};
use crate::skill::files::ReadError;
use crate::skill::{meta, SkillFiles};

/// One scanned skill directory.
#[derive(Debug)]
pub struct Scanned {
    /// The frontmatter's `name`, when it parses.
    pub name: Option<String>,
    pub scan: SkillScan,
    /// Bytes of all regular files, for throughput figures.
    pub bytes: u64,
}

/// Scans `dirs` on `jobs` threads; results come back in the order of `dirs`.
pub fn scan_dirs(
    dirs: &[PathBuf],
    options: ScanOptions,
    jobs: usize,
) -> Vec<Result<Scanned, ReadError>> {
    map_ordered(dirs, jobs, |dir| scan_dir(dir, options))
}

/// `f` over `items` on up to `jobs` threads (none spawned for one item or one job); results
/// come back in the order of `items`. A panic in `f` is re-raised here.
pub fn map_ordered<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let workers = jobs.clamp(1, items.len().max(1));
    if workers == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

fn scan_dir(dir: &std::path::Path, options: ScanOptions) -> Result<Scanned, ReadError> {
    let files = SkillFiles::read(dir)?;
    let scan = scan_skill(&files, &|rel| std::fs::read(dir.join(rel)), options);
    let name = files
        .skill_md
        .as_deref()
        .and_then(|b| meta::parse(b).ok())
        .and_then(|(m, _)| m.name);
    let bytes = files.total_bytes();
    Ok(Scanned { name, scan, bytes })
}
