//! What the agent hooks keep in the repository and must not take back forged (a session's
//! snapshot, the contents a person released) is signed with the user's key, the scan cache's
//! (`guard::cache::key_file`), kept outside every repository: HMAC-SHA256 over the parts, in
//! hex. A same-user agent that can read that key can sign too; one confined to the repository
//! (a sandboxed agent) cannot.

use hmac::Mac as _;

/// The user's key, made at first use; `None` without a place for it (no HOME) or when it
/// cannot be trusted.
pub fn user_key(
    config_home: Option<&std::path::Path>,
    home: Option<&std::path::Path>,
) -> Option<[u8; 32]> {
    let path = crate::guard::cache::key_file(config_home, home)?;
    crate::guard::cache::load_key(&path).ok()
}

/// HMAC-SHA256 of `parts` (each followed by a NUL), in hex.
pub fn sign(key: &[u8; 32], parts: &[&[u8]]) -> String {
    let mut mac =
        hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    for part in parts {
        mac.update(part);
        mac.update(b"\0");
    }
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `given` is the signature of `parts`, compared whole (the time a comparison takes
/// says nothing of the key).
pub fn verify(key: &[u8; 32], parts: &[&[u8]], given: &str) -> bool {
    let want = sign(key, parts);
    given.len() == want.len()
        && given
            .bytes()
            .zip(want.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_holds_for_its_parts_and_key_only() {
        let (k1, k2) = ([1u8; 32], [2u8; 32]);
        let s = sign(&k1, &[b"a", b"b"]);
        assert!(verify(&k1, &[b"a", b"b"], &s));
        assert!(!verify(&k2, &[b"a", b"b"], &s));
        assert!(!verify(&k1, &[b"ab"], &s));
        assert!(!verify(&k1, &[b"a", b"b"], &s[..10]));
    }
}
