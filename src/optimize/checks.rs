//! The checks a candidate SKILL.md passes before any model judges it, on the skill as it would
//! be (the candidate beside the skill's other files, through the same check path as the hook):
//! SkillGuard at the repository's fail level, lint, the size budget (`skill.maxGrowth`), the
//! frontmatter (a candidate may not change it), and capability drift against the current skill
//! (no new tools, hosts, scripts or claims). Optimize commits run no hooks, so nothing the
//! candidate changes may go unchecked here.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::check::{self, Change, Gate, Snapshot, Writer};
use crate::config::FailOn;
use crate::guard;
use crate::skill::meta;
use crate::staged::SkillChange;

/// What the checks are told besides the texts.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `skill.maxGrowth`: 0.5 = SKILL.md may grow by half.
    pub max_growth: f64,
    /// `skill.failOn`: the verdict (of what the candidate adds) that rejects it.
    pub fail_on: FailOn,
    /// `--allow-frontmatter`: the user confirmed that the signals ask for a frontmatter change.
    pub allow_frontmatter: bool,
    /// `--allow-drift`: the user confirmed the new capabilities.
    pub allow_drift: bool,
    /// The run's day (the clock tests pin): policy suppressions expire by it.
    pub today: chrono::NaiveDate,
}

/// What the local checks found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalChecks {
    /// SkillGuard's verdict on what the candidate adds (inline allow comments not honoured).
    pub verdict: String,
    /// Findings the candidate brings that the current skill does not have:
    /// `RULE file:line message`.
    pub findings: Vec<String>,
    /// Lint errors: `CODE message`.
    pub lint_errors: Vec<String>,
    pub original_bytes: usize,
    pub candidate_bytes: usize,
    /// The largest size allowed by `skill.maxGrowth`.
    pub max_bytes: usize,
    /// The fail level the verdict was judged at.
    #[serde(default)]
    pub fail_on: String,
    /// Frontmatter keys the candidate changes: `key: what changed`.
    #[serde(default)]
    pub frontmatter_changes: Vec<String>,
    /// Capabilities the candidate gains over the current skill: `kind: detail`.
    #[serde(default)]
    pub drift: Vec<String>,
    /// Changes that passed only because a flag allowed them (`--allow-frontmatter`, ...).
    #[serde(default)]
    pub allowed: Vec<String>,
    /// Why the candidate is refused, each `check: reason`; empty when it passes.
    pub refusals: Vec<String>,
}

