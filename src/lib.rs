//! git-skill: make AI-agent skills (directories with a `SKILL.md`) evolve safely inside git.
//!
//! Agents (Claude Code, Codex, Qwen Code, Gemini CLI, Copilot, Cursor, ...) load skills from a
//! repository and run them with the user's rights. This crate guards them where they change (a
//! pre-commit hook and a CI scan that refuse dangerous or invalid skills), turns recorded
//! feedback into reviewed, reversible changes (`optimize`, two commits and a rollback), and
//! keeps every step in git.
//!
//! The library holds every capability and never prints: functions return data or take a
//! writer, a progress handle or a question trait. The `git-skill` binary parses arguments,
//! calls into this crate and renders. The modules, in the order data flows:
//!
//! | module | what it does |
//! |---|---|
//! | [`env`] | what a command starts from: the current directory, the repository, configuration, HOME and the skill roots, loaded from values the binary reads |
//! | [`ops`] | one operation per command (pre-commit, scan, lint, list, init, `hook agent`, signals, sessions, proposals, review, record, log, diff, rollback, prompt, config, rules, `llm ping`, manage's target): options in, a serialisable report out, nothing printed |
//! | [`skill`] | where skills live (discovery, links), what they hold, their format and limits (lint) |
//! | [`guard`] | SkillGuard: the rule registry and the scanner that gives a skill its verdict |
//! | [`check`] | one check path: a skill from the work tree, the index, a revision or memory, with policy and baseline; `check::gate`, the one gate every change of skills passes (hook, range scan, proposals, optimize, manage) |
//! | [`staged`] | which skills changed between two states git holds (the hook's and CI's view) |
//! | [`closure`] | what agents load and run beyond the files they load by themselves: imports, hooks' scripts, MCP servers' code, plugins, files a skill runs or links to, each in the role it is reached in, bounded |
//! | [`drift`] | capability drift: what a changed skill can do that it could not before |
//! | [`signal`] | feedback signals: schema, the locked JSON-lines store, selection, dashboard |
//! | [`eval`] | skill evals: the cases of `evals/evals.json` |
//! | [`optimize`] | the eight steps from signals to an audited change, checkpointed and crash-safe |
//! | [`manage`] | `skill_manage`: validated, guarded, atomic writes of skills, for a person or an agent |
//! | [`registry`] | the agent registry: what each supported agent loads and runs from a repository, what its settings keys do, where its hooks and user files are |
//! | [`agent`] | the agent CLIs: their names and their transcripts, read into one conversation |
//! | [`review`] | the sandboxed review agent: a tool loop over an in-memory overlay, ending in a proposal commit |
//! | [`llm`], [`prompt`] | model providers (the only network access) and the prompt templates |
//! | [`git`] | the only place that touches git: listings, commits, reverts, log, the pre-commit hook's script |
//! | [`report`] | one findings model (`report::problem`) for lint diagnostics and guard findings; text, JSON, SARIF and JUnit |
//! | [`redact`] | secrets masked whole, on every way out: files, commits, model requests, the terminal |
//! | [`config`] | layered configuration: flags, `GIT_SKILL_*`, `git config skill.*`, defaults |
//! | [`advice`] | what the user can do about each error: how it ends the run (user, configuration, internal) and the hints the binary prints under it |
//! | [`clock`] | every read of the time: pinned by `GIT_SKILL_NOW` for what is stamped and decided, monotonic for waits |
//! | [`parallel`], [`progress`], [`fsutil`] | shared plumbing: ordered thread maps, progress reporting, safe file I/O (atomic writes; no FIFO, device, link or hard link where a file must be a file; the one lock, and a run's locked directory) |

pub mod advice;
pub mod agent;
pub mod check;
pub mod clock;
pub mod closure;
pub mod config;
pub mod drift;
pub mod env;
pub mod eval;
pub mod fsutil;
pub mod git;
pub mod guard;
pub mod llm;
pub mod manage;
pub mod ops;
pub mod optimize;
pub mod parallel;
pub mod progress;
pub mod prompt;
pub mod redact;
pub mod registry;
pub mod report;
pub mod review;
pub mod secrets;
pub mod signal;
pub mod skill;
pub mod staged;
