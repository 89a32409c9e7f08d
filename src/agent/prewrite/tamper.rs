//! Tool calls that would switch the guard off from inside the session: a write into git's own
//! folder (the commit hooks, git-skill's state and cache, the repository's config), a `git
//! config` of git-skill's keys or of `core.hooksPath`, a commit that skips the hooks, a command
//! that sets git-skill's variables, `git skill hook uninstall`. Told from the call's words, so
//! it is refused before it runs; the watch ([`crate::ops::agent_watch`]) also puts the hooks
//! and the config back when a command it could not read changed them.

use std::path::Path;

use regex::Regex;

use crate::agent::event::ToolUse;

/// Why the call would switch the guard off, if it would.
pub fn tampers(tool: &ToolUse, cwd: &Path, git_dir: &Path) -> Option<String> {
    if let Some(command) = crate::agent::writes::command_text(tool) {
        return command_tampers(&command);
    }
    let git_dir = crate::fsutil::resolved(git_dir);
    for target in crate::agent::writes::targets(tool, cwd) {
        let target = crate::fsutil::resolved(&target);
        if target.starts_with(&git_dir) {
            return Some(format!(
                "it writes '{}', inside git's own folder, where the commit hooks, the repository's config and git-skill's state are",
                target.display()
            ));
        }
    }
    None
}

fn patterns() -> &'static [(Regex, &'static str)] {
    static PATTERNS: std::sync::OnceLock<Vec<(Regex, &'static str)>> = std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| {
        [
            (
                r"(?i)\.git/+(hooks|skill|info/attributes)\b",
                "it names git's hooks or git-skill's state (.git/hooks, .git/skill)",
            ),
            (r"(?i)\bcore\.hooks_?path\b", "it changes where git looks for the commit hooks (core.hooksPath)"),
            (
                r"(?i)\bgit\b[^;&|\n]*\bconfig\b[^;&|\n]*\b(skill\.|include(if)?\b)",
                "it runs git config on git-skill's settings (skill.*)",
            ),
            // git takes any unambiguous start of a long option (`--no-veri`).
            (r"--no-veri[a-z]*\b", "it skips the commit hooks (--no-verify)"),
            (
                r"\bgit\b[^;&|\n]*\b(commit|merge|am|cherry-pick|revert)\b[^;&|\n]*\s-[a-zA-Z]*n[a-zA-Z]*(\s|$)",
                "it skips the commit hooks (-n)",
            ),
            (r"\bSKIP=[^\s;&|]*git-skill", "it skips git-skill's commit hook (SKIP=git-skill)"),
            (r"\bGIT_SKILL_[A-Z_]*", "it sets or reads git-skill's own variables (GIT_SKILL_*)"),
            (
                r"\bgit[- ]skill\b[^;&|\n]*\b(hook\s+uninstall|init\b[^;&|\n]*--uninstall)",
                "it uninstalls git-skill's hooks",
            ),
            (r"\bdisableAllHooks\b", "it turns the agent's hooks off (disableAllHooks)"),
            (r"(?i)git-skill/cache\.key\b", "it names the key that signs git-skill's cache"),
            (
                r"/git-skill(\s|$|['\x22;&|)])",
                "it names git-skill's own binary, which the agent hooks run",
            ),
        ]
        .into_iter()
        .map(|(p, why)| (Regex::new(p).expect("a valid pattern"), why))
        .collect()
    })
}

/// Why the shell command would switch the guard off, if it would.
pub fn command_tampers(command: &str) -> Option<String> {
    // Cheap first: nearly every command names none of these.
    let lower_has = |needles: &[&str]| {
        let lower = command.to_ascii_lowercase();
        needles.iter().any(|n| lower.contains(n))
    };
    if !lower_has(&[
        ".git/",
        "hookspath",
        "hooks_path",
        "config",
        "no-verify",
        "skip=",
        "git_skill_",
        "git-skill",
        "git skill",
        "disableallhooks",
        " -n",
        " -",
    ]) {
        return None;
    }
    // Flags are read outside quotes (a commit message may say "-n").
    let unquoted = unquoted(command);
    patterns()
        .iter()
        .find(|(re, why)| {
            let text = if why.ends_with("(-n)") {
                &unquoted
            } else {
                command
            };
            re.is_match(text)
        })
        .map(|(_, why)| (*why).to_owned())
}

/// `command` with what is inside quotes taken out.
fn unquoted(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    let mut quote = None;
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_switches_the_guard_off_is_named_and_ordinary_commands_are_not() {
        for bad in [
            "git config skill.failOn never",
            "git config --local skill.autoSkill.enabled false",
            "git   config core.hooksPath /dev/null",
            "git -c core.hooksPath=/tmp/x commit -m x",
            "echo '' > .git/hooks/pre-commit",
            "rm -rf .git/skill/cache",
            "cp x .git//hooks/pre-commit",
            "git commit --no-verify -m wip",
            "git commit -nm wip",
            "git commit -a -n -m wip",
            "SKIP=git-skill git commit -m x",
            "SKIP=lint,git-skill git commit -m x",
            "GIT_SKILL_FAILON=never git commit -m x",
            "export GIT_SKILL_NOW=bad",
            "git skill hook uninstall",
            "git-skill init --agent claude --uninstall",
            "jq '.disableAllHooks = true' .claude/settings.json > t && mv t .claude/settings.json",
            "cat ~/.config/git-skill/cache.key",
            "git commit --no-veri -qm x",
            "git config SKILL.failOn never",
            "git config include.path /tmp/x.cfg",
            "mv ~/.cargo/bin/git-skill /tmp/x",
        ] {
            assert!(command_tampers(bad).is_some(), "{bad}");
        }
        for fine in [
            "git commit -m 'fix: handle -n flag in parser'",
            "git status",
            "cargo test -- --nocapture",
            "ls -la",
            "git config user.name",
            "git log --oneline -n 5",
            "grep -rn skill src/",
            "git skill scan",
            "head -n 3 README.md",
        ] {
            assert_eq!(command_tampers(fine), None, "{fine}");
        }
    }
}
