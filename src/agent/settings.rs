//! The hook entries `git skill init` writes into each agent's settings, and takes out again
//! with `--uninstall`: merged into what is there (other keys and other hooks kept; JSON parsed
//! and written again, Codex's TOML edited in place with its comments), recognised by the
//! command they run, so that a second run changes nothing. Planning is pure: [`plan`] returns
//! each file's text before and after, which `--dry-run` shows as a diff and [`write`] writes
//! (with a backup of the file beside it).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::Agent;

/// What marks a hook entry as git-skill's.
/// What every hook command git-skill installs holds, whatever it runs the binary as (the
/// commands of earlier versions said `git-skill hook agent --agent`).
pub const MARKER: &str = "hook agent --agent";

/// The comment beside the Codex feature git-skill turned on.
const TOML_NOTE: &str = " # git-skill init: Codex runs hooks only with this";

/// Where settings go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The repository's own settings (committed, shared with the team).
    Project,
    /// The user's settings, for every repository.
    User,
}

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    pub path: PathBuf,
    pub before: Option<String>,
    /// `None`: the file is removed (it held only git-skill's entries).
    pub after: Option<String>,
}

impl FileEdit {
    pub fn changes(&self) -> bool {
        self.before != self.after
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    // The I/O error is part of the message, not a cause of its own: init's error says it once.
    #[error("cannot read '{}': {error}", .path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("'{}' is not valid {kind} ({reason}); git-skill does not rewrite a file it cannot read, fix it first", .path.display())]
    Invalid {
        path: PathBuf,
        kind: &'static str,
        reason: String,
    },
    #[error("'{}' leads out of the repository (to '{}'); init writes the project's settings only inside it", .path.display(), .target.display())]
    OutsideRepository { path: PathBuf, target: PathBuf },
    #[error("'{}' is a link to nothing", .path.display())]
    DanglingLink { path: PathBuf },
    #[error("cannot write '{}': {error}", .path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// Where things are: the repository's top, HOME, and the agents' own variables.
#[derive(Debug, Clone)]
pub struct Places {
    pub top: PathBuf,
    /// The git-skill binary the hooks run, by its absolute path.
    pub bin: PathBuf,
    pub home: Option<PathBuf>,
    pub codex_home: Option<PathBuf>,
    pub copilot_home: Option<PathBuf>,
}

impl Places {
    fn base(&self, scope: Scope, project: &str, user: &str) -> Option<PathBuf> {
        match scope {
            Scope::Project => Some(self.top.join(project)),
            Scope::User => self.home.as_ref().map(|h| h.join(user)),
        }
    }

    fn codex(&self, scope: Scope) -> Option<PathBuf> {
        match scope {
            Scope::Project => Some(self.top.join(".codex")),
            Scope::User => self
                .codex_home
                .clone()
                .or_else(|| self.home.as_ref().map(|h| h.join(".codex"))),
        }
    }

    fn copilot(&self, scope: Scope) -> Option<PathBuf> {
        match scope {
            Scope::Project => Some(self.top.join(".github")),
            Scope::User => self
                .copilot_home
                .clone()
                .or_else(|| self.home.as_ref().map(|h| h.join(".copilot"))),
        }
    }
}

/// The command an agent's hook runs (the event name appended for Copilot, whose payloads do
/// not carry it): the binary at `bin`, the absolute path `init` ran from, so that a `PATH` the
/// agent's settings set cannot put another `git-skill` first; else the one on `PATH` (a
/// teammate's install elsewhere). When there is none, the hook fails closed: before a tool call
/// that is not one of the agents' read-only tools, it refuses with what to do; anything else
/// goes on. POSIX `sh`, `grep -E` and `printf` only.
pub fn command(agent: Agent, event: Option<&str>, bin: &Path) -> String {
    let run = match event {
        Some(e) => format!("\"$g\" hook agent --agent {} {e}", agent.as_str()),
        None => format!("\"$g\" hook agent --agent {}", agent.as_str()),
    };
    let bin_word = sh_quote(&bin.to_string_lossy());
    if agent == Agent::Copilot && event != Some("preToolUse") {
        // Its other events refuse nothing.
        return format!(
            "g={bin_word}; [ -x \"$g\" ] || g=$(command -v git-skill) || exit 0; exec {run}"
        );
    }
    let why = format!(
        "git-skill is not installed (not at {} nor on PATH), so its guard cannot check this call: only reading tools run. Install git-skill, or remove its hooks from the agent's settings (git skill init --uninstall).",
        bin.display()
    );
    let refuse = match agent {
        Agent::Copilot => format!(
            "printf '%s\\n' {}; exit 0",
            sh_quote(
                &serde_json::json!({"permissionDecision": "deny", "permissionDecisionReason": why})
                    .to_string()
            )
        ),
        _ => format!("printf '%s\\n' {} >&2; exit 2", sh_quote(&why)),
    };
    // Copilot's command is its pre-tool event's alone; the others' serve every event, and
    // only a pre-tool one is refused.
    let pre_only = match agent {
        Agent::Copilot => String::new(),
        _ => "printf '%s' \"$p\" | grep -Eq '\"hook_event_name\" *: *\"(PreToolUse|BeforeTool)\"' || exit 0; ".to_owned(),
    };
    let readers = "Read|Grep|Glob|LS|read_file|read_many_files|list_directory|glob|grep|search_file_content|view|WebSearch|WebFetch|TodoWrite";
    format!(
        "g={bin_word}; [ -x \"$g\" ] || g=$(command -v git-skill) || {{ p=$(cat); {pre_only}printf '%s' \"$p\" | grep -Eq '\"(tool_name|toolName)\" *: *\"({readers})\"' && exit 0; {refuse}; }}; exec {run}"
    )
}

/// `text` as one word of `sh`: in single quotes, each quote in it closed, escaped and opened.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The edits that install (or, with `uninstall`, remove) `agent`'s hooks.
pub fn plan(
    agent: Agent,
    scope: Scope,
    places: &Places,
    uninstall: bool,
) -> Result<Vec<FileEdit>, SettingsError> {
    let missing_home = || SettingsError::Read {
        path: PathBuf::from("~"),
        error: std::io::Error::other("HOME is not set"),
    };
    let hooks = agent.hooks();
    match agent {
        Agent::Claude | Agent::Qwen | Agent::Gemini => {
            let path = places
                .base(scope, hooks.project_dir, hooks.user_dir)
                .ok_or_else(missing_home)?
                .join(hooks.file);
            json_edit(&path, uninstall, |v, uninstall| {
                edit_hooks(v, agent, hooks.events, uninstall, &places.bin)
            })
        }
        Agent::Codex => {
            let dir = places.codex(scope).ok_or_else(missing_home)?;
            let mut edits = json_edit(&dir.join(hooks.file), uninstall, |v, uninstall| {
                edit_hooks(v, agent, hooks.events, uninstall, &places.bin)
            })?;
            edits.extend(toml_features(&dir.join("config.toml"), uninstall)?);
            Ok(edits)
        }
        Agent::Copilot => {
            let path = places
                .copilot(scope)
                .ok_or_else(missing_home)?
                .join(hooks.file);
            let before = read(&path)?;
            let after = if uninstall {
                None
            } else {
                let entry = |event: &str| json!([{"type": "command", "bash": command(Agent::Copilot, Some(event), &places.bin), "timeoutSec": 30}]);
                let events: serde_json::Map<String, Value> = hooks
                    .events
                    .iter()
                    .map(|(event, _)| ((*event).to_owned(), entry(event)))
                    .collect();
                let v = json!({ "version": 1, "hooks": events });
                Some(pretty(&v, None))
            };
            // A file of the same name that is not ours is left alone.
            if let Some(text) = &before {
                if !text.contains(MARKER) {
                    return Ok(vec![FileEdit {
                        path,
                        before: before.clone(),
                        after: before,
                    }]);
                }
            }
            Ok(vec![FileEdit {
                path,
                before,
                after,
            }])
        }
    }
}

fn read(path: &Path) -> Result<Option<String>, SettingsError> {
    let text = crate::fsutil::read_following(path).and_then(|b| {
        String::from_utf8(b)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8"))
    });
    match text {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(SettingsError::Read {
            path: path.to_owned(),
            error,
        }),
    }
}

/// `v` as pretty JSON indented like `like` (its first indented line: spaces or a tab), two
/// spaces for a new file; keys stay in the file's order.
fn pretty(v: &Value, like: Option<&str>) -> String {
    let indent: String = like
        .and_then(|t| {
            t.lines()
                .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
                .find(|i| !i.is_empty())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "  ".to_owned());
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    serde::Serialize::serialize(v, &mut ser).expect("JSON values serialise");
    let mut s = String::from_utf8(out).expect("JSON is UTF-8");
    s.push('\n');
    s
}

/// The path of `path`'s backup: named for git-skill, so that a `.bak` of the person's own is
/// never taken for it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut backup = path.as_os_str().to_owned();
    backup.push(".git-skill.bak");
    PathBuf::from(backup)
}

/// Whether git-skill has written to this text already (its hook command, or the note on
/// Codex's feature): such a file was backed up the first time, not again.
fn already_ours(text: &str) -> bool {
    text.contains(MARKER) || text.contains(TOML_NOTE)
}

/// An uninstall of a file that is still exactly what init made of its backup (`made_from`)
/// puts the backup's very text back and takes the backup away: the file is as it was before
/// init, byte for byte. Otherwise only git-skill's entries go, and a person's file (one with a
/// backup) is never removed: left with nothing, it becomes `empty`.
fn restore_backup(
    mut edit: FileEdit,
    empty: &str,
    made_from: impl FnOnce(&str) -> bool,
) -> Result<Vec<FileEdit>, SettingsError> {
    // A linked file's backup lies beside the file it points at (see `resolve_links`).
    let linked = crate::fsutil::is_link(&edit.path);
    let real = match linked {
        true => edit
            .path
            .canonicalize()
            .unwrap_or_else(|_| edit.path.clone()),
        false => edit.path.clone(),
    };
    let backup = backup_path(&real);
    let Some(saved) = read(&backup)? else {
        return Ok(vec![edit]);
    };
    if made_from(&saved) {
        edit.after = Some(saved.clone());
        return Ok(vec![
            edit,
            FileEdit {
                path: backup,
                before: Some(saved),
                after: None,
            },
        ]);
    }
    if edit.after.is_none() && edit.changes() {
        edit.after = Some(empty.to_owned());
    }
    Ok(vec![edit])
}

/// JSON text as a value, comments refused with what to do (serde_json reads none, and a file
/// written again would lose them).
fn parse_json(path: &Path, text: &str) -> Result<Value, SettingsError> {
    let invalid = |reason: String| SettingsError::Invalid {
        path: path.to_owned(),
        kind: "JSON",
        reason,
    };
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        if has_comments(text) {
            invalid(format!(
                "it has comments, which git-skill would lose; take them out, or add the hooks by hand (`git skill init --dry-run` shows them): {e}"
            ))
        } else {
            invalid(e.to_string())
        }
    })?;
    if !v.is_object() {
        return Err(invalid("not an object".into()));
    }
    Ok(v)
}

