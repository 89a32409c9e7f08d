//! What a SkillGuard rule is. The registry itself is in `rules/`, one file per category.

use std::fmt;

/// How bad a finding is. The verdict follows the worst unsuppressed one: critical makes a
/// skill `dangerous`, high makes it `caution`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The twelve threat categories of `skill-evolution-guard.md`, plus hidden text, the skill's
/// structure and what agents' configuration does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Exfiltration,
    PromptInjection,
    Destructive,
    Persistence,
    Network,
    Obfuscation,
    Execution,
    PathTraversal,
    CryptoMining,
    SupplyChain,
    PrivilegeEscalation,
    CredentialExposure,
    HiddenText,
    Structural,
    /// Agents' settings that are dangerous by what they do (turn hooks off, load code through
    /// the environment, send the API key elsewhere, widen permissions), and what the agent
    /// loads that could not all be followed.
    AgentConfig,
}

impl Category {
    pub const ALL: [Category; 15] = [
        Category::Exfiltration,
        Category::PromptInjection,
        Category::Destructive,
        Category::Persistence,
        Category::Network,
        Category::Obfuscation,
        Category::Execution,
        Category::PathTraversal,
        Category::CryptoMining,
        Category::SupplyChain,
        Category::PrivilegeEscalation,
        Category::CredentialExposure,
        Category::HiddenText,
        Category::Structural,
        Category::AgentConfig,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Exfiltration => "exfiltration",
            Category::PromptInjection => "prompt_injection",
            Category::Destructive => "destructive",
            Category::Persistence => "persistence",
            Category::Network => "network",
            Category::Obfuscation => "obfuscation",
            Category::Execution => "execution",
            Category::PathTraversal => "path_traversal",
            Category::CryptoMining => "crypto_mining",
            Category::SupplyChain => "supply_chain",
            Category::PrivilegeEscalation => "privilege_escalation",
            Category::CredentialExposure => "credential_exposure",
            Category::HiddenText => "hidden_text",
            Category::Structural => "structural",
            Category::AgentConfig => "agent_config",
        }
    }

    /// The three-letter prefix of the category's rule ids.
    pub fn prefix(self) -> &'static str {
        match self {
            Category::Exfiltration => "EXF",
            Category::PromptInjection => "INJ",
            Category::Destructive => "DES",
            Category::Persistence => "PER",
            Category::Network => "NET",
            Category::Obfuscation => "OBF",
            Category::Execution => "EXE",
            Category::PathTraversal => "PTH",
            Category::CryptoMining => "MIN",
            Category::SupplyChain => "SUP",
            Category::PrivilegeEscalation => "PRV",
            Category::CredentialExposure => "CRD",
            Category::HiddenText => "HID",
            Category::Structural => "STR",
            Category::AgentConfig => "CFG",
        }
    }

    /// The category's severity in `skill-evolution-guard.md`: the default a rule starts from.
    pub fn default_severity(self) -> Severity {
        match self {
            Category::Exfiltration
            | Category::PromptInjection
            | Category::Destructive
            | Category::CryptoMining
            | Category::SupplyChain
            | Category::CredentialExposure => Severity::Critical,
            _ => Severity::High,
        }
    }
}

/// How a rule finds its matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matcher {
    /// A pattern in the `regex` crate's syntax (finite automata: no look-around, no
    /// backreferences), matched against every file's raw text, its normalised view and the
    /// blobs decoded from it.
    Text(&'static str),
    /// A pattern matched against the raw text only, because the normalised view removes what
    /// it looks for (invisible and look-alike characters).
    Raw(&'static str),
    /// Decided by the engine from the file itself: kind, size, magic bytes, mode, link target.
    Structural,
    /// Found by an analysis of the file's structure (`guard::analysis`): syntax trees of
    /// scripts and fenced code, sentences of prose. The analysis names the rule in each hit.
    Analysis,
}

/// One rule of the registry. Ids are stable: never reused for another meaning.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// `EXF001`: the category prefix and a number.
    pub id: &'static str,
    pub category: Category,
    pub severity: Severity,
    /// One line, no trailing period.
    pub message: &'static str,
    /// What it detects, why it is dangerous, what to do instead.
    pub explanation: &'static str,
    pub matcher: Matcher,
    /// Texts the rule must fire on, scanned through the whole engine as the file
    /// [`Rule::fixture`].
    pub fires: &'static [&'static str],
    /// Texts it must not fire on: the near misses.
    pub passes: &'static [&'static str],
    /// The path `fires` and `passes` are scanned as: a script by default, a Markdown file for
    /// rules about rendered Markdown or prose, a `.py` file for Python rules.
    pub fixture: &'static str,
    /// Which files the rule means something in.
    pub scope: Scope,
    /// A match inside inline code is a mention, whatever precedes it (a forged system header
    /// works by passing for the real thing; `` `<system-reminder>` `` in prose does not).
    pub mention_in_code: bool,
    /// A cheap necessary condition on a text, checked before the rule's regex is compiled or
    /// searches it: for patterns whose counted repetitions make large automata, or that have
    /// no literal the prefilter's index can use. `None`: always worth trying.
    pub prefilter: Option<fn(&str) -> bool>,
    /// A check on each match that a regex cannot express without look-around; `None`: every
    /// match counts.
    pub confirm: Option<fn(&str) -> bool>,
}

/// Where a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every file.
    Any,
    /// Markdown files only: the rule is about what a reader of rendered Markdown sees;
    /// elsewhere (an HTML viewer hiding a tab with `display:none`) it means nothing.
    Markdown,
}

impl Rule {
    /// The behaviour of most rules, for `..Rule::PLAIN` in the registry: every file, no
    /// mention rule, no extra check.
    pub const PLAIN: Rule = Rule {
        id: "",
        category: Category::Structural,
        severity: Severity::Low,
        message: "",
        explanation: "",
        matcher: Matcher::Structural,
        fires: &[],
        passes: &[],
        fixture: "scripts/check.sh",
        scope: Scope::Any,
        mention_in_code: false,
        prefilter: None,
        confirm: None,
    };
}
