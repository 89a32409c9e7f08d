//! Where code and data go that are not HTTP requests: the index a package manager installs
//! from (`pip config set global.index-url`, `registry=` in `.npmrc`), packages installed
//! straight from a URL, and a repository pushed to a remote the script itself added.

use std::collections::HashMap;

use super::super::secrets::{loopback, url_host};
use super::super::Hit;
use super::Command;
use crate::guard::rules::{
    exfiltration::EXF023,
    supply_chain::{SUP023, SUP024},
};

fn hit(out: &mut Vec<Hit>, rule: &'static crate::guard::rule::Rule, cmd: &Command) {
    out.push(Hit {
        rule,
        start: cmd.start,
        end: cmd.end,
    });
}

/// Hosts that serve public packages and repositories under their publishers' names: an
/// install or a push there is the ordinary way to publish and fetch, reviewable by name.
const PUBLIC_HOSTS: &[&str] = &[
    "github.com",
    "codeload.github.com",
    "objects.githubusercontent.com",
    "raw.githubusercontent.com",
    "gitlab.com",
    "bitbucket.org",
    "codeberg.org",
    "dev.azure.com",
    "ssh.dev.azure.com",
    "git.sr.ht",
    "pypi.org",
    "files.pythonhosted.org",
    "test.pypi.org",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "npm.pkg.github.com",
    "download.pytorch.org",
    "huggingface.co",
];

/// Whether `url` is on a public forge or registry, or on this machine.
fn public_or_local(url: &str) -> bool {
    let host = match url_host(url) {
        Some(h) => h.to_ascii_lowercase(),
        // scp-like git addresses: `git@github.com:o/r.git`.
        None => match url.split_once('@').and_then(|(_, r)| r.split_once(':')) {
            Some((h, _)) => h.to_ascii_lowercase(),
            None => return true,
        },
    };
    loopback(&host) || PUBLIC_HOSTS.contains(&host.as_str())
}

fn is_url(t: &str) -> bool {
    t.starts_with("http://") || t.starts_with("https://")
}

/// The subcommand of `git [-C DIR] [-c K=V] SUB ...` and its arguments.
fn git_sub(cmd: &Command) -> Option<(&str, Vec<&str>)> {
    if cmd.name != "git" {
        return None;
    }
    let mut args = cmd.args.iter().map(|a| a.text.as_str());
    loop {
        let a = args.next()?;
        match a {
            "-C" | "-c" | "--git-dir" | "--work-tree" => {
                args.next();
            }
            _ if a.starts_with('-') => {}
            _ => return Some((a, args.collect())),
        }
    }
}

/// `git remote add NAME URL`, `git remote set-url NAME URL`: the remote and where it points.
pub fn remote_added(cmd: &Command) -> Option<(String, String)> {
    let (sub, args) = git_sub(cmd)?;
    if sub != "remote" {
        return None;
    }
    let operands: Vec<&str> = args.into_iter().filter(|a| !a.starts_with('-')).collect();
    match operands.as_slice() {
        ["add" | "set-url", name, url, ..] => Some(((*name).to_owned(), (*url).to_owned())),
        _ => None,
    }
}

/// `git push` to a URL, or to a remote this script added, on a host that is not a public
/// forge: the repository, its history and whatever was committed into it leave the machine.
pub fn pushed(cmd: &Command, remotes: &HashMap<String, String>, out: &mut Vec<Hit>) {
    let Some(("push", args)) = git_sub(cmd) else {
        return;
    };
    let Some(target) = args.into_iter().find(|a| !a.starts_with('-')) else {
        return;
    };
    let url = if target.contains("://") || target.contains('@') {
        target
    } else {
        match remotes.get(target) {
            Some(url) => url.as_str(),
            None => return,
        }
    };
    if !public_or_local(url) {
        hit(out, &EXF023, cmd);
    }
}