/// Whether JSON text holds a `//` or `/*` comment outside its strings.
fn has_comments(text: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    let mut prev = '\0';
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if prev == '/' && (c == '/' || c == '*') {
            return true;
        }
        prev = if in_string { '\0' } else { c };
    }
    false
}

/// A JSON settings file changed by `f` (an absent file is `{}`); an empty object left behind
/// by an uninstall removes a file git-skill created.
fn json_edit(
    path: &Path,
    uninstall: bool,
    f: impl Fn(&mut Value, bool) -> Result<(), String>,
) -> Result<Vec<FileEdit>, SettingsError> {
    let invalid = |reason: String| SettingsError::Invalid {
        path: path.to_owned(),
        kind: "JSON",
        reason,
    };
    let before = read(path)?;
    let mut v = parse_json(path, before.as_deref().unwrap_or(""))?;
    let original = v.clone();
    f(&mut v, uninstall).map_err(invalid)?;
    let after = if v == original {
        before.clone()
    } else if uninstall && v.as_object().is_some_and(|m| m.is_empty()) {
        None
    } else {
        Some(pretty(&v, before.as_deref()))
    };
    let edit = FileEdit {
        path: path.to_owned(),
        before,
        after,
    };
    edit_done(edit, uninstall, "{}\n", |saved| {
        parse_json(path, saved)
            .is_ok_and(|mut made| f(&mut made, false).is_ok() && made == original)
    })
}

