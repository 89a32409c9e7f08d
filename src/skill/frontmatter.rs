//! Splitting `SKILL.md` into YAML frontmatter and Markdown body, and parsing the YAML with
//! errors that name the line and say how to fix the usual mistakes.

/// Frontmatter larger than this is not parsed: no legitimate one comes near it, and a YAML
/// parser fed megabytes is an easy way to stall a pre-commit hook.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// `SKILL.md` cut in two. Line numbers are 1-based lines of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    pub yaml: &'a str,
    /// The file line holding the first YAML line (2 when the file starts with `---`).
    pub yaml_line: usize,
    pub body: &'a str,
    pub body_line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitError {
    /// The file does not start with a `---` line. `found_at` is set when a `---` line appears
    /// after leading blank lines, which loaders do not accept either.
    Missing { found_at: Option<usize> },
    /// The opening `---` has no closing `---`.
    Unclosed,
}

/// Removes a UTF-8 byte order mark, which editors on Windows like to add.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches(['\n', '\r'])
        .trim_end_matches([' ', '\t'])
        == "---"
}

/// Splits the text (BOM already removed) at the `---` lines. CRLF line ends are accepted.
pub fn split(text: &str) -> Result<Split<'_>, SplitError> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if !is_delimiter(first) {
        let found_at = text
            .split_inclusive('\n')
            .enumerate()
            .find(|(_, l)| !l.trim().is_empty())
            .filter(|(_, l)| is_delimiter(l))
            .map(|(i, _)| i + 1);
        return Err(SplitError::Missing { found_at });
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for (i, line) in lines.enumerate() {
        if is_delimiter(line) {
            let yaml = &text[yaml_start..offset];
            let body = &text[offset + line.len()..];
            return Ok(Split {
                yaml,
                yaml_line: 2,
                body,
                // first line is 1, YAML lines are 2..=i+1, the closing line is i+2.
                body_line: i + 3,
            });
        }
        offset += line.len();
    }
    Err(SplitError::Unclosed)
}

/// A YAML problem, located in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    pub hint: String,
}

/// Parses the frontmatter YAML into a value. `yaml_line` is the file line of its first line.
pub fn parse_yaml(yaml: &str, yaml_line: usize) -> Result<serde_yaml::Value, YamlError> {
    serde_yaml::from_str::<serde_yaml::Value>(yaml).map_err(|err| {
        let location = err.location();
        let line = location.as_ref().map(|l| l.line() + yaml_line - 1);
        let column = location.as_ref().map(|l| l.column());
        let message = err.to_string();
        // serde_yaml appends " at line L column C"; the diagnostic carries that already.
        let message = match message.find(" at line ") {
            Some(i) => message[..i].to_owned(),
            None => message,
        };
        let (line, column, hint) = explain(yaml, yaml_line, line, column, &message);
        YamlError {
            line,
            column,
            message,
            hint,
        }
    })
}

/// Turns the parser's complaint into advice for the mistakes people really make.
fn explain(
    yaml: &str,
    yaml_line: usize,
    line: Option<usize>,
    column: Option<usize>,
    message: &str,
) -> (Option<usize>, Option<usize>, String) {
    // Only when the parser points at that very line: elsewhere the colon is not the problem.
    if let Some((n, key, col)) =
        unquoted_colon(yaml).filter(|(n, _, _)| line.is_none_or(|l| l == n + yaml_line))
    {
        let file_line = n + yaml_line;
        return (
            Some(file_line),
            Some(col),
            format!(
                "the value of `{key}` on line {file_line} contains ': ', which YAML reads as a \
                 nested key; put the value in double quotes (escape any \" inside as \\\") or use \
                 a block scalar: `{key}: >-` followed by the text indented on the next lines"
            ),
        );
    }
    if let Some(key) = message
        .strip_prefix("duplicate entry with key \"")
        .and_then(|rest| rest.split('"').next())
    {
        // The parser points at the mapping; the second occurrence is what to remove.
        let second = yaml
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                l.strip_prefix(key)
                    .is_some_and(|r| r.trim_start().starts_with(':'))
            })
            .nth(1)
            .map(|(n, _)| n + yaml_line);
        return (
            second.or(line),
            second.map_or(column, |_| Some(1)),
            format!("`{key}` appears twice; each key may appear once, so remove one"),
        );
    }
    if message.contains("control characters are not allowed") {
        // The reader fails before it counts lines; find the character here.
        let is_bad = |c: char| c.is_control() && c != '\t' && c != '\r';
        if let Some((n, l)) = yaml
            .lines()
            .enumerate()
            .find(|(_, l)| l.chars().any(is_bad))
        {
            let col = l.chars().position(is_bad).unwrap_or(0) + 1;
            return (
                Some(n + yaml_line),
                Some(col),
                "remove the control character (a NUL or similar byte) from that line".to_owned(),
            );
        }
    }
    let offending = line.and_then(|l| yaml.lines().nth(l.checked_sub(yaml_line)?));
    if offending.is_some_and(|l| l.starts_with('\t') || l.contains(":\t"))
        || yaml.lines().any(|l| l.starts_with('\t'))
    {
        return (
            line,
            column,
            "YAML does not allow tabs for indentation; indent with spaces".to_owned(),
        );
    }
    if message.contains("repetition limit") || message.contains("recursion limit") {
        return (
            line,
            column,
            "the frontmatter expands anchors and aliases too far; write the values out plainly"
                .to_owned(),
        );
    }
    if message.contains("cannot start any token") {
        return (
            line,
            column,
            "a value starting with `@`, a backtick, `%` or similar must be quoted".to_owned(),
        );
    }
    (
        line,
        column,
        "fix the YAML syntax on that line; when in doubt, put string values in double quotes"
            .to_owned(),
    )
}

