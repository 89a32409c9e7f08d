//! Renderings of scan results: text for people, JSON for tools, SARIF for code scanning,
//! JUnit for CI dashboards.

use std::io::{self, Write};

use super::escape;
use super::style::Style;
use crate::guard::{Finding, Severity, Verdict};

/// One scanned skill, with paths already chosen for display.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SkillReport {
    pub name: String,
    /// The skill directory as the user should see it (relative to the current directory).
    pub path: String,
    /// The skill directory relative to the repository top, `/`-separated (for SARIF URIs);
    /// the display path outside a repository.
    #[serde(skip)]
    pub repo_path: String,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    /// Files that could not be read; the scan of this skill is incomplete.
    pub errors: Vec<String>,
    /// Submodules its files come from (read from their own object stores).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub submodules: Vec<crate::git::SubmoduleAt>,
    /// Not a skill but one file of the agent context (`path` is the file), and what it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<&'static str>,
    /// A file the closure of what agents load reached, and how (`.claude/settings.json
    /// (command: bash .claude/hooks/format.sh)`); in a range, `made live by ...` when the
    /// change is what brings it in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<String>,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ScanSummary {
    /// Everything checked: skills and agent context files.
    pub skills: usize,
    /// Of which agent context files.
    #[serde(skip_serializing_if = "is_zero")]
    pub context: usize,
    pub safe: usize,
    pub caution: usize,
    pub dangerous: usize,
    pub findings: usize,
    pub suppressed: usize,
}

