//! How the review runs `git`: with no program that git's configuration (the repository's, the
//! user's, a submodule's) or the repository's attributes could start. The review reads a
//! repository a hostile transcript points it at; `git status` alone would run a configured
//! `filter.<driver>.clean` on every file whose attributes name that driver, and
//! `core.fsmonitor` on every call.

use std::path::Path;
use std::process::{Command, Stdio};

/// Settings that turn off every program git itself could start. Filter drivers are found in
/// the configuration and turned off one by one ([`filter_drivers`]): git has no switch for
/// all of them.
const SAFE_CONFIG: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.hooksPath", "/dev/null"),
    ("core.untrackedCache", "false"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("diff.external", ""),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("log.showSignature", "false"),
    ("credential.helper", ""),
    // A partial clone fetches missing objects on demand, through whatever transport and
    // upload-pack its remote names: never here (with GIT_NO_LAZY_FETCH).
    ("protocol.allow", "never"),
    // A submodule's own configuration is not looked at: git does not go into them.
    ("diff.ignoreSubmodules", "all"),
    ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"),
];

/// A `git` command for `top` with an empty environment (but PATH, HOME for the identity, the
/// locale) and the settings above, passed as `GIT_CONFIG_*` variables, which take any key,
/// and reach every git process it starts.
pub fn git(top: &Path) -> Command {
    let mut cmd = bare(top);
    let mut settings: Vec<(String, String)> = SAFE_CONFIG
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for driver in filter_drivers(top) {
        for key in ["clean", "smudge", "process"] {
            settings.push((format!("filter.{driver}.{key}"), String::new()));
        }
        // A required filter that does not run is an error; turned off, it is not required.
        settings.push((format!("filter.{driver}.required"), "false".to_owned()));
    }
    cmd.env("GIT_CONFIG_COUNT", settings.len().to_string());
    for (i, (key, value)) in settings.iter().enumerate() {
        cmd.env(format!("GIT_CONFIG_KEY_{i}"), key);
        cmd.env(format!("GIT_CONFIG_VALUE_{i}"), value);
    }
    cmd
}

/// git in `top` with the environment cleared but for what it needs.
fn bare(top: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(top)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LC_ALL", "C")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_PAGER", "cat")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_ATTR_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_LAZY_FETCH", "1");
    if let Some(home) = std::env::var_os("HOME") {
        // git reads the user's identity and safe.directory from there; nothing is written.
        cmd.env("HOME", home);
    }
    cmd
}

/// The filter drivers the configuration names (`filter.<driver>.<key>`), whatever their keys.
/// Asking git, which reads exactly what the command will (includes, the user's file), and
/// runs nothing to answer.
fn filter_drivers(top: &Path) -> Vec<String> {
    let out = bare(top)
        .args([
            "config",
            "--null",
            "--name-only",
            "--get-regexp",
            r"^filter\.",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let Ok(out) = out else {
        return Vec::new();
    };
    let mut drivers: Vec<String> = out
        .stdout
        .split(|&b| b == 0)
        .filter_map(|name| std::str::from_utf8(name).ok())
        .filter_map(|name| {
            let rest = name.strip_prefix("filter.")?;
            rest.rsplit_once('.').map(|(driver, _)| driver.to_owned())
        })
        .collect();
    drivers.sort();
    drivers.dedup();
    drivers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .unwrap()
            .success();
        assert!(ok);
        dir
    }

    #[test]
    fn every_configured_filter_driver_is_found_and_turned_off() {
        let dir = repo();
        for (k, v) in [
            ("filter.lfs.process", "git-lfs filter-process"),
            ("filter.a.b.clean", "x"),
            ("filter.crypt.smudge", "y"),
        ] {
            let ok = Command::new("git")
                .args(["config", k, v])
                .current_dir(dir.path())
                .status()
                .unwrap()
                .success();
            assert!(ok);
        }
        assert_eq!(filter_drivers(dir.path()), ["a.b", "crypt", "lfs"]);
        let cmd = git(dir.path());
        let envs: Vec<(String, String)> = cmd
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_str()?.to_owned(), v?.to_str()?.to_owned())))
            .collect();
        let value = |key: &str| {
            let i = envs
                .iter()
                .find(|(k, v)| k.starts_with("GIT_CONFIG_KEY_") && v == key)
                .map(|(k, _)| k.trim_start_matches("GIT_CONFIG_KEY_").to_owned())
                .unwrap_or_else(|| panic!("{key} is not set"));
            envs.iter()
                .find(|(k, _)| *k == format!("GIT_CONFIG_VALUE_{i}"))
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        assert_eq!(value("filter.lfs.process"), "");
        assert_eq!(value("filter.a.b.clean"), "");
        assert_eq!(value("filter.crypt.required"), "false");
        assert_eq!(value("core.fsmonitor"), "false");
    }
}
