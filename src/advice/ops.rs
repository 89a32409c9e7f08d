//! The errors of the library operations: most forward what they wrap; a few know which flag
//! or revision the user gave.

use super::{Advice, Advise, Kind};
use crate::ops::diff::DiffError;
use crate::ops::init::InitError;
use crate::ops::lint::LintError;
use crate::ops::log::LogError;
use crate::ops::manage::TargetError;
use crate::ops::pre_commit::PreCommitError;
use crate::ops::proposals::ProposalsError;
use crate::ops::quarantine::QuarantineOpError;
use crate::ops::scan::ScanError;
use crate::review::proposals::ProposalError;

/// Revisions that are not here are most often a shallow CI checkout.
const FETCH_DEPTH: &str = "(CI checkouts may need fetch-depth: 0)";

impl Advise for PreCommitError {
    fn advice(&self) -> Advice {
        match self {
            PreCommitError::Env(e) => e.advice(),
            PreCommitError::Git(e) => e.advice(),
            PreCommitError::Policy(e) => e.advice(),
            PreCommitError::Config(e) => e.advice(),
        }
    }
}

impl Advise for ScanError {
    fn advice(&self) -> Advice {
        match self {
            ScanError::Env(e) => e.advice(),
            ScanError::RangeNeedsRepo(e) => e
                .advice()
                .and("or drop --from-ref/--to-ref to scan the paths given"),
            ScanError::Baseline(_) => Advice::user("create one with --write-baseline FILE"),
            ScanError::NoPolicy { .. } => Advice::bare(Kind::User),
            ScanError::Policy(e) => e.advice(),
            ScanError::RangePolicy(e) => e.advice().and(
                "fix the policy file in that revision; every entry needs a known rule and a reason",
            ),
            ScanError::Revisions(e) => e.advice().and(format!(
                "check that both revisions exist here {FETCH_DEPTH}"
            )),
            ScanError::Git(e) => e.advice(),
            ScanError::Config(e) => e.advice(),
            ScanError::WriteBaseline { .. } => Advice::bare(Kind::Internal),
            ScanError::ClearCache { path, .. } => Advice::new(
                Kind::Internal,
                format!(
                    "remove '{}' by hand; it holds findings only",
                    path.display()
                ),
            ),
        }
    }
}

impl Advise for InitError {
    fn advice(&self) -> Advice {
        match self {
            InitError::Env(e) => e.advice(),
            InitError::NoAgent => {
                Advice::user("name the agents: git skill init --agent claude (or --agent all)")
            }
            // Its message says what to fix.
            InitError::Settings(_) => Advice::bare(Kind::User),
            InitError::Git(e) => e.advice(),
            InitError::Hook(e) => e.advice(),
            InitError::Write { .. } => Advice::bare(Kind::Internal),
        }
    }
}

impl Advise for ProposalsError {
    fn advice(&self) -> Advice {
        match self {
            ProposalsError::Env(e) => e.advice(),
            ProposalsError::Age(_) => Advice::bare(Kind::User),
            ProposalsError::Proposal(e) => e.advice(),
        }
    }
}

impl Advise for QuarantineOpError {
    fn advice(&self) -> Advice {
        use crate::agent::quarantine::QuarantineError as Q;
        match self {
            QuarantineOpError::Env(e) => e.advice(),
            QuarantineOpError::Quarantine(Q::NoEntry(_)) => {
                Advice::user("git skill quarantine list shows the ids")
            }
            QuarantineOpError::Quarantine(Q::Changed { .. }) => Advice::user(
                "move what is there now aside, or release it with --force to overwrite it",
            ),
            QuarantineOpError::Quarantine(Q::Broken(..)) => Advice::user(
                "drop the entry with git skill quarantine drop ID if it is not one git-skill wrote",
            ),
            QuarantineOpError::Quarantine(Q::Io { .. }) => Advice::bare(Kind::Internal),
        }
    }
}

impl Advise for ProposalError {
    fn advice(&self) -> Advice {
        match self {
            ProposalError::NotFound { .. } | ProposalError::Ambiguous { .. } => {
                Advice::user("git skill proposals list shows the ids")
            }
            ProposalError::Malformed { .. } => {
                Advice::user("delete it with git update-ref -d <ref> if it is not a proposal")
            }
            _ => Advice::bare(Kind::User),
        }
    }
}

impl Advise for LintError {
    fn advice(&self) -> Advice {
        match self {
            LintError::Env(e) => e.advice(),
            LintError::Policy(e) => e.advice(),
        }
    }
}