impl ScanSummary {
    /// What was checked, in words: `3 skills`, or `1 skill and 2 agent context files`
    /// (`skill` is the noun for skills: `skill`, `staged skill`).
    pub fn checked(&self, skill: &str) -> String {
        match self.context {
            0 => super::plural(self.skills, skill),
            n => format!(
                "{} and {}",
                super::plural(self.skills - n, skill),
                super::plural(n, "agent context file")
            ),
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub fn summarize<'a>(skills: impl IntoIterator<Item = &'a SkillReport>) -> ScanSummary {
    let mut s = ScanSummary::default();
    for skill in skills {
        s.skills += 1;
        s.context += usize::from(skill.context.is_some());
        match skill.verdict {
            Verdict::Safe => s.safe += 1,
            Verdict::Caution => s.caution += 1,
            Verdict::Dangerous => s.dangerous += 1,
        }
        s.findings += skill
            .findings
            .iter()
            .filter(|f| f.suppressed.is_none())
            .count();
        s.suppressed += skill
            .findings
            .iter()
            .filter(|f| f.suppressed.is_some())
            .count();
    }
    s
}

/// The worst verdict of all skills (`safe` when there are none).
pub fn overall(skills: &[SkillReport]) -> Verdict {
    skills
        .iter()
        .map(|s| s.verdict)
        .max()
        .unwrap_or(Verdict::Safe)
}

pub(crate) fn join(dir: &str, file: &str) -> String {
    if file == "." || file.is_empty() {
        dir.to_owned()
    } else if dir == "." || dir.is_empty() {
        file.to_owned()
    } else {
        format!("{dir}/{file}")
    }
}

fn paint_severity(style: Style, s: Severity) -> String {
    match s {
        Severity::Critical => style.red(s.as_str()),
        Severity::High => style.yellow(s.as_str()),
        _ => style.dim(s.as_str()),
    }
}

/// Per skill its verdict, then each finding as `file:line:col: severity RULE message`, the
/// excerpt, and how to suppress it.
pub fn render_text(out: &mut dyn Write, skills: &[SkillReport], style: Style) -> io::Result<()> {
    for skill in skills {
        let verdict = match skill.verdict {
            Verdict::Dangerous => style.red("dangerous"),
            Verdict::Caution => style.yellow("caution"),
            Verdict::Safe => style.cyan("safe"),
        };
        writeln!(out, "{}: {verdict}", style.bold(&escape(&skill.path)))?;
        if let Some(reached) = &skill.reached {
            writeln!(out, "  {} {}", style.dim("reached from"), escape(reached))?;
        }
        for f in &skill.findings {
            let mut place = join(&skill.path, &f.file);
            if f.line > 0 {
                place.push_str(&format!(":{}:{}", f.line, f.column));
            }
            let suppressed = match &f.suppressed {
                Some(s) => format!(
                    " {}",
                    style.dim(&format!("[suppressed ({}): {}]", s.kind, escape(&s.reason)))
                ),
                None => String::new(),
            };
            writeln!(
                out,
                "  {}: {} {} {}{suppressed}",
                escape(&place),
                paint_severity(style, f.severity),
                style.bold(f.rule),
                escape(&f.message)
            )?;
            if !f.excerpt.is_empty() {
                writeln!(out, "    {} {}", style.dim("|"), escape(&f.excerpt))?;
            }
            if f.suppressed.is_none() {
                writeln!(
                    out,
                    "    {} {}",
                    style.dim("= suppress:"),
                    style.dim(&escape(&suppress_hint(f, skill)))
                )?;
            }
        }
        for e in &skill.errors {
            writeln!(out, "  {} {}", style.red("error:"), escape(e))?;
        }
    }
    Ok(())
}

/// How to suppress a finding, in the comment syntax of its file.
fn suppress_hint(f: &Finding, skill: &SkillReport) -> String {
    // A finding of an agent context file (its report is the file's): JSON has no comments, and
    // a settings file's commands are read without the comments around them.
    let file = if f.file == "." { &skill.path } else { &f.file };
    let settings = f.file == "."
        && (matches!(skill.context, Some("settings" | "environment"))
            || [".json", ".jsonc", ".toml", ".yaml", ".yml"]
                .iter()
                .any(|e| skill.path.to_ascii_lowercase().ends_with(e)));
    if settings {
        return format!(
            "an entry in .skillguard.yaml (rule: {}, skill: '{}', reason: ...)",
            f.rule, skill.name
        );
    }
    if f.line == 0 {
        return format!(
            "an entry in .skillguard.yaml (rule: {}, path: '{}', reason: ...)",
            f.rule, f.file
        );
    }
    let ext = file
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let comment = match ext.as_str() {
        "md" | "markdown" | "mdx" | "mdc" | "html" | "htm" | "xml" | "svg" => {
            format!("<!-- git-skill:allow {} -- <reason> -->", f.rule)
        }
        "js" | "mjs" | "cjs" | "ts" | "tsx" | "jsx" | "go" | "rs" | "c" | "h" | "cc" | "cpp"
        | "java" | "kt" | "swift" | "cs" | "php" | "scala" | "dart" => {
            format!("// git-skill:allow {} -- <reason>", f.rule)
        }
        _ => format!("# git-skill:allow {} -- <reason>", f.rule),
    };
    format!("{comment} on the line or the line above, or an entry in .skillguard.yaml")
}

pub fn render_json(out: &mut dyn Write, skills: &[SkillReport]) -> io::Result<()> {
    let report = serde_json::json!({
        "version": 1,
        "verdict": overall(skills),
        "skills": skills,
        "summary": summarize(skills),
    });
    serde_json::to_writer(&mut *out, &report)?;
    writeln!(out)
}

/// JUnit XML: one test case per skill, failing when the skill is not safe.
pub fn render_junit(out: &mut dyn Write, skills: &[SkillReport]) -> io::Result<()> {
    let cases: Vec<super::junit::Case> = skills
        .iter()
        .map(|skill| super::junit::Case {
            name: skill.path.clone(),
            failure: (skill.verdict != Verdict::Safe).then(|| super::junit::Failure {
                message: format!("verdict: {}", skill.verdict.as_str()),
                kind: skill.verdict.as_str().to_owned(),
                body: skill
                    .findings
                    .iter()
                    .filter(|f| f.suppressed.is_none())
                    .map(|f| {
                        format!(
                            "{}:{}:{} {} {} {}\n",
                            join(&skill.path, &f.file),
                            f.line,
                            f.column,
                            f.severity,
                            f.rule,
                            f.message
                        )
                    })
                    .collect(),
            }),
        })
        .collect();
    super::junit::render(out, "git-skill scan", "skillguard", &cases)
}
