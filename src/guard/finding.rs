//! What a scan finds, and the verdict it gives: the data every reader of findings shares
//! (reports, suppressions, the memo, checks), apart from how a scan makes them.

use super::rule::{Category, Severity};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Safe,
    Caution,
    Dangerous,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Caution => "caution",
            Verdict::Dangerous => "dangerous",
        }
    }
}

/// Where a match was found, which decides how much it weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Context {
    /// An instruction or code an agent acts on.
    Live,
    /// A quoted example after a warning ("never run `...`"): two severity levels lower.
    Quoted,
    /// Inside a base64 or hex blob, after decoding.
    Decoded,
    /// A vendor's documented installer (`guard::described`): two levels lower.
    VendorInstaller,
    /// A Markdown reference's section about attacks or vulnerable code: two levels lower.
    Guidance,
    /// A secret-shaped string in a test or fixture file: two levels lower.
    TestFixture,
    /// A write to an agent's instruction or settings file in a Markdown reference section
    /// about that file: two levels lower.
    AgentConfigDocs,
    /// A Markdown sentence that refuses what a prompt-injection rule looks for ("never ignore
    /// the system prompt", `guard::refused`): two levels lower.
    Refused,
    /// A supply-chain match in Markdown whose URLs are all on a domain reserved for
    /// documentation (`example.com`): nothing can be served from there. Two levels lower.
    Placeholder,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub category: Category,
    /// The severity that counts, after the context is weighed.
    pub severity: Severity,
    /// The rule's own severity.
    pub rule_severity: Severity,
    /// Relative to the skill directory, `/`-separated.
    pub file: String,
    /// 1-based; 0 for findings about the whole skill.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
    /// The matched text, shortened and with secrets redacted.
    pub excerpt: String,
    pub context: Context,
    /// Rule, file and matched text hashed: stable across edits elsewhere. Within a scan, the
    /// file is the skill's (what the cache keeps); a check binds it to the file's path in the
    /// repository and the occurrence (`suppress::locate`), which is what suppressions, baselines
    /// and SARIF carry.
    pub fingerprint: String,
    /// What the finding was seen in beside its match, hashed: the whole line(s) the match lies
    /// on, or for a finding about a file as a whole, the file's bytes. Empty when there is
    /// nothing more than the match. Part of the located fingerprint, so that a suppression
    /// stops covering a line or a file edited after it was reviewed.
    #[serde(skip)]
    pub evidence: String,
    pub suppressed: Option<Suppression>,
}

#[derive(Debug, Clone, Default)]
pub struct SkillScan {
    pub findings: Vec<Finding>,
    /// Files that could not be read: the scan is incomplete and must not pass.
    pub errors: Vec<String>,
}

impl SkillScan {
    pub fn verdict(&self) -> Verdict {
        verdict_of(&self.findings)
    }
}

/// The verdict the worst unsuppressed finding gives.
pub fn verdict_of(findings: &[Finding]) -> Verdict {
    let worst = findings
        .iter()
        .filter(|f| f.suppressed.is_none())
        .map(|f| f.severity)
        .max();
    match worst {
        Some(Severity::Critical) => Verdict::Dangerous,
        Some(Severity::High) => Verdict::Caution,
        _ => Verdict::Safe,
    }
}

/// Why a finding does not count.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Suppression {
    /// `inline`, `policy` or `baseline`.
    pub kind: &'static str,
    pub reason: String,
    /// Whether what suppresses it names this very finding (a policy entry's `fingerprints`, a
    /// version 2 baseline entry): such a suppression holds wherever it is read. The others (an
    /// allow comment, an entry by rule, skill or path alone) hold in a range only for what the
    /// base suppressed too.
    #[serde(skip)]
    pub pinned: bool,
}

impl Suppression {
    pub fn new(kind: &'static str, reason: &str) -> Suppression {
        Suppression {
            kind,
            reason: reason.to_owned(),
            pinned: false,
        }
    }

    pub fn pinned(kind: &'static str, reason: &str) -> Suppression {
        Suppression {
            pinned: true,
            ..Suppression::new(kind, reason)
        }
    }
}
