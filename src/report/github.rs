//! What a GitHub Actions job shows of a scan: workflow commands that annotate the pull
//! request's files (`::error file=...,line=...,title=...::message`, one per finding that
//! counts) and a Markdown job summary. Both escape what they quote as the runner reads it, so
//! that a skill's text can neither end an annotation early nor issue a command of its own.

use std::io::{self, Write};

use super::scan::{join, SkillReport};
use crate::guard::{Severity, Verdict};

/// A finding whose inline allow is new in the range it was scanned in (see
/// [`crate::check::pin_to_base`]): listed for reviewers, not honoured.
pub const RELEASED_ALLOW: &str =
    " (its git-skill:allow comment is new in this range; inline allows count as of the base revision)";

/// A finding a policy or baseline entry of the base covers by rule, skill or path only, which
/// the base did not have: the entry was written for something else.
pub const RELEASED_ENTRY: &str =
    " (not suppressed before this change, and the entry that covers it names no fingerprint: it covers only what it covered before; pin entries with git skill allow --pin, or allow this finding with git skill allow RULE PATH)";

/// One annotation per finding that is not suppressed: `error` for critical, `warning` for
/// high, `notice` below; and one `error` per file that could not be checked.
pub fn annotations(out: &mut dyn Write, skills: &[SkillReport]) -> io::Result<()> {
    for skill in skills {
        for f in skill.findings.iter().filter(|f| f.suppressed.is_none()) {
            let level = match f.severity {
                Severity::Critical => "error",
                Severity::High => "warning",
                _ => "notice",
            };
            let file = join(&skill.repo_path, &f.file);
            let mut place = format!("file={}", property(&file));
            if f.line > 0 {
                place.push_str(&format!(",line={},col={}", f.line, f.column.max(1)));
            }
            let title = format!("{} {} ({})", f.rule, f.severity.as_str(), skill.name);
            writeln!(
                out,
                "::{level} {place},title={}::{}",
                property(&title),
                data(&f.message)
            )?;
        }
        for e in &skill.errors {
            writeln!(
                out,
                "::error file={},title={}::{}",
                property(&skill.repo_path),
                property("could not be checked"),
                data(e)
            )?;
        }
    }
    Ok(())
}

/// One annotation per lint diagnostic: `error` or `warning` as its level.
pub fn lint_annotations(
    out: &mut dyn Write,
    diagnostics: &[crate::report::Diagnostic],
) -> io::Result<()> {
    for d in diagnostics {
        let level = match d.level {
            crate::report::Level::Error => "error",
            _ => "warning",
        };
        let file = d.path.to_string_lossy().replace('\\', "/");
        let mut place = format!("file={}", property(&file));
        if let Some(line) = d.line {
            place.push_str(&format!(",line={line}"));
            if let Some(col) = d.column {
                place.push_str(&format!(",col={col}"));
            }
        }
        writeln!(
            out,
            "::{level} {place},title={}::{}",
            property(d.code),
            data(&d.message)
        )?;
    }
    Ok(())
}

/// A warning of the run itself (a submodule not looked into), as a GitHub annotation.
pub fn warning(out: &mut dyn Write, message: &str) -> io::Result<()> {
    writeln!(out, "::warning title=git-skill::{}", data(message))
}

