//! Every read of the time, in one place, so that tests and reproducible runs can pin it.
//!
//! - [`now`] is the time things are stamped with and decided by (ids, commit and log stamps,
//!   a suppression's expiry, a session's age): the system clock, or `GIT_SKILL_NOW` (RFC 3339)
//!   the way jj reads `JJ_TIMESTAMP`. A malformed `GIT_SKILL_NOW` is an error at the edge
//!   ([`check`]), never a silent fall back to the system clock.
//! - [`monotonic`] measures waits and timeouts. It is never pinned: a pinned clock must not
//!   make a deadline pass or a model call never time out.
//! - [`system`] is the real wall clock, for comparing with times the outside world wrote (an
//!   HTTP `Retry-After` date), and [`entropy`] mixes it into ids and jitter that must differ.

use std::sync::OnceLock;
use std::time::{Instant, SystemTime};

use chrono::{DateTime, NaiveDate, Utc};

/// The variable that pins [`now`].
pub const PIN: &str = "GIT_SKILL_NOW";

#[derive(Debug, thiserror::Error)]
#[error("{PIN} '{text}' is not an RFC 3339 time: {reason}")]
pub struct ClockError {
    pub text: String,
    pub reason: String,
}

fn pinned() -> &'static Result<Option<DateTime<Utc>>, ClockError> {
    static PINNED: OnceLock<Result<Option<DateTime<Utc>>, ClockError>> = OnceLock::new();
    PINNED.get_or_init(|| match std::env::var(PIN) {
        Err(_) => Ok(None),
        Ok(text) => DateTime::parse_from_rfc3339(&text)
            .map(|t| Some(t.with_timezone(&Utc)))
            .map_err(|e| ClockError {
                reason: e.to_string(),
                text,
            }),
    })
}

/// Whether `GIT_SKILL_NOW`, when set, is a time; the binary asks before any command runs.
pub fn check() -> Result<(), &'static ClockError> {
    pinned().as_ref().map(|_| ())
}

/// The time: pinned by `GIT_SKILL_NOW`, else the system clock's.
pub fn now() -> DateTime<Utc> {
    match pinned() {
        Ok(Some(t)) => *t,
        // A malformed pin is refused by `check` before a command runs; a library caller that
        // skipped it gets the system clock.
        _ => Utc::now(),
    }
}

/// Today's date by [`now`].
pub fn today() -> NaiveDate {
    now().date_naive()
}

/// A point on the monotonic clock, for waits and timeouts.
pub fn monotonic() -> Instant {
    Instant::now()
}

/// The system's wall clock, unpinned: for comparing with times from outside.
pub fn system() -> SystemTime {
    SystemTime::now()
}

/// Nanoseconds of the system clock, for ids and jitter that must differ between runs.
pub fn entropy() -> u128 {
    system()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}
