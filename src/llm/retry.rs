//! When to try a request again and how long to wait: exponential backoff with jitter, never
//! shorter than what the server asks for (`retry-after-ms`, `retry-after` in seconds or as an
//! HTTP date).

use std::time::{Duration, SystemTime};

/// The retry policy of one provider.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    /// Retries after the first attempt.
    pub retries: u32,
    /// The first backoff; it doubles with each retry.
    pub base: Duration,
    /// No backoff is longer, and a server asking for more is not waited for.
    pub max_wait: Duration,
}

impl Default for Retry {
    fn default() -> Retry {
        Retry {
            retries: 3,
            base: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
        }
    }
}

impl Retry {
    /// The wait before retry number `retry` (0 for the first), at least `server` when the
    /// server said; jitter draws from the upper half of the backoff so that clients started
    /// together spread out.
    pub fn wait(&self, retry: u32, server: Option<Duration>) -> Duration {
        let backoff = self
            .base
            .checked_mul(1u32.checked_shl(retry).unwrap_or(u32::MAX))
            .unwrap_or(self.max_wait)
            .min(self.max_wait);
        let jittered = backoff.mul_f64(0.5 + 0.5 * unit_random());
        match server {
            Some(s) => jittered.max(s),
            None => jittered,
        }
    }
}

/// Whether an HTTP status is worth another attempt. `body` tells a 429 that means "slow down"
/// from one that means "no more money".
pub fn retryable_status(status: u16, body: &str) -> bool {
    match status {
        408 | 409 | 529 => true,
        429 => !quota_exhausted(body),
        // A 500 that names a field of the request (`response_format`) is a server refusing
        // it, every time: asked again without it, not retried.
        500 => !names_a_schema_field(body),
        501..=599 => true,
        _ => false,
    }
}

fn names_a_schema_field(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    ["response_format", "json_schema"]
        .iter()
        .any(|w| b.contains(w))
}

/// A 429 whose body says the account's quota or spend limit is used up: waiting won't help.
pub fn quota_exhausted(body: &str) -> bool {
    // Precise phrases only: OpenAI's ordinary per-minute 429 also links to the billing page.
    let b = body.to_ascii_lowercase();
    b.contains("insufficient_quota")
        || b.contains("exceeded your current quota")
        || b.contains("spend limit")
        || b.contains("spending limit")
}

/// The server's wait: `retry-after-ms` (milliseconds), else `retry-after` in seconds or as an
/// HTTP date (relative to `now`). Unparsable values are ignored.
pub fn server_wait(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now: SystemTime,
) -> Option<Duration> {
    if let Some(ms) = retry_after_ms.and_then(|v| v.trim().parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64((ms / 1000.0).min(1e9)));
        }
    }
    let value = retry_after?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let at = SystemTime::UNIX_EPOCH
        .checked_add(Duration::from_secs(u64::try_from(date.timestamp()).ok()?))?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A number in [0, 1) that differs between calls and threads; jitter needs no more.
fn unit_random() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(crate::clock::entropy());
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_jitter_and_caps() {
        let r = Retry {
            retries: 5,
            base: Duration::from_millis(100),
            max_wait: Duration::from_secs(1),
        };
        for _ in 0..50 {
            let w0 = r.wait(0, None);
            assert!(
                w0 >= Duration::from_millis(50) && w0 <= Duration::from_millis(100),
                "{w0:?}"
            );
            let w2 = r.wait(2, None);
            assert!(
                w2 >= Duration::from_millis(200) && w2 <= Duration::from_millis(400),
                "{w2:?}"
            );
            assert!(r.wait(40, None) <= Duration::from_secs(1));
        }
        assert!(r.wait(0, Some(Duration::from_secs(3))) >= Duration::from_secs(3));
    }

    #[test]
    fn which_statuses_are_retried() {
        for s in [408, 409, 429, 500, 502, 503, 529] {
            assert!(retryable_status(s, ""), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!retryable_status(s, ""), "{s}");
        }
        let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}"#;
        assert!(!retryable_status(429, quota));
        let rate = r#"{"error":{"message":"Rate limit reached for gpt-4.1-mini on requests per min (RPM): Limit 3, Used 3. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more. You can increase your rate limit by adding a payment method to your account at https://platform.openai.com/account/billing.","type":"requests","code":"rate_limit_exceeded"}}"#;
        assert!(retryable_status(429, rate), "a plain rate limit is retried");
    }

    #[test]
    fn server_waits_in_ms_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            server_wait(Some("250"), Some("9"), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            server_wait(None, Some("2"), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            server_wait(None, Some("1.5"), now),
            Some(Duration::from_millis(1500))
        );
        // 1_700_000_030 is Tue, 14 Nov 2023 22:13:50 GMT.
        assert_eq!(
            server_wait(None, Some("Tue, 14 Nov 2023 22:13:50 GMT"), now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            server_wait(None, Some("Tue, 14 Nov 2000 22:13:50 GMT"), now),
            Some(Duration::ZERO)
        );
        for bad in ["soon", "-1", "NaN", "inf", ""] {
            assert_eq!(server_wait(None, Some(bad), now), None, "{bad}");
        }
        assert_eq!(server_wait(Some("x"), None, now), None);
        assert!(server_wait(None, Some("1e300"), now).is_some());
    }
}
