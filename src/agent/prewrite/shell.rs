//! What a shell command line writes, read from its syntax tree (the guard's shell walker:
//! quotes removed, constant variables filled in, `sh -c` unwrapped) and carried out on a copy
//! of the files it touches, command after command: a here-document or `echo`/`printf` sent to
//! a file (`>`, `>>`, `tee [-a]`), `cat` of files into one, `cp`/`mv`/`install` (folders too),
//! `sed -i` (run by GNU sed in its sandbox on the copy), Codex's `apply_patch <<EOF`, and `cd`
//! between them. What cannot be told (a download sent to a file, a variable of unknown value,
//! `perl -i`) is [`Untold`], named with its path: never a guess.

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use crate::guard::analysis::shell::{self, Command};

use super::{Proposed, Untold, MAX_EDITED_BYTES};

/// Files copied from one folder (`cp -r`), at most.
const MAX_COPIED_FILES: usize = 256;
/// How long `sed` may take on one file.
const SED_TIMEOUT: Duration = Duration::from_secs(1);

/// The time the reading of one command may take in all, however many `sed -i` it runs: past
/// it, what is left is a limit reached, and a limit refuses.
pub const READ_BUDGET: Duration = Duration::from_secs(2);

/// What `script`, run in `cwd`, writes: each file as the whole line leaves it, and what could
/// not be told.
pub fn writes(script: &str, cwd: &Path) -> (Vec<Proposed>, Vec<Untold>) {
    let mut files = Files {
        cwd: Some(cwd.to_owned()),
        written: Vec::new(),
        untold: Vec::new(),
        deadline: Instant::now() + READ_BUDGET,
    };
    for cmd in shell::commands(script) {
        files.command(&cmd);
    }
    let written = files
        .written
        .into_iter()
        .map(|(path, content)| Proposed { path, content })
        .collect();
    (written, files.untold)
}

struct Files {
    /// Where the commands run; `None` after a `cd` to somewhere unknown.
    cwd: Option<PathBuf>,
    /// Files written so far, in the order first written.
    written: Vec<(PathBuf, Vec<u8>)>,
    untold: Vec<Untold>,
    /// When the reading must be done (see [`READ_BUDGET`]).
    deadline: Instant,
}

impl Files {
    fn resolve(&self, p: &str) -> Option<PathBuf> {
        // `~` and `$HOME` are the home folder; `~user` and other variables are not told.
        let home = ["~", "$HOME", "${HOME}"]
            .iter()
            .any(|h| p == *h || p.strip_prefix(h).is_some_and(|r| r.starts_with('/')));
        if (p.starts_with('~') || p.starts_with('$')) && !home {
            return None;
        }
        if home || Path::new(p).is_absolute() {
            return Some(crate::fsutil::normalise(&crate::agent::writes::at(
                Path::new("/"),
                p,
            )));
        }
        self.cwd
            .as_ref()
            .map(|c| crate::fsutil::normalise(&c.join(p)))
    }

