//! Feedback signals: what agents and people record about a skill (the user corrected the
//! agent; the agent hit friction), kept as JSON lines beside the skill in
//! `.skillopt/pending/signal.json` until an optimisation uses them.

pub mod dashboard;
pub mod input;
pub mod schema;
pub mod select;
pub mod store;

pub use schema::{Signal, SignalContext, SignalType};

/// The sha256 of `bytes` in lowercase hex: what `skill_version_hash` holds.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Why the version hash of a skill's SKILL.md could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error("'{}' is not a regular file; git-skill does not follow links out of a skill", .path.display())]
    NotAFile { path: std::path::PathBuf },
    #[error("could not read '{}'", .path.display())]
    Read {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The sha256 (hex) of the SKILL.md of the skill in `dir`, which must be a regular file there
/// (not a link): what `skill_version_hash` records.
pub fn skill_md_sha256(dir: &std::path::Path) -> Result<String, HashError> {
    use sha2::Digest;
    let path = dir.join("SKILL.md");
    let read = |source| HashError::Read {
        path: path.clone(),
        source,
    };
    // Hard links are fine: only hashed, and package managers hard-link skills they install.
    let mut file = match crate::fsutil::open_regular(&path, crate::fsutil::Links::Any) {
        Ok(Some(file)) => file,
        Ok(None) => {
            return Err(read(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "No such file or directory",
            )))
        }
        Err(crate::fsutil::RegularFileError::Io(e)) => return Err(read(e)),
        Err(_) => return Err(HashError::NotAFile { path }),
    };
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(read)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}
