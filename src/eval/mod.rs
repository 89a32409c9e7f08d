//! Skill evals: the cases of a skill's `evals/evals.json` (the Agent Skills authoring guide's
//! format), the skill as the agent of a case sees it, running and grading each case under two
//! conditions, and where a run keeps its results.

pub mod cases;
pub mod compare;
pub mod placed;
pub mod run;
pub mod runner;
pub mod store;
pub mod subject;
pub mod suite;

pub use cases::{Case, CaseId, EvalSet, EvalsProblem, EVALS_JSON};