    /// A file's bytes as the line has left it so far.
    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        if let Some((_, c)) = self.written.iter().rev().find(|(p, _)| p == path) {
            return Some(c.clone());
        }
        crate::fsutil::read_regular_linked(path, MAX_EDITED_BYTES)
            .ok()
            .flatten()
    }

    fn write(&mut self, path: PathBuf, content: Vec<u8>) {
        match self.written.iter_mut().find(|(p, _)| *p == path) {
            Some((_, c)) => *c = content,
            None => self.written.push((path, content)),
        }
    }

    fn untold(&mut self, target: &str, why: String) {
        let path = self
            .resolve(target)
            .unwrap_or_else(|| PathBuf::from(target));
        self.untold.push(Untold {
            paths: vec![path],
            why,
            limit: false,
        });
    }

    fn command(&mut self, cmd: &Command) {
        let name = cmd.name.as_str();
        let known = |i: usize| cmd.args.get(i).filter(|a| a.known).map(|a| a.text.as_str());
        match name {
            "cd" | "pushd" => {
                self.cwd = match (cmd.args.len(), known(0)) {
                    (0, _) => None,
                    (_, Some(dir)) if dir != "-" => self.resolve(dir),
                    _ => None,
                };
            }
            "cp" | "mv" | "install" => self.copy(cmd),
            "sed" if in_place(cmd) => self.sed(cmd),
            "perl" | "ruby" if in_place(cmd) => {
                for a in cmd.args.iter().filter(|a| !a.text.starts_with('-')).skip(1) {
                    self.untold(&a.text, format!("cannot tell what `{name} -i` makes of it"));
                }
            }
            "tee" => {
                let append = cmd
                    .args
                    .iter()
                    .any(|a| a.text == "-a" || a.text == "--append");
                let targets: Vec<_> = cmd
                    .args
                    .iter()
                    .filter(|a| !a.text.starts_with('-'))
                    .cloned()
                    .collect();
                let content = cmd.heredoc.as_ref().map(|h| h.text.as_bytes().to_vec());
                for t in targets {
                    let why = "cannot tell what `tee` reads from its input";
                    self.put(&t.text, t.known, append, content.clone(), why);
                }
            }
            "apply_patch" | "applypatch" => self.patch(cmd),
            _ => {}
        }
        let content = redirected(cmd, self);
        for (w, append) in cmd.writes.iter().zip(&cmd.appends) {
            if w.text.starts_with("/dev/") {
                continue;
            }
            let what = format!(
                "cannot tell what `{}` prints",
                if name.is_empty() {
                    "the commands"
                } else {
                    name
                }
            );
            self.put(&w.text, w.known, *append, content.clone(), &what);
        }
    }

    /// `content` written (or appended) to `target`, or an untold write.
    fn put(
        &mut self,
        target: &str,
        known: bool,
        append: bool,
        content: Option<Vec<u8>>,
        why: &str,
    ) {
        let path = match (known, self.resolve(target)) {
            (true, Some(p)) => p,
            _ => return self.untold(target, format!("cannot tell where `{target}` leads")),
        };
        let Some(content) = content else {
            return self.untold(target, why.to_owned());
        };
        let mut bytes = match append {
            true => self.read(&path).unwrap_or_default(),
            false => Vec::new(),
        };
        bytes.extend(content);
        self.write(path, bytes);
    }

    fn copy(&mut self, cmd: &Command) {
        let name = cmd.name.as_str();
        // Options that take a value, for `install` (and `cp -t`, `-S`).
        let valued = [
            "-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix",
        ];
        let mut operands = Vec::new();
        let mut target_dir = None;
        let mut recursive = name == "mv";
        let mut k = 0;
        while k < cmd.args.len() {
            let a = &cmd.args[k];
            if a.text == "-t" || a.text == "--target-directory" {
                target_dir = cmd.args.get(k + 1).cloned();
                k += 2;
                continue;
            }
            if let Some(d) = a.text.strip_prefix("--target-directory=") {
                let mut v = a.clone();
                v.text = d.to_owned();
                target_dir = Some(v);
            } else if valued.contains(&a.text.as_str()) {
                k += 1;
            } else if a.text.starts_with("--") {
                recursive |= a.text == "--recursive" || a.text == "--archive";
            } else if a.text.starts_with('-') && a.text.len() > 1 {
                recursive |= a.text.contains(['r', 'R', 'a']);
            } else {
                operands.push(a.clone());
            }
            k += 1;
        }
        let (sources, dest, into) = match target_dir {
            Some(d) => (operands, d, true),
            None => {
                let Some(dest) = operands.pop() else { return };
                let into = operands.len() > 1;
                (operands, dest, into)
            }
        };
        if sources.is_empty() {
            return;
        }
        let Some(dest_path) = dest.known.then(|| self.resolve(&dest.text)).flatten() else {
            return self.untold(
                &dest.text,
                format!("cannot tell where `{}` leads", dest.text),
            );
        };
        let into = into || dest.text.ends_with('/') || dest_path.is_dir();
        for src in &sources {
            let Some(src_path) = src.known.then(|| self.resolve(&src.text)).flatten() else {
                return self.untold(
                    &dest.text,
                    format!("cannot tell what `{name}` copies from `{}`", src.text),
                );
            };
            let base = src_path.file_name().map(PathBuf::from).unwrap_or_default();
            let to = if into {
                dest_path.join(&base)
            } else {
                dest_path.clone()
            };
            if let Some(bytes) = self.read(&src_path) {
                self.write(to, bytes);
                continue;
            }
            if !recursive || !src_path.is_dir() {
                self.untold(
                    &dest.text,
                    format!("cannot tell what `{name}` copies from `{}`", src.text),
                );
                continue;
            }
            let mut found = Vec::new();
            collect(&src_path, Path::new(""), &mut found);
            if found.len() > MAX_COPIED_FILES {
                self.untold(
                    &dest.text,
                    format!("{} files copied from `{}`", found.len(), src.text),
                );
                continue;
            }
            for rel in found {
                if let Some(bytes) = self.read(&src_path.join(&rel)) {
                    self.write(to.join(rel), bytes);
                }
            }
        }
    }

    fn sed(&mut self, cmd: &Command) {
        // The script comes from -e/-f or is the first operand; the rest are the files.
        let mut kept: Vec<String> = Vec::new();
        let mut files = Vec::new();
        let mut scripted = false;
        let mut k = 0;
        while k < cmd.args.len() {
            let a = &cmd.args[k];
            if !a.known {
                return self.untold(
                    &a.text,
                    "cannot tell what `sed -i` makes of a file named by a variable".into(),
                );
            }
            let t = a.text.as_str();
            if t == "-e" || t == "-f" || t == "--expression" || t == "--file" {
                scripted = true;
                kept.push(t.to_owned());
                if let Some(v) = cmd.args.get(k + 1) {
                    kept.push(v.text.clone());
                }
                k += 2;
                continue;
            }
            if t.starts_with("--in-place") {
            } else if let Some(short) = t
                .strip_prefix('-')
                .filter(|s| !s.starts_with('-') && !s.is_empty())
            {
                // `-i[SUFFIX]` and `-Ei`: everything from the `i` on is the option's.
                let before: String = short.chars().take_while(|c| *c != 'i').collect();
                if before.contains(['e', 'f']) {
                    scripted = true;
                }
                if !before.is_empty() {
                    kept.push(format!("-{before}"));
                }
            } else if t.starts_with("--") {
                kept.push(t.to_owned());
            } else if !scripted {
                scripted = true;
                kept.push(t.to_owned());
            } else {
                files.push(t.to_owned());
            }
            k += 1;
        }
        for f in files {
            let Some(path) = self.resolve(&f) else {
                self.untold(
                    &f,
                    "cannot tell what `sed -i` makes of a file outside the work tree".into(),
                );
                continue;
            };
            let Some(current) = self.read(&path) else {
                continue;
            };
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.untold(
                    &f,
                    format!(
                        "the guard could not finish reading this command within {} s",
                        READ_BUDGET.as_secs()
                    ),
                );
                if let Some(u) = self.untold.last_mut() {
                    u.limit = true;
                }
                continue;
            }
            match run_sed(&kept, &current, left.min(SED_TIMEOUT)) {
                Ok(after) => self.write(path, after),
                Err(why) => {
                    self.untold(&f, format!("cannot tell what `sed -i` makes of it ({why})"))
                }
            }
        }
    }

    fn patch(&mut self, cmd: &Command) {
        let Some(text) = cmd
            .heredoc
            .as_ref()
            .map(|h| h.text.clone())
            .or_else(|| cmd.args.first().map(|a| a.text.clone()))
        else {
            return;
        };
        let Some(cwd) = self.cwd.clone() else {
            return self.untold(".", "a patch applied in an unknown folder".into());
        };
        let read = |p: &Path| self.read(p);
        match super::patch::apply(&text, &cwd, &read) {
            Ok(files) => {
                for f in files {
                    self.write(f.path, f.content);
                }
            }
            Err(e) => {
                let paths = super::patch_paths(&text, &cwd);
                self.untold.push(Untold {
                    paths,
                    why: format!("a patch that does not apply here ({e})"),
                    limit: false,
                });
            }
        }
    }
}

