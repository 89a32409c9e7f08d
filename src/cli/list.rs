use std::path::PathBuf;

use git_skill::ops::list as op;
use git_skill::report::one_line;

use super::table::Table;
use super::{CommandError, Outcome, Ui, Workspace};

/// List the skills of the repository: name, category, root, provenance, size, description.
///
/// Provenance is `auto-skill` for skills an agent wrote (`metadata.source: auto-skill`) and
/// `authored` otherwise. Skills whose frontmatter does not parse are listed with `invalid`;
/// `git skill lint` says why.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill list\n  git skill list --category ops --format json"
)]
pub struct ListArgs {
    /// Skill directories or folders of skills (default: the repository's skills).
    pub paths: Vec<PathBuf>,

    /// Only skills in this category (`<root>/<category>/<name>`).
    #[arg(long)]
    pub category: Option<String>,

    /// Output format: `names` prints one skill name per line, for shell completion.
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,

    /// Skill root to search instead of the configured ones (repeatable; like skill.roots).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    Text,
    Json,
    /// One name per line, each once, only names a shell can take as they are.
    Names,
}

/// Whether a name can be offered to a shell's completion as it is: bash expands the words of
/// `compgen -W`, so `$(...)` in a skill's name would run. Names the specification allows pass.
fn completable(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

pub fn cmd_list(ui: &mut Ui, args: ListArgs) -> Result<Outcome, CommandError> {
    let mut ws = Workspace::load(ui)?;
    ws.config.set_flag("roots", "--root", &args.roots);
    let options = op::Options {
        paths: args.paths.clone(),
        category: args.category.clone(),
    };
    let mut listing = op::list(&ws, &options)?;
    ws.report_skipped(ui, std::mem::take(&mut listing.skipped))?;
    let rows = &listing.skills;
    match args.format {
        ListFormat::Json => super::output::json(ui, &listing)?,
        ListFormat::Text => render_table(ui, rows)?,
        ListFormat::Names => {
            let mut names: Vec<&str> = rows
                .iter()
                .map(|r| r.name.as_str())
                .filter(|n| completable(n))
                .collect();
            names.sort_unstable();
            names.dedup();
            for name in names {
                use std::io::Write as _;
                writeln!(ui.out, "{name}")?;
            }
            return Ok(Outcome::Clean);
        }
    }
    if rows.is_empty() && !ui.had_error {
        ui.status("no skills found")?;
    }
    Ok(Outcome::Clean)
}

fn render_table(ui: &mut Ui, rows: &[op::Row]) -> std::io::Result<()> {
    let mut table = Table::new(&[
        "NAME",
        "CATEGORY",
        "PROVENANCE",
        "FILES",
        "SIZE",
        "PATH",
        "DESCRIPTION",
    ]);
    for r in rows {
        let description = match &r.invalid {
            Some(why) => format!("[invalid: {why}; see git skill lint]"),
            None => one_line(r.description.as_deref().unwrap_or(""), 60),
        };
        table.row(
            vec![
                r.name.clone(),
                r.category.clone().unwrap_or_else(|| "-".into()),
                r.provenance.to_owned(),
                r.files.to_string(),
                human_bytes(r.bytes),
                r.path.clone(),
                description,
            ],
            false,
        );
    }
    table.write(&mut ui.out, ui.out_style)
}

fn human_bytes(n: u64) -> String {
    match n {
        0..=1023 => format!("{n} B"),
        1024..=1_048_575 => format!("{:.1} KiB", n as f64 / 1024.0),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}
