//! JUnit XML for CI dashboards: one test case per skill, failing with what it found.

use std::io::{self, Write};

/// One skill's test case.
pub struct Case {
    pub name: String,
    pub failure: Option<Failure>,
}

pub struct Failure {
    pub message: String,
    pub kind: String,
    /// One line per problem.
    pub body: String,
}

/// A `<testsuites>` named `title` holding one suite, `suite`, of `cases`.
pub fn render(out: &mut dyn Write, title: &str, suite: &str, cases: &[Case]) -> io::Result<()> {
    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="{}" tests="{}" failures="{failures}">"#,
        xml(title),
        cases.len()
    )?;
    writeln!(
        out,
        r#"  <testsuite name="{}" tests="{}" failures="{failures}">"#,
        xml(suite),
        cases.len()
    )?;
    for case in cases {
        write!(
            out,
            r#"    <testcase classname="{}" name="{}""#,
            xml(suite),
            xml(&case.name)
        )?;
        let Some(f) = &case.failure else {
            writeln!(out, "/>")?;
            continue;
        };
        writeln!(out, ">")?;
        writeln!(
            out,
            r#"      <failure message="{}" type="{}">{}</failure>"#,
            xml(&f.message),
            xml(&f.kind),
            xml(&f.body)
        )?;
        writeln!(out, "    </testcase>")?;
    }
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")
}

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 cannot carry most control characters at all.
            c if c.is_control() && !matches!(c, '\n' | '\t' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