/// Whether a `sed`/`perl`/`ruby` command edits its files in place.
fn in_place(cmd: &Command) -> bool {
    cmd.args.iter().any(|a| {
        let t = a.text.as_str();
        t.starts_with("--in-place")
            || t.starts_with('-') && !t.starts_with("--") && t[1..].contains('i')
    })
}

/// What a command sends to a redirection: a here-document, `echo`'s or `printf`'s words,
/// files `cat` reads; `None` when that cannot be told.
fn redirected(cmd: &Command, files: &Files) -> Option<Vec<u8>> {
    if cmd.writes.is_empty() {
        return None;
    }
    let all_known = cmd.args.iter().all(|a| a.known);
    match cmd.name.as_str() {
        "cat" | "tee" if cmd.heredoc.is_some() => {
            cmd.heredoc.as_ref().map(|h| h.text.as_bytes().to_vec())
        }
        "echo" if all_known => echo(&cmd.args.iter().map(|a| a.text.as_str()).collect::<Vec<_>>()),
        "printf" if all_known => {
            printf(&cmd.args.iter().map(|a| a.text.as_str()).collect::<Vec<_>>())
        }
        "cat" if all_known && !cmd.args.is_empty() => {
            let mut out = Vec::new();
            for a in &cmd.args {
                if a.text.starts_with('-') {
                    return None;
                }
                out.extend(files.read(&files.resolve(&a.text)?)?);
            }
            Some(out)
        }
        "true" | ":" if cmd.args.is_empty() => Some(Vec::new()),
        _ => None,
    }
}

