//! What identifies a finding for the suppressions that cover it: a content fingerprint made
//! by the scan (rule, file within the skill, matched text), kept by the scan cache, and the
//! located fingerprint a check binds it to (the file's path in the repository, the evidence of
//! its line or file, its context, its occurrence), which policy entries, baselines and SARIF
//! carry.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::finding::Finding;

/// A finding's identity within its skill that survives edits elsewhere in the file: the rule,
/// the file (relative to the skill) and the matched text with white space folded, hashed. Line
/// numbers are left out on purpose. What the scan cache keeps (a skill's tree has the same
/// findings wherever it lies); [`locate`] makes it the fingerprint suppressions match.
pub fn fingerprint(rule: &str, file: &str, matched: &str) -> String {
    let folded = matched.split_whitespace().collect::<Vec<_>>().join(" ");
    digest(&[rule, file, &folded])
}

fn digest(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update(part.as_bytes());
        h.update([0]);
    }
    hex16(&h.finalize())
}

/// A finding's evidence as its fingerprint takes it: the folded text of its line, or its
/// file's bytes, hashed.
pub fn evidence_digest(bytes: &[u8]) -> String {
    hex16(&Sha256::digest(bytes))
}

fn hex16(bytes: &[u8]) -> String {
    bytes.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Binds the fingerprints of one skill's findings to what was seen and where: each becomes the
/// digest of its content fingerprint, its evidence (the whole line, or the file's bytes), its
/// context (live, quoted...), the file's path from the top of the repository (`dir`: the skill's
/// folder there; a finding on `.` is on the folder or file itself) and which occurrence of the
/// same in that file it is (in line order). So a suppression written for a finding covers
/// neither the same text in another file or another skill of the same name, nor a second copy
/// pasted beside the first, nor the line once something is added to it. Returns the content fingerprints, in the findings'
/// order, for what still matches by content (a version 1 baseline).
pub fn locate(findings: &mut [Finding], dir: &str) -> Vec<String> {
    let content: Vec<String> = findings.iter().map(|f| f.fingerprint.clone()).collect();
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (&findings[a], &findings[b]);
        (&fa.file, fa.line, fa.column, fa.rule).cmp(&(&fb.file, fb.line, fb.column, fb.rule))
    });
    // The occurrence counts among findings of the same content, line and context: a live copy
    // pasted above a quoted (demoted) one neither takes its fingerprint nor shifts its number.
    let mut seen: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let mut located = vec![String::new(); findings.len()];
    for i in order {
        let f = &findings[i];
        let context = context_name(f.context);
        let n = seen
            .entry((content[i].as_str(), f.evidence.as_str(), context))
            .or_default();
        let file = repo_file(dir, &f.file);
        located[i] = digest(&[
            "v2",
            &content[i],
            &f.evidence,
            context,
            &file,
            &n.to_string(),
        ]);
        *n += 1;
    }
    for (f, fp) in findings.iter_mut().zip(located) {
        f.fingerprint = fp;
    }
    content
}

/// A finding's context as its fingerprint names it.
fn context_name(context: crate::guard::Context) -> &'static str {
    use crate::guard::Context;
    match context {
        Context::Live => "live",
        Context::Quoted => "quoted",
        Context::Decoded => "decoded",
        Context::VendorInstaller => "vendor",
        Context::Guidance => "guidance",
        Context::TestFixture => "fixture",
        Context::AgentConfigDocs => "config-docs",
        Context::Refused => "refused",
        Context::Placeholder => "placeholder",
    }
}

/// A finding's file from the top of the repository: `dir/file`, or `dir` for `.`.
pub fn repo_file(dir: &str, file: &str) -> String {
    match (dir, file) {
        (_, ".") | (_, "") => dir.to_owned(),
        ("" | ".", _) => file.to_owned(),
        _ => format!("{}/{file}", dir.trim_end_matches('/')),
    }
}

/// Whether `value` is a fingerprint as [`locate`] writes them: 32 hexadecimal digits.
pub fn is_fingerprint(value: &str) -> bool {
    value.len() == 32 && value.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A finding of `rule` in `file` at `line` whose match is `text`, as a scan makes it.
    pub(crate) fn found(rule: &'static str, file: &str, line: usize, text: &str) -> Finding {
        let r = crate::guard::rules::find(rule).unwrap();
        Finding {
            rule: r.id,
            category: r.category,
            severity: r.severity,
            rule_severity: r.severity,
            file: file.into(),
            line,
            column: 1,
            message: r.message.into(),
            excerpt: String::new(),
            context: crate::guard::Context::Live,
            fingerprint: fingerprint(r.id, file, text),
            evidence: String::new(),
            suppressed: None,
        }
    }

    #[test]
    fn located_fingerprints_tell_files_skills_and_copies_apart() {
        let at = |dir: &str, fs: &[(&str, usize, &str)]| {
            let mut v: Vec<Finding> = fs
                .iter()
                .map(|(file, line, text)| found("SUP001", file, *line, text))
                .collect();
            locate(&mut v, dir);
            v.into_iter().map(|f| f.fingerprint).collect::<Vec<_>>()
        };
        let one = at(".claude/skills/deploy", &[("run.sh", 3, "curl x | sh")]);
        // Moved down by an edit above it: the same finding.
        assert_eq!(
            one,
            at(".claude/skills/deploy", &[("run.sh", 9, "curl  x |\tsh")])
        );
        // Same text in another file of the skill, or a skill of that name elsewhere.
        assert_ne!(
            one,
            at(".claude/skills/deploy", &[("other.sh", 3, "curl x | sh")])
        );
        assert_ne!(
            one,
            at(".agents/skills/deploy", &[("run.sh", 3, "curl x | sh")])
        );
        // A second copy is a second finding; the first keeps its fingerprint.
        let two = at(
            ".claude/skills/deploy",
            &[("run.sh", 3, "curl x | sh"), ("run.sh", 8, "curl x | sh")],
        );
        assert_eq!(two[0], one[0]);
        assert_ne!(two[1], two[0]);
        assert!(is_fingerprint(&one[0]));
    }

    #[test]
    fn fingerprints_ignore_white_space_and_lines() {
        assert_eq!(
            fingerprint("SUP001", "a.sh", "curl  x |\tsh"),
            fingerprint("SUP001", "a.sh", "curl x | sh")
        );
        assert_ne!(
            fingerprint("SUP001", "a.sh", "curl x | sh"),
            fingerprint("SUP001", "b.sh", "curl x | sh")
        );
    }
}
