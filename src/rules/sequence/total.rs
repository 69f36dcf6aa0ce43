//! What the streams checked at once hold of state, in all.
//!
//! Each stream's state, activity contents and open tool calls' argument
//! text are held to its own limit (`max-state-bytes`); a server guard or
//! the proxy follows many streams at once, so one validator (and every
//! clone of it) also holds them all to a total (`max-total-state-bytes`).
//! A stream takes from the total as its state grows and gives back as it
//! shrinks and when it is dropped, so no path can leak the total; what a
//! stream may take is the smaller of its own headroom and the total's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The bytes of state the streams of one validator hold, and the most
/// they may.
#[derive(Debug)]
pub(crate) struct Total {
    held: AtomicU64,
    limit: u64,
}

impl Total {
    /// A total of `limit` bytes, none held.
    pub(crate) fn new(limit: u64) -> Arc<Total> {
        Arc::new(Total {
            held: AtomicU64::new(0),
            limit,
        })
    }

    /// A total that refuses nothing, for a stream followed on its own.
    pub(crate) fn unbounded() -> Arc<Total> {
        Total::new(u64::MAX)
    }

    /// The most the streams may hold.
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// Takes `bytes` if they fit under the limit; `false` (nothing taken)
    /// otherwise.
    pub(crate) fn take(&self, bytes: u64) -> bool {
        self.held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                held.checked_add(bytes).filter(|&sum| sum <= self.limit)
            })
            .is_ok()
    }

    /// Takes `bytes` whatever the limit: what a stream already holds,
    /// moved here from another total.
    pub(crate) fn force(&self, bytes: u64) {
        self.held.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Gives back `bytes` taken before.
    pub(crate) fn give_back(&self, bytes: u64) {
        let _ = self
            .held
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                Some(held.saturating_sub(bytes))
            });
    }

    /// The bytes held now.
    #[cfg(test)]
    pub(crate) fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }
}

/// How a finding names the total of `limit` bytes a value would go over.
pub(crate) fn over_total(limit: u64) -> String {
    format!(
        "the {} the streams checked at once may hold in all (max-total-state-bytes)",
        crate::text::size(limit)
    )
}

/// What one stream's state and activity contents take from a [`Total`]:
/// at least what they hold, given back when dropped.
#[derive(Debug)]
pub(crate) struct Share {
    total: Arc<Total>,
    held: u64,
}

impl Share {
    /// A share of `total` holding nothing.
    pub(crate) fn new(total: &Arc<Total>) -> Share {
        Share {
            total: Arc::clone(total),
            held: 0,
        }
    }

    /// The total this share is of.
    pub(crate) fn total(&self) -> &Arc<Total> {
        &self.total
    }

    /// Holds at least `bytes`, taking what is missing from the total;
    /// `false` (nothing taken) when the total has not that much left.
    pub(crate) fn cover(&mut self, bytes: u64) -> bool {
        let missing = bytes.saturating_sub(self.held);
        if missing == 0 {
            return true;
        }
        if !self.total.take(missing) {
            return false;
        }
        self.held = bytes;
        true
    }

    /// Holds exactly `bytes` (no more than it holds): gives back the rest.
    pub(crate) fn settle(&mut self, bytes: u64) {
        if bytes < self.held {
            self.total.give_back(self.held - bytes);
            self.held = bytes;
        }
    }

    /// Moves what this share holds to `total`.
    pub(crate) fn move_to(&mut self, total: &Arc<Total>) {
        if Arc::ptr_eq(&self.total, total) {
            return;
        }
        self.total.give_back(self.held);
        total.force(self.held);
        self.total = Arc::clone(total);
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        self.total.give_back(self.held);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_take_from_one_total_and_give_back_when_dropped() {
        let total = Total::new(100);
        let mut a = Share::new(&total);
        let mut b = Share::new(&total);
        assert!(a.cover(60));
        assert!(!b.cover(50), "60 + 50 is over 100");
        assert_eq!(total.held(), 60);
        assert!(b.cover(40));
        a.settle(10);
        assert_eq!(total.held(), 50);
        assert!(b.cover(90));
        drop(b);
        assert_eq!(total.held(), 10);
        let other = Total::new(5);
        a.move_to(&other);
        assert_eq!((total.held(), other.held()), (0, 10));
        drop(a);
        assert_eq!(other.held(), 0);
    }
}
