use std::io::Write as _;

use git_skill::config::Source;
use git_skill::ops::config as op;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Show the effective configuration: every key, its value and where the value comes from.
///
/// Precedence, highest first: command-line flags, GIT_SKILL_<KEY> environment variables (for
/// example GIT_SKILL_FAIL_ON, GIT_SKILL_BASE_URL; GIT_SKILL_ROOTS is `:`-separated), git
/// configuration `skill.<key>` (including `git -c skill.<key>=value skill ...`), the
/// repository's `.skillguard.yaml` (its `failOn` and `roots`), defaults.
///
/// Exit status: 0 when every value is valid, 2 when one is not.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill config\n  git config skill.failOn high && git skill config --format json"
)]
pub struct ConfigArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_config(ui: &mut Ui, args: ConfigArgs) -> Result<Outcome, CommandError> {
    let ws = Workspace::load(ui)?;
    let effective = op::effective(&ws);
    match args.format {
        Format::Json => super::output::json(ui, &effective)?,
        Format::Text => {
            // Values differ in width (`120s`, a URL, a list of roots): a table keeps the
            // sources in one column.
            let mut table = super::table::Table::new(&["KEY", "VALUE", "SOURCE"]);
            for row in &effective.keys {
                let value = match (row.values.is_empty(), row.key == "skill.roots") {
                    (true, true) => "(defaults)".to_owned(),
                    (true, false) => "(unset)".to_owned(),
                    (false, _) => row.values.join(", "),
                };
                let source = row.source.clone().unwrap_or_default();
                table.row(vec![row.key.clone(), value, source], false);
            }
            table.write(&mut ui.out, ui.out_style)?;
        }
    }
    ui.out.flush()?;
    if let Some(e) = effective.policy_error {
        ui.error(&CommandError::new(e).hint(
            "its failOn and roots are not used until it is fixed; scan and the hook stop on it",
        ))?;
    }
    for e in effective.errors {
        let hint = match &e.source_ {
            Source::Git(_) => format!("change it with git config skill.{} <value>", e.key),
            Source::Env(var) => format!("change or unset {var}"),
            Source::Flag(flag) => format!("pass a valid {flag}"),
            Source::Repo(file) => format!("change `{}` in {file}", e.key),
            Source::Default => String::new(),
        };
        ui.error(&CommandError::new(e).hint(hint))?;
    }
    Ok(Outcome::Clean)
}
