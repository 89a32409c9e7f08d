//! A secret written inside a JSON string (`\n` between a key's lines) or a URL (`%0A`, `%3D`)
//! is still a secret: redaction also looks at the text with those escapes undone, and maps what
//! it finds back to the bytes that spell it.

use std::ops::Range;

/// `text` with escapes undone, and for each of its bytes the range of the original text that
/// spelt it (an escape's bytes map to the whole escape).
pub(super) struct View {
    pub text: String,
    from: Vec<(u32, u32)>,
}

impl View {
    /// A view whose byte `i` was spelt by `from[i]` of the original.
    pub fn new(text: String, from: Vec<(u32, u32)>) -> View {
        View { text, from }
    }

    /// This view of `base`'s text as a view of the original `base` is a view of.
    pub fn through(mut self, base: &View) -> View {
        for f in &mut self.from {
            let r = base.origin(f.0 as usize..f.1 as usize);
            *f = (r.start as u32, r.end as u32);
        }
        self
    }

    /// Whether `range` of the view spans bytes the original does not hold together (glue
    /// taken out between them).
    pub fn joins(&self, range: Range<usize>) -> bool {
        let end = range.end.min(self.from.len());
        (range.start..end.saturating_sub(1)).any(|i| self.from[i + 1].0 > self.from[i].1)
    }

    /// The original bytes that spell `range` of the view.
    pub fn origin(&self, range: Range<usize>) -> Range<usize> {
        if range.is_empty() {
            let at = self
                .from
                .get(range.start)
                .map_or(usize::MAX, |f| f.0 as usize);
            return at..at;
        }
        self.from[range.start].0 as usize..self.from[range.end - 1].1 as usize
    }
}

/// Layers of escapes undone: a JSON document quoted inside a JSON string has two.
const LAYERS: usize = 3;

/// The views of `text` with one, two, … layers of escapes undone, while undoing changes
/// anything. Empty when `text` holds no escape (most text); also for texts over 4 GiB, whose
/// offsets the map does not hold.
pub(super) fn views(text: &str) -> Vec<View> {
    let mut out: Vec<View> = Vec::new();
    if u32::try_from(text.len()).is_err() {
        return out;
    }
    for _ in 0..LAYERS {
        let last = out.last().map_or(text, |v| v.text.as_str());
        let Some(mut next) = unescape(last) else {
            break;
        };
        if let Some(prev) = out.last() {
            // Offsets into the previous view become offsets into the original.
            next = next.through(prev);
        }
        out.push(next);
    }
    out
}

/// One layer of JSON string escapes and URL percent-escapes undone; `None` when there is none.
fn unescape(text: &str) -> Option<View> {
    if !text.bytes().any(|b| b == b'\\' || b == b'%') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut from = Vec::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if let Some((c, len)) = escape_at(text, i) {
            let start = out.len();
            out.push(c);
            from.extend(std::iter::repeat_n(
                (i as u32, (i + len) as u32),
                out.len() - start,
            ));
            i += len;
            changed = true;
            continue;
        }
        // Copy one whole character.
        let len = utf8_len(bytes[i]);
        let end = (i + len).min(bytes.len());
        out.push_str(&text[i..end]);
        from.extend((i..end).map(|_| (i as u32, end as u32)));
        i = end;
    }
    changed.then_some(View { text: out, from })
}

/// The character an escape at byte `i` stands for, and the escape's length.
fn escape_at(text: &str, i: usize) -> Option<(char, usize)> {
    let bytes = text.as_bytes();
    match bytes[i] {
        b'\\' => {
            let c = match *bytes.get(i + 1)? {
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'"' => '"',
                b'\'' => '\'',
                b'\\' => '\\',
                b'/' => '/',
                b'u' => return unicode_escape(text, i),
                _ => return None,
            };
            Some((c, 2))
        }
        b'%' => {
            let hex = text.get(i + 1..i + 3)?;
            let b = u8::from_str_radix(hex, 16).ok()?;
            // Secrets are ASCII; a percent-encoded UTF-8 sequence is left as it is.
            b.is_ascii().then_some((b as char, 3))
        }
        _ => None,
    }
}

/// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`, at byte `i`.
fn unicode_escape(text: &str, i: usize) -> Option<(char, usize)> {
    let hex4 = |at: usize| {
        text.get(at..at + 4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    let high = hex4(i + 2)?;
    if (0xD800..0xDC00).contains(&high) {
        if text.get(i + 6..i + 8) != Some("\\u") {
            return None;
        }
        let low = hex4(i + 8)?;
        if !(0xDC00..0xE000).contains(&low) {
            return None;
        }
        let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?;
        return Some((c, 12));
    }
    Some((char::from_u32(high)?, 6))
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_map_back_to_their_bytes() {
        let text = r#"{"k": "a\nb\u00e9c"}"#;
        let v = &views(text)[0];
        assert_eq!(v.text, "{\"k\": \"a\nb\u{e9}c\"}");
        let at = v.text.find('\n').unwrap();
        assert_eq!(&text[v.origin(at..at + 1)], "\\n");
        let e = v.text.find('\u{e9}').unwrap();
        assert_eq!(&text[v.origin(e..e + 2)], "\\u00e9");
        let c = v.text.find('c').unwrap();
        assert_eq!(&text[v.origin(at..c + 1)], "\\nb\\u00e9c");
    }

    #[test]
    fn two_layers_and_percent_escapes() {
        let text = r"x\\nY%3Dz";
        let vs = views(text);
        assert_eq!(vs[0].text, "x\\nY=z");
        assert_eq!(vs[1].text, "x\nY=z");
        let nl = vs[1].text.find('\n').unwrap();
        assert_eq!(&text[vs[1].origin(nl..nl + 1)], r"\\n");
        let eq = vs[1].text.find('=').unwrap();
        assert_eq!(&text[vs[1].origin(eq..eq + 1)], "%3D");
    }

    #[test]
    fn nothing_to_undo_and_broken_escapes() {
        assert!(views("plain text, 100% sure").is_empty());
        assert!(views("a\\q %zz \\u12 \\uD800x 字").is_empty());
        let emoji = &views(r"\ud83d\ude00!")[0];
        assert_eq!(emoji.text, "😀!");
        assert_eq!(emoji.origin(0..4), 0..12);
    }
}