/// An install's edit as it is; an uninstall's through [`restore_backup`].
fn edit_done(
    edit: FileEdit,
    uninstall: bool,
    empty: &str,
    made_from: impl FnOnce(&str) -> bool,
) -> Result<Vec<FileEdit>, SettingsError> {
    match uninstall {
        true => restore_backup(edit, empty, made_from),
        false => Ok(vec![edit]),
    }
}

/// Adds (or removes) git-skill's entry for each event in the Claude-style shape
/// `hooks.<Event>: [{matcher?, hooks: [{type: command, command}]}]`. A `hooks` of another
/// shape is the person's: refused, never replaced.
fn edit_hooks(
    v: &mut Value,
    agent: Agent,
    events: &[(&str, Option<&str>)],
    uninstall: bool,
    bin: &Path,
) -> Result<(), String> {
    let ours = |h: &Value| {
        h.get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains(MARKER))
    };
    let top = v.as_object_mut().ok_or("not an object")?;
    if uninstall && !top.contains_key("hooks") {
        return Ok(());
    }
    let map = top
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or("`hooks` is not an object")?;
    let mut removed = false;
    for (event, matcher) in events {
        if uninstall && !map.contains_key(*event) {
            continue;
        }
        let groups = map
            .entry(*event)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .ok_or_else(|| format!("`hooks.{event}` is not a list"))?;
        let inner = |g: &Value| g.get("hooks").and_then(Value::as_array).cloned();
        if uninstall {
            let before = groups.len();
            // Only a group git-skill emptied goes; the person's empty groups stay.
            groups.retain_mut(|g| {
                let Some(list) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let had = list.len();
                list.retain(|h| !ours(h));
                removed |= list.len() < had;
                !(list.is_empty() && had > 0)
            });
            if groups.is_empty() && before > 0 {
                map.remove(*event);
            }
        } else if groups
            .iter()
            .any(|g| inner(g).is_some_and(|h| h.iter().any(ours)))
        {
            // Installed by an earlier git-skill: its command brought up to date.
            let current = command(agent, None, bin);
            for g in groups.iter_mut() {
                let Some(list) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                    continue;
                };
                for h in list.iter_mut().filter(|h| ours(h)) {
                    if h["command"] != current.as_str() {
                        h["command"] = json!(current);
                    }
                }
            }
        } else {
            let mut hook = json!({"type": "command", "command": command(agent, None, bin)});
            match agent {
                Agent::Gemini => {
                    hook["name"] = json!("git-skill");
                    hook["timeout"] = json!(30000);
                }
                Agent::Codex => hook["timeout"] = json!(30),
                _ => {}
            }
            groups.push(match matcher {
                Some(m) => json!({"matcher": m, "hooks": [hook]}),
                None => json!({"hooks": [hook]}),
            });
        }
    }
    if removed && map.is_empty() {
        top.remove("hooks");
    }
    Ok(())
}

