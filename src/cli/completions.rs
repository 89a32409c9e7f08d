use std::io::Write as _;

use super::{CommandError, Outcome, Ui};

/// Print a shell completion script.
///
/// bash: `git skill completions bash > ~/.local/share/bash-completion/completions/git-skill`
/// (completes both `git-skill` and, with git's own completion loaded, `git skill`).
/// zsh: `git skill completions zsh > "${fpath[1]}/_git-skill"` (zsh's git completion calls it
/// for `git skill`). fish: `git skill completions fish > ~/.config/fish/completions/git-skill.fish`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to generate for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// git's bash completion calls `_git_<subcommand>` for `git <subcommand>`; this hands the words
/// after `skill` to the completer clap generated for `git-skill`.
const BASH_GIT_ADAPTER: &str = r#"
# `git skill <TAB>`: git's completion calls _git_skill; reuse the git-skill completer.
_git_skill() {
    local i saved_cword=$COMP_CWORD
    local -a saved_words=("${COMP_WORDS[@]}")
    for ((i = 1; i < ${#saved_words[@]}; i++)); do
        [[ ${saved_words[i]} == skill ]] && break
    done
    COMP_WORDS=(git-skill "${saved_words[@]:i+1}")
    COMP_CWORD=$((saved_cword - i))
    _git__skill git-skill "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    COMP_WORDS=("${saved_words[@]}")
    COMP_CWORD=$saved_cword
}
"#;

pub fn cmd_completions(ui: &mut Ui, args: CompletionsArgs) -> Result<Outcome, CommandError> {
    let mut cmd = super::command().bin_name("git-skill");
    let mut buf = Vec::new();
    match args.shell {
        Shell::Bash => {
            clap_complete::generate(clap_complete::Shell::Bash, &mut cmd, "git-skill", &mut buf)
        }
        Shell::Zsh => {
            clap_complete::generate(clap_complete::Shell::Zsh, &mut cmd, "git-skill", &mut buf)
        }
        Shell::Fish => {
            clap_complete::generate(clap_complete::Shell::Fish, &mut cmd, "git-skill", &mut buf)
        }
    }
    if args.shell == Shell::Bash {
        // clap_complete 4.6 spells the hyphen of `git-skill` two ways in the bash script (the
        // case labels read it as a subcommand separator), so subcommand flags never complete.
        let script = String::from_utf8_lossy(&buf).replace("git__subcmd__skill", "git__skill");
        ui.out.write_all(script.as_bytes())?;
        ui.out.write_all(BASH_GIT_ADAPTER.as_bytes())?;
    } else {
        ui.out.write_all(&buf)?;
    }
    Ok(Outcome::Clean)
}
