//! Many requests at once: at most `parallel` in flight, results in the order of the requests,
//! usage per call and in total.

use super::{Completion, LlmError, Provider, Request, Usage};

/// The outcome of a batch.
#[derive(Debug)]
pub struct Batch<T> {
    /// One result per input, in input order.
    pub results: Vec<Result<T, LlmError>>,
}

impl Batch<Completion> {
    /// Tokens spent by the calls that answered.
    pub fn usage(&self) -> Usage {
        self.results
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|c| c.usage)
            .sum()
    }
}

/// Runs `f` over `items` with at most `parallel` calls in flight.
pub fn run<I: Sync, T: Send>(
    items: &[I],
    parallel: usize,
    f: impl Fn(&I) -> Result<T, LlmError> + Sync,
) -> Batch<T> {
    Batch {
        results: crate::parallel::map_ordered(items, parallel, f),
    }
}

/// Sends every request through `provider`, `parallel` at a time.
pub fn complete_all(
    provider: &dyn Provider,
    requests: &[Request],
    parallel: usize,
) -> Batch<Completion> {
    run(requests, parallel, |r| provider.complete(r))
}