/// `echo [-neE] WORDS`.
fn echo(args: &[&str]) -> Option<Vec<u8>> {
    let mut newline = true;
    let mut escapes = false;
    let mut k = 0;
    while let Some(flags) = args.get(k).and_then(|a| a.strip_prefix('-')) {
        if flags.is_empty() || !flags.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        newline &= !flags.contains('n');
        escapes = flags.contains('e') || escapes && !flags.contains('E');
        k += 1;
    }
    let mut text = args[k..].join(" ");
    if escapes {
        text = shell::decode_escapes(&text);
    }
    if newline {
        text.push('\n');
    }
    Some(text.into_bytes())
}

/// `printf FORMAT ARGS` for `%s`, `%b` and `%%` (the format reused while arguments remain,
/// as the shell does); any other directive is not told.
fn printf(args: &[&str]) -> Option<Vec<u8>> {
    // `printf -- FORMAT`: the end of options, not the format; any other option (`-v VAR`)
    // is not told.
    let args = match args.first() {
        Some(&"--") => &args[1..],
        Some(a) if a.starts_with('-') && a.len() > 1 => return None,
        _ => args,
    };
    let (format, mut rest) = args.split_first()?;
    let format = shell::decode_escapes(format);
    let mut out = String::new();
    loop {
        let mut used = false;
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.next()? {
                '%' => out.push('%'),
                d @ ('s' | 'b') => {
                    let (arg, tail) = rest.split_first().map_or(("", rest), |(a, t)| (*a, t));
                    rest = tail;
                    used = true;
                    out.push_str(&if d == 'b' {
                        shell::decode_escapes(arg)
                    } else {
                        arg.to_owned()
                    });
                }
                _ => return None,
            }
        }
        if !used || rest.is_empty() {
            break;
        }
    }
    Some(out.into_bytes())
}

/// The regular files below `dir`, relative to it, links not followed.
fn collect(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    if out.len() > MAX_COPIED_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir.join(rel)) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let Ok(kind) = e.file_type() else { continue };
        let path = rel.join(e.file_name());
        if kind.is_dir() {
            collect(dir, &path, out);
        } else if kind.is_file() {
            out.push(path);
        }
    }
}

/// `sed` with `args` (no `-i`) on `input`, in GNU sed's sandbox (no `e`, `r` or `w`
/// commands), within `timeout`.
fn run_sed(args: &[String], input: &[u8], timeout: Duration) -> Result<Vec<u8>, String> {
    let mut child = Process::new("sed")
        .arg("--sandbox")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("sed: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        let mut out = Vec::new();
        let _ = (&mut stdout)
            .take(MAX_EDITED_BYTES + 1)
            .read_to_end(&mut out);
        out
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("sed did not finish".into());
            }
        }
    };
    let _ = feeder.join();
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Err("sed refused the script".into());
    }
    if out.len() as u64 > MAX_EDITED_BYTES {
        return Err("the result is too large".into());
    }
    Ok(out)
}
