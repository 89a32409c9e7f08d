//! Findings of texts already scanned in this process, by content: skill collections vendor the
//! same files into several skills (anthropics/skills carries the same 1.2 MB of Office schemas
//! in `docx`, `pptx` and `xlsx`), and scanning a copy again was a fifth of the time a scan of
//! the public collections took.
//!
//! A text's findings depend only on what names it, its bytes, how it is read and the scan's
//! options, so those are the key, hashed with SHA-256: a collision would let one file stand
//! for another, and an attacker who can pick both files must not be able to make one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};

use super::finding::Finding;

/// Texts smaller than this are scanned again: they cost less than keeping them.
pub const MIN_BYTES: usize = 2 * 1024;
/// Texts remembered at most, and findings kept over all of them; past either, new texts are
/// scanned and not remembered.
const MAX_ENTRIES: usize = 4096;
const MAX_FINDINGS: usize = 100_000;

type Key = [u8; 32];
/// A text's findings, set once by the thread that scans it: another thread that meets a copy
/// meanwhile waits for them rather than scanning it too (with two threads, `docx` and `pptx`
/// are scanned at the same time).
type Cell = Arc<OnceLock<Arc<[Finding]>>>;

struct Table {
    cells: HashMap<Key, Cell>,
    findings: usize,
}

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(|| {
        Mutex::new(Table {
            cells: HashMap::new(),
            findings: 0,
        })
    })
}

/// The key of a text: `parts` (its name, how it is read, the options), each length-prefixed
/// so that no two lists of parts hash alike, then its bytes.
pub fn key(parts: &[&[u8]], bytes: &[u8]) -> Key {
    let mut h = Sha256::new();
    for part in parts {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.update(bytes);
    h.finalize().into()
}

/// The findings of the text of `key`: remembered ones, or `scan`'s, remembered within the
/// bounds.
pub fn findings(key: Key, scan: impl FnOnce() -> Vec<Finding>) -> Arc<[Finding]> {
    let cell = {
        let mut table = table().lock().unwrap_or_else(|e| e.into_inner());
        match table.cells.get(&key) {
            Some(cell) => Some(cell.clone()),
            None if table.cells.len() < MAX_ENTRIES && table.findings < MAX_FINDINGS => {
                let cell = Cell::default();
                table.cells.insert(key, cell.clone());
                Some(cell)
            }
            None => None,
        }
    };
    let Some(cell) = cell else {
        return scan().into();
    };
    cell.get_or_init(|| {
        let found: Arc<[Finding]> = scan().into();
        let mut table = table().lock().unwrap_or_else(|e| e.into_inner());
        table.findings += found.len();
        found
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_parts_apart() {
        assert_ne!(key(&[b"ab", b"c"], b"x"), key(&[b"a", b"bc"], b"x"));
        assert_ne!(key(&[b"a"], b"x"), key(&[b"a"], b"y"));
        assert_eq!(key(&[b"a"], b"x"), key(&[b"a"], b"x"));
    }
}
