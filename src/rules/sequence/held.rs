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
use std::sync::Arc;

use super::here::Here;
use super::state::STATE_OVER_BUDGET;
use crate::findings::Findings;

/// What the open calls of one stream hold, and how much they may.
#[derive(Debug)]
pub(super) struct Pool {
    held: AtomicU64,
    limit: AtomicU64,
}

impl Pool {
    /// An empty pool of `limit` bytes.
    pub(super) fn new(limit: u64) -> Arc<Pool> {
        Arc::new(Pool {
            held: AtomicU64::new(0),
            limit: AtomicU64::new(limit),
        })
    }

    /// Bounds the pool to `limit` bytes (set before the stream's first
    /// event).
    pub(super) fn set_limit(&self, limit: u64) {
        self.limit.store(limit, Ordering::Relaxed);
    }

    /// Takes `bytes` if they fit; otherwise the limit.
    fn take(&self, bytes: u64) -> Result<(), u64> {
        let limit = self.limit.load(Ordering::Relaxed);
        let held = self.held.load(Ordering::Relaxed);
        if held.saturating_add(bytes) > limit {
            return Err(limit);
        }
        self.held.store(held + bytes, Ordering::Relaxed);
        Ok(())
    }

    fn release(&self, bytes: u64) {
        let held = self.held.load(Ordering::Relaxed);
        self.held
            .store(held.saturating_sub(bytes), Ordering::Relaxed);
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
        let Err(limit) = self.pool.take(delta.len() as u64) else {
            self.text.push_str(delta);
            return;
        };
        self.pool.release(self.text.len() as u64);
        self.text = String::new();
        self.dropped = true;
        out.add(&STATE_OVER_BUDGET, |rule| {
            at.finding(
                rule,
                "/delta",
                format!(
                    "the arguments of tool call '{id}' would take the argument text held for the stream's open tool calls over the limit of {}: it is not kept, and the call's arguments are not checked as JSON",
                    crate::text::size(limit)
                ),
            )
            .with_help("a tool call's arguments are held until its end; end calls, or raise max-state-bytes for captures this large")
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
        self.pool
            .held
            .fetch_add(self.text.len() as u64, Ordering::Relaxed);
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
        assert_eq!(pool.take(11), Err(10));
    }
}
