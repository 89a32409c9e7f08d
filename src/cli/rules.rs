use std::io::Write as _;

use git_skill::ops::rules as op;

use super::output::Format;
use super::{CommandError, Outcome, Ui};

/// List SkillGuard's rules, or explain one.
///
/// Each rule has a stable id (the category's prefix and a number), a category, a severity and
/// a one-line message; `git skill rules explain ID` says what it detects, why it is dangerous
/// and what to do instead.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill rules\n  git skill rules --format json\n  git skill rules explain SUP001"
)]
pub struct RulesArgs {
    #[command(subcommand)]
    pub action: Option<RulesAction>,

    /// Output format of the listing.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, clap::Subcommand)]
pub enum RulesAction {
    /// Print one rule's explanation.
    Explain {
        /// The rule id, for example EXF001.
        id: String,
    },
}

pub fn cmd_rules(ui: &mut Ui, args: RulesArgs) -> Result<Outcome, CommandError> {
    if let Some(RulesAction::Explain { id }) = &args.action {
        let rule = op::explain(id)?;
        writeln!(
            ui.out,
            "{} ({}, {}): {}\n",
            rule.id,
            rule.category.as_str(),
            rule.severity,
            rule.message
        )?;
        writeln!(ui.out, "{}", rule.explanation)?;
        return Ok(Outcome::Clean);
    }
    let rules = op::list();
    match args.format {
        Format::Json => super::output::json(ui, &rules)?,
        Format::Text => {
            for r in &rules.rules {
                writeln!(
                    ui.out,
                    "{:<7} {:<9} {:<21} {}",
                    r.id, r.severity, r.category, r.message
                )?;
            }
        }
    }
    Ok(Outcome::Clean)
}
