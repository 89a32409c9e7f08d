use std::io::Write as _;
use std::path::PathBuf;

use git_skill::ops::baseline as op;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Write a baseline: the findings of the work tree accepted, each entry bound to its finding.
///
/// An entry names one finding by fingerprint: the rule, the file's path in the repository, the
/// matched text (white space folded) and which copy of it in the file. It covers that finding
/// wherever the baseline is read, and nothing else: not the same text pasted again, not a new
/// skill of the same name in another root. `git skill scan --baseline FILE` reads it.
///
/// `--update` rewrites an existing baseline for what it covers today, accepting nothing new:
/// entries of version 1 (by skill name, deprecated) become version 2, and entries that cover
/// nothing are dropped.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill baseline .skillguard-baseline.json\n  git skill baseline --update .skillguard-baseline.json"
)]
pub struct BaselineArgs {
    /// The baseline file.
    #[arg(default_value = ".skillguard-baseline.json")]
    pub file: PathBuf,

    /// Rewrite what the file accepts today instead of accepting every finding.
    #[arg(long)]
    pub update: bool,

    /// Say what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

fn entries(n: usize) -> String {
    match n {
        1 => "1 entry".to_owned(),
        n => format!("{n} entries"),
    }
}

pub fn cmd_baseline(ui: &mut Ui, args: BaselineArgs) -> Result<Outcome, CommandError> {
    let mut ws = Workspace::load(ui)?;
    let options = op::Options {
        file: args.file.clone(),
        update: args.update,
        dry_run: args.dry_run,
        jobs: git_skill::parallel::default_jobs(),
        today: git_skill::clock::today(),
    };
    let report = op::baseline(&mut ws, &options)?;
    match args.format {
        Format::Json => super::output::json(ui, &report)?,
        Format::Text => {
            let file = report.file.display();
            match (report.before, report.before_version) {
                (Some(before), Some(version)) => writeln!(
                    ui.out,
                    "'{file}': version {version}, {} -> version 2, {}; {} covered nothing and went",
                    entries(before),
                    entries(report.entries),
                    before.saturating_sub(report.entries)
                )?,
                _ => writeln!(
                    ui.out,
                    "'{file}': {} accepted",
                    match report.entries {
                        1 => "1 finding".to_owned(),
                        n => format!("{n} findings"),
                    }
                )?,
            }
            ui.out.flush()?;
            if args.dry_run {
                ui.status(&format!("'{file}' not written (--dry-run)"))?;
            } else if report.written {
                ui.status(&format!("wrote '{file}'; scan with --baseline {file}"))?;
            }
        }
    }
    Ok(Outcome::Clean)
}
