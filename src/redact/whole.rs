//! From where a credential pattern matched to where the secret ends. The patterns match enough
//! to be sure (a key's header and its first 40 characters, a token's prefix and minimum
//! length); the mask must cover the rest: a PEM block through its END line, a token through its
//! last character, a key wrapped over lines through its last line.

use std::ops::Range;

/// How far an END line may be from its BEGIN: a 16384-bit RSA key is about 12 KiB.
const PEM_SPAN: usize = 64 * 1024;

/// The whole secret around a match at `found` in `text`.
pub(super) fn whole(text: &str, found: Range<usize>) -> Range<usize> {
    // Patterns match a delimiter around some secrets (` TOKEN=…;`); the text keeps it.
    let found = trimmed(text, found);
    let matched = &text[found.clone()];
    if let Some(at) = matched.find("-----BEGIN ") {
        return pem(text, found.start + at, found.end);
    }
    if let Some(at) = matched.find("Private-Lines:") {
        return putty(text, found.start + at, found.end);
    }
    let end = token_end(text, found.end);
    let token = &text[found.start..end];
    // A long token that fills its line may go on in the next (a key wrapped at 64 or 76).
    if token.len() >= 60 && token.bytes().all(is_base64) {
        return found.start..wrapped_lines(text, end, 16);
    }
    found.start..end
}

/// A PEM block from its BEGIN line: through the END line when there is one near, else through
/// the last line of its body.
fn pem(text: &str, begin: usize, matched_end: usize) -> Range<usize> {
    let window_end = floor_boundary(text, begin.saturating_add(PEM_SPAN).min(text.len()));
    let after_header = text[begin + 11..]
        .find("-----")
        .map_or(matched_end, |i| begin + 11 + i + 5);
    let window_end = window_end.max(after_header);
    if let Some(i) = text[after_header..window_end].find("-----END ") {
        let end_at = after_header + i + 9;
        // Through the END line's closing dashes, or its end when they are missing.
        let line_end = text[end_at..window_end]
            .find(['\n', '\r'])
            .map_or(window_end, |j| end_at + j);
        let close = text[end_at..line_end]
            .find("-----")
            .map_or(line_end, |j| end_at + j + 5);
        return begin..close.max(matched_end);
    }
    // No END: the headers (`Proc-Type: …`) and every base64 line after the BEGIN line.
    let mut end = token_end(text, after_header.max(matched_end));
    loop {
        let next = wrapped_lines(text, end, 1);
        let header = header_line(text, end);
        // The blank line between an encrypted key's headers and its body.
        let after_blank = blank_line(text, end).map_or(end, |b| wrapped_lines(text, b, 1));
        let furthest = next.max(header).max(after_blank);
        if furthest == end {
            break;
        }
        end = furthest;
    }
    begin..end.max(matched_end)
}

/// PuTTY's private lines: the base64 lines after `Private-Lines:` and the `Private-MAC:` line.
fn putty(text: &str, at: usize, matched_end: usize) -> Range<usize> {
    let mut end = wrapped_lines(text, token_end(text, matched_end), 1);
    if let Some(line) = next_line(text, end) {
        if text[line.clone()].trim_start().starts_with("Private-MAC:") {
            end = line.end;
        }
    }
    at..end
}

/// Past every following line that is nothing but base64 (at least `min` characters of it).
fn wrapped_lines(text: &str, mut end: usize, min: usize) -> usize {
    while let Some(line) = next_line(text, end) {
        let body = text[line.clone()].trim();
        if body.len() < min || !body.bytes().all(is_base64) {
            break;
        }
        end = line.end;
    }
    end
}

/// At the line break that ends an empty line right after `end` (`\n\n`: the second `\n`),
/// when that is what follows.
fn blank_line(text: &str, end: usize) -> Option<usize> {
    let rest = &text[end..];
    if rest.starts_with("\r\n\r\n") {
        Some(end + 2)
    } else if rest.starts_with("\n\n") {
        Some(end + 1)
    } else {
        None
    }
}

/// Past the next line when it is a PEM header line (`Proc-Type: 4,ENCRYPTED`, `Comment: …`).
fn header_line(text: &str, end: usize) -> usize {
    match next_line(text, end) {
        Some(line) => {
            let body = text[line.clone()].trim();
            let is_header = body.split_once(':').is_some_and(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
            if is_header {
                line.end
            } else {
                end
            }
        }
        None => end,
    }
}

/// The line after the line break at `end` (`\n` or `\r\n`, nothing else between), without its
/// own line break.
fn next_line(text: &str, end: usize) -> Option<Range<usize>> {
    let rest = &text[end..];
    let skip = if rest.starts_with("\r\n") {
        2
    } else if rest.starts_with('\n') {
        1
    } else {
        return None;
    };
    let start = end + skip;
    let len = text[start..]
        .find(['\n', '\r'])
        .unwrap_or(text.len() - start);
    (len > 0).then_some(start..start + len)
}

/// Past the characters a token may be made of, from `end` on (a pattern that stopped at a
/// minimum length leaves the rest of the token).
fn token_end(text: &str, end: usize) -> usize {
    let extends = text[..end].bytes().last().is_some_and(is_token);
    if !extends {
        return end;
    }
    end + text[end..].bytes().take_while(|&b| is_token(b)).count()
}

/// `found` without what patterns match around a secret: a delimiter before it, a quote, a
/// separator or a URL's `@` after it. Other characters at its end (a password's `!!`) are the
/// secret's.
fn trimmed(text: &str, found: Range<usize>) -> Range<usize> {
    let s = &text[found.clone()];
    let not_token = |c: char| !(c.is_ascii() && is_token(c as u8));
    let delimiter = |c: char| c.is_whitespace() || "\"'`,;:)]}>@".contains(c);
    let start = found.start + (s.len() - s.trim_start_matches(not_token).len());
    let end = found.end - (s.len() - s.trim_end_matches(delimiter).len());
    if start >= end {
        return found;
    }
    start..end
}

fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-' | b'.' | b'~')
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-')
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
