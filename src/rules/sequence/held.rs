//! The argument text of open tool calls, held until each call ends so that
//! its concatenation can be checked as JSON (`tool-call-args-not-json`).
//!
//! A call may stream arguments for as long as the stream lasts, and a
//! stream may keep many calls open, so what is held is counted against one
//! pool per stream, bounded by the stream's state limit (`max-state-bytes`,
//! the document limit by default). A delta that would take the pool past it
//! drops that call's text: the call is reported once (`state-over-budget`)
//! and its arguments are not checked. Text is given back to the pool when
//! the call it belongs to is dropped, wherever that happens (an end event,
//! a run's end, a stream's end), so no path can leak the budget.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::here::Here;
use super::state::STATE_OVER_BUDGET;
use super::total::Total;
use crate::findings::Findings;

/// What the open calls of one stream hold, and how much they may: within
/// the stream's limit and, with every other stream checked at once, the
/// total.
#[derive(Debug)]
pub(super) struct Pool {
    held: AtomicU64,
    limit: AtomicU64,
    total: Mutex<Arc<Total>>,
}

/// The bound a delta would go over: the stream's limit, or the total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Over {
    Limit(u64),
    Total(u64),
}

impl Pool {
    /// An empty pool of `limit` bytes.
    pub(super) fn new(limit: u64) -> Arc<Pool> {
        Arc::new(Pool {
            held: AtomicU64::new(0),
            limit: AtomicU64::new(limit),
            total: Mutex::new(Total::unbounded()),
        })
    }

    /// Bounds the pool to `limit` bytes, and to `total` with the other
    /// streams (set before the stream's first event).
    pub(super) fn bound(&self, limit: u64, total: &Arc<Total>) {
        self.limit.store(limit, Ordering::Relaxed);
        let mut current = self.total.lock().unwrap_or_else(PoisonError::into_inner);
        if !Arc::ptr_eq(&current, total) {
            let held = self.held.load(Ordering::Relaxed);
            current.give_back(held);
            total.force(held);
            *current = Arc::clone(total);
        }
    }

    /// Takes `bytes` if they fit; otherwise the bound they would go over.
    fn take(&self, bytes: u64) -> Result<(), Over> {
        let limit = self.limit.load(Ordering::Relaxed);
        let held = self.held.load(Ordering::Relaxed);
        if held.saturating_add(bytes) > limit {
            return Err(Over::Limit(limit));
        }
        let total = self.total.lock().unwrap_or_else(PoisonError::into_inner);
        if !total.take(bytes) {
            return Err(Over::Total(total.limit()));
        }
        self.held.store(held + bytes, Ordering::Relaxed);
        Ok(())
    }

    fn release(&self, bytes: u64) {
        let held = self.held.load(Ordering::Relaxed);
        let given = bytes.min(held);
        self.held.store(held - given, Ordering::Relaxed);
        self.total
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .give_back(given);
    }

    #[cfg(test)]
    fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }
}

/// One open call's argument text, counted in its stream's pool.
#[derive(Debug)]
pub(super) struct Arguments {
    text: String,
    /// Whether any argument delta arrived.
    arrived: bool,
    /// Whether the text went over the pool and was dropped.
    dropped: bool,
    pool: Arc<Pool>,
}

impl Arguments {
    /// No argument text yet.
    pub(super) fn new(pool: &Arc<Pool>) -> Arguments {
        Arguments {
            text: String::new(),
            arrived: false,
            dropped: false,
            pool: pool.clone(),
        }
    }

    /// Appends `delta` to the call `id`'s text, or, when it would take the
    /// pool past its limit, drops the text and reports it, once.
    pub(super) fn push(&mut self, id: &str, delta: &str, at: &Here<'_>, out: &mut impl Findings) {
        self.arrived = true;
        if self.dropped {
            return;
        }
        let Err(over) = self.pool.take(delta.len() as u64) else {
            self.text.push_str(delta);
            return;
        };
        self.pool.release(self.text.len() as u64);
        self.text = String::new();
        self.dropped = true;
        let (over, help) = match over {
            Over::Limit(limit) => (
                format!("the limit of {}", crate::text::size(limit)),
                "a tool call's arguments are held until its end; end calls, or raise max-state-bytes for captures this large",
            ),
            Over::Total(limit) => (
                super::total::over_total(limit),
                "the streams checked at once share one total; raise max-total-state-bytes if this many streams of this size are expected",
            ),
        };
        out.add(&STATE_OVER_BUDGET, |rule| {
            at.finding(
                rule,
                "/delta",
                format!(
                    "the arguments of tool call '{id}' would take the argument text held for the stream's open tool calls over {over}: it is not kept, and the call's arguments are not checked as JSON"
                ),
            )
            .with_help(help)
        });
    }

    /// The text to check: `None` when no delta arrived or the text was
    /// dropped.
    pub(super) fn text(&self) -> Option<&str> {
        (self.arrived && !self.dropped).then_some(self.text.as_str())
    }
}

impl Clone for Arguments {
    /// A copy counts in the pool as the original does (it may go over the
    /// limit: copies are made of what was already admitted).
    fn clone(&self) -> Arguments {
        let bytes = self.text.len() as u64;
        self.pool.held.fetch_add(bytes, Ordering::Relaxed);
        self.pool
            .total
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .force(bytes);
        Arguments {
            text: self.text.clone(),
            arrived: self.arrived,
            dropped: self.dropped,
            pool: self.pool.clone(),
        }
    }
}

impl Drop for Arguments {
    fn drop(&mut self) {
        self.pool.release(self.text.len() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_given_back_when_its_call_is_dropped() {
        let pool = Pool::new(10);
        // What `push` does when a delta fits.
        pool.take(4).expect("fits");
        let mut a = Arguments::new(&pool);
        a.text.push_str("abcd");
        let b = a.clone();
        assert_eq!(pool.held(), 8);
        drop(a);
        drop(b);
        assert_eq!(pool.held(), 0);
        assert_eq!(pool.take(11), Err(Over::Limit(10)));
    }

    #[test]
    fn the_pool_takes_from_the_total_of_the_streams() {
        let total = Total::new(6);
        let (a, b) = (Pool::new(10), Pool::new(10));
        a.bound(10, &total);
        b.bound(10, &total);
        a.take(4).expect("fits both");
        assert_eq!(b.take(4), Err(Over::Total(6)));
        b.take(2).expect("fits what is left");
        a.release(4);
        assert_eq!(total.held(), 2);
    }
}
