//! The one gate: whether a change of skills may land. Given each skill before and after the
//! change, the policy and who wrote the change, it decides, the same way for every caller: the
//! pre-commit hook, the range scan in CI, `proposals accept`, optimize's candidate and
//! `manage`.
//!
//! The writer sets what a change is trusted with:
//! - a person ([`Writer::Person`]: a commit, a range, a proposal a person accepts, `manage`
//!   without `--auto-skill`) may suppress a finding with a `git-skill:allow` comment;
//! - an agent ([`Writer::Agent`]: `manage --auto-skill`) may not, is judged strictly (no
//!   demotion for quoted examples it could stage) and is held to the limits of what git-skill
//!   writes;
//! - optimize's model ([`Writer::Optimize`]) may not suppress either, is held to the writer
//!   limits, and is judged on what its candidate adds (the skill it edits passed the hook as it
//!   was).
//!
//! Whoever the writer, lint errors block only when the change brings them (a skill published
//! with an error can still be edited), and a skill that was an auto-skill before is held to
//! the writer limits after (removing its mark must not turn errors into warnings).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{check_all, lint_snapshot, pin_to_base, suppressed, Settings, SkillCheck, Snapshot};
use crate::config::FailOn;
use crate::guard::suppress::{Baseline, Policy};
use crate::guard::{ScanOptions, Verdict};
use crate::report::{Diagnostic, Level};
use crate::skill::lint;

/// Who wrote a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Person,
    Agent,
    Optimize,
}

impl Writer {
    /// How the guard reads what this writer wrote.
    pub fn scan_options(self) -> ScanOptions {
        match self {
            Writer::Person => ScanOptions::default(),
            Writer::Agent => ScanOptions {
                inline_allow: false,
                strict: true,
                cache: None,
            },
            Writer::Optimize => ScanOptions {
                inline_allow: false,
                strict: false,
                cache: None,
            },
        }
    }

    /// Whether the writer limits of what git-skill writes apply.
    fn written(self) -> bool {
        self != Writer::Person
    }
}

/// Which suppressions of the change count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allows {
    /// Those of the skill after the change (what the writer's scan options allow).
    After,
    /// Only those that name the finding (pinned policy entries, version 2 baseline entries),
    /// and the others (allow comments, entries by rule, skill or path) for a finding the skill
    /// had suppressed before: a change cannot allow its own findings nor borrow an entry written
    /// for other content (a CI range whose author is not trusted).
    Before,
    /// The change's allow comments (a person commits them, and is told when they are new), and
    /// the rest as with `Before`: an entry that does not name its finding covers only what the
    /// skill had suppressed before (the pre-commit hook, as CI will judge it).
    Staged,
}

/// What a gate applies.
#[derive(Debug, Clone, Copy)]
pub struct Gate<'a> {
    pub writer: Writer,
    pub scan: ScanOptions,
    pub allows: Allows,
    pub policy: Option<&'a Policy>,
    /// A policy whose `lint:` entries count where they are stricter than `policy`'s (a range's
    /// target's, when the base's is the one judged by).
    pub stricter_lint: Option<&'a Policy>,
    /// With [`Allows::Staged`]: the entries the change itself adds to the policy (a person's
    /// own, warned about), which count whatever the skill had before.
    pub own_entries: Option<&'a Policy>,
    pub baseline: Option<&'a Baseline>,
    /// The verdict that blocks.
    pub fail_on: FailOn,
    /// For policy entries' expiry.
    pub today: chrono::NaiveDate,
    /// Whether lint errors the change brings block (`scan` does not lint).
    pub lint: bool,
}

impl<'a> Gate<'a> {
    /// The gate for `writer`'s changes: its scan options, allows as of the change, lint on.
    pub fn new(
        writer: Writer,
        policy: Option<&'a Policy>,
        fail_on: FailOn,
        today: chrono::NaiveDate,
    ) -> Gate<'a> {
        Gate {
            writer,
            scan: writer.scan_options(),
            allows: Allows::After,
            policy,
            stricter_lint: None,
            own_entries: None,
            baseline: None,
            fail_on,
            today,
            lint: true,
        }
    }

    fn settings(&self, written: bool) -> Settings<'a> {
        Settings {
            scan: self.scan,
            policy: self.policy,
            stricter_lint: self.stricter_lint,
            baseline: self.baseline,
            today: self.today,
            lint: self.lint,
            written,
        }
    }
}

/// One skill a change touches: as it was (none for a new skill) and as it would be, with its
/// directory as the user should see it.
#[derive(Debug, Clone)]
pub struct Change {
    pub before: Option<Snapshot>,
    pub after: Snapshot,
    pub display: PathBuf,
}

/// The gate's judgement of one skill.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The skill after the change, checked: findings (suppressions marked), verdict, lint.
    pub check: SkillCheck,
    /// The verdict that counts for the writer: the skill's, or for optimize that of the
    /// findings its candidate adds.
    pub counted: Verdict,
    /// For optimize, the findings its candidate adds (the others count for no writer).
    pub added: Option<Vec<crate::guard::Finding>>,
    /// Lint errors the change brings.
    pub introduced: Vec<Diagnostic>,
    /// Lint errors the skill had already, which do not block.
    pub kept: usize,
}