/// Codex's `[features] hooks = true`, set in `config.toml` with the rest of the file as it was
/// (an uninstall takes out only a value git-skill set: one marked by its comment).
fn toml_features(path: &Path, uninstall: bool) -> Result<Vec<FileEdit>, SettingsError> {
    let invalid = |reason: String| SettingsError::Invalid {
        path: path.to_owned(),
        kind: "TOML",
        reason,
    };
    let parse = |text: &str| {
        text.parse::<toml_edit::DocumentMut>()
            .map_err(|e| e.to_string().lines().next().unwrap_or("").to_owned())
    };
    let before = read(path)?;
    let mut doc = parse(before.as_deref().unwrap_or("")).map_err(invalid)?;
    let text_before = doc.to_string();
    toml_apply(&mut doc, uninstall).map_err(invalid)?;
    let text = doc.to_string();
    let after = if text == text_before {
        before.clone()
    } else if text.trim().is_empty() {
        None
    } else {
        Some(text)
    };
    let edit = FileEdit {
        path: path.to_owned(),
        before,
        after,
    };
    edit_done(edit, uninstall, "", |saved| {
        parse(saved).is_ok_and(|mut made| {
            toml_apply(&mut made, false).is_ok() && made.to_string() == text_before
        })
    })
}

/// Sets (or takes out) `[features] hooks = true`.
fn toml_apply(doc: &mut toml_edit::DocumentMut, uninstall: bool) -> Result<(), String> {
    if uninstall {
        if let Some(features) = doc.get_mut("features").and_then(|f| f.as_table_like_mut()) {
            let ours = features
                .get("hooks")
                .and_then(|i| i.as_value())
                .is_some_and(|v| {
                    v.decor()
                        .suffix()
                        .and_then(|s| s.as_str())
                        .is_some_and(|s| s.contains("git-skill init"))
                });
            if ours {
                features.remove("hooks");
                if features.is_empty() {
                    doc.remove("features");
                }
            }
        }
        return Ok(());
    }
    // A comment cannot follow a value inside `{ ... }`: an inline table gets the bare value
    // (an uninstall then puts the backup back when nothing else changed).
    let inline = doc.get("features").is_some_and(|f| f.is_inline_table());
    let features = doc
        .entry("features")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .ok_or("`features` is not a table")?;
    let on = features
        .get("hooks")
        .and_then(|i| i.as_value())
        .and_then(|v| v.as_bool())
        == Some(true);
    if !on {
        let mut value = toml_edit::Value::from(true);
        if !inline {
            value.decor_mut().set_suffix(TOML_NOTE);
        }
        features.insert("hooks", toml_edit::Item::Value(value));
    }
    Ok(())
}

