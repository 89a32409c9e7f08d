//! The time commands see: the system clock, or `GIT_SKILL_NOW` (RFC 3339) for reproducible
//! runs and tests, the way jj reads `JJ_TIMESTAMP`.

use chrono::{DateTime, Utc};

use super::CommandError;

pub fn now() -> Result<DateTime<Utc>, CommandError> {
    match std::env::var("GIT_SKILL_NOW") {
        Err(_) => Ok(Utc::now()),
        Ok(text) => DateTime::parse_from_rfc3339(&text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| {
                CommandError::new(format!(
                    "GIT_SKILL_NOW '{text}' is not an RFC 3339 time: {e}"
                ))
                .hint("unset it, or give a time like 2026-11-30T09:00:00Z")
            }),
    }
}