/// A Markdown job summary: the verdict, the findings that count, the capability drift of the
/// changed skills (`drift`, already rendered), the allow comments and policy entries
/// (`policy_added`) the change brings, which were not honoured, and the run's warnings.
pub fn summary(
    out: &mut dyn Write,
    title: &str,
    skills: &[SkillReport],
    lint: &[crate::report::Diagnostic],
    policy_added: &[String],
    drift: Option<&str>,
    warnings: &[String],
) -> io::Result<()> {
    let verdict = super::scan::overall(skills);
    let icon = match verdict {
        Verdict::Dangerous => "🛑",
        Verdict::Caution => "⚠️",
        Verdict::Safe => "✅",
    };
    writeln!(out, "## SkillGuard: {icon} {}\n", verdict.as_str())?;
    writeln!(out, "{}\n", cell(title))?;
    if !warnings.is_empty() {
        writeln!(out, "**Warnings** (what was not looked into):\n")?;
        for w in warnings {
            writeln!(out, "- {}", cell(w))?;
        }
        writeln!(out)?;
    }
    let counted: Vec<_> = skills
        .iter()
        .flat_map(|s| {
            s.findings
                .iter()
                .filter(|f| f.suppressed.is_none())
                .map(move |f| (s, f))
        })
        .collect();
    let s = super::scan::summarize(skills);
    writeln!(
        out,
        "{} checked: {} dangerous, {} caution, {} safe; {} suppressed.\n",
        s.checked("skill"),
        s.dangerous,
        s.caution,
        s.safe,
        s.suppressed
    )?;
    if !counted.is_empty() {
        writeln!(out, "| skill | where | rule | severity | finding |")?;
        writeln!(out, "|---|---|---|---|---|")?;
        for (skill, f) in &counted {
            let place = match f.line {
                0 => join(&skill.repo_path, &f.file),
                n => format!("{}:{n}", join(&skill.repo_path, &f.file)),
            };
            writeln!(
                out,
                "| {} | `{}` | {} | {} | {} |",
                cell(&skill.name),
                code(&place),
                f.rule,
                f.severity.as_str(),
                cell(f.message.trim_end_matches(RELEASED_ALLOW))
            )?;
        }
        writeln!(out)?;
    }
    if !lint.is_empty() {
        writeln!(
            out,
            "**Lint errors this change brings** (they fail the job, as in the pre-commit hook):\n"
        )?;
        for d in lint {
            let path = d.path.to_string_lossy().replace('\\', "/");
            let place = match d.line {
                Some(n) => format!("{path}:{n}"),
                None => path,
            };
            writeln!(out, "- `{}` {} {}", code(&place), d.code, cell(&d.message))?;
        }
        writeln!(out)?;
    }
    let errors: Vec<_> = skills
        .iter()
        .flat_map(|s| s.errors.iter().map(move |e| (s, e)))
        .collect();
    if !errors.is_empty() {
        writeln!(out, "**Could not be checked** (the job fails on these):\n")?;
        for (skill, e) in errors {
            writeln!(out, "- `{}`: {}", code(&skill.repo_path), cell(e))?;
        }
        writeln!(out)?;
    }
    let released: Vec<_> = counted
        .iter()
        .filter(|(_, f)| f.message.ends_with(RELEASED_ALLOW))
        .collect();
    if !released.is_empty() {
        writeln!(
            out,
            "**Allow comments this change adds** (not honoured: allows count as of the base revision; they take effect once merged, so a maintainer should read them):\n"
        )?;
        for (skill, f) in released {
            writeln!(
                out,
                "- `{}:{}` {}",
                code(&join(&skill.repo_path, &f.file)),
                f.line,
                f.rule
            )?;
        }
        writeln!(out)?;
    }
    if !policy_added.is_empty() {
        writeln!(
            out,
            "**Policy entries this change adds to `.skillguard.yaml`** (not honoured: the policy counts as of the base revision; it takes effect once merged, so a maintainer should read it):\n"
        )?;
        for line in policy_added {
            writeln!(out, "- {}", cell(line))?;
        }
        writeln!(out)?;
    }
    if let Some(drift) = drift.filter(|d| !d.trim().is_empty()) {
        writeln!(
            out,
            "<details><summary>Capability drift of the changed skills</summary>\n\n```text\n{}\n```\n\n</details>\n",
            drift.trim_end().replace("```", "ʼʼʼ")
        )?;
    }
    Ok(())
}