impl Advise for TargetError {
    fn advice(&self) -> Advice {
        Advice::user(match self {
            TargetError::NoDefaultRoot => "name one: git skill manage ... --root .claude/skills (or git config skill.autoSkill.root)",
            TargetError::OutsideRepository => "name one with --root DIR",
        })
    }
}

impl Advise for LogError {
    fn advice(&self) -> Advice {
        match self {
            LogError::Env(e) => e.advice(),
            LogError::Git(e) => e.advice(),
            LogError::Outside(_) => Advice::bare(Kind::User),
        }
    }
}

impl Advise for DiffError {
    fn advice(&self) -> Advice {
        match self {
            DiffError::Env(e) => e.advice(),
            DiffError::Revisions(e) => e
                .advice()
                .and(format!("check that the revisions exist here {FETCH_DEPTH}")),
        }
    }
}

impl Advise for crate::ops::rules::UnknownRule {
    fn advice(&self) -> Advice {
        Advice::user("list the rules with: git skill rules")
    }
}

impl Advise for crate::eval::suite::SuiteError {
    fn advice(&self) -> Advice {
        use crate::eval::suite::SuiteError as E;
        match self {
            E::Invalid { .. } => {
                Advice::user("git skill lint shows every problem of the file (SK032, SK033)")
            }
            E::NoCases { .. } => Advice::user("add cases to its `evals` list"),
            E::Read(_) => Advice::bare(Kind::User),
        }
    }
}

impl Advise for crate::ops::eval::EvalError {
    fn advice(&self) -> Advice {
        use crate::ops::eval::EvalError as E;
        match self {
            E::Env(e) => e.advice(),
            E::NoEvals { .. } => Advice::user(
                "write the cases in evals/evals.json: {\"evals\": [{\"id\": 1, \"prompt\": \"...\", \"expected_output\": \"...\", \"assertions\": [\"...\"]}]} (docs/commands.md, `git skill eval`)",
            ),
            E::Suite(e) => e.advice(),
            E::Read(_) | E::Outside { .. } => Advice::bare(Kind::User),
            E::Revision(crate::eval::subject::RevisionError::Git { source, .. }) => source
                .advice()
                .and(format!("check that the revision exists here {FETCH_DEPTH}")),
            E::Revision(crate::eval::subject::RevisionError::NotThere { .. }) => {
                Advice::user("name a revision that has the skill, or compare with no skill (drop --against)")
            }
            E::Budget { .. } => Advice::new(
                Kind::Config,
                "raise it (git config skill.evalMaxCalls N), or run fewer cases; answers kept from an earlier run of the same comparison cost nothing",
            ),
            E::Dangerous { agent_written: true, .. } => Advice::user(
                "an agent wrote this skill; read it and fix it, or eval it without --runner (the model reads it, nothing runs)",
            ),
            E::Dangerous { .. } => Advice::user(
                "read what SkillGuard found (git skill scan <skill>); eval it without --runner (the model reads it, nothing runs), or, for your own skill, pass --allow-dangerous",
            ),
            E::Prompt(e) => e.advice(),
            E::Store(_) => Advice::bare(Kind::Internal),
        }
    }
}

impl Advise for crate::ops::allow::AllowError {
    fn advice(&self) -> Advice {
        use crate::ops::allow::AllowError;
        match self {
            AllowError::Env(e) => e.advice(),
            AllowError::Scan(e) => e.advice(),
            AllowError::Policy(e) => e.advice(),
            AllowError::Edit { .. } => Advice::user(
                "add the fingerprints by hand: git skill scan --format json lists each finding's",
            ),
            AllowError::Write { .. } => Advice::bare(Kind::Internal),
            AllowError::UnknownRule { .. } => Advice::user("git skill rules lists them"),
            AllowError::NotInSkill { .. } => {
                Advice::user("name a skill's folder or a file in one (git skill list)")
            }
            AllowError::NothingToAllow { .. } => {
                Advice::user("git skill scan PATH shows what is found there")
            }
            AllowError::NoReason => Advice::bare(Kind::User),
            AllowError::Expires => Advice::user("for example --expires 2027-06-30"),
        }
    }
}

impl Advise for crate::ops::baseline::BaselineError {
    fn advice(&self) -> Advice {
        use crate::ops::baseline::BaselineError;
        match self {
            BaselineError::Scan(ScanError::Baseline(_)) => {
                Advice::user("write one first: git skill baseline FILE")
            }
            BaselineError::Scan(e) => e.advice(),
            BaselineError::Write { .. } => Advice::bare(Kind::Internal),
        }
    }
}
