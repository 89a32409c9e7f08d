//! Agent transcripts (JSONL files each CLI writes) read into one provider-neutral
//! [`Conversation`], and rendered as bounded text for the review's prompt. Every reader is
//! tolerant of record types it does not know (CLIs add them often) and strict about form: a
//! line that is not a JSON object, or a transcript that ends in the middle of a line, is an
//! error naming the file and the line, and nothing is reviewed.

mod claude;
mod codex;
mod copilot;
mod gemini;
mod qwen;
mod render;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Agent;

pub use render::render;

/// The largest transcript read.
pub const MAX_TRANSCRIPT_BYTES: u64 = 64 << 20;
/// The most characters kept of one message or tool output while reading (rendering cuts
/// further).
const MAX_ENTRY_CHARS: usize = 64 << 10;

/// One thing that happened in a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// What the person typed.
    User(String),
    /// What the agent said.
    Assistant(String),
    /// A tool the agent called, with its input as compact JSON.
    ToolCall {
        id: String,
        name: String,
        input: String,
    },
    /// What a tool gave back.
    ToolResult {
        id: String,
        output: String,
        is_error: bool,
    },
}

/// A session, whatever agent wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    pub agent: Agent,
    pub session: Option<String>,
    pub cwd: Option<String>,
    pub model: Option<String>,
    pub entries: Vec<Entry>,
    /// Names of the skills the session loaded (read a SKILL.md, called the agent's skill
    /// tool, typed its slash command).
    pub skills: BTreeSet<String>,
    /// Skills a tool call would load, by the call's id, until its result says it worked.
    pending: Vec<(String, String)>,
}

impl Conversation {
    fn new(agent: Agent) -> Conversation {
        Conversation {
            agent,
            session: None,
            cwd: None,
            model: None,
            entries: Vec::new(),
            skills: BTreeSet::new(),
            pending: Vec::new(),
        }
    }

    pub fn tool_calls(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| matches!(e, Entry::ToolCall { .. }))
            .count()
    }

    pub fn user_turns(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| matches!(e, Entry::User(_)))
            .count()
    }

    fn push(&mut self, entry: Entry) {
        let entry = match entry {
            Entry::User(t) if t.trim().is_empty() => return,
            Entry::Assistant(t) if t.trim().is_empty() => return,
            Entry::User(t) => Entry::User(cap(t)),
            Entry::Assistant(t) => Entry::Assistant(cap(t)),
            Entry::ToolResult {
                id,
                output,
                is_error,
            } => {
                // A skill counts as loaded once the call that loads it worked.
                if let Some(at) = self.pending.iter().position(|(p, _)| *p == id) {
                    let (_, skill) = self.pending.remove(at);
                    if !is_error {
                        self.skills.insert(skill);
                    }
                }
                Entry::ToolResult {
                    id,
                    output: cap(output),
                    is_error,
                }
            }
            Entry::ToolCall { id, name, input } => {
                if let Ok(v) = serde_json::from_str::<Value>(&input) {
                    if let Some(skill) = skill_of_call(&name, &v) {
                        if id.is_empty() {
                            self.skills.insert(skill);
                        } else {
                            self.pending.push((id.clone(), skill));
                        }
                    }
                }
                Entry::ToolCall {
                    id,
                    name: crate::report::one_line(&name, 80),
                    input: cap(input),
                }
            }
        };
        self.entries.push(entry);
    }

    fn set_once(slot: &mut Option<String>, value: Option<&str>) {
        if slot.is_none() {
            if let Some(v) = value.filter(|v| !v.is_empty()) {
                *slot = Some(crate::report::one_line(v, 200));
            }
        }
    }
}

/// Why a transcript could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("cannot read the transcript '{}': {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the transcript '{}' has more than {} MiB; git-skill reads at most that", .path.display(), MAX_TRANSCRIPT_BYTES >> 20)]
    TooLarge { path: PathBuf },
    #[error("the transcript '{}' is empty", .path.display())]
    Empty { path: PathBuf },
    #[error("{}:{line}: {reason}", .path.display())]
    Line {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("the transcript '{}' ends in the middle of line {line} (cut off, or still being written)", .path.display())]
    Truncated { path: PathBuf, line: usize },
    #[error("'{}' is not a transcript of any agent git-skill reads (claude, qwen, codex, gemini, copilot)", .path.display())]
    Unknown { path: PathBuf },
    #[error("'{}' is not a {} transcript: {reason}", .path.display(), .agent.product())]
    NotThisAgent {
        path: PathBuf,
        agent: Agent,
        reason: String,
    },
}

/// Reads the transcript at `path`, as `agent` wrote it, or as detected from its records.
pub fn read(path: &Path, agent: Option<Agent>) -> Result<Conversation, TranscriptError> {
    use crate::fsutil::RegularFileError as E;
    let io = |source| TranscriptError::Io {
        path: path.to_owned(),
        source,
    };
    // Not through a link at the last step, and never blocking on a FIFO: a hook checked where
    // the transcript lies, and a swap since must not take the review elsewhere.
    let bytes = match crate::fsutil::read_regular(path, MAX_TRANSCRIPT_BYTES) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Err(io(std::io::ErrorKind::NotFound.into())),
        Err(E::TooLarge { .. }) => {
            return Err(TranscriptError::TooLarge {
                path: path.to_owned(),
            })
        }
        Err(E::Symlink) => {
            return Err(io(std::io::Error::other(
                "it is a symbolic link; give the file it points to",
            )))
        }
        Err(E::NotRegular(kind)) => {
            return Err(io(std::io::Error::other(format!(
                "it is not a regular file (a {kind})"
            ))))
        }
        Err(e @ E::HardLinked(_)) => {
            // A transcript is sent to a model: a hard link must not carry another file there.
            return Err(io(std::io::Error::other(format!("it {e}"))));
        }
        Err(E::Io(e)) => return Err(io(e)),
    };
    parse(path, &bytes, agent)
}