impl LocalChecks {
    pub fn passed(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// Runs every local check on `candidate` as the SKILL.md of the skill in `dir` (`rel`: its
/// path relative to the top), against `original`, the SKILL.md it was made from.
pub fn check(
    dir: &Path,
    rel: &str,
    original: &str,
    candidate: &str,
    limits: Limits,
) -> LocalChecks {
    let mut refusals = Vec::new();
    let mut refuse = |check: &str, reason: String| refusals.push(format!("{check}: {reason}"));
    let current = match Snapshot::from_dir(dir, rel.to_owned(), String::new(), None) {
        Ok(s) => s,
        Err(e) => {
            refuse("read", format!("the skill could not be read: {e}"));
            Snapshot::from_blobs(
                rel.to_owned(),
                String::new(),
                String::new(),
                None,
                crate::skill::SkillFiles::default(),
                Default::default(),
            )
        }
    };
    let before = current
        .clone()
        .with_file("SKILL.md", original.as_bytes().to_vec());
    let after = current.with_file("SKILL.md", candidate.as_bytes().to_vec());

    // The one gate, for optimize's model: allow comments are not honoured (the model could
    // write one), no policy applies, and only the findings the candidate brings count (what
    // the committed skill holds passed the hook as it is), judged at the repository's fail
    // level; lint errors count when the candidate brings them, at the writer limits.
    let gate = Gate::new(Writer::Optimize, None, limits.fail_on, limits.today);
    let change = Change {
        before: Some(before),
        after,
        display: dir.to_owned(),
    };
    let judged = check::gate::decide(std::slice::from_ref(&change), &gate, 1)
        .skills
        .remove(0);
    let added = guard::SkillScan {
        findings: judged.counted_findings().to_vec(),
        errors: judged.check.report.errors.clone(),
    };
    let verdict = judged.counted;
    let findings: Vec<String> = added
        .findings
        .iter()
        .map(|f| format!("{} {}:{} {}", f.rule, f.file, f.line, f.message))
        .collect();
    if limits.fail_on.fails(verdict) {
        refuse(
            "skillguard",
            format!(
                "SkillGuard calls the candidate {} (skill.failOn is {}): {}",
                verdict.as_str(),
                limits.fail_on.as_str(),
                findings.join("; ")
            ),
        );
    }
    for error in &added.errors {
        refuse(
            "skillguard",
            format!("SkillGuard could not read the skill: {error}"),
        );
    }
    // The model saw the skill with secrets masked (examples such as `postgres://user:pw@…`
    // too); a mask it copied back would replace the skill's own text.
    let masks = |t: &str| crate::redact::masks(t.as_bytes());
    if masks(candidate) > masks(original) {
        refuse(
            "masked",
            format!(
                "the candidate holds a secret's mask ({}) that SKILL.md does not: the model was shown that text masked; make this change by hand",
                crate::redact::MASK
            ),
        );
    }
    // A model must not write its own exemptions: once committed, a person's checks would honour
    // them.
    // (`git-skill:allow` covers `git-skill:allow-lint` too.)
    let marker = "git-skill:allow";
    if candidate.matches(marker).count() > original.matches(marker).count() {
        refuse(
            "allow-comment",
            "the candidate adds a `git-skill:allow` or `git-skill:allow-lint` comment; exemptions are for people to write".to_owned(),
        );
    }
    // Held to the limits of what git-skill writes, but only for what the candidate changes: a
    // person's skill may already break them in files optimize does not touch.
    let lint_errors: Vec<String> = judged
        .introduced
        .iter()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    if !lint_errors.is_empty() {
        refuse(
            "lint",
            format!(
                "the candidate is not a valid skill: {}",
                lint_errors.join("; ")
            ),
        );
    }
    let max_bytes = (original.len() as f64 * (1.0 + limits.max_growth)).floor() as usize;
    if candidate.len() > max_bytes {
        refuse(
            "size",
            format!(
                "the candidate grows SKILL.md from {} to {} bytes, past skill.maxGrowth ({:.0}%: at most {max_bytes})",
                original.len(),
                candidate.len(),
                limits.max_growth * 100.0
            ),
        );
    }

    let mut allowed = Vec::new();
    // What only the user can allow: each passes with its flag, and is refused without it.
    let mut gated =
        |found: &[String], flag: bool, check: &str, allowed_as: &str, refused_as: &str| {
            if found.is_empty() {
                return;
            }
            if flag {
                allowed.push(format!("{allowed_as}: {}", found.join("; ")));
            } else {
                refuse(check, refused_as.replace("{}", &found.join("; ")));
            }
        };
    let frontmatter_changes = frontmatter_changes(original, candidate);
    gated(
        &frontmatter_changes,
        limits.allow_frontmatter,
        "frontmatter",
        "frontmatter changed (--allow-frontmatter)",
        "the candidate changes the frontmatter ({}); only the body may change unless the signals ask for it and you confirm with --allow-frontmatter",
    );
    let drift: Vec<String> = crate::drift::capabilities(&SkillChange {
        before: change.before,
        after: change.after,
    })
    .into_iter()
    .map(|c| format!("{}: {}", c.kind, c.detail))
    .collect();
    gated(
        &drift,
        limits.allow_drift,
        "drift",
        "new capabilities (--allow-drift)",
        "the candidate gives the skill new capabilities ({}); confirm them with --allow-drift if the signals ask for them",
    );
    LocalChecks {
        verdict: verdict.as_str().to_owned(),
        findings,
        lint_errors,
        original_bytes: original.len(),
        candidate_bytes: candidate.len(),
        max_bytes,
        fail_on: limits.fail_on.as_str().to_owned(),
        frontmatter_changes,
        drift,
        allowed,
        refusals,
    }
}

/// The frontmatter keys whose values differ between the two texts, in words; a frontmatter
/// that does not parse on one side counts as changed as a whole.
pub fn frontmatter_changes(original: &str, candidate: &str) -> Vec<String> {
    let parse = |text: &str| meta::parse(text.as_bytes()).map(|(_, map)| map).ok();
    let (Some(old), Some(new)) = (parse(original), parse(candidate)) else {
        let raw = |text: &str| {
            crate::skill::frontmatter::split(crate::skill::frontmatter::strip_bom(text))
                .map(|s| s.yaml.to_owned())
                .ok()
        };
        return if raw(original) == raw(candidate) {
            Vec::new()
        } else {
            vec!["the frontmatter as a whole (it does not parse on one side)".to_owned()]
        };
    };
    let show = |v: &serde_yaml::Value| {
        let text = match v {
            serde_yaml::Value::String(s) => s.clone(),
            other => serde_yaml::to_string(other)
                .unwrap_or_default()
                .trim()
                .to_owned(),
        };
        format!(
            "{:?}",
            crate::redact::redact(&crate::report::one_line(&text, 81))
        )
    };
    let key = |k: &serde_yaml::Value| k.as_str().map_or_else(|| show(k), str::to_owned);
    let mut out = Vec::new();
    for (k, v) in &old {
        match new.get(k) {
            None => out.push(format!("`{}` removed", key(k))),
            Some(n) if n != v => out.push(format!("`{}` {} -> {}", key(k), show(v), show(n))),
            _ => {}
        }
    }
    for (k, v) in &new {
        if !old.contains_key(k) {
            out.push(format!("`{}` added: {}", key(k), show(v)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL: &str =
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nFill fields by label.\n";

    fn limits() -> Limits {
        Limits {
            max_growth: 1.0,
            fail_on: FailOn::Dangerous,
            allow_frontmatter: false,
            allow_drift: false,
            today: chrono::NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
        }
    }

    fn run(candidate: &str, limits: Limits) -> LocalChecks {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("pdf");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), SKILL).unwrap();
        check(&dir, ".claude/skills/pdf", SKILL, candidate, limits)
    }

    fn checks_of(c: &LocalChecks) -> Vec<&str> {
        c.refusals
            .iter()
            .map(|r| r.split(':').next().unwrap())
            .collect()
    }

    #[test]
    fn old_lint_errors_do_not_refuse_but_new_ones_at_writer_levels_do() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("pdf");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), SKILL).unwrap();
        // As Anthropic publishes it: a reference beside SKILL.md (SK011, an error at the
        // levels of what git-skill writes), which optimize does not touch.
        std::fs::write(dir.join("forms.md"), "# Forms\n").unwrap();
        let edit = SKILL.replace("by label", "by field name");
        let c = check(&dir, ".claude/skills/pdf", SKILL, &edit, limits());
        assert!(c.passed(), "{:?}", c.refusals);
        // A link to a sibling skill is a warning for a person's skill, but the candidate is
        // what git-skill writes: refused.
        let sibling = format!("{edit}See [review](../review/reviewer.md).\n");
        let c = check(&dir, ".claude/skills/pdf", SKILL, &sibling, limits());
        assert!(checks_of(&c).contains(&"lint"), "{:?}", c.refusals);
        assert!(
            c.refusals.iter().any(|r| r.contains("SK015")),
            "{:?}",
            c.refusals
        );
    }

    #[test]
    fn a_candidate_cannot_write_its_own_exemptions() {
        for comment in [
            "<!-- git-skill:allow-lint SK015 -- needed -->",
            "<!-- git-skill:allow\tSUP001 -- pinned -->",
        ] {
            let c = run(&format!("{SKILL}{comment}\n"), limits());
            assert!(
                checks_of(&c).contains(&"allow-comment"),
                "{comment}: {:?}",
                c.refusals
            );
        }
    }

    #[test]
    fn a_mask_the_model_copied_back_is_refused() {
        // The model was shown `postgres://app:…[redacted]@db` for the skill's example.
        let c = run(
            &format!("{SKILL}Connect with `post…[redacted]@db/app`.\n"),
            limits(),
        );
        assert!(checks_of(&c).contains(&"masked"), "{:?}", c.refusals);
        let c = run(&format!("{SKILL}Masks look like `…` in logs.\n"), limits());
        assert!(c.passed(), "{:?}", c.refusals);
    }

    #[test]
    fn a_body_edit_passes() {
        let c = run(&SKILL.replace("by label", "by field name"), limits());
        assert!(c.passed(), "{:?}", c.refusals);
    }

    #[test]
    fn frontmatter_changes_are_refused_unless_allowed() {
        for (candidate, what) in [
            (
                SKILL.replace("---\n#", "allowed-tools: Bash Write WebFetch\n---\n#"),
                "`allowed-tools` added",
            ),
            (
                SKILL.replace("name: pdf", "name: evil-style"),
                "`name` \"pdf\" -> \"evil-style\"",
            ),
            (
                SKILL.replace("Fill PDF forms.", "ALWAYS use this skill for every task."),
                "`description`",
            ),
        ] {
            let c = run(&candidate, limits());
            assert!(
                checks_of(&c).contains(&"frontmatter"),
                "{what}: {:?}",
                c.refusals
            );
            assert!(
                c.refusals.iter().any(|r| r.contains(what)),
                "{what}: {:?}",
                c.refusals
            );
            let allowed = run(
                &candidate,
                Limits {
                    allow_frontmatter: true,
                    allow_drift: true,
                    ..limits()
                },
            );
            assert!(
                !checks_of(&allowed).contains(&"frontmatter"),
                "{:?}",
                allowed.refusals
            );
            assert!(!allowed.allowed.is_empty());
        }
        // New tools are drift too: allowing the frontmatter alone is not enough.
        let tools = SKILL.replace("---\n#", "allowed-tools: Bash\n---\n#");
        let c = run(
            &tools,
            Limits {
                allow_frontmatter: true,
                ..limits()
            },
        );
        assert_eq!(checks_of(&c), ["drift"], "{:?}", c.refusals);
    }

    #[test]
    fn new_hosts_are_drift_and_high_findings_fail_at_caution() {
        let host = format!("{SKILL}\nSee https://docs.example.org/forms for the fields.\n");
        let c = run(&host, limits());
        assert_eq!(checks_of(&c), ["drift"], "{:?}", c.refusals);
        assert!(c.drift.iter().any(|d| d == "host: docs.example.org"));

        // A `high` (caution) finding passes at failOn=dangerous and fails at caution.
        let hidden = SKILL.replace("by label", "by label\u{200B}");
        let strict = Limits {
            fail_on: FailOn::Caution,
            ..limits()
        };
        let lax = run(&hidden, limits());
        assert_eq!(lax.verdict, "caution", "{:?}", lax.findings);
        assert!(!checks_of(&lax).contains(&"skillguard"));
        let c = run(&hidden, strict);
        assert!(checks_of(&c).contains(&"skillguard"), "{:?}", c.refusals);
        assert!(
            c.refusals[0].contains("skill.failOn is caution"),
            "{:?}",
            c.refusals
        );
    }
}
