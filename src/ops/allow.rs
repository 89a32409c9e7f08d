//! `git skill allow`: suppressions bound to what was reviewed. `--pin` gives every entry of
//! `.skillguard.yaml` that names no fingerprint the fingerprints of the findings it covers in
//! the work tree today; `RULE PATH --reason` appends an entry pinned to the findings of RULE in
//! PATH. The file is edited as text (its comments stay) and read back before it is written.

use std::path::PathBuf;

use super::scan::{self as scan_op, ScanError};
use crate::env::{Env, EnvError};
use crate::guard::policy_edit::{self, EditError, NewEntry};
use crate::guard::suppress::{repo_file, Policy, PolicyError, POLICY_FILE};
use crate::report::scan::SkillReport;

#[derive(Debug, thiserror::Error)]
pub enum AllowError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Scan(#[from] ScanError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error("could not edit '{}'", .path.display())]
    Edit {
        path: PathBuf,
        #[source]
        source: EditError,
    },
    #[error("could not write '{}'", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("'{rule}' is not a rule id (see git skill rules)")]
    UnknownRule { rule: String },
    #[error("'{path}' is not a skill or a file of one in this repository")]
    NotInSkill { path: String },
    #[error("no {rule} finding in '{path}' to allow")]
    NothingToAllow { rule: String, path: String },
    #[error("the reason is empty: say why the finding is acceptable")]
    NoReason,
    #[error("`--expires` must be a YYYY-MM-DD date")]
    Expires,
}

/// A new entry to add: RULE's findings in PATH (a skill's folder or one of its files).
#[derive(Debug, Clone)]
pub struct Add {
    pub rule: String,
    pub path: PathBuf,
    pub reason: String,
    pub expires: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Pin the entries without fingerprints.
    pub pin: bool,
    pub add: Option<Add>,
    /// Say what would change, write nothing.
    pub dry_run: bool,
    pub jobs: usize,
    pub today: chrono::NaiveDate,
}

/// One entry pinned, or left as it was because it covers nothing today.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Pinned {
    /// The entry as a reviewer reads it.
    pub entry: String,
    /// How many findings it is now bound to (0: it covers nothing and was left as it was).
    pub findings: usize,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub file: PathBuf,
    pub pinned: Vec<Pinned>,
    /// The entry added, as a reviewer reads it, with the number of findings it covers.
    pub added: Option<Pinned>,
    /// Whether the file was written (not with `dry_run`, nor when nothing changed).
    pub written: bool,
}