/// Finds a top-level `key: value` line whose plain (unquoted) value contains `: `.
/// Returns (0-based line within the YAML, key, 1-based column of the offending colon).
fn unquoted_colon(yaml: &str) -> Option<(usize, String, usize)> {
    for (n, line) in yaml.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            continue;
        }
        // A ` #` starts a comment; what follows is not part of the value.
        let rest = rest.split(" #").next().unwrap_or(rest);
        let value = rest.trim_start();
        if value.is_empty()
            || !rest.starts_with([' ', '\t'])
            || value.starts_with(['"', '\'', '|', '>', '[', '{', '&', '*', '!', '#'])
        {
            continue;
        }
        let value_col = key.len() + 1 + (rest.len() - value.len());
        if let Some(i) = value
            .find(": ")
            .or_else(|| value.ends_with(':').then(|| value.len() - 1))
        {
            // Columns count characters, not bytes.
            let col = line[..value_col + i].chars().count() + 1;
            return Some((n, key.to_owned(), col));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_basic_and_crlf() {
        let s = split("---\nname: a\n---\nbody\n").unwrap();
        assert_eq!(s.yaml, "name: a\n");
        assert_eq!(s.body, "body\n");
        assert_eq!(s.body_line, 4);
        let s = split("---\r\nname: a\r\ndescription: b\r\n---\r\nbody").unwrap();
        assert_eq!(s.yaml, "name: a\r\ndescription: b\r\n");
        assert_eq!(s.body, "body");
        assert_eq!(s.body_line, 5);
    }

    #[test]
    fn split_errors() {
        assert_eq!(
            split("# title\n"),
            Err(SplitError::Missing { found_at: None })
        );
        assert_eq!(split(""), Err(SplitError::Missing { found_at: None }));
        assert_eq!(
            split("\n\n---\nname: a\n---\n"),
            Err(SplitError::Missing { found_at: Some(3) })
        );
        assert_eq!(split("---\nname: a\n"), Err(SplitError::Unclosed));
        assert_eq!(split("---"), Err(SplitError::Unclosed));
    }

    #[test]
    fn empty_frontmatter_and_trailing_spaces() {
        let s = split("--- \n---\n").unwrap();
        assert_eq!(s.yaml, "");
        assert_eq!(s.body, "");
    }

    #[test]
    fn unquoted_colon_is_explained_with_its_line() {
        let yaml = "name: pdf\ndescription: Use when: the user asks for PDFs\n";
        let err = parse_yaml(yaml, 2).unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.hint.contains("`description`"), "{}", err.hint);
        assert!(err.hint.contains("double quotes"));
    }

    #[test]
    fn tabs_are_explained() {
        let err = parse_yaml("metadata:\n\tauthor: me\n", 2).unwrap_err();
        assert!(err.hint.contains("tabs"), "{err:?}");
    }

    #[test]
    fn alias_bomb_is_refused_quickly() {
        let mut yaml = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for w in names.windows(2) {
            let refs = vec![format!("*{}", w[0]); 9].join(",");
            yaml.push_str(&format!("{}: &{} [{refs}]\n", w[1], w[1]));
        }
        let start = crate::clock::monotonic();
        let err = parse_yaml(&yaml, 2).unwrap_err();
        assert!(err.message.contains("limit"), "{err:?}");
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
}
