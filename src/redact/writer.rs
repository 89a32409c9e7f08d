//! The terminal's redaction: output is masked line by line, so that a secret printed in
//! pieces (`{key}: {value}`) is seen whole.

use std::io::{self, Write};

/// How much an unfinished line may hold back before it goes out anyway.
const HOLD: usize = 1 << 20;
/// How much an open key block may (a 16384-bit RSA key is about 12 KiB).
const HOLD_BLOCK: usize = 64 << 10;

/// Masks secrets in what is written through it. Complete lines go out at once; the rest of a
/// line waits for its end or a flush, and a private key block for its END line (or a flush).
/// Bytes that are not UTF-8 pass unchanged.
pub struct Writer<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> Writer<W> {
    pub fn new(inner: W) -> Writer<W> {
        Writer {
            inner,
            pending: Vec::new(),
        }
    }

    /// What went out so far (for tests).
    #[cfg(test)]
    pub fn inner_ref(&self) -> &W {
        &self.inner
    }

    /// Writes out what is pending up to a safe point (everything when `all`).
    fn emit(&mut self, all: bool) -> io::Result<()> {
        let cut = if all || self.pending.len() > HOLD {
            self.pending.len()
        } else {
            safe_point(&self.pending)
        };
        if cut == 0 {
            return Ok(());
        }
        let chunk: Vec<u8> = self.pending.drain(..cut).collect();
        for piece in chunk.utf8_chunks() {
            let valid = piece.valid();
            if !valid.is_empty() {
                self.inner.write_all(super::redact(valid).as_bytes())?;
            }
            self.inner.write_all(piece.invalid())?;
        }
        Ok(())
    }
}

/// The end of the last complete line, or the start of a key block that has no END yet when
/// that comes first.
fn safe_point(bytes: &[u8]) -> usize {
    let line_end = bytes
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    // A key's BEGIN line (not a text about one: `-----BEGIN ... PRIVATE KEY-----` in a rule's
    // explanation) is held until its complete END line, for a while.
    let open_block = rfind(bytes, b"-----BEGIN ")
        .filter(|&begin| bytes.len() - begin <= HOLD_BLOCK && is_key_header(&bytes[begin..]))
        .filter(|&begin| {
            begin >= line_end || rfind(&bytes[begin..line_end], b"-----END ").is_none()
        });
    match open_block {
        Some(begin) => line_end.min(begin),
        None => line_end,
    }
}

/// `-----BEGIN <LABEL>PRIVATE KEY…-----` on one line, the label in capitals, digits and spaces.
fn is_key_header(bytes: &[u8]) -> bool {
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or(bytes);
    let Some(rest) = line.strip_prefix(b"-----BEGIN ") else {
        return false;
    };
    let label_len = rest
        .iter()
        .take_while(|&&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ')
        .count();
    rest[..label_len].windows(11).any(|w| w == b"PRIVATE KEY")
        && rest[label_len..].starts_with(b"-----")
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

impl<W: Write> Write for Writer<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        // Only a line end can make something ready: a long line written in many pieces (a
        // JSON report) is not searched again on every piece.
        if self.pending.len() > HOLD || buf.iter().any(|&b| b == b'\n' || b == b'\r') {
            self.emit(false)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.emit(true)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Writer<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}
