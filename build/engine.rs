//! The engine's fingerprint: the package version and a hash of every source file and of the
//! locked dependencies. Findings depend on the rules, the analyses, the grammars' versions and
//! how excerpts are shortened and redacted, which live all over `src/` and in `Cargo.lock`;
//! hashing all of it costs a few milliseconds per build and never lets a changed engine
//! read a stale cache, where a hand-kept version number would.

use std::path::{Path, PathBuf};

/// What the fingerprint covers (directories are walked whole).
pub const INPUTS: &[&str] = &["src", "build", "Cargo.lock"];

/// FNV-1a, 64 bits: stable across compilers (std's hasher is not), and no dependency for the
/// build script.
struct Fnv(u64);

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap_or_else(|e| panic!("engine fingerprint: {}: {e}", path.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            files(&entry, out);
        }
    } else if path.is_file() {
        out.push(path.to_owned());
    }
}

/// `engine.rs` for `OUT_DIR`: `ENGINE`, the version and two hashes (of the file names with
/// their bytes, from two starting points) in hex.
pub fn fingerprint() -> String {
    let mut paths = Vec::new();
    for input in INPUTS {
        files(Path::new(input), &mut paths);
    }
    let mut a = Fnv(0xcbf2_9ce4_8422_2325);
    let mut b = Fnv(0x6c62_272e_07bb_0142);
    for path in &paths {
        let bytes = std::fs::read(path)
            .unwrap_or_else(|e| panic!("engine fingerprint: {}: {e}", path.display()));
        let name = path.to_string_lossy().replace('\\', "/");
        for h in [&mut a, &mut b] {
            h.write(&(name.len() as u64).to_le_bytes());
            h.write(name.as_bytes());
            h.write(&(bytes.len() as u64).to_le_bytes());
            h.write(&bytes);
        }
    }
    format!(
        "/// The scan engine's fingerprint (see `build/engine.rs`).\npub const ENGINE: &str = \"{}-{:016x}{:016x}\";\n",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
        a.0,
        b.0
    )
}
