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

/// Subcommands whose first argument is a skill: their completion offers the skills' names
/// (`git skill list --format names`, which prints only names a shell takes as they are).
const TAKE_A_SKILL: &str = "record optimize rollback log signals";

/// Skill names for bash: after clap's completer, for a subcommand of [`TAKE_A_SKILL`], unless
/// the word is a flag or follows one (then it is the flag's value).
const BASH_SKILL_NAMES: &str = r#"
# Skill names for the subcommands that take one.
_git_skill_with_names() {
    _git__skill "$@"
    local i cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            @TAKE@) cmd=${COMP_WORDS[i]}; break ;;
            -*) ;;
            *) break ;;
        esac
    done
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    if [[ -n $cmd && $cur != -* && ( $prev == "$cmd" || $prev != -* ) ]]; then
        local names
        names=$(git-skill list --format names 2>/dev/null)
        COMPREPLY+=($(compgen -W "$names" -- "$cur"))
    fi
}
complete -F _git_skill_with_names -o nosort -o bashdefault -o default git-skill
"#;

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
    _git_skill_with_names git-skill "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    COMP_WORDS=("${saved_words[@]}")
    COMP_CWORD=$saved_cword
}
"#;

/// The zsh script with the `skill` arguments completed from the skills' names, and the
/// function that lists them.
fn zsh_with_names(script: &str) -> String {
    let mut out = String::with_capacity(script.len() + 256);
    for line in script.split_inclusive('\n') {
        let is_skill_arg = line.starts_with("'::skill -- ") || line.starts_with("':skill -- ");
        if is_skill_arg && line.contains(":_default' ") {
            out.push_str(&line.replacen(":_default' ", ":_git_skill_names' ", 1));
        } else {
            if line.starts_with("if [ \"$funcstack[1]\" = \"_git-skill\" ]") {
                out.push_str(
                    "(( $+functions[_git_skill_names] )) ||\n_git_skill_names() {\n    local -a names\n    names=(${(f)\"$(git-skill list --format names 2>/dev/null)\"})\n    compadd -a names\n}\n\n",
                );
            }
            out.push_str(line);
        }
    }
    out
}

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
        let take = TAKE_A_SKILL.replace(' ', "|");
        ui.out
            .write_all(BASH_SKILL_NAMES.replace("@TAKE@", &take).as_bytes())?;
        ui.out.write_all(BASH_GIT_ADAPTER.as_bytes())?;
    } else if args.shell == Shell::Zsh {
        ui.out
            .write_all(zsh_with_names(&String::from_utf8_lossy(&buf)).as_bytes())?;
    } else {
        ui.out.write_all(&buf)?;
        writeln!(
            ui.out,
            "complete -c git-skill -n \"__fish_seen_subcommand_from {TAKE_A_SKILL}\" -f -a \"(git-skill list --format names 2>/dev/null)\""
        )?;
    }
    Ok(Outcome::Clean)
}
