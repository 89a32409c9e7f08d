//! `GIT_CONFIG_PARAMETERS`: how git hands `git -c key=value` to the commands it runs.
//! gix does not read it, so this is a small parser for git's shell-quoted list.

/// A malformed `GIT_CONFIG_PARAMETERS` value.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigParameterError {
    #[error("unterminated quote at byte {0}")]
    Unterminated(usize),
    #[error("expected a single-quoted entry at byte {0}")]
    ExpectedQuote(usize),
    #[error("empty key at byte {0}")]
    EmptyKey(usize),
}

/// Parses both forms git writes: the current `'key'='value'` (value optional, meaning a bare
/// boolean key) and the older `'key=value'`. Quotes inside values are written `'\''`.
pub fn parse_config_parameters(
    input: &str,
) -> Result<Vec<(String, Option<String>)>, ConfigParameterError> {
    let bytes = input.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= bytes.len() {
            return Ok(out);
        }
        let start = i;
        let first = dequote(bytes, &mut i)?;
        let (key, value) = if bytes.get(i) == Some(&b'=') {
            i += 1;
            let value = if bytes.get(i) == Some(&b'\'') {
                dequote(bytes, &mut i)?
            } else {
                String::new()
            };
            (first, Some(value))
        } else {
            match first.split_once('=') {
                Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
                None => (first, None),
            }
        };
        if key.is_empty() {
            return Err(ConfigParameterError::EmptyKey(start));
        }
        out.push((key, value));
        if i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            return Err(ConfigParameterError::ExpectedQuote(i));
        }
    }
}

/// Reads one shell single-quoted word starting at `bytes[*i] == '\''`, following git's
/// `sq_dequote`: `'\''` and `'\!'` continue the word with a literal `'` or `!`.
fn dequote(bytes: &[u8], i: &mut usize) -> Result<String, ConfigParameterError> {
    if bytes.get(*i) != Some(&b'\'') {
        return Err(ConfigParameterError::ExpectedQuote(*i));
    }
    let open = *i;
    *i += 1;
    let mut out = Vec::new();
    loop {
        match bytes.get(*i) {
            None => return Err(ConfigParameterError::Unterminated(open)),
            Some(b'\'') => {
                *i += 1;
                let escaped = bytes.get(*i) == Some(&b'\\')
                    && matches!(bytes.get(*i + 1), Some(b'\'') | Some(b'!'))
                    && bytes.get(*i + 2) == Some(&b'\'');
                if escaped {
                    out.push(bytes[*i + 1]);
                    *i += 3;
                } else {
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
            }
            Some(&b) => {
                out.push(b);
                *i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(k: &str, v: Option<&str>) -> (String, Option<String>) {
        (k.to_owned(), v.map(str::to_owned))
    }

    #[test]
    fn new_form_with_values_and_bare_key() {
        let got = parse_config_parameters("'skill.roots'='a b' 'skill.x' 'core.y'=").unwrap();
        assert_eq!(
            got,
            vec![
                kv("skill.roots", Some("a b")),
                kv("skill.x", None),
                kv("core.y", Some(""))
            ]
        );
    }

    #[test]
    fn old_form() {
        let got = parse_config_parameters("'skill.failon=high' 'a.b'").unwrap();
        assert_eq!(got, vec![kv("skill.failon", Some("high")), kv("a.b", None)]);
    }

    #[test]
    fn escaped_quote_and_bang() {
        let got = parse_config_parameters(r"'skill.model'='it'\''s'\!''").unwrap();
        assert_eq!(got, vec![kv("skill.model", Some("it's!"))]);
    }

    #[test]
    fn malformed_inputs_are_errors_not_panics() {
        assert!(matches!(
            parse_config_parameters("'skill.x"),
            Err(ConfigParameterError::Unterminated(0))
        ));
        assert!(parse_config_parameters("skill.x=1").is_err());
        assert!(parse_config_parameters("'a'='b'junk").is_err());
        assert!(parse_config_parameters("''='v'").is_err());
        assert!(parse_config_parameters("'a'='b").is_err());
        assert_eq!(parse_config_parameters("   ").unwrap(), vec![]);
    }

    #[test]
    fn huge_input_is_linear() {
        let one = "'skill.roots'='x' ";
        let input = one.repeat(200_000);
        assert_eq!(parse_config_parameters(&input).unwrap().len(), 200_000);
    }
}
