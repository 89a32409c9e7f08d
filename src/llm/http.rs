//! One JSON POST with the retry policy: connection errors, timeouts, answers cut short and the
//! retryable statuses are tried again after a backoff that honours the server's wait.

use std::time::Duration;

use super::retry::{self, Retry};
use super::{display_url, excerpt, LlmError, Settings};

/// The most of an answer read: models answer in kilobytes.
const MAX_ANSWER_BYTES: u64 = 16 << 20;
/// How much of an error answer is quoted.
const QUOTED_CHARS: usize = 500;

pub(crate) struct Http {
    agent: ureq::Agent,
    provider: &'static str,
    retry: Retry,
    timeout: Duration,
    /// The key sent, scrubbed from every answer quoted in an error even when no credential
    /// rule knows its shape (a server echoing "invalid key sk-...").
    key: Option<super::settings::Secret>,
}

/// A successful answer.
pub(crate) struct Answer {
    pub body: String,
    pub attempts: u32,
}

/// Why one attempt failed, and whether another may help.
enum Attempt {
    Retry(LlmError, Option<Duration>),
    Fail(LlmError),
}

impl Http {
    pub fn new(provider: &'static str, settings: &Settings) -> Http {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(settings.timeout))
            .timeout_connect(Some(settings.connect_timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("git-skill/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Http {
            agent,
            provider,
            retry: settings.retry,
            timeout: settings.timeout,
            key: settings.api_key.clone().filter(|k| k.expose().len() >= 8),
        }
    }

    pub fn post(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &serde_json::Value,
        budget: Option<&super::budget::Budget>,
    ) -> Result<Answer, LlmError> {
        let payload = serde_json::to_string(body).expect("a JSON value serialises");
        let mut attempts = 0;
        // Every attempt is a request the server sees, and costs what the first does: taken
        // before it is sent (a retry's before its wait).
        if let Some(budget) = budget {
            budget.take()?;
        }
        loop {
            attempts += 1;
            match self.attempt(url, headers, &payload, attempts) {
                Ok(body) => {
                    return Ok(Answer {
                        body: self.scrub(&body),
                        attempts,
                    })
                }
                Err(Attempt::Fail(e)) => return Err(e),
                Err(Attempt::Retry(e, server)) => {
                    if attempts > self.retry.retries {
                        return Err(e);
                    }
                    if let Some(wait) = server.filter(|w| *w > self.retry.max_wait) {
                        return Err(LlmError::WaitTooLong {
                            provider: self.provider,
                            url: display_url(url),
                            wait,
                            limit: self.retry.max_wait,
                        });
                    }
                    // No budget for another try: the server's own error is what to say.
                    if budget.is_some_and(|b| b.take().is_err()) {
                        return Err(e);
                    }
                    std::thread::sleep(self.retry.wait(attempts - 1, server));
                }
            }
        }
    }

    fn attempt(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        payload: &str,
        attempts: u32,
    ) -> Result<String, Attempt> {
        let shown = display_url(url);
        let mut request = self
            .agent
            .post(url)
            .header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut response = match request.send(payload) {
            Ok(r) => r,
            Err(e) => return Err(self.transport(e, &shown, attempts)),
        };
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let server = retry::server_wait(
            header("retry-after-ms").as_deref(),
            header("retry-after").as_deref(),
            crate::clock::system(),
        );
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER_BYTES)
            .read_to_string();
        let body = body.map_err(|e| self.transport(e, &shown, attempts))?;
        if (200..300).contains(&status) {
            return Ok(body);
        }
        let error = LlmError::Status {
            provider: self.provider,
            url: shown,
            status,
            attempts,
            answer: excerpt(&self.scrub(&body), QUOTED_CHARS),
            named: super::named_fields(&body),
        };
        if retry::retryable_status(status, &body) {
            Err(Attempt::Retry(error, server))
        } else {
            Err(Attempt::Fail(error))
        }
    }

    fn scrub(&self, text: &str) -> String {
        match &self.key {
            Some(key) => text.replace(key.expose(), "[redacted]"),
            None => text.to_owned(),
        }
    }

    fn transport(&self, e: ureq::Error, url: &str, attempts: u32) -> Attempt {
        let provider = self.provider;
        let url = url.to_owned();
        match e {
            ureq::Error::Timeout(kind) => {
                let error = LlmError::Timeout {
                    provider,
                    url,
                    after: self.timeout,
                    attempts,
                };
                // Timed out before the request reached the server: worth another attempt.
                // Once it was sent, a local server goes on generating the abandoned answer,
                // and a retry would only queue behind it: reported at once.
                match kind {
                    ureq::Timeout::Resolve | ureq::Timeout::Connect => Attempt::Retry(error, None),
                    _ => Attempt::Fail(error),
                }
            }
            ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => Attempt::Retry(
                LlmError::Connect {
                    provider,
                    url,
                    attempts,
                    reason: e.to_string(),
                },
                None,
            ),
            ureq::Error::Io(io) => {
                let cut = matches!(
                    io.kind(),
                    std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset
                );
                let error = if cut {
                    LlmError::BadAnswer {
                        provider,
                        url,
                        reason: format!(
                            "the answer was cut off ({io}) after {}",
                            super::attempts_text(attempts)
                        ),
                    }
                } else {
                    LlmError::Connect {
                        provider,
                        url,
                        attempts,
                        reason: io.to_string(),
                    }
                };
                Attempt::Retry(error, None)
            }
            ureq::Error::BodyExceedsLimit(limit) => Attempt::Fail(LlmError::BadAnswer {
                provider,
                url,
                reason: format!("the answer is larger than {limit} bytes"),
            }),
            ureq::Error::Protocol(p) => Attempt::Retry(
                LlmError::BadAnswer {
                    provider,
                    url,
                    reason: format!(
                        "not a valid HTTP answer ({p}) after {}",
                        super::attempts_text(attempts)
                    ),
                },
                None,
            ),
            other => Attempt::Fail(LlmError::Connect {
                provider,
                url,
                attempts,
                reason: other.to_string(),
            }),
        }
    }
}
