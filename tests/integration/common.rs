//! A hermetic sandbox: HOME, git's global and system config, identity and time are pinned, so a
//! test sees only what it set up.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_git-skill");

pub struct Sandbox {
    pub tmp: tempfile::TempDir,
}

pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(output: Output) -> Run {
        // A death by signal reads as the shell shows it: 128 + the signal (137 for SIGKILL).
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&output.status);
        #[cfg(not(unix))]
        let signal: Option<i32> = None;
        Run {
            status: output
                .status
                .code()
                .or(signal.map(|s| 128 + s))
                .unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        std::fs::create_dir_all(tmp.path().join("repo")).unwrap();
        std::fs::write(tmp.path().join("home/.gitconfig"), "").unwrap();
        Sandbox { tmp }
    }

    /// A sandbox with an initialised repository in `repo/`.
    pub fn with_repo() -> Sandbox {
        let sb = Sandbox::new();
        sb.git(&["init", "-q", "-b", "main"]).assert_ok();
        sb
    }

    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    pub fn repo(&self) -> PathBuf {
        self.tmp.path().join("repo")
    }

    /// Writes a file below the repository, creating parent directories.
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.repo().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    fn pin(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", path_with_binary())
            .env("HOME", self.home())
            .env("GIT_CONFIG_GLOBAL", self.home().join(".gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test Author")
            .env("GIT_AUTHOR_EMAIL", "author@example.com")
            .env("GIT_COMMITTER_NAME", "Test Committer")
            .env("GIT_COMMITTER_EMAIL", "committer@example.com")
            .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("NO_COLOR", "1");
    }

    /// A command with the pinned environment, in the repository: the one builder every helper
    /// below goes through.
    pub fn cmd(&self, program: impl AsRef<std::ffi::OsStr>) -> Invocation {
        let mut command = Command::new(program.as_ref());
        self.pin(&mut command);
        command.current_dir(self.repo());
        Invocation {
            command,
            program: program.as_ref().to_string_lossy().into_owned(),
            stdin: None,
            limit: None,
        }
    }

    /// `git-skill` in `dir` (relative to the repository) with extra environment variables.
    pub fn run_in(&self, dir: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.cmd(BIN)
            .dir(self.repo().join(dir))
            .args(args)
            .envs(env)
            .run()
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.cmd(BIN).args(args).run()
    }

    /// The real `git` in the repository; `git skill ...` reaches the binary through PATH.
    pub fn git(&self, args: &[&str]) -> Run {
        self.cmd("git").args(args).run()
    }

    pub fn git_in(&self, dir: &str, args: &[&str]) -> Run {
        self.cmd("git").dir(self.repo().join(dir)).args(args).run()
    }

    /// The references of the review's proposals, `refs/skill-proposals/<id>`.
    pub fn proposal_refs(&self) -> Vec<String> {
        self.git(&[
            "for-each-ref",
            "--format=%(refname)",
            "refs/skill-proposals/",
        ])
        .stdout
        .lines()
        .map(str::to_owned)
        .collect()
    }

    /// Any program with the pinned environment in `cwd`.
    pub fn command(&self, program: &str, cwd: &Path, args: &[&str]) -> Run {
        self.cmd(program).dir(cwd).args(args).run()
    }
}

/// A command being put together; [`Invocation::run`] runs it to the end.
pub struct Invocation {
    command: Command,
    program: String,
    stdin: Option<String>,
    limit: Option<std::time::Duration>,
}

impl Invocation {
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Invocation {
        self.command.current_dir(dir);
        self
    }

    pub fn args(mut self, args: &[&str]) -> Invocation {
        self.command.args(args);
        self
    }

    pub fn envs(mut self, env: &[(&str, &str)]) -> Invocation {
        for (k, v) in env {
            self.command.env(k, v);
        }
        self
    }

    /// What the command reads on stdin (by default: nothing, stdin is closed).
    pub fn stdin(mut self, input: &str) -> Invocation {
        self.stdin = Some(input.to_owned());
        self
    }

    /// Kill the command and fail the test when it runs longer than `limit`: a hang guard, not
    /// a performance assertion.
    pub fn limit(mut self, limit: std::time::Duration) -> Invocation {
        self.limit = Some(limit);
        self
    }

    /// The command, not yet started, for tests that control its pipes or its lifetime.
    pub fn into_command(self) -> Command {
        self.command
    }

