//! `hook.log`: one JSON line per decision of the agent hooks (counted, scheduled, refused,
//! quarantined), beside the sessions' state; it rolls over at 1 MiB.

use std::io::Write as _;
use std::path::Path;

use crate::agent::event::Event;

/// `hook.log` past this size becomes `hook.log.1` (the one before is dropped).
const LOG_MAX: u64 = 1 << 20;

/// One line of `hook.log`; a failure to write it is not the agent's problem.
pub(crate) fn append(
    path: &Path,
    at: &str,
    event: &Event,
    decision: &str,
    reason: &str,
    detail: &str,
) {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        at: &'a str,
        agent: &'a str,
        session: &'a str,
        event: &'a str,
        decision: &'a str,
        reason: &'a str,
        detail: &'a str,
    }
    let line = Line {
        at,
        agent: event.agent.as_str(),
        session: &event.session,
        event: &event.name,
        decision,
        reason,
        detail,
    };
    let Ok(line) = serde_json::to_string(&line) else {
        return;
    };
    if std::fs::metadata(path).is_ok_and(|m| m.len() > LOG_MAX) {
        let mut old = path.as_os_str().to_owned();
        old.push(".1");
        let _ = std::fs::rename(path, old);
    }
    if let Ok(mut f) = crate::fsutil::open_append(path) {
        let _ = writeln!(f, "{line}");
    }
}