/// Pins, adds, or both.
pub fn allow(env: &mut Env, options: &Options) -> Result<Report, AllowError> {
    let file = env.require_repo("allow")?.workdir().join(POLICY_FILE);
    let shown = env.display(&file);
    let text = match crate::fsutil::read_regular(&file, crate::guard::suppress::MAX_POLICY_BYTES) {
        Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|e| PolicyError::Invalid {
            file: shown.display().to_string(),
            message: format!("not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to()),
        })?,
        Ok(None) => String::new(),
        Err(e) => return Err(PolicyError::from_regular(&shown, e).into()),
    };
    let policy = Policy::parse(&text).map_err(|message| PolicyError::Invalid {
        file: shown.display().to_string(),
        message,
    })?;
    if let Some(add) = &options.add {
        check_add(add)?;
    }
    // Every skill and agent file of the work tree, as `scan` sees it (the policy's entries
    // match the findings by skill name and path within it).
    let reports = scan_op::scan(
        env,
        &scan_op::Options::work_tree(options.jobs, options.today),
    )?
    .reports;
    let mut edited = text.clone();
    let mut pinned = Vec::new();
    if options.pin {
        let mut pins = Vec::new();
        for (index, entry) in policy.unpinned() {
            // An expired entry covers nothing: pinning it would only hide that it is dead.
            let expired = entry.expires.as_deref().is_some_and(|d| {
                chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok_and(|d| options.today >= d)
            });
            if expired {
                pinned.push(Pinned {
                    entry: crate::guard::suppress::allow_line(entry),
                    findings: 0,
                });
                continue;
            }
            let mut fps: Vec<String> = reports
                .iter()
                .flat_map(|r| {
                    r.findings
                        .iter()
                        .filter(|f| policy.entry_covers(index, &r.name, f))
                        .map(|f| f.fingerprint.clone())
                })
                .collect();
            fps.sort();
            fps.dedup();
            pinned.push(Pinned {
                entry: crate::guard::suppress::allow_line(entry),
                findings: fps.len(),
            });
            if !fps.is_empty() {
                pins.push((index, fps));
            }
        }
        if !pins.is_empty() {
            edited = policy_edit::pin(&edited, &pins).map_err(|source| AllowError::Edit {
                path: shown.clone(),
                source,
            })?;
        }
    }
    let mut added = None;
    if let Some(add) = &options.add {
        let entry = new_entry(env, add, &reports)?;
        let n = entry.fingerprints.len();
        edited = policy_edit::append(&edited, &entry).map_err(|source| AllowError::Edit {
            path: shown.clone(),
            source,
        })?;
        let back = Policy::parse(&edited).map_err(|message| PolicyError::Invalid {
            file: shown.display().to_string(),
            message,
        })?;
        let last = back
            .entry_count()
            .checked_sub(1)
            .and_then(|i| back.entry(i));
        added = Some(Pinned {
            entry: last
                .map(crate::guard::suppress::allow_line)
                .unwrap_or_default(),
            findings: n,
        });
    }
    let written = edited != text && !options.dry_run;
    if written {
        crate::fsutil::write_atomic(&file, edited.as_bytes()).map_err(|source| {
            AllowError::Write {
                path: shown.clone(),
                source,
            }
        })?;
    }
    Ok(Report {
        file: shown,
        pinned,
        added,
        written,
    })
}

fn check_add(add: &Add) -> Result<(), AllowError> {
    if crate::guard::rules::find(&add.rule).is_none() {
        return Err(AllowError::UnknownRule {
            rule: add.rule.chars().take(40).collect(),
        });
    }
    if add.reason.trim().is_empty() {
        return Err(AllowError::NoReason);
    }
    if let Some(d) = &add.expires {
        chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").map_err(|_| AllowError::Expires)?;
    }
    Ok(())
}

/// The entry for RULE's findings in the skill or file `add.path` names.
fn new_entry(env: &Env, add: &Add, reports: &[SkillReport]) -> Result<NewEntry, AllowError> {
    let repo = env.require_repo("allow")?;
    let rel = scan_op::in_repo(env, repo, &add.path).ok_or_else(|| AllowError::NotInSkill {
        path: add.path.display().to_string(),
    })?;
    // The skill (or agent file) that holds the path: the longest folder that is a prefix.
    let report = reports
        .iter()
        .filter(|r| {
            rel == r.repo_path
                || rel
                    .strip_prefix(r.repo_path.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|r| r.repo_path.len())
        .ok_or_else(|| AllowError::NotInSkill {
            path: add.path.display().to_string(),
        })?;
    let rule = crate::guard::rules::find(&add.rule)
        .map(|r| r.id)
        .unwrap_or_default();
    let in_file = (rel != report.repo_path).then(|| rel[report.repo_path.len() + 1..].to_owned());
    let mut fingerprints: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.rule == rule)
        .filter(|f| {
            in_file.as_deref().is_none_or(|file| {
                repo_file(&report.repo_path, &f.file) == format!("{}/{file}", report.repo_path)
            })
        })
        .map(|f| f.fingerprint.clone())
        .collect();
    fingerprints.sort();
    fingerprints.dedup();
    if fingerprints.is_empty() {
        return Err(AllowError::NothingToAllow {
            rule: rule.to_owned(),
            path: add.path.display().to_string(),
        });
    }
    Ok(NewEntry {
        rule: rule.to_owned(),
        skill: report.context.is_none().then(|| report.name.clone()),
        path: in_file,
        reason: add.reason.trim().to_owned(),
        expires: add.expires.clone(),
        fingerprints,
    })
}
