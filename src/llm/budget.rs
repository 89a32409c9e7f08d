//! A run's budget of model requests, counted where requests leave: every HTTP attempt (a retry
//! is one), every run of a command or agent CLI, every repair request. A request the budget
//! does not cover is not sent; the run reports the requests it made, answered or not.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use super::{Completion, Describe, LlmError, Provider, Request};

/// Requests a run may send, shared by its threads.
#[derive(Debug)]
pub struct Budget {
    limit: u32,
    sent: AtomicU32,
    /// The setting that sets the limit, for the error (`skill.evalMaxCalls`).
    setting: &'static str,
}

impl PartialEq for Budget {
    /// One budget is the same budget only as itself: two runs with equal limits spend apart.
    fn eq(&self, other: &Budget) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Budget {
    pub fn new(limit: usize, setting: &'static str) -> Arc<Budget> {
        Arc::new(Budget {
            limit: u32::try_from(limit).unwrap_or(u32::MAX),
            sent: AtomicU32::new(0),
            setting,
        })
    }

    /// Takes one request from the budget: an error (nothing taken) when it is spent.
    pub fn take(&self) -> Result<(), LlmError> {
        self.sent
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |sent| {
                (sent < self.limit).then_some(sent + 1)
            })
            .map(|_| ())
            .map_err(|_| LlmError::Budget {
                limit: self.limit,
                setting: self.setting,
            })
    }

    /// Requests sent so far.
    pub fn sent(&self) -> u32 {
        self.sent.load(Ordering::SeqCst)
    }
}

/// A provider whose requests all count against `budget` (the providers take from it before
/// each attempt they send).
pub struct Budgeted<'a> {
    pub inner: &'a dyn Provider,
    pub budget: Arc<Budget>,
}

impl Provider for Budgeted<'_> {
    fn complete(&self, request: &Request) -> Result<Completion, LlmError> {
        let mut request = request.clone();
        request.budget = Some(self.budget.clone());
        self.inner.complete(&request)
    }

    fn native_tools(&self) -> bool {
        self.inner.native_tools()
    }

    fn describe(&self) -> &Describe {
        self.inner.describe()
    }
}

/// Takes one request from the request's budget, when it has one.
pub(crate) fn take(request: &Request) -> Result<(), LlmError> {
    match &request.budget {
        Some(budget) => budget.take(),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_never_overspent_by_threads() {
        let budget = Budget::new(100, "skill.evalMaxCalls");
        let taken = std::sync::atomic::AtomicU32::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..50 {
                        if budget.take().is_ok() {
                            taken.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                });
            }
        });
        assert_eq!(taken.load(Ordering::SeqCst), 100);
        assert_eq!(budget.sent(), 100);
        let e = budget.take().unwrap_err();
        assert_eq!(
            e.to_string(),
            "the run's budget of 100 model requests is spent (skill.evalMaxCalls); retries and repair requests count"
        );
    }
}
