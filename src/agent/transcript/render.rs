//! A conversation as the text the review reads, within a budget: the newest entries whole,
//! older tool output replaced by a line that says how much there was, and the oldest left
//! out with a note when even that does not fit. Credentials are masked throughout.

use super::{Conversation, Entry};

/// The share of the budget kept for entries in full, newest first.
const WHOLE_SHARE: f64 = 0.6;

/// `conversation` as text of at most about `budget` characters.
pub fn render(conversation: &Conversation, budget: usize) -> String {
    let full: Vec<String> = conversation
        .entries
        .iter()
        .map(|e| block(e, None))
        .collect();
    let total: usize = full.iter().map(|b| b.len() + 1).sum();
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0;
    let mut omitted = 0;
    if total <= budget {
        kept = full;
    } else {
        let whole = (budget as f64 * WHOLE_SHARE) as usize;
        for (i, entry) in conversation.entries.iter().enumerate().rev() {
            let text = if used + full[i].len() <= whole {
                full[i].clone()
            } else {
                block(entry, Some(2000))
            };
            if used + text.len() > budget {
                omitted = i + 1;
                break;
            }
            used += text.len() + 1;
            kept.push(text);
        }
        kept.reverse();
    }
    let mut out = String::new();
    if omitted > 0 {
        out.push_str(&format!(
            "[{omitted} earlier entries of the session are left out]\n"
        ));
    }
    out.push_str(&kept.join("\n"));
    crate::redact::redact(&out)
}

/// One entry as text; `short` cuts messages to that many characters and replaces tool
/// output by its size.
fn block(entry: &Entry, short: Option<usize>) -> String {
    let cut = |text: &str, max: usize| -> String {
        if text.chars().count() <= max {
            text.to_owned()
        } else {
            let head: String = text.chars().take(max).collect();
            format!("{head} [... cut]")
        }
    };
    match entry {
        Entry::User(t) => format!("[user]\n{}\n", short.map_or(t.clone(), |m| cut(t, m))),
        Entry::Assistant(t) => {
            format!("[agent]\n{}\n", short.map_or(t.clone(), |m| cut(t, m)))
        }
        Entry::ToolCall { name, input, .. } => {
            format!(
                "[tool call: {name}] {}",
                cut(input, short.map_or(2000, |_| 300))
            )
        }
        Entry::ToolResult {
            output, is_error, ..
        } => {
            let label = if *is_error {
                "tool error"
            } else {
                "tool result"
            };
            match short {
                None => format!("[{label}]\n{}\n", cut(output, 8000)),
                Some(_) => format!(
                    "[{label}: {} lines, {} characters, left out]",
                    output.lines().count(),
                    output.chars().count()
                ),
            }
        }
    }
}
