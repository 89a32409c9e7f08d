//! A case run by a real agent CLI (`git skill eval --runner`): a directory of its own under the
//! user's private temporary directory holds the case's input files and, under the condition
//! that has one, the skill where that CLI finds a project's skills; the CLI does the task there
//! headless, and what it answered and the files it left are what the judge grades. The
//! directory is removed after; the person's repository is never the agent's working directory.

use std::path::{Path, PathBuf};

use super::placed;
use crate::llm::agent_run::AgentRun;
use crate::llm::{LlmError, Usage};
use crate::prompt::vars::EvalSkill;

/// Files the agent left that the judge is shown: at most this many, ...
const MAX_LEFT: usize = 20;
/// ... each at most this much of its text, ...
const LEFT_BYTES: usize = 16 << 10;
/// ... and this much in all.
const LEFT_TOTAL: usize = 64 << 10;

/// What the agent answered, with the files it left, as the judge reads it.
pub fn attempt(
    agent: &AgentRun,
    prompt: &str,
    inputs: &[(String, Vec<u8>)],
    skill: Option<&EvalSkill>,
    folder: &[crate::eval::subject::FolderFile],
) -> Result<(String, Option<Usage>), LlmError> {
    // Checked where the case is read; again here, where a file would land.
    if let Some((rel, what)) = inputs
        .iter()
        .find_map(|(rel, _)| placed::agent_config(rel).map(|w| (rel, w)))
    {
        return Err(LlmError::Config(format!(
            "the case's input '{rel}' is {what}: an eval runner is given only the skill and the task's files"
        )));
    }
    let place = crate::llm::agent_cli::Place::new("eval").map_err(|e| setup(agent, e))?;
    let cwd = place.0.clone();
    for (rel, bytes) in inputs {
        write(&cwd, rel, bytes).map_err(|e| setup(agent, e))?;
    }
    let root = agent.runner.skills_root();
    if let Some(skill) = skill {
        let dir = format!("{root}/{}", crate::skill::lint::slug(&skill.name));
        // The whole folder when there is one (scripts runnable as they are), else what an
        // agent that loaded the skill reads.
        if folder.is_empty() {
            for f in skill
                .files
                .iter()
                .filter(|f| placed::agent_config(&f.path).is_none())
            {
                write(&cwd, &format!("{dir}/{}", f.path), f.text.as_bytes())
                    .map_err(|e| setup(agent, e))?;
            }
        }
        for (path, bytes, executable) in folder {
            if placed::agent_config(path).is_some() {
                continue;
            }
            let rel = format!("{dir}/{path}");
            write(&cwd, &rel, bytes).map_err(|e| setup(agent, e))?;
            #[cfg(unix)]
            if *executable {
                use std::os::unix::fs::PermissionsExt as _;
                std::fs::set_permissions(cwd.join(&rel), std::fs::Permissions::from_mode(0o755))
                    .map_err(|e| setup(agent, e))?;
            }
        }
        write(&cwd, &format!("{dir}/SKILL.md"), skill.text.as_bytes())
            .map_err(|e| setup(agent, e))?;
    }
    let mut task = prompt.trim_end().to_owned();
    if !inputs.is_empty() {
        let names: Vec<&str> = inputs.iter().map(|(p, _)| p.as_str()).collect();
        task.push_str(&format!(
            "\n\nThe files of this task are in the working directory: {}\n",
            names.join(", ")
        ));
    }
    let (answer, usage) = agent.run(&cwd, &task)?;
    let (left, unread) = left_files(&cwd, inputs, root);
    Ok((with_files(&answer, &left, &unread), usage))
}

fn setup(agent: &AgentRun, e: std::io::Error) -> LlmError {
    LlmError::Config(format!(
        "cannot prepare a directory for {} to work in: {e}",
        agent.runner.as_str()
    ))
}

/// Writes `rel` (a `/`-separated path that stays inside, checked when the case was read)
/// below `cwd`.
fn write(cwd: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
    if crate::skill::files::path_escapes(Path::new(rel)) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("'{rel}' leaves the directory"),
        ));
    }
    let path = cwd.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}

/// Entries of the agent's directory looked at, at most: a dependency install leaves many.
const MAX_WALKED: usize = 20_000;
/// Folders of installed dependencies and caches: not what a task's answer is.
const SKIPPED_DIRS: [&str; 6] = [
    "node_modules",
    "__pycache__",
    "target",
    "venv",
    "dist-packages",
    "site-packages",
];

