//! The policy file (`.skillguard.yaml`) and a baseline as each check reads them: from the work
//! tree for `scan`, from the index for the hook, from the base revision in range mode (the
//! target with `--suppressions-from-target`). They are read only as regular files of at most
//! 1 MiB, never through a symbolic link, and an error never quotes them.

use std::path::Path;

use crate::git::{At, GitError, RegularBlob, Repo};
use crate::guard::suppress::{Baseline, Policy, PolicyError, MAX_POLICY_BYTES, POLICY_FILE};

/// The policy file given on the command line or at the top of the work tree; `Ok(None)` when
/// there is none.
pub fn policy_file(path: &Path) -> Result<Option<Policy>, PolicyError> {
    Policy::load(path)
}

/// The policy file as git holds it at `at`; `Ok(None)` when there is none.
pub fn policy_at(repo: &Repo, at: At<'_>) -> Result<Option<Policy>, PolicyError> {
    policy_in(&repo.regular_blob(at, POLICY_FILE, MAX_POLICY_BYTES), at)
}

/// The policy file read from what [`Repo::regular_blob`] gave for it at `at` (for a caller
/// that compares the bytes too, so that the file is read once).
pub fn policy_in(
    blob: &Result<RegularBlob, GitError>,
    at: At<'_>,
) -> Result<Option<Policy>, PolicyError> {
    let file = || format!("{POLICY_FILE} {at}");
    match blob {
        Err(e) => Err(PolicyError::Read {
            file: file(),
            source: std::io::Error::other(e.to_string()),
        }),
        Ok(RegularBlob::Missing) => Ok(None),
        Ok(RegularBlob::Refused(reason)) => Err(PolicyError::Refused {
            file: file(),
            reason: reason.clone(),
        }),
        Ok(RegularBlob::Regular(bytes)) => {
            Policy::parse_bytes(bytes)
                .map(Some)
                .map_err(|message| PolicyError::Invalid {
                    file: file(),
                    message,
                })
        }
    }
}

/// A baseline file as git holds it at `at` (`rel`: its path relative to the top), read under
/// the same rules as the policy file; a missing one is an error (it was asked for).
pub fn baseline_at(repo: &Repo, at: At<'_>, rel: &str) -> Result<Baseline, PolicyError> {
    let file = || format!("{rel} {at}");
    let blob = repo
        .regular_blob(at, rel, MAX_POLICY_BYTES)
        .map_err(|e: GitError| PolicyError::Read {
            file: file(),
            source: std::io::Error::other(e.to_string()),
        })?;
    match blob {
        RegularBlob::Missing => Err(PolicyError::Read {
            file: file(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file there"),
        }),
        RegularBlob::Refused(reason) => Err(PolicyError::Refused {
            file: file(),
            reason,
        }),
        RegularBlob::Regular(bytes) => {
            Baseline::parse_bytes(&bytes).map_err(|message| PolicyError::Invalid {
                file: file(),
                message,
            })
        }
    }
}
