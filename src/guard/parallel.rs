//! Scanning many skills on several threads. The engine is shared (built once, read-only), so
//! workers only pull the next skill and scan it.

use std::path::PathBuf;

use super::finding::SkillScan;
use super::scan::{scan_skill, ScanOptions};
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
    crate::parallel::map_ordered(dirs, jobs, |dir| scan_dir(dir, options))
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
