use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;

use super::{CommandError, Outcome, ResultExt as _, Ui};

/// Print or install the man pages, so that `git help skill` works.
///
/// Without options, prints git-skill(1) on stdout. `--output-dir DIR` writes git-skill.1 and one
/// page per subcommand (git-skill-lint.1, ...) into DIR. `--install` writes them next to the
/// binary, into `<prefix>/share/man/man1` where the binary is `<prefix>/bin/git-skill`; `man`
/// finds that directory through PATH (for cargo installs: ~/.cargo/share/man).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git skill man --install && git help skill\n  git skill man --output-dir /usr/local/share/man/man1"
)]
pub struct ManArgs {
    /// Write every page into this directory.
    #[arg(long, value_name = "DIR", conflicts_with = "install")]
    pub output_dir: Option<PathBuf>,

    /// Write every page into <prefix>/share/man/man1 beside the running binary.
    #[arg(long)]
    pub install: bool,
}

pub fn cmd_man(ui: &mut Ui, args: ManArgs) -> Result<Outcome, CommandError> {
    let dir = if args.install {
        let exe = std::env::current_exe().context("could not find the running binary")?;
        let prefix = exe
            .parent()
            .and_then(|bin| bin.parent())
            .context("the binary has no parent directory")?;
        Some(prefix.join("share/man/man1"))
    } else {
        args.output_dir
    };
    let cmd = super::command().name("git-skill").display_name("git-skill");
    let Some(dir) = dir else {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut buf)?;
        ui.out.write_all(&buf)?;
        return Ok(Outcome::Clean);
    };
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("could not create '{}'", dir.display()))
        .hint("choose a writable directory with --output-dir")?;
    clap_mangen::generate_to(cmd, &dir)
        .with_context(|| format!("could not write man pages into '{}'", dir.display()))?;
    ui.status(&format!(
        "wrote man pages into '{}'; try: git help skill",
        dir.display()
    ))?;
    Ok(Outcome::Clean)
}
