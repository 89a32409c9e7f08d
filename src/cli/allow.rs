use std::io::Write as _;
use std::path::PathBuf;

use git_skill::ops::allow as op;

use super::output::Format;
use super::{CommandError, Outcome, Ui, Workspace};

/// Suppress findings in `.skillguard.yaml`, bound to what was reviewed.
///
/// `git skill allow RULE PATH --reason TEXT` appends an entry for the RULE findings in PATH (a
/// skill's folder or one of its files), pinned to them by fingerprint: the rule, the file's path
/// in the repository, the matched text and which copy of it in the file. It covers those
/// findings wherever it is read, and nothing else: not the same text added elsewhere in the
/// file, not another file, not a skill of the same name in another root.
///
/// `git skill allow --pin` binds the entries written by rule, skill or path alone (which still
/// work, with a warning) to the findings each covers in the work tree today. Entries that cover
/// nothing are left as they are. The file is edited as text: its comments and layout stay.
///
/// In a pull request's range scan, entries are read from the base revision: an entry a change
/// adds counts once merged.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill allow SUP001 .claude/skills/deploy/scripts/install.sh --reason \"the vendor's installer, reviewed\"\n  git skill allow --pin\n  git skill allow --pin --dry-run"
)]
pub struct AllowArgs {
    /// The rule to allow (`git skill rules`).
    #[arg(required_unless_present = "pin", requires = "path")]
    pub rule: Option<String>,

    /// A skill's folder or one of its files: the findings allowed are RULE's there.
    pub path: Option<PathBuf>,

    /// Why the findings are acceptable (shown in every report that suppresses them).
    #[arg(long, requires = "rule")]
    pub reason: Option<String>,

    /// The day the entry stops applying (YYYY-MM-DD).
    #[arg(long, value_name = "DATE", requires = "rule")]
    pub expires: Option<String>,

    /// Bind every entry without fingerprints to the findings it covers today.
    #[arg(long)]
    pub pin: bool,

    /// Say what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn cmd_allow(ui: &mut Ui, args: AllowArgs) -> Result<Outcome, CommandError> {
    let mut ws = Workspace::load(ui)?;
    let add = match (&args.rule, &args.path) {
        (Some(rule), Some(path)) => Some(op::Add {
            rule: rule.clone(),
            path: path.clone(),
            reason: args.reason.clone().ok_or_else(|| {
                CommandError::new("an allow needs a reason")
                    .hint("add --reason \"why this finding is acceptable\"")
            })?,
            expires: args.expires.clone(),
        }),
        _ => None,
    };
    let options = op::Options {
        pin: args.pin,
        add,
        dry_run: args.dry_run,
        jobs: git_skill::parallel::default_jobs(),
        today: git_skill::clock::today(),
    };
    let report = op::allow(&mut ws, &options)?;
    match args.format {
        Format::Json => super::output::json(ui, &report)?,
        Format::Text => text(ui, &report, args.dry_run)?,
    }
    Ok(Outcome::Clean)
}

fn text(ui: &mut Ui, report: &op::Report, dry_run: bool) -> std::io::Result<()> {
    let file = report.file.display();
    for p in &report.pinned {
        match p.findings {
            0 => writeln!(
                ui.out,
                "left `{}`: it covers nothing in the work tree, or has expired (remove it if it is no longer needed)",
                p.entry
            )?,
            1 => writeln!(ui.out, "pinned `{}` to 1 finding", p.entry)?,
            n => writeln!(ui.out, "pinned `{}` to {n} findings", p.entry)?,
        }
    }
    if let Some(a) = &report.added {
        let s = if a.findings == 1 { "" } else { "s" };
        writeln!(ui.out, "added `{}` ({} finding{s})", a.entry, a.findings)?;
    }
    ui.out.flush()?;
    if report.pinned.is_empty() && report.added.is_none() {
        ui.status(&format!("every entry of '{file}' is pinned already"))?;
    } else if dry_run {
        ui.status(&format!("'{file}' not written (--dry-run)"))?;
    } else if report.written {
        ui.status(&format!(
            "wrote '{file}'; commit it: a pull request's scan reads it from the base once merged"
        ))?;
    }
    Ok(())
}