impl Judged {
    /// The findings that count for the writer: those optimize's candidate adds, or every one.
    pub fn counted_findings(&self) -> &[crate::guard::Finding] {
        self.added.as_deref().unwrap_or(&self.check.report.findings)
    }

    /// Whether the guard's verdict blocks at `fail_on`.
    pub fn verdict_blocks(&self, fail_on: FailOn) -> bool {
        fail_on.fails(self.counted)
    }

    /// Whether something could not be read: nothing passes by not being looked at.
    pub fn unchecked(&self) -> bool {
        !self.check.report.errors.is_empty()
    }

    /// Whether this skill stops the change.
    pub fn blocks(&self, fail_on: FailOn) -> bool {
        self.verdict_blocks(fail_on) || !self.introduced.is_empty() || self.unchecked()
    }
}

/// The gate's decision on a change.
#[derive(Debug, Clone)]
pub struct Decision {
    pub skills: Vec<Judged>,
    pub fail_on: FailOn,
}

impl Decision {
    /// Whether the change may land.
    pub fn lands(&self) -> bool {
        !self.skills.iter().any(|j| j.blocks(self.fail_on))
    }

    /// Whether what the change holds stops it: a lint error it brings or a verdict at the
    /// fail level (as opposed to something that could not be read, which stops it too, as
    /// an error).
    pub fn blocked(&self) -> bool {
        self.skills
            .iter()
            .any(|j| !j.introduced.is_empty() || j.verdict_blocks(self.fail_on))
    }
}

/// Judges every skill of a change, on up to `jobs` threads.
pub fn decide(changes: &[Change], gate: &Gate<'_>, jobs: usize) -> Decision {
    let judged = crate::parallel::map_ordered(changes, jobs, |change| judge(change, gate));
    Decision {
        skills: judged,
        fail_on: gate.fail_on,
    }
}

fn judge(change: &Change, gate: &Gate<'_>) -> Judged {
    let display: &Path = &change.display;
    let was_auto = change
        .before
        .as_ref()
        .is_some_and(|b| lint::is_auto_skill(&b.files));
    let written = gate.writer.written() || was_auto;
    let settings = gate.settings(written);
    let mut check = super::check_skill(&change.after, display, &settings);
    // Suppressions that do not name their finding hold only for what the skill had suppressed
    // before; the skill as it was is scanned only when there are such suppressions, or when its
    // findings matter otherwise (what optimize's candidate adds): the hook's latency stays one
    // scan per skill in the common case.
    let pin = match gate.allows {
        Allows::After => false,
        Allows::Before => check.loosely_suppressed(true),
        Allows::Staged => check.loosely_suppressed(false),
    };
    let before = match (pin || gate.writer == Writer::Optimize, &change.before) {
        (true, Some(b)) => {
            let settings = Settings {
                lint: false,
                ..settings
            };
            Some(super::check_skill(b, display, &settings))
        }
        _ => None,
    };
    if pin {
        let at_base = before.as_ref().map(suppressed).unwrap_or_default();
        let staged = gate.allows == Allows::Staged;
        pin_to_base(
            &mut check,
            &at_base,
            &settings,
            staged,
            gate.own_entries.filter(|_| staged),
        );
    }
    let (counted, added) = match gate.writer {
        Writer::Optimize => {
            let known: HashSet<&str> = before
                .iter()
                .flat_map(|b| b.report.findings.iter())
                .map(|f| f.fingerprint.as_str())
                .collect();
            let added: Vec<_> = check
                .report
                .findings
                .iter()
                .filter(|f| !known.contains(f.fingerprint.as_str()))
                .cloned()
                .collect();
            (crate::guard::verdict_of(&added), Some(added))
        }
        _ => (check.report.verdict, None),
    };
    let (introduced, kept) = if gate.lint {
        let old = change
            .before
            .as_ref()
            .map(|b| lint_snapshot(b, display, written, gate.policy, gate.stricter_lint))
            .unwrap_or_default();
        let introduced: Vec<Diagnostic> = lint::introduced(&old, &check.diagnostics)
            .into_iter()
            .cloned()
            .collect();
        let errors = check
            .diagnostics
            .iter()
            .filter(|d| d.level == Level::Error)
            .count();
        let kept = errors - introduced.len();
        (introduced, kept)
    } else {
        (Vec::new(), 0)
    };
    Judged {
        check,
        counted,
        added,
        introduced,
        kept,
    }
}

/// Checks `skills` (work tree or any snapshots, no before) at `gate`'s settings: what `scan`
/// of paths does.
pub fn check_only(skills: &[(Snapshot, PathBuf)], gate: &Gate<'_>, jobs: usize) -> Vec<SkillCheck> {
    check_all(skills, &gate.settings(gate.writer.written()), jobs)
}
