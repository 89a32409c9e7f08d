//! `git skill baseline FILE`: a baseline of the work tree's findings, each entry bound to its
//! finding (the file's path in the repository, the matched text, the occurrence). `--update`
//! rewrites an existing baseline for what it covers today: entries of version 1 (by skill name)
//! become version 2, entries that cover nothing go, and nothing new is accepted.

use std::path::PathBuf;

use super::scan::{self as scan_op, ScanError};
use crate::env::Env;
use crate::guard::suppress::Baseline;

#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error(transparent)]
    Scan(#[from] ScanError),
    #[error("could not write '{}'", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug, Clone)]
pub struct Options {
    pub file: PathBuf,
    /// Rewrite what the file accepts instead of accepting every finding.
    pub update: bool,
    pub dry_run: bool,
    pub jobs: usize,
    pub today: chrono::NaiveDate,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub file: PathBuf,
    /// Entries the file had (with `update`).
    pub before: Option<usize>,
    /// The version the file had (with `update`).
    pub before_version: Option<u32>,
    /// Entries it has now.
    pub entries: usize,
    pub written: bool,
}

pub fn baseline(env: &mut Env, options: &Options) -> Result<Report, BaselineError> {
    let old = if options.update {
        Some(Baseline::load(&options.file).map_err(ScanError::Baseline)?)
    } else {
        None
    };
    let scan = scan_op::scan(
        env,
        &scan_op::Options {
            baseline: options.update.then(|| options.file.clone()),
            ..scan_op::Options::work_tree(options.jobs, options.today)
        },
    )?;
    let skills = scan
        .reports
        .iter()
        .map(|r| (r.name.as_str(), r.repo_path.as_str(), r.findings.as_slice()));
    let new = if options.update {
        Baseline::updated(skills)
    } else {
        Baseline::accepting(skills)
    };
    let text = new.to_file_text();
    let unchanged = std::fs::read(&options.file).is_ok_and(|b| b == text.as_bytes());
    let written = !options.dry_run && !unchanged;
    if written {
        crate::fsutil::write_atomic(&options.file, text.as_bytes()).map_err(|source| {
            BaselineError::Write {
                path: options.file.clone(),
                source,
            }
        })?;
    }
    Ok(Report {
        file: options.file.clone(),
        before: old.as_ref().map(|b| b.findings.len()),
        before_version: old.as_ref().map(|b| b.version),
        entries: new.findings.len(),
        written,
    })
}