    #[track_caller]
    pub fn run(mut self) -> Run {
        use std::io::{Read, Write as _};
        use std::process::Stdio;
        let program = self.program.clone();
        let mut child = self
            .command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("run {program}: {e}"));
        // A writer thread, so that a command that stops reading early cannot deadlock the
        // test; readers drain both pipes, so a chatty child never blocks on a full one.
        let writer = self.stdin.take().map(|input| {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            std::thread::spawn(move || {
                let _ = pipe.write_all(input.as_bytes());
            })
        });
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut buf);
                }
                buf
            })
        };
        let out = drain(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let err = drain(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let status = match self.limit {
            None => child.wait().expect("wait for the command"),
            Some(limit) => {
                let start = std::time::Instant::now();
                loop {
                    if let Some(status) = child.try_wait().expect("wait for the command") {
                        break status;
                    }
                    if start.elapsed() > limit {
                        let _ = child.kill();
                        let _ = child.wait();
                        panic!("{program} still running after {limit:?}; killed it");
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            }
        };
        if let Some(writer) = writer {
            writer.join().expect("the writer thread ends");
        }
        Run::from(Output {
            status,
            stdout: out.join().expect("stdout reader"),
            stderr: err.join().expect("stderr reader"),
        })
    }
}

impl Run {
    #[track_caller]
    pub fn assert_ok(&self) -> &Run {
        assert_eq!(
            self.status, 0,
            "expected exit 0\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn assert_status(&self, code: i32) -> &Run {
        assert_eq!(
            self.status, code,
            "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// PATH with the directory of the built binary first, so `git skill` finds `git-skill`.
fn path_with_binary() -> String {
    let dir = Path::new(BIN).parent().unwrap().display().to_string();
    format!("{dir}:{}", std::env::var("PATH").unwrap_or_default())
}

/// A valid SKILL.md for `name`.
pub fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n")
}

// ---- Helpers for the lint, list, config and hostile-input tests. ----

/// The committed fixtures, `tests/fixtures`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Copies a directory tree of regular files (the committed fixtures hold nothing else).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display()))
    {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("copy {}: {e}", entry.path().display()));
        }
    }
}

/// The codes of a `--format json` lint report, in output order.
pub fn codes(report: &serde_json::Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("no diagnostics array in {report}"))
        .iter()
        .map(|d| d["code"].as_str().expect("code is a string").to_owned())
        .collect()
}

impl Sandbox {
    /// A `git-skill` command in `dir` (relative to the repository) with the pinned environment,
    /// not yet started; for tests that need to control its pipes or its lifetime.
    pub fn command_in(&self, dir: &str, args: &[&str]) -> Command {
        self.cmd(BIN)
            .dir(self.repo().join(dir))
            .args(args)
            .into_command()
    }

    /// `git-skill` in the repository with `input` on stdin and extra environment variables.
    pub fn run_with_stdin(&self, args: &[&str], env: &[(&str, &str)], input: &str) -> Run {
        self.cmd(BIN).args(args).envs(env).stdin(input).run()
    }

    /// The real `git` in `dir` with extra environment variables.
    pub fn git_env(&self, dir: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.cmd("git")
            .dir(self.repo().join(dir))
            .args(args)
            .envs(env)
            .run()
    }

    /// `git-skill` in `dir`, killed (and the test failed) when still running after `limit`.
    #[track_caller]
    pub fn run_bounded(
        &self,
        dir: &str,
        args: &[&str],
        env: &[(&str, &str)],
        limit: std::time::Duration,
    ) -> Run {
        self.cmd(BIN)
            .dir(self.repo().join(dir))
            .args(args)
            .envs(env)
            .limit(limit)
            .run()
    }

    /// Creates a symlink `rel` (below the repository) pointing at `target`, as written.
    #[cfg(unix)]
    pub fn symlink(&self, target: impl AsRef<Path>, rel: &str) -> PathBuf {
        let link = self.repo().join(rel);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target.as_ref(), &link).unwrap_or_else(|e| {
            panic!(
                "symlink {} -> {}: {e}",
                link.display(),
                target.as_ref().display()
            )
        });
        link
    }
}

impl Run {
    /// No panic message and not Rust's panic exit status: bad input must end in a diagnostic.
    #[track_caller]
    pub fn assert_no_panic(&self) -> &Run {
        assert!(
            !self.stderr.contains("panicked")
                && !self.stderr.contains("RUST_BACKTRACE")
                && self.status != 101,
            "git-skill panicked (exit {})\nstderr:\n{}",
            self.status,
            self.stderr
        );
        self
    }
}