/// `pip config set global.index-url URL`, `npm config set registry URL` and their kin: every
/// later install of the user's comes from that index.
pub fn index_set(cmd: &Command, out: &mut Vec<Hit>) {
    if !package_manager(&cmd.name) {
        return;
    }
    let args: Vec<&str> = cmd.args.iter().map(|a| a.text.as_str()).collect();
    let tail: &[&str] = match (cmd.name.as_str(), args.as_slice()) {
        ("pip" | "pip3", ["config", "set", rest @ ..]) => rest,
        (n, ["-m", "pip", "config", "set", rest @ ..]) if n.starts_with("python") => rest,
        ("npm" | "yarn" | "pnpm", ["config", "set", rest @ ..]) => rest,
        ("npm", ["set", rest @ ..]) => rest,
        _ => return,
    };
    let (key, value) = match tail {
        [kv] => match kv.split_once('=') {
            Some((k, v)) => (k, v),
            None => return,
        },
        [k, v, ..] => (*k, *v),
        _ => return,
    };
    let key = key.rsplit('.').next().unwrap_or(key).to_ascii_lowercase();
    let index_key = matches!(
        key.as_str(),
        "index-url" | "extra-index-url" | "trusted-host" | "registry" | "npmregistryserver"
    ) || key.ends_with(":registry");
    if index_key && (key == "trusted-host" || !public_or_local(value)) {
        hit(out, &SUP023, cmd);
    }
}

/// The programs whose arguments these rules read; every other command is passed over
/// before anything is allocated (this runs for every command of every script).
fn package_manager(name: &str) -> bool {
    matches!(
        name,
        "pip" | "pip3" | "pipx" | "uv" | "npm" | "pnpm" | "yarn"
    ) || name.starts_with("python")
}

/// A package manager's own configuration file (pip's, npm's, yarn's, uv's, conda's).
pub fn package_config(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "pip.conf" | "pip.ini" | ".npmrc" | ".yarnrc" | ".yarnrc.yml" | "uv.toml" | ".condarc"
    )
}

/// What is written into a package manager's configuration file redirects its index.
pub fn config_written(path: &str, content: &str, cmd: &Command, out: &mut Vec<Hit>) {
    if !package_config(path) {
        return;
    }
    // printf's and echo -e's escapes may be undecoded here.
    let content = content.replace("\\n", "\n");
    let redirects = content.lines().any(|line| {
        let line = line.trim().trim_matches(['"', '\'']);
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => match line.split_once(':') {
                Some((k, v)) if !k.contains("//") => (k.trim(), v.trim()),
                _ => return false,
            },
        };
        let key = key.to_ascii_lowercase();
        let index_key = key.ends_with("index-url")
            || key == "registry"
            || key.ends_with(":registry")
            || key == "npmregistryserver"
            || key == "url";
        key == "trusted-host"
            || index_key
                && is_url(value.trim_matches(['"', '\'']))
                && !public_or_local(value.trim_matches(['"', '\'']))
    });
    if redirects {
        hit(out, &SUP023, cmd);
    }
}

/// `pip install https://host/pkg.tar.gz`, `npm install https://host/pkg.tgz`: a package whose
/// setup code runs at install time, from a host that is no public registry or forge, with no
/// hash that pins what it serves.
pub fn url_install(cmd: &Command, out: &mut Vec<Hit>) {
    if !package_manager(&cmd.name) {
        return;
    }
    let args: Vec<&str> = cmd.args.iter().map(|a| a.text.as_str()).collect();
    let rest: &[&str] = match (cmd.name.as_str(), args.as_slice()) {
        ("pip" | "pip3" | "pipx", ["install", rest @ ..]) => rest,
        ("uv", ["pip", "install", rest @ ..]) => rest,
        (n, ["-m", "pip", "install", rest @ ..]) if n.starts_with("python") => rest,
        ("npm" | "pnpm", ["install" | "i" | "add", rest @ ..]) => rest,
        ("yarn", ["add", rest @ ..]) => rest,
        _ => return,
    };
    if rest
        .iter()
        .any(|a| a.starts_with("--hash") || *a == "--require-hashes")
    {
        return;
    }
    let from_url = rest
        .iter()
        .any(|a| is_url(a) && !a.contains("#sha256=") && !public_or_local(a));
    if from_url {
        hit(out, &SUP024, cmd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_public_by_name_and_an_unparsable_target_is_left_alone() {
        assert!(public_or_local("https://github.com/o/r.git"));
        assert!(public_or_local("git@github.com:o/r.git"));
        assert!(public_or_local("http://127.0.0.1:8080/simple"));
        assert!(!public_or_local("https://github.com.evil.example/o/r.git"));
        assert!(!public_or_local("https://pypi.mirror-fast.example/simple"));
        assert!(package_config("/home/u/.config/pip/pip.conf"));
        assert!(!package_config("notes/pip.conf.md"));
    }
}