/// The records of `bytes` (JSON Lines), read as `agent`'s, or the detected agent's.
pub fn parse(
    path: &Path,
    bytes: &[u8],
    agent: Option<Agent>,
) -> Result<Conversation, TranscriptError> {
    let records = records(path, bytes)?;
    if records.is_empty() {
        return Err(TranscriptError::Empty {
            path: path.to_owned(),
        });
    }
    let agent = match agent {
        Some(a) => a,
        None => detect(&records).ok_or_else(|| TranscriptError::Unknown {
            path: path.to_owned(),
        })?,
    };
    let mut conversation = Conversation::new(agent);
    let recognised = match agent {
        Agent::Claude => claude::read(&records, &mut conversation),
        Agent::Qwen => qwen::read(&records, &mut conversation),
        Agent::Codex => codex::read(&records, &mut conversation),
        Agent::Gemini => gemini::read(&records, &mut conversation),
        Agent::Copilot => copilot::read(&records, &mut conversation),
    };
    if recognised == 0 {
        return Err(TranscriptError::NotThisAgent {
            path: path.to_owned(),
            agent,
            reason: "none of its records has that agent's form".into(),
        });
    }
    Ok(conversation)
}

/// One JSON object per non-empty line, with its line number.
fn records(path: &Path, bytes: &[u8]) -> Result<Vec<(usize, Value)>, TranscriptError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        TranscriptError::Line {
            path: path.to_owned(),
            line,
            reason: "not UTF-8 text".into(),
        }
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let ends_cleanly = text.is_empty() || text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.into_iter().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(v @ Value::Object(_)) => out.push((number, v)),
            Ok(_) => {
                return Err(TranscriptError::Line {
                    path: path.to_owned(),
                    line: number,
                    reason: "not a JSON object".into(),
                })
            }
            Err(e) if number == last && !ends_cleanly && e.is_eof() => {
                return Err(TranscriptError::Truncated {
                    path: path.to_owned(),
                    line: number,
                })
            }
            Err(e) => {
                return Err(TranscriptError::Line {
                    path: path.to_owned(),
                    line: number,
                    reason: format!("not JSON: {e}"),
                })
            }
        }
    }
    Ok(out)
}

/// Which agent wrote these records, from the first ones that say.
pub fn detect(records: &[(usize, Value)]) -> Option<Agent> {
    for (_, r) in records.iter().take(50) {
        let ty = r["type"].as_str().unwrap_or("");
        if ty == "session_meta" || (r.get("payload").is_some() && r.get("ordinal").is_some()) {
            return Some(Agent::Codex);
        }
        if r.get("projectHash").is_some() || r.get("$set").is_some() {
            return Some(Agent::Gemini);
        }
        if ty.starts_with("session.") || (ty.contains('.') && r.get("data").is_some()) {
            return Some(Agent::Copilot);
        }
        if ty == "queue-operation" || ty == "last-prompt" || ty == "attachment" {
            return Some(Agent::Claude);
        }
        if let Some(message) = r.get("message") {
            if message.get("parts").is_some() {
                return Some(Agent::Qwen);
            }
            if message.get("content").is_some() {
                return Some(Agent::Claude);
            }
        }
    }
    None
}

/// `text` cut to [`MAX_ENTRY_CHARS`] characters.
fn cap(text: String) -> String {
    if text.len() <= MAX_ENTRY_CHARS {
        return text;
    }
    let mut end = MAX_ENTRY_CHARS;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... {} more bytes]", &text[..end], text.len() - end)
}

/// The text of a value that is a string, or of a list of `{type: text, text}` blocks, or
/// else the value as JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => s.clone(),
                _ => i["text"].as_str().map(str::to_owned).unwrap_or_default(),
            })
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The skill a tool call loads: a skill tool's argument, or a `SKILL.md` path in any string
/// argument (a read, a `cat`).
fn skill_of_call(name: &str, input: &Value) -> Option<String> {
    let direct = match name {
        "Skill" | "skill" => input["skill"].as_str().or(input["command"].as_str()),
        "activate_skill" => input["name"].as_str(),
        _ => None,
    };
    if let Some(s) = direct {
        return valid_name(s.trim_start_matches('/'));
    }
    let mut found = None;
    if let Value::Object(map) = input {
        for v in map.values() {
            if let Some(s) = v.as_str() {
                if let Some(name) = skill_in_path(s) {
                    found = Some(name);
                    break;
                }
            }
        }
    }
    found
}

/// `deploy-notes` in `cat .claude/skills/deploy-notes/SKILL.md`.
fn skill_in_path(text: &str) -> Option<String> {
    let at = text.find("/SKILL.md")?;
    let before = &text[..at];
    let name = before
        .rsplit(['/', ' ', '\'', '"', '\t'])
        .next()
        .unwrap_or(before);
    valid_name(name)
}

/// A plausible skill name (what `git skill manage` would accept), or nothing.
fn valid_name(name: &str) -> Option<String> {
    crate::manage::rules::name(name)
        .ok()
        .map(|_| name.to_owned())
}

#[cfg(test)]
mod tests;
