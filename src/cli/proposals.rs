use std::io::Write as _;

use git_skill::review::proposals::{self, ProposalError};

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// See, accept or reject what the review agent proposed.
///
/// Each `git skill review` that saved something left a commit under refs/skill-proposals/<id>
/// whose parent is HEAD when the review started. `list` shows them (and whether HEAD moved
/// since), `show` the diff, `accept` applies one to the work tree and the index with a
/// three-way merge (your uncommitted edits are kept; a conflict refuses and changes nothing),
/// after checking the skills it touches as the pre-commit hook does; `--commit` also commits it
/// with the proposal's message. `reject` deletes it, `prune` deletes old ones. An id may be
/// shortened to any unique prefix.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  git skill proposals list
  git skill proposals show 20261202T101500Z-3fa9c1
  git skill proposals accept 20261202T1015 --commit
  git skill proposals prune --older-than 30d")]
pub struct ProposalsArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// List the proposals, oldest first.
    List {
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Show a proposal: its message and its diff.
    Show {
        /// The proposal's id (or a unique prefix).
        id: String,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Apply a proposal to the work tree and the index.
    Accept {
        id: String,
        /// Also commit it on the current branch, with the proposal's message.
        #[arg(long)]
        commit: bool,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Delete a proposal.
    Reject { id: String },
    /// Delete proposals older than an age (12h, 7d, 2w) or a date.
    Prune {
        #[arg(long, value_name = "AGE", default_value = "30d")]
        older_than: String,
        /// Show what would be deleted.
        #[arg(long)]
        dry_run: bool,
    },
}

pub fn cmd_proposals(ui: &mut Ui, args: ProposalsArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let repo = ws.require_repo("proposals")?;
    let safe = super::ui::safe;
    match args.action {
        Action::List { format } => {
            let (all, skipped) = proposals::list_all(repo).map_err(error)?;
            for why in &skipped {
                ui.warn(&format!("skipped: {why}"))?;
            }
            match format {
                Format::Json => super::output::json(ui, serde_json::json!({ "proposals": all }))?,
                Format::Text => {
                    if all.is_empty() {
                        ui.status("no proposals")?;
                    }
                    for p in &all {
                        let skills: Vec<String> = p
                            .facts
                            .skills
                            .iter()
                            .map(|s| format!("{} {} ({})", s.change, s.path, s.verdict))
                            .collect();
                        writeln!(
                            ui.out,
                            "{}  {}  {}{}",
                            p.id,
                            p.date,
                            safe(&p.facts.summary),
                            if p.head_moved {
                                "  [HEAD moved since]"
                            } else {
                                ""
                            }
                        )?;
                        writeln!(
                            ui.out,
                            "    session {} ({}): {}",
                            safe(&p.facts.session),
                            safe(&p.facts.agent),
                            safe(&skills.join("; "))
                        )?;
                    }
                }
            }
            Ok(Outcome::Clean)
        }
        Action::Show { id, format } => {
            let p = proposals::find(repo, &id).map_err(error)?;
            let diff = proposals::diff(repo, &p).map_err(error)?;
            match format {
                Format::Json => {
                    let mut v = serde_json::to_value(&p)?;
                    v["message"] = p.message.clone().into();
                    v["diff"] = diff.into();
                    super::output::json(ui, v)?
                }
                Format::Text => {
                    writeln!(ui.out, "proposal {} (commit {})", p.id, p.commit)?;
                    if p.head_moved {
                        writeln!(
                            ui.out,
                            "HEAD moved since the review (its base was {}); accept merges it onto the work tree",
                            &p.base[..12.min(p.base.len())]
                        )?;
                    }
                    writeln!(ui.out)?;
                    for line in p.message.lines() {
                        writeln!(ui.out, "    {}", safe(line))?;
                    }
                    writeln!(ui.out)?;
                    super::ui::write_lines(&mut ui.out, &diff)?;
                }
            }
            Ok(Outcome::Clean)
        }
        Action::Accept { id, commit, format } => {
            let p = proposals::find(repo, &id).map_err(error)?;
            let fail_on = ws.config.fail_on()?;
            let today = git_skill::clock::today();
            let roots = ws.repo_relative_roots().named;
            match proposals::accept(repo, &p, &roots, fail_on, commit, today) {
                Ok(a) => {
                    match format {
                        Format::Json => {
                            super::output::json(ui, serde_json::json!({"ok": true, "accepted": a}))?
                        }
                        Format::Text => {
                            match &a.commit {
                                Some(c) => writeln!(
                                    ui.out,
                                    "accepted {} and committed it as {}",
                                    a.id,
                                    &c[..12.min(c.len())]
                                )?,
                                None => writeln!(
                                    ui.out,
                                    "accepted {}: staged {} (commit when ready; the pre-commit hook checks it)",
                                    a.id,
                                    safe(&a.files.join(", "))
                                )?,
                            }
                            for (dir, verdict) in &a.verdicts {
                                writeln!(ui.out, "  {}: {verdict}", safe(dir))?;
                            }
                        }
                    }
                    Ok(Outcome::Clean)
                }
                Err(
                    e @ (ProposalError::Conflict { .. }
                    | ProposalError::Blocked { .. }
                    | ProposalError::DirtyForCommit { .. }
                    | ProposalError::OutsideRoots { .. }),
                ) => {
                    // Refused for what the proposal holds: exit 1, nothing changed.
                    match format {
                        Format::Json => super::output::json(
                            ui,
                            serde_json::json!({"ok": false, "errors": [e.to_string()]}),
                        )?,
                        Format::Text => {
                            for line in e.to_string().lines() {
                                writeln!(ui.out, "refused: {}", safe(line))?;
                            }
                            if matches!(e, ProposalError::Conflict { .. }) {
                                writeln!(ui.out, "  commit or stash your edits of those files, then accept again; or see it with git skill proposals show {}", p.id)?;
                            }
                        }
                    }
                    Ok(Outcome::Problems)
                }
                Err(e) => Err(error(e)),
            }
        }
        Action::Reject { id } => {
            let p = proposals::find(repo, &id).map_err(error)?;
            proposals::reject(repo, &p).map_err(error)?;
            writeln!(ui.out, "rejected {} ({})", p.id, safe(&p.facts.summary))?;
            Ok(Outcome::Clean)
        }
        Action::Prune {
            older_than,
            dry_run,
        } => {
            let now = git_skill::clock::now();
            let cutoff = git_skill::signal::select::parse_since(&older_than, now)
                .map_err(|e| CommandError::new(e.to_string()))?;
            let pruned = proposals::prune(repo, cutoff, dry_run).map_err(error)?;
            for p in &pruned {
                writeln!(
                    ui.out,
                    "{} {} ({})",
                    if dry_run { "would prune" } else { "pruned" },
                    p.id,
                    p.date
                )?;
            }
            if pruned.is_empty() {
                ui.status(&format!("no proposal older than {older_than}"))?;
            }
            Ok(Outcome::Clean)
        }
    }
}

fn error(e: ProposalError) -> CommandError {
    let hint = match &e {
        ProposalError::NotFound { .. } | ProposalError::Ambiguous { .. } => {
            Some("git skill proposals list shows the ids")
        }
        ProposalError::Malformed { .. } => {
            Some("delete it with git update-ref -d <ref> if it is not a proposal")
        }
        _ => None,
    };
    let error = CommandError::new(e);
    match hint {
        Some(h) => error.hint(h),
        None => error,
    }
}
