//! A secret cut in pieces is still a secret: a token wrapped over indented lines, or split
//! across adjacent JSON strings (`"ghp_u8jz…", "rest": "fBAe…"`, `"sk-" + "…"`). Redaction also
//! looks at the text with that glue taken out, and masks from the first piece through the last.

use std::sync::LazyLock;

use super::unescape::View;

/// Glue between two pieces of one token: a line break and indentation after a long run of
/// token characters (prose rarely ends a line on one), or the quotes, comma or plus and an
/// optional key between two adjacent strings. Byte classes: every match starts and ends at
/// ASCII bytes, so at character boundaries.
static GLUE: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(concat!(
        "(?-u)",
        r"[A-Za-z0-9_+/=-]{16}(\\?\r?\n[ \t]+)[A-Za-z0-9_+/=-]",
        r#"|[A-Za-z0-9_+/=-]("[ \t]*[,+][ \t\r\n]*(?:"[^"\r\n]{0,40}"[ \t]*:[ \t]*)?")[A-Za-z0-9_+/=-]"#,
    ))
    .expect("the glue pattern compiles")
});

/// `text` without the glue between pieces, or `None` when there is none (most text).
pub(super) fn view(text: &str) -> Option<View> {
    if u32::try_from(text.len()).is_err() || !text.bytes().any(|b| b == b'\n' || b == b'"') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut from = Vec::with_capacity(text.len());
    let mut at = 0;
    // Matches overlap by their token characters: step past the glue only, so that a token in
    // three pieces loses both of its glues.
    let mut search = 0;
    while let Some(c) = GLUE.captures_at(text.as_bytes(), search) {
        let glue = c.get(1).or_else(|| c.get(2)).expect("one side matched");
        let (start, end) = (glue.start(), glue.end());
        out.push_str(&text[at..start]);
        from.extend((at..start).map(|i| (i as u32, i as u32 + 1)));
        at = end;
        search = end;
    }
    if at == 0 {
        return None;
    }
    out.push_str(&text[at..]);
    from.extend((at..text.len()).map(|i| (i as u32, i as u32 + 1)));
    Some(View::new(out, from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_joined_and_map_back_over_their_glue() {
        let text = "token: ghp_u8jzPde0IgxLd6Gnc\n       fBAepfJBd0Kh8oOOL8d\nnext";
        let v = view(text).unwrap();
        assert!(v
            .text
            .contains("ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\nnext"));
        let at = v.text.find("ghp_").unwrap();
        let r = v.origin(at..at + 40);
        assert_eq!(
            &text[r],
            "ghp_u8jzPde0IgxLd6Gnc\n       fBAepfJBd0Kh8oOOL8d"
        );

        let json = r#"{"a": "ghp_u8jzPde0Igx", "b": "Ld6GncfBAep", "c": "fJBd0Kh8oOOL8d"}"#;
        let v = view(json).unwrap();
        assert!(
            v.text.contains("ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"),
            "{}",
            v.text
        );
        assert!(view(r#"x = "sk-" + "abc""#)
            .unwrap()
            .text
            .contains("sk-abc"));
    }

    #[test]
    fn prose_and_short_lines_have_no_glue() {
        assert!(view("Fill each field\n  by its name.\n").is_none());
        assert!(view("a short word\n    next").is_none());
        assert!(view("plain").is_none());
        assert!(view("字\n  字").is_none());
        // Words joined are not a secret: nothing is masked.
        let list = r#"["one two", "three", "a-rather-long-name-here", "b"]"#;
        assert!(view(list).is_some());
        assert_eq!(crate::redact::redact(list), list);
    }
}