/// A workflow command's message: `%`, CR and LF escaped.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: also `:` and `,`.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Text in a Markdown table cell: one line, no column breaks, no markup that runs on.
fn cell(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text inside backticks.
fn code(s: &str) -> String {
    s.replace('`', "'")
        .replace(['\r', '\n'], " ")
        .replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::{Category, Context, Finding};

    fn finding(rule: &'static str, severity: Severity, line: usize, message: &str) -> Finding {
        Finding {
            rule,
            category: Category::SupplyChain,
            severity,
            rule_severity: severity,
            file: "scripts/a,b:c.sh".into(),
            line,
            column: 3,
            message: message.into(),
            excerpt: String::new(),
            context: Context::Live,
            fingerprint: "f".into(),
            evidence: String::new(),
            suppressed: None,
        }
    }

    fn skill(findings: Vec<Finding>) -> SkillReport {
        SkillReport {
            name: "boot|x".into(),
            path: "skills/boot".into(),
            repo_path: ".claude/skills/boot".into(),
            verdict: crate::guard::verdict_of(&findings),
            findings,
            errors: vec!["scripts/big.bin: too large\nto read".into()],
            submodules: Vec::new(),
            context: None,
            reached: None,
        }
    }

    #[test]
    fn annotations_escape_what_they_quote() {
        let skills = [skill(vec![
            finding(
                "SUP001",
                Severity::Critical,
                4,
                "Download piped to a shell: 100% bad\n::error::x",
            ),
            finding("HID003", Severity::High, 0, "Invisible text"),
            finding("PER007", Severity::Medium, 2, "Asks to remember 漢字 🦀"),
        ])];
        let mut out = Vec::new();
        annotations(&mut out, &skills).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "::error file=.claude/skills/boot/scripts/a%2Cb%3Ac.sh,line=4,col=3,title=SUP001 critical (boot|x)::Download piped to a shell: 100%25 bad%0A::error::x\n\
             ::warning file=.claude/skills/boot/scripts/a%2Cb%3Ac.sh,title=HID003 high (boot|x)::Invisible text\n\
             ::notice file=.claude/skills/boot/scripts/a%2Cb%3Ac.sh,line=2,col=3,title=PER007 medium (boot|x)::Asks to remember 漢字 🦀\n\
             ::error file=.claude/skills/boot,title=could not be checked::scripts/big.bin: too large%0Ato read\n"
        );
        // Every line is one command: nothing a skill wrote starts a line of its own.
        assert!(text.lines().all(|l| l.starts_with("::")));
    }

    #[test]
    fn the_summary_lists_findings_errors_released_allows_and_drift() {
        let released = format!("Download piped to a shell{RELEASED_ALLOW}");
        let skills = [skill(vec![
            finding("SUP001", Severity::Critical, 4, &released),
            finding("HID003", Severity::High, 7, "a | b <script>"),
        ])];
        let mut out = Vec::new();
        summary(
            &mut out,
            "skills changed from 1a2b3c to HEAD",
            &skills,
            &[],
            &["allow SUP001 for skill boot: trusted <installer>".to_owned()],
            Some("boot: + host t.example.net\n```"),
            &["submodule 'vendor/kit' changed, but could not be looked into".to_owned()],
        )
        .unwrap();
        let md = String::from_utf8(out).unwrap();
        assert!(md.starts_with("## SkillGuard: 🛑 dangerous\n"), "{md}");
        assert!(
            md.contains("**Warnings**") && md.contains("- submodule 'vendor/kit' changed"),
            "{md}"
        );
        assert!(
            md.contains("| boot\\|x | `.claude/skills/boot/scripts/a,b:c.sh:4` | SUP001 | critical | Download piped to a shell |"),
            "{md}"
        );
        assert!(md.contains("| a \\| b &lt;script&gt; |"), "{md}");
        assert!(md.contains("**Allow comments this change adds**"), "{md}");
        assert!(
            md.contains("- `.claude/skills/boot/scripts/a,b:c.sh:4` SUP001"),
            "{md}"
        );
        assert!(md.contains("too large to read"), "{md}");
        assert!(md.contains("+ host t.example.net\nʼʼʼ\n```"), "{md}");
        assert!(
            md.contains("**Policy entries this change adds to `.skillguard.yaml`**")
                && md.contains("- allow SUP001 for skill boot: trusted &lt;installer&gt;\n"),
            "{md}"
        );
    }
}