/// A file the agent made or changed: its path and size, and the start of it (at most
/// [`LEFT_BYTES`] + 1 bytes, so that a cut is seen).
type Left = (String, u64, Vec<u8>);

/// The regular files below `cwd` the agent made or changed: not the skill, not an input it
/// left as it was, not a dot-folder of the CLI's own nor a dependency folder; links are not
/// followed; at most [`MAX_LEFT`] are read (the first by path), the others only named.
fn left_files(
    cwd: &Path,
    inputs: &[(String, Vec<u8>)],
    skills_root: &str,
) -> (Vec<Left>, Vec<String>) {
    let mut found: Vec<(String, PathBuf, u64)> = Vec::new();
    let mut walked = 0;
    let mut stack = vec![(cwd.to_owned(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            walked += 1;
            if walked > MAX_WALKED {
                break;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let skills = path == skills_root || path.starts_with(&format!("{skills_root}/"));
                // The skill and the CLI's own dot-folders are not what it left for the task.
                let own = rel.is_empty() && name.starts_with('.');
                if !(skills || own || SKIPPED_DIRS.contains(&name.as_str())) {
                    stack.push((entry.path(), path));
                }
            } else if kind.is_file() {
                let size = entry.metadata().map_or(0, |m| m.len());
                found.push((path, entry.path(), size));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let mut left = Vec::new();
    let mut unread = Vec::new();
    for (rel, path, size) in found {
        // An input as it was given is not the agent's work.
        if let Some((_, given)) = inputs.iter().find(|(p, _)| *p == rel) {
            if given.len() as u64 == size && head(&path, size as usize).is_ok_and(|b| b == *given) {
                continue;
            }
        }
        if left.len() == MAX_LEFT {
            unread.push(rel);
            continue;
        }
        match head(&path, LEFT_BYTES + 1) {
            Ok(bytes) => left.push((rel, size, bytes)),
            Err(_) => unread.push(rel),
        }
    }
    (left, unread)
}

/// At most `n` bytes from the start of the regular file `path`, never through a link, and
/// never of a file with another hard link (the agent could link a file from outside its
/// folder, and the judge would be shown that file): the store's rules for special files.
fn head(path: &Path, n: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if meta.nlink() > 1 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it has another hard link",
            ));
        }
    }
    let mut bytes = Vec::new();
    file.take(n as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The answer, then the files left, each fenced (a binary file by its size), within budgets,
/// then the names of those not shown.
fn with_files(answer: &str, left: &[Left], unread: &[String]) -> String {
    let mut out = answer.trim_end().to_owned();
    if left.is_empty() && unread.is_empty() {
        return out + "\n";
    }
    out.push_str("\n\nFiles the agent left in its working directory:\n\n");
    let mut spent = 0;
    let mut more: Vec<&str> = Vec::new();
    for (path, size, bytes) in left {
        if spent >= LEFT_TOTAL {
            more.push(path);
            continue;
        }
        // A text cut at the budget may end inside a character: valid up to there is text.
        let valid = match std::str::from_utf8(bytes) {
            Ok(text) => Some(text),
            Err(e) if e.error_len().is_none() => {
                std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()
            }
            Err(_) => None,
        };
        match valid {
            Some(text) => {
                let room = LEFT_BYTES.min(LEFT_TOTAL - spent);
                let mut end = text.len().min(room);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                spent += end;
                out.push_str(&crate::prompt::fence::fence(path, &text[..end]));
                if (end as u64) < *size {
                    out.push_str(&format!("(the rest of {path} is not shown)\n"));
                }
            }
            None => out.push_str(&format!("{path}: {size} bytes of binary data, not shown\n")),
        }
    }
    more.extend(unread.iter().map(String::as_str));
    if !more.is_empty() {
        let names: Vec<&str> = more.iter().take(50).copied().collect();
        out.push_str(&format!(
            "({} more not shown: {}{})\n",
            crate::report::plural(more.len(), "file"),
            names.join(", "),
            if more.len() > names.len() {
                ", ..."
            } else {
                ""
            }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in agent (a shell function, run as Copilot's answer is read: its output) that
    /// reports where it ran and what its directory holds.
    #[cfg(unix)]
    #[test]
    fn the_agent_works_in_a_directory_of_its_own_with_the_whole_skill() {
        use crate::llm::agent_run::{AgentRun, Runner};
        let mut agent = AgentRun::new(Runner::Copilot);
        agent.program =
            "f() { pwd; find . -type f -perm -u+x | sort; cat evals/files/in.csv; echo made > out.txt; }; f"
                .into();
        let skill = EvalSkill {
            name: "csv report".into(),
            description: "d".into(),
            text: "---\nname: csv\n---\nRun scripts/check.sh\n".into(),
            files: Vec::new(),
        };
        let folder = vec![
            ("scripts/check.sh".to_owned(), b"#!/bin/sh\n".to_vec(), true),
            ("assets/logo.png".to_owned(), vec![0x89, 0x50], false),
        ];
        let inputs = vec![(
            "evals/files/in.csv".to_owned(),
            "a,東京\n".as_bytes().to_vec(),
        )];
        let (answer, _) = attempt(&agent, "Do it.", &inputs, Some(&skill), &folder).unwrap();
        let lines: Vec<&str> = answer.lines().collect();
        let dir = std::path::PathBuf::from(lines[0]);
        assert!(
            dir.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("eval-"),
            "{answer}"
        );
        assert!(!dir.exists(), "the directory is removed after");
        assert_eq!(
            lines[1], "./.github/skills/csv-report/scripts/check.sh",
            "{answer}"
        );
        assert_eq!(lines[2], "a,東京");
        assert!(
            answer.contains("labelled \"out.txt\"") && answer.contains("\nmade\n"),
            "{answer}"
        );
    }

    #[test]
    fn the_files_left_are_what_the_agent_made_or_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path();
        write(cwd, "evals/files/in.csv", b"a,b\n").unwrap();
        write(cwd, "evals/files/changed.csv", b"new\n").unwrap();
        write(cwd, ".claude/skills/x/SKILL.md", b"skill").unwrap();
        write(cwd, ".claude/settings.json", b"{}").unwrap();
        write(cwd, "out/report.md", "# 東京 report 😀\n".as_bytes()).unwrap();
        write(cwd, "chart.png", &[0x89, 0x50, 0xff]).unwrap();
        write(cwd, "node_modules/x/index.js", b"dependency").unwrap();
        assert!(write(cwd, "../escape", b"x").is_err());
        let inputs = vec![
            ("evals/files/in.csv".to_owned(), b"a,b\n".to_vec()),
            ("evals/files/changed.csv".to_owned(), b"old\n".to_vec()),
        ];
        let (left, unread) = left_files(cwd, &inputs, ".claude/skills");
        let paths: Vec<&str> = left.iter().map(|(p, _, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            ["chart.png", "evals/files/changed.csv", "out/report.md"]
        );
        assert!(unread.is_empty());
        let text = with_files("Done.", &left, &unread);
        assert!(text.starts_with("Done.\n\nFiles the agent left"), "{text}");
        assert!(text.contains("chart.png: 3 bytes of binary data"), "{text}");
        assert!(text.contains("# 東京 report 😀"), "{text}");
        // Many files: the first are read (their start only), the others named.
        for i in 0..30 {
            let big = "é".repeat(LEFT_BYTES);
            write(cwd, &format!("many/f{i:02}.txt"), big.as_bytes()).unwrap();
        }
        let (left, unread) = left_files(cwd, &inputs, ".claude/skills");
        assert_eq!(left.len(), MAX_LEFT);
        assert!(left.iter().all(|(_, _, b)| b.len() <= LEFT_BYTES + 1));
        let text = with_files("a", &left, &unread);
        assert!(
            text.contains("(the rest of many/f00.txt is not shown)"),
            "{text}"
        );
        assert!(text.contains("more not shown: "), "{text}");
        assert!(text.len() < LEFT_TOTAL + 8 * 1024, "{}", text.len());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", cwd.join("etc-link")).unwrap();
            std::os::unix::fs::symlink("/etc/passwd", cwd.join("passwd")).unwrap();
            let (left, unread) = left_files(cwd, &inputs, ".claude/skills");
            assert!(left
                .iter()
                .map(|(p, _, _)| p)
                .chain(&unread)
                .all(|p| !p.starts_with("etc-link") && p != "passwd"));
        }
    }
}