/// The permission bits of an existing file (settings may hold credentials: 0600 stays 0600).
fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Creates `path`, which must not exist in any form (not even as a dangling link).
fn write_new(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode.unwrap_or(0o600));
        options.custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Settings reached through links. A file that is a link is edited where it points (a user's
/// settings kept in a dotfiles repository stay linked; a rename would replace the link), and a
/// linked file is emptied rather than removed. In the project scope nothing may lead out of
/// the repository: the nearest existing ancestor of each path, links resolved, must lie in it.
pub fn resolve_links(
    edits: Vec<FileEdit>,
    scope: Scope,
    top: &Path,
) -> Result<Vec<FileEdit>, SettingsError> {
    let read_err = |path: &Path, error| SettingsError::Read {
        path: path.to_owned(),
        error,
    };
    let top = top.canonicalize().map_err(|e| read_err(top, e))?;
    let mut out = Vec::with_capacity(edits.len());
    for mut e in edits {
        let linked = crate::fsutil::is_link(&e.path);
        if linked {
            let target = e
                .path
                .canonicalize()
                .map_err(|_| SettingsError::DanglingLink {
                    path: e.path.clone(),
                })?;
            if e.after.is_none() && e.changes() {
                e.after = Some(if target.extension().is_some_and(|x| x == "json") {
                    "{}\n".to_owned()
                } else {
                    String::new()
                });
            }
            e.path = target;
        }
        if scope == Scope::Project {
            let real = crate::fsutil::resolved(&e.path);
            if !real.starts_with(&top) {
                return Err(SettingsError::OutsideRepository {
                    path: e.path.clone(),
                    target: real,
                });
            }
        }
        out.push(e);
    }
    Ok(out)
}

/// Writes each changed file atomically, keeping the person's content as `<file>.git-skill.bak`
/// beside it the first time git-skill changes it (a backup is never overwritten by a later run).
pub fn write(edits: &[FileEdit]) -> Result<(), SettingsError> {
    // Before anything is written: a backup's place taken by something that is not a file
    // (a link planted there would take the copy anywhere).
    for e in edits.iter().filter(|e| e.changes() && e.after.is_some()) {
        let backup = backup_path(&e.path);
        if std::fs::symlink_metadata(&backup).is_ok_and(|m| !m.is_file()) {
            return Err(SettingsError::Write {
                path: backup,
                error: std::io::Error::other(
                    "it is in the way of the backup, and not a file git-skill wrote; move it",
                ),
            });
        }
    }
    for e in edits.iter().filter(|e| e.changes()) {
        let err = |error| SettingsError::Write {
            path: e.path.clone(),
            error,
        };
        // The person's file as it was before git-skill first wrote to it; never the file
        // git-skill created, never overwritten, never through a link (a link planted there
        // would take the copy anywhere), with the file's own permissions.
        if let (Some(before), Some(_)) = (&e.before, &e.after) {
            let backup = backup_path(&e.path);
            if std::fs::symlink_metadata(&backup).is_err() && !already_ours(before) {
                write_new(&backup, before.as_bytes(), mode_of(&e.path)).map_err(|error| {
                    SettingsError::Write {
                        path: backup.clone(),
                        error,
                    }
                })?;
            }
        }
        match &e.after {
            Some(text) => {
                if let Some(dir) = e.path.parent() {
                    std::fs::create_dir_all(dir).map_err(err)?;
                }
                match mode_of(&e.path) {
                    Some(mode) => {
                        crate::fsutil::write_atomic_with_mode(&e.path, text.as_bytes(), mode)
                    }
                    None => crate::fsutil::write_atomic(&e.path, text.as_bytes()),
                }
                .map_err(err)?;
            }
            None => match std::fs::remove_file(&e.path) {
                Ok(()) => {}
                Err(x) if x.kind() == std::io::ErrorKind::NotFound => {}
                Err(x) => return Err(err(x)),
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(dir: &Path) -> Places {
        Places {
            top: dir.join("repo"),
            bin: PathBuf::from("/opt/git-skill/bin/git-skill"),
            home: Some(dir.join("home")),
            codex_home: None,
            copilot_home: None,
        }
    }

    fn install(agent: Agent, p: &Places, scope: Scope) -> Vec<FileEdit> {
        let edits = plan(agent, scope, p, false).unwrap();
        write(&edits).unwrap();
        edits
    }

    #[test]
    fn hooks_merge_into_existing_settings_and_a_second_run_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path());
        let settings = p.top.join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        let theirs = r#"{"model": "opus", "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}, "permissions": {"allow": ["Read"]}}"#;
        std::fs::write(&settings, theirs).unwrap();
        install(Agent::Claude, &p, Scope::Project);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        assert_eq!(v["model"], "opus");
        assert_eq!(v["permissions"]["allow"][0], "Read");
        let post = v["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(post.len(), 2, "theirs kept, ours added");
        assert_eq!(post[1]["matcher"], "*");
        assert_eq!(
            post[1]["hooks"][0]["command"],
            command(
                Agent::Claude,
                None,
                Path::new("/opt/git-skill/bin/git-skill")
            )
        );
        assert!(v["hooks"]["SessionEnd"].is_array());
        assert_eq!(
            std::fs::read_to_string(backup_path(&settings)).unwrap(),
            theirs
        );
        // Idempotent.
        let again = plan(Agent::Claude, Scope::Project, &p, false).unwrap();
        assert!(again.iter().all(|e| !e.changes()));
        // Uninstall takes out only ours.
        write(&plan(Agent::Claude, Scope::Project, &p, true).unwrap()).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        assert_eq!(v["hooks"]["PostToolUse"].as_array().unwrap().len(), 1);
        assert!(v["hooks"].get("SessionEnd").is_none());
        assert_eq!(v["model"], "opus");
    }

    #[test]
    fn each_agent_gets_its_own_shape() {
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path());
        for agent in Agent::ALL {
            install(agent, &p, Scope::User);
        }
        let home = p.home.clone().unwrap();
        let read = |rel: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(home.join(rel)).unwrap()).unwrap()
        };
        assert!(read(".qwen/settings.json")["hooks"]["Stop"].is_array());
        let gemini = read(".gemini/settings.json");
        assert_eq!(gemini["hooks"]["AfterTool"][0]["matcher"], ".*");
        assert_eq!(
            gemini["hooks"]["AfterTool"][0]["hooks"][0]["timeout"],
            30000
        );
        assert_eq!(
            read(".codex/hooks.json")["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"],
            30
        );
        let toml = std::fs::read_to_string(home.join(".codex/config.toml")).unwrap();
        assert!(
            toml.contains("[features]") && toml.contains("hooks = true"),
            "{toml}"
        );
        let copilot = read(".copilot/hooks/git-skill.json");
        assert_eq!(copilot["version"], 1);
        assert_eq!(
            copilot["hooks"]["sessionEnd"][0]["bash"],
            command(
                Agent::Copilot,
                Some("sessionEnd"),
                Path::new("/opt/git-skill/bin/git-skill")
            )
        );
        // Uninstall removes the files git-skill created whole.
        for agent in Agent::ALL {
            write(&plan(agent, Scope::User, &p, true).unwrap()).unwrap();
        }
        assert!(!home.join(".copilot/hooks/git-skill.json").exists());
        assert!(!home.join(".claude/settings.json").exists());
        assert!(!home.join(".codex/config.toml").exists());
    }

    #[test]
    fn codex_toml_keeps_comments_and_a_broken_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path());
        let config = p.top.join(".codex/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let theirs =
            "# my model\nmodel = \"gpt-5-codex\" # the best\n\n[features]\nweb_search = true\n";
        std::fs::write(&config, theirs).unwrap();
        install(Agent::Codex, &p, Scope::Project);
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(
            text.starts_with("# my model\nmodel = \"gpt-5-codex\" # the best\n"),
            "{text}"
        );
        assert!(
            text.contains("web_search = true") && text.contains("hooks = true"),
            "{text}"
        );
        write(&plan(Agent::Codex, Scope::Project, &p, true).unwrap()).unwrap();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), theirs);
        // hooks = true set by the person stays on uninstall.
        std::fs::write(&config, "[features]\nhooks = true\n").unwrap();
        write(&plan(Agent::Codex, Scope::Project, &p, true).unwrap()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            "[features]\nhooks = true\n"
        );
        std::fs::write(&config, "model = [unclosed").unwrap();
        let e = plan(Agent::Codex, Scope::Project, &p, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not valid TOML"), "{e}");
        std::fs::write(p.top.join(".codex/hooks.json"), "{ not json").unwrap();
        std::fs::write(&config, "").unwrap();
        let e = plan(Agent::Codex, Scope::Project, &p, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not valid JSON"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn links_are_edited_where_they_point_and_the_project_may_not_lead_out() {
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path());
        std::fs::create_dir_all(&p.top).unwrap();
        let shared = p.top.join("shared.json");
        std::fs::write(&shared, "{\"a\": 1}\n").unwrap();
        std::fs::create_dir_all(p.top.join(".claude")).unwrap();
        std::os::unix::fs::symlink(&shared, p.top.join(".claude/settings.json")).unwrap();
        let edits = plan(Agent::Claude, Scope::Project, &p, false).unwrap();
        let edits = resolve_links(edits, Scope::Project, &p.top).unwrap();
        assert_eq!(edits[0].path, shared.canonicalize().unwrap());
        write(&edits).unwrap();
        assert!(
            std::fs::symlink_metadata(p.top.join(".claude/settings.json"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // Uninstall puts the backup's text back (found beside the file the link names); a
        // linked file left with nothing is emptied, not removed (nor is what it points at).
        let edits = plan(Agent::Claude, Scope::Project, &p, true).unwrap();
        assert_eq!(edits[0].after.as_deref(), Some("{\"a\": 1}\n"));
        assert_eq!(edits[1].path, backup_path(&shared.canonicalize().unwrap()));
        std::fs::write(&shared, "{}\n").unwrap();
        let plan_linked = |uninstall| {
            let edits = plan(Agent::Claude, Scope::Project, &p, uninstall).unwrap();
            resolve_links(edits, Scope::Project, &p.top).unwrap()
        };
        write(&plan_linked(false)).unwrap();
        let edits = plan_linked(true);
        assert_eq!(edits[0].after.as_deref(), Some("{}\n"));
        write(&edits).unwrap();
        assert_eq!(std::fs::read_to_string(&shared).unwrap(), "{}\n");
        assert!(p.top.join(".claude/settings.json").is_file());
        // A link to nothing, and a directory leading out of the project.
        std::fs::remove_file(&shared).unwrap();
        let edits = vec![FileEdit {
            path: p.top.join(".claude/settings.json"),
            before: None,
            after: Some("{}".into()),
        }];
        let e = resolve_links(edits, Scope::Project, &p.top).unwrap_err();
        assert!(matches!(e, SettingsError::DanglingLink { .. }), "{e}");
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), p.top.join(".qwen")).unwrap();
        let edits = plan(Agent::Qwen, Scope::Project, &p, false).unwrap();
        let e = resolve_links(edits.clone(), Scope::Project, &p.top).unwrap_err();
        assert!(e.to_string().contains("leads out of the repository"), "{e}");
        // The user's own scope may live anywhere.
        assert!(resolve_links(edits, Scope::User, &p.top).is_ok());
    }

    #[test]
    fn an_inline_features_table_stays_valid_toml() {
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path());
        let config = p.top.join(".codex/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let theirs = "features = { web_search = true }\n";
        std::fs::write(&config, theirs).unwrap();
        install(Agent::Codex, &p, Scope::Project);
        let text = std::fs::read_to_string(&config).unwrap();
        let doc: toml_edit::DocumentMut = text.parse().expect("valid TOML");
        assert_eq!(doc["features"]["hooks"].as_bool(), Some(true), "{text}");
        assert_eq!(
            doc["features"]["web_search"].as_bool(),
            Some(true),
            "{text}"
        );
        // Uninstall: the file as it was, no backup left.
        write(&plan(Agent::Codex, Scope::Project, &p, true).unwrap()).unwrap();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), theirs);
        assert!(!backup_path(&config).exists());
    }

    #[cfg(unix)]
    #[test]
    fn backups_and_files_keep_their_permissions_and_never_follow_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path());
        let settings = p.top.join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, "{\"env\": {\"TOKEN\": \"x\"}}\n").unwrap();
        std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o600)).unwrap();
        install(Agent::Claude, &p, Scope::Project);
        let mode = |f: &Path| std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&settings), 0o600);
        assert_eq!(mode(&backup_path(&settings)), 0o600);

        // A link planted where the backup goes: refused before anything is written.
        let other = p.top.join(".qwen/settings.json");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, "{}\n").unwrap();
        let target = dir.path().join("outside.sh");
        std::os::unix::fs::symlink(&target, backup_path(&other)).unwrap();
        let e = write(&plan(Agent::Qwen, Scope::Project, &p, false).unwrap()).unwrap_err();
        assert!(e.to_string().contains("in the way of the backup"), "{e}");
        assert!(!target.exists());
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "{}\n");
    }

    #[test]
    fn uninstall_gives_back_the_persons_file_whatever_it_held() {
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path());
        for (agent, file, theirs) in [
            (Agent::Claude, ".claude/settings.json", "{}"),
            (Agent::Gemini, ".gemini/settings.json", "{\"hooks\": {}}"),
            (
                Agent::Qwen,
                ".qwen/settings.json",
                "{\"hooks\": {\"Stop\": []}}\n",
            ),
        ] {
            let path = p.top.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, theirs).unwrap();
            install(agent, &p, Scope::Project);
            assert_ne!(std::fs::read_to_string(&path).unwrap(), theirs);
            write(&plan(agent, Scope::Project, &p, true).unwrap()).unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs, "{file}");
            assert!(!backup_path(&path).exists(), "{file}");
        }
        // The person emptied the file since: it stays, as an empty object.
        let path = p.top.join(".claude/settings.json");
        std::fs::write(&path, "{\"model\": \"x\"}").unwrap();
        install(Agent::Claude, &p, Scope::Project);
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("model");
        std::fs::write(&path, v.to_string()).unwrap();
        write(&plan(Agent::Claude, Scope::Project, &p, true).unwrap()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
    }

    #[test]
    fn comments_are_refused_with_what_to_do_and_old_commands_are_brought_up_to_date() {
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path());
        let path = p.top.join(".gemini/settings.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{\n  // my theme\n  \"theme\": \"dark\"\n}\n").unwrap();
        let e = plan(Agent::Gemini, Scope::Project, &p, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("it has comments"), "{e}");
        assert!(!has_comments(
            "{\"url\": \"http://x/*y\", \"s\": \"a\\\"//\"}"
        ));
        assert!(has_comments("{} /* c */"));

        let path = p.top.join(".claude/settings.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let old = json!({"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "git-skill hook agent --agent claude"}]}]}});
        std::fs::write(&path, old.to_string()).unwrap();
        install(Agent::Claude, &p, Scope::Project);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let post = v["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(post.len(), 1);
        assert_eq!(
            post[0]["hooks"][0]["command"],
            command(
                Agent::Claude,
                None,
                Path::new("/opt/git-skill/bin/git-skill")
            )
        );
    }
}
